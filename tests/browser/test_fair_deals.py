"""Deals anyone can verify, in the page: it adds a seed of its own to the deal by itself,
shows the next deal's commitment, and "Verify the deals" says every finished hand
matched."""

from __future__ import annotations

import re
import time

import pytest

from tests.browser.conftest import screenshot
from tests.browser.playing import act_once, seat_with_bots

pytestmark = pytest.mark.browser


def test_the_page_seeds_the_deal_and_verifies_the_finished_hand(open_page) -> None:
    page = seat_with_bots(open_page, "standard", 4, "Vera")
    table_id = page.url.rsplit("/", 1)[1]
    page.locator(".next-deal .commitment").wait_for()

    # The page's own seed went into hand 1 (sent before the last bot filled the table) or,
    # at the latest, into hand 2.
    deadline = time.monotonic() + 180
    while not page.locator(".scorepad .verify-deals").count():
        assert time.monotonic() < deadline, "the hand did not end"
        if not act_once(page, 0):
            page.wait_for_timeout(50)
    history = page.request.get(f"/api/tables/{table_id}/history").json()["hands"]
    proof = history[0]["fairness"]
    assert len(proof["server_seed"]) == 64
    assert set(proof["client_seeds"]) <= {"0"}  # bots send none; the page a random one
    assert all(len(value) == 32 for value in proof["client_seeds"].values())
    # The page adds a seed to each new commitment by itself: hand 2's has one from seat 0.
    page.wait_for_function(
        "() => document.querySelector('.next-deal') !== null"
        " && !document.querySelector('.next-deal').textContent.includes(' 0 player seeds')"
    )

    page.locator(".scorepad .verify-deals").click()
    dialog = page.locator("#verify-dialog")
    dialog.wait_for()
    verdict = dialog.locator(".verify-verdict")
    verdict.wait_for()
    text = verdict.text_content() or ""
    assert re.fullmatch(r"The deal matched\.|All \d+ deals matched\.", text), text
    assert "did not match" not in (dialog.text_content() or "")
    assert dialog.locator(".verify-hands li").first.text_content().startswith("Hand 1: matched")
    screenshot(page, "fair-deals-verified", full_page=False)

    # Typed seed: shown in the next deal's seeds at once.
    dialog.locator("button", has_text="Close").click()
    page.fill("#own-seed", "my lucky seed")
    page.locator(".seed-form button").click()
    page.locator(".next-deal-panel .seed-form input[placeholder='my lucky seed']").wait_for()
