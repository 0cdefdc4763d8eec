"""The socket goes down (server restart): the page says "Reconnecting…", reconnects by
itself with its seat token and last version, and shows the current state without a
reload. A seat whose player has gone is marked disconnected (dot + text) for others."""

from __future__ import annotations

import pytest

from tests.browser.conftest import PHONE, screenshot
from tests.browser.playing import act_once, hand_of, sit

pytestmark = pytest.mark.browser


def test_restart_shows_reconnecting_then_the_same_seat_and_hand(open_page, server) -> None:
    lobby = open_page("/")
    table = lobby.request.post("/api/tables", data={"name": "Restart table"}).json()
    page = open_page(table["invite_url"])
    sit(page, 0, "Rae")
    friend = open_page(table["invite_url"])
    sit(friend, 2, "Flo")
    for seat in (1, 3):
        page.locator(f'.seat[data-seat="{seat}"] button.add-bot').click()
    page.wait_for_function("document.querySelectorAll('#hand .face').length === 13")
    before = hand_of(page)

    friend_context = friend.context
    friend.close()
    seat_two = page.locator('.seat[data-seat="2"] .presence.offline')
    seat_two.wait_for()
    assert "disconnected" in seat_two.text_content()

    server.stop()
    banner = page.locator("#connection-banner")
    banner.wait_for()
    assert "Reconnecting" in banner.text_content()
    server.start()
    banner.wait_for(state="hidden", timeout=20_000)
    page.locator('.seat[data-seat="0"] .badge.you').wait_for()
    page.wait_for_function("document.querySelectorAll('#hand .face').length === 13")
    assert hand_of(page) == before
    # The friend comes back (token kept in localStorage) and both play on.
    friend = friend_context.new_page()
    friend.goto(table["url"])
    friend.locator('.seat[data-seat="2"] .badge.you').wait_for()
    seat_two.wait_for(state="detached")
    for _ in range(200):
        if act_once(page, 1):
            break
        if not act_once(friend, 1):
            page.wait_for_timeout(50)
    else:
        pytest.fail("the page offered no action after reconnecting")


def test_table_fits_a_phone_with_cards_big_enough_to_tap(open_page) -> None:
    lobby = open_page("/")
    table = lobby.request.post("/api/tables", data={"name": "Phone table"}).json()
    page = open_page(table["invite_url"], viewport=PHONE)
    sit(page, 0, "Pip")
    for seat in (1, 2, 3):
        page.locator(f'.seat[data-seat="{seat}"] button.add-bot').click()
    page.wait_for_function("document.querySelectorAll('#hand .face').length === 13")
    widths = page.eval_on_selector_all(
        "#hand .card", "cards => cards.map(c => c.getBoundingClientRect().width)"
    )
    assert min(widths) >= 44
    scroll_width = page.evaluate("document.documentElement.scrollWidth")
    assert scroll_width <= PHONE["width"], f"the table scrolls sideways ({scroll_width} px)"
    names = page.eval_on_selector_all("#hand .card", "cards => cards.map(c => c.ariaLabel)")
    assert all(" of " in name or "joker" in name for name in names)
    screenshot(page, "table-phone")
