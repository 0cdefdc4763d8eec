"""The play of one hand's tricks: the cards held, the trick on the table, who takes it.

Playing a card is what a game does most (bots, simulations and benchmarks play millions),
so :class:`Tricks` keeps the play's state in the forms its hot path reads fastest: each
seat's cards as codes, all and by suit, so that a follow's legal cards are a list that
already exists, and the next seat's legal cards worked out as a card is played. Which
cards are legal is ``server.engine.play``; who takes a trick ``server.engine.cards``.

Decisions where docs/rules.md is silent:

- ``two_clubs`` forces the first lead to be the lowest club; if nobody holds a club (two
  players may discard them all) the player left of the dealer leads as usual.
- ``lowest_club``: if nobody plays a club or a spade on the first trick, the highest
  card of the first card's suit wins it.

>>> from server.engine.rules import Rules
>>> table = Table(Rules.preset("standard"))
>>> tricks = Tricks(table, [[0, 1], [2, 3], [4, 5], [6, 7]], log=[])
>>> tricks.legal_code_list(1), tricks.play_card(1, 2, "4C", None), tricks.counts()
(['4C', '5C'], 2, [2, 1, 2, 2])
"""

from __future__ import annotations

from server.engine.actions import LogEntry, card_refusal
from server.engine.cards import CLUBS, CODES, INDEX, SPADES, Taken, counted_led, taking
from server.engine.play import first_trick_plays, legal_plays
from server.engine.shapes import Event
from server.engine.table import Table
from server.engine.view import seat_cards

# What ``server.engine.claims`` remembers of a hand: each suit's codes best first, the
# seat holding each card when it was made (unique cards only), and each suit's best card
# in the hands (code, seat, place in the first).
ClaimMemo = tuple[list[list[str]], dict[str, int], list[tuple[str, int, int] | None]]


def first_lead(table: Table, hands: list[list[int]], dealer: int) -> tuple[int, int | None]:
    """Who leads a hand's first trick, and the card they must lead (``two_clubs``: the
    lowest club, first in bidding order among equals), or None."""
    leader = (dealer + 1) % table.players
    if table.rules.first_lead == "two_clubs":
        suit, power = table.order.suit, table.order.power
        clubs = [
            (power[card], position, card, seat)
            for position, seat in enumerate(table.bidding_order(dealer))
            for card in hands[seat]
            if suit[card] == CLUBS
        ]
        if clubs:
            _, _, card, seat = min(clubs)
            return seat, card
    return leader, None


