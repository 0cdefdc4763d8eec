"""Seats before the game: a watcher who may not sit sees each empty seat as just that,
leave a seat (the token is forgotten), the name is remembered for the next table, the
spades-first choice survives a reload, and the level of new bots is chosen and
remembered."""

from __future__ import annotations

import pytest

from tests.browser.conftest import screenshot
from tests.browser.playing import sit

pytestmark = pytest.mark.browser


def test_a_watcher_who_may_not_sit_sees_empty_seats_and_nothing_else(open_page) -> None:
    lobby = open_page("/")
    table = lobby.request.post("/api/tables", data={"name": "Repro"}).json()
    watcher = open_page(table["url"])  # the watch link, in a browser without the invite
    watcher.locator(".seat.empty").nth(3).wait_for()
    assert watcher.locator(".seat").all_inner_texts() == ["Empty seat"] * 4
    assert watcher.locator(".seat button").count() == 0
    labels = [plate.get_attribute("aria-label") for plate in watcher.locator(".seat").all()]
    assert labels == [
        "Empty seat at the bottom", "Empty seat on the left",
        "Empty seat at the top", "Empty seat on the right",
    ]  # fmt: skip


def test_leave_seat_before_the_start_and_name_is_remembered(open_page) -> None:
    lobby = open_page("/")
    table = lobby.request.post("/api/tables", data={"name": "Leaving"}).json()
    page = open_page(table["invite_url"])
    sit(page, 1, "Lee")
    assert page.evaluate(f"localStorage.getItem('spades.seat.{table['id']}')")

    page.get_by_role("button", name="Leave seat").click()
    page.locator('.seat[data-seat="1"].empty').wait_for()
    assert page.evaluate(f"localStorage.getItem('spades.seat.{table['id']}')") is None
    info = page.request.get(f"/api/tables/{table['id']}").json()
    assert info["seats"][1]["name"] is None
    assert page.locator("#player-name").input_value() == "Lee"


def test_spades_first_choice_is_remembered_across_a_reload(open_page) -> None:
    lobby = open_page("/")
    table = lobby.request.post("/api/tables", data={"name": "Order"}).json()
    page = open_page(table["invite_url"])
    sit(page, 0, "Ord")
    for seat in (1, 2, 3):
        page.locator(f'.seat[data-seat="{seat}"] button.add-bot').click()
    page.wait_for_function("document.querySelectorAll('#hand .face').length === 13")
    suits = "cards => cards.map(c => c.getAttribute('aria-label').split(' of ').pop())"

    def order() -> list[str]:
        return page.eval_on_selector_all("#hand .face", suits)

    has_spade = "spades" in order()
    page.get_by_label("Spades first").check()
    if has_spade:
        assert order()[0] == "spades"
    page.reload()
    page.wait_for_function("document.querySelectorAll('#hand .face').length === 13")
    assert page.get_by_label("Spades first").is_checked()
    if has_spade:
        assert order()[0] == "spades"
    page.get_by_label("Spades first").uncheck()
    if has_spade and set(order()) != {"spades"}:
        assert order()[-1] == "spades"


def test_bot_level_is_chosen_shown_and_remembered(open_page) -> None:
    lobby = open_page("/")
    table = lobby.request.post("/api/tables", data={"name": "Levels"}).json()
    page = open_page(table["invite_url"])
    choice = page.get_by_label("Level of bots added here")
    assert choice.input_value() == "expert"  # unless the player chooses otherwise
    page.locator('.seat[data-seat="1"] button.add-bot').click()
    page.locator('.seat[data-seat="1"] .badge.bot').wait_for()

    choice.select_option(label="Basic (easier)")
    page.locator('.seat[data-seat="2"] button.add-bot').click()
    page.locator('.seat[data-seat="2"] .badge.bot').wait_for()
    screenshot(page, "waiting-bot-levels")
    seats = page.request.get(f"/api/tables/{table['id']}").json()["seats"]
    assert [seat["bot"] for seat in seats] == [None, "expert", "basic", None]
    assert "expert" in page.locator('.seat[data-seat="1"]').inner_text()
    assert "basic" in page.locator('.seat[data-seat="2"]').inner_text()

    page.reload()
    assert page.get_by_label("Level of bots added here").input_value() == "basic"
    # Once every seat is taken there is no bot to add, and no choice to show.
    page.locator('.seat[data-seat="3"] button.add-bot').click()
    sit(page, 0, "Lev")
    page.locator("#bot-level-choice").wait_for(state="hidden")
