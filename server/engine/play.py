"""Which cards a seat may play (docs/rules.md §7): one implementation, shared by the game
(``Game.legal``, ``act``), its fast path (``legal_cards`` / ``play``) and the bots'
look-ahead. Who takes a trick is ``server.engine.cards.taking``.

:func:`legal_plays` works on any card representation with a suit table (engine ints,
or the game's card codes), so that each caller keeps the form its hot loop is fastest in.

>>> from server.engine.cards import HEARTS, card_order
>>> order = card_order("standard")
>>> legal_plays(["2C", "AH", "3S"], order.code_suit, HEARTS, False)
['AH']
>>> legal_plays(["2C", "AH", "3S"], order.code_suit, -1, True)
['2C', 'AH']
>>> legal_plays(["2C", "3S"], order.code_suit, HEARTS, False)
['2C', '3S']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar

from server.engine.cards import CLUBS, SPADES

Card = TypeVar("Card")
Card_contra = TypeVar("Card_contra", contravariant=True)


class SuitTable(Protocol[Card_contra]):
    """A card's suit by card: ``CardOrder.suit`` for engine ints, ``CardOrder.code_suit``
    for codes."""

    def __getitem__(self, card: Card_contra, /) -> int: ...


def legal_plays(
    hand: list[Card],
    suit: SuitTable[Card],
    led: int,
    spades_closed: bool,
    suits: Sequence[list[Card]] | None = None,
) -> list[Card]:
    """The cards of ``hand`` that may be played, the first trick's own rules aside
    (:func:`first_trick_plays`).

    ``led`` is the suit led to this trick, or -1 to lead; ``spades_closed`` whether a
    lead may not be a spade yet (``spades_broken_to_lead`` and spades not broken). Follow
    suit if you can; lead anything but a spade while spades are closed, unless you hold
    only spades. ``suits``, the hand split by suit, saves the filtering to a caller that
    keeps it. The answer may be ``hand`` or one of ``suits`` itself: read it, never
    change it.
    """
    if led >= 0:
        follow = suits[led] if suits is not None else [c for c in hand if suit[c] == led]
        return follow or hand
    if spades_closed:
        return [c for c in hand if suit[c] != SPADES] or hand
    return hand


def first_trick_plays(
    hand: list[int],
    suit: Sequence[int],
    power: Sequence[int],
    lowest_club: bool,
    forced_lead: int | None,
    leading: bool,
) -> list[int] | None:
    """The first trick's own rules (docs/rules.md §7), or None when they do not apply.

    ``lowest_club``: every seat plays its lowest club, else any card but a spade (a
    spade only from a hand of spades). ``forced_lead`` (``two_clubs``): the leader must
    lead that card.
    """
    if lowest_club:
        clubs = [card for card in hand if suit[card] == CLUBS]
        if clubs:
            return [min(clubs, key=power.__getitem__)]
        return [card for card in hand if suit[card] != SPADES] or list(hand)
    if leading and forced_lead is not None:
        return [forced_lead]
    return None
