"""A club game's figures per member, from the game's stored hands (docs/clubs.md): each
figure of `server.clubs.figures.FIGURES`, counted as it declares.

The store adds one game's `Tally` to each member's totals in the transaction that stores
the game's end; `tally_game` is also what a recount over every stored hand sums, so the
totals can always be checked against the hands themselves.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from server.clubs.figures import AVERAGES, FIGURES, SeatGame, SeatHand
from server.engine import Bid, Rules, SideResult
from server.protocol import ClubStats

OVERALL = "all"
# The figures a hand adds to, and those a game adds to, each with how.
BY_HAND: tuple[tuple[str, Callable[[SeatHand], int]], ...] = tuple(
    (figure.name, figure.hand) for figure in FIGURES if figure.hand is not None
)
BY_GAME: tuple[tuple[str, Callable[[SeatGame], int]], ...] = tuple(
    (figure.name, figure.game) for figure in FIGURES if figure.game is not None
)


class Tally(dict[str, int]):
    """One member's counts over some hands and games: every figure of `FIGURES`, by
    name (`ClubStats` without the averages)."""

    def __init__(self, **counts: int) -> None:
        unknown = set(counts) - {figure.name for figure in FIGURES}
        if unknown:
            raise TypeError(f"no club figures named {sorted(unknown)}")
        super().__init__({figure.name: counts.get(figure.name, 0) for figure in FIGURES})

    def add(self, other: Mapping[str, int]) -> None:
        for name, count in other.items():
            self[name] += count

    def counts(self) -> dict[str, int]:
        return dict(self)

    def shown(self) -> ClubStats:
        per_hand = self["hands"] or 1
        shown: ClubStats = dict(self)
        for average in AVERAGES:
            shown[average.name] = round(self[average.of] / per_hand, average.digits)
        return shown


@dataclass(frozen=True, slots=True)
class HandFacts:
    """What the figures read of a stored hand."""

    bids: Sequence[Bid | None]
    tricks: Sequence[int]
    sides: Sequence[SideResult]


def side_bags(
    rules: Rules, side: SideResult, bids: Sequence[Bid | None], tricks: Sequence[int]
) -> int:
    """The bags a side took in a hand, as scoring counts them: overtricks of a made
    contract, and a nil bidder's tricks unless the rules count them into the contract."""
    contract = side["contract"]
    nil_into_contract = rules.nil_tricks == "contract" and contract > 0
    bags = 0
    for seat in side["seats"]:
        if _nil(bids[seat]) and not nil_into_contract:
            bags += tricks[seat]
    if contract > 0 and side["taken"] >= contract:
        bags += side["taken"] - contract
    return bags


def _nil(bid: Bid | None) -> bool:
    return bid == 0 or bid == "blind_nil"


def tally_hand(rules: Rules, hand: HandFacts, seat: int) -> Tally:
    """The figures of one hand for whoever played `seat`."""
    side = next(side for side in hand.sides if seat in side["seats"])
    nil = next((nil for nil in side["nil"] if nil["seat"] == seat), None)
    read = SeatHand(rules, seat, side, side_bags(rules, side, hand.bids, hand.tricks), nil)
    tally = Tally()
    for name, count in BY_HAND:
        tally[name] = count(read)
    return tally


def tally_game(
    rules: Rules, hands: Sequence[HandFacts], members: Mapping[int, str], winner: int | None
) -> dict[str, Tally]:
    """Each member's figures for one finished game: `members` maps seats to member ids,
    `winner` is the winning side's index."""
    sides = rules.sides
    tallies: dict[str, Tally] = {}
    for seat, member in members.items():
        tally = tallies.setdefault(member, Tally())
        game = SeatGame(won=winner is not None and seat in sides[winner])
        for name, count in BY_GAME:
            tally[name] += count(game)
        for hand in hands:
            tally.add(tally_hand(rules, hand, seat))
    return tallies
