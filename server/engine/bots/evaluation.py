"""Hand evaluation for the bots: plain card lists in, numbers out.

>>> hand_strength(["AS", "KS", "AH"]) > 2.5
True
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache

from server.engine.cards import SPADES, CardOrder, card_index, card_order, deck_codes

# A nil danger no nil survives: the hand holds the one top trump.
FATAL = 10.0


@lru_cache(maxsize=32)
def _deck_powers(players: int, deck: str) -> tuple[tuple[int, ...], ...]:
    """Per suit, the power of every card of the table's deck (copies included)."""
    order = card_order(deck)
    powers: list[list[int]] = [[], [], [], []]
    for code in deck_codes(players, deck):
        index = card_index(code)
        powers[order.suit[index]].append(order.power[index])
    return tuple(tuple(sorted(p, reverse=True)) for p in powers)


def _by_suit(order: CardOrder, cards: Iterable[int]) -> list[list[int]]:
    """The cards of each suit, highest power first."""
    suits: list[list[int]] = [[], [], [], []]
    for card in cards:
        suits[order.suit[card]].append(card)
    for suit in suits:
        suit.sort(key=order.power.__getitem__, reverse=True)
    return suits


def _missing_above(powers: Sequence[int], deck_powers: Sequence[int], power: int) -> int:
    """How many cards at least as strong as ``power`` are held by others (copies count:
    in a double deck an unseen twin may be played later and win)."""
    return sum(1 for p in deck_powers if p >= power) - sum(1 for p in powers if p >= power)


def hand_strength(hand: Iterable[str], deck: str = "standard", players: int = 4) -> float:
    """The tricks a hand can count on, as a decent player counts them before the play
    (low cards win a few more; ``TRICKS_FROM_STRENGTH`` turns this into a bid).

    Side suits: an ace, a king behind one missing card with a guard, a queen with two
    guards (each worth less the more likely the suit is ruffed by then). Spades: the top
    cards with enough guards, every spade beyond an average hand's share, and ruffs from
    voids, singletons and doubletons with spare spades.

    >>> hand_strength(["AS", "KS", "QS", "JS", "TS", "AH", "KH", "AD", "KD", "AC",
    ...                "KC", "2C", "3C"]) > 10
    True
    >>> hand_strength(["2C", "3C", "4C", "5D", "6D", "7D", "8H", "9H", "3H", "4H",
    ...                "2S", "3S", "TD"]) < 0.5
    True
    """
    order = card_order(deck)
    deck_powers = _deck_powers(players, deck)
    suits = _by_suit(order, (card_index(code) for code in hand))
    spades = [order.power[c] for c in suits[SPADES]]
    high, length, winners = _spade_tricks(spades, deck_powers[SPADES], players)
    total = high + length
    ruff_chances = 0.0
    for suit in (s for s in range(4) if s != SPADES):
        powers = [order.power[c] for c in suits[suit]]
        total += _side_suit_tricks(powers, deck_powers[suit], players)
        ruff_chances += (1.0, 0.6, 0.2)[len(powers)] if len(powers) < 3 else 0.0
    spare = len(spades) - winners - length
    return total + 0.7 * min(max(spare, 0), ruff_chances)


def _spade_card_value(missing: int, guards: int) -> float:
    """Chance a spade takes a trick: ``missing`` stronger trumps are out, ``guards`` of
    our own lower spades can be played while they fall."""
    if missing <= 0:
        return 1.0
    if guards < missing:
        return 0.0
    return {1: 0.75, 2: 0.5, 3: 0.25}.get(missing, 0.0)


def _spade_tricks(
    powers: list[int], deck_powers: Sequence[int], players: int
) -> tuple[float, int, int]:
    """(tricks from high spades, tricks from length, spades counted as likely winners)."""
    high = 0.0
    winners = 0
    for j, power in enumerate(powers):
        value = _spade_card_value(_missing_above(powers, deck_powers, power), len(powers) - j - 1)
        high += value
        winners += value >= 0.5
    share = round(len(deck_powers) / players) + 1
    length = min(max(len(powers) - share, 0), len(powers) - winners)
    return high, length, winners


def _side_suit_tricks(powers: list[int], deck_powers: Sequence[int], players: int) -> float:
    """Tricks from the high cards of one side suit, cashed from the top down."""
    others_length = (len(deck_powers) - len(powers)) / max(players - 1, 1)
    total = 0.0
    for j, power in enumerate(powers):
        missing = _missing_above(powers, deck_powers, power)
        if len(powers) - j - 1 < missing:
            value = 0.05
        else:
            value = {0: 0.95, 1: 0.5, 2: 0.2}.get(missing, 0.0)
        cashed_on_round = j + 1 + missing
        if cashed_on_round > others_length:
            value *= 0.3
        elif cashed_on_round > others_length - 1:
            value *= 0.8
        total += value
    return total


def nil_danger(hand: Iterable[str], deck: str = "standard", players: int = 4) -> float:
    """How likely a hand is to be forced to win a trick; about 3 or less is a fair nil.

    High spades are nearly fatal, long spades force wins late in the hand, and a high
    side card is dangerous unless enough low cards of its suit let its holder duck.

    >>> nil_danger(["2C", "3C", "4C", "5D", "6D", "7D", "8H", "9H", "3H", "4H", "2S",
    ...             "3S", "TD"]) <= 2
    True
    >>> nil_danger(["AS", "3C", "4C", "5D", "6D", "7D", "8H", "9H", "3H", "4H", "2S",
    ...             "3S", "TD"]) >= FATAL
    True
    """
    order = card_order(deck)
    deck_powers = _deck_powers(players, deck)
    spade_share = round(len(deck_powers[SPADES]) / players)
    suits = _by_suit(order, (card_index(code) for code in hand))
    danger = 0.0
    for suit, cards in enumerate(suits):
        # Ranks, not copies: a twin played earlier in the trick does not save a nil.
        ranks = sorted(set(deck_powers[suit]), reverse=True)
        powers = [order.power[c] for c in cards]
        for j, power in enumerate(powers):
            missing = _missing_above(sorted(set(powers)), ranks, power)
            lower_own = len(powers) - j - 1
            if suit == SPADES and missing == 0 and deck_powers[SPADES].count(power) == 1:
                # The top trump takes whatever trick it falls on, and it must fall on one.
                danger += FATAL
            elif suit == SPADES:
                danger += 3.0 if missing < 4 else 1.5 if missing < 6 else 0.0
            elif missing == 0:
                danger += 3.0
            elif missing == 1:
                danger += 1.0 if lower_own >= 2 else 2.0
            elif missing == 2:
                danger += 0.5 if lower_own >= 2 else 1.0
            elif missing == 3 and lower_own == 0:
                danger += 0.5
        danger += 1.5 * max(len(powers) - spade_share, 0) if suit == SPADES else 0.0
    return danger
