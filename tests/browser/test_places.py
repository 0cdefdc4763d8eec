"""Names of places follow the one who reads them. A host (seat 0), a friend (seat 1)
and a watcher look at one table with two bots: every plate, the host's panel, the score
pad, the turn line and the give-seat dialog name each seat by the person in it or, for
a bot or an empty chair, by where that seat is on this screen ("Bot across", "On your
left"), matching the plate's own position there; no seat number and no compass name
("Seat 3", "North bot") appears anywhere on a page, in text or in what a screen reader
is given."""

from __future__ import annotations

import pytest

from tests.browser.playing import as_host, sit

pytestmark = pytest.mark.browser

# Where a plate sits on screen (its pos- class), in words: to a player, to a watcher.
PLACES = {
    "bottom": ("", "at the bottom"),
    "left": ("on your left", "on the left"),
    "top": ("across", "at the top"),
    "right": ("on your right", "on the right"),
}

# Each plate's seat, position on this screen and the name a screen reader is given.
PLATES = """() => [...document.querySelectorAll('.seat')].map((plate) => ({
  seat: Number(plate.dataset.seat),
  position: [...plate.classList].find((name) => name.startsWith('pos-')).slice(4),
  label: plate.getAttribute('aria-label'),
  text: plate.innerText,
}))"""

# Every text of the page a person may read or hear: what is rendered, the names and
# titles given to elements, the choices of every <select>.
SEAT_NUMBERS = r"""() => {
  const texts = [document.body.innerText];
  for (const node of document.querySelectorAll('[aria-label], [title]')) {
    texts.push(node.getAttribute('aria-label') ?? '', node.getAttribute('title') ?? '');
  }
  for (const option of document.querySelectorAll('option')) texts.push(option.textContent);
  return texts.join('\n').match(/\bseat \d\b|\b(?:south|west|north|east)(?:-\w+)? bot\b/gi) ?? [];
}"""


def places(page, seat: int | None) -> dict[int, str]:
    """Each seat's place on `page` in words, read from where its plate is drawn."""
    return {
        plate["seat"]: PLACES[plate["position"]][0 if seat is not None else 1]
        for plate in page.evaluate(PLATES)
    }


def who(seat: int, names: dict[int, str], where: dict[int, str]) -> str:
    """A seat's name as this screen should give it: the person, else "Bot <place>"."""
    return names.get(seat) or f"Bot {where[seat]}"


def check_page(page, seat: int | None, names: dict[int, str]) -> None:
    where = places(page, seat)
    for plate in page.evaluate(PLATES):
        place, name = where[plate["seat"]], names.get(plate["seat"])
        if plate["seat"] == seat:
            assert plate["label"] == f"{name}, you", plate
        elif name:
            assert plate["label"] == f"{name}, {place}", plate
        else:
            assert plate["label"] == f"Bot {place} (expert)", plate
            assert plate["text"].startswith("Bot"), plate
    sides = page.locator("#scorepad .scores tbody th").all_inner_texts()
    assert sides == [
        f"{who(0, names, where)} & {who(2, names, where)}",
        f"{who(1, names, where)} & {who(3, names, where)}",
    ]
    assert page.evaluate(SEAT_NUMBERS) == [], seat


def test_every_name_of_a_place_matches_the_screen_of_the_one_who_reads_it(open_page) -> None:
    lobby = open_page("/")
    table = lobby.request.post("/api/tables", data={"name": "Places"}).json()
    host = open_page(table["url"], init_script=as_host(table))
    sit(host, 0, "Hal")
    friend = open_page(table["invite_url"])
    sit(friend, 1, "Fay")
    watcher = open_page(table["url"])
    # Before the game: the host's move choices name places, as the host's screen has them.
    moves = host.locator('.host-seat[data-seat="1"] select option').all_inner_texts()
    assert moves == ["Your seat (swap with Hal)", "Across (empty)", "On your right (empty)"]
    for page, seat in ((host, 0), (friend, 1), (watcher, None)):
        assert page.evaluate(SEAT_NUMBERS) == [], seat
        assert "null" not in page.locator("#seats").inner_text()

    for bot in (2, 3):
        host.locator(f'.seat[data-seat="{bot}"] button.add-bot').click()
    for page in (host, friend, watcher):
        page.locator(".seat.turn").wait_for()
    names = {0: "Hal", 1: "Fay"}
    for page, seat in ((host, 0), (friend, 1), (watcher, None)):
        check_page(page, seat, names)

    # The host's panel heads each seat with its place on the host's screen.
    where = places(host, 0)
    rows = host.locator("#host-panel .host-seat .who").all_inner_texts()
    assert rows[0] == "Your seat: Hal"
    assert rows[1].startswith(f"{where[1].capitalize()}: Fay")
    assert rows[2:] == [f"{where[bot].capitalize()}: Bot (expert)" for bot in (2, 3)]
    assert (where[1], where[2], where[3]) == ("on your left", "across", "on your right")
    # A friend across the table sees the same bots in other places.
    assert places(friend, 1)[2] == "on your left" and places(friend, 1)[3] == "across"

    # The give-seat dialog names the seat as the host sees it.
    host.locator("#host-panel").get_by_role(
        "button", name="Give the seat on your right to someone new"
    ).click()
    host.locator("#host-panel").get_by_label("New player's name").fill("Nia")
    host.locator("#host-panel").get_by_role("button", name="Give seat", exact=True).click()
    dialog = host.locator("#link-dialog")
    dialog.wait_for()
    assert dialog.locator("h2").inner_text() == "The seat on your right for someone new"
    assert host.evaluate(SEAT_NUMBERS) == []
    dialog.get_by_role("button", name="Close").click()
    for page, seat in ((host, 0), (friend, 1), (watcher, None)):
        page.locator('.seat[data-seat="3"]', has_text="Nia").wait_for()
        check_page(page, seat, {**names, 3: "Nia"})


def test_the_lobby_counts_bots_without_naming_their_seats(open_page) -> None:
    lobby = open_page("/")
    table = lobby.request.post("/api/tables", data={"name": "Open with bots", "listed": True})
    table_id = table.json()["id"]
    for seat in (1, 2):
        added = lobby.request.post(f"/api/tables/{table_id}/seats/{seat}/bot", data={})
        assert added.ok, added.text()
    lobby.reload()
    row = lobby.locator("#open-tables li", has_text="Open with bots")
    row.wait_for()
    assert "2 of 4 seats taken: 2 bots" in row.inner_text()
    assert lobby.evaluate(SEAT_NUMBERS) == []
