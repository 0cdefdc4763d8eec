"""axe-core (the WCAG 2.1 A and AA rules, and axe's best practices) on every screen a
player meets: the lobby, the host's rule builder before the game, the table while
bidding and while playing with the host's controls (also in high contrast and with four
colours), the hand summary, the hand review, the Keys panel, and the phone layout with
its side panels open; no violation whose impact is serious or critical."""

from __future__ import annotations

import time

import pytest
from axe_playwright_python.sync_playwright import Axe

from tests.browser.conftest import PHONE
from tests.browser.playing import act_once

pytestmark = pytest.mark.browser

SERIOUS = {"serious", "critical"}


def serious_violations(page) -> list[str]:
    """axe's serious and critical findings on the page as it is now, one line each."""
    page.wait_for_timeout(400)  # panels rise and cards arrive (at most 300 ms)
    results = Axe().run(page, options={"resultTypes": ["violations"]})
    return [
        f"{violation['id']} ({violation['impact']}): "
        + ", ".join(str(node["target"]) for node in violation["nodes"][:5])
        for violation in results.response["violations"]
        if violation["impact"] in SERIOUS
    ]


def test_no_serious_violation_on_any_screen(open_page) -> None:
    found: dict[str, list[str]] = {}
    lobby = open_page("/")
    lobby.locator("#preset-list input").first.wait_for()
    found["lobby"] = serious_violations(lobby)

    # The host creates a friends' table from the lobby: the host's controls show.
    lobby.get_by_role("button", name="Play with friends").click()
    page = lobby
    page.locator("#host-panel").wait_for()
    page.locator("#player-name").fill("Ada")
    page.locator('.seat[data-seat="0"] button.sit').click()
    page.locator('.seat[data-seat="0"] .badge.you').wait_for()
    # Before the game, the host opens the rule builder in the panel, every rule shown.
    panel = page.locator("#host-panel")
    panel.get_by_role("button", name="Change the rules…").click()
    panel.locator("#host-house-rules > summary").click()
    panel.locator("#host-rules-live-summary", has_text="Standard").wait_for()
    found["host panel, rule builder"] = serious_violations(page)
    panel.get_by_role("button", name="Cancel").click()
    for seat in (1, 2, 3):
        page.locator(f'.seat[data-seat="{seat}"] button.add-bot').click()
        page.locator(f'.seat[data-seat="{seat}"] .badge.bot').wait_for()
    page.locator("#action-panel .bidding").wait_for()
    found["bidding, host panel"] = serious_violations(page)

    page.locator("#action-panel button.bid:not(.nil)").first.click()
    page.locator("#hand .card.playable").first.wait_for()
    found["play"] = serious_violations(page)
    for setting in ("High contrast", "Four-colour deck"):
        page.get_by_label(setting).check()
        found[f"play, {setting}"] = serious_violations(page)
        page.get_by_label(setting).uncheck()
    page.keyboard.press("?")
    page.locator("#keys-dialog").wait_for()
    found["keys panel"] = serious_violations(page)
    page.keyboard.press("Escape")
    # A long evening's chat scrolls inside its log: the keyboard must reach it.
    page.evaluate(
        """() => { const log = document.querySelector('#chat-log');
        for (let i = 0; i < 40; i++) {
          const line = document.createElement('li'); line.textContent = `line ${i}`;
          log.append(line);
        } }"""
    )
    assert page.evaluate(
        "(() => { const log = document.querySelector('#chat-log');"
        " return log.scrollHeight > log.clientHeight; })()"
    ), "forty lines should scroll the chat log"
    found["long chat"] = serious_violations(page)

    deadline = time.monotonic() + 120
    while not page.locator(".hand-summary").count():
        assert time.monotonic() < deadline, "the hand did not end"
        if not act_once(page, 1):
            page.wait_for_timeout(50)
    found["hand summary"] = serious_violations(page)

    page.locator('.scorepad .replay[data-hand="1"]').click()
    page.locator("#review-dialog").wait_for()
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    found["hand review"] = serious_violations(page)
    page.keyboard.press("Escape")

    page.set_viewport_size(PHONE)
    found["phone"] = serious_violations(page)
    page.locator("#panels-toggle").click()
    page.locator("#scorepad td.score").first.wait_for()
    found["phone, side panels"] = serious_violations(page)
    assert found == {screen: [] for screen in found}


def test_no_serious_violation_on_the_club_page(open_page) -> None:
    """The club page as a host who joined: links, start form, host controls, the
    leaderboard and a member's open figures; and on a phone."""
    page = open_page("/")
    made = page.request.post("/api/clubs", data={"name": "Axe club"}).json()
    page.goto(f"/c/{made['id']}#invite={made['invite']}&host={made['host_token']}")
    page.locator("#member-name").fill("Ada")
    page.locator("#join").click()
    page.locator("#leaderboard tbody tr").first.wait_for()
    page.locator("#members details summary").first.click()
    found = {"club": serious_violations(page)}
    page.set_viewport_size(PHONE)
    found["club, phone"] = serious_violations(page)
    assert not any(found.values()), found
