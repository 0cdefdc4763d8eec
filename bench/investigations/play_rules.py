"""Do the basic level's play and the look-ahead's rollout policy choose the same card?

Run: ``.venv/bin/python bench/investigations/play_rules.py [--games 40] [--preset standard]``

Both follow the basic rules of thumb, written twice: ``basic.choose_play`` on a seat's
view (its unseen cards, shown voids, ties broken by the rng) and ``Rollout.choose`` on
ints, for imagined deals. This plays whole games with basic bots and, at every card the
basic level chooses among several, asks the rollout policy too, from the same view (the
cards still in hands: the seat's own and the ones it has not seen). Prints how often they
agree, where they part (a nil bidder's choices, its partner's, the others'),
and the CPU time of one decision each. One implementation for both could not keep both
sets of decisions; these figures say how far apart they are. ``rollout_basic`` is the
basic level playing its cards by the rollout policy, for duplicate games against the
basic level itself (``bench/tournament.py``).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from server.engine import Action, Game, Rules, View
from server.engine.bots import choose_action
from server.engine.bots.basic import choose_play
from server.engine.bots.knowledge import seat_state
from server.engine.bots.rollout import Rollout, suit_tops
from server.engine.cards import card_code, card_index

KINDS = ("nil, leading", "nil, following", "beside a nil", "other, leading", "other, following")


def rollout_card(rules: Rules, view: View, rng: random.Random) -> tuple[str, str, float]:
    """The rollout policy's card for the seat whose view this is, the kind of choice
    (the seat's own nil, its partner's, or neither; leading or following), and the CPU
    seconds of the choice itself (what a rollout pays for each card it plays)."""
    state = seat_state(rules, view, rng)
    policy = Rollout(state, view)
    hand = [card_index(code) for code in view.get("hand") or []]
    unseen = list(state.unseen.elements())
    tops = suit_tops(state.order, [hand, unseen])
    trick, tricks_won = list(state.trick), list(state.tricks_won)
    started = time.process_time()
    card = policy.choose(state.seat, hand, trick, tricks_won, policy.broken, tops)
    choosing = time.process_time() - started
    turn = "following" if state.trick else "leading"
    if state.is_nil(state.seat):
        kind = f"nil, {turn}"
    elif any(state.is_nil(partner) for partner in state.teammates):
        kind = "beside a nil"
    else:
        kind = f"other, {turn}"
    return card_code(card), kind, choosing


def rollout_basic(
    rules: Rules, view: View, rng: random.Random | None = None, samples: int | None = None
) -> Action:
    """The basic level, but its cards chosen by the rollout policy: a bot for
    ``bench/tournament.py bench.investigations.play_rules:rollout_basic basic``."""
    legal = view.get("legal") or []
    if view.get("phase") == "play" and len(legal) > 1:
        card, _kind, _seconds = rollout_card(rules, view, rng or random.Random(0))
        return {"type": "play", "card": card}
    return choose_action(rules, view, "basic", rng)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--preset", default="standard")
    args = parser.parse_args()
    rules = Rules.preset(args.preset)
    rng = random.Random(48)
    agree: Counter[str] = Counter()
    seen: Counter[str] = Counter()
    spent = {"basic": 0.0, "rollout": 0.0, "rollout's choice alone": 0.0}
    for seed in range(args.games):
        game = Game(rules, seed=seed)
        while game.phase != "over":
            seat = game.turn[0]
            view = game.view(seat)
            legal = view.get("legal") or []
            if game.phase == "play" and len(legal) > 1:
                started = time.process_time()
                basic = choose_play(rules, view, list(legal), random.Random(seed))["card"]
                spent["basic"] += time.process_time() - started
                started = time.process_time()
                other, kind, choosing = rollout_card(rules, view, random.Random(seed))
                spent["rollout"] += time.process_time() - started
                spent["rollout's choice alone"] += choosing
                seen[kind] += 1
                agree[kind] += basic == other
            game.act(seat, choose_action(rules, view, "basic", rng))
    total, same = sum(seen.values()), sum(agree.values())
    print(f"{args.preset}: {args.games} games of basic bots, {total} card choices among several")
    print(f"  the rollout policy chose the basic level's card {same}/{total} ({same / total:.1%})")
    for kind in KINDS:
        if seen[kind]:
            share = agree[kind] / seen[kind]
            print(f"  {kind:<17} {agree[kind]}/{seen[kind]} ({share:.1%}) the same")
    for name, seconds in spent.items():
        print(f"  {name:<23} {seconds / total * 1e6:,.1f} us of CPU a decision")


if __name__ == "__main__":
    main()
