"""A finished hand's record and what it means for the game: ``hand_result`` (the hand
scored, as the ``HandResult`` the game keeps and the history shows) and ``game_end``
(whether the game ends after it, and who won).

Decisions where docs/rules.md is silent:

- The game ends after a hand when a side reaches ``target_score``, after hand ``hand_limit`` when
  one is set (the highest score winning, a tie without a winner), or when any side falls to
  ``lose_score``; the highest score wins, and a tie for the highest plays another hand.
  ``all_tricks: "win"`` gives the game to the side that took every trick, whatever
  the scores.

>>> rules = Rules.preset("standard", hand_limit=1)
>>> start = [{"score": 0, "bags": 0}, {"score": 0, "bags": 0}]
>>> result = hand_result(rules, 1, 0, [3, 4, 3, 3], [3, 4, 3, 3], start, [], None)
>>> [side["score"] for side in result["sides"]], game_end(rules, 1, result["sides"])
([60, 70], (True, 1))
"""

from __future__ import annotations

from collections.abc import Sequence

from server.engine.rules import Rules
from server.engine.scoring import final_bids, game_winner, leader, score_sides
from server.engine.shapes import Bid, HandClaim, HandResult, SideResult, SideScore


def hand_result(
    rules: Rules,
    hand_number: int,
    dealer: int,
    bids: list[Bid | None],
    tricks: list[int],
    scores: list[SideScore],
    deal: list[list[str]],
    claim: HandClaim | None,
) -> HandResult:
    """The finished hand scored with ``rules``, the rules of that hand (its bidding
    format), from every seat's bid and tricks and the sides' ``scores`` before it; with
    the ``claim`` that ended it, if one did."""
    # Every seat has bid by the last trick.
    sides = score_sides(rules, final_bids(bids), tricks, scores)
    result: HandResult = {
        "hand_number": hand_number,
        "dealer": dealer,
        "bids": list(bids),
        "tricks": list(tricks),
        "sides": sides,
        "deal": deal,
    }
    if claim is not None:
        result["claim"] = claim
    return result


def game_end(
    rules: Rules, hand_number: int, sides: Sequence[SideResult]
) -> tuple[bool, int | None]:
    """Whether the game is over after hand ``hand_number`` left the sides so, and the
    side that won it (None: not over, or a tie at the ``hand_limit``)."""
    winner = game_winner(rules, sides)
    last = rules.hand_limit is not None and hand_number >= rules.hand_limit
    if winner is None and last:
        winner = leader(sides)
    return winner is not None or last, winner
