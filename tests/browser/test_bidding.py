"""The bid panel offers exactly the legal bids, sets nil apart with its value under the
table's rules, and explains 10 for 200 where it applies; built in Chromium by the shipped
module from a view shaped like the engine's."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

PANEL = """async (legal) => {
  const { decisionPanel } = await import('/static/bidding.js');
  const page = {
    seat: 0,
    sides: [[0, 2], [1, 3]],
    passChoice: new Set(),
    view: {phase: 'bid', bids: [null, 3, 4, null], legal},
    table: {
      seats: [{name: 'Ann'}, {name: 'Bo'}, {name: 'Cy'}, {name: 'Dee'}],
      rules: {nil: true, nil_bonus: 100, nil_penalty: 50, partnerships: true,
              bidding: 'individual', ten_for_two_hundred: true, ten_for_two_hundred_set: 100},
    },
  };
  const node = decisionPanel(page, () => {});
  return {
    numbers: [...node.querySelectorAll('.bid-buttons .bid')].map((b) => Number(b.dataset.bid)),
    nil: node.querySelector('.nil-choice')?.textContent ?? null,
    text: node.textContent,
  };
}"""


def test_bid_panel_offers_exactly_the_legal_bids_with_nil_apart(open_page) -> None:
    legal = [{"type": "bid", "bid": bid} for bid in (0, 2, 3, 4, 5)]
    panel = open_page("/").evaluate(PANEL, legal)
    assert panel["numbers"] == [2, 3, 4, 5]
    assert panel["nil"] == "Bid nilNil: take no tricks at all for +100; take any and lose 50."
    assert "Partner Cy bid 4" in panel["text"]
    assert "Your side so far: 4 + your bid." in panel["text"]
    assert "10 for 200" in panel["text"] and "-100 (set)" in panel["text"]


def test_bid_panel_without_nil_in_legal_shows_no_nil_button(open_page) -> None:
    legal = [{"type": "bid", "bid": bid} for bid in (1, 2)]
    panel = open_page("/").evaluate(PANEL, legal)
    assert panel["numbers"] == [1, 2]
    assert panel["nil"] is None
