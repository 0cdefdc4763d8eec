"""The WebSocket protocol with real uvicorn and a real `websockets` client, on SQLite and
PostgreSQL: whole games, spectators, reconnects, refusals, races, presence and bots."""

from __future__ import annotations

import asyncio
import json
import logging
import re
from typing import Any

import httpx
import pytest
import websockets
from prometheus_client import REGISTRY
from sqlalchemy import text
from starlette.websockets import WebSocketDisconnect

from bench.harness.tables import add_bots
from server.api.services import services_of
from server.api.sockets import SocketListener
from server.engine import Rules
from server.realtime.views import Encoded
from tests.conftest import serve
from tests.realtime.players import TableClient, create_table, play_turns, seat_players

CARD = re.compile(r'"((?:[2-9TJQKA][CDHS])|BJ|LJ)"')
FAST_RULES = {"preset": "standard", "target_score": 100}


def visible_cards(view: dict[str, Any]) -> set[str]:
    """Cards a spectator may see: those on the table, played this hand, the last trick."""
    shown = {entry["card"] for entry in view["trick"] + view["played"]}
    if view.get("last_trick"):
        shown |= {entry["card"] for entry in view["last_trick"]["cards"]}
    return shown


def assert_no_hidden_card(message: dict[str, Any]) -> None:
    """A spectator's message names no card beyond those played (and finished hands)."""
    if message["type"] != "state" or message["state"] is None:
        return
    view = message["state"]
    assert view["hand"] is None
    assert view["legal"] == []
    assert view.get("draw_card") is None
    current = {key: value for key, value in view.items() if key != "last_hand"}
    named = set(CARD.findall(json.dumps(current)))
    assert named <= visible_cards(view), named - visible_cards(view)


def assert_logs_keep_secrets(records: list[Any], tokens: list[str]) -> None:
    """No log line of the server names a token or any card."""
    for record in records:
        line = record.getMessage()
        assert not any(token in line for token in tokens)
        if record.name.startswith("server.") and isinstance(record.msg, dict):
            fields = {k: v for k, v in record.msg.items() if k not in ("table", "timestamp")}
            assert not re.search(r"\b([2-9TJQKA][CDHS]|BJ|LJ)\b", json.dumps(fields)), line


async def test_four_players_and_a_spectator_play_a_whole_game(served, http, caplog):
    caplog.set_level(logging.INFO)
    _app, address = served
    table_id = await create_table(http, FAST_RULES)
    spectator = TableClient(address, table_id)
    first = await spectator.connect()
    assert first["seat"] is None and first["state"] is None
    assert first["table"]["status"] == "waiting"
    players = await seat_players(http, address, table_id, 4)
    for seat, player in enumerate(players):
        assert player.state["seat"] == seat
    rules = Rules.model_validate(FAST_RULES)

    await play_turns(players, rules, done=lambda m: m["table"]["status"] == "over")

    final = await spectator.until(lambda m: m["type"] == "state" and m["table"]["status"] == "over")
    assert final["table"]["winner"] in (0, 1)
    assert max(side["score"] for side in final["table"]["scores"]) >= 100
    assert final["version"] == players[0].version
    for player in players:
        assert all(m["type"] != "error" for m in player.messages)
        own = [m for m in player.messages if m["type"] == "state" and m["state"]]
        assert all(m["seat"] == player.state["seat"] for m in own)
    versions = [m["version"] for m in spectator.messages if m["type"] == "state"]
    assert versions == list(range(versions[0], versions[-1] + 1))  # every change, in order
    assert final["table"]["hands_played"] >= 1
    for message in spectator.messages:
        assert_no_hidden_card(message)

    history = (await http.get(f"/api/tables/{table_id}/history")).json()
    assert len(history["hands"]) == final["table"]["hands_played"]

    token = players[0].token
    response = await http.post(
        f"/api/tables/{table_id}/rematch", headers={"Authorization": f"Bearer {token}"}
    )
    assert response.status_code == 201
    assert response.json()["game_number"] == 2
    again = await spectator.until(lambda m: m["type"] == "state" and m["table"]["game_number"] == 2)
    assert again["table"]["status"] == "playing"
    assert again["state"]["hand_number"] == 1
    for client in [*players, spectator]:
        await client.close()
    assert any(record.name == "server.realtime.hub" for record in caplog.records)
    assert_logs_keep_secrets(caplog.records, [player.token for player in players])


