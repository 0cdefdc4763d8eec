"""Hand review: a finished hand replayed trick by trick from the score pad with every
hand face up, stepped with the keyboard, each card shown checked against the history;
and the game's record downloaded as JSON."""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.browser.conftest import screenshot
from tests.browser.playing import act_once, seat_with_bots

pytestmark = pytest.mark.browser

# What the review shows now: the heading, the trick's cards by seat, each seat's cards.
SHOWN = """() => {
  const dialog = document.getElementById('review-dialog');
  return {
    title: dialog.querySelector('h2').textContent,
    trick: [...dialog.querySelectorAll('.review-trick-cards li')].map((item) =>
      [Number(item.dataset.seat), item.querySelector('.card').dataset.card]),
    winner: dialog.querySelector('.review-winner')?.textContent ?? null,
    seats: [...dialog.querySelectorAll('.review-seat')].map((seat) =>
      [...seat.querySelectorAll('.card')].map((card) => card.dataset.card)),
    score: dialog.querySelector('.review-score').textContent,
  };
}"""


def play_one_hand(page) -> None:
    deadline = time.monotonic() + 120
    while not page.locator(".scorepad .replay").count():
        assert time.monotonic() < deadline, "the hand did not end"
        if not act_once(page, 0):
            page.wait_for_timeout(50)


def test_a_finished_hand_replays_trick_by_trick_as_the_history_says(open_page) -> None:
    page = seat_with_bots(open_page, "standard", 4, "Rae")
    play_one_hand(page)
    table_id = page.url.rsplit("/", 1)[1]
    hand = page.request.get(f"/api/tables/{table_id}/history").json()["hands"][0]
    names = [seat["name"] for seat in page.request.get(f"/api/tables/{table_id}").json()["seats"]]
    # The review names seats as the player's screen does (bots by where they sit on it);
    # the record keeps the names the server gave.
    shown_names = ["Rae", "Bot on your left", "Bot across", "Bot on your right"]
    plays = hand["plays"]
    assert len(plays) == 13

    page.locator('.scorepad .replay[data-hand="1"]').click()
    dialog = page.locator("#review-dialog")
    dialog.wait_for()
    page.keyboard.press("Home")
    shown = page.evaluate(SHOWN)
    assert shown["title"] == "Hand 1 — The deal"
    assert [Counter(cards) for cards in shown["seats"]] == [Counter(d) for d in hand["deal"]]
    for side in hand["sides"]:
        assert f"{side['points']:+d}".replace("+0", "0") in shown["score"]

    left = [Counter(cards) for cards in hand["deal"]]
    for number, trick in enumerate(plays, start=1):
        page.keyboard.press("ArrowRight")
        shown = page.evaluate(SHOWN)
        assert shown["title"] == f"Hand 1 — Trick {number} of 13"
        assert shown["trick"] == [[play["seat"], play["card"]] for play in trick["cards"]]
        assert shown["winner"] == f"{shown_names[trick['winner']]} took it"
        for play in trick["cards"]:
            left[play["seat"]][play["card"]] -= 1
        assert [Counter(cards) for cards in shown["seats"]] == [+seat for seat in left]
    assert shown["seats"] == [[], [], [], []], "cards left after the last trick"
    page.keyboard.press("ArrowRight")  # nothing after the last trick
    assert page.evaluate(SHOWN)["title"] == "Hand 1 — Trick 13 of 13"
    page.keyboard.press("ArrowLeft")
    assert page.evaluate(SHOWN)["title"] == "Hand 1 — Trick 12 of 13"
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    screenshot(page, "review", full_page=False)
    page.keyboard.press("End")
    assert page.evaluate(SHOWN)["title"] == "Hand 1 — Trick 13 of 13"
    page.keyboard.press("Escape")
    dialog.wait_for(state="hidden")

    with page.expect_download() as download:
        page.locator(".scorepad .download-record").click()
    record = json.loads(Path(download.value.path()).read_text())
    assert record["table"]["id"] == table_id and record["table"]["preset"] == "standard"
    assert [seat["name"] for seat in record["seats"]] == names
    assert record["table"]["rules"]["target_score"] == 500
    assert record["hands"][0] == hand


ADVICE = """() => {
  const box = document.querySelector('#review-dialog .review-advice');
  return box ? { text: box.textContent, lines: [...box.querySelectorAll('li')].map((li) =>
    ({ text: li.textContent, differs: li.classList.contains('differs') })) } : null;
}"""


def card_said(code: str) -> str:
    """How the page says a card inside a sentence: "the queen of hearts"."""
    ranks = {"A": "ace", "K": "king", "Q": "queen", "J": "jack", "T": "ten", "10": "ten"}
    numbers = {"2": "two", "3": "three", "4": "four", "5": "five", "6": "six", "7": "seven",
               "8": "eight", "9": "nine"}  # fmt: skip
    suits = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
    rank = code[:-1]
    return f"the {ranks.get(rank) or numbers[rank]} of {suits[code[-1]]}"


def test_the_review_shows_the_experts_choice_beside_the_players_own(open_page) -> None:
    """A seated player's review says, at the deal, their bid beside the expert's, and at
    each trick the card they played beside the expert's, with how many it agreed with."""
    page = seat_with_bots(open_page, "standard", 4, "Rae")
    play_one_hand(page)
    table_id = page.url.rsplit("/", 1)[1]
    hand = page.request.get(f"/api/tables/{table_id}/history").json()["hands"][0]
    page.locator('.scorepad .replay[data-hand="1"]').click()
    page.locator("#review-dialog").wait_for()
    page.wait_for_function(
        "() => /agrees with \\d+ of your \\d+ choices/"
        ".test(document.querySelector('#review-dialog .review-advice')?.textContent ?? '')",
        timeout=60_000,
    )
    page.keyboard.press("Home")
    advice = page.evaluate(ADVICE)
    counts = re.findall(r"agrees with (\d+) of your (\d+)", advice["text"])[0]
    agreed, total = int(counts[0]), int(counts[1])
    assert 0 <= agreed <= total and total >= 5
    bid = hand["bids"][0]
    said_bid = "nil" if bid == 0 else str(bid)
    assert advice["lines"], advice
    assert advice["lines"][0]["text"].startswith(f"You chose a bid of {said_bid};")
    differing = advice["lines"][0]["differs"]
    for trick in hand["plays"]:
        page.keyboard.press("ArrowRight")
        lines = page.evaluate(ADVICE)["lines"]
        mine = next(play["card"] for play in trick["cards"] if play["seat"] == 0)
        assert len(lines) <= 1
        if lines:
            assert lines[0]["text"].startswith(f"You chose {card_said(mine)};"), lines
            assert ("the expert agrees" in lines[0]["text"]) != lines[0]["differs"]
            differing += lines[0]["differs"]
    assert differing == total - agreed
    screenshot(page, "review-advice", full_page=False)
