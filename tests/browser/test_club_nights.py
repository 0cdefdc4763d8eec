"""A club night in the browser: the host starts a night of eight from the club page (one
hand a round, two rounds), a member's page follows her from the night to her table, back
to the night for the break and on to her next table, and the standings board (the
night's watch link, on a laptop and on a phone) updates after each hand. The other seven
members never come: the night's bots play their seats. The night's pages fit every
common size and axe finds nothing serious on them."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from bench.harness.server import LiveServer
from tests.browser.conftest import LAPTOP, PHONE, screenshot
from tests.browser.playing import act_once
from tests.browser.test_axe import serious_violations
from tests.browser.test_layout import SIZES

pytestmark = pytest.mark.browser

NAMES = ["Ann", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """This module's own server: bots wait 0.15 s before each move, so that a hand lasts
    long enough (about ten seconds) for the member's page to reach her seat in it."""
    database: Path = tmp_path_factory.mktemp("night-db") / "t.db"
    env = {"SPADES_BOT_BUDGET_MS": "20", "SPADES_BOT_DELAY": "0.15"}
    with LiveServer(f"sqlite+aiosqlite:///{database}", env=env) as live:
        yield live


def standings(page) -> dict[str, list[str]]:
    """The standings board's rows: member -> [place, points, wins, games, contracts, now]."""
    rows = page.locator("#standings tbody tr")
    return {
        row.locator("th").text_content().removesuffix(" (you)").strip(): [
            cell.strip() for cell in row.locator("td").all_text_contents()
        ]
        for row in rows.all()
    }


def games_played(page) -> list[int]:
    return [int(row[3]) for row in standings(page).values()]


def table_of(page) -> str:
    return page.url.split("/t/")[1].split("#")[0]


def play_the_round(page, night_path: str, *, stay: bool = False) -> str:
    """At her table, the member plays whatever she is offered until the game is over;
    then her page takes her back to the night by itself (or, with `stay`, she chooses to
    stay, looks at the table on a phone, and goes back with the button). Returns the
    table's id."""
    page.wait_for_url("**/t/*")
    table = table_of(page)
    page.locator(".seat .badge.you").wait_for()
    deadline = time.monotonic() + 120
    while not page.locator(".game-over").count():
        assert time.monotonic() < deadline, "the round's game did not end"
        if not act_once(page, 1):
            page.wait_for_timeout(50)
    back = page.locator("#night-return .night-back")
    back.wait_for()
    assert page.locator(".game-over .rematch").is_hidden()  # the night counts one game
    if stay:
        page.locator("#night-return .night-stay").click()
        assert page.evaluate("document.activeElement.classList.contains('night-back')")
        assert "in a few seconds" not in page.locator("#night-return").text_content()
        page.set_viewport_size(PHONE)
        box = page.locator("#night-return").bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box
        assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
        assert table_of(page) == table
        screenshot(page, "club-night-table-over-360", full_page=False)
        back.click()
        page.set_viewport_size(LAPTOP)
    page.wait_for_url(f"**{night_path}", timeout=15_000)
    return table


