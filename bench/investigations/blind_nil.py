"""Does the expert's blind nil pay? Prints each figure; checks nothing.

Games of the expert (one side) against another bot (every other side) are played from
deal seeds, each seed once with the expert on each side, as in ``bench/tournament.py``.
At the first blind nil the expert declares in a game, the game is forked: played on to
its end once as declared and once declining it, on the same deals (the game's seed
shuffles every later hand) and with the same random stream for the bots. The two
branches differ only in that one decision, so comparing them pair by pair measures what
the decision is worth far more tightly than two whole tournaments could.

For each fork it keeps: whether the expert's side won the game in each branch, whether
the blind nil was made, and the expert side's lead over the others (points) at the end
of that hand in each branch. It prints the wins each way, the pairs whose winner
differs (with a two-sided sign test), the blind nils made, and the mean change in the
lead that hand with its 95% interval. Games in which the expert was asked and declined
every time, or was never asked, are counted and not forked.

``--out FILE`` appends one JSON line per game as it finishes, and ``--summarize FILE``
prints the figures of such a file (so a long run can be stopped and still read).

Run: ``.venv/bin/python bench/investigations/blind_nil.py [--against advanced]
[--games 100] [--preset competitive] [--seed 20000] [--jobs 2] [--out FILE]
[--samples N] [--budget-ms N]``; ``--samples`` and ``--budget-ms`` as in the tournament.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.harness.stats import wilson
from bench.tournament import MAX_HANDS, Decide, resolve
from server.engine import Game, Rules
from server.engine.shapes import BlindNilAction


@dataclass
class Branch:
    """One way the game went on from the fork."""

    won: bool
    made: bool  # the blind nil (False in the declining branch)
    lead: int  # the expert's side's lead over the others' mean after the forked hand


@dataclass
class Outcome:
    """One game: how often the expert was asked, and the fork, if it declared."""

    preset: str
    seed: int
    side: int
    asks: int
    declared: Branch | None = None
    declined: Branch | None = None


def play_game(preset: str, seed: int, side: int, against: str, samples: int | None) -> Outcome:
    """Play seed ``seed`` with the expert on ``side`` up to its first declared blind
    nil, and on from there both ways."""
    rules = Rules.preset(preset)
    expert, other = resolve("expert", samples), resolve(against, samples)
    bot_of_seat = {
        seat: expert if index == side else other
        for index, seats in enumerate(rules.sides)
        for seat in seats
    }
    game = Game(rules, seed=seed)
    rng = random.Random(seed)
    outcome = Outcome(preset, seed, side, asks=0)
    while game.winner is None and len(game.hand_results) < MAX_HANDS:
        seat = game.turn[0]
        view = game.view(seat)
        action = bot_of_seat[seat](rules, view, rng)
        if view["phase"] == "blind" and bot_of_seat[seat] is expert:
            outcome.asks += 1
            if action.get("declare"):
                state = game.to_state()
                branch_seed = rng.getrandbits(64)
                outcome.declared = _branch(game, seat, True, bot_of_seat, branch_seed, side)
                restored = Game.from_state(state)
                outcome.declined = _branch(restored, seat, False, bot_of_seat, branch_seed, side)
                return outcome
        game.act(seat, action)
    return outcome


def _branch(
    game: Game,
    seat: int,
    declare: bool,
    bot_of_seat: dict[int, Decide],
    seed: int,
    side: int,
) -> Branch:
    """Answer the blind nil question ``declare`` and play the game to its end."""
    rules = game.rules
    hand = game.hand_number
    answer: BlindNilAction = {"type": "blind_nil", "declare": declare}
    game.act(seat, answer)
    rng = random.Random(seed)
    while game.winner is None and len(game.hand_results) < MAX_HANDS:
        turn = game.turn[0]
        game.act(turn, bot_of_seat[turn](rules, game.view(turn), rng))
    result = next(r for r in game.hand_results if r["hand_number"] == hand)
    scores = [s["score"] for s in result["sides"]]
    others = [score for index, score in enumerate(scores) if index != side]
    made = any(
        nil["seat"] == seat and nil["blind"] and nil["made"]
        for s in result["sides"]
        for nil in s["nil"]
    )
    lead = scores[side] - round(sum(others) / len(others))
    return Branch(won=game.winner == side, made=made, lead=lead)


def summarize(outcomes: list[Outcome]) -> None:
    forks = [o for o in outcomes if o.declared is not None and o.declined is not None]
    asked = sum(1 for o in outcomes if o.asks)
    print(
        f"{len(outcomes)} games; the expert was asked in {asked} "
        f"({sum(o.asks for o in outcomes)} asks) and declared in {len(forks)}"
    )
    if not forks:
        return
    pairs = [(o.declared, o.declined) for o in forks if o.declared and o.declined]
    n = len(pairs)
    won_declaring = sum(d.won for d, _ in pairs)
    won_declining = sum(k.won for _, k in pairs)
    only_declaring = sum(d.won and not k.won for d, k in pairs)
    only_declining = sum(k.won and not d.won for d, k in pairs)
    made = sum(d.made for d, _ in pairs)
    for label, wins in (("declaring", won_declaring), ("declining", won_declining)):
        low, high = wilson(wins, n)
        print(f"  won {label}: {wins}/{n} = {wins / n:.1%} (95% CI {low:.1%}-{high:.1%})")
    print(
        f"  pairs with different winners: {only_declaring} won only by declaring, "
        f"{only_declining} only by declining (sign test p = "
        f"{sign_test(only_declaring, only_declining):.3f})"
    )
    low, high = wilson(made, n)
    print(f"  blind nils made: {made}/{n} = {made / n:.1%} (95% CI {low:.1%}-{high:.1%})")
    gains = [d.lead - k.lead for d, k in pairs]
    mean = statistics.fmean(gains)
    spread = 1.96 * statistics.stdev(gains) / math.sqrt(n) if n > 1 else float("nan")
    print(
        f"  the side's lead after that hand, declaring minus declining: mean {mean:+.1f} "
        f"points (95% CI {mean - spread:+.1f} to {mean + spread:+.1f})"
    )


def sign_test(wins: int, losses: int) -> float:
    """Two-sided exact sign test: the chance of a split at least this uneven if either
    way were equally likely.

    >>> round(sign_test(9, 1), 4), sign_test(3, 3)
    (0.0215, 1.0)
    """
    n = wins + losses
    if n == 0:
        return 1.0
    extreme = min(wins, losses)
    tail: float = sum(math.comb(n, k) for k in range(extreme + 1)) / float(2**n)
    return min(1.0, 2 * tail)


def _from_json(line: str) -> Outcome:
    data = json.loads(line)
    for key in ("declared", "declined"):
        if data[key] is not None:
            data[key] = Branch(**data[key])
    return Outcome(**data)


def _play_job(job: tuple[str, int, int, str, int | None]) -> Outcome:
    return play_game(*job)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--against", default="advanced", help="a level or module:function")
    parser.add_argument("--games", type=int, default=100, help="games (rounded up to whole seeds)")
    parser.add_argument("--preset", default="competitive")
    parser.add_argument("--seed", type=int, default=20000, help="first deal seed")
    parser.add_argument("--jobs", type=int, default=1, help="processes")
    parser.add_argument("--samples", type=int, help="deals per card decision (the level's)")
    parser.add_argument("--budget-ms", type=float, help="expert time per decision")
    parser.add_argument("--out", type=Path, help="append a JSON line per game here")
    parser.add_argument("--summarize", type=Path, help="print the figures of such a file")
    args = parser.parse_args()
    if args.summarize:
        lines = args.summarize.read_text().splitlines()
        summarize([_from_json(line) for line in lines if line.strip()])
        return
    if args.budget_ms is not None:
        os.environ["SPADES_BOT_BUDGET_MS"] = str(args.budget_ms)
    resolve(args.against, None)
    rules = Rules.preset(args.preset)
    if not rules.blind_nil:
        raise SystemExit(f"the {args.preset} preset has no blind nil")
    rotations = len(rules.sides)
    games = -(-args.games // rotations) * rotations
    jobs = [
        (args.preset, args.seed + k // rotations, k % rotations, args.against, args.samples)
        for k in range(games)
    ]
    print(f"the expert against {args.against}, {args.preset}, {games} games from seed {args.seed}")
    outcomes: list[Outcome] = []
    with ProcessPoolExecutor(max(args.jobs, 1)) as pool:
        for outcome in pool.map(_play_job, jobs):
            outcomes.append(outcome)
            if args.out:
                with args.out.open("a") as out:
                    out.write(json.dumps(asdict(outcome)) + "\n")
    summarize(outcomes)


if __name__ == "__main__":
    main()
