"""A club in the browser: made in the lobby, three friends join from its link (one on a
phone), a table started from the club page, two members play it to its end beside two
bots, and the leaderboard and the members' figures show the game, on a phone too."""

from __future__ import annotations

import time

import pytest

from tests.browser.conftest import PHONE
from tests.browser.playing import act_once, add_bots

pytestmark = pytest.mark.browser


def join(page, name: str) -> None:
    page.locator("#member-name").fill(name)
    page.locator("#join").click()
    page.locator("#club-status", has_text=f"You are {name}.").wait_for()


def test_a_club_from_the_lobby_to_its_first_rated_game(open_page) -> None:
    host = open_page("/")
    host.locator("#club-name").fill("Thursday spades")
    host.locator("#create-club").click()
    host.wait_for_url("**/c/*")
    host.locator("#club-title", has_text="Thursday spades").wait_for()
    join(host, "Hana")
    link = host.locator("#club-invite-link").input_value()
    assert "#invite=" in link
    club_path = link.split("#")[0].removeprefix(host.url.split("/c/")[0])

    friends = {}
    for name, viewport in (("Finn", None), ("Gus", PHONE), ("Ivy", None)):
        page = open_page(link.removeprefix(host.url.split("/c/")[0]), viewport=viewport)
        join(page, name)
        friends[name] = page
    host.locator("#leaderboard tbody tr").nth(3).wait_for()

    # The host starts a short club table from the club page and sits down as Hana.
    host.locator("#start-preset").select_option("standard")
    host.locator("#start-target").fill("100")
    host.locator("#start-table").click()
    host.wait_for_url("**/t/*")
    host.locator('.seat[data-seat="0"] .badge.you').wait_for()
    table_id = host.url.split("/t/")[1].split("?")[0].split("#")[0]

    # Finn sees the table on the club page and sits down as himself, with no invite.
    finn = friends["Finn"]
    finn.locator(f'#club-tables li[data-table="{table_id}"] button.sit-club').click()
    finn.wait_for_url(f"**/t/{table_id}")
    finn.locator('.seat[data-seat="1"] .badge.you').wait_for()
    assert "Finn" in finn.locator('.seat[data-seat="1"]').text_content()
    add_bots(host, (2, 3))

    players = [(host, 0), (finn, 1)]
    deadline = time.monotonic() + 300
    while not all(page.locator(".game-over").count() for page, _ in players):
        assert time.monotonic() < deadline, "the club game did not end"
        if not any([act_once(page, seat) for page, seat in players]):
            host.wait_for_timeout(50)

    # Gus, on his phone, sees the game on the club page: the leaderboard and figures.
    gus = friends["Gus"]
    gus.goto(club_path)
    gus.locator("#club-games li.club-game").first.wait_for()
    game = gus.locator("#club-games li.club-game").first.text_content()
    assert "Hana" in game and "Finn" in game and "rated" in game and "bots or guests" in game
    rows = gus.locator("#leaderboard tbody tr")
    rows.nth(3).wait_for()
    board = {
        row.locator("th").text_content().strip(): row.locator("td").all_text_contents()
        for row in rows.all()
    }
    assert board["Hana"][1] == "1" and board["Finn"][1] == "1"
    assert board["Gus (you)"][1] == "0" and board["Ivy"][1] == "0"
    wins = int(board["Hana"][2]) + int(board["Finn"][2])
    assert wins == 1
    ratings = [float(board[name][0].split()[0]) for name in ("Hana", "Finn")]
    assert ratings[0] != ratings[1]
    hana = gus.locator('#members details[data-member] >> text="Hana"').first
    hana.click()
    figures = gus.locator("#members details[open] .figures").first
    assert "Hands" in figures.text_content()
    width = gus.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], f"the club page is wider than the phone: {width}"

    # Gus continues on another device: the link (and its QR code) makes that browser him.
    gus.get_by_role("button", name="Continue on another device").click()
    gus.locator("#link-dialog svg.qr").wait_for()
    moved = gus.locator("#link-dialog-link").input_value()
    assert "#member=" in moved
    laptop = open_page(moved.removeprefix(host.url.split("/c/")[0]))
    laptop.locator("#club-status", has_text="You are Gus.").wait_for()
    assert laptop.url.endswith(club_path.split("#")[0]) and "#" not in laptop.url
