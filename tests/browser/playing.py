"""What a player does at the table page, shared by the browser tests: sit down with
bots, read the hand, and do whatever the page offers (bid or play) by clicking."""

from __future__ import annotations

import json
import time
from collections.abc import Callable

# What a player page offers right now: the first enabled bid button, else the first
# playable card of the hand. Read from the page only, as a player would.
OFFER = """() => {
  const bid = document.querySelector('#action-panel button.bid:not(.nil):not([disabled])');
  if (bid) return {bid: bid.dataset.bid};
  const card = document.querySelector('#hand button.card.playable:not([disabled])');
  if (card) return {card: card.dataset.card};
  return null;
}"""


def as_host(table: dict) -> str:
    """An init script that gives a browser the host token and invite, as the lobby does."""
    keep = {
        f"spades.host.{table['id']}": table["host_token"],
        f"spades.invite.{table['id']}": table["invite"],
    }
    return "".join(
        f"localStorage.setItem({json.dumps(key)}, {json.dumps(json.dumps(value))});"
        for key, value in keep.items()
    )


def hand_of(page) -> list[str]:
    return page.eval_on_selector_all("#hand .card.face", "cards => cards.map(c => c.dataset.card)")


def sit(page, seat: int, name: str) -> None:
    """Take a seat through the page, as a player does: name field, then Sit here."""
    page.locator("#player-name").fill(name)
    page.locator(f'.seat[data-seat="{seat}"] button.sit').click()
    page.locator(f'.seat[data-seat="{seat}"] .badge.you').wait_for()


def take_seats(open_page, table_url: str, names: list[str]) -> list:
    """Each name takes its seat (in order) through the page: name field, then Sit here.
    `table_url` is the invite link of a private table (or any link to a listed one)."""
    players = []
    for seat, name in enumerate(names):
        page = open_page(table_url)
        sit(page, seat, name)
        players.append(page)
    return players


def act_once(page, seat: int) -> bool:
    """Do what the page offers, if anything; wait until the server has taken it."""
    offer = page.evaluate(OFFER)
    if offer is None:
        return False
    if "bid" in offer:
        page.locator(f'#action-panel button.bid[data-bid="{offer["bid"]}"]').click()
        page.wait_for_function("!document.querySelector('#action-panel .bidding')")
        return True
    before = ",".join(hand_of(page))
    card = page.locator(f'#hand button.card[data-card="{offer["card"]}"]')
    if seat == 0:  # seat 0 plays with the keyboard only
        card.focus()
        page.keyboard.press("Enter")
    else:
        card.click()
    try:
        # The hand changes: the card left it (or, after the last trick, a new hand came,
        # which may hold the same card again).
        page.wait_for_function(
            "(before) => [...document.querySelectorAll('#hand .face')]"
            ".map(c => c.dataset.card).join(',') !== before",
            arg=before,
        )
    except Exception as timeout:
        raise AssertionError(
            f"{offer['card']} was played, the hand did not change: {page_story(page)}"
        ) from timeout
    return True


def page_story(page) -> str:
    """What the page says now, for a failure message."""
    return page.evaluate(
        """() => ({
            turn: document.getElementById('turn-label').textContent,
            toast: document.getElementById('toast').hidden ? null
                : document.getElementById('toast').textContent,
            banner: document.getElementById('connection-banner').textContent,
            playable: [...document.querySelectorAll('#hand .playable')].map(c => c.dataset.card),
            phase: document.body.dataset.phase,
        })"""
    ).__repr__()


def add_bots(page, seats) -> None:
    """A bot in each of `seats`, through the page's Add bot buttons (it holds the invite)."""
    for seat in seats:
        page.locator(f'.seat[data-seat="{seat}"] button.add-bot').click()
        page.locator(f'.seat[data-seat="{seat}"] .badge.bot').wait_for()


def play_until(page, seat: int, done: Callable[[], bool], what: str, seconds: float = 240) -> None:
    """The page in `seat` does whatever it is offered until `done()`; `what` names it."""
    deadline = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < deadline, f"{what}: not within {seconds} s"
        if not act_once(page, seat):
            page.wait_for_timeout(50)


def seat_with_bots(open_page, preset: str, players: int, name: str):
    lobby = open_page("/")
    table = lobby.request.post(
        "/api/tables", data={"name": f"{preset} table", "rules": {"preset": preset}}
    ).json()
    page = open_page(table["invite_url"])  # a private table: the invite lets us sit
    sit(page, 0, name)
    add_bots(page, range(1, players))
    return page
