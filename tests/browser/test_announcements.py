"""A whole hand by ear and keyboard: a player who only presses keys (digits to bid,
Enter on the card the table offers, single keys to read the table) plays a hand against
three bots while a spectator watches. Every play, every trick's taker, every bid and the
hand's result reach each one's live regions once, named from their own seat, and no
card they may not see; a second screen of the same seat set to "mine only" hears only
what concerns the player, a third set to "off" hears nothing. The focus is never lost,
the Keys panel and the hand review give it back when they close. In Chromium's
accessibility tree the hand is one listbox of cards named, placed and marked unavailable
when they may not be played, and one Tab stop."""

from __future__ import annotations

import json
import re
import time

import pytest

from tests.browser.hearing import (
    HEAR,
    card_words,
    cards_named,
    cards_read,
    expected_hand,
    heard,
    of_kind,
    regions_heard,
)
from tests.browser.playing import seat_with_bots

pytestmark = pytest.mark.browser

PLAYER_NAMES = ["You", "Bot on your left", "Bot across", "Bot on your right"]
SPECTATOR_NAMES = ["Kay", "Bot on the left", "Bot at the top", "Bot on the right"]

# What the focus is on now, as the test needs it.
FOCUS = """() => {
  const node = document.activeElement;
  return {
    body: node === document.body,
    bid: node.closest('.bidding') ? (node.dataset.bid ?? null) : null,
    nil: node.matches('.bidding button.nil'),
    card: node.closest('#hand') ? node.dataset.card : null,
    playable: node.classList.contains('playable'),
    role: node.getAttribute('role'),
    dialog: node.closest('dialog')?.id ?? null,
  };
}"""

# Everything the table may say in this test besides bids, plays and takers.
CLAIM_OFFER = (
    "You may claim the rest: every remaining trick is yours. Use the Claim the rest button,"
    " or play on."
)
OTHER_LINES = re.compile(
    r"^(Your turn|(The game starts\. )?Hand \d: .+ deals?\.( Press H to hear your hand\.)?$"
    r"|Bidding done\. Contracts: |Hand 1 scored\. |Your hand, 13 cards\. |Last trick: "
    r"|Bids, hand 1: |Tricks this hand: |Score: |On the table: |No cards on the table\. "
    r"|No trick has been played yet\.$"
    r"|You may claim the rest: every remaining trick is yours\. )"
)


def screen_of(seat_token: str, table_id: str, level: str) -> str:
    """An init script: this browser holds the seat (as a second device would) and has
    chosen the announcements' `level`."""
    return HEAR + "".join(
        f"localStorage.setItem({json.dumps(key)}, {json.dumps(value)});"
        for key, value in {
            f"spades.seat.{table_id}": seat_token,
            "spades.announce": json.dumps(level),
        }.items()
    )


def my_turns(page) -> int:
    return sum(line.startswith("Your turn") for line in heard(page, "announcements"))


def hand_over(page) -> bool:
    return any(line.startswith("Hand 1 scored.") for line in heard(page, "announcements"))


def wait_for_turn(page, turns: int) -> None:
    page.wait_for_function(
        """(turns) => {
            const said = window.heard.filter((line) => line.region === 'announcements');
            return said.filter((line) => line.text.startsWith('Your turn')).length > turns
                || said.some((line) => line.text.startsWith('Hand 1 scored.'));
        }""",
        arg=turns,
    )


def press(page, *keys: str) -> None:
    for key in keys:
        page.keyboard.press(key)


def bid_by_keys(page, readings: bool) -> None:
    """Digits to a bid (as many as the spades held, at least 1), Enter to bid it."""
    hand = page.eval_on_selector_all("#hand .card.face", "cards => cards.map(c => c.dataset.card)")
    assert len(hand) == 13
    if readings:
        press(page, "h", "t", "b")
        press(page, "1", "2")
        assert page.evaluate(FOCUS)["bid"] == "12", "1 then 2 goes to the bid of 12"
        press(page, "n")
        assert page.evaluate(FOCUS)["nil"], "N goes to nil"
    bid = str(max(1, sum(card.endswith("S") for card in hand)))
    page.wait_for_timeout(1300)  # a digit long after the last one starts a new bid
    press(page, *bid)
    assert page.evaluate(FOCUS)["bid"] == bid
    press(page, "Enter")
    page.wait_for_function("!document.querySelector('#action-panel .bidding')")


