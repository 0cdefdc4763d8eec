"""The socket goes down (server restart): the page says "Reconnecting…", reconnects by
itself with its seat token and last version, and shows the current state without a
reload, within 1.5 s of the server's return however long it was away. A seat whose
player has gone is marked disconnected (dot + text) for others."""

from __future__ import annotations

import time

import pytest

from bench.harness.server import LiveServer
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


# Seconds the server stays away, then the most the page may take to be back after it.
AWAY_SECONDS = (1, 4, 9)
BACK_WITHIN_SECONDS = 1.5


def test_the_page_is_back_within_a_second_and_a_half_of_the_servers_return(
    browser, tmp_path
) -> None:
    """However long the server was away, the page tries again often enough to be back
    (banner gone, its seat's hand on screen) soon after the server answers again."""
    database = f"sqlite+aiosqlite:///{tmp_path / 'back.db'}"
    with LiveServer(database, env={"SPADES_BOT_BUDGET_MS": "20"}) as live:
        context = browser.new_context(base_url=live.url, bypass_csp=True)
        try:
            page = context.new_page()
            table = page.request.post("/api/tables", data={"name": "Back soon"}).json()
            page.goto(table["invite_url"])
            sit(page, 0, "Bea")
            for seat in (1, 2, 3):
                page.locator(f'.seat[data-seat="{seat}"] button.add-bot').click()
            page.wait_for_function("document.querySelectorAll('#hand .face').length === 13")
            before = hand_of(page)
            banner = page.locator("#connection-banner")
            taken = []
            for away in AWAY_SECONDS:
                live.stop()
                banner.wait_for()
                time.sleep(away)
                live.start()  # returns once /healthz answers
                back = time.monotonic()
                banner.wait_for(state="hidden", timeout=30_000)
                taken.append(time.monotonic() - back)
                assert hand_of(page) == before
            print(
                f"\nback after the server's return (away {AWAY_SECONDS} s): "
                + ", ".join(f"{seconds:.2f} s" for seconds in taken)
            )
            assert max(taken) < BACK_WITHIN_SECONDS, taken
        finally:
            context.close()
