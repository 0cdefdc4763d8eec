"""Four browsers take the four seats through the page and play a hand by clicking; a
fifth watches and never sees a hand; one player reloads mid-hand and carries on."""

from __future__ import annotations

import json

import pytest

from tests.browser.conftest import PHONE, screenshot
from tests.browser.playing import act_once, hand_of, take_seats

pytestmark = pytest.mark.browser

NAMES = ["Ann", "Bo <i>", "Cy", "Dee"]

# Installed in the spectator's page before any script runs: records every face-up card
# that appears anywhere but the trick in the middle (a hand would show up that way).
WATCH_FOR_HANDS = """
window.__faceUpOutsideTrick = [];
window.__trickCardsSeen = 0;
new MutationObserver(() => {
  for (const card of document.querySelectorAll('.card.face')) {
    if (card.closest('#trick')) window.__trickCardsSeen += 1;
    else window.__faceUpOutsideTrick.push(card.dataset.card);
  }
  if (document.querySelector('#hand .card')) window.__faceUpOutsideTrick.push('hand area');
}).observe(document, {subtree: true, childList: true});
"""


def test_four_players_play_a_hand_watched_by_a_spectator(open_page, server) -> None:
    created = open_page("/").request.post(
        "/api/tables", data={"name": "Browser table", "rules": {"preset": "standard"}}
    )
    table_url = created.json()["url"]
    invite_url = created.json()["invite_url"]

    spectator = open_page(table_url, init_script=WATCH_FOR_HANDS)
    spectator_hands: list[object] = []

    def frame(payload: str | bytes) -> None:
        message = json.loads(payload)
        if message.get("type") == "state" and message.get("state"):
            spectator_hands.append(message["state"].get("hand"))

    spectator.on("websocket", lambda socket: socket.on("framereceived", frame))
    spectator.reload()

    players = take_seats(open_page, invite_url, NAMES)
    spectator.locator(".seat .badge.you").wait_for(state="detached")
    assert spectator.locator(".hand-area").is_hidden()

    spectator.locator("#chat-text").fill("<b>good luck</b>")
    spectator.locator("#chat-text").press("Enter")
    line = players[3].locator("#chat-log li", has_text="good luck")
    line.wait_for()
    assert line.text_content() == "Spectator: <b>good luck</b>"
    assert players[3].locator("#chat-log b").count() == 0

    shots = {"bidding": False, "trick": False}
    reloaded = False
    actions = 0
    while actions < 200:
        acted = False
        for seat, page in enumerate(players):
            # The README's bidding picture: always Ann's page (seat 0), so that its plates
            # are the same from run to run.
            if (
                not shots["bidding"]
                and seat == 0
                and page.locator("#action-panel .bidding").count()
            ):
                screenshot(page, "bidding")
                shots["bidding"] = True
            if act_once(page, seat):
                acted = True
                actions += 1
        in_middle = players[0].locator("#trick .card").count()
        # The README's trick picture: Ann to play after two others, past the first trick
        # (its Last trick button there from run to run).
        if (
            not shots["trick"]
            and in_middle >= 2
            and players[0].locator("#hand .playable").count()
            and len(hand_of(players[0])) <= 12
        ):
            screenshot(players[0], "trick")
            shots["trick"] = True
        if not reloaded and len(hand_of(players[2])) == 7:
            before = sorted(hand_of(players[2]))
            players[2].reload()
            players[2].locator('.seat[data-seat="2"] .badge.you').wait_for()
            players[2].wait_for_function("document.querySelectorAll('#hand .face').length === 7")
            assert sorted(hand_of(players[2])) == before
            reloaded = True
        if players[0].locator(".hand-summary").count():
            break
        if not acted:
            players[0].wait_for_timeout(50)

    assert reloaded, "player 2 never reached the middle of the hand"
    players[1].get_by_role("button", name="Last trick").click()
    review = players[1].locator("#last-trick")
    review.wait_for()
    assert review.locator("li").count() == 4
    assert review.locator("li.winner").count() == 1
    review.get_by_role("button", name="Close").click()
    summary = players[0].locator(".hand-summary")
    summary.wait_for()
    assert "Hand 1 scored" in summary.text_content()
    history = players[0].request.get(f"/api/tables/{table_url.rsplit('/', 1)[1]}/history").json()
    assert len(history["hands"]) == 1
    assert sum(history["hands"][0]["tricks"]) == 13
    scores = [side["score"] for side in history["hands"][0]["sides"]]
    pad = players[0].locator("#scorepad td.score").all_text_contents()
    assert [int(text) for text in pad] == scores
    # The README's picture is the page of the seat that bids first in the next hand (its
    # bid panel open beside the summary): the same layout whoever dealt.
    bidder = None
    for _ in range(200):
        asked = [page for page in players if page.locator("#action-panel").is_visible()]
        bidder = asked[0] if asked else None
        if bidder is not None:
            break
        players[0].wait_for_timeout(50)
    assert bidder is not None, "nobody was asked to bid in the next hand"
    bidder.locator(".hand-summary").wait_for()
    screenshot(bidder, "scorepad")
    players[0].set_viewport_size(PHONE)
    screenshot(players[0], "scorepad-phone")

    spectator.locator(".hand-summary").wait_for()
    assert spectator.evaluate("window.__faceUpOutsideTrick") == []
    assert spectator.evaluate("window.__trickCardsSeen") > 0, "the spectator saw no trick at all"
    assert spectator_hands and all(hand is None for hand in spectator_hands)
    assert spectator.locator('.seat[data-seat="1"] .name').text_content() == "Bo <i>"
