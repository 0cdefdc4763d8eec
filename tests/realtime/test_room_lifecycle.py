"""Rooms leave memory when idle and come back from the database unchanged, on SQLite and
PostgreSQL: eviction, reconnects after it, a move racing it, bot-only tables, the lobby."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable
from typing import Any

import pytest
import websockets
from prometheus_client import REGISTRY
from sqlalchemy import event, func, select, text
from sqlalchemy.util import await_only

from bench.harness.hub import Mailbox
from bench.harness.tables import add_bots, take_seats
from server.api.services import services_of
from server.realtime.hub import Room, TableHub
from server.realtime.pubsub import LocalNotices
from server.realtime.views import room_table
from server.settings import Settings
from server.store.db import create_engine, migrate
from server.store.models import ActionRow
from server.store.repository import TableStore
from tests.realtime.players import TableClient, create_table, play_turns

FAST_RULES = {"preset": "standard", "target_score": 100}
IDLE = 0.1


@pytest.fixture
def bot_delay() -> float:
    return 0


@pytest.fixture
def settings(database_url: str, bot_delay: float) -> Settings:
    """A room is evicted after a tenth of a second without use."""
    return Settings(
        DATABASE_URL=database_url,
        REDIS_URL=None,
        bot_delay=bot_delay,
        ws_rate_limit="1000/second",
        log_level="WARNING",
        room_idle_seconds=IDLE,
    )


async def until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    """Poll `condition` until it holds (the sweeper runs every IDLE / 2 seconds)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not reached in time"
        await asyncio.sleep(0.01)


def rooms_loaded() -> float:
    return REGISTRY.get_sample_value("spades_rooms_loaded") or 0.0


async def action_count(hub: TableHub, table_id: str) -> int:
    room = await hub.room(table_id)
    async with hub.store.sessions() as session:
        count = await session.scalar(
            select(func.count())
            .select_from(ActionRow)
            .where(ActionRow.game_id == room.stored.game_id)
        )
    return count or 0


async def test_an_idle_room_leaves_memory_and_the_gauge_follows(served, http):
    app, _address = served
    hub: TableHub = services_of(app).hub
    table_id = await create_table(http, {"preset": "standard"})
    assert table_id in hub.rooms
    assert rooms_loaded() == len(hub.rooms) >= 1

    await until(lambda: table_id not in hub.rooms)

    assert rooms_loaded() == len(hub.rooms)
    info = await http.get(f"/api/tables/{table_id}")
    assert info.status_code == 200 and info.json()["status"] == "waiting"
    assert table_id in hub.rooms and rooms_loaded() == len(hub.rooms) >= 1


async def test_a_watched_room_stays_in_memory(served, http):
    app, address = served
    hub: TableHub = services_of(app).hub
    table_id = await create_table(http, {"preset": "standard"})
    spectator = TableClient(address, table_id)
    await spectator.connect()
    room = hub.rooms[table_id]
    await asyncio.sleep(IDLE * 5)
    assert hub.rooms.get(table_id) is room and not room.evicted
    await spectator.close()
    await until(lambda: table_id not in hub.rooms)
    assert room.evicted


async def test_players_and_spectators_reconnecting_after_eviction_see_the_same_state(served, http):
    app, address = served
    hub: TableHub = services_of(app).hub
    table_id = await create_table(http, FAST_RULES)
    tokens = await take_seats(http, table_id)
    players = [TableClient(address, table_id, token) for token in tokens]
    for player in players:
        await player.connect()
    room = hub.rooms[table_id]
    await play_turns(players, room.stored.rules, done=lambda m: m["state"]["trick"] != [])
    for player in players:
        await player.close()
    # Every player shown away; the room may be evicted meanwhile, it keeps its last state.
    await until(lambda: not any(seat.connected for seat in room.stored.seats))
    version = room.stored.version
    hands = [room.stored.game.view(seat)["hand"] for seat in range(4)]
    watched = room.stored.game.view(None)

    await until(lambda: table_id not in hub.rooms)

    spectator = TableClient(address, table_id)
    again = await spectator.connect()
    assert again["version"] == version
    assert again["state"] == watched
    assert hub.rooms[table_id] is not room
    for seat in (0, 2):
        player = TableClient(address, table_id, tokens[seat])
        back = await player.connect()
        assert back["seat"] == seat
        assert back["state"]["hand"] == hands[seat]
        assert back["version"] > version  # presence: the seat is connected again
        await player.close()
    await spectator.close()


