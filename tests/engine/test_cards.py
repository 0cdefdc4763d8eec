"""Card codes, decks by variant and trump orders (docs/rules.md §1-2)."""

from collections import Counter

import pytest

from server.engine import card_code, card_index, card_name, deck_codes, suit_of, trick_winner

ALL_52 = {rank + suit for suit in "CDHS" for rank in "23456789TJQKA"}


def test_card_codes_are_rank_then_suit():
    assert {card_code(card_index(code)) for code in ALL_52 | {"BJ", "LJ"}} == ALL_52 | {"BJ", "LJ"}
    for bad in ("1S", "AX", "as", "", "10H", None, 5):
        with pytest.raises(ValueError):
            card_index(bad)
    assert card_name("TD") == "Ten of diamonds"


@pytest.mark.parametrize(
    ("players", "deck", "added", "removed", "copies"),
    [
        (4, "standard", set(), set(), 1),
        (4, "jokers", {"BJ", "LJ"}, {"2C", "2D"}, 1),
        (4, "jokers_deuces", {"BJ", "LJ"}, {"2C", "2H"}, 1),
        (3, "standard", set(), {"2C"}, 1),
        (3, "jokers", {"BJ", "LJ"}, set(), 1),
        (3, "jokers_deuces", {"BJ", "LJ"}, set(), 1),
        (2, "standard", set(), set(), 1),
        (2, "jokers", {"BJ", "LJ"}, {"2C", "2D"}, 1),
        (6, "standard", set(), {"2C"}, 2),
        (6, "jokers", {"BJ", "LJ"}, set(), 2),
        (6, "jokers_deuces", {"BJ", "LJ"}, set(), 2),
    ],
)
def test_decks_by_variant(players, deck, added, removed, copies):
    expected = Counter({code: copies for code in (ALL_52 | added) - removed})
    assert Counter(deck_codes(players, deck)) == expected


def test_unknown_deck_is_refused():
    with pytest.raises(ValueError):
        deck_codes(4, "tarot")


def test_standard_trump_order_ace_high_deuce_low():
    assert trick_winner(["2S", "AH"]) == 0
    assert trick_winner(["KS", "AS", "2S"]) == 1


def test_spades_always_trump_and_suits_otherwise_equal():
    assert trick_winner(["AD", "2S", "AH"]) == 1
    assert trick_winner(["3D", "AH", "AC"]) == 0


def test_jokers_belong_to_the_spade_suit():
    assert suit_of("BJ", "jokers") == suit_of("LJ", "jokers_deuces") == "S"
    assert suit_of("2D", "jokers_deuces") == "S" and suit_of("2D", "jokers") == "D"
    assert trick_winner(["AS", "LJ", "BJ"], "jokers") == 2
