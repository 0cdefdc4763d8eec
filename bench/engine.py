"""Engine and bot benchmark: prints figures, checks nothing.

Run: ``.venv/bin/python bench/engine.py [--seconds 3] [--decisions 20000] [--games 40]``

1. Random-play hands per second on one core, for every preset and every deck, through
   the public API (``random.choice(game.legal(seat))`` then ``game.act``) and, when the
   engine offers it, through the fast path (``game.legal_cards`` / ``game.play`` for the
   seat ``game.seat_to_play``, in one inlined loop: ``fast_hands``) for the card play.
   Goal: >= 5,000 hands/s for ``standard``.
2. The basic bot's decision time (``choose_action`` on a view; building the view is
   reported apart, since the server builds it anyway to broadcast): median and p99 in
   ms. Goal: p99 < 2 ms.
3. Bots against random players: games won by the bot side (``standard`` and
   ``cutthroat``).

Times are this process's CPU time (``time.process_time``), so that other work on a
shared machine does not count against the engine; the wall-clock rate is printed too.

``--profile PRESET`` runs the random-play loops of one preset (``legal()+act()``, then the
fast path) under cProfile instead and prints the hottest functions.
"""

from __future__ import annotations

import argparse
import cProfile
import platform
import pstats
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.harness.stats import percentile
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


def fast_hands(game: Game, rng: random.Random, deadline: float) -> None:
    """fast_step in a loop, inlined, until the game ends or the CPU deadline passes.

    The same honest work per card: a uniformly random card of ``legal_cards`` for the
    seat on turn (``seat_to_play``), applied through the checked ``play``. The index is
    ``int(random() * n)``, uniform up to float rounding (a bias below 2**-50) and cheaper
    than ``choice``. Other phases go through ``legal`` / ``act``.
    """
    random_ = rng.random
    legal_cards, play, legal, act = game.legal_cards, game.play, game.legal, game.act
    clock = time.process_time
    while game.winner is None and clock() < deadline:
        for _ in range(200):
            phase = game.phase
            if phase == "play":
                seat = game.seat_to_play
                cards = legal_cards(seat)
                play(seat, cards[int(random_() * len(cards))])
            elif phase == "over":
                return
            else:
                seat = game.turn[0]
                actions = legal(seat)
                act(seat, actions[int(random_() * len(actions))])


def hands_per_second(
    rules: Rules, seconds: float, step: Callable[[Game, random.Random], None]
) -> tuple[float, float]:
    """Finished hands per CPU second and per wall second of random play, new games
    started as old ones end, for ``seconds`` of CPU time."""
    rng = random.Random(1)
    seed = 0
    hands = 0
    cpu_start, wall_start = time.process_time(), time.perf_counter()
    deadline = cpu_start + seconds
    while time.process_time() < deadline:
        game = Game(rules, seed=seed)
        seed += 1
        if step is fast_step:
            fast_hands(game, rng, deadline)
        while game.winner is None and time.process_time() < deadline:
            for _ in range(200):
                step(game, rng)
                if game.winner is not None:
                    break
        hands += len(game.hand_results)
    cpu, wall = time.process_time() - cpu_start, time.perf_counter() - wall_start
    return hands / cpu, hands / wall


def bench_random_play(seconds: float, presets: list[str]) -> None:
    has_fast_path = hasattr(Game, "legal_cards") and hasattr(Game, "play")
    print(f"Random play, hands per CPU second (wall-clock rate in brackets), {seconds:g} s each")
    header = f"  {'preset':<12} {'deck':<14} {'legal()+act()':>22}"
    print(header + (f" {'fast path':>22}" if has_fast_path else ""), flush=True)
    for preset in presets:
        for deck in DECKS:
            rules = Rules.preset(preset, deck=deck)
            line = f"  {preset:<12} {deck:<14} {_rates(rules, seconds, random_step):>22}"
            if has_fast_path:
                line += f" {_rates(rules, seconds, fast_step):>22}"
            print(line, flush=True)


def _rates(rules: Rules, seconds: float, step: Callable[[Game, random.Random], None]) -> str:
    cpu, wall = hands_per_second(rules, seconds, step)
    return f"{cpu:,.0f} ({wall:,.0f})"


def bench_bot_decisions(decisions: int) -> None:
    """Bots play every preset against each other; every decision is timed in CPU time."""
    decide: list[int] = []
    view_times: list[int] = []
    rng = random.Random(7)
    presets = Rules.preset_names()
    seed = 0
    clock = time.process_time_ns
    while len(decide) < decisions:
        rules = Rules.preset(presets[seed % len(presets)])
        game = Game(rules, seed=seed)
        seed += 1
        while game.winner is None and len(decide) < decisions:
            seat = game.turn[0]
            t0 = clock()
            view = game.view(seat)
            t1 = clock()
            action = choose_action(rules, view, rng=rng)
            t2 = clock()
            game.act(seat, action)
            view_times.append(t1 - t0)
            decide.append(t2 - t1)
    print(f"Basic bot, {len(decide):,} decisions over {seed} games of every preset (CPU time)")
    for name, times in (("choose_action", decide), ("game.view", view_times)):
        ms = sorted(t / 1e6 for t in times)
        median, p99 = statistics.median(ms), percentile(ms, 0.99)
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
    for name, step in (("legal()+act()", random_step), ("fast path", fast_step)):
        profiler = cProfile.Profile()
        profiler.enable()
        cpu_rate, _ = hands_per_second(rules, seconds, step)
        profiler.disable()
        print(f"{preset}, {name}: {cpu_rate:,.0f} hands per CPU second under the profiler")
        pstats.Stats(profiler).sort_stats("tottime").print_stats(15)


def _cpu_name() -> str:
    """The CPU model, so that figures from different machines are not compared blindly."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=3.0, help="time per preset and deck")
    parser.add_argument("--decisions", type=int, default=20_000, help="bot decisions to time")
    parser.add_argument("--games", type=int, default=40, help="bot-vs-random games per preset")
    parser.add_argument(
        "--presets", nargs="+", default=Rules.preset_names(), help="presets to time random play of"
    )
    parser.add_argument("--profile", metavar="PRESET", help="profile random play of one preset")
    args = parser.parse_args()
    if args.profile:
        profile(args.profile, args.seconds)
        return
    print(f"Python {platform.python_version()} on {_cpu_name()}")
    bench_random_play(args.seconds, args.presets)
    bench_bot_decisions(args.decisions)
    bench_bots_vs_random(args.games)


if __name__ == "__main__":
    main()