async def test_a_player_disconnects_mid_trick_and_continues_after_reconnecting(served, http):
    _app, address = served
    table_id = await create_table(http, FAST_RULES)
    players = await seat_players(http, address, table_id, 4)
    rules = Rules.model_validate(FAST_RULES)

    def mid_trick(message: dict[str, Any]) -> bool:
        view = message["state"]
        return view["phase"] == "play" and len(view["trick"]) == 1

    await play_turns(players, rules, done=mid_trick)
    leaver_seat = (players[0].view["turn"][0] + 1) % 4
    leaver = players[leaver_seat]
    last_version = leaver.version
    await leaver.close()
    others = [p for p in players if p is not leaver]
    absent = await others[0].until(
        lambda m: m["type"] == "state" and not m["table"]["seats"][leaver_seat]["connected"]
    )
    assert absent["version"] > last_version

    # The others play on until the absent player must act.
    await play_turns(others, rules, done=lambda m: leaver_seat in m["state"]["turn"])
    assert len(others[0].view["trick"]) == 2

    back = await leaver.connect(version=last_version)
    assert back["version"] > last_version
    assert back["seat"] == leaver_seat
    assert leaver_seat in back["state"]["turn"]
    assert back["state"]["hand"] and back["state"]["legal"]
    await others[0].until(
        lambda m: m["type"] == "state" and m["table"]["seats"][leaver_seat]["connected"]
    )
    hands = back["table"]["hands_played"]
    await play_turns(
        players,
        rules,
        done=lambda m: m["table"]["hands_played"] > hands or m["table"]["status"] == "over",
    )
    for player in players:
        await player.close()


async def test_refused_actions_get_an_error_and_change_nothing(served, http):
    _app, address = served
    table_id = await create_table(http, FAST_RULES)
    spectator = TableClient(address, table_id)
    await spectator.connect()
    players = await seat_players(http, address, table_id, 4)
    on_turn = players[players[0].view["turn"][0]]
    waiting = next(p for p in players if p is not on_turn)
    version = on_turn.version
    before = (await http.get(f"/api/tables/{table_id}")).json()

    async def refused(client: TableClient, message: Any, code: str) -> dict[str, Any]:
        client.drain()
        await client.send(message)
        reply = await client.until(lambda m: m["type"] in ("state", "error", "pong"))
        assert reply["type"] == "error", reply
        assert reply["code"] == code, reply
        assert reply["message"]
        await client.send({"type": "ping"})
        assert (await client.until(lambda m: True))["type"] == "pong"
        return reply

    bid = {"type": "bid", "bid": 3}
    reply = await refused(waiting, {"type": "act", "action": bid, "id": "a1"}, "not_your_turn")
    assert reply["id"] == "a1"
    await refused(on_turn, {"type": "act", "action": {"type": "bid", "bid": 99}}, "illegal")
    await refused(on_turn, {"type": "act", "action": {"type": "play", "card": "AS"}}, "illegal")
    await refused(on_turn, {"type": "act", "action": {"type": "dance"}}, "illegal")
    await refused(on_turn, {"type": "act", "action": bid, "version": version - 1}, "stale")
    await refused(spectator, {"type": "act", "action": bid}, "not_seated")
    await refused(on_turn, {"type": "act", "action": "bid 3"}, "bad_message")
    await refused(on_turn, {"type": "act", "action": bid, "version": "7"}, "bad_message")
    await refused(on_turn, "{not json", "bad_message")
    await refused(on_turn, "[1, 2]", "bad_message")
    await refused(on_turn, {"type": "fly"}, "bad_message")
    await refused(on_turn, {"type": "chat", "text": "  "}, "bad_chat")
    await refused(on_turn, {"type": "chat", "text": "x" * 301}, "bad_chat")
    await refused(on_turn, {"type": "chat", "text": 5}, "bad_chat")
    await refused(on_turn, "x" * 10_000, "bad_message")

    after = (await http.get(f"/api/tables/{table_id}")).json()
    assert after["version"] == before["version"] == version
    assert on_turn.version == version
    await on_turn.send({"type": "act", "action": bid, "id": "ok", "version": version})
    moved = await on_turn.until(lambda m: m["type"] == "state")
    assert moved["version"] == version + 1
    assert moved["state"]["bids"][on_turn.state["seat"]] == 3
    for client in [*players, spectator]:
        await client.close()


async def test_an_act_before_hello_is_refused(served, http):
    _app, address = served
    table_id = await create_table(http, FAST_RULES)
    client = TableClient(address, table_id)
    await client.connect()
    fresh = TableClient(address, table_id)
    fresh.socket = await websockets.connect(f"ws://{address}/ws/tables/{table_id}")
    await fresh.socket.send(json.dumps({"type": "act", "action": {"type": "bid", "bid": 1}}))
    reply = json.loads(await fresh.socket.recv())
    assert reply["type"] == "error" and reply["code"] == "bad_message"
    await fresh.socket.send(json.dumps({"type": "hello", "token": "forged", "version": None}))
    reply = json.loads(await fresh.socket.recv())
    assert reply["code"] == "bad_token"
    state = json.loads(await fresh.socket.recv())
    assert state["type"] == "state" and state["seat"] is None
    await fresh.socket.close()
    await client.close()


