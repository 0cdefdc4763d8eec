"""How many key presses a keyboard player needs, from the moment the table says "Your
turn" to a bid made and to a card played: measured in Chromium by pressing the keys,
each target checked by where the focus lands, then Enter. At each of the player's turns
of two hands against three bots, every legal card is reached once from where the page
put the focus (the mean is the figure), then one of them is played; at each bid every
offered bid is reached, then one is made. The figures go to
test-artifacts/keyboard-presses.json.

The test reads only what any version of the page has (the bid buttons, the cards, the
turn line), and uses the keys that version offers: arrows, Home/End and digits where
the hand is a listbox, Tab otherwise; so it also measures an older client."""

from __future__ import annotations

import json
import random
import statistics
import time
from collections import deque

import pytest

from tests.browser.conftest import ROOT
from tests.browser.playing import page_story, seat_with_bots

pytestmark = pytest.mark.browser

FIGURES = ROOT / "test-artifacts" / "keyboard-presses.json"
HAND_KEYS = ("ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End")
BID_TARGETS = ["1", "2", "4", "7", "10", "13", "nil"]

FOCUS = """() => {
  const node = document.activeElement;
  return {
    card: node.closest('#hand') ? node.dataset.card : null,
    bid: node.closest('#action-panel') ? (node.matches('.nil') ? 'nil' : node.dataset.bid) : null,
  };
}"""


def hand_move(key: str, index: int, suits: list[str]) -> int:
    """Where a key of the listbox hand moves the focus from `index` (see web/hand.js)."""
    first, last = suits.index(suits[index]), len(suits) - 1 - suits[::-1].index(suits[index])
    if key == "ArrowRight":
        return min(index + 1, len(suits) - 1)
    if key == "ArrowLeft":
        return max(index - 1, 0)
    if key == "ArrowDown":
        return last + 1 if last + 1 < len(suits) else index
    if key == "ArrowUp":
        return suits.index(suits[first - 1]) if first > 0 else index
    if key == "Home":
        return 0 if index == first else first
    return len(suits) - 1 if index == last else last


def fewest_keys(start: int, goal: int, suits: list[str]) -> list[str]:
    """The shortest run of the hand's keys from card `start` to card `goal`."""
    paths = {start: []}
    queue = deque([start])
    while queue:
        at = queue.popleft()
        if at == goal:
            return paths[at]
        for key in HAND_KEYS:
            to = hand_move(key, at, suits)
            if to not in paths:
                paths[to] = [*paths[at], key]
                queue.append(to)
    raise AssertionError("no way to the card")


def focus(page) -> dict:
    return page.evaluate(FOCUS)


def reach_card(page, start: str, goal: str, listbox: bool) -> int:
    """Put the focus back on `start`, press keys to `goal`; the presses it took."""
    page.locator(f'#hand [data-card="{start}"]').focus()
    if listbox:
        hand = page.eval_on_selector_all("#hand .card.face", "cs => cs.map(c => c.dataset.card)")
        suits = ["S" if card in ("BJ", "LJ") else card[1] for card in hand]
        keys = fewest_keys(hand.index(start), hand.index(goal), suits)
        for key in keys:
            page.keyboard.press(key)
        presses = len(keys)
    else:
        presses = 0
        while focus(page)["card"] != goal:
            assert presses < 30, f"Tab never reached {goal}"
            page.keyboard.press("Tab")
            presses += 1
    assert focus(page)["card"] == goal, (start, goal, focus(page))
    return presses


def reach_bid(page, start: str, goal: str, digits: bool) -> int:
    page.locator(f'#action-panel button[data-bid="{start}"]').focus()
    presses = 0
    if focus(page)["bid"] != goal and digits:
        keys = ["n"] if goal == "nil" else list(goal)
        for key in keys:
            page.keyboard.press(key)
        presses = len(keys)
    while focus(page)["bid"] != goal:
        assert presses < 30, f"Tab never reached the bid {goal}"
        page.keyboard.press("Tab")
        presses += 1
    return presses


def wait_for_turn(page) -> str:
    """Wait until the table says it is our turn and offers the decision: 'bid' or 'play'."""
    try:
        page.wait_for_function(
            """() => document.getElementById('turn-label').textContent.startsWith('Your turn')
                && (document.querySelector('#action-panel .bidding button:focus')
                    || document.querySelector('#hand .playable:focus'))"""
        )
    except Exception as timeout:
        raise AssertionError(f"no turn offered: {page_story(page)} {focus(page)}") from timeout
    return "bid" if page.locator("#action-panel .bidding").count() else "play"


def test_key_presses_from_the_turn_to_a_bid_and_to_a_card(open_page) -> None:
    page = seat_with_bots(open_page, "standard", 4, "Kit")
    choose = random.Random(37)
    cards: list[int] = []  # presses to each legal card at each turn
    played: list[int] = []  # presses to the card played
    bids: dict[str, int] = {}
    listbox = False
    deadline = time.monotonic() + 300
    while len(played) < 26:
        assert time.monotonic() < deadline, "two hands were not played"
        decision = wait_for_turn(page)
        listbox = page.evaluate("document.getElementById('hand').getAttribute('role')") == "listbox"
        if decision == "bid":
            start = focus(page)["bid"]
            offered = page.eval_on_selector_all(
                "#action-panel button.bid",
                "bs => bs.map(b => b.matches('.nil') ? 'nil' : b.dataset.bid)",
            )
            for goal in BID_TARGETS:
                if goal in offered:
                    bids[goal] = reach_bid(page, start, goal, listbox) + 1
            reach_bid(page, start, choose.choice(["2", "3", "4"]), listbox)
            page.keyboard.press("Enter")
            page.wait_for_function("!document.querySelector('#action-panel .bidding')")
            continue
        start = focus(page)["card"]
        legal = page.eval_on_selector_all("#hand .playable", "cs => cs.map(c => c.dataset.card)")
        cards.extend(reach_card(page, start, goal, listbox) + 1 for goal in legal)
        goal = choose.choice(legal)
        played.append(reach_card(page, start, goal, listbox) + 1)
        before = page.eval_on_selector_all("#hand .face", "cs => cs.map(c => c.dataset.card)")
        page.keyboard.press("Enter")
        try:
            # The card left the hand (or, after the last trick, a new hand came).
            page.wait_for_function(
                "(before) => [...document.querySelectorAll('#hand .face')]"
                ".map(c => c.dataset.card).join() !== before.join()",
                arg=before,
            )
        except Exception as timeout:
            raise AssertionError(f"{goal} not played: {page_story(page)}") from timeout

    figures = {
        "hand": "listbox" if listbox else "tab order",
        "bid": bids,
        "card_mean": round(statistics.mean(cards), 2),
        "card_max": max(cards),
        "played_mean": round(statistics.mean(played), 2),
        "turns": len(played),
        "targets": len(cards),
    }
    FIGURES.parent.mkdir(parents=True, exist_ok=True)
    FIGURES.write_text(json.dumps(figures, indent=2))
    print(f"key presses: {json.dumps(figures)}")
    if listbox:
        assert max(bids.values()) <= 3, bids
        assert max(cards) <= 8, figures
