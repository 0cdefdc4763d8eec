"""Engine and bot benchmark: prints figures, checks nothing.

Run: ``.venv/bin/python bench/engine.py [--seconds 3] [--decisions 20000] [--games 40]``

1. Random-play hands per second on one core, for every preset and every deck, through
   the public API (``random.choice(game.legal(seat))`` then ``game.act``) and, when the
   engine offers it, through the fast path (``game.legal_cards`` / ``game.play``) for the
   card play. Goal: >= 5,000 hands/s for ``standard``.
2. The basic bot's decision time (``choose_action`` on a view; building the view is
   reported apart, since the server builds it anyway to broadcast): median and p99 in
   ms. Goal: p99 < 2 ms.
3. Bots against random players: games won by the bot side (``standard`` and
   ``cutthroat``).

``--profile PRESET`` runs the random-play loop of one preset under cProfile instead and
prints the hottest functions.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import statistics
import time
from collections.abc import Callable

from server.engine import Game, Rules
from server.engine.bots import choose_action

DECKS = ("standard", "jokers", "jokers_deuces")


def random_step(game: Game, rng: random.Random) -> None:
    """One random legal action by the first seat on turn, through the public API."""
    seat = game.turn[0]
    game.act(seat, rng.choice(game.legal(seat)))


def fast_step(game: Game, rng: random.Random) -> None:
    """As random_step, but card play goes through the engine's fast path."""
    seat = game.turn[0]
    if game.phase == "play":
        game.play(seat, rng.choice(game.legal_cards(seat)))
    else:
        game.act(seat, rng.choice(game.legal(seat)))


def hands_per_second(
    rules: Rules, seconds: float, step: Callable[[Game, random.Random], None]
) -> float:
    """Finished hands per second of random play, new games started as old ones end."""
    rng = random.Random(1)
    seed = 0
    hands = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        game = Game(rules, seed=seed)
        seed += 1
        while game.winner is None and time.perf_counter() < deadline:
            for _ in range(200):
                step(game, rng)
                if game.winner is not None:
                    break
        hands += len(game.hand_results)
    return hands / (time.perf_counter() - start)


def bench_random_play(seconds: float) -> None:
    has_fast_path = hasattr(Game, "legal_cards") and hasattr(Game, "play")
    print(f"Random play, hands per second ({seconds:g} s each, one core)")
    header = f"  {'preset':<12} {'deck':<14} {'legal()+act()':>14}"
    print(header + (f" {'fast path':>10}" if has_fast_path else ""))
    for preset in Rules.preset_names():
        for deck in DECKS:
            rules = Rules.preset(preset, deck=deck)
            line = (
                f"  {preset:<12} {deck:<14} {hands_per_second(rules, seconds, random_step):>14,.0f}"
            )
            if has_fast_path:
                line += f" {hands_per_second(rules, seconds, fast_step):>10,.0f}"
            print(line, flush=True)


def bench_bot_decisions(decisions: int) -> None:
    """Bots play every preset against each other; every decision is timed."""
    decide: list[float] = []
    view_times: list[float] = []
    rng = random.Random(7)
    presets = Rules.preset_names()
    seed = 0
    while len(decide) < decisions:
        rules = Rules.preset(presets[seed % len(presets)])
        game = Game(rules, seed=seed)
        seed += 1
        while game.winner is None and len(decide) < decisions:
            seat = game.turn[0]
            t0 = time.perf_counter()
            view = game.view(seat)
            t1 = time.perf_counter()
            action = choose_action(rules, view, rng=rng)
            t2 = time.perf_counter()
            game.act(seat, action)
            view_times.append(t1 - t0)
            decide.append(t2 - t1)
    print(f"Basic bot, {len(decide):,} decisions over {seed} games of every preset")
    for name, times in (("choose_action", decide), ("game.view", view_times)):
        ms = sorted(t * 1000 for t in times)
        median, p99 = statistics.median(ms), ms[int(len(ms) * 0.99)]
        print(f"  {name:<14} median {median:.3f} ms, p99 {p99:.3f} ms, max {ms[-1]:.3f} ms")


def play_mixed(rules: Rules, seed: int, bot_seats: set[int], rng: random.Random) -> int:
    """Play one game, bots in ``bot_seats`` and random players elsewhere; the winner."""
    game = Game(rules, seed=seed)
    while game.winner is None:
        seat = game.turn[0]
        if seat in bot_seats:
            action = choose_action(rules, game.view(seat), rng=rng)
        else:
            action = rng.choice(game.legal(seat))
        game.act(seat, action)
    return game.winner


def bench_bots_vs_random(games: int) -> None:
    print(f"Bots against random players, {games} games each")
    rng = random.Random(3)
    for preset, bot_seats, bot_side in (("standard", {0, 2}, 0), ("cutthroat", {0}, 0)):
        rules = Rules.preset(preset)
        won = sum(play_mixed(rules, seed, bot_seats, rng) == bot_side for seed in range(games))
        others = len(rules.sides) - 1
        print(
            f"  {preset:<10} bot side won {won}/{games} ({won / games:.0%}; "
            f"a coin toss would give {1 / (others + 1):.0%})"
        )


def profile(preset: str, seconds: float) -> None:
    rules = Rules.preset(preset)
    profiler = cProfile.Profile()
    profiler.enable()
    hands = hands_per_second(rules, seconds, random_step)
    profiler.disable()
    print(f"{preset}: {hands:,.0f} hands/s under the profiler")
    pstats.Stats(profiler).sort_stats("tottime").print_stats(15)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=3.0, help="time per preset and deck")
    parser.add_argument("--decisions", type=int, default=20_000, help="bot decisions to time")
    parser.add_argument("--games", type=int, default=40, help="bot-vs-random games per preset")
    parser.add_argument("--profile", metavar="PRESET", help="profile random play of one preset")
    args = parser.parse_args()
    if args.profile:
        profile(args.profile, args.seconds)
        return
    bench_random_play(args.seconds)
    bench_bot_decisions(args.decisions)
    bench_bots_vs_random(args.games)


if __name__ == "__main__":
    main()
