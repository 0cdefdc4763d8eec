"""What one table's rules make of its seats and cards, worked out once per game.

The game, its auction (``server.engine.auction``) and its tricks (``server.engine.tricks``)
ask the rules the same questions: who a seat's partner is, which seat follows, how cards
compare, which first-trick rule applies. :class:`Table` answers them once, when a game is
made or restored, and the phases share it read-only, so that none derives them again.

>>> from server.engine.rules import Rules
>>> table = Table(Rules.preset("standard"))
>>> table.partner_of, table.bidding_order(dealer=1)
([2, 3, 0, 1], [2, 3, 0, 1])
"""

from __future__ import annotations

from server.engine.cards import CARD_SLOTS, CODES, INDEX, card_order, deck_codes
from server.engine.rules import Rules


class Table:
    """The read-only lookups of one game (public on purpose: every phase reads them).

    ``side_of[seat]`` and ``partner_of[seat]`` (None without a partner); ``next_seat[seat]``
    the seat on its left; ``base_deck`` the table's cards as ints, in deck order, that each
    hand's shuffle starts from; ``trick_entry[seat][card]`` and ``log_entry[seat][card]``
    the tuples a played card appends to the trick and to the log (see
    :func:`play_entries`); the flags say which of the rules' special cases apply.
    """

    __slots__ = (
        "base_deck",
        "duplicates",
        "hand_size",
        "later_wins",
        "log_entry",
        "lowest_club_first",
        "next_seat",
        "order",
        "partner_of",
        "players",
        "rules",
        "side_of",
        "sides",
        "trick_entry",
    )

    def __init__(self, rules: Rules) -> None:
        n = rules.players
        self.rules = rules
        self.players = n
        self.order = card_order(rules.deck)
        self.sides = rules.sides
        self.side_of = [0] * n
        for index, seats in enumerate(self.sides):
            for seat in seats:
                self.side_of[seat] = index
        self.partner_of: list[int | None] = [
            next((other for other in self.sides[self.side_of[seat]] if other != seat), None)
            for seat in range(n)
        ]
        self.next_seat: list[int] = [*range(1, n), 0]
        self.hand_size = rules.hand_size
        self.base_deck = [INDEX[code] for code in deck_codes(n, rules.deck)]
        # Only six players have identical cards (two decks).
        self.duplicates = n == 6
        self.lowest_club_first = rules.first_lead == "lowest_club"
        # Of identical cards the later takes the trick.
        self.later_wins = self.duplicates and rules.duplicate_later_wins
        self.trick_entry, self.log_entry = play_entries(n)

    def bidding_order(self, dealer: int) -> list[int]:
        """Every seat from the dealer's left: the order of bids and blind nil decisions."""
        n = self.players
        return [(dealer + 1 + offset) % n for offset in range(n)]


_PLAY_ENTRIES: dict[int, tuple[list[list[tuple[int, int]]], list[list[tuple[int, str, str]]]]] = {}


def play_entries(
    players: int,
) -> tuple[list[list[tuple[int, int]]], list[list[tuple[int, str, str]]]]:
    """``[seat][card]`` tables of the tuples a played card appends to the trick and to
    the log, shared and immutable, so that playing a card allocates nothing the garbage
    collector tracks (a long game's collections cost more and more). Once per table size.
    """
    entries = _PLAY_ENTRIES.get(players)
    if entries is None:
        seats = range(players)
        entries = (
            [[(seat, card) for card in range(CARD_SLOTS)] for seat in seats],
            [[(seat, "play", CODES[card]) for card in range(CARD_SLOTS)] for seat in seats],
        )
        _PLAY_ENTRIES[players] = entries
    return entries
