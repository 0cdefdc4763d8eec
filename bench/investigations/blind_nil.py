"""Does the expert's blind nil pay? Prints each figure; checks nothing.

Games of the expert (one side) against another bot (every other side) are played from
deal seeds, each seed once with the expert on each side, as in ``bench/tournament.py``.
At the first blind nil the expert declares in a game, the game is forked: played on to
its end once as declared and once declining it, on the same deals (the game's seed
shuffles every later hand) and with the same random stream for the bots. The two
branches differ only in that one decision, so comparing them pair by pair measures what
the decision is worth far more tightly than two whole tournaments could.

How the game goes on after the fork is itself a gamble (the bots draw on a random
stream, and the expert's CPU budget varies its thinking), so with ``--replicates K``
each branch is played K times, the k-th play of both branches from the same stream,
and a game's figures are the means of its K plays.

For each fork it keeps, per play: whether the expert's side won the game, whether the
blind nil was made, and the expert side's lead over the others (points) at the end of
that hand. It prints the wins each way; per game, the difference in the share of plays
won, declaring minus declining, as a mean with its 95% interval, and how many games
came out ahead each way (with a two-sided sign test); the blind nils made; and the mean
change in the lead that hand with its 95% interval. Games in which the expert was asked
and declined every time, or was never asked, are counted and not forked.

``--out FILE`` appends one JSON line per game as it finishes, and ``--summarize FILE``
prints the figures of such a file (so a long run can be stopped and still read).

Run: ``.venv/bin/python bench/investigations/blind_nil.py [--against advanced]
[--games 100] [--preset competitive] [--seed 20000] [--jobs 2] [--out FILE]
[--replicates K] [--samples N] [--budget-ms N]``; ``--samples`` and ``--budget-ms`` as in
the tournament.
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
from dataclasses import asdict, dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.harness.stats import wilson
from bench.tournament import MAX_HANDS, Decide, resolve
from server.engine import Game, Rules
from server.engine.bots.budget import Deadline, budget_seconds
from server.engine.bots.expert_bids import BLIND_NIL_SURVIVAL, blind_nil_odds
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
    # The expert's own odds at the fork (``blind_nil_odds``, weighed again beside its
    # decision): the gain it saw, the share of play-outs the blind nil survived.
    gain: float | None = None
    survived: float | None = None
    # One per play of the branch (``--replicates``); empty when there was no fork.
    declared: list[Branch] = field(default_factory=list)
    declined: list[Branch] = field(default_factory=list)


def play_game(
    preset: str, seed: int, side: int, against: str, samples: int | None, replicates: int
) -> Outcome:
    """Play seed ``seed`` with the expert on ``side`` up to its first declared blind
    nil, and on from there both ways, ``replicates`` times each."""
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
                budget = Deadline(budget_seconds(), samples)
                odds = blind_nil_odds(rules, view, random.Random(seed), budget)
                outcome.gain, outcome.survived = odds.gain, odds.survived
                state = game.to_state()
                for _ in range(replicates):
                    stream = rng.getrandbits(64)
                    for declare, plays in ((True, outcome.declared), (False, outcome.declined)):
                        fork = Game.from_state(state)
                        plays.append(_branch(fork, seat, declare, bot_of_seat, stream, side))
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
    forks = [o for o in outcomes if o.declared and o.declined]
    asked = sum(1 for o in outcomes if o.asks)
    plays = sum(len(o.declared) for o in forks)
    print(
        f"{len(outcomes)} games; the expert was asked in {asked} "
        f"({sum(o.asks for o in outcomes)} asks) and declared in {len(forks)}"
        + (f" ({plays} plays of each branch)" if plays != len(forks) else "")
    )
    if not forks:
        return
    for label, key in (("declaring", "declared"), ("declining", "declined")):
        wins = sum(branch.won for o in forks for branch in getattr(o, key))
        total = sum(len(getattr(o, key)) for o in forks)
        low, high = wilson(wins, total)
        print(f"  won {label}: {wins}/{total} = {wins / total:.1%} (95% CI {low:.1%}-{high:.1%})")
    won = [_share(o.declared, "won") - _share(o.declined, "won") for o in forks]
    ahead, behind = sum(d > 0 for d in won), sum(d < 0 for d in won)
    print(
        f"  games won more often declaring: {ahead}, declining: {behind} (sign test p = "
        f"{sign_test(ahead, behind):.3f})\n  share of plays won, declaring minus declining: "
        f"{_interval(won, 100, ' percentage points')}"
    )
    made = sum(branch.made for o in forks for branch in o.declared)
    low, high = wilson(made, plays)
    print(f"  blind nils made: {made}/{plays} = {made / plays:.1%} (95% CI {low:.1%}-{high:.1%})")
    leads = [_share(o.declared, "lead") - _share(o.declined, "lead") for o in forks]
    print(
        "  the side's lead after that hand, declaring minus declining: "
        f"{_interval(leads, 1, ' points')}"
    )
    weighed = sorted((o for o in forks if o.gain is not None), key=lambda o: o.gain or 0.0)
    if len(weighed) < 2:
        return
    survived = statistics.fmean(o.survived or 0.0 for o in weighed)
    print(
        f"  the expert's odds at the forks: the blind nil survived {survived:.0%} of its "
        f"play-outs (counted as {BLIND_NIL_SURVIVAL:.0%} of that)"
    )
    half = len(weighed) // 2
    for label, part in (("lower", weighed[:half]), ("upper", weighed[half:])):
        made_here = statistics.fmean(_share(o.declared, "made") for o in part)
        print(
            f"    {label} half by the gain it saw ({len(part)} games, gain "
            f"{part[0].gain:+.0f} to {part[-1].gain:+.0f}): made {made_here:.0%}; lead change "
            + _interval(
                [_share(o.declared, "lead") - _share(o.declined, "lead") for o in part],
                1,
                " points",
            )
            + "; share won "
            + _interval(
                [_share(o.declared, "won") - _share(o.declined, "won") for o in part],
                100,
                " percentage points",
            )
        )


def _share(plays: list[Branch], key: str) -> float:
    """The mean of one figure over a branch's plays."""
    return statistics.fmean(float(getattr(branch, key)) for branch in plays)


def _interval(values: list[float], scale: float, unit: str) -> str:
    """``values``' mean with its 95% interval (normal), each times ``scale``."""
    mean = statistics.fmean(values)
    spread = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    low, high = scale * (mean - spread), scale * (mean + spread)
    return f"mean {scale * mean:+.1f}{unit} (95% CI {low:+.1f} to {high:+.1f})"


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
        plays = data[key]
        # a line of the first runs, before replicates: one play or none
        plays = [plays] if isinstance(plays, dict) else plays or []
        data[key] = [Branch(**play) for play in plays]
    return Outcome(**data)


def _play_job(job: tuple[str, int, int, str, int | None, int]) -> Outcome:
    return play_game(*job)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--against", default="advanced", help="a level or module:function")
    parser.add_argument("--games", type=int, default=100, help="games (rounded up to whole seeds)")
    parser.add_argument("--preset", default="competitive")
    parser.add_argument("--seed", type=int, default=20000, help="first deal seed")
    parser.add_argument("--jobs", type=int, default=1, help="processes")
    parser.add_argument("--replicates", type=int, default=1, help="plays of each branch")
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
        (
            args.preset,
            args.seed + k // rotations,
            k % rotations,
            args.against,
            args.samples,
            max(args.replicates, 1),
        )
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