async def test_a_move_waiting_for_the_lock_while_its_room_is_evicted_is_applied_once(served, http):
    app, _address = served
    hub: TableHub = services_of(app).hub
    table_id = await create_table(http, FAST_RULES)
    await take_seats(http, table_id)
    room = await hub.room(table_id)
    seat = room.stored.game.turn[0]
    version = room.stored.version
    player = Mailbox()  # the seat's listener, its seat set as a hello would
    player.seat = seat

    async with room.lock:
        move = asyncio.create_task(hub.act(room, player, {"type": "bid", "bid": 3}))
        await asyncio.sleep(0.01)  # the move now waits for the lock
        room.touched -= IDLE * 2
    # The lock is free but its waiter has not run yet: the sweeper's moment. (Rooms of
    # bot games that other tests left playing in the shared PostgreSQL database, resumed
    # when this app started, may be idle too and go with it.)
    assert hub.evict_idle() >= 1
    assert room.evicted and table_id not in hub.rooms
    await move

    assert room.evicted and room.stored.version == version and room.stored.game.bids[seat] is None
    fresh = hub.rooms[table_id]
    assert fresh.stored.version == version + 1 and fresh.stored.game.bids[seat] == 3
    assert [m for m in player.plain() if m["type"] == "error"] == []
    assert await action_count(hub, table_id) == 1
    # The same move again is refused by the fresh room, not applied twice.
    await hub.act(room, player, {"type": "bid", "bid": 3})
    assert player.plain()[-1]["code"] == "not_your_turn"
    assert await action_count(hub, table_id) == 1


async def test_a_socket_whose_room_was_evicted_before_its_hello_plays_on_the_fresh_room(
    served, http
):
    app, address = served
    hub: TableHub = services_of(app).hub
    table_id = await create_table(http, FAST_RULES)
    tokens = await take_seats(http, table_id)
    await until(lambda: table_id not in hub.rooms)
    socket = await websockets.connect(f"ws://{address}/ws/tables/{table_id}")
    try:
        await until(lambda: table_id in hub.rooms)  # the endpoint fetched the room
        stale = hub.rooms[table_id]
        await until(lambda: stale.evicted)  # and lost it before the hello
        seat = stale.stored.game.turn[0]
        client = TableClient(address, table_id, tokens[seat])
        client.read_from(socket)
        await client.send({"type": "hello", "token": tokens[seat]})
        hello = await client.until(lambda m: m["type"] == "state")
        assert hello["seat"] == seat
        await client.send({"type": "act", "action": {"type": "bid", "bid": 2}, "id": "b"})
        bid = await client.until(lambda m: m["type"] in ("state", "error"))
        assert bid["type"] == "state" and bid["state"]["bids"][seat] == 2
        assert hub.rooms[table_id].sockets.listeners and stale.stored.version < bid["version"]
        assert await action_count(hub, table_id) == 1
        await client.close()
    finally:
        await socket.close()


# Bots that pause leave the room unlocked most of the time: the sweeper sees it often.
@pytest.mark.parametrize("bot_delay", [0.005])
async def test_a_bot_only_table_is_never_evicted_mid_game_and_finishes(served, http):
    app, _address = served
    hub: TableHub = services_of(app).hub
    table_id = await create_table(http, FAST_RULES)
    await add_bots(http, table_id)
    room: Room = hub.rooms[table_id]
    deadline = time.monotonic() + 60
    while room.stored.status != "over":
        assert not room.evicted, f"evicted mid-game at version {room.stored.version}"
        assert time.monotonic() < deadline
        await asyncio.sleep(0.005)
    await until(lambda: room.evicted)
    info = (await http.get(f"/api/tables/{table_id}")).json()
    assert info["status"] == "over" and info["winner"] in (0, 1)
    assert info["hands_played"] == len(room.stored.game.hand_results) >= 1


