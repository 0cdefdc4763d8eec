"""Cards, decks, trump orders and who takes a trick (docs/rules.md §1-2, §7).

A card is a two-character code at the API edge (``"AS"``, ``"TD"``, ``"BJ"``) and a small
int inside the engine (``suit * 16 + rank``), so that hands are plain lists of ints and
the hot paths (``legal``, ``act``) never parse strings. Jokers sit in the spade row above
the ace. Identical copies of a card (six players use two decks) share one int.

>>> card_index("AS"), card_code(card_index("AS"))
(60, 'AS')
>>> len(deck_codes(4, "standard")), len(deck_codes(3, "standard")), len(deck_codes(6, "jokers"))
(52, 51, 108)
>>> suit_of("2D", "jokers_deuces"), suit_of("2D", "standard"), suit_of("BJ", "jokers")
('S', 'D', 'S')
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

DeckName = Literal["standard", "jokers", "jokers_deuces"]
DECK_NAMES: tuple[str, ...] = ("standard", "jokers", "jokers_deuces")

RANKS = "23456789TJQKA"
SUITS = "CDHS"
CLUBS, DIAMONDS, HEARTS, SPADES = range(4)
LITTLE_JOKER = SPADES * 16 + 13
BIG_JOKER = SPADES * 16 + 14
CARD_SLOTS = 64

RANK_NAMES = {
    "2": "Two",
    "3": "Three",
    "4": "Four",
    "5": "Five",
    "6": "Six",
    "7": "Seven",
    "8": "Eight",
    "9": "Nine",
    "T": "Ten",
    "J": "Jack",
    "Q": "Queen",
    "K": "King",
    "A": "Ace",
}
SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
SUIT_SINGULAR = {"C": "club", "D": "diamond", "H": "heart", "S": "spade"}

CODES: list[str] = [""] * CARD_SLOTS
INDEX: dict[str, int] = {}
for _suit, _suit_char in enumerate(SUITS):
    for _rank, _rank_char in enumerate(RANKS):
        CODES[_suit * 16 + _rank] = _rank_char + _suit_char
CODES[LITTLE_JOKER] = "LJ"
CODES[BIG_JOKER] = "BJ"
for _index, _code in enumerate(CODES):
    if _code:
        INDEX[_code] = _index


def card_index(code: str) -> int:
    """The engine's int for a card code; ValueError for anything else.

    >>> card_index("2C"), card_index("BJ")
    (0, 62)
    >>> card_index("1X")
    Traceback (most recent call last):
    ...
    ValueError: not a card: '1X'
    """
    try:
        return INDEX[code]
    except (KeyError, TypeError):
        raise ValueError(f"not a card: {code!r}") from None


def card_code(index: int) -> str:
    """The two-character code of an engine card int."""
    return CODES[index]


def card_name(code: str) -> str:
    """A card's name in words, for messages and accessible labels.

    >>> card_name("QS"), card_name("BJ")
    ('Queen of spades', 'Big joker')
    """
    if code == "BJ":
        return "Big joker"
    if code == "LJ":
        return "Little joker"
    return f"{RANK_NAMES[code[0]]} of {SUIT_NAMES[code[1]]}"


def _one_deck(deck: str, players: int) -> list[str]:
    codes = [r + s for s in SUITS for r in RANKS]
    if deck == "standard":
        return [c for c in codes if c != "2C"] if players in (3, 6) else codes
    jokers = [*codes, "LJ", "BJ"]
    if players in (3, 6):
        return jokers
    removed = {"2C", "2D"} if deck == "jokers" else {"2C", "2H"}
    return [c for c in jokers if c not in removed]


def deck_codes(players: int, deck: str) -> list[str]:
    """Every card of the deck for this table, in a fixed order (docs/rules.md §2).

    Six players use two copies of the three-player deck.

    >>> sorted(set(deck_codes(4, "standard")) - set(deck_codes(4, "jokers")))
    ['2C', '2D']
    >>> sorted(set(deck_codes(4, "jokers")) ^ set(deck_codes(4, "jokers_deuces")))
    ['2D', '2H']
    """
    if deck not in DECK_NAMES:
        raise ValueError(f"unknown deck: {deck!r}")
    cards = _one_deck(deck, players)
    return cards + cards if players == 6 else cards


def hand_size(players: int, deck: str) -> int:
    """Cards each player holds when play starts.

    >>> [hand_size(4, "jokers"), hand_size(3, "standard"), hand_size(2, "jokers")]
    [13, 17, 13]
    >>> hand_size(6, "jokers")
    18
    """
    if players == 2:
        return 13
    return len(deck_codes(players, deck)) // players


def _win_key(order: CardOrder, card: int, led: int) -> int:
    suit = order.suit[card]
    if suit == SPADES:
        return 100 + order.power[card]
    if suit == led:
        return order.power[card]
    return -1


class CardOrder:
    """How cards compare under one deck: effective suit and power of every card int.

    ``suit[c]`` is the suit a card counts as for following, leading and breaking spades
    (jokers, and 2D under ``jokers_deuces``, are spades); ``code_suit`` the same by card
    code. ``power[c]`` orders cards of one
    suit; trumps follow docs/rules.md §2: ``jokers``: BJ > LJ > AS > ... > 2S;
    ``jokers_deuces``: BJ > LJ > 2D > 2S > AS > ... > 3S.
    """

    __slots__ = ("code_suit", "deck", "natural", "power", "sort_key", "suit", "win_key")

    def __init__(self, deck: str) -> None:
        self.deck = deck
        self.suit = [index // 16 for index in range(CARD_SLOTS)]
        self.power = [index % 16 for index in range(CARD_SLOTS)]
        if deck == "jokers_deuces":
            two_spades, two_diamonds = SPADES * 16, DIAMONDS * 16
            for rank in range(1, 13):
                self.power[SPADES * 16 + rank] = rank
            self.power[two_spades] = 13
            self.power[two_diamonds] = 14
            self.suit[two_diamonds] = SPADES
            self.power[LITTLE_JOKER] = 15
            self.power[BIG_JOKER] = 16
        self.code_suit = {code: self.suit[index] for code, index in INDEX.items()}
        self.sort_key = [self.suit[i] * 32 + self.power[i] for i in range(CARD_SLOTS)]
        # Whether sorting the ints themselves gives the order of sort_key (all decks but
        # jokers_deuces): then sorting a hand needs no key function.
        self.natural = self.sort_key == sorted(self.sort_key)
        # win_key[led][card]: how strongly a card bids for a trick whose led suit is
        # ``led`` (-1: cannot win), so that judging a trick is one table look-up per card.
        self.win_key = [
            [_win_key(self, card, led) for card in range(CARD_SLOTS)] for led in range(4)
        ]

    def is_trump(self, card: int) -> bool:
        """Whether the card counts as a spade."""
        return self.suit[card] == SPADES

    def sorted_codes(self, cards: Iterable[int]) -> list[str]:
        """Codes sorted by suit (clubs, diamonds, hearts, spades) then rank, low first."""
        if self.natural:
            return [CODES[c] for c in sorted(cards)]
        return [CODES[c] for c in sorted(cards, key=self.sort_key.__getitem__)]


_ORDERS = {name: CardOrder(name) for name in DECK_NAMES}


def card_order(deck: str) -> CardOrder:
    """The shared :class:`CardOrder` of a deck name."""
    return _ORDERS[deck]


def suit_of(code: str, deck: str = "standard") -> str:
    """The suit letter a card counts as under this deck (jokers are spades)."""
    return SUITS[_ORDERS[deck].suit[card_index(code)]]


# A finished trick, ``(seat, card)`` in play order, and its taker.
Taken = tuple[list[tuple[int, int]], int]


def counted_led(trick: Sequence[tuple[int, int]], suit: Sequence[int], led: int) -> int:
    """The suit that counts as led to a trick of ``(seat, card)`` when ``led`` is named
    (clubs on a ``lowest_club`` first trick): ``led`` if some card of it or a spade was
    played, else the first card's suit (-1 for ``led``: the first card's suit)."""
    if led >= 0 and any(suit[card] in (led, SPADES) for _, card in trick):
        return led
    return suit[trick[0][1]]


def taking(
    trick: Sequence[tuple[int, int]], keys: Sequence[int], later_wins: bool
) -> tuple[int, int]:
    """``(seat, win key)`` of the play taking a trick of ``(seat, card)`` so far (key -1:
    nothing can win yet). The one rule of who takes a trick (docs/rules.md §7), used by
    the game, :func:`trick_winner` and the bots' look-ahead.

    ``keys`` is ``CardOrder.win_key[led]``: the highest spade, else the highest card of
    the led suit. Between identical copies the later one takes it when ``later_wins``.
    """
    winner, best = trick[0][0], -1
    for player, card in trick:
        key = keys[card]
        if key > best or (later_wins and key == best and key >= 0):
            winner, best = player, key
    return winner, best


def trick_winner(
    cards: list[str],
    deck: str = "standard",
    duplicate_later_wins: bool = True,
    led_suit: str | None = None,
) -> int:
    """Index in ``cards`` (in play order) of the card that wins the trick (docs/rules.md §7).

    The highest spade wins, else the highest card of the led suit (the first card's suit
    unless ``led_suit`` is given, as on a ``lowest_club`` first trick). Between identical
    copies the later one wins when ``duplicate_later_wins``. If no card is a spade or of
    the led suit (only possible on a ``lowest_club`` first trick without clubs), the
    first card's suit counts as led.

    >>> trick_winner(["KH", "AH", "2S", "QH"])
    2
    >>> trick_winner(["AS", "AS"]), trick_winner(["AS", "AS"], duplicate_later_wins=False)
    (1, 0)
    >>> trick_winner(["AS", "2D"], "jokers_deuces")
    1
    """
    order = _ORDERS[deck]
    trick = [(position, card_index(code)) for position, code in enumerate(cards)]
    led = counted_led(trick, order.suit, SUITS.index(led_suit) if led_suit else -1)
    return taking(trick, order.win_key[led], duplicate_later_wins)[0]
