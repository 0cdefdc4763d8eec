"""Duplicate matches between two bots: any two levels, or a bot given as a module path.
Prints figures, checks nothing.

Run: ``.venv/bin/python bench/tournament.py expert advanced [--games 40]
[--presets standard,competitive] [--rules JSON] [--target N] [--seed 0] [--jobs 2]
[--samples N] [--budget-ms N]``

``--rules`` changes fields of every preset played, as a JSON object of rule overrides:
``--presets standard --rules '{"bidding_formats": ["individual", "whiz", "mirror",
"suicide"]}'`` plays a format night.

A bot is a level name (``basic``, ``advanced``, ...: ``choose_action(rules, view, level,
rng, samples=...)``) or ``package.module:function``, a function with the signature of
``choose_action`` called as ``function(rules, view, rng=rng, samples=samples)`` (for example
``bench.opponents:nil_hunter``).

Duplicate: bot A holds one side, bot B every other side, and each deal seed is played
once with A on each side (twice with two sides), so the cards do not decide the result.
For each preset it prints:

- games won by A's side, as a rate with a 95% confidence interval (Wilson), beside the
  rate an even match would give (one side in k);
- points and bags per hand for A's side and for B's sides (on average per side);
- nils tried and made (blind nils among them, also counted apart), and sets (contracts
  not made), per side;
- each bot's decision time per phase, decisions with a choice only: median and p99,
  wall clock (``time.perf_counter``) and CPU (``time.process_time``) in ms.

``--budget-ms`` sets ``SPADES_BOT_BUDGET_MS`` (the expert level's time per decision) in
every process. With ``--jobs`` the games run in that many processes; on a shared
machine the wall times then include waiting for a core, the CPU times do not.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import random
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.harness.stats import percentile, wilson
from server.engine import Game, Rules
from server.engine.bots import BOT_LEVELS, choose_action
from server.engine.shapes import Action, HandResult, View

MAX_HANDS = 60
A, B = 0, 1


Decide = Callable[[Rules, View, random.Random], Action]


@dataclass
class SideFigures:
    """One bot's figures over the hands of a game, summed over the sides it holds."""

    points: int = 0
    bags: int = 0
    nils: int = 0
    nils_made: int = 0
    blind_nils: int = 0
    blind_nils_made: int = 0
    sets: int = 0
    contracts: int = 0
    sides: int = 0
    # phase -> [(wall seconds, CPU seconds)] of decisions with a choice
    times: dict[str, list[tuple[float, float]]] = field(default_factory=dict)


@dataclass
class Result:
    """One game: did A's side win, the hands, and each bot's figures (A, B)."""

    won: bool
    finished: bool
    hands: int
    figures: tuple[SideFigures, SideFigures]


def resolve(bot: str, samples: int | None) -> Decide:
    """A decision function for a level name or a ``module:function`` path."""
    if ":" in bot:
        module, name = bot.split(":", 1)
        function = getattr(importlib.import_module(module), name)
        return lambda rules, view, rng: function(rules, view, rng=rng, samples=samples)
    if bot not in BOT_LEVELS:
        raise SystemExit(f"unknown bot {bot!r}: a level ({', '.join(BOT_LEVELS)}) or module:fn")
    return lambda rules, view, rng: choose_action(rules, view, bot, rng, samples=samples)


def play(
    preset: str,
    seed: int,
    a_side: int,
    bots: tuple[str, str],
    samples: int | None,
    target: int | None,
    changes: dict[str, Any],
) -> Result:
    """One game of deal seed ``seed``: bot A holds side ``a_side``, bot B the others;
    ``changes``: rule overrides on the preset."""
    overrides = dict(changes) if target is None else {**changes, "target_score": target}
    rules = Rules.preset(preset, **overrides)
    decide = (resolve(bots[A], samples), resolve(bots[B], samples))
    game = Game(rules, seed=seed)
    rng = random.Random(seed)
    bot_of_side = [A if index == a_side else B for index in range(len(rules.sides))]
    bot_of_seat = {seat: bot_of_side[i] for i, side in enumerate(rules.sides) for seat in side}
    figures = (SideFigures(sides=1), SideFigures(sides=len(rules.sides) - 1))
    while game.winner is None and len(game.hand_results) < MAX_HANDS:
        seat = game.turn[0]
        view = game.view(seat)
        bot = bot_of_seat[seat]
        wall, cpu = time.perf_counter(), time.process_time()
        action = decide[bot](rules, view, rng)
        if len(view["legal"]) > 1:
            spent = (time.perf_counter() - wall, time.process_time() - cpu)
            figures[bot].times.setdefault(view["phase"], []).append(spent)
        game.act(seat, action)
    _count_hands(rules, game.hand_results, bot_of_side, figures)
    return Result(
        won=game.winner == a_side,
        finished=game.winner is not None,
        hands=len(game.hand_results),
        figures=figures,
    )


