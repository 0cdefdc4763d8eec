"""Dealing: this table's deck checked, the seeded shuffle, and each hand's deal.

A game's hands are dealt from the decks it was given, then from its seed: the same seed
always gives the same deals, so a restored game deals exactly as the original would have.
"""

from __future__ import annotations

import random
from collections import Counter

from server.engine.cards import INDEX, deck_codes
from server.engine.rules import Rules


def shuffle(cards: list[int], rng: random.Random) -> None:
    """Shuffle in place exactly as ``rng.shuffle(cards)`` would, about twice as fast.

    Same draws from the generator in the same order, so a seed gives the same deals.

    >>> cards, same = list(range(52)), list(range(52))
    >>> shuffle(cards, random.Random(4)); random.Random(4).shuffle(same); cards == same
    True
    """
    getrandbits = rng.getrandbits
    for i, bound, bits in _shuffle_steps(len(cards)):
        j = getrandbits(bits)
        while j >= bound:
            j = getrandbits(bits)
        cards[i], cards[j] = cards[j], cards[i]


_SHUFFLE_STEPS: dict[int, list[tuple[int, int, int]]] = {}


def _shuffle_steps(size: int) -> list[tuple[int, int, int]]:
    """``(i, i + 1, (i + 1).bit_length())`` for every step of a shuffle of ``size``
    cards, computed once per deck size."""
    steps = _SHUFFLE_STEPS.get(size)
    if steps is None:
        steps = [(i, i + 1, (i + 1).bit_length()) for i in range(size - 1, 0, -1)]
        _SHUFFLE_STEPS[size] = steps
    return steps


def checked_deck(rules: Rules, deck: object) -> list[int]:
    """A given deck as ints; ValueError unless it is exactly this table's deck."""
    expected = Counter(deck_codes(rules.players, rules.deck))
    if not isinstance(deck, list) or not all(isinstance(code, str) for code in deck):
        raise ValueError("each deck must be a list of card codes")
    if Counter(deck) != expected:
        raise ValueError(
            f"a deck must hold exactly the {sum(expected.values())} cards of this table"
        )
    return [INDEX[code] for code in deck]


def hand_deck(decks: list[list[int]], base: list[int], seed: int | str, index: int) -> list[int]:
    """The deck of hand ``index`` (0-based) in deal order, a fresh list: ``decks[index]``
    when given, else ``base`` (the table's cards) shuffled from ``seed``."""
    if index < len(decks):
        return list(decks[index])
    deck = list(base)
    shuffle(deck, random.Random(f"spades:{seed}:hand:{index}"))
    return deck


def deal(deck: list[int], players: int, dealer: int) -> tuple[list[list[int]], list[int]]:
    """Each seat's cards and the stock: one card at a time from the dealer's left; two
    players take theirs from the stock instead (the draw), so the whole deck is the stock.

    >>> deal(list(range(8)), 4, dealer=3)
    ([[0, 4], [1, 5], [2, 6], [3, 7]], [])
    >>> deal(list(range(4)), 2, dealer=0)
    ([[], []], [0, 1, 2, 3])
    """
    if players == 2:
        return [[], []], deck
    hands: list[list[int]] = [[] for _ in range(players)]
    for offset in range(players):
        hands[(dealer + 1 + offset) % players] = deck[offset::players]
    return hands, []
