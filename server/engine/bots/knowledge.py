"""What a seat knows: the public situation, derived from its view once per decision, and
what its view's legal actions offer."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from server.engine.bots.preferences import preferences
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
from server.engine.shapes import Action, Bid, LegalAction, PlayAction, View

Rng = random.Random | None
# One level's decision for one phase: an action from the view's legal ones.
Decision = Callable[[Rules, View, list[LegalAction], Rng], Action]


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
    bids: list[Bid | None]
    tricks_won: list[int]
    trick: list[tuple[int, int]]
    played: list[tuple[int, int]]
    sides: list[list[int]]
    contracts: list[int | None] | None
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
        keep = preferences(self.order).keep
        return self.pick(cards, lambda c: -keep[c])

    def highest(self, cards: list[int]) -> int:
        """The strongest card: a spade before a side card, then the higher rank."""
        return self.pick(cards, lambda c: (self.order.suit[c] == SPADES, self.order.power[c]))

    def same_group(self, a: int, b: int) -> bool:
        """Whether two of the seat's cards are equivalent: same suit, and no card anyone
        else may play lies between them (so either one wins or loses the same tricks)."""
        order = self.order
        if order.suit[a] != order.suit[b]:
            return False
        low, high = sorted((order.power[a], order.power[b]))
        return a == b or not self._others_between(low, high, order.suit[a])

    def distinct_cards(self, cards: list[int]) -> list[int]:
        """One card (the lowest) of each group of equivalent cards among ``cards``."""
        order = self.order
        ranked = sorted(dict.fromkeys(cards), key=lambda c: (order.suit[c], order.power[c]))
        groups: list[int] = []
        for card in ranked:
            if groups and self.same_group(groups[-1], card):
                continue
            groups.append(card)
        return groups

    def _others_between(self, low: int, high: int, suit: int) -> bool:
        """Whether a card of ``suit`` not in this seat's hand (unseen, or on the table in
        this trick) has a power in ``low..high``."""
        order = self.order
        for card, count in self.unseen.items():
            if count > 0 and order.suit[card] == suit and low <= order.power[card] <= high:
                return True
        return any(
            order.suit[card] == suit and low <= order.power[card] <= high for _, card in self.trick
        )


@dataclass(frozen=True, slots=True)
class CardChoice:
    """The cards a look-ahead weighs: the legal ``plays``, their ``cards`` as engine ints,
    and ``candidates``, one card of each group of equivalent ones
    (``SeatState.distinct_cards``)."""

    plays: list[PlayAction]
    cards: list[int]
    candidates: list[int]

    @classmethod
    def of(cls, state: SeatState, legal: Sequence[LegalAction]) -> CardChoice:
        plays = play_actions(legal)
        cards = [card_index(action["card"]) for action in plays]
        return cls(plays, cards, state.distinct_cards(cards))

    def action(self, card: int) -> PlayAction:
        """The legal play of ``card``."""
        return self.plays[self.cards.index(card)]


def first_action(legal: Sequence[LegalAction]) -> Action:
    """The first legal action (not the view's pass choice, which needs a decision)."""
    first = legal[0]
    if "count" in first:
        raise ValueError("the pass choice needs cards chosen")
    return first


def play_actions(legal: Sequence[LegalAction]) -> list[PlayAction]:
    """The card plays among a view's legal actions."""
    return [action for action in legal if action["type"] == "play"]


def bid_numbers(legal: Sequence[LegalAction]) -> list[int]:
    """The numbers of the bids among a view's legal actions."""
    return [action["bid"] for action in legal if action["type"] == "bid"]


def pass_count(legal: Sequence[LegalAction]) -> int:
    """How many cards the seat passes: the view's pass choice ``{"type": "pass", "count":
    n}``, or the size of a pass ``game.legal`` lists."""
    first = legal[0]
    if first["type"] == "pass":
        return first["count"] if "count" in first else len(first["cards"])
    raise ValueError("no pass among the legal actions")


def _own_seat(view: View) -> int:
    seat = view.get("seat")
    if isinstance(seat, int):
        return seat
    turn = view.get("turn") or []
    if len(turn) == 1:
        return int(turn[0])
    raise ValueError("the view does not say whose it is")


def seat_state(rules: Rules, view: View, rng: random.Random | None) -> SeatState:
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
