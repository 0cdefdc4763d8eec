"""The lobby: an open (listed) table created from a preset with house rules, then its
links; a refused table; the lobby on a phone."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import PHONE, screenshot

pytestmark = pytest.mark.browser


def test_lobby_creates_a_table_with_house_rules(open_page) -> None:
    page = open_page("/")
    page.get_by_role("radio", name=re.compile("Standard")).check()
    page.locator("#house-rules > summary").click()
    page.locator("#rule-bags").uncheck()
    page.locator("#rule-deck").select_option("jokers")
    page.locator("#rule-target_score").fill("300")
    page.locator("#rule-all_tricks").select_option("bonus")
    page.locator("#table-name").fill("Friday <b>spades</b>")
    summary = "Standard · jokers · to 300 · no bags · Boston +200"
    page.locator("#rules-live-summary", has_text=summary).wait_for()
    screenshot(page, "lobby")

    page.get_by_role("button", name="Open table").click()
    page.wait_for_url(re.compile(r"/t/[^/?]+$"))
    table_id = page.url.rsplit("/", 1)[1].split("?")[0]

    watch = page.locator("#watch-link")
    assert watch.input_value().endswith(f"/t/{table_id}")
    assert page.get_by_role("button", name="Copy: Watch").is_visible()
    assert f"/t/{table_id}#invite=" in page.locator("#invite-link").input_value()
    assert page.evaluate(f"localStorage.getItem('spades.host.{table_id}')")
    # The name is shown as text, never as markup.
    page.wait_for_function("document.getElementById('table-name').textContent.includes('spades')")
    assert page.locator("#table-name").text_content() == "Friday <b>spades</b>"
    assert page.locator("#table-name b").count() == 0

    rules = page.request.get(f"/api/tables/{table_id}").json()["rules"]
    assert rules["bags"] is False
    assert rules["deck"] == "jokers"
    assert rules["target_score"] == 300
    assert rules["all_tricks"] == "bonus"
    assert page.locator("#rules-summary").text_content() == summary

    lobby = open_page("/")
    row = lobby.locator("#open-tables li", has_text="Friday <b>spades</b>")
    row.wait_for()
    assert row.locator(".rules-summary").text_content() == summary
    assert row.get_by_role("link", name="Join").get_attribute("href") == f"/t/{table_id}"


def test_lobby_refuses_inconsistent_rules_with_the_reason(open_page) -> None:
    page = open_page("/")
    page.locator("#house-rules > summary").click()
    page.locator("#rule-target_score").fill("0")
    # Said next to the rules as soon as they are changed, and again when the table is asked for.
    error = page.locator("#rules-error")
    page.wait_for_function("document.getElementById('rules-error').textContent.length > 0")
    assert "target_score" in error.text_content()
    page.evaluate("document.getElementById('rules-error').textContent = ''")
    page.get_by_role("button", name="Play with friends").click()
    page.wait_for_function("document.getElementById('rules-error').textContent.length > 0")
    assert "target_score" in error.text_content()
    assert page.url.endswith("/")


def test_lobby_fits_a_phone(open_page) -> None:
    page = open_page("/", viewport=PHONE)
    page.locator("#house-rules > summary").click()
    page.locator("#rule-deck").wait_for()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the lobby scrolls sideways at 360 px ({width} px wide)"
    screenshot(page, "lobby-phone")
