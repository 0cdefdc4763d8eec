"""The hint button: shown on your turn at a table with hints on (friends' tables by
default), it lights the expert bot's choice, a bid or a legal card, and never acts;
a listed table has no hints unless its host said so."""

from __future__ import annotations

import pytest

from tests.browser.playing import hand_of, seat_with_bots, sit

pytestmark = pytest.mark.browser


def test_a_hint_lights_a_legal_bid_then_a_legal_card_and_plays_nothing(open_page) -> None:
    page = seat_with_bots(open_page, "standard", 4, "Hope")
    page.locator("#action-panel .bidding").wait_for()
    page.locator("#hint-button").click()
    lit = page.locator("#action-panel button.bid.hinted")
    lit.wait_for()
    assert lit.count() == 1
    page.wait_for_timeout(300)
    assert page.locator("#action-panel .bidding").count() == 1, "the hint bid for the player"
    assert page.locator('.seat[data-seat="0"] .tricks').text_content() == "no bid"

    page.locator("#action-panel button.bid:not(.nil)").first.click()
    page.locator("#hand .card.playable").first.wait_for()
    hand = hand_of(page)
    page.locator("#hint-button").click()
    card = page.locator("#hand .card.hinted")
    card.wait_for()
    assert card.count() == 1
    assert "playable" in card.get_attribute("class"), "the hint lit a card that may not be played"
    assert "the hint's choice" in card.get_attribute("aria-label")
    page.wait_for_timeout(500)
    assert hand_of(page) == hand, "the hint played a card"
    assert page.locator("#hand .card.playable").count() > 0, "the turn passed on"


def test_no_hint_button_at_a_listed_table_by_default(open_page) -> None:
    lobby = open_page("/")
    table = lobby.request.post("/api/tables", data={"name": "Open", "listed": True}).json()
    assert table["hints"] is False
    page = open_page(table["url"])
    sit(page, 0, "Lee")
    for seat in (1, 2, 3):
        page.locator(f'.seat[data-seat="{seat}"] button.add-bot').click()
    page.locator("#action-panel .bidding").wait_for()
    assert page.locator("#hint-button").is_hidden()