async def test_two_acts_racing_for_one_turn_exactly_one_wins(served, http):
    _app, address = served
    table_id = await create_table(http, FAST_RULES)
    players = await seat_players(http, address, table_id, 4)
    seat = players[0].view["turn"][0]
    twin = TableClient(address, table_id, players[seat].token)
    await twin.connect()
    rivals = [players[seat], twin]
    version = twin.version
    for rival in rivals:
        rival.drain()
    await asyncio.gather(
        *(
            rival.send({"type": "act", "action": {"type": "bid", "bid": bid}, "id": f"r{bid}"})
            for rival, bid in zip(rivals, (2, 5), strict=True)
        )
    )
    replies = []
    for rival in rivals:
        replies.append(
            await rival.until(
                lambda m: (
                    m["type"] == "error"
                    or (
                        m["type"] == "state" and m["state"] and m["state"]["bids"][seat] is not None
                    )
                )
            )
        )
    await players[(seat + 1) % 4].until(
        lambda m: m["type"] == "state" and m["state"] and m["state"]["bids"][seat] is not None
    )
    table = (await http.get(f"/api/tables/{table_id}")).json()
    assert table["version"] == version + 1
    final_bid = twin.state["state"]["bids"][seat]
    assert final_bid in (2, 5)
    errors = [m for rival in rivals for m in rival.messages if m["type"] == "error"]
    assert len(errors) == 1
    assert errors[0]["code"] == "not_your_turn"
    assert errors[0]["id"] == ("r5" if final_bid == 2 else "r2")
    for client in [*players, twin]:
        await client.close()


async def test_chat_reaches_everyone_with_a_version_and_is_replayed_on_hello(served, http):
    _app, address = served
    table_id = await create_table(http, FAST_RULES)
    response = await http.post(f"/api/tables/{table_id}/seats/1", json={"name": "Bob"})
    bob = TableClient(address, table_id, response.json()["token"])
    await bob.connect()
    watcher = TableClient(address, table_id)
    await watcher.connect()
    await bob.send({"type": "chat", "text": "  <b>hi</b> all  "})
    line = await watcher.until(lambda m: m["type"] == "chat")
    assert line["seat"] == 1 and line["name"] == "Bob" and line["text"] == "<b>hi</b> all"
    assert line["version"] > bob.version - 1 and line["at"].endswith("Z")
    await watcher.send({"type": "chat", "text": "hello"})
    heard = await bob.until(lambda m: m["type"] == "chat" and m["seat"] is None)
    assert heard["name"] == "Spectator"
    late = TableClient(address, table_id)
    first = await late.connect()
    assert [m["text"] for m in first["chat"]] == ["<b>hi</b> all", "hello"]
    for client in (bob, watcher, late):
        await client.close()


async def test_unknown_table_socket_is_closed_with_4404(served):
    _app, address = served
    async with websockets.connect(f"ws://{address}/ws/tables/nope") as socket:
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await socket.recv()
    assert closed.value.rcvd.code == 4404


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_four_bots_play_a_whole_game_to_500_watched_by_a_spectator(served, http):
    _app, address = served

    def decisions(phase: str) -> float:
        labels = {"level": "basic", "phase": phase}
        return REGISTRY.get_sample_value("spades_bot_decision_seconds_count", labels) or 0.0

    before = {phase: decisions(phase) for phase in ("blind", "bid", "play")}
    table_id = await create_table(http, {"preset": "standard"})
    spectator = TableClient(address, table_id)
    await spectator.connect()
    await add_bots(http, table_id, level="basic")
    final = await spectator.until(
        lambda m: m["type"] == "state" and m["table"]["status"] == "over", timeout=120
    )
    assert max(side["score"] for side in final["table"]["scores"]) >= 500
    # Every bot move was timed (spades_bot_decision_seconds): 4 bids (a blind nil is one)
    # and 52 cards a hand.
    hands = final["table"]["hands_played"]
    bids = sum(decisions(phase) - before[phase] for phase in ("blind", "bid"))
    assert bids >= 4 * hands
    assert decisions("play") - before["play"] >= 52 * hands
    for message in spectator.messages:
        assert_no_hidden_card(message)
    await spectator.close()


async def test_shutdown_closes_sockets_with_1012(settings):
    from server.app import create_app

    application = create_app(settings)
    server = serve(application)
    address = await anext(server)
    async with httpx.AsyncClient(base_url=f"http://{address}") as http:
        table_id = await create_table(http, FAST_RULES)
    client = TableClient(address, table_id)
    await client.connect()
    with pytest.raises(StopAsyncIteration):
        await anext(server)
    await client.close()
    assert client.close_code == 1012


