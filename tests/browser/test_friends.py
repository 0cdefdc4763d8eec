"""Friends' tables in the browser: a private table made in the lobby and played by four
friends through its invite link (the host lets a bot play for one who left); a stranger
with the watch link cannot sit down; a player continues on a phone from their personal
link; the host's seat controls; the turn timer's countdown and the moves it makes."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import LAPTOP, PHONE, screenshot
from tests.browser.playing import act_once, as_host, hand_of, sit, take_seats

pytestmark = pytest.mark.browser

TABLE_ID = re.compile(r"/t/([^/?#]+)$")


def create(page, **body) -> dict:
    answer = page.request.post("/api/tables", data={"name": "Friends", **body})
    assert answer.status == 201, answer.text()
    return answer.json()


def info(page, table_id: str) -> dict:
    return page.request.get(f"/api/tables/{table_id}").json()


def test_four_friends_play_a_private_table_and_the_host_stands_in_a_bot(open_page) -> None:
    host = open_page("/")
    host.locator("#house-rules > summary").click()
    host.locator("#rule-target_score").fill("1")  # the first hand won decides the game
    host.locator("#table-name").fill("Friday friends")
    host.get_by_role("button", name="Play with friends").click()
    host.wait_for_url(TABLE_ID)
    table_id = TABLE_ID.search(host.url).group(1)
    invite = host.locator("#invite-link").input_value()
    assert re.search(rf"/t/{table_id}#invite=\S{{16,}}", invite), invite
    assert host.locator("#watch-link").input_value().endswith(f"/t/{table_id}")
    table = info(host, table_id)
    assert table["listed"] is False
    assert table["rules"]["target_score"] == 1
    assert table_id not in [row["id"] for row in host.request.get("/api/tables").json()]
    host.locator("#host-panel").wait_for()
    screenshot(host, "friends-created")

    friends = take_seats(open_page, invite, ["Ann", "Bo", "Cy", "Dee"])
    assert "#" not in friends[0].url, "the invite stays in the address bar"
    assert friends[0].evaluate(f"JSON.parse(localStorage.getItem('spades.invite.{table_id}'))")
    for friend in friends:
        assert friend.locator("#host-panel").is_hidden()  # friends are not the host
    friends[0].wait_for_function("document.querySelectorAll('#hand .face').length === 13")

    friends[3].close()  # Dee leaves for good
    away = host.locator('.seat[data-seat="3"] .presence.offline')
    away.wait_for()
    row = host.locator('#host-panel .host-seat[data-seat="3"]')
    assert "away" in row.text_content()
    screenshot(host, "friends-host-away")
    row.get_by_role("button", name="Let a bot play").click()
    host.locator('.seat[data-seat="3"]', has_text="away (bot plays)").wait_for()
    assert info(host, table_id)["seats"][3]["autoplay"] is True

    players = friends[:3]
    for _ in range(600):
        if host.locator(".game-over").count():
            break
        acted = False
        for seat, page in enumerate(players):
            acted = act_once(page, seat) or acted
        if not acted:
            players[0].wait_for_timeout(50)
    host.locator(".game-over").wait_for()
    final = info(host, table_id)
    assert final["status"] == "over"
    assert final["winner"] is not None
    players[0].locator(".game-over").wait_for()
    screenshot(host, "friends-over")


def test_a_stranger_with_the_watch_link_cannot_sit_or_add_bots(open_page) -> None:
    lobby = open_page("/")
    table = create(lobby)
    stranger = open_page(table["url"])
    stranger.locator(".seat").first.wait_for()
    panel = stranger.locator("#action-panel")
    panel.get_by_text("private table").wait_for()
    assert stranger.locator("button.sit, button.add-bot").count() == 0
    assert stranger.locator("#bot-level-choice").is_hidden()
    assert stranger.locator("#invite-link").count() == 0  # only the watch link
    assert stranger.locator("#host-panel").is_hidden()

    before = info(stranger, table["id"])
    seat = stranger.request.post(f"/api/tables/{table['id']}/seats/0", data={"name": "Eve"})
    bot = stranger.request.post(f"/api/tables/{table['id']}/seats/1/bot", data={"level": "basic"})
    guess = stranger.request.post(
        f"/api/tables/{table['id']}/seats/0", data={"name": "Eve", "invite": "x" * 22}
    )
    assert (seat.status, bot.status, guess.status) == (403, 403, 403)

    # With a wrong invite the page offers the buttons, and shows the server's refusal.
    stranger.evaluate(
        f"localStorage.setItem('spades.invite.{table['id']}', JSON.stringify('{'y' * 22}'))"
    )
    stranger.reload()
    stranger.locator("#player-name").fill("Eve")
    stranger.locator('.seat[data-seat="0"] button.sit').click()
    toast = stranger.locator("#toast")
    toast.wait_for()
    assert toast.text_content()
    stranger.locator('.seat[data-seat="1"] button.add-bot').click()
    after = info(stranger, table["id"])
    assert [s["name"] for s in after["seats"]] == [None] * 4
    assert after["version"] == before["version"]


def test_a_phone_continues_in_the_seat_from_the_personal_link(open_page) -> None:
    lobby = open_page("/")
    table = create(lobby)
    page = open_page(table["invite_url"])
    sit(page, 0, "Pia")
    for seat in (1, 2, 3):
        page.locator(f'.seat[data-seat="{seat}"] button.add-bot').click()
    page.wait_for_function("document.querySelectorAll('#hand .face').length === 13")
    hand = sorted(hand_of(page))

    page.get_by_role("button", name="Continue on another device").click()
    dialog = page.locator("#link-dialog")
    dialog.wait_for()
    link = dialog.locator("#link-dialog-link").input_value()
    assert re.search(rf"/t/{table['id']}#seat=\S+&invite=\S+", link), link
    dialog.locator("svg[role='img']").wait_for()
    assert "QR" in dialog.locator("svg").get_attribute("aria-label")
    screenshot(page, "continue-dialog")
    dialog.get_by_role("button", name="Close").click()
    dialog.wait_for(state="hidden")

    phone = open_page(link, viewport=PHONE)
    phone.locator('.seat[data-seat="0"] .badge.you').wait_for()
    phone.wait_for_function("document.querySelectorAll('#hand .face').length === 13")
    assert sorted(hand_of(phone)) == hand
    assert "#" not in phone.url
    held = phone.evaluate(f"JSON.parse(localStorage.getItem('spades.seat.{table['id']}'))")
    assert held["seat"] == 0 and held["token"] in link
    screenshot(phone, "continue-phone")
    # The phone plays the seat: its move shows on the laptop too.
    for _ in range(100):
        if act_once(phone, 1):
            break
        phone.wait_for_timeout(50)
    else:
        pytest.fail("the phone was never offered a move")


def test_the_host_moves_removes_hands_a_seat_on_and_ends_the_table(open_page) -> None:
    lobby = open_page("/")
    table = create(lobby)
    host = open_page(table["url"], init_script=as_host(table))
    host.locator("#host-panel").wait_for()
    sit(host, 0, "Hal")
    friend = open_page(table["invite_url"])
    sit(friend, 1, "Fay")
    panel = host.locator("#host-panel")

    # Move Fay from seat 2 to seat 3 (an empty seat), then add and remove a bot.
    fay = panel.locator('.host-seat[data-seat="1"]')
    fay.get_by_label("New seat for Fay").select_option("2")
    fay.get_by_role("button", name="Move Fay to the chosen seat").click()
    friend.locator('.seat[data-seat="2"] .badge.you').wait_for()
    assert info(host, table["id"])["seats"][2]["name"] == "Fay"
    host.locator('.seat[data-seat="1"] button.add-bot').click()
    panel.locator('.host-seat[data-seat="1"]', has_text="bot").get_by_role(
        "button", name="Remove"
    ).click()
    host.locator('.seat[data-seat="1"].empty').wait_for()

    panel.get_by_label("Turn timer").select_option("60")
    panel.get_by_role("button", name="Set timer").click()
    panel.get_by_text("Now: 60 s a move").wait_for()
    assert info(host, table["id"])["turn_seconds"] == 60
    screenshot(host, "host-controls-waiting")

    for seat in (1, 3):
        host.locator(f'.seat[data-seat="{seat}"] button.add-bot').click()
    host.wait_for_function("document.querySelectorAll('#hand .face').length === 13")
    host.locator('.seat[data-seat="0"] .countdown').or_(
        host.locator('.seat[data-seat="2"] .countdown')
    ).first.wait_for()

    # Fay's seat goes to someone new: her page watches, the new player's link seats them.
    panel.locator('.host-seat[data-seat="2"]').get_by_role(
        "button", name="Give the seat across to someone new"
    ).click()
    panel.get_by_label("New player's name").fill("Nia")
    panel.get_by_role("button", name="Give seat", exact=True).click()
    dialog = host.locator("#link-dialog")
    dialog.wait_for()
    link = dialog.locator("#link-dialog-link").input_value()
    assert "#seat=" in link
    dialog.locator("svg").wait_for()
    screenshot(host, "host-reissue")
    dialog.get_by_role("button", name="Close").click()
    friend.locator('.seat[data-seat="2"] .badge.you').wait_for(state="detached")
    newcomer = open_page(link)
    newcomer.locator('.seat[data-seat="2"] .badge.you').wait_for()
    newcomer.wait_for_function("document.querySelectorAll('#hand .face').length > 0")

    host.set_viewport_size(PHONE)
    width = host.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the host's page scrolls sideways on a phone ({width} px)"
    screenshot(host, "host-controls-phone")
    host.set_viewport_size(LAPTOP)

    panel.get_by_role("button", name="End table…").click()
    panel.get_by_role("button", name="Yes, end the table").click()
    for page in (host, friend, newcomer):
        page.get_by_text("The host ended this table.").wait_for()
        assert page.locator("button.sit, button.add-bot, #action-panel button").count() == 0
    assert host.locator("#host-panel").is_hidden()
    assert info(host, table["id"])["status"] == "ended"
    screenshot(newcomer, "table-ended")


def test_turn_timer_counts_down_then_moves_and_hands_the_seat_to_a_bot(open_page) -> None:
    lobby = open_page("/")
    table = create(lobby, listed=True, turn_seconds=5)
    page = open_page(table["url"])
    sit(page, 0, "Tim")
    for seat in (1, 2, 3):
        page.locator(f'.seat[data-seat="{seat}"] button.add-bot').click()
    page.wait_for_function("document.querySelectorAll('#hand .face').length === 13")

    countdown = page.locator('.seat[data-seat="0"] .countdown')
    countdown.wait_for()
    assert re.fullmatch(r"\d+ s left!?", countdown.text_content())
    page.locator('.seat[data-seat="0"].hurry .countdown', has_text="s left!").wait_for()
    screenshot(page, "timer-hurry")
    page.wait_for_function(
        "document.getElementById('timer-alert').textContent.includes('seconds left')"
    )
    # The timer moves for Tim (a bid, or a card), and the seat says so.
    page.locator('.seat[data-seat="0"] .timer-note').wait_for(timeout=15_000)
    moved = page.evaluate("document.querySelectorAll('#hand .face').length") < 13 or (
        "/" in page.locator('.seat[data-seat="0"] .tricks').text_content()
    )
    assert moved

    # A second timed-out move in a row: a bot plays for Tim until he is back.
    banner = page.locator("#notice", has_text="A bot is playing for you")
    banner.wait_for(timeout=15_000)
    assert "bot plays (timed out)" in page.locator('.seat[data-seat="0"]').text_content()
    screenshot(page, "timer-autoplay")
    banner.get_by_role("button", name="I'm back").click()
    banner.wait_for(state="hidden")
    seat = info(page, table["id"])["seats"][0]
    assert not seat.get("autoplay")

    # The hand's timed-out moves are listed by the score pad once the hand is over.
    history = page.locator("#scorepad .timer-moves")
    history.wait_for(timeout=30_000)
    assert "Tim" in history.text_content()