def test_a_club_night_of_eight_from_the_club_page_to_the_final_standings(open_page) -> None:
    host = open_page("/")
    made = host.request.post("/api/clubs", data={"name": "Friday night"}).json()
    tokens = {}
    for name in NAMES:
        joined = host.request.post(
            f"/api/clubs/{made['id']}/members", data={"name": name, "invite": made["invite"]}
        ).json()
        tokens[name] = joined["token"]

    # The host (not playing) starts the night from the club page: everyone, 2 rounds of
    # 1 hand, rotating partners.
    host.goto(f"/c/{made['id']}#host={made['host_token']}")
    host.locator("#night-members input").nth(7).wait_for()
    host.locator("#night-everyone").click()
    host.locator("#night-count", has_text="8 chosen: 2 tables.").wait_for()
    assert host.locator("#night-fill").is_hidden()  # 8 fill two tables: no bots asked for
    host.locator("#night-rounds").fill("2")
    host.locator("#night-hands").fill("1")
    host.locator("#start-night").click()
    host.wait_for_url("**/night/*")
    night_path = urlsplit(host.url).path
    host.locator("#night-status", has_text="2 rounds tonight").wait_for()
    host.locator("#night-schedule > li").nth(1).wait_for()

    # Ann opens her club page: the night is on, one tap away.
    ann = open_page(f"/c/{made['id']}#member={tokens['Ann']}")
    on = ann.locator("#nights-on .night-on", has_text="A club night is on: 2 rounds, starting soon")
    on.wait_for()
    ann.locator("#nights-on a.open-night").click()
    ann.wait_for_url(f"**{night_path}")
    ann.locator("#night-you", has_text="Round 1:").wait_for()

    # The standings board from the night's watch link, on a laptop and on a phone.
    watch = host.locator("#night-watch-link").input_value()
    assert "#watch=" in watch
    link = urlsplit(watch)
    boards = [open_page(f"{link.path}#{link.fragment}", viewport=size) for size in (LAPTOP, PHONE)]
    for board in boards:
        board.locator("#standings tbody tr").nth(7).wait_for()
        assert board.url.endswith("/standings") and "#" not in board.url
        assert games_played(board) == [0] * 8
        assert board.locator("#night-host").is_hidden() and board.locator("#night-you").is_hidden()

    # Round 1: Ann's page takes her to her seat at her table; she plays the hand.
    host.locator("#night-next", has_text="Start round 1").click()
    first = play_the_round(ann, night_path)
    ann.locator("#night-you", has_text="Round 2:").wait_for()

    # The board updated after the hand: once both tables are over, everyone has a game.
    for board in boards:
        board.locator("#night-tables .table-state", has_text="game over").nth(1).wait_for(
            timeout=60_000
        )
        board.wait_for_function(
            "() => [...document.querySelectorAll('#standings tbody tr td:nth-of-type(4)')]"
            ".every((cell) => cell.textContent === '1')"
        )
    after_one = standings(boards[0])
    assert any(row[1] != "0" for row in after_one.values()), after_one
    watch_links = boards[0].locator("#night-tables a.watch")
    assert watch_links.count() == 2 and first in watch_links.first.get_attribute(
        "href"
    ) + watch_links.last.get_attribute("href")

    # Round 2: the host starts it from the night page; Ann's page follows her there.
    host.locator("#night-next:not([disabled])", has_text="Start round 2").click()
    second = play_the_round(ann, night_path, stay=True)
    assert second != first
    ann.locator("#night-status", has_text="The night is over").wait_for(timeout=60_000)
    ann.locator("#night-you", has_text="You finished").wait_for()

    for board in boards:
        board.locator("#night-status", has_text="The night is over").wait_for(timeout=60_000)
        board.wait_for_function(
            "() => [...document.querySelectorAll('#standings tbody tr td:nth-of-type(4)')]"
            ".every((cell) => cell.textContent === '2')"
        )
        assert board.locator("#standings-news").text_content().startswith("Standings updated: 1st")
    final = standings(boards[0])
    places = [int(row[0].lstrip("=")) for row in final.values()]
    assert places == sorted(places) and places[0] == 1, final
    screenshot(boards[0], "club-night-standings-1280", full_page=False)
    screenshot(boards[1], "club-night-standings-360")

    # The night's pages fit every common size: nothing wider than the window.
    for page in (ann, boards[0]):
        for width, height in SIZES:
            page.set_viewport_size({"width": width, "height": height})
            page.wait_for_timeout(100)
            wider = page.evaluate("document.documentElement.scrollWidth - innerWidth")
            assert wider <= 0, f"{page.url} at {width}x{height}: {wider} px wider than the window"
            row = page.locator("#standings tbody tr").first.bounding_box()
            inside = row is not None and row["x"] >= 0 and row["x"] + row["width"] <= width
            assert inside, f"{page.url} at {width}x{height}: a standings row at {row}"

    # axe: the member's night page, the host's, and the board on a phone.
    found = {"member": serious_violations(ann), "host": serious_violations(host)}
    found["board, phone"] = serious_violations(boards[1])
    # However wide the names and fonts make it, the board that scrolls sideways on a
    # phone is a region the keyboard reaches (axe's scrollable-region-focusable).
    boards[1].set_viewport_size({"width": 320, "height": 640})
    boards[1].evaluate("document.querySelector('#standings').style.minWidth = '900px'")
    scrolls = boards[1].evaluate(
        "(() => { const wrap = document.querySelector('.board-wrap');"
        " return wrap.scrollWidth > wrap.clientWidth; })()"
    )
    assert scrolls, "the widened board should scroll inside its frame"
    found["board scrolling sideways"] = serious_violations(boards[1])
    assert not any(found.values()), found


