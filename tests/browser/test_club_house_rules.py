"""A club's house rules in the browser: its host sets them with the rule builder on the
club page (a refusal said next to the rules, naming the field), the page shows their
summary, and a table started "with the house rules" plays them; the club's game list
offers "Play these rules again", which opens the lobby's form with them filled in."""

from __future__ import annotations

import pytest

from tests.browser.conftest import PHONE, screenshot
from tests.browser.test_axe import serious_violations

pytestmark = pytest.mark.browser

HOUSE = "Whiz · to 300 · lose at -200 · no bags"


def test_the_host_sets_house_rules_and_a_club_table_plays_them(open_page) -> None:
    lobby = open_page("/")
    club = lobby.request.post("/api/clubs", data={"name": "House night"}).json()
    host = open_page(f"/c/{club['id']}#host={club['host_token']}", viewport=PHONE)
    section = host.locator("#house-rules-section")
    section.get_by_text("None set").wait_for()
    section.get_by_text("Change the house rules").click()
    section.locator('input[name="club-preset"][value="whiz"]').check()
    host.locator("#club-rule-target_score").fill("0")
    host.locator("#club-rules-error", has_text="target_score").wait_for()
    host.locator("#club-rule-target_score").fill("300")
    host.locator("#club-rule-bags").uncheck()
    host.locator("#club-rules-live-summary", has_text=HOUSE).wait_for()
    assert host.locator("#club-rules-error").text_content() == ""
    host.get_by_role("button", name="Save the house rules").click()
    host.locator("#club-house-summary", has_text=HOUSE).wait_for()
    width = host.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the club page scrolls sideways at 360 px ({width} px)"
    screenshot(host, "club-house-rules-360")
    assert serious_violations(host) == [], "axe: the club page with the house rules' builder"

    # The start form offers them first; the table started with them plays them.
    host.locator("#start-preset").locator("option", has_text=HOUSE).first.wait_for(state="attached")
    assert host.locator("#start-preset").input_value() == ""
    host.locator("#start-table").click()
    host.wait_for_url("**/t/*")
    host.locator("#rules-summary", has_text=HOUSE).wait_for(state="attached")  # folded on a phone
    table_id = host.url.split("/t/")[1].split("?")[0]

    # Ended by its host, the game is listed: its rules open the lobby's form again.
    created = host.request.get(f"/api/tables/{table_id}").json()
    again = open_page(created["rules_link"])
    again.locator("#rules-live-summary", has_text=HOUSE).wait_for()
    assert again.locator('#preset-list input[value="whiz"]').is_checked()
    assert again.locator("#rule-target_score").input_value() == "300"
    assert not again.locator("#rule-bags").is_checked()
