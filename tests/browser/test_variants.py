"""Tables of 2, 3 and 6 players: every seat has its place around the felt, and the
two-player draw is decided by clicking Keep or Discard on the shown card."""

from __future__ import annotations

import pytest

from tests.browser.conftest import screenshot
from tests.browser.playing import act_once, seat_with_bots

pytestmark = pytest.mark.browser


def boxes_overlap(a: dict, b: dict) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


@pytest.mark.parametrize(("preset", "players"), [("cutthroat", 3), ("six_player", 6)])
def test_every_seat_has_its_own_place_on_the_felt(open_page, preset: str, players: int) -> None:
    page = seat_with_bots(open_page, preset, players, "Host")
    page.wait_for_function("document.querySelectorAll('#hand .face').length > 0")
    felt = page.locator("#felt").bounding_box()
    plates = [page.locator(f'.seat[data-seat="{seat}"]').bounding_box() for seat in range(players)]
    for plate in plates:
        assert felt["x"] <= plate["x"] and plate["x"] + plate["width"] <= felt["x"] + felt["width"]
        assert (
            felt["y"] <= plate["y"] and plate["y"] + plate["height"] <= felt["y"] + felt["height"]
        )
    for index, plate in enumerate(plates):
        for other in plates[index + 1 :]:
            assert not boxes_overlap(plate, other), f"two seat plates overlap at {players} players"
    assert "pos-bottom" in page.locator('.seat[data-seat="0"]').get_attribute("class")
    screenshot(page, f"table-{players}-players")


def test_two_player_draw_is_decided_on_the_shown_card(open_page) -> None:
    page = seat_with_bots(open_page, "two_player", 2, "Duo")
    kept: list[str] = []
    decisions = 0
    for _ in range(300):
        draw = page.locator("#action-panel .draw")
        if draw.count():
            shown = draw.locator(".card").get_attribute("data-card")
            assert draw.locator(".card").get_attribute("aria-label")
            choice = "Keep it" if len(kept) % 2 == 0 else "Discard, take the next"
            decisions += 1
            if choice == "Keep it":
                kept.append(shown)
            page.get_by_role("button", name=choice).click()
            page.wait_for_function(
                "(card) => !document.querySelector(`#action-panel .draw [data-card='${card}']`)",
                arg=shown,
            )
            continue
        if page.locator("#action-panel .bidding").count():
            break
        page.wait_for_timeout(50)
    hand = page.eval_on_selector_all("#hand .face", "cards => cards.map(c => c.dataset.card)")
    assert decisions == 13, "each player decides 13 times in the draw"
    assert len(hand) == 13
    assert set(kept) <= set(hand)
    assert act_once(page, 1), "the bid panel offered no bid"
