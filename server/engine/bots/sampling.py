"""Imagined deals for the look-ahead: the unseen cards dealt to the hidden seats so that
they fit what is public (hand sizes, shown voids) and what the bids hint at."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TypeVar

from server.engine.bots.knowledge import SeatState
from server.engine.cards import SPADES, card_order
from server.engine.shapes import View

# Imagined deals give high cards to each hidden seat in proportion to the tricks its bid
# still promises plus WEIGHT_BASE; a nil bidder still clean gets NIL_WEIGHT.
WEIGHT_BASE = 0.5
NIL_WEIGHT = 0.25

Choice = TypeVar("Choice")


@lru_cache(maxsize=8)
def strong_cards(deck: str) -> list[bool]:
    """Per card int: a high card whose holder the bids hint at (jacks of spades and
    up, side-suit kings and aces)."""
    order = card_order(deck)
    return [
        order.power[c] >= (9 if order.suit[c] == SPADES else 11) for c in range(len(order.suit))
    ]


def holding_weights(state: SeatState, view: View, hidden: list[int]) -> dict[int, float]:
    """How strongly each hidden seat is expected to hold high cards: the tricks its own
    bid still promises (a nil bidder holds few, a blind nil bidder bid before looking)."""
    n = state.players
    dealer = view.get("dealer")
    position = [(s - (dealer if isinstance(dealer, int) else 0) - 1) % n for s in range(n)]
    weights: dict[int, float] = {}
    for seat in hidden:
        bid = state.bids[seat]
        if bid == "blind_nil" or not isinstance(bid, int):
            weights[seat] = 1.0 + WEIGHT_BASE
            continue
        if bid == 0:
            weights[seat] = NIL_WEIGHT if state.tricks_won[seat] == 0 else 1.0
            continue
        own = bid
        if state.rules.bidding == "team":
            # The later partner's number is the side's total: its own part is the rest.
            for partner in state.side_of(seat):
                other = state.bids[partner]
                if (
                    partner != seat
                    and isinstance(other, int)
                    and position[partner] < position[seat]
                ):
                    own = max(bid - other, 0)
        weights[seat] = max(own - state.tricks_won[seat], 0) + WEIGHT_BASE
    return weights


def hand_sizes(state: SeatState) -> list[int]:
    """Cards left per seat, from the cards each has played (a view without
    ``hand_sizes``)."""
    sizes = [state.rules.hand_size] * state.players
    for seat, _ in state.played + state.trick:
        sizes[seat] -= 1
    sizes[state.seat] = len(state.hand)
    return sizes


def view_seed(view: View) -> str:
    """A seed made of what the seat sees, so that the same view imagines the same deals."""
    trick = [p["card"] for p in view.get("trick") or []]
    played = [p["card"] for p in view.get("played") or []]
    return f"{view.get('seat')}|{view.get('hand')}|{trick}|{played}|{view.get('bids')}"


def deal_hidden(
    rng: random.Random,
    unseen: list[int],
    hidden: list[int],
    sizes: list[int],
    voids: dict[int, set[int]],
    suit: list[int],
    strong: list[bool] | None = None,
    weights: dict[int, float] | None = None,
) -> list[list[int]]:
    """One deal of the unseen cards to the hidden seats (their hand sizes), respecting
    the suits each has shown it lacks; cards left over (the two-player discards) go to
    nobody. With ``weights``, each ``strong`` card goes to a seat with odds in
    proportion to its free room times its weight (a seat that bid high holds more high
    cards than one that bid nil). Falls back to ignoring the voids if a few tries find no
    fitting deal."""
    pool = list(unseen)
    rng.shuffle(pool)
    hands: list[list[int]] = [[] for _ in sizes]
    weighted = strong is not None and weights is not None
    marked = strong if strong is not None and weights is not None else [False] * len(suit)
    if not weighted and not any(voids.get(s) for s in hidden):
        return _slice_deal(pool, hidden, sizes, hands)
    # The leftover cards (two players) form a pseudo-seat -1 that takes anything.
    owners = [*hidden, -1]
    spare = max(len(pool) - sum(sizes[s] for s in hidden), 0)
    weight = dict(weights or {})
    weight[-1] = 1.0
    banned = {s: voids.get(s, set()) for s in owners}
    special = [c for c in pool if marked[c] or any(suit[c] in banned[s] for s in hidden)]
    free = [c for c in pool if not (marked[c] or any(suit[c] in banned[s] for s in hidden))]
    for _ in range(8):
        room = {s: sizes[s] for s in hidden}
        room[-1] = spare
        placed: dict[int, list[int]] = {s: [] for s in owners}
        for card in special:
            odds = weight if marked[card] else None
            fits = [
                (s, room[s] * (odds[s] if odds else 1.0))
                for s in owners
                if room[s] > 0 and suit[card] not in banned[s]
            ]
            if not fits:
                break
            pick = rng.random() * sum(w for _, w in fits)
            owner = fits[-1][0]
            for seat, w in fits:
                pick -= w
                if pick < 0:
                    owner = seat
                    break
            placed[owner].append(card)
            room[owner] -= 1
        else:
            start = 0
            for owner in owners:
                placed[owner].extend(free[start : start + room[owner]])
                start += room[owner]
            for seat in hidden:
                hands[seat] = placed[seat]
            return hands
        rng.shuffle(special)
    return _slice_deal(pool, hidden, sizes, hands)


def _slice_deal(
    pool: list[int], hidden: list[int], sizes: list[int], hands: list[list[int]]
) -> list[list[int]]:
    start = 0
    for seat in hidden:
        hands[seat] = pool[start : start + sizes[seat]]
        start += sizes[seat]
    return hands


@dataclass(frozen=True, slots=True)
class Imagining:
    """What one seat's imagined deals are drawn from: the cards it has not seen, the
    other seats and their hand sizes, and how strongly each is expected to hold high
    cards (``holding_weights``); its own hand is always its own."""

    state: SeatState
    unseen: list[int]
    hidden: list[int]
    sizes: list[int]
    strong: list[bool]
    weights: dict[int, float]

    @classmethod
    def of(cls, view: View, state: SeatState) -> Imagining:
        hidden = [s for s in range(state.players) if s != state.seat]
        return cls(
            state=state,
            unseen=list(state.unseen.elements()),
            hidden=hidden,
            sizes=view.get("hand_sizes") or hand_sizes(state),
            strong=strong_cards(state.rules.deck),
            weights=holding_weights(state, view, hidden),
        )

    def deal(self, rng: random.Random) -> list[list[int]]:
        """One imagined deal (``deal_hidden``), the seat's own hand in it."""
        state = self.state
        deal = deal_hidden(
            rng,
            self.unseen,
            self.hidden,
            self.sizes,
            state.voids,
            state.order.suit,
            self.strong,
            self.weights,
        )
        deal[state.seat] = list(state.hand)
        return deal


def best_scored(candidates: Sequence[Choice], totals: Sequence[float], preferred: Choice) -> Choice:
    """The candidate whose imagined deals scored best in total; of those tied with it,
    ``preferred`` if it is one, else the first."""
    best = max(totals)
    tied = [c for c, total in zip(candidates, totals, strict=True) if total >= best - 1e-9]
    return preferred if preferred in tied else tied[0]
