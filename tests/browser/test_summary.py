"""The end-of-hand summary says penalties and nil results in plain words, built in
Chromium by the shipped module from a hand result shaped like the engine's `last_hand`;
shown during the next hand's bidding, it covers no seat plate and no bid button, on a
phone held either way and on a laptop, each side's bid, contract and tricks taken in
sight on every size."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import LAPTOP, PHONE, screenshot
from tests.browser.playing import add_bots, play_until, sit

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


# What the hand's summary covers: each seat plate, bid button and the turn line it
# overlaps, and each plate whose middle, name or bid is not the topmost thing there.
COVERED = """() => {
  const summary = document.querySelector('#centre-panel .hand-summary');
  if (!summary) return null;
  const panel = document.getElementById('centre-panel').getBoundingClientRect();
  const overlaps = (node) => {
    const box = node.getBoundingClientRect();
    return box.width > 0 && box.left < panel.right && box.right > panel.left
      && box.top < panel.bottom && box.bottom > panel.top;
  };
  const hidden = (node, plate) => {
    const box = node.getBoundingClientRect();
    const top = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
    return !plate.contains(top);
  };
  const plates = [...document.querySelectorAll('.seat')];
  return {
    overlapped: [
      ...plates.filter(overlaps).map((plate) => `seat ${plate.dataset.seat}`),
      ...[...document.querySelectorAll('#action-panel button')].filter(overlaps)
        .map((button) => `button ${button.textContent}`),
      ...[document.getElementById('turn-label')].filter(overlaps).map(() => 'turn line'),
    ],
    unseen: plates.flatMap((plate) => [plate, ...plate.querySelectorAll('.name, .tricks')]
      .filter((node) => node.getBoundingClientRect().width > 0)
      .filter((node) => hidden(node, plate))
      .map((node) => `seat ${plate.dataset.seat} ${node.className}`)),
    bidding: Boolean(document.querySelector('#action-panel .bidding')),
    width: panel.width, height: panel.height,
    // What explains each side's points: its words if drawn, and whether they are in view
    // inside the panel (as it is, and once the panel is scrolled to them).
    explained: [...summary.querySelectorAll('.summary-sides li')].map((li) => {
      const words = li.querySelector('.contract');
      const box = () => words.getBoundingClientRect();
      const inView = () => box().top >= panel.top - 1 && box().bottom <= panel.bottom + 1
        && box().left >= panel.left - 1 && box().right <= panel.right + 1;
      const drawn = words && box().width > 0 && getComputedStyle(words).visibility !== 'hidden';
      if (!drawn) return null;
      const now = inView();
      const holder = document.getElementById('centre-panel');
      const scrolled = holder.scrollTop;
      words.scrollIntoView({ block: 'nearest' });
      const reached = inView();
      holder.scrollTop = scrolled;
      return { text: words.textContent, now, reached };
    }),
  };
}"""


def test_the_summary_leaves_the_next_biddings_seats_and_bids_in_sight(open_page) -> None:
    lobby = open_page("/")
    table = lobby.request.post("/api/tables", data={"name": "Next hand"}).json()
    page = open_page(table["invite_url"], viewport=PHONE)
    sit(page, 0, "Maximilian Bartholomew")
    add_bots(page, (1, 2, 3))
    summary = page.locator("#centre-panel .hand-summary")
    play_until(page, 0, lambda: summary.count() > 0, "the first hand's end")
    # The next hand's bidding waits for this player, who does not bid while we look.
    page.locator("#action-panel .bidding").wait_for()
    for size in (PHONE, {"width": 740, "height": 360}, LAPTOP):
        page.set_viewport_size(size)
        page.wait_for_timeout(300)  # the layout settles, the last trick has slid away
        covered = page.evaluate(COVERED)
        where = f"{size['width']}x{size['height']}"
        screenshot(page, f"summary-next-bidding-{where}", full_page=False)
        assert covered is not None, f"{where}: the summary is gone"
        assert covered["bidding"], f"{where}: the bidding is not offered"
        assert covered["overlapped"] == [], (where, covered)
        assert covered["unseen"] == [], (where, covered)
        assert covered["width"] > 100 and covered["height"] > 40, (where, covered)
        # Every size keeps what explains the points: the bids, the contract, the tricks;
        # in view on a phone held upright and on a laptop, where the middle of a phone
        # held sideways is too short for it all, scrolling the summary reaches them.
        assert len(covered["explained"]) == 2, (where, covered)
        for words in covered["explained"]:
            assert words is not None, f"{where}: a side's bid, contract and tricks are hidden"
            assert re.fullmatch(r"bid .+ \(contract \d+\), took \d+", words["text"]), (where, words)
            assert words["reached"], (where, words)
            if size["height"] > 500:
                assert words["now"], f"{where}: {words['text']!r} is out of view"
