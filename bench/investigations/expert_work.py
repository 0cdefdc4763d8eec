"""How much thinking does the expert get per decision, on a quiet core and on a core it
shares with a busy process? Prints each figure; checks nothing.

The same decisions (every choice of seat 0 over the first hands of seeded games) are
made by the expert level with its default budget, first alone, then with a process
spinning on the same core (both pinned with ``os.sched_setaffinity``), and for each the
median and p90 of the decision's own CPU time (the work it did) and wall time are
printed.

Run: ``.venv/bin/python bench/investigations/expert_work.py [--games 3] [--hands 1]``
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from server.engine import Game, Rules
from server.engine.bots import choose_action
from server.engine.shapes import View


def spin() -> None:
    """Keep one core busy until killed."""
    while True:
        pass


def decisions(games: int, hands: int) -> list[View]:
    """Seat 0's views with a choice, over the first ``hands`` hands of ``games`` games
    played by the basic level (fast, reproducible)."""
    rules = Rules.preset("standard")
    views: list[View] = []
    for seed in range(games):
        game = Game(rules, seed=seed)
        rng = random.Random(seed)
        while len(game.hand_results) < hands and game.winner is None:
            seat = game.turn[0]
            view = game.view(seat)
            if seat == 0 and len(view["legal"]) > 1:
                views.append(view)
            game.act(seat, choose_action(rules, view, "basic", rng))
    return views


def measure(views: list[View]) -> tuple[list[float], list[float]]:
    """CPU and wall milliseconds of the expert's decision on each view."""
    rules = Rules.preset("standard")
    cpu: list[float] = []
    wall: list[float] = []
    for index, view in enumerate(views):
        start_cpu, start_wall = time.thread_time(), time.perf_counter()
        choose_action(rules, view, "expert", random.Random(index))
        cpu.append((time.thread_time() - start_cpu) * 1000)
        wall.append((time.perf_counter() - start_wall) * 1000)
    return cpu, wall


def line(name: str, values: list[float]) -> str:
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    return f"{name} median {statistics.median(values):6.1f} ms, p90 {p90:6.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--hands", type=int, default=1)
    args = parser.parse_args()
    core = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {core})
    views = decisions(args.games, args.hands)
    print(f"{len(views)} decisions of seat 0, expert level, pinned to core {core}")
    for label in ("quiet core", "shared core"):
        hog = None
        if label == "shared core":
            hog = multiprocessing.Process(target=spin, daemon=True)
            hog.start()
            assert hog.pid is not None
            os.sched_setaffinity(hog.pid, {core})
        try:
            cpu, wall = measure(views)
        finally:
            if hog is not None:
                hog.kill()
        print(f"{label:12}: {line('CPU', cpu)}; {line('wall', wall)}")


if __name__ == "__main__":
    main()
