"""The club figures, each declared once (docs/clubs.md): its name, its label and how a
hand or a game adds to it.

`FIGURES` drives everything else that speaks of them: the tally (`server.clubs.stats`),
the answer's shape (`ClubMember` and `ClubStats` in `server.protocol`, whose JSON
Schema titles are the labels), the stored totals' columns (`club_stats` in
`server.store.models`) and the statements that add to them, and the club page's labels
(`CLUB_FIGURES`, generated into web/protocol-types.js). Adding a figure is one `Figure`
here and a migration adding its column (docs/recipes.md); `AVERAGES` are worked out from
the totals when shown, never stored.

Only the engine is imported: the protocol imports this module.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from server.engine import NilResult, Rules, SideResult


@dataclass(frozen=True, slots=True)
class SeatHand:
    """One finished hand as the figures of whoever played `seat` read it."""

    rules: Rules
    seat: int
    # The seat's side's result, and the bags that side took in the hand.
    side: SideResult
    bags: int
    # The seat's own nil or blind nil, if it bid one.
    nil: NilResult | None

    @property
    def contract(self) -> int:
        return self.side["contract"]

    @property
    def made(self) -> bool:
        """The side had a contract and took at least that many tricks."""
        return self.contract > 0 and self.side["taken"] >= self.contract


@dataclass(frozen=True, slots=True)
class SeatGame:
    """One finished game as the figures of whoever played a seat read it."""

    won: bool


@dataclass(frozen=True, slots=True)
class Figure:
    """A count kept per member: what each hand (`hand`) or each game (`game`) adds."""

    name: str
    label: str
    hand: Callable[[SeatHand], int] | None = None
    game: Callable[[SeatGame], int] | None = None


@dataclass(frozen=True, slots=True)
class Average:
    """A figure shown per hand: `of` divided by the hands, to `digits` decimals."""

    name: str
    label: str
    of: str
    digits: int


def _nil_made(hand: SeatHand) -> int:
    return int(hand.nil is not None and hand.nil["made"])


def _blind(hand: SeatHand) -> int:
    return int(hand.nil is not None and hand.nil["blind"])


# `contracts` counts the hands the member's side bid tricks in, split into
# `contracts_made` and `sets`; `nils` the member's own nil and blind nil bids; `bags` and
# `points` are the side's; `ten_for_two_hundreds` contracts of 10 or more made under
# that rule.
FIGURES: tuple[Figure, ...] = (
    Figure("games", "Games", game=lambda game: 1),
    Figure("wins", "Games won", game=lambda game: int(game.won)),
    Figure("hands", "Hands", hand=lambda hand: 1),
    Figure("contracts", "Contracts", hand=lambda hand: int(hand.contract > 0)),
    Figure("contracts_made", "Contracts made", hand=lambda hand: int(hand.made)),
    Figure("sets", "Sets", hand=lambda hand: int(hand.contract > 0 and not hand.made)),
    Figure("nils", "Nils", hand=lambda hand: int(hand.nil is not None)),
    Figure("nils_made", "Nils made", hand=_nil_made),
    Figure("blind_nils", "Blind nils", hand=_blind),
    Figure("blind_nils_made", "Blind nils made", hand=lambda hand: _blind(hand) & _nil_made(hand)),
    Figure("bags", "Bags", hand=lambda hand: hand.bags),
    Figure(
        "ten_for_two_hundreds",
        "10-for-200s",
        hand=lambda h: int(h.made and h.rules.ten_for_two_hundred and h.contract >= 10),
    ),
    Figure("points", "Points", hand=lambda hand: hand.side["points"]),
)
AVERAGES: tuple[Average, ...] = (
    Average("bags_per_hand", "Bags a hand", of="bags", digits=3),
    Average("points_per_hand", "Points a hand", of="points", digits=2),
)
# The stored totals' columns, in the order of the declaration.
STORED: tuple[str, ...] = tuple(figure.name for figure in FIGURES)