def test_the_host_starts_an_odd_night_then_pauses_substitutes_adds_and_ends_it(open_page) -> None:
    """Five members: one sits out each round, round 2 with team bids (fixed pairs, tried
    first, show the partners they would make); the host pauses and
    resumes, puts the member sitting out in for another, adds a late arrival to the
    rounds to come, and ends the night (asked twice)."""
    host = open_page("/")
    made = host.request.post("/api/clubs", data={"name": "Odd night"}).json()
    for name in NAMES[:5]:
        host.request.post(
            f"/api/clubs/{made['id']}/members", data={"name": name, "invite": made["invite"]}
        )
    host.goto(f"/c/{made['id']}#host={made['host_token']}")
    host.locator("#night-members input").nth(4).wait_for()
    host.locator("#start-night").click()
    host.locator("#night-form-error", has_text="Choose 4 to 32 members").wait_for()
    host.locator("#night-everyone").click()
    host.locator("#night-count", has_text="5 chosen: 1 table, 1 over.").wait_for()
    host.get_by_label("Members sit out in turn").check()
    host.get_by_label("Fixed pairs for the whole night").check()
    pairs = host.locator("#night-pairs")
    pairs.filter(has_text="Fixed pairs need an even number of members.").wait_for()
    host.locator("#night-members input").nth(4).uncheck()
    pairs.filter(has_text="Partners, in the list's order: Ann & Bo · Cy & Di.").wait_for()
    host.locator("#night-members input").nth(4).check()
    host.get_by_label("Rotating: new partners each round").check()
    assert pairs.is_hidden()
    host.locator("#night-rounds").fill("2")
    host.locator("#night-hands").fill("1")
    host.locator("#night-round-rule-2").select_option("team")
    host.locator("#start-night").click()
    host.wait_for_url("**/night/*")
    night_id = urlsplit(host.url).path.split("/")[-1]
    rounds = host.locator("#night-schedule > li")
    rounds.nth(1).wait_for()
    assert "Sitting out:" in rounds.nth(0).text_content()
    read = host.request.get(
        f"/api/clubs/{made['id']}/nights/{night_id}",
        headers={"Authorization": f"Bearer {made['host_token']}"},
    ).json()
    assert read["fill"] == "sit_out" and read["hands"] == 1
    assert [rules["bidding"] for rules in read["rules"]] == ["individual", "team"]

    # Paused, no round starts (the button says why); resumed, it may.
    host.locator("#night-pause").click()
    host.locator("#night-pause", has_text="Resume the night").wait_for()
    assert host.locator("#night-next").is_disabled()
    assert "paused" in host.locator("#night-next-help").text_content()
    host.locator("#night-status", has_text="The host paused the night.").wait_for()
    host.locator("#night-pause").click()
    host.locator("#night-next:not([disabled])").wait_for()

    # The member sitting out round 1 comes in for the first one seated.
    out = read["schedule"][0]["sitting_out"][0]
    leaving = read["schedule"][0]["tables"][0]["seats"][0]
    host.locator("#night-substitute summary").click()
    host.locator("#night-sub-out").select_option(leaving)
    host.locator("#night-sub-in").select_option(out)
    host.locator("#night-sub-go").click()
    names = read["names"]
    rounds.nth(0).locator("li", has_text=f"Sitting out: {names[leaving]}").wait_for()

    # A late arrival joins the club, then the night's rounds to come.
    host.request.post(
        f"/api/clubs/{made['id']}/members", data={"name": "Ivy", "invite": made["invite"]}
    )
    host.reload()
    host.locator("#night-late summary").click()
    host.locator("#night-late label", has_text="Ivy").locator("input").check()
    host.locator("#night-late-go").click()
    host.locator("#night-schedule", has_text="Ivy").wait_for()
    assert host.locator("#night-late").count() == 0  # nobody else left to add

    # Round 1 starts; the host ends the night, asked first.
    host.locator("#night-next").click()
    host.locator("#night-tables a.watch").first.wait_for()
    host.locator("#night-end").click()
    host.locator("#night-end-keep").click()
    host.locator("#night-end").click()
    host.locator("#night-end-sure").click()
    host.locator("#night-status", has_text="The host ended the night").wait_for()
    assert host.locator("#night-next").count() == 0 and host.locator("#night-end").count() == 0
    assert host.locator("#night-error").text_content() == ""
