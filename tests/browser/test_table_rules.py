"""The host changes the table's rules from the table page before the game starts: the
host panel opens the rule builder with the table's rules in it, a refusal shows beside
them, a save changes the one-line summary on every page (a spectator's too), the game
then deals under the new rules and the control is gone; on a phone it fits and the
keyboard reaches every part."""

from __future__ import annotations

import pytest

from tests.browser.conftest import LAPTOP, PHONE, screenshot
from tests.browser.playing import as_host, sit

pytestmark = pytest.mark.browser


def create(page, **body) -> dict:
    answer = page.request.post("/api/tables", data={"name": "Rules night", **body})
    assert answer.status == 201, answer.text()
    return answer.json()


def info(page, table_id: str) -> dict:
    return page.request.get(f"/api/tables/{table_id}").json()


def test_the_host_changes_the_rules_then_the_game_plays_them(open_page) -> None:
    lobby = open_page("/")
    table = create(lobby, rules={"preset": "standard"})
    host = open_page(table["url"], init_script=as_host(table))
    panel = host.locator("#host-panel")
    panel.wait_for()
    sit(host, 0, "Hal")
    watcher = open_page(table["url"])
    watcher.locator("#rules-summary", has_text="Standard").wait_for()

    change = panel.get_by_role("button", name="Change the rules…")
    change.click()
    # The builder opens on the table's rules, the keyboard on its chosen preset.
    chosen = panel.locator('#host-preset-list input[value="standard"]')
    chosen.wait_for()
    assert chosen.is_checked()
    assert host.evaluate("document.activeElement.value") == "standard"
    panel.locator("#host-rules-live-summary", has_text="to 500").wait_for()

    # A refusal from the server shows in the panel, naming the rule; nothing changes.
    panel.locator("#host-house-rules > summary").click()
    panel.locator("#host-rule-target_score").fill("0")
    panel.get_by_role("button", name="Save rules").click()
    panel.locator("#host-rules-error", has_text="target_score").wait_for()
    assert info(host, table["id"])["rules"]["target_score"] == 500

    # Cancel leaves the rules as they were and gives the keyboard back to the button.
    panel.get_by_role("button", name="Cancel").click()
    change.wait_for()
    assert host.evaluate("document.activeElement.classList.contains('change-rules')")

    change.click()
    panel.locator('#host-preset-list input[value="whiz"]').check()
    panel.locator("#host-house-rules > summary").click()
    target = panel.locator("#host-rule-target_score")
    target.fill("200")
    panel.locator("#host-rules-live-summary", has_text="to 200").wait_for()
    # A friend adds a bot meanwhile: the state that follows leaves the builder as it was,
    # the keyboard where it was.
    joined = host.request.post(
        f"/api/tables/{table['id']}/seats/1/bot", data={"level": "basic", "invite": table["invite"]}
    )
    assert joined.status == 201, joined.text()
    panel.locator('.host-seat[data-seat="1"]', has_text="Bot").wait_for()
    assert host.evaluate("document.activeElement.id") == "host-rule-target_score"
    assert target.input_value() == "200"
    assert panel.locator("#host-house-rules").get_attribute("open") is not None
    screenshot(host, "host-table-rules-open")
    panel.get_by_role("button", name="Save rules").click()

    # Every page's one-line summary follows, the spectator's too.
    for page in (host, watcher):
        page.locator("#rules-summary", has_text="Whiz").wait_for()
        assert "to 200" in page.locator("#rules-summary").text_content()
    panel.locator("#host-rules-said", has_text="Saved: Whiz").wait_for()
    assert host.evaluate("document.activeElement.classList.contains('change-rules')")
    shown = info(host, table["id"])["rules"]
    assert (shown["bidding"], shown["target_score"]) == ("whiz", 200)

    # Bots fill the table: the game deals under the new rules, and the rules are kept.
    for seat in (2, 3):
        host.locator(f'.seat[data-seat="{seat}"] button.add-bot').click()
        host.locator(f'.seat[data-seat="{seat}"] .badge.bot').wait_for()
    host.wait_for_function("document.querySelectorAll('#hand .face').length === 13")
    assert panel.locator(".host-rules").count() == 0
    assert "Whiz" in watcher.locator("#rules-summary").text_content()
    playing = info(host, table["id"])
    assert playing["status"] == "playing" and playing["rules"]["bidding"] == "whiz"
    # A whiz bid is your spades or nil: the bid panel offers nothing else.
    host.locator("#action-panel .bidding").wait_for()
    spades = sum(
        card.endswith("S")
        for card in host.eval_on_selector_all(
            "#hand .card.face", "cards => cards.map(c => c.dataset.card)"
        )
    )
    offered = host.eval_on_selector_all(
        "#action-panel button.bid:not([disabled])", "buttons => buttons.map(b => b.dataset.bid)"
    )
    assert set(offered) <= {"0", str(spades)}, (offered, spades)


def test_the_rule_builder_fits_a_phone_and_the_keyboard_reaches_it(open_page) -> None:
    lobby = open_page("/")
    table = create(lobby)
    host = open_page(table["url"], init_script=as_host(table), viewport=PHONE)
    host.locator("#panels-toggle").click()
    panel = host.locator("#host-panel")
    panel.wait_for()
    change = panel.get_by_role("button", name="Change the rules…")
    change.focus()
    host.keyboard.press("Enter")
    panel.locator("#host-preset-list input:checked").wait_for()
    panel.locator("#host-house-rules > summary").click()
    width = host.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the rule builder scrolls sideways on a phone ({width} px)"
    # Tab goes through the builder to its buttons.
    panel.get_by_role("button", name="Save rules").focus()
    host.keyboard.press("Tab")
    assert host.evaluate("document.activeElement.textContent") == "Cancel"
    host.keyboard.press("Enter")
    change.wait_for()
    screenshot(host, "host-table-rules-phone")
    host.set_viewport_size(LAPTOP)
