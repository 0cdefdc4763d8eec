"""A club game's figures per member, from the game's stored hands (docs/clubs.md).

The store adds one game's `Tally` to each member's totals in the transaction that stores
the game's end; `tally_game` is also what a recount over every stored hand sums, so the
totals can always be checked against the hands themselves.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields

from server.engine import Bid, Rules, SideResult
from server.protocol import ClubStats

OVERALL = "all"


@dataclass(slots=True)
class Tally:
    """One member's counts over some hands and games (`ClubStats` without the averages)."""

    games: int = 0
    wins: int = 0
    hands: int = 0
    contracts: int = 0
    contracts_made: int = 0
    sets: int = 0
    nils: int = 0
    nils_made: int = 0
    blind_nils: int = 0
    blind_nils_made: int = 0
    bags: int = 0
    ten_for_two_hundreds: int = 0
    points: int = 0

    def add(self, other: Tally) -> None:
        for name in FIELDS:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def counts(self) -> dict[str, int]:
        return asdict(self)

    def shown(self) -> ClubStats:
        per_hand = self.hands or 1
        return ClubStats(
            games=self.games,
            wins=self.wins,
            hands=self.hands,
            contracts=self.contracts,
            contracts_made=self.contracts_made,
            sets=self.sets,
            nils=self.nils,
            nils_made=self.nils_made,
            blind_nils=self.blind_nils,
            blind_nils_made=self.blind_nils_made,
            bags=self.bags,
            ten_for_two_hundreds=self.ten_for_two_hundreds,
            points=self.points,
            bags_per_hand=round(self.bags / per_hand, 3),
            points_per_hand=round(self.points / per_hand, 2),
        )


FIELDS: tuple[str, ...] = tuple(f.name for f in fields(Tally))


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
    tally = Tally(hands=1, points=side["points"])
    contract = side["contract"]
    if contract > 0:
        made = side["taken"] >= contract
        tally.contracts = 1
        tally.contracts_made = int(made)
        tally.sets = int(not made)
        tally.ten_for_two_hundreds = int(made and rules.ten_for_two_hundred and contract >= 10)
    tally.bags = side_bags(rules, side, hand.bids, hand.tricks)
    for nil in side["nil"]:
        if nil["seat"] == seat:
            tally.nils = 1
            tally.nils_made = int(nil["made"])
            tally.blind_nils = int(nil["blind"])
            tally.blind_nils_made = int(nil["blind"] and nil["made"])
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
        tally.games += 1
        tally.wins += int(winner is not None and seat in sides[winner])
        for hand in hands:
            tally.add(tally_hand(rules, hand, seat))
    return tallies
