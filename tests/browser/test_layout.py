"""The whole table on one screen at every common size: the hand, the current trick, the
seat to act and the bid buttons all inside the window while bidding and while playing,
nothing wider than the window and nothing to scroll. A picture of each size goes to
docs/screenshots/ (`SPADES_DOC_SCREENSHOTS=1`)."""

from __future__ import annotations

import pytest

from tests.browser.conftest import screenshot
from tests.browser.playing import seat_with_bots

pytestmark = pytest.mark.browser

SIZES = [(1280, 800), (1366, 768), (1920, 1080), (360, 740), (740, 360)]

# What lies outside the window now: every card of the hand, the trick, the seat plate
# of the seat to act, the turn line and, while bidding, every bid button.
OUTSIDE = """() => {
  const outside = (node) => {
    const box = node.getBoundingClientRect();
    return box.width === 0 || box.left < 0 || box.top < 0
      || box.right > innerWidth || box.bottom > innerHeight;
  };
  const wanted = {
    hand: [...document.querySelectorAll('#hand .card')],
    trick: [document.getElementById('trick')],
    seatToAct: [...document.querySelectorAll('.seat.turn')],
    turnLine: [document.getElementById('turn-label')],
    bids: [...document.querySelectorAll('#action-panel button.bid')],
  };
  const found = Object.fromEntries(
    Object.entries(wanted).map(([name, nodes]) => [name, nodes.length]));
  const named = (node) => node.dataset.card ?? node.dataset.bid ?? node.id;
  const out = Object.entries(wanted).flatMap(([name, nodes]) =>
    nodes.filter(outside).map((node) => `${name}: ${named(node)}`));
  return {
    found, out,
    wider: document.documentElement.scrollWidth - innerWidth,
    taller: document.documentElement.scrollHeight - innerHeight,
  };
}"""


def check_fit(page, phase: str) -> None:
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(150)  # layout settles, the trick's animation ends
        fit = page.evaluate(OUTSIDE)
        size = f"{width}x{height} while {phase}"
        assert fit["found"]["hand"] == 13 and fit["found"]["trick"] == 1, (size, fit)
        assert fit["found"]["seatToAct"] == 1, (size, fit)
        if phase == "bidding":
            assert fit["found"]["bids"] >= 13, (size, fit)
        assert fit["out"] == [], (size, fit)
        assert fit["wider"] <= 0, f"{size}: the page is {fit['wider']} px wider than the window"
        assert fit["taller"] <= 0, f"{size}: the page is {fit['taller']} px taller than the window"
        name = f"size-{width}x{height}" + ("" if phase == "bidding" else "-play")
        screenshot(page, name, full_page=False, doc=True)


def test_hand_trick_turn_and_bids_fit_every_screen_while_bidding_and_playing(open_page) -> None:
    page = seat_with_bots(open_page, "standard", 4, "Ann")
    page.locator("#action-panel .bidding").wait_for()
    check_fit(page, "bidding")

    page.set_viewport_size({"width": 1280, "height": 800})
    page.locator("#action-panel button.bid:not(.nil)").first.click()
    page.locator("#hand .card.playable").first.wait_for()
    check_fit(page, "playing")


def test_side_panels_fold_away_on_a_phone_behind_a_toggle(open_page) -> None:
    page = seat_with_bots(open_page, "standard", 4, "Pia")
    page.set_viewport_size({"width": 360, "height": 740})
    toggle = page.locator("#panels-toggle")
    assert page.locator("#scorepad").is_hidden() and page.locator("#chat").is_hidden()
    toggle.click()
    page.locator("#scorepad td.score").first.wait_for()
    assert page.locator("#chat-text").is_visible()
    assert toggle.get_attribute("aria-expanded") == "true"
    screenshot(page, "size-360x740-panels", full_page=False, doc=True)
    page.keyboard.press("Escape")
    page.locator("#scorepad").wait_for(state="hidden")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    # A laptop shows them beside the table, no toggle needed.
    page.set_viewport_size({"width": 1280, "height": 800})
    assert page.locator("#scorepad").is_visible() and toggle.is_hidden()
