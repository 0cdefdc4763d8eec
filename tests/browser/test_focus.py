"""A state changes on the page only what it must: a watcher's keyboard focus on the
history, the history left open and scrolled where they put it, and a chat line half
typed (caret and all) survive ten states each, brought by the other seats' moves."""

from __future__ import annotations

import time

import pytest

from tests.browser.playing import act_once, sit

pytestmark = pytest.mark.browser

# Counts the `state` messages the page receives, before the page's own code runs.
COUNT_STATES = """
window.statesSeen = 0;
const NativeSocket = window.WebSocket;
window.WebSocket = class extends NativeSocket {
  constructor(...args) {
    super(...args);
    this.addEventListener("message", (event) => {
      if (JSON.parse(event.data).type === "state") window.statesSeen += 1;
    });
  }
};
"""

# A low history box, so that two hands already scroll in it.
LOW_HISTORY = ".scorepad .history-hands { max-height: 4rem; }"


def play_until(player, watcher, states: int) -> None:
    """The player (seat 0, with three bots) plays on until the watcher has had `states`
    more states."""
    target = watcher.evaluate("window.statesSeen") + states
    deadline = time.monotonic() + 120
    while watcher.evaluate("window.statesSeen") < target:
        assert time.monotonic() < deadline, "the game did not go on"
        if not act_once(player, 0):
            player.wait_for_timeout(50)


def hands_in_history(page) -> int:
    return page.locator(".scorepad .history tbody tr").count()


def test_focus_open_history_scroll_and_typed_chat_survive_other_seats_moves(
    open_page,
) -> None:
    lobby = open_page("/")
    table = lobby.request.post("/api/tables", data={"name": "Focus"}).json()
    player = open_page(table["invite_url"])
    sit(player, 0, "Dee")
    for seat in (1, 2, 3):
        player.locator(f'.seat[data-seat="{seat}"] button.add-bot').click()
        player.locator(f'.seat[data-seat="{seat}"] .badge.bot').wait_for()
    watcher = open_page(table["url"], init_script=COUNT_STATES)
    watcher.add_style_tag(content=LOW_HISTORY)
    deadline = time.monotonic() + 240
    while hands_in_history(watcher) < 2:
        assert time.monotonic() < deadline, "two hands were not played"
        if not act_once(player, 0):
            player.wait_for_timeout(50)

    # A keyboard user on the history's summary, the hands scrolled to the newest.
    history = watcher.evaluate_handle("document.querySelector('.scorepad .history')")
    assert watcher.evaluate("(history) => history.open", history)
    scrolled = watcher.evaluate(
        """(history) => {
            const hands = history.querySelector('.history-hands');
            hands.scrollTop = hands.scrollHeight;
            history.querySelector('summary').focus();
            return hands.scrollTop;
        }""",
        history,
    )
    assert scrolled > 0
    play_until(player, watcher, 10)
    kept = watcher.evaluate(
        """(history) => ({
            onPage: history.isConnected,
            open: history.open,
            focused: document.activeElement === history.querySelector('summary'),
            scrollTop: history.querySelector('.history-hands').scrollTop,
        })""",
        history,
    )
    assert kept == {"onPage": True, "open": True, "focused": True, "scrollTop": scrolled}

    # A chat line half typed, the caret inside it.
    chat = watcher.locator("#chat-text")
    chat.click()
    chat.press_sequentially("well played, par")
    chat.press("ArrowLeft")
    chat.press("ArrowLeft")
    play_until(player, watcher, 10)
    typed = watcher.evaluate(
        """() => ({
            focused: document.activeElement.id,
            value: document.activeElement.value,
            caret: document.activeElement.selectionStart,
        })"""
    )
    assert typed == {"focused": "chat-text", "value": "well played, par", "caret": 14}


# dom.js's patch(), in Chromium: what stays, what goes, which handler runs.
PATCH = """async () => {
  const { el, patch } = await import('/static/dom.js');
  const box = document.createElement('div');
  document.body.append(box);
  const clicks = [];
  const button = (seat, label) =>
    el('button', { key: seat, onclick: () => clicks.push(`${label}${seat}`) }, label);
  const draw = (seats, label) => patch(box,
    el('details', { key: 'history', open: true }, el('summary', {}, 'History')),
    seats.map((seat) => button(seat, label)));
  draw([0, 1, 2], 'a');
  const first = [...box.querySelectorAll('button')];
  const details = box.querySelector('details');
  details.open = false;
  first[1].focus();
  draw([2, 1], 'b');
  const second = [...box.querySelectorAll('button')];
  second.forEach((button) => button.click());
  return {
    keptNodes: second[0] === first[2] && second[1] === first[1],
    gone: !first[0].isConnected,
    focusKept: document.activeElement === first[1],
    detailsKept: box.querySelector('details') === details && !details.open,
    texts: second.map((button) => button.textContent),
    clicks,
  };
}"""


def test_patch_keeps_keyed_nodes_focus_and_the_players_details_with_new_handlers(
    open_page,
) -> None:
    patched = open_page("/").evaluate(PATCH)
    assert patched == {
        "keptNodes": True,
        "gone": True,
        "focusKept": True,
        "detailsKept": True,
        "texts": ["b", "b"],
        "clicks": ["b2", "b1"],
    }
