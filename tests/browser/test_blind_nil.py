"""Blind nil is asked before the cards are shown; after a blind nil the partners pick
their cards to pass in the hand and send them with one button."""

from __future__ import annotations

import pytest

from tests.browser.conftest import screenshot
from tests.browser.playing import sit

pytestmark = pytest.mark.browser


def test_blind_nil_is_decided_face_down_then_cards_are_passed(open_page) -> None:
    lobby = open_page("/")
    rules = {"preset": "standard", "blind_nil": True, "blind_nil_behind_by": None}
    table = lobby.request.post("/api/tables", data={"name": "Blind", "rules": rules}).json()
    page = open_page(table["invite_url"])
    sit(page, 0, "Bea")
    for seat in (1, 2, 3):
        page.locator(f'.seat[data-seat="{seat}"] button.add-bot').click()

    question = page.locator("#action-panel .blind-nil")
    question.wait_for()
    assert "+200" in question.text_content()
    assert page.locator("#hand .card.back").count() == 13
    assert page.locator("#hand .card.face").count() == 0
    screenshot(page, "blind-nil")
    question.get_by_role("button", name="Bid blind nil").click()

    passing = page.locator("#action-panel .pass")
    passing.wait_for()
    before = page.eval_on_selector_all("#hand .face", "cards => cards.map(c => c.dataset.card)")
    assert len(before) == 13
    send = passing.get_by_role("button", name="Pass these cards")
    assert send.is_disabled()
    chosen = before[-2:]
    for card in chosen:
        page.locator(f'#hand [data-card="{card}"]').click()
        page.locator(f'#hand [data-card="{card}"][aria-pressed="true"]').wait_for()
    assert send.is_enabled()
    send.click()
    passing.wait_for(state="detached")
    page.wait_for_function(
        "(gone) => gone.every(card => !document.querySelector(`#hand [data-card='${card}']`))",
        arg=chosen,
    )
    assert page.locator("#hand .face").count() == 13
    assert "Blind nil" in page.locator('.seat[data-seat="0"] .tricks').text_content()


# The pass panel, built in Chromium by the shipped module from the engine's one pass
# entry, `{"type": "pass", "count": n}`: any n cards of the hand may go.
PASS_PANEL = """async (chosen) => {
  const { decisionPanel } = await import('/static/bidding.js');
  const sent = [];
  const page = {
    seat: 0,
    sides: [[0, 2], [1, 3]],
    passChoice: new Set(chosen),
    view: {phase: 'pass', hand: ['2C', '9H', 'KS'], legal: [{type: 'pass', count: 2}]},
    table: {seats: [{name: 'Bea'}, {name: 'Bo'}, {name: 'Cy'}, {name: 'Dee'}], rules: {}},
  };
  const node = decisionPanel(page, (action) => sent.push(action));
  const send = node.querySelector('button.pass-send');
  send.click();
  return {title: node.querySelector('h2').textContent, disabled: send.disabled, sent};
}"""


def test_pass_panel_sends_any_count_cards_chosen_from_the_hand(open_page) -> None:
    page = open_page("/")
    one = page.evaluate(PASS_PANEL, ["9H"])
    assert one == {"title": "Pick 2 cards to give your partner", "disabled": True, "sent": []}
    two = page.evaluate(PASS_PANEL, ["KS", "2C"])
    assert two["disabled"] is False
    assert two["sent"] == [{"type": "pass", "cards": ["KS", "2C"]}]
