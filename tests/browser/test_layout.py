"""The whole table on one screen at every common size: the hand, the current trick, the
seat to act and the bid buttons all inside the window while bidding and while playing,
nothing wider than the window and nothing to scroll. A picture of each size is in
docs/screenshots/, compared with the page on every run (scripts/screenshots regenerates
them)."""

from __future__ import annotations

import pytest

from tests.browser.conftest import PHONE, screenshot
from tests.browser.playing import add_bots, play_until, seat_with_bots, sit

pytestmark = pytest.mark.browser

SIZES = [(1280, 800), (1366, 768), (1920, 1080), (360, 740), (740, 360)]

# What lies outside the window now: every card of the hand, the trick, the seat plate
# of the seat to act, the turn line and, while bidding, every bid button.
OUTSIDE = """() => {
  const outside = (node) => {
    const box = node.getBoundingClientRect();
    return box.width === 0 || box.left < 0 || box.top < 0
      || box.right > innerWidth || box.bottom > innerHeight;
  };
  const wanted = {
    hand: [...document.querySelectorAll('#hand .card')],
    trick: [document.getElementById('trick')],
    seatToAct: [...document.querySelectorAll('.seat.turn')],
    turnLine: [document.getElementById('turn-label')],
    bids: [...document.querySelectorAll('#action-panel button.bid')],
  };
  const found = Object.fromEntries(
    Object.entries(wanted).map(([name, nodes]) => [name, nodes.length]));
  const named = (node) => node.dataset.card ?? node.dataset.bid ?? node.id;
  const out = Object.entries(wanted).flatMap(([name, nodes]) =>
    nodes.filter(outside).map((node) => `${name}: ${named(node)}`));
  return {
    found, out,
    wider: document.documentElement.scrollWidth - innerWidth,
    taller: document.documentElement.scrollHeight - innerHeight,
  };
}"""


def check_fit(page, phase: str, as_pictured: bool = True) -> None:
    """Everything fits at every size; the README's pictures are compared with the page
    when it is in the state they show (`as_pictured`), else only saved."""
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(150)  # layout settles, the trick's animation ends
        fit = page.evaluate(OUTSIDE)
        size = f"{width}x{height} while {phase}"
        assert fit["found"]["hand"] == 13 and fit["found"]["trick"] == 1, (size, fit)
        assert fit["found"]["seatToAct"] == 1, (size, fit)
        if phase == "bidding":
            assert fit["found"]["bids"] >= 13, (size, fit)
        assert fit["out"] == [], (size, fit)
        assert fit["wider"] <= 0, f"{size}: the page is {fit['wider']} px wider than the window"
        assert fit["taller"] <= 0, f"{size}: the page is {fit['taller']} px taller than the window"
        name = f"size-{width}x{height}" + ("" if phase == "bidding" else "-play")
        screenshot(page, name, full_page=False, doc=as_pictured)


def test_hand_trick_turn_and_bids_fit_every_screen_while_bidding_and_playing(open_page) -> None:
    page = seat_with_bots(open_page, "standard", 4, "Ann")
    page.locator("#action-panel .bidding").wait_for()
    # The pictures show Ann bidding third (the dealer on her left): the bid panel's lines,
    # and so the felt's height, depend on how many bids came before hers.
    as_pictured = page.locator(".seat.pos-left", has_text="Dealer").count() == 1
    check_fit(page, "bidding", as_pictured)

    page.set_viewport_size({"width": 1280, "height": 800})
    page.locator("#action-panel button.bid:not(.nil)").first.click()
    page.locator("#hand .card.playable").first.wait_for()
    check_fit(page, "playing")


def test_side_panels_fold_away_on_a_phone_behind_a_toggle(open_page) -> None:
    page = seat_with_bots(open_page, "standard", 4, "Pia")
    page.set_viewport_size({"width": 360, "height": 740})
    toggle = page.locator("#panels-toggle")
    assert page.locator("#scorepad").is_hidden() and page.locator("#chat").is_hidden()
    toggle.click()
    page.locator("#scorepad td.score").first.wait_for()
    assert page.locator("#chat-text").is_visible()
    assert toggle.get_attribute("aria-expanded") == "true"
    screenshot(page, "size-360x740-panels", full_page=False, doc=True)
    page.keyboard.press("Escape")
    page.locator("#scorepad").wait_for(state="hidden")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    # A laptop shows them beside the table, no toggle needed.
    page.set_viewport_size({"width": 1280, "height": 800})
    assert page.locator("#scorepad").is_visible() and toggle.is_hidden()


