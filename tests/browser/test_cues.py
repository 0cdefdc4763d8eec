"""Turn cues: a tone when it becomes your turn and when a trick ends (none for a
watcher, who has no turn and is offered no sound; the player's switch is remembered),
"● Your turn" in the
title and a dotted favicon while the page is hidden, and a notification once the player
switched it on (the browser's permission asked only then)."""

from __future__ import annotations

import pytest

from tests.browser.playing import act_once

pytestmark = pytest.mark.browser

# Counts the tones the page starts, records notifications, and lets the test hide the
# page (Playwright's pages are always visible).
LISTEN = """
window.tones = 0;
window.notes = [];
const NativeContext = window.AudioContext;
window.AudioContext = class extends NativeContext {
  createOscillator() {
    const tone = super.createOscillator();
    const start = tone.start.bind(tone);
    tone.start = (...args) => { window.tones += 1; return start(...args); };
    return tone;
  }
};
const NativeNotification = window.Notification;
window.Notification = class {
  static get permission() { return NativeNotification.permission; }
  static requestPermission() { return NativeNotification.requestPermission(); }
  constructor(title, options) { window.notes.push([title, options.body]); }
};
let hidden = false;
Object.defineProperty(Document.prototype, "hidden", { get: () => hidden, configurable: true });
Object.defineProperty(Document.prototype, "visibilityState", {
  get: () => (hidden ? "hidden" : "visible"), configurable: true,
});
window.hidePage = (value) => {
  hidden = value;
  document.dispatchEvent(new Event("visibilitychange"));
};
"""


def test_your_turn_rings_and_shows_in_the_hidden_tabs_title_and_favicon(open_page) -> None:
    table_page = open_page("/", init_script=LISTEN)
    table = table_page.request.post("/api/tables", data={"name": "Cues", "listed": True}).json()
    table_page.context.grant_permissions(["notifications"])
    table_page.goto(table["url"])
    table_page.locator("#player-name").fill("Cue")
    table_page.locator('.seat[data-seat="0"] button.sit').click()
    table_page.locator('.seat[data-seat="0"] .badge.you').wait_for()
    assert table_page.locator("#sound-on").is_checked(), "sound is on by default for players"
    table_page.locator("#notify-on").check()
    assert table_page.evaluate("localStorage.getItem('spades.notify')") == "true"
    table_page.evaluate("window.hidePage(true)")
    for seat in (1, 2, 3):
        table_page.locator(f'.seat[data-seat="{seat}"] button.add-bot').click()
    table_page.wait_for_function("document.title.startsWith('● Your turn — Cues')")
    assert table_page.locator("#favicon").get_attribute("href") == "/static/favicon-turn.svg"
    assert table_page.evaluate("window.tones") >= 2, "no tone when the turn came"
    assert table_page.evaluate("window.notes") == [["Your turn at Spades", "Cues"]]

    table_page.evaluate("window.hidePage(false)")
    assert table_page.evaluate("document.title") == "Cues — Spades"
    assert table_page.locator("#favicon").get_attribute("href") == "/static/favicon.svg"

    # A watcher hears nothing by default; the player hears the first trick end.
    watcher = open_page(table["url"], init_script=LISTEN)
    watcher.locator('.seat[data-seat="0"] .name').wait_for()
    assert not watcher.locator("#sound-on").is_checked()
    before = table_page.evaluate("window.tones")
    while not table_page.evaluate("document.querySelector('#last-trick-button').hidden === false"):
        if not act_once(table_page, 0):
            table_page.wait_for_timeout(50)
    table_page.wait_for_function("(before) => window.tones > before", arg=before)
    assert watcher.evaluate("window.tones") == 0

    # A watcher is offered no turn cue at all; the player's choice is remembered.
    assert watcher.get_by_text("Sound on your turn").is_hidden()
    assert watcher.get_by_text("Notify me").is_hidden()
    table_page.locator("#sound-on").uncheck()
    table_page.reload()
    table_page.locator('.seat[data-seat="0"] .badge.you').wait_for()
    assert not table_page.locator("#sound-on").is_checked()
