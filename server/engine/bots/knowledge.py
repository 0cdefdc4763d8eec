"""What a seat knows: the public situation, derived from its view once per decision."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from server.engine.cards import (
    CLUBS,
    SPADES,
    CardOrder,
    card_index,
    card_order,
    counted_led,
    deck_codes,
    taking,
)
from server.engine.rules import Rules
from server.engine.scoring import is_nil, side_contract

Action = dict[str, Any]
View = dict[str, Any]
Rng = random.Random | None


@lru_cache(maxsize=32)
def _deck_counter(players: int, deck: str) -> Counter[int]:
    return Counter(card_index(code) for code in deck_codes(players, deck))


@dataclass(slots=True)
class SeatState:
    """The public situation from one seat's point of view, with cards as engine ints."""

    rules: Rules
    order: CardOrder
    seat: int
    hand: list[int]
    teammates: list[int]
    opponents: list[int]
    bids: list[Any]
    tricks_won: list[int]
    trick: list[tuple[int, int]]
    played: list[tuple[int, int]]
    sides: list[list[int]]
    contracts: list[Any] | None
    rng: random.Random | None
    _unseen: Counter[int] | None = field(default=None)
    _voids: dict[int, set[int]] | None = field(default=None)

    @property
    def players(self) -> int:
        return self.rules.players

    def is_nil(self, seat: int) -> bool:
        """Whether the seat bid nil or blind nil and has taken no trick yet."""
        return is_nil(self.bids[seat]) and self.tricks_won[seat] == 0

    def side_of(self, seat: int) -> list[int]:
        return next(side for side in self.sides if seat in side)

    def contract(self, side: list[int]) -> int:
        """The side's contract: the view's when it gives one, else the engine's rule on
        the bids made so far (a view without ``contracts``, an imagined bidding)."""
        if self.contracts is not None:
            known = self.contracts[self.sides.index(side)]
            if known is not None:
                return int(known)
        return side_contract(self.rules, [bid for s in side if (bid := self.bids[s]) is not None])

    def need(self, side: list[int]) -> int:
        """Tricks the side still needs for its contract (0 once made)."""
        counts_failed_nil = self.rules.nil_tricks == "contract"
        taken = sum(
            self.tricks_won[s] for s in side if counts_failed_nil or not is_nil(self.bids[s])
        )
        return max(self.contract(side) - taken, 0)

    @property
    def unseen(self) -> Counter[int]:
        """Cards this seat has not seen: in other hands, or (two players) discarded."""
        if self._unseen is None:
            unseen = _deck_counter(self.players, self.rules.deck).copy()
            unseen.subtract(self.hand)
            unseen.subtract(card for _, card in self.played)
            unseen.subtract(card for _, card in self.trick)
            self._unseen = unseen
        return self._unseen

    @property
    def voids(self) -> dict[int, set[int]]:
        """Suits each seat has shown it lacks, from finished tricks and the current one."""
        if self._voids is not None:
            return self._voids
        voids: dict[int, set[int]] = {}
        n = self.players
        plays = self.played + self.trick
        for start in range(0, len(plays), n):
            cards = plays[start : start + n]
            led = self._led_suit(cards, first_trick=start == 0)
            for seat, card in cards[1:]:
                if self.order.suit[card] != led:
                    voids.setdefault(seat, set()).add(led)
        self._voids = voids
        return voids

    def _led_suit(self, cards: list[tuple[int, int]], first_trick: bool) -> int:
        if first_trick and self.rules.first_lead == "lowest_club":
            return CLUBS
        return self.order.suit[cards[0][1]]

    def led_suit(self) -> int:
        return self._led_suit(self.trick, first_trick=not self.played)

    def wins_with(self, card: int | None = None) -> int:
        """Position in the trick of the winning card, ``card`` played last if given (the
        engine's own rule, docs/rules.md §7)."""
        plays = [(position, c) for position, (_, c) in enumerate(self.trick)]
        if card is not None:
            plays.append((len(plays), card))
        first_club_trick = not self.played and self.rules.first_lead == "lowest_club"
        led = counted_led(plays, self.order.suit, CLUBS if first_club_trick else -1)
        return taking(plays, self.order.win_key[led], self.rules.duplicate_later_wins)[0]

    def winning(self) -> tuple[int, int]:
        """(seat, card) currently winning the trick on the table."""
        return self.trick[self.wins_with()]

    def stronger_unseen(self, card: int) -> int:
        """Unseen cards of the card's suit that would beat it if played after it."""
        suit, power = self.order.suit[card], self.order.power[card]
        later_wins = self.rules.duplicate_later_wins
        return sum(
            count
            for other, count in self.unseen.items()
            if count > 0
            and self.order.suit[other] == suit
            and (self.order.power[other] > power or (later_wins and other == card))
        )

    def is_boss(self, card: int) -> bool:
        """Whether no unseen card of its suit can beat it (ruffs aside)."""
        return self.stronger_unseen(card) == 0

    def pick(self, cards: list[int], key: Callable[[int], Any]) -> int:
        """The card with the highest key; ties broken by the rng (else the first)."""
        best_key = max(key(c) for c in cards)
        ties = [c for c in cards if key(c) == best_key]
        if len(ties) > 1 and self.rng is not None:
            return ties[self.rng.randrange(len(ties))]
        return ties[0]

    def lowest(self, cards: list[int]) -> int:
        """The weakest card: lowest rank, a non-spade before a spade."""
        return self.pick(cards, lambda c: (-(self.order.suit[c] == SPADES), -self.order.power[c]))

    def highest(self, cards: list[int]) -> int:
        """The strongest card: a spade before a side card, then the higher rank."""
        return self.pick(cards, lambda c: (self.order.suit[c] == SPADES, self.order.power[c]))


def _own_seat(view: dict[str, Any]) -> int:
    seat = view.get("seat")
    if isinstance(seat, int):
        return seat
    turn = view.get("turn") or []
    if len(turn) == 1:
        return int(turn[0])
    raise ValueError("the view does not say whose it is")


def seat_state(rules: Rules, view: dict[str, Any], rng: random.Random | None) -> SeatState:
    order = card_order(rules.deck)
    seat = _own_seat(view)
    sides = view.get("sides") or rules.sides
    my_side = next(side for side in sides if seat in side)
    n = rules.players
    return SeatState(
        rules=rules,
        order=order,
        seat=seat,
        hand=[card_index(code) for code in view.get("hand") or []],
        teammates=[s for s in my_side if s != seat],
        opponents=[s for s in range(n) if s not in my_side],
        bids=list(view.get("bids") or [None] * n),
        tricks_won=list(view.get("tricks_won") or [0] * n),
        trick=[(p["seat"], card_index(p["card"])) for p in view.get("trick") or []],
        played=[(p["seat"], card_index(p["card"])) for p in view.get("played") or []],
        sides=[list(side) for side in sides],
        contracts=view.get("contracts"),
        rng=rng,
    )
