"""The basic rules of thumb's preferences among cards, declared once for the basic level
(``basic.py``) and the play-outs' policy (``rollout.py``).

Each is a number per card int under one deck (the higher, the sooner chosen), so that
the play-outs rank cards by a list lookup; each caller breaks ties its own way (the basic
level by its rng, the play-outs by hand order).
"""

from __future__ import annotations

from dataclasses import dataclass

from server.engine.cards import CARD_SLOTS, SPADES, CardOrder

# A spade counts this many ranks higher when a nil bidder weighs how dangerous a card is:
# a trump can win a trick that no side card would.
SPADE_DANGER = 4
# Above any power: where a rank must first say spade or side card.
SUIT_STEP = 100


@dataclass(frozen=True, slots=True)
class Preferences:
    """Per card int: ``danger``, how badly a nil bidder wants to be rid of it (high
    cards, spades worst: what it ducks with first and passes away); ``shed``, which
    losing card to throw under a trick it will not win (the highest side card, spades
    kept for when a trick is wanted); ``keep``, the opposite of the weakest card (a low
    side card is played first when nothing is wanted: the lowest ``keep``)."""

    danger: tuple[int, ...]
    shed: tuple[int, ...]
    keep: tuple[int, ...]


def _preferences(order: CardOrder) -> Preferences:
    slots = range(CARD_SLOTS)
    spade = [order.suit[c] == SPADES for c in slots]
    return Preferences(
        danger=tuple(order.power[c] + (SPADE_DANGER if spade[c] else 0) for c in slots),
        shed=tuple((not spade[c]) * SUIT_STEP + order.power[c] for c in slots),
        keep=tuple(spade[c] * SUIT_STEP + order.power[c] for c in slots),
    )


_BY_DECK: dict[str, Preferences] = {}


def preferences(order: CardOrder) -> Preferences:
    """The preferences under ``order``'s deck (made once a deck)."""
    found = _BY_DECK.get(order.deck)
    if found is None:
        found = _BY_DECK[order.deck] = _preferences(order)
    return found