def _count_hands(
    rules: Rules,
    hand_results: list[HandResult],
    bot_of_side: list[int],
    figures: tuple[SideFigures, SideFigures],
) -> None:
    """Points, bags (those a bag penalty cleared included), nils and sets per bot."""
    bags_before = [0] * len(bot_of_side)
    for hand in hand_results:
        for index, side in enumerate(hand["sides"]):
            mine = figures[bot_of_side[index]]
            mine.points += side["points"]
            penalties = side["bag_penalty"] // rules.bag_penalty if rules.bag_penalty else 0
            mine.bags += side["bags"] - bags_before[index] + penalties * rules.bag_limit
            bags_before[index] = side["bags"]
            mine.nils += len(side["nil"])
            mine.nils_made += sum(1 for nil in side["nil"] if nil["made"])
            mine.blind_nils += sum(1 for nil in side["nil"] if nil["blind"])
            mine.blind_nils_made += sum(1 for nil in side["nil"] if nil["blind"] and nil["made"])
            if side["contract"] > 0:
                mine.contracts += 1
                mine.sets += side["taken"] < side["contract"]


def report(preset: str, bots: tuple[str, str], results: list[Result], seconds: float) -> None:
    games = len(results)
    wins = sum(r.won for r in results)
    low, high = wilson(wins, games)
    hands = sum(r.hands for r in results) or 1
    unfinished = sum(not r.finished for r in results)
    sides = results[0].figures[A].sides + results[0].figures[B].sides
    print(f"\n{preset}: {games} games ({hands} hands), {seconds:.0f} s wall")
    print(
        f"  {bots[A]} won {wins}/{games} = {wins / games:.1%} (95% CI {low:.1%}-{high:.1%}); "
        f"an even match would be {1 / sides:.0%}"
        + (f"; {unfinished} unfinished after {MAX_HANDS} hands" if unfinished else "")
    )
    for bot in (A, B):
        total = _sum_figures([r.figures[bot] for r in results])
        per_side = max(total.sides // games, 1)
        name = bots[bot]
        print(
            f"  {name}: points per hand {total.points / hands / per_side:.1f}, "
            f"bags per hand {total.bags / hands / per_side:.2f}, "
            f"nils made {total.nils_made}/{total.nils}"
            f"{f' = {total.nils_made / total.nils:.0%}' if total.nils else ''} "
            f"(blind {total.blind_nils_made}/{total.blind_nils}), "
            f"sets {total.sets}/{total.contracts} contracts"
        )
        for phase, times in sorted(total.times.items()):
            walls = [w for w, _ in times]
            cpus = [c for _, c in times]
            print(
                f"    {name} {phase} decisions ({len(times)}): "
                f"wall median {1000 * statistics.median(walls):.1f} ms, "
                f"p99 {1000 * percentile(sorted(walls), 0.99):.1f} ms; "
                f"CPU median {1000 * statistics.median(cpus):.1f} ms, "
                f"p99 {1000 * percentile(sorted(cpus), 0.99):.1f} ms"
            )


def _sum_figures(parts: list[SideFigures]) -> SideFigures:
    total = SideFigures()
    times: defaultdict[str, list[tuple[float, float]]] = defaultdict(list)
    for part in parts:
        total.points += part.points
        total.bags += part.bags
        total.nils += part.nils
        total.nils_made += part.nils_made
        total.blind_nils += part.blind_nils
        total.blind_nils_made += part.blind_nils_made
        total.sets += part.sets
        total.contracts += part.contracts
        total.sides += part.sides
        for phase, spent in part.times.items():
            times[phase].extend(spent)
    total.times = dict(times)
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("a", help="bot A: a level or module:function")
    parser.add_argument("b", help="bot B: a level or module:function")
    parser.add_argument(
        "--games", type=int, default=40, help="games per preset (rounded up to whole rotations)"
    )
    parser.add_argument("--presets", default="standard,competitive")
    parser.add_argument("--samples", type=int, help="deals per card decision (the level's)")
    parser.add_argument("--budget-ms", type=float, help="expert time per decision")
    parser.add_argument(
        "--rules", type=json.loads, default={}, help="rule overrides on every preset, JSON"
    )
    parser.add_argument("--target", type=int, help="target score (the preset's)")
    parser.add_argument("--seed", type=int, default=0, help="first deal seed")
    parser.add_argument("--jobs", type=int, default=1, help="processes")
    args = parser.parse_args()
    if args.budget_ms is not None:
        os.environ["SPADES_BOT_BUDGET_MS"] = str(args.budget_ms)
    bots = (args.a, args.b)
    for bot in bots:
        resolve(bot, args.samples)
    print(f"{platform.processor() or platform.machine()}, Python {platform.python_version()}")
    print(f"{bots[A]} against {bots[B]}; budget {os.environ.get('SPADES_BOT_BUDGET_MS', '-')} ms")
    changes: dict[str, Any] = args.rules
    if changes:
        print(f"rule overrides: {json.dumps(changes)}")
    for preset in args.presets.split(","):
        rotations = len(Rules.preset(preset, **changes).sides)
        games = -(-args.games // rotations) * rotations  # whole rotations of each seed
        jobs = [
            (
                preset,
                args.seed + k // rotations,
                k % rotations,
                bots,
                args.samples,
                args.target,
                changes,
            )
            for k in range(games)
        ]
        start = time.time()
        if args.jobs > 1:
            with ProcessPoolExecutor(args.jobs) as pool:
                results = list(pool.map(_play_job, jobs))
        else:
            results = [_play_job(job) for job in jobs]
        report(preset, bots, results, time.time() - start)


def _play_job(
    job: tuple[str, int, int, tuple[str, str], int | None, int | None, dict[str, Any]],
) -> Result:
    return play(*job)


if __name__ == "__main__":
    main()
