"""The host changes a table's rules before its first deal (`PATCH /api/tables/{id}` with
`rules`, docs/protocol.md "Host controls"), on SQLite and PostgreSQL: checked as at
creation, host only, refused once a game has started, the seats following the number of
players, stored across a restart and seen by a stale second process."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from server.api.services import services_of
from server.app import create_app
from server.engine import Rules
from server.engine.describe import summary
from server.names import bot_name
from server.realtime.errors import TableError
from server.settings import Settings
from tests.api.test_friends_tables import add_bot, friends_table, info, join, send

TARGET_300 = {"preset": "standard", "target_score": 300, "bidding": "whiz"}


async def change_rules(
    client: httpx.AsyncClient, table_id: str, rules: Any, token: str | None
) -> httpx.Response:
    return await send(client, table_id, "patch", "", {"rules": rules}, token)


async def test_the_host_changes_the_rules_and_every_answer_shows_them(client):
    table = await friends_table(client)
    host = await join(client, table, 0, "Host", host_token=table["host_token"])
    await join(client, table, 1, "Ann")
    await add_bot(client, table, 2)
    changed = await change_rules(client, table["id"], TARGET_300, table["host_token"])
    assert changed.status_code == 200, changed.text
    wanted = Rules.model_validate(TARGET_300).model_dump(mode="json")
    shown = changed.json()
    assert shown["rules"] == wanted and shown["summary"] == summary(wanted)
    assert "to 300" in shown["summary"] and shown["version"] > table["version"]
    assert shown["status"] == "waiting"
    assert [seat["name"] for seat in shown["seats"]] == ["Host", "Ann", "North bot", None]
    assert await info(client, table["id"]) == shown
    # The host's seat token carries the controls too; the timer can change beside them.
    both = await send(
        client,
        table["id"],
        "patch",
        "",
        {"rules": {"preset": "standard", "mercy_margin": 250}, "turn_seconds": 30},
        host,
    )
    assert both.status_code == 200, both.text
    assert both.json()["rules"]["mercy_margin"] == 250 and both.json()["turn_seconds"] == 30
    assert both.json()["rules"]["target_score"] == 500
    # Every field given (as the table shows them) is the same rules again.
    again = await change_rules(client, table["id"], both.json()["rules"], host)
    assert again.status_code == 200
    assert again.json() | {"version": 0} == both.json() | {"version": 0}


async def test_only_the_host_changes_the_rules(client):
    table = await friends_table(client)
    guest = await join(client, table, 1, "Guest")
    before = await info(client, table["id"])
    for token in (None, "forged", table["invite"], guest):
        response = await change_rules(client, table["id"], TARGET_300, token)
        assert response.status_code == 403, (token, response.text)
        assert response.json()["detail"] == "Only the host can change the rules."
    assert await info(client, table["id"]) == before


@pytest.mark.parametrize(
    ("rules", "field"),
    [
        ({"preset": "cutthroat", "partnerships": True}, "partnerships"),
        ({"preset": "standard", "target_score": 0}, "target_score"),
        ({"preset": "nonesuch"}, "preset"),
        ({"preset": "standard", "colour": "red"}, "colour"),
        ({"preset": "standard", "nil_pass": 9}, "nil_pass"),
    ],
)
async def test_inconsistent_rules_are_a_422_naming_the_field(client, rules, field):
    table = await friends_table(client)
    before = await info(client, table["id"])
    response = await change_rules(client, table["id"], rules, table["host_token"])
    assert response.status_code == 422, response.text
    detail = response.json()["detail"]
    assert detail.startswith("rules: ") and field in detail, detail
    assert await info(client, table["id"]) == before


async def test_a_patch_without_rules_or_timer_is_refused(client):
    table = await friends_table(client)
    before = await info(client, table["id"])
    for body in ({}, {"rules": None}, {"rules": "standard"}, {"rules": [1]}, {"rule": {}}):
        response = await send(client, table["id"], "patch", "", body, table["host_token"])
        assert response.status_code == 422, (body, response.text)
    assert await info(client, table["id"]) == before


async def test_the_rules_are_kept_once_a_game_has_started_or_the_table_ended(client):
    table = await friends_table(client)
    await join(client, table, 0, "Host", host_token=table["host_token"])
    for seat in (1, 2, 3):
        await add_bot(client, table, seat)
    playing = await info(client, table["id"])
    assert playing["status"] == "playing"
    response = await change_rules(client, table["id"], TARGET_300, table["host_token"])
    assert response.status_code == 409
    assert response.json()["detail"] == "The rules can only change before the game starts."
    after = await info(client, table["id"])
    # (The bots play on meanwhile: the version may rise, the rules stay.)
    assert (after["rules"], after["summary"]) == (playing["rules"], playing["summary"])

    ended = await friends_table(client)
    assert (await send(client, ended["id"], "delete", "", None, ended["host_token"])).is_success
    closed = await info(client, ended["id"])
    response = await change_rules(client, ended["id"], TARGET_300, ended["host_token"])
    assert response.status_code == 409
    assert await info(client, ended["id"]) == closed


async def test_the_seats_follow_the_number_of_players(client):
    table = await friends_table(client)
    host = table["host_token"]
    await join(client, table, 0, "Host", host_token=host)
    await add_bot(client, table, 1)
    await join(client, table, 3, "Ann")
    before = await info(client, table["id"])
    # Three players have no fourth seat, and Ann sits there.
    refused = await change_rules(client, table["id"], {"preset": "cutthroat"}, host)
    assert refused.status_code == 409
    assert "Ann sits in a seat it leaves out" in refused.json()["detail"]
    assert await info(client, table["id"]) == before

    moved = await send(client, table["id"], "post", "/seats/3/move", {"to": 2}, host)
    assert moved.status_code == 200
    # Three seats, all taken: the game starts under the new rules at once.
    started = await change_rules(client, table["id"], {"preset": "cutthroat"}, host)
    assert started.status_code == 200, started.text
    shown = await info(client, table["id"])
    assert shown["rules"]["players"] == 3 and shown["status"] == "playing"
    assert [seat["name"] for seat in shown["seats"]] == ["Host", bot_name(1, 3), "Ann"]
    assert len(shown["scores"]) == 3 and shown["series"] == [0, 0, 0]

    six = await friends_table(client)
    await add_bot(client, six, 2)
    grown = await change_rules(client, six["id"], {"preset": "six_player"}, six["host_token"])
    assert grown.status_code == 200, grown.text
    names = [seat["name"] for seat in grown.json()["seats"]]
    # The bot takes the name of its place at a table of six.
    assert names == [None, None, bot_name(2, 6), None, None, None] and names[2] != "North bot"
    for seat in (0, 1, 3, 4, 5):
        await add_bot(client, six, seat)
    assert (await info(client, six["id"]))["status"] == "playing"


async def test_the_new_rules_survive_a_restart(settings: Settings):
    first = create_app(settings)
    async with (
        first.router.lifespan_context(first),
        httpx.AsyncClient(
            transport=httpx.ASGITransport(app=first), base_url="http://test"
        ) as client,
    ):
        table = await friends_table(client)
        await add_bot(client, table, 1)
        answer = await change_rules(
            client,
            table["id"],
            {"preset": "cutthroat", "target_score": 250},
            table["host_token"],
        )
        assert answer.status_code == 200, answer.text
        shown = await info(client, table["id"])
    again = create_app(settings)
    async with (
        again.router.lifespan_context(again),
        httpx.AsyncClient(
            transport=httpx.ASGITransport(app=again), base_url="http://test"
        ) as client,
    ):
        # (A restart raises the version: no client is ever shown an older one again.)
        assert await info(client, table["id"]) | {"version": 0} == shown | {"version": 0}
        assert shown["rules"]["players"] == 3 and shown["rules"]["target_score"] == 250
        for seat in (0, 2):
            await add_bot(client, table, seat)
        playing = await info(client, table["id"])
        assert playing["status"] == "playing" and len(playing["scores"]) == 3


async def test_a_stale_process_hears_of_the_new_rules_before_it_decides(settings: Settings):
    first, second = create_app(settings), create_app(settings)
    async with first.router.lifespan_context(first), second.router.lifespan_context(second):
        hub_a, hub_b = services_of(first).hub, services_of(second).hub
        room_a, _invite, host = await hub_a.create_table("race", Rules.preset("standard"))
        room_b = await hub_b.room(room_a.id)
        await hub_a.change_settings(room_a.id, host, rules=Rules.preset("cutthroat"))
        assert len(room_b.stored.seats) == 4  # B has not heard of it
        # B's bot in the fourth seat: its write conflicts, B reloads, the seat is gone.
        with pytest.raises(TableError) as refused:
            await hub_b.add_bot(room_a.id, 3, "basic", host_token=host)
        assert refused.value.status == 404
        assert room_b.stored.rules.players == 3 and len(room_b.stored.seats) == 3
        # And the other way: B seats someone in the fourth seat of a four-player game,
        # then A, stale, is refused three players.
        await hub_b.change_settings(room_a.id, host, rules=Rules.preset("standard"))
        await hub_b.take_seat(room_a.id, 3, "Dee", host_token=host)
        with pytest.raises(TableError) as kept:
            await hub_a.change_settings(room_a.id, host, rules=Rules.preset("cutthroat"))
        assert kept.value.status == 409
        stored = await hub_a.store.load(room_a.id)
        assert stored is not None and stored.rules["players"] == 4 and len(stored.seats) == 4
        assert stored.seats[3].name == "Dee"
