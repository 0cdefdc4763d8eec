"""Scoring a hand (docs/rules.md §8): one pure function, used by the game and by tools.

>>> rules = Rules.preset("standard")
>>> score_hand(rules, [3, 2, 4, 2], [5, 1, 3, 4], [{"score": 0, "bags": 0}] * 2)
[{'score': 71, 'bags': 1}, {'score': 41, 'bags': 1}]

Decisions where docs/rules.md is silent:

- Under ``bidding: "team"`` the second partner's number is at least the first's, so a
  side's contract is the larger of its non-nil bids; ``score_hand`` needs no bid order.
  Every other format sums them (Suicide's side has one number, Whiz's and Mirror's sum
  as individual bids do). With ``bidding_formats``, score a hand with the rules of that
  hand (``rules.for_hand(k)``): only its format says whether to sum.
- A bid of 0 is always nil (``nil: false`` forbids it at the table, so it never comes up).
- Bags from overtricks and from failed nils count the same; the side loses
  ``bag_penalty`` once for every ``bag_limit`` bags reached, after this hand's points.
- The ``all_tricks`` bonus goes to the side whose members took every trick, whether or
  not its contract or nils were made.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Literal

from server.engine.rules import Rules
from server.engine.shapes import Bid, NilResult, SideResult, SideScore

BLIND_NIL: Final[Literal["blind_nil"]] = "blind_nil"


def score_hand(
    rules: Rules,
    bids: Sequence[Bid],
    tricks: Sequence[int],
    scores: Sequence[SideScore],
) -> list[SideScore]:
    """Each side's ``{"score", "bags"}`` after a hand (docs/rules.md §8).

    ``bids`` are final bids per seat (after any nil raise; 0 nil, ``"blind_nil"``),
    ``tricks`` the tricks each seat won, ``scores`` each side's standing before the hand.
    The game-ending effect of ``all_tricks: "win"`` is the game's business, not this.

    >>> rules = Rules.preset("standard")
    >>> score_hand(rules, [7, 1, 0, 1], [6, 4, 0, 3], [{"score": 0, "bags": 0}] * 2)
    [{'score': 30, 'bags': 0}, {'score': 25, 'bags': 5}]
    """
    return [
        {"score": side["score"], "bags": side["bags"]}
        for side in score_sides(rules, bids, tricks, scores)
    ]


def score_sides(
    rules: Rules,
    bids: Sequence[Bid],
    tricks: Sequence[int],
    scores: Sequence[SideScore],
) -> list[SideResult]:
    """The full breakdown behind :func:`score_hand`, one dict per side.

    Each dict: ``seats``, ``contract``, ``taken``, ``points`` (this hand's change),
    ``score``, ``bags`` (after), ``bag_penalty`` (points lost to bags this hand),
    ``nil`` (``[{"seat", "blind", "made", "points"}]``) and ``all_tricks``.
    """
    sides = rules.sides
    if len(bids) != rules.players or len(tricks) != rules.players:
        raise ValueError(f"need one bid and one trick count per seat ({rules.players})")
    if len(scores) != len(sides):
        raise ValueError(f"need one score per side ({len(sides)})")
    total_tricks = sum(tricks)
    return [
        _score_side(rules, seats, bids, tricks, scores[index], total_tricks)
        for index, seats in enumerate(sides)
    ]


def game_winner(rules: Rules, sides: Sequence[SideResult]) -> int | None:
    """The side that has won the game once a hand is scored (``sides`` as
    :func:`score_sides` gives them), or None while play goes on (docs/rules.md §9).

    ``all_tricks: "win"`` gives the game to a side that took every trick. Otherwise the
    game ends when a side reaches ``target_score``, one falls to ``lose_score``, or one
    leads every other by ``mercy_margin`` or more; the highest score wins, and a tie for
    the highest plays another hand.

    >>> rules = Rules.preset("standard")
    >>> def side(score):
    ...     return {"score": score, "all_tricks": False}
    >>> game_winner(rules, [side(510), side(300)]), game_winner(rules, [side(490), side(300)])
    (0, None)
    >>> game_winner(rules, [side(510), side(510)]) is None  # a tie plays another hand
    True
    >>> game_winner(rules.model_copy(update={"mercy_margin": 300}), [side(320), side(10)])
    0
    """
    if rules.all_tricks == "win":
        for index, side in enumerate(sides):
            if side["all_tricks"]:
                return index
    totals = [side["score"] for side in sides]
    top = max(totals)
    margin = rules.mercy_margin
    ended = (
        top >= rules.target_score
        or (rules.lose_score is not None and min(totals) <= rules.lose_score)
        or (margin is not None and top - sorted(totals)[-2] >= margin)
    )
    if not ended or totals.count(top) > 1:
        return None
    return totals.index(top)


def leader(sides: Sequence[SideResult]) -> int | None:
    """The side with the highest score, or None when two share it: the winner of a game
    stopped by its `hand_limit`.

    >>> leader([{"score": 120}, {"score": 80}]), leader([{"score": 80}, {"score": 80}])
    (0, None)
    """
    totals = [side["score"] for side in sides]
    top = max(totals)
    return totals.index(top) if totals.count(top) == 1 else None


def is_nil(bid: Bid | None) -> bool:
    """Whether a bid is nil or blind nil (None, a seat yet to bid: not nil)."""
    return bid == 0 or bid == BLIND_NIL


def nil_pass_sides(sides: list[list[int]], bids: list[Bid | None]) -> list[list[int]]:
    """The sides that pass to a nil after the bidding (docs/rules.md §11.4): two
    partners, one plain nil (not blind) and one number; the nil bidder first.

    >>> nil_pass_sides([[0, 2], [1, 3]], [3, 0, 0, 4])
    [[2, 0], [1, 3]]
    """
    passing = []
    for side in sides:
        side_bids = [bids[seat] for seat in side]
        if len(side) == 2 and side_bids.count(0) == 1 and BLIND_NIL not in side_bids:
            nil_seat = side[side_bids.index(0)]
            passing.append([nil_seat, side[0] + side[1] - nil_seat])
    return passing


def final_bids(bids: Sequence[Bid | None]) -> list[Bid]:
    """The bids of a hand every seat has bid in; ValueError while one has not.

    >>> final_bids([3, 0, "blind_nil", 4])
    [3, 0, 'blind_nil', 4]
    """
    final = [bid for bid in bids if bid is not None]
    if len(final) != len(bids):
        raise ValueError("a seat has not bid yet")
    return final


def side_contract(rules: Rules, side_bids: Sequence[Bid]) -> int:
    """A side's contract from its members' final bids (docs/rules.md §6).

    >>> side_contract(Rules.preset("standard"), [3, 4])
    7
    >>> side_contract(Rules.preset("competitive"), [3, 5])
    5
    >>> side_contract(Rules.preset("standard"), [0, "blind_nil"])
    0
    """
    numbers = [int(bid) for bid in side_bids if not is_nil(bid)]
    if not numbers:
        return 0
    return max(numbers) if rules.bidding == "team" else sum(numbers)


def _score_side(
    rules: Rules,
    seats: list[int],
    bids: Sequence[Bid],
    tricks: Sequence[int],
    before: SideScore,
    total_tricks: int,
) -> SideResult:
    contract = side_contract(rules, [bids[seat] for seat in seats])
    points = 0
    bags = 0
    taken = 0
    side_tricks = 0
    nils: list[NilResult] = []
    nil_into_contract = rules.nil_tricks == "contract" and contract > 0
    for seat in seats:
        bid = bids[seat]
        won = tricks[seat]
        side_tricks += won
        if not is_nil(bid):
            taken += won
            continue
        blind = bid == BLIND_NIL
        made = won == 0
        if blind:
            nil_points = rules.blind_nil_bonus if made else -rules.blind_nil_penalty
        else:
            nil_points = rules.nil_bonus if made else -rules.nil_penalty
        nils.append({"seat": seat, "blind": blind, "made": made, "points": nil_points})
        points += nil_points
        if nil_into_contract:
            taken += won
        else:
            bags += won
    if contract > 0:
        points += _contract_points(rules, contract, taken)
        if taken >= contract:
            bags += taken - contract
    points += bags
    start = before["score"]
    score = start + points
    bag_count = before["bags"]
    penalty = 0
    if rules.bags:
        bag_count += bags
        limit = rules.bag_limit
        if bag_count >= limit:
            laps = bag_count // limit
            bag_count -= laps * limit
            penalty = laps * rules.bag_penalty
    else:
        bag_count = 0
    all_tricks = total_tricks > 0 and side_tricks == total_tricks
    if all_tricks and rules.all_tricks == "bonus":
        score += rules.all_tricks_bonus
    score -= penalty
    return {
        "seats": list(seats),
        "contract": contract,
        "taken": taken,
        "points": score - start,
        "score": score,
        "bags": bag_count,
        "bag_penalty": penalty,
        "nil": nils,
        "all_tricks": all_tricks,
    }


def _contract_points(rules: Rules, contract: int, taken: int) -> int:
    made = taken >= contract
    if rules.ten_for_two_hundred and contract >= 10:
        return 20 * contract if made else -rules.ten_for_two_hundred_set
    return 10 * contract if made else -10 * contract
