"""Which cards a seat may play (docs/rules.md §7): one implementation, shared by the game
(``Game.legal``, ``act``), its fast path (``legal_cards`` / ``play``) and the bots'
look-ahead. Who takes a trick is ``server.engine.cards.taking``.

:func:`legal_plays` works on any card representation (engine ints, or the game's card
codes) split by suit, so that each caller keeps the form its hot loop is fastest in.

>>> from server.engine.cards import HEARTS, card_code, card_index, card_order
>>> order = card_order("standard")
>>> hand = [card_index(code) for code in ["2C", "AH", "3S"]]
>>> [card_code(c) for c in legal_plays(hand, by_suit(hand, order.suit), HEARTS, False)]
['AH']
>>> [card_code(c) for c in legal_plays(hand, by_suit(hand, order.suit), -1, True)]
['2C', 'AH']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from server.engine.cards import CLUBS, SPADES

Card = TypeVar("Card")


def by_suit(hand: Sequence[int], suit: Sequence[int]) -> list[list[int]]:
    """The hand's cards of each suit (clubs, diamonds, hearts, spades), in hand order."""
    suits: list[list[int]] = [[], [], [], []]
    for card in hand:
        suits[suit[card]].append(card)
    return suits


def legal_plays(
    hand: list[Card], suits: Sequence[list[Card]], led: int, spades_closed: bool
) -> list[Card]:
    """The cards of ``hand`` that may be played, after the first trick's special leads.

    ``suits`` is the hand split by suit (as :func:`by_suit` gives it), ``led`` the suit
    led to this trick or -1 to lead, ``spades_closed`` whether a lead may not be a spade
    yet (``spades_broken_to_lead`` and spades not broken). Follow suit if you can; a
    leader with only spades may lead one. The answer may be ``hand`` or one of ``suits``
    itself: read it, never change it.
    """
    if led >= 0:
        return suits[led] or hand
    spades = suits[SPADES]
    if spades_closed and spades and len(spades) < len(hand):
        return [card for card in hand if card not in spades]
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