def play_by_keys(page, readings: bool) -> None:
    """Enter on the card the table offered when the turn came (the focus moves to it as the
    hand is drawn, which may follow the turn's announcement by a frame)."""
    page.wait_for_function(
        "() => document.activeElement.classList.contains('playable')"
        " && document.activeElement.getAttribute('role') === 'option'",
        timeout=3000,
    )
    focus = page.evaluate(FOCUS)
    assert focus["playable"] and focus["role"] == "option", focus
    if readings:
        press(page, "w", "s", "c", "l")
        press(page, "?")
        assert page.evaluate(FOCUS)["dialog"] == "keys-dialog"
        press(page, "Escape")
        assert page.evaluate(FOCUS) == focus, "closing the Keys panel gave the focus back"
    before = page.eval_on_selector_all("#hand .face", "cards => cards.map(c => c.dataset.card)")
    press(page, "Enter")
    page.wait_for_function(
        "(before) => [...document.querySelectorAll('#hand .face')]"
        ".map(c => c.dataset.card).join() !== before.join()",
        arg=before,
    )


def test_a_keyboard_player_and_a_spectator_hear_every_move_of_a_hand(open_page) -> None:
    lobby = open_page("/")
    table = lobby.request.post("/api/tables", data={"name": "By ear"}).json()
    table_id = table["id"]
    spectator = open_page(table["url"], init_script=HEAR)
    player = open_page(table["invite_url"], init_script=HEAR)
    player.locator("#player-name").focus()
    player.keyboard.type("Kay")
    player.locator('.seat[data-seat="0"] button.sit').focus()
    player.keyboard.press("Enter")
    player.locator('.seat[data-seat="0"] .badge.you').wait_for()
    token = player.evaluate(f"localStorage.getItem('spades.seat.{table_id}')")
    mine = open_page(table["url"], init_script=screen_of(token, table_id, "mine"))
    off = open_page(table["url"], init_script=screen_of(token, table_id, "off"))
    for page in (mine, off):
        page.locator('.seat[data-seat="0"] .badge.you').wait_for()
    for seat in (1, 2, 3):
        answer = lobby.request.post(
            f"/api/tables/{table_id}/seats/{seat}/bot",
            data={"level": "basic", "invite": table["invite"]},
        )
        assert answer.status == 201

    turns = 0
    deadline = time.monotonic() + 180
    while True:
        assert time.monotonic() < deadline, "the hand did not end"
        wait_for_turn(player, turns)
        if hand_over(player):
            break
        turns = my_turns(player)
        if player.locator("#action-panel .bidding").count():
            bid_by_keys(player, readings=turns == 1)
        else:
            play_by_keys(player, readings=turns == 3)
        assert not player.evaluate(FOCUS)["body"], "the focus was dropped"

    hand = player.request.get(f"/api/tables/{table_id}/history").json()["hands"][0]
    public = {play["card"] for trick in hand["plays"] for play in trick["cards"]}
    listeners = ((player, PLAYER_NAMES, set(hand["deal"][0])), (spectator, SPECTATOR_NAMES, set()))
    for page, names, own in listeners:
        page.wait_for_function(
            "window.heard.some((line) => line.text.startsWith('Hand 1 scored.'))"
        )
        lines = heard(page, "announcements")
        end = next(i for i, line in enumerate(lines) if line.startswith("Hand 1 scored."))
        expected = expected_hand(hand, names, 4)
        for kind in ("bids", "plays", "takes"):
            assert of_kind(lines[: end + 1], kind) == expected[kind], kind
        scored = [line for line in lines if line.startswith("Hand 1 scored.")]
        assert len(scored) == 1
        for side in hand["sides"]:
            points = side["points"]
            words = f"plus {points}" if points > 0 else f"minus {-points}" if points < 0 else "0"
            assert f"took {side['taken']}, {words}" in scored[0]
            assert f"score {side['score']}" in scored[0]
        strays = [
            line
            for line in lines
            if not OTHER_LINES.match(line)
            and not any(of_kind([line], kind) for kind in ("bids", "plays", "takes"))
        ]
        assert strays == [], "said, but not a move, a turn, a result or a reading"
        offers = [line for line in lines if line.startswith("You may claim the rest")]
        assert len(offers) <= (1 if page is player else 0), "a claim offer is said once a hand"
        assert set(offers) <= {CLAIM_OFFER}
        named = {card for line in heard(page) for card in cards_named(line) + cards_read(line)}
        assert named <= public | own, f"a hidden card was said: {named - public - own}"
        # The turn line and the decision panel are not live: nothing is said twice.
        assert regions_heard(page) <= {"announcements", "connection-banner"}

    said = heard(player, "announcements")
    reading = next(line for line in said if line.startswith("Your hand, 13 cards. "))
    assert sorted(cards_read(reading)) == sorted(hand["deal"][0])
    assert not any(line.startswith("Press H") for line in heard(spectator))

    # The same seat on a second screen, "mine only": its own moves, turns and tricks.
    mine_lines = heard(mine, "announcements")
    mine_only = re.compile(r"^(Your turn|You (bid|play|take|receive) |You may claim the rest: )")
    # Whether the claim is offered depends on the deal: both patterns must take it either way.
    assert mine_only.match(CLAIM_OFFER) and OTHER_LINES.match(CLAIM_OFFER)
    assert mine_lines
    assert [line for line in mine_lines if not mine_only.match(line)] == []
    assert sum(line.startswith("You may claim the rest") for line in mine_lines) <= 1
    my_plays = [
        f"You play {card_words(play['card'])}."
        for trick in hand["plays"]
        for play in trick["cards"]
        if play["seat"] == 0
    ]
    assert of_kind(mine_lines, "plays") == my_plays
    assert heard(off, "announcements") == []

    # The hand review, by keyboard: each step said, the focus given back on closing.
    replay = player.locator('.scorepad .replay[data-hand="1"]')
    replay.focus()
    press(player, "Enter")
    player.locator("#review-dialog").wait_for()
    press(player, "Home", "ArrowRight")
    first_trick = hand["plays"][0]
    words = ", ".join(
        f"{PLAYER_NAMES[play['seat']]} {'led ' if index == 0 else ''}{card_words(play['card'])}"
        for index, play in enumerate(first_trick["cards"])
    )
    step = f"Trick 1 of 13: {words}. {PLAYER_NAMES[first_trick['winner']]} took it."
    player.wait_for_function("(step) => window.heard.some((line) => line.text === step)", arg=step)
    press(player, "Escape")
    player.locator("#review-dialog").wait_for(state="hidden")
    assert player.evaluate("document.activeElement.matches('.scorepad .replay')")