class Tricks:
    """One hand's card play (public on purpose: the game and its saved state read it).

    ``trick``: the trick on the table, ``(seat, card)`` in play order; ``played``: the
    cards of the finished tricks; ``number``: how many tricks are finished; ``over``
    whether that is all of them; ``last_trick``: the last finished trick and its taker
    (the previous hand's until this one's first is taken); ``legal_codes``: the legal
    cards of the seat on turn once worked out (:meth:`legal_code_list`), else None;
    ``claim_memo``: what ``server.engine.claims`` remembers of this hand. The lists are
    the engine's own: read them, never change them.
    """

    __slots__ = (
        "_fresh",
        "_hands",
        "claim_memo",
        "code_suit",
        "duplicates",
        "forced_lead",
        "guard_spades",
        "hand_codes",
        "hand_size",
        "last_trick",
        "later_wins",
        "legal_codes",
        "log",
        "log_entry",
        "lowest_club_first",
        "next_seat",
        "number",
        "order",
        "over",
        "plain_follows",
        "played",
        "players",
        "spades_broken",
        "suit",
        "suit_codes",
        "trick",
        "trick_entry",
        "tricks_won",
        "win_key",
    )

    def __init__(
        self,
        table: Table,
        hands: list[list[int]],
        log: list[LogEntry],
        *,
        forced_lead: int | None = None,
        last_trick: Taken | None = None,
        trick: list[tuple[int, int]] | None = None,
        played: list[tuple[int, int]] | None = None,
        tricks_won: list[int] | None = None,
        number: int = 0,
        spades_broken: bool = False,
    ) -> None:
        """The play of ``hands`` (each seat's cards as ints) from its first trick, or from
        the given point of a saved game. ``log`` is the game's log, which every played
        card is appended to."""
        order = table.order
        self.players = table.players
        self.hand_size = table.hand_size
        self.order = order
        self.suit = order.suit
        self.code_suit = order.code_suit
        self.win_key = order.win_key
        self.next_seat = table.next_seat
        self.trick_entry = table.trick_entry
        self.log_entry = table.log_entry
        self.duplicates = table.duplicates
        self.later_wins = table.later_wins
        self.lowest_club_first = table.lowest_club_first
        self.guard_spades = table.rules.spades_broken_to_lead
        # Whether a follow's legal cards are legal_plays' answer as it is (no identical
        # cards to list once), so that play_card may work them out at once.
        self.plain_follows = not table.duplicates
        self.log = log
        self.forced_lead = forced_lead
        self.last_trick = last_trick
        self.trick = [] if trick is None else trick
        self.played = [] if played is None else played
        self.tricks_won = [0] * table.players if tricks_won is None else tricks_won
        self.number = number
        self.over = self.number == table.hand_size
        self.spades_broken = spades_broken
        self.legal_codes: list[str] | None = None
        # The codes, all and by suit, are the record of each seat's cards; the ints
        # (``hands``) are rebuilt from them when stale, so that playing a card updates one
        # representation, not two.
        suit = order.suit
        self.hand_codes = [[CODES[c] for c in cards] for cards in hands]
        self.suit_codes: list[list[list[str]]] = []
        for cards in hands:
            by_suit: list[list[str]] = [[], [], [], []]
            for card in cards:
                by_suit[suit[card]].append(CODES[card])
            self.suit_codes.append(by_suit)
        self._hands = hands
        self._fresh = True
        self.claim_memo: ClaimMemo | None = None

    # ------------------------------------------------------------------- the cards held

    @property
    def hands(self) -> list[list[int]]:
        """Each seat's cards as engine ints, in hand order, rebuilt once after cards
        were played (the engine's own lists: read them, never change them)."""
        if not self._fresh:
            self._hands = [[INDEX[code] for code in codes] for codes in self.hand_codes]
            self._fresh = True
        return self._hands

    def hand(self, seat: int) -> list[int]:
        """``hands[seat]``, rebuilding only that seat's ints when they are stale (a fresh
        list then; the engine's own otherwise: read it, do not change it)."""
        if self._fresh:
            return self._hands[seat]
        return [INDEX[code] for code in self.hand_codes[seat]]

    def counts(self) -> list[int]:
        """How many cards each seat holds (read from whichever record is current)."""
        return [len(cards) for cards in (self._hands if self._fresh else self.hand_codes)]

    def count(self, seat: int) -> int:
        """How many cards ``seat`` holds."""
        return len((self._hands if self._fresh else self.hand_codes)[seat])

    # ------------------------------------------------------------------- the legal cards

    def legal_code_list(self, seat: int) -> list[str]:
        """The codes of the cards ``seat``, on turn, may play, in hand order, each card
        once; cached as ``legal_codes`` for this turn (docs/rules.md §7).

        The answer may be one of the seat's own card lists: read it, never change it.
        """
        codes = self.legal_codes
        if codes is not None:
            return codes
        trick = self.trick
        first = None
        if self.number == 0 and (self.lowest_club_first or self.forced_lead is not None):
            first = first_trick_plays(
                self.hands[seat],
                self.suit,
                self.order.power,
                self.lowest_club_first,
                self.forced_lead,
                leading=not trick,
            )
        if first is None:
            codes = legal_plays(
                self.hand_codes[seat],
                self.code_suit,
                self.suit[trick[0][1]] if trick else -1,
                self.guard_spades and not self.spades_broken,
                self.suit_codes[seat],
            )
        else:
            codes = [CODES[card] for card in first]
        if self.duplicates:
            codes = list(dict.fromkeys(codes))
        self.legal_codes = codes
        return codes

    def checked_card(self, seat: int, code: str) -> int:
        """The card ``code`` as an int if ``seat``, on turn, may play it, else the
        IllegalAction saying why."""
        if code in self.legal_code_list(seat):
            return INDEX[code]
        first = self.number == 0
        raise card_refusal(
            code,
            self.hands[seat],
            self.order,
            self.trick,
            first and self.lowest_club_first,
            self.forced_lead if first else None,
        )

    def claim(self, seat: int) -> int:
        """End the hand by ``seat``'s claim (checked by the game): every remaining trick
        is credited to it and every hand is emptied; return the tricks credited."""
        left = self.hand_size - self.number
        self.tricks_won[seat] += left
        for codes in self.hand_codes:
            codes.clear()
        for by_suit in self.suit_codes:
            for codes in by_suit:
                codes.clear()
        self._fresh = False
        self.number = self.hand_size
        self.over = True
        self.legal_codes = None
        return left

    # ------------------------------------------------------------------- playing

    def play_card(self, seat: int, card: int, code: str, events: list[Event] | None) -> int:
        """Play a checked card of ``seat``, on turn; return the seat on turn next (the
        taker, after a trick). ``events`` is the list ``act`` returns, or None when nobody
        wants events (then none are built). Once the hand's last trick is taken ``over``
        is true."""
        card_suit = self.suit[card]
        self._fresh = False
        self.hand_codes[seat].remove(code)
        self.suit_codes[seat][card_suit].remove(code)
        self.log.append(self.log_entry[seat][card])
        trick = self.trick
        trick.append(self.trick_entry[seat][card])
        if card_suit == SPADES:
            self.spades_broken = True
        if events is not None:
            events.append({"type": "play", "seat": seat, "card": code})
        # The next seat's legal cards are worked out here, at once, where the fast path
        # can: one call here instead of two frames in the legal cards. The first trick
        # and identical cards take the lazy path.
        plain = self.plain_follows and (self.number or not self.lowest_club_first)
        if len(trick) < self.players:
            following = self.next_seat[seat]
            self.legal_codes = (
                legal_plays(
                    self.hand_codes[following],
                    self.code_suit,
                    self.suit[trick[0][1]],
                    False,
                    self.suit_codes[following],
                )
                if plain
                else None
            )
            return following
        if self.number or not self.lowest_club_first:
            led = self.suit[trick[0][1]]
        else:
            led = counted_led(trick, self.suit, CLUBS)
        winner = taking(trick, self.win_key[led], self.later_wins)[0]
        self.tricks_won[winner] += 1
        self.played.extend(trick)
        self.last_trick = (trick, winner)
        self.trick = []
        self.number += 1
        self.over = self.number == self.hand_size
        self.legal_codes = (
            legal_plays(
                self.hand_codes[winner],
                self.code_suit,
                -1,
                self.guard_spades and not self.spades_broken,
                self.suit_codes[winner],
            )
            if self.plain_follows and not self.over
            else None
        )
        if events is not None:
            events.append(
                {
                    "type": "trick",
                    "winner": winner,
                    "cards": seat_cards(trick),
                    "number": self.number,
                }
            )
        return winner
