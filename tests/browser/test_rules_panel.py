"""The rules panel at the table names the preset and every rule in the lobby's own
words (one source: web/rules.js), the house rules marked; the header names the preset."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

# Each house rule as the lobby offers it: label, and the words of every choice.
LOBBY_WORDS = """() => Object.fromEntries([...document.querySelectorAll('.house-rule')].map(
(rule) => {
  const input = rule.querySelector('[data-field]');
  const choices = [...rule.querySelectorAll('option')].map((option) => [option.value, option.text]);
  return [input.dataset.field, { label: rule.querySelector('label').textContent, choices }];
}))"""

PANEL_WORDS = """() => [...document.querySelectorAll('#rules-body .rules-list > div')].map(
(line) => ({
  label: line.querySelector('dt').textContent,
  words: line.querySelector('dd').firstChild.textContent,
  house: line.classList.contains('house'),
}))"""


def test_the_rules_panel_names_the_preset_and_every_rule_in_the_lobbys_words(open_page) -> None:
    lobby = open_page("/")
    lobby.locator(".house-rule").first.wait_for(state="attached")
    offered = lobby.evaluate(LOBBY_WORDS)
    table = lobby.request.post(
        "/api/tables",
        data={
            "name": "House rules",
            "listed": True,
            "rules": {"preset": "standard", "deck": "jokers", "bags": False, "target_score": 300},
        },
    ).json()
    page = open_page(table["url"])
    page.locator("#rules-title", has_text="Standard").wait_for()
    assert page.locator("#rules-title").text_content() == "Rules: Standard with 3 house rules"
    assert page.locator("#rules-summary").text_content().startswith("Standard · 4 players")
    page.locator("#rules-title").click()
    lines = {line["label"]: line for line in page.evaluate(PANEL_WORDS)}
    by_label = {rule["label"]: rule for rule in offered.values()}
    assert set(lines) == set(by_label), "the panel and the lobby list different rules"
    jokers = dict(by_label["Deck"]["choices"])["jokers"]
    assert lines["Deck"] == {"label": "Deck", "words": jokers, "house": True}
    assert lines["Bags (sandbagging)"] == {
        "label": "Bags (sandbagging)",
        "words": "No",
        "house": True,
    }
    assert lines["Play to"]["words"] == "300" and lines["Play to"]["house"]
    assert lines["Nil bids"] == {"label": "Nil bids", "words": "Yes", "house": False}
    lead = dict(by_label["First lead"]["choices"])["left_of_dealer"]
    assert lines["First lead"]["words"] == lead
    worth = page.locator("#rules-body .rules-worth").text_content()
    assert "Nil: take no tricks at all for +100" in worth and "No bag penalty." in worth
