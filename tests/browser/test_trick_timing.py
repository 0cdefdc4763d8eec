"""A card on the felt of every other screen as soon as its state arrives: a lead made at
once by the seat that took the last trick included. A player (seat 0) plays two hands
against three bots that move without delay, so each trick a bot takes is led again at
once; a watcher and the player's own page note when each `state` arrives (before the
page's code runs) and when each card first stands on the felt, and the lead that
follows a trick must show within 100 ms there (p95), unhidden by the trick before it.

    .venv/bin/pytest tests/browser/test_trick_timing.py -s -p no:randomly

prints the figures (docs/performance.md, "What players see"; the runs in docs/perf-log/2026-12.md).
"""

from __future__ import annotations

import pytest

from bench.harness.stats import percentile
from tests.browser.playing import add_bots, play_until, sit

pytestmark = pytest.mark.browser

HANDS = 2
LEAD_P95_MS = 100

# When each state arrives (performance.now(), before the page's own listener runs) with
# the plays it shows, and when each card is first on the felt, with whether it is the
# topmost thing at its centre there.
WATCH_THE_FELT = """
window.arrivals = [];
window.shown = [];
const NativeSocket = window.WebSocket;
window.WebSocket = class extends NativeSocket {
  constructor(...args) {
    super(...args);
    this.addEventListener("message", (event) => {
      const message = JSON.parse(event.data);
      if (message.type !== "state" || !message.state) return;
      const view = message.state;
      window.arrivals.push({
        at: performance.now(), hand: view.hand_number,
        trick: view.trick.map((play) => [play.seat, play.card]),
        last: (view.last_trick?.cards ?? []).map((play) => [play.seat, play.card]),
      });
    });
  }
};
const seen = new WeakSet();
new MutationObserver(() => {
  for (const card of document.querySelectorAll("#felt .in-trick")) {
    if (seen.has(card)) continue;
    seen.add(card);
    const box = card.getBoundingClientRect();
    const top = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
    window.shown.push({
      at: performance.now(), card: card.dataset.card,
      covered: !card.contains(top),
    });
  }
}).observe(document, { childList: true, subtree: true });
"""


def delays(page, own_seat: int | None) -> dict[str, list]:
    """Per card another seat played: ms from the first state showing it to the card on
    the felt, split into leads after a trick and the other cards; and the leads found
    under another card. A card is new when a state shows it and the one before did not
    (a hand's last trick stays in `last_trick` into the next hand); a card is played
    once a hand, so the card alone finds it on the felt."""
    arrivals = page.evaluate("window.arrivals")
    shown = page.evaluate("window.shown")
    found: dict[str, list] = {"leads": [], "others": [], "covered": []}
    before: set[tuple[int, str]] = set()
    for arrival in arrivals:
        trick = [tuple(play) for play in arrival["trick"]]
        now = set(trick) | {tuple(play) for play in arrival["last"]}
        for seat, card in now - before:
            if seat == own_seat:
                continue
            lead = trick[:1] == [(seat, card)] and bool(arrival["last"])
            at = arrival["at"]
            later = (seen for seen in shown if seen["card"] == card and seen["at"] >= at)
            on_felt = next(later, None)
            assert on_felt is not None, f"{card} never showed on the felt"
            found["leads" if lead else "others"].append(on_felt["at"] - at)
            if lead and on_felt["covered"]:
                found["covered"].append(card)
        before = now
    return found


def p95(values: list[float]) -> float:
    return percentile(sorted(values), 0.95)


def test_a_lead_shows_on_the_other_screens_at_once_after_a_trick(open_page) -> None:
    lobby = open_page("/")
    table = lobby.request.post("/api/tables", data={"name": "Quick leads"}).json()
    player = open_page(table["invite_url"], init_script=WATCH_THE_FELT)
    watcher = open_page(table["url"], init_script=WATCH_THE_FELT)
    sit(player, 0, "Lea")
    add_bots(player, (1, 2, 3))
    hands = player.locator(".scorepad .history tbody tr")
    play_until(player, 0, lambda: hands.count() >= HANDS, f"{HANDS} hands", seconds=300)

    for name, page, seat in (("watcher", watcher, None), ("player", player, 0)):
        found = delays(page, seat)
        leads, others = found["leads"], found["others"]
        print(
            f"\n{name}: lead after a trick p50 {percentile(sorted(leads), 0.5):.0f} ms, "
            f"p95 {p95(leads):.0f} ms, max {max(leads):.0f} ms ({len(leads)} leads); "
            f"other cards p95 {p95(others):.0f} ms ({len(others)} cards)"
        )
        assert len(leads) >= 8, f"{name}: too few leads after a trick to judge ({len(leads)})"
        assert p95(leads) < LEAD_P95_MS, f"{name}: a lead shows {p95(leads):.0f} ms late (p95)"
        assert not found["covered"], f"{name}: leads hidden by the trick before: {found}"
