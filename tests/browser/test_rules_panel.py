"""The rules panel at the table names the preset and every rule in the rule builder's own
words (one source: the server's catalogue), grouped as the builder groups them, the
house rules marked; the header shows the server's one-line summary."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

# Each rule as the lobby's builder offers it: label, and the words of every choice.
LOBBY_WORDS = """() => Object.fromEntries([...document.querySelectorAll('.house-rule')].map(
(rule) => {
  const input = rule.querySelector('[data-field]');
  const choices = [...rule.querySelectorAll('[data-field] > option')]
    .map((option) => [option.value, option.text]);
  return [input.dataset.field, {
    label: rule.querySelector('label, .rule-label').textContent, choices, hidden: rule.hidden,
  }];
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
    rules = {"preset": "standard", "deck": "jokers", "bags": False, "target_score": 300}
    table = lobby.request.post(
        "/api/tables", data={"name": "House rules", "listed": True, "rules": rules}
    ).json()
    page = open_page(table["url"])
    page.locator("#rules-title", has_text="Standard").wait_for()
    assert page.locator("#rules-title").text_content() == "Rules: Standard with 3 house rules"
    assert page.locator("#rules-summary").text_content() == "Standard · jokers · to 300 · no bags"
    page.locator("#rules-title").click()
    lines = {line["label"]: line for line in page.evaluate(PANEL_WORDS)}
    shown = {rule["label"]: rule for rule in offered.values() if not rule["hidden"]}
    # The builder hides what does not apply (bag counts once bags are off); so does the panel.
    assert set(lines) == set(shown) - {"Bags before the penalty", "Bag penalty"}
    jokers = dict(shown["Deck"]["choices"])["jokers"]
    assert lines["Deck"] == {"label": "Deck", "words": jokers, "house": True}
    assert lines["Bags (sandbagging)"] == {
        "label": "Bags (sandbagging)",
        "words": "No",
        "house": True,
    }
    assert lines["Play to"]["words"] == "300" and lines["Play to"]["house"]
    assert lines["Nil bids"] == {"label": "Nil bids", "words": "Yes", "house": False}
    lead = dict(shown["First lead"]["choices"])["left_of_dealer"]
    assert lines["First lead"]["words"] == lead
    groups = page.locator("#rules-body .rules-group h3").all_text_contents()
    assert groups[:2] == ["Bidding", "Nil"] and "End of game" in groups
    # Each rule's example opens on demand, named for the screen reader by its rule.
    example = page.locator("#rules-body .rules-list > div", has_text="Play to").locator("details")
    example.get_by_text("Example").click()
    assert "To 300" in example.text_content()
    worth = page.locator("#rules-body .rules-worth").text_content()
    assert "Nil: take no tricks at all for +100" in worth and "No bag penalty." in worth
    again = page.locator("#rules-body a.rules-again").get_attribute("href")
    assert again == table["rules_link"] and again.startswith("/?rules=")