def ax_nodes(page) -> list[dict]:
    """Chromium's accessibility tree of the page, as its DevTools protocol gives it."""
    devtools = page.context.new_cdp_session(page)
    return devtools.send("Accessibility.getFullAXTree")["nodes"]


def ax_value(node: dict, key: str):
    if key in ("role", "name"):
        return node.get(key, {}).get("value")
    return next((p["value"]["value"] for p in node.get("properties", []) if p["name"] == key), None)


def test_the_hand_is_one_tab_stop_a_listbox_of_named_cards(open_page) -> None:
    page = seat_with_bots(open_page, "standard", 4, "Lis")
    page.locator("#action-panel .bidding").wait_for()
    page.keyboard.press("2")
    page.keyboard.press("Enter")
    page.locator("#hand .card.playable:focus").wait_for()
    nodes = ax_nodes(page)
    boxes = [node for node in nodes if ax_value(node, "role") == "listbox"]
    assert [ax_value(box, "name") for box in boxes] == ["Your hand"]
    options = [node for node in nodes if node.get("parentId") == boxes[0]["nodeId"]]
    assert {ax_value(option, "role") for option in options} == {"option"}
    hand = page.eval_on_selector_all("#hand .card.face", "cs => cs.map(c => c.dataset.card)")
    assert [ax_value(option, "name") for option in options] == [
        card_words(card).removeprefix("the ").capitalize() for card in hand
    ]
    # Each card's place in the hand ("3 of 13"), which DevTools' tree does not list.
    places = page.eval_on_selector_all(
        "#hand .card.face", "cs => cs.map(c => [c.ariaPosInSet, c.ariaSetSize].map(Number))"
    )
    assert places == [[place, len(hand)] for place in range(1, len(hand) + 1)]
    playable = page.eval_on_selector_all("#hand .playable", "cs => cs.map(c => c.dataset.card)")
    unavailable = [bool(ax_value(option, "disabled")) for option in options]
    assert unavailable == [card not in playable for card in hand]
    # One Tab stop: Tab leaves the hand, Shift+Tab comes back to the same card.
    card = page.evaluate("document.activeElement.dataset.card")
    page.keyboard.press("Tab")
    assert not page.evaluate("document.getElementById('hand').contains(document.activeElement)")
    page.keyboard.press("Shift+Tab")
    assert page.evaluate("document.activeElement.dataset.card") == card
