"""Bot levels head to head: the advanced partnership against the basic one. Prints
figures, checks nothing.

Run: ``.venv/bin/python bench/bots.py [--games 40] [--presets standard,competitive]
[--samples N] [--target N] [--jobs 2]``

Every seed is played twice, the advanced bots on side 0 and then on side 1, so that the
deals (the same seed shuffles the same decks) do not decide the result. For each preset
it prints:

- games won by the advanced side, as a rate with a 95% confidence interval (Wilson);
- average points per hand for each side (bag penalties included) and bags per hand;
- the advanced bot's decision time for a card (CPU time of ``choose_action``: median
  and p99 in ms; goal: median < 30 ms, p99 < 150 ms), and for all its decisions.

Times are this process's CPU time (``time.process_time``), so that other work on a
shared machine does not count; with ``--jobs`` the games run in that many processes.
"""

from __future__ import annotations

import argparse
import math
import platform
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

# The repository root first: run as a script, this folder's bench/server.py would
# otherwise stand in for the server package.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from server.engine import Game, Rules
from server.engine.bots import ADVANCED_SAMPLES, choose_action

MAX_HANDS = 60


@dataclass
class Result:
    """One game, from the advanced side's point of view."""

    won: bool
    hands: int
    points: list[int]  # [advanced side, basic side], summed over the hands
    bags: list[int]
    card_times: list[float] = field(default_factory=list)
    all_times: list[float] = field(default_factory=list)


def play(
    preset: str, seed: int, advanced_side: int, samples: int | None, target: int | None
) -> Result:
    """One game: the advanced bots hold ``advanced_side``, basic bots the other side."""
    overrides = {} if target is None else {"target_score": target}
    rules = Rules.preset(preset, **overrides)
    game = Game(rules, seed=seed)
    rng = random.Random(seed)
    side_of = {seat: index for index, side in enumerate(rules.sides) for seat in side}
    result = Result(won=False, hands=0, points=[0, 0], bags=[0, 0])
    while game.winner is None and len(game.hand_results) < MAX_HANDS:
        seat = game.turn[0]
        view = game.view(seat)
        if side_of[seat] == advanced_side:
            start = time.process_time()
            action = choose_action(rules, view, "advanced", rng, samples=samples)
            spent = time.process_time() - start
            result.all_times.append(spent)
            if view["phase"] == "play" and len(view["legal"]) > 1:
                result.card_times.append(spent)
        else:
            action = choose_action(rules, view, "basic", rng)
        game.act(seat, action)
    before = [0] * len(rules.sides)
    for hand in game.hand_results:
        for index, side in enumerate(hand["sides"]):
            mine = 0 if index == advanced_side else 1
            result.points[mine] += side["points"]
            penalties = side["bag_penalty"] // rules.bag_penalty if rules.bag_penalty else 0
            result.bags[mine] += side["bags"] - before[index] + penalties * rules.bag_limit
            before[index] = side["bags"]
    result.hands = len(game.hand_results)
    result.won = game.winner == advanced_side
    return result


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """95% confidence interval of a win rate (Wilson score interval)."""
    if games == 0:
        return 0.0, 1.0
    rate = wins / games
    centre = rate + z * z / (2 * games)
    spread = z * math.sqrt(rate * (1 - rate) / games + z * z / (4 * games * games))
    scale = 1 + z * z / games
    return (centre - spread) / scale, (centre + spread) / scale


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(int(len(ordered) * share), len(ordered) - 1)] if ordered else 0.0


def report(preset: str, results: list[Result], seconds: float) -> None:
    games = len(results)
    wins = sum(r.won for r in results)
    low, high = wilson(wins, games)
    hands = sum(r.hands for r in results) or 1
    card_times = [t for r in results for t in r.card_times]
    all_times = [t for r in results for t in r.all_times]
    points = [sum(r.points[i] for r in results) / hands for i in (0, 1)]
    bags = [sum(r.bags[i] for r in results) / hands for i in (0, 1)]
    print(f"\n{preset}: {games} games ({hands} hands), {seconds:.0f} s wall")
    print(
        f"  advanced side won {wins}/{games} = {wins / games:.0%} "
        f"(95% CI {low:.0%}-{high:.0%}); a coin toss would be 50%"
    )
    print(f"  points per hand: advanced {points[0]:.1f}, basic {points[1]:.1f}")
    print(f"  bags per hand:   advanced {bags[0]:.2f}, basic {bags[1]:.2f}")
    print(
        f"  advanced decision time, cards with a choice ({len(card_times)}): "
        f"median {1000 * statistics.median(card_times):.1f} ms, "
        f"p99 {1000 * percentile(card_times, 0.99):.1f} ms, "
        f"max {1000 * max(card_times):.1f} ms"
    )
    print(
        f"  advanced decision time, every decision ({len(all_times)}): "
        f"median {1000 * statistics.median(all_times):.2f} ms, "
        f"p99 {1000 * percentile(all_times, 0.99):.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=40, help="games per preset (even)")
    parser.add_argument("--presets", default="standard,competitive")
    parser.add_argument("--samples", type=int, help=f"deals per card (default {ADVANCED_SAMPLES})")
    parser.add_argument("--target", type=int, help="target score (the preset's)")
    parser.add_argument("--seed", type=int, default=0, help="first seed")
    parser.add_argument("--jobs", type=int, default=1, help="processes")
    args = parser.parse_args()
    print(f"{platform.processor() or platform.machine()}, Python {platform.python_version()}")
    print(f"samples per card decision: {args.samples or ADVANCED_SAMPLES} (cap)")
    for preset in args.presets.split(","):
        jobs = [
            (preset, args.seed + k // 2, k % 2, args.samples, args.target)
            for k in range(args.games)
        ]
        start = time.time()
        if args.jobs > 1:
            with ProcessPoolExecutor(args.jobs) as pool:
                results = list(pool.map(_play_job, jobs))
        else:
            results = [_play_job(job) for job in jobs]
        report(preset, results, time.time() - start)


def _play_job(job: tuple[str, int, int, int | None, int | None]) -> Result:
    return play(*job)


if __name__ == "__main__":
    main()
