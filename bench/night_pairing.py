"""Club night schedules: how evenly they spread partners and opponents, and how long
they take to make. Prints figures (a Markdown table), checks nothing.

Run: ``.venv/bin/python bench/night_pairing.py [--rounds 8] [--fill sit_out|bots]
[--seeds 3]``; ``--rounds 0`` plays one full cycle, ``members - 1`` rounds.

For every count of members from 4 to 32, a rotating-partners schedule of ``--rounds``
rounds is made for each seed (0 .. seeds - 1), and the worst seed is shown: the most
times any two members partnered and opposed, beside the ideal (the least the numbers
allow for the member who played most: ceil(rounds played / (members - 1)) and ceil(2 x
rounds played / (members - 1))), the fewest and most rounds any member sat out, and the
slowest making of a schedule in milliseconds.
"""

from __future__ import annotations

import argparse
import time

from server.clubs.pairing import Fill, evenness, schedule


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--fill", choices=("sit_out", "bots"), default="sit_out")
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    fill: Fill = args.fill
    print(f"rotating partners, fill {fill}, worst of {args.seeds} seeds")
    print()
    print("| members | rounds | partners max (ideal) | opponents max (ideal) | sit out | ms |")
    print("|---|---|---|---|---|---|")
    for count in range(4, 33):
        members = [f"m{i:02d}" for i in range(count)]
        rounds = args.rounds or count - 1
        worst = None
        slowest = 0.0
        for seed in range(args.seeds):
            started = time.perf_counter()
            made = schedule(members, rounds, "rotating", fill, seed)
            slowest = max(slowest, time.perf_counter() - started)
            measure = evenness(members, made)
            key = (measure.partner_max - measure.partner_ideal, measure.opponent_max)
            if worst is None or key > (worst.partner_max - worst.partner_ideal, worst.opponent_max):
                worst = measure
        assert worst is not None
        print(
            f"| {count} | {rounds} | {worst.partner_max} ({worst.partner_ideal}) | "
            f"{worst.opponent_max} ({worst.opponent_ideal}) | "
            f"{worst.sit_out_min}-{worst.sit_out_max} | {slowest * 1000:.0f} |"
        )


if __name__ == "__main__":
    main()
