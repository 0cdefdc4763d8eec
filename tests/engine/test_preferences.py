"""The card preferences the basic level and the play-outs share (``preferences.py``): their
orders, and both policies choosing the same card where a preference decides."""

from __future__ import annotations

import random
from typing import Any

import pytest

from server.engine import Rules, deck_codes
from server.engine.bots.basic import choose_play, passed_cards
from server.engine.bots.knowledge import seat_state
from server.engine.bots.preferences import preferences
from server.engine.bots.rollout import Rollout, suit_tops
from server.engine.cards import card_code, card_index, card_order
from tests.engine.test_bots import NIL_BIDS, play_view

STANDARD = Rules.preset("standard")
ORDER = card_order("standard")
PREFER = preferences(ORDER)


def ranked(values: tuple[int, ...], codes: list[str]) -> list[str]:
    """``codes`` from the most preferred to the least."""
    return sorted(codes, key=lambda code: -values[card_index(code)])


def test_a_nil_bidder_fears_high_cards_and_spades_most() -> None:
    assert ranked(PREFER.danger, ["2C", "AH", "KS", "9S", "QD"]) == ["KS", "AH", "9S", "QD", "2C"]
    jokers = preferences(card_order("jokers"))
    assert max(deck_codes(4, "jokers"), key=lambda code: jokers.danger[card_index(code)]) == "BJ"


def test_the_card_shed_under_a_trick_is_the_highest_side_card_and_spades_are_kept() -> None:
    assert ranked(PREFER.shed, ["2S", "AS", "3H", "KD"]) == ["KD", "3H", "AS", "2S"]


def test_the_weakest_card_is_a_low_side_card_before_any_spade() -> None:
    assert min(["2S", "9H", "4D", "AS"], key=lambda code: PREFER.keep[card_index(code)]) == "4D"


def test_a_nil_bidder_passes_its_most_dangerous_cards() -> None:
    hand = [card_index(code) for code in ["2C", "AH", "KS", "9S", "QD", "3D"]]
    passed = passed_cards(ORDER, hand, nil=True, count=2)
    assert sorted(card_code(c) for c in passed) == ["AH", "KS"]


def rollout_choice(view: dict[str, Any]) -> str:
    """The play-outs' policy's card for the seat of ``view``, the seat's unseen cards
    standing for the other hands."""
    state = seat_state(STANDARD, view, random.Random(0))
    policy = Rollout(state, view)
    hand = [card_index(code) for code in view["hand"]]
    tops = suit_tops(state.order, [hand, list(state.unseen.elements())])
    card = policy.choose(
        state.seat, hand, list(state.trick), list(state.tricks_won), policy.broken, tops
    )
    return card_code(card)


@pytest.mark.parametrize(
    ("hand", "trick", "bids", "tricks_won", "seat", "card"),
    [
        # A nil bidder ducks with its most dangerous losing card.
        (["AH", "QH", "3H", "5C"], [(0, "KH")], NIL_BIDS, [2, 0, 3, 4], 1, "QH"),
        # Void in the suit led: of the cards that lose, the highest side card goes.
        (["AD", "QS", "4C"], [(0, "KH")], NIL_BIDS, [2, 0, 3, 4], 1, "AD"),
        # The contract made and no set in sight: shed the highest side card under the
        # winner, keep the spade.
        (["QD", "5S", "4C"], [(3, "KH")], [3, 2, 3, 2], [5, 4, 1, 0], 0, "QD"),
    ],
)
def test_the_basic_level_and_the_play_outs_choose_the_same_card(
    hand: list[str],
    trick: list[tuple[int, str]],
    bids: list[Any],
    tricks_won: list[int],
    seat: int,
    card: str,
) -> None:
    led = trick[0][1][-1]
    legal = [code for code in hand if code[-1] == led] or hand
    view = play_view(
        hand=hand, legal=legal, trick=trick, bids=bids, tricks_won=tricks_won, seat=seat
    )
    basic = choose_play(STANDARD, view, view["legal"], random.Random(0))["card"]  # type: ignore[arg-type]
    assert basic == rollout_choice(view) == card