# The table's name and the games-won tally in the top bar: each wholly shown, neither
# cut nor running out of the window.
HEADER = """() => ['table-name', 'series-tally'].map((id) => {
  const node = document.getElementById(id);
  const box = node.getBoundingClientRect();
  return {
    id, text: node.textContent, shown: box.width > 0,
    cut: node.scrollWidth > node.clientWidth + 1 || node.scrollHeight > node.clientHeight + 1,
    outside: box.left < 0 || box.right > innerWidth,
  };
})"""


def test_a_phones_top_bar_shows_the_whole_table_name_and_the_games_won(open_page) -> None:
    lobby = open_page("/")
    rules = {"preset": "standard", "target_score": 1}
    name = "Friday night cards at Jo's place"
    table = lobby.request.post("/api/tables", data={"name": name, "rules": rules}).json()
    page = open_page(table["invite_url"], viewport=PHONE)
    sit(page, 0, "Ann")
    add_bots(page, (1, 2, 3))
    play_until(page, 0, lambda: page.locator(".game-over").count() > 0, "the game's end")
    page.get_by_role("button", name="Rematch").click()
    page.locator("#action-panel .bidding").or_(page.locator(".seat.turn")).first.wait_for()
    page.locator("#series-tally").wait_for()
    for width, height in ((360, 740), (740, 360)):
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(150)
        header = page.evaluate(HEADER)
        screenshot(page, f"header-{width}x{height}", full_page=False)
        for part in header:
            assert part["shown"] and not part["cut"] and not part["outside"], (width, part)
        title, tally = header
        assert title["text"] == name
        assert tally["text"].startswith("Games won: Ann & Bot across ")
        fit = page.evaluate(OUTSIDE)
        assert fit["out"] == [] and fit["wider"] <= 0 and fit["taller"] <= 0, (width, fit)


LONG_NAMES = ["Bartholomew Fitzgerald-Alexander", "Maximiliana Rosalind Oppenheimer"]

# The score pad's tables: any number or column head that spills out of its cell, any
# word of a side's name (a row head, or a column head of the history) broken across two
# lines (names break between words and after hyphens).
CRAMPED = """() => {
  const found = [];
  const names = document.querySelectorAll(
    '#scorepad .scores tbody th, #scorepad .history thead th:not(:first-child):not(:last-child)');
  for (const cell of names) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let text = walker.nextNode(); text; text = walker.nextNode()) {
      let start = 0;
      for (const word of text.textContent.split(/(?<=[ -])/)) {
        const range = document.createRange();
        range.setStart(text, start);
        range.setEnd(text, start + word.trimEnd().length);
        const lines = new Set([...range.getClientRects()].map((box) => Math.round(box.top)));
        if (lines.size > 1) found.push(`broken: ${word}`);
        start += word.length;
      }
    }
  }
  for (const cell of document.querySelectorAll('#scorepad td, #scorepad .scores thead th')) {
    if (cell.querySelector('button')) continue;
    if (cell.scrollWidth > cell.clientWidth + 1) found.push(`spills: ${cell.textContent}`);
  }
  for (const table of document.querySelectorAll('#scorepad table')) {
    const box = table.parentElement;
    if (table.scrollWidth > box.clientWidth + 1) found.push('table wider than its box');
  }
  return found;
}"""


def test_long_names_leave_the_score_pads_columns_readable(open_page) -> None:
    lobby = open_page("/")
    table = lobby.request.post("/api/tables", data={"name": "Long names"}).json()
    players = []
    for seat, name in enumerate(LONG_NAMES):
        player = open_page(table["invite_url"])
        sit(player, seat, name)
        players.append(player)
    for seat in (2, 3):
        players[0].locator(f'.seat[data-seat="{seat}"] button.add-bot').click()
    page = players[0]
    page.locator("#scorepad td.score").first.wait_for()
    for width, height in ((1280, 800), (360, 740)):
        page.set_viewport_size({"width": width, "height": height})
        if width < 600:
            page.locator("#panels-toggle").click()
        page.locator("#scorepad td.score").first.wait_for()
        screenshot(page, f"scorepad-long-names-{width}", full_page=False)
        cramped = page.evaluate(CRAMPED)
        assert cramped == [], (width, cramped)