async def test_the_lobby_lists_tables_from_the_database_without_loading_them(served, http):
    app, address = served
    hub: TableHub = services_of(app).hub
    waiting = await create_table(http, {"preset": "cutthroat"})
    playing = await create_table(http, {"preset": "standard"})  # no end after one hand
    tokens = await take_seats(http, playing)
    players = [TableClient(address, playing, token) for token in tokens]
    for player in players:
        await player.connect()
    await play_turns(
        players, hub.rooms[playing].stored.rules, done=lambda m: m["table"]["hands_played"] >= 1
    )
    in_memory = {table_id: room_table(await hub.room(table_id)) for table_id in (waiting, playing)}

    fresh = TableHub(hub.store, hub.settings, LocalNotices())
    listed = {table["id"]: table for table in await fresh.lobby()}

    assert fresh.rooms == {}
    assert listed[waiting] == in_memory[waiting]
    assert listed[playing] == in_memory[playing]
    assert listed[playing]["hands_played"] >= 1
    assert listed[playing]["scores"] != [{"score": 0, "bags": 0}] * 2
    assert (await http.get("/api/tables")).json()[:2] == [listed[playing], listed[waiting]]
    for player in players:
        await player.close()


async def test_the_lobby_shows_zero_scores_before_the_first_hand_ends(served, http):
    app, _address = served
    table_id = await create_table(http, {"preset": "cutthroat"})
    await take_seats(http, table_id, 3)
    fresh = TableHub(services_of(app).hub.store, services_of(app).hub.settings, LocalNotices())
    (listed,) = [table for table in await fresh.lobby() if table["id"] == table_id]
    assert listed["status"] == "playing" and listed["hands_played"] == 0
    assert listed["scores"] == [{"score": 0, "bags": 0}] * 3
    assert listed == room_table(await services_of(app).hub.room(table_id))


async def test_a_room_is_loaded_from_one_snapshot_while_another_process_writes(postgres_url):
    """A reload reads the table, its game, actions and chat in several queries; a commit
    of another process landing between them must not show up in some and not others
    (a room whose version is older than its chat or game)."""
    reader_engine, writer_engine = create_engine(postgres_url), create_engine(postgres_url)
    await migrate(reader_engine)
    reader, writer = TableStore(reader_engine), TableStore(writer_engine)
    table_id = secrets.token_urlsafe(6)
    await writer.create_table(table_id, "snapshot", {"preset": "standard"}, 4)
    wrote: list[dict[str, Any]] = []

    def write_between(conn: Any, cursor: Any, statement: str, *_args: Any) -> None:
        if not wrote and "FROM tables" in statement:
            # Sync event inside SQLAlchemy's async bridge: run the other writer right here.
            wrote.append(await_only(writer.add_chat(table_id, 1, None, "Other", "now")))

    event.listen(reader_engine.sync_engine, "after_cursor_execute", write_between)
    try:
        record = await reader.load(table_id)
    finally:
        event.remove(reader_engine.sync_engine, "after_cursor_execute", write_between)
        await reader_engine.dispose()
        await writer_engine.dispose()
    assert wrote and record is not None
    assert record.version == 1 and record.chat == []


def sockets_counted() -> float:
    return sum(
        REGISTRY.get_sample_value("spades_connected_sockets", {"role": role}) or 0.0
        for role in ("player", "spectator")
    )


async def test_a_room_dropped_after_a_failed_write_counts_its_sockets_gone(served, http):
    app, address = served
    hub: TableHub = services_of(app).hub
    counted = sockets_counted()
    table_id = await create_table(http, FAST_RULES)
    tokens = await take_seats(http, table_id)
    players = [TableClient(address, table_id, token) for token in tokens]
    for player in players:
        await player.connect()
    assert sockets_counted() == counted + 4
    on_turn = players[players[0].view["turn"][0]]
    async with services_of(app).db_engine.begin() as connection:
        await connection.execute(text("ALTER TABLE actions RENAME TO actions_away"))
    try:
        await on_turn.send({"type": "act", "action": {"type": "bid", "bid": 3}, "id": "lost"})
        refusal = await on_turn.until(lambda m: m["type"] == "error")
        assert refusal["code"] == "unavailable"
    finally:
        async with services_of(app).db_engine.begin() as connection:
            await connection.execute(text("ALTER TABLE actions_away RENAME TO actions"))
    for player in players:  # sent away to reconnect: the server closes every socket
        await asyncio.wait_for(player.reader, 10)
        assert player.close_code == 1011
    await until(lambda: sockets_counted() == counted)
    assert table_id not in hub.rooms or not hub.rooms[table_id].sockets.listeners
