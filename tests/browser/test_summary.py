"""The end-of-hand summary says penalties and nil results in plain words, built in
Chromium by the shipped module from a hand result shaped like the engine's `last_hand`."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

SUMMARY = """async () => {
  const { handSummary } = await import('/static/scorepad.js');
  const page = {
    seat: 0,
    sides: [[0, 2], [1, 3]],
    view: null,
    table: {
      seats: [{name: 'Ann'}, {name: 'Bo'}, {name: 'Cy'}, {name: 'Dee'}],
      rules: {bags: true, bag_limit: 10, bag_penalty: 100, all_tricks: 'none',
              ten_for_two_hundred: false},
    },
  };
  const result = {
    hand_number: 4, bids: [0, 5, 4, 3], tricks: [1, 7, 4, 1],
    sides: [
      {seats: [0, 2], contract: 4, taken: 4, points: -60, score: 120, bags: 2,
       bag_penalty: 0, nil: [{seat: 0, blind: false, made: false, points: -100}],
       all_tricks: false},
      {seats: [1, 3], contract: 8, taken: 8, points: -20, score: 300, bags: 1,
       bag_penalty: 100, nil: [], all_tricks: false},
    ],
  };
  const node = handSummary(page, result);
  return {
    title: node.querySelector('h2').textContent,
    sides: [...node.querySelectorAll('.summary-sides li')].map((li) => li.textContent),
    penalties: [...node.querySelectorAll('.penalty')].map((span) => span.textContent),
    nils: [...node.querySelectorAll('.summary-nils li')].map((li) => li.textContent),
  };
}"""


def test_hand_summary_names_bag_penalty_and_failed_nil(open_page) -> None:
    summary = open_page("/").evaluate(SUMMARY)
    assert summary["title"] == "Hand 4 scored"
    assert summary["penalties"] == ["10 bags: -100"]
    assert summary["nils"] == ["Ann's nil failed: -100"]
    assert "Ann & Cy" in summary["sides"][0]
    assert "bid nil + 4 (contract 4), took 4: -60" in summary["sides"][0]
    assert "Bo & Dee" in summary["sides"][1]
    assert "score 300, 1 bag" in summary["sides"][1]