async def test_a_move_the_database_refuses_is_not_shown_and_not_kept(served, http):
    app, address = served
    table_id = await create_table(http, FAST_RULES)
    players = await seat_players(http, address, table_id, 4)
    on_turn = players[players[0].view["turn"][0]]
    before = on_turn.state
    engine = services_of(app).db_engine
    async with engine.begin() as connection:
        await connection.execute(text("ALTER TABLE actions RENAME TO actions_away"))
    try:
        on_turn.drain()
        await on_turn.send({"type": "act", "action": {"type": "bid", "bid": 3}, "id": "lost"})
        refusal = await on_turn.until(lambda m: m["type"] in ("error", "state"))
        assert refusal["code"] == "unavailable" and refusal["id"] == "lost"
    finally:
        async with engine.begin() as connection:
            await connection.execute(text("ALTER TABLE actions_away RENAME TO actions"))
    await on_turn.close()
    back = await on_turn.connect()
    assert back["state"] == before["state"]
    assert back["state"]["bids"] == [None] * 4
    await on_turn.send({"type": "act", "action": {"type": "bid", "bid": 3}})
    moved = await on_turn.until(lambda m: m["type"] == "state")
    assert moved["state"]["bids"].count(3) == 1
    for player in players:
        await player.close()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize("preset", ["two_player", "competitive", "six_player"])
async def test_spectators_of_every_table_size_see_no_hidden_card(served, http, preset):
    """Draw method, blind nil and card pass, six seats: a whole hand, watched."""
    _app, address = served
    rules = {"preset": preset, "target_score": 60}
    if preset == "competitive":
        rules["blind_nil_behind_by"] = None  # blind nil (and its pass) open at once
    table_id = await create_table(http, rules)
    spectator = TableClient(address, table_id)
    await spectator.connect()
    players = (await http.get(f"/api/tables/{table_id}")).json()["rules"]["players"]
    await add_bots(http, table_id, players, level="basic")
    await spectator.until(
        lambda m: m["type"] == "state" and m["table"]["hands_played"] >= 1, timeout=60
    )
    phases = {m["state"]["phase"] for m in spectator.messages if m.get("state")}
    expected = {"two_player": "draw", "competitive": "blind", "six_player": "bid"}[preset]
    assert {"play", expected} <= phases
    for message in spectator.messages:
        assert_no_hidden_card(message)
    await spectator.close()


class RecordingWebSocket:
    """What a SocketListener needs of a WebSocket: its `send_text` (recorded, or failing
    as a peer that has gone) and its `close`."""

    def __init__(self, gone: bool = False) -> None:
        self.texts: list[str] = []
        self.gone = gone

    async def send_text(self, text: str) -> None:
        if self.gone:
            raise WebSocketDisconnect(1006)
        self.texts.append(text)

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        self.texts.append(f"closed {code}")


async def test_messages_go_through_send_text_in_order_and_a_peer_gone_only_drops_it():
    websocket = RecordingWebSocket()
    listener = SocketListener(websocket, "t-send")  # type: ignore[arg-type]
    encoded = Encoded({"type": "state", "version": 3}, '{"type":"state","version":3}')  # type: ignore[arg-type]
    listener.send(encoded)
    listener.send({"type": "pong"})
    assert listener.writer is not None and websocket.texts == []  # sent by the writer
    await listener.writer
    assert websocket.texts == ['{"type":"state","version":3}', '{"type":"pong"}']
    assert listener.writer is None and listener.queue is None  # an idle socket holds neither

    failures = REGISTRY.get_sample_value("spades_errors_total", {"where": "socket"}) or 0
    gone = RecordingWebSocket(gone=True)
    listener = SocketListener(gone, "t-send")  # type: ignore[arg-type]
    listener.send(encoded)
    assert listener.writer is not None
    await listener.writer
    assert listener.dropped and gone.texts == []  # no close attempted, nothing logged
    assert (REGISTRY.get_sample_value("spades_errors_total", {"where": "socket"}) or 0) == failures


async def test_a_closed_socket_is_let_go(served, http):
    app, address = served
    table_id = await create_table(http, FAST_RULES)
    spectator = TableClient(address, table_id)
    await spectator.connect()
    room = await services_of(app).hub.room(table_id)
    (listener,) = room.sockets.listeners
    assert isinstance(listener, SocketListener)
    await spectator.close()
    for _ in range(100):
        if not room.sockets.listeners:
            break
        await asyncio.sleep(0.02)
    assert not room.sockets.listeners


def test_the_table_socket_is_a_fastapi_route_like_the_others():
    from fastapi.routing import APIWebSocketRoute

    from server.api import sockets

    [route] = sockets.router.routes
    assert isinstance(route, APIWebSocketRoute)
    assert route.path == sockets.TABLE_SOCKET_PATH == "/ws/tables/{table_id}"
