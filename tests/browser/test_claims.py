"""Claiming the rest in the page: the "Claim the rest" button shows only while the
server offers the claim, is reached and pressed with the keyboard, and is announced;
once pressed every screen shows the cards laid down and the scored hand, and the hand
review marks the claim."""

from __future__ import annotations

import pytest

from tests.browser.hearing import HEAR, heard
from tests.browser.playing import act_once, add_bots, page_story, sit

pytestmark = pytest.mark.browser


def test_a_player_claims_the_rest_and_every_screen_shows_it(open_page) -> None:
    lobby = open_page("/")
    table = lobby.request.post("/api/tables", data={"name": "Claims"}).json()
    spectator = open_page(table["url"], init_script=HEAR)
    player = open_page(table["invite_url"], init_script=HEAR)
    sit(player, 0, "Kay")
    add_bots(player, range(1, 4))
    button = player.locator("#action-panel button.claim-rest")

    # Play on (clicking what the page offers) until the page offers the claim: the
    # button is there exactly while the player may claim.
    for _ in range(2000):
        if button.count():
            break
        if not act_once(player, 1):  # seat 1's way: clicks, not keys
            player.wait_for_timeout(50)
    else:
        raise AssertionError(f"no claim offered: {page_story(player)}")
    assert button.is_visible()
    assert "Every remaining trick is yours" in player.locator("#action-panel").inner_text()
    lines = heard(player)
    assert any(line.startswith("You may claim the rest") for line in lines), lines[-5:]
    assert not spectator.locator("button.claim-rest").count()
    hand = player.eval_on_selector_all(
        "#hand .card.face", "cards => cards.map(c => c.dataset.card)"
    )

    # The keyboard reaches it: focus it and press Enter.
    button.focus()
    assert player.evaluate("document.activeElement.classList.contains('claim-rest')")
    player.keyboard.press("Enter")
    button.wait_for(state="detached")

    for page in (player, spectator):
        laid = page.locator(".claim-laid-down")
        laid.wait_for()
        assert "claimed the last" in laid.inner_text()
        shown = page.eval_on_selector_all(
            ".claim-laid-down .card.face", "cards => cards.map(c => c.dataset.card)"
        )
        assert sorted(shown) == sorted(hand)
        assert "scored" in page.locator(".hand-summary h2").inner_text()
        page.wait_for_function(
            "() => window.heard.some((line) => line.text.includes(' claimed the last '))"
        )
    said = [line for line in heard(spectator) if " claimed the last " in line]
    assert said and said[0].startswith("Kay claimed the last"), said

    # The review of that hand (the last one finished) marks the claim.
    replay = player.locator(".scorepad .replay").last
    replay.wait_for()
    replay.click()
    note = player.locator("#review-dialog .review-claim")
    note.wait_for()
    assert "Kay claimed the last" in note.inner_text()
    shown = player.eval_on_selector_all(
        "#review-dialog .review-claim .card.face", "cards => cards.map(c => c.dataset.card)"
    )
    assert sorted(shown) == sorted(hand)
