"""One player against three bots to the end of a short game: the game-over panel names
the winner with the final scores, the series tally counts the game, and Rematch starts
a new game at the same table with the tally kept; "Play these rules again" links the
game's rules."""

from __future__ import annotations

import pytest

from tests.browser.conftest import screenshot
from tests.browser.playing import act_once, sit

pytestmark = pytest.mark.browser


def test_game_over_shows_winner_and_rematch_starts_a_new_game(open_page) -> None:
    lobby = open_page("/")
    table = lobby.request.post(
        "/api/tables",
        data={"name": "Short game", "rules": {"preset": "standard", "target_score": 1}},
    ).json()
    page = open_page(table["invite_url"])
    sit(page, 0, "Solo")
    for seat in (1, 2, 3):
        page.locator(f'.seat[data-seat="{seat}"] button.add-bot').click()
        page.locator(f'.seat[data-seat="{seat}"] .badge.bot').wait_for()

    for _ in range(200):
        if page.locator(".game-over").count():
            break
        if not act_once(page, 1):
            page.wait_for_timeout(50)
    over = page.locator(".game-over")
    over.wait_for()
    info = page.request.get(f"/api/tables/{table['id']}").json()
    assert info["status"] == "over"
    winner_side = info["winner"]
    # Bots are named by where they sit on this player's screen (never by the compass name
    # the server gives them); the sides are seats 0 & 2, 1 & 3.
    names = {0: "Solo & Bot across", 1: "Bot on your left & Bot on your right"}
    assert names[winner_side] in over.locator(":scope > h2").text_content()
    finals = [
        int(text.split()[0])
        for text in over.locator(":scope > .summary-sides li span").all_text_contents()
    ]
    assert finals == [side["score"] for side in info["scores"]]
    screenshot(page, "game-over")
    # The game's rules, offered again: the lobby's form opens with them filled in.
    again = over.get_by_role("link", name="Play these rules again")
    assert again.get_attribute("href") == info["rules_link"]
    # The series tally counts the game won; a rematch keeps it.
    tally = f"Games won: {names[0]} {int(winner_side == 0)} · {names[1]} {int(winner_side == 1)}"
    page.locator("#series-tally", has_text=tally).wait_for()

    page.get_by_role("button", name="Rematch").click()
    over.wait_for(state="detached")
    page.wait_for_function("document.querySelectorAll('#hand .face').length === 13")
    info = page.request.get(f"/api/tables/{table['id']}").json()
    assert info["status"] == "playing"
    assert info["game_number"] == 2
    assert page.locator("#series-tally").text_content() == tally
