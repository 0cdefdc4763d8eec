"""Defects found from outside through the public protocol, each with its regression test,
on SQLite and PostgreSQL: oversized rule integers, control characters, HTTP reads during a
failing commit, a bot game after a failed write, bad-token hellos, the spectator cap."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from sqlalchemy import text

from bench.harness.tables import add_bots
from server.api.services import services_of
from server.settings import Settings
from tests.conftest import serve
from tests.realtime.players import TableClient, create_table, seat_players
from tests.realtime.test_room_lifecycle import until

FAST_RULES = {"preset": "standard", "target_score": 100}


@pytest.mark.parametrize(
    "field", ["target_score", "nil_penalty", "bag_penalty", "blind_nil_behind_by", "lose_score"]
)
@pytest.mark.parametrize("value", [2**64, 2**63 - 1, 10**9])
async def test_rule_integers_beyond_their_bounds_are_refused_with_422(http, field, value):
    if field == "lose_score":
        value = -value
    response = await http.post("/api/tables", json={"rules": {"preset": "standard", field: value}})
    assert response.status_code == 422, response.text
    assert field in response.json()["detail"]


@pytest.mark.parametrize("bad", ["\u0000", "a\u0000b", "\u0007", "\u001b[31m", "\ud800"])
async def test_names_with_control_characters_get_422_and_nothing_is_stored(http, bad):
    before = len((await http.get("/api/tables")).json())
    # As JSON escapes: a lone surrogate cannot even be encoded as UTF-8.
    headers = {"content-type": "application/json"}
    body = json.dumps({"name": f"Friday{bad}", "listed": True})
    table = await http.post("/api/tables", content=body, headers=headers)
    assert table.status_code == 422
    if bad != "\ud800":  # pydantic already refuses a lone surrogate as not a string
        assert "control characters" in str(table.json()["detail"])
    assert len((await http.get("/api/tables")).json()) == before
    table_id = await create_table(http, FAST_RULES)
    seat = await http.post(
        f"/api/tables/{table_id}/seats/0",
        content=json.dumps({"name": f"Ann{bad}"}),
        headers=headers,
    )
    assert seat.status_code == 422
    assert (await http.get(f"/api/tables/{table_id}")).json()["seats"][0]["name"] is None


async def test_a_chat_line_with_a_nul_is_refused_and_the_socket_stays_seated(served, http):
    _app, address = served
    table_id = await create_table(http, FAST_RULES)
    [player] = await seat_players(http, address, table_id, 1)
    await player.send({"type": "chat", "text": "hi\u0000there"})
    refusal = await player.until(lambda m: m["type"] == "error")
    assert refusal["code"] == "bad_message" and "control characters" in refusal["message"]
    await player.send({"type": "chat", "text": "hello"})
    line = await player.until(lambda m: m["type"] == "chat")
    assert line["text"] == "hello"
    info = (await http.get(f"/api/tables/{table_id}")).json()
    assert info["seats"][0]["connected"] is True
    await player.close()


async def break_actions(app) -> None:
    async with services_of(app).db_engine.begin() as connection:
        await connection.execute(text("ALTER TABLE actions RENAME TO actions_away"))


async def mend_actions(app) -> None:
    async with services_of(app).db_engine.begin() as connection:
        await connection.execute(text("ALTER TABLE actions_away RENAME TO actions"))


async def test_http_reads_never_show_a_move_whose_commit_fails(served, http):
    app, address = served
    table_id = await create_table(http, FAST_RULES)
    players = await seat_players(http, address, table_id, 4)
    on_turn = players[players[0].view["turn"][0]]
    before = (await http.get(f"/api/tables/{table_id}")).json()
    await break_actions(app)
    seen = []
    try:
        await on_turn.send({"type": "act", "action": {"type": "bid", "bid": 3}, "id": "lost"})
        # While the write is being tried (and retried), readers see only stored state.
        for _ in range(15):
            seen.append(await http.get(f"/api/tables/{table_id}"))
            await asyncio.sleep(0.05)
        refusal = await on_turn.until(lambda m: m["type"] == "error")
        assert refusal["code"] == "unavailable"
    finally:
        await mend_actions(app)
    # Reads wait for the commit under way; once the room is dropped, reading the broken
    # database fails (5xx) until it is mended. No answer ever shows the lost move.
    for answer in seen:
        assert answer.status_code == 200 or answer.status_code >= 500
        if answer.status_code == 200:
            assert answer.json()["version"] == before["version"]
    after = await http.get(f"/api/tables/{table_id}")
    assert after.status_code == 200
    names = [seat["name"] for seat in after.json()["seats"]]
    assert names == [seat["name"] for seat in before["seats"]]
    # The sockets were sent away to reconnect: until they do, their seats show away.
    await until(
        lambda: not services_of(app).hub.rooms[table_id].stored.seats[0].connected, timeout=10
    )
    for player in players:
        await player.close()


async def test_a_bot_game_goes_on_by_itself_after_a_failed_write(served, http):
    app, _address = served
    hub = services_of(app).hub
    table_id = await create_table(http, FAST_RULES)
    await break_actions(app)
    try:
        await add_bots(http, table_id, level="basic")
        # The first bot move fails after its retries: the room is dropped...
        await until(lambda: table_id not in hub.rooms, timeout=20)
    finally:
        await mend_actions(app)
    # ...and comes back by itself, its bots playing the game to its end, no request needed.
    await until(
        lambda: table_id in hub.rooms and hub.rooms[table_id].stored.status == "over", timeout=120
    )
    info = (await http.get(f"/api/tables/{table_id}")).json()
    assert info["status"] == "over" and info["winner"] in (0, 1)


async def test_bad_token_hellos_do_not_reload_the_table(served, http):
    app, address = served
    hub = services_of(app).hub
    table_id = await create_table(http, FAST_RULES)
    [player] = await seat_players(http, address, table_id, 1)
    loads = 0
    load = hub.store.load

    async def counted(table: str):
        nonlocal loads
        loads += 1
        return await load(table)

    hub.store.load = counted
    try:
        intruders = [TableClient(address, table_id, f"forged-{n}") for n in range(5)]
        for intruder in intruders:
            answer = await intruder.connect()
            assert answer["seat"] is None
            assert any(m["code"] == "bad_token" for m in intruder.messages if m["type"] == "error")
            for _ in range(5):
                await intruder.send({"type": "hello", "token": "forged-again", "version": None})
        for intruder in intruders:
            await intruder.until(lambda m: m["type"] == "state" and "chat" in m)
    finally:
        hub.store.load = load
    assert loads == 0
    for client in (player, *intruders):
        await client.close()


async def test_a_table_takes_as_many_watchers_as_configured_and_refuses_the_next(
    settings: Settings,
):
    from server.app import create_app

    application = create_app(settings.model_copy(update={"spectators_per_table": 3}))
    async for address in serve(application):
        async with httpx.AsyncClient(base_url=f"http://{address}") as http:
            table_id = await create_table(http, FAST_RULES)
            [player] = await seat_players(http, address, table_id, 1)
            watchers = [TableClient(address, table_id) for _ in range(3)]
            for watcher in watchers:
                await watcher.connect()
            extra = TableClient(address, table_id)
            with pytest.raises(TimeoutError):  # no state: refused, then closed
                await asyncio.wait_for(extra.connect(), 2)
            await asyncio.wait_for(extra.reader, 5)
            assert extra.close_code == 1013
            assert any(m.get("code") == "too_many_watchers" for m in extra.messages)
            # A seat's own socket is never refused for the watchers' cap.
            again = TableClient(address, table_id, player.token)
            assert (await again.connect())["seat"] == 0
            for client in (player, *watchers, again):
                await client.close()


async def test_chat_has_a_budget_per_address_across_sockets_and_tables(settings: Settings):
    from server.app import create_app

    application = create_app(settings.model_copy(update={"chat_rate_limit": "3/minute"}))
    async for address in serve(application):
        async with httpx.AsyncClient(base_url=f"http://{address}") as http:
            first, second = [await create_table(http, FAST_RULES) for _ in range(2)]
            chatty = [TableClient(address, table_id) for table_id in (first, first, second)]
            for client in chatty:
                await client.connect()
            for number, client in enumerate(chatty):
                await client.send({"type": "chat", "text": f"line {number}"})
                await client.until(lambda m: m["type"] == "chat")
            before = (await http.get(f"/api/tables/{first}")).json()["version"]
            await chatty[0].send({"type": "chat", "text": "one too many"})
            refusal = await chatty[0].until(lambda m: m["type"] == "error")
            assert refusal["code"] == "rate_limited"
            await chatty[0].send({"type": "ping"})
            await chatty[0].until(lambda m: m["type"] == "pong")
            assert (await http.get(f"/api/tables/{first}")).json()["version"] == before
            assert not any(m.get("text") == "one too many" for m in chatty[1].messages)
            for client in chatty:
                await client.close()
