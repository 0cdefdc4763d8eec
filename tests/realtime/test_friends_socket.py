"""Friends' tables over the real WebSocket protocol, on SQLite and PostgreSQL: the turn timer
(also across a SIGKILL restart), seats that follow their player to another device, a
re-issued seat, the host's stand-in bot and the host role passing on, refusal reasons;
the host's new rules before the first deal, heard by every socket (on another process
too) and dealt."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from bench.harness.server import LiveServer
from bench.harness.tables import add_bots
from server.settings import Settings
from tests.conftest import serve
from tests.realtime.players import TableClient

TIMED = {"preset": "standard", "target_score": 300}


def moment(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


async def friends_table(http: httpx.AsyncClient, **body: Any) -> dict[str, Any]:
    response = await http.post("/api/tables", json={"name": "Friday", "rules": TIMED} | body)
    assert response.status_code == 201, response.text
    return response.json()


async def sit(http: httpx.AsyncClient, table: dict[str, Any], seat: int, name: str) -> str:
    response = await http.post(
        f"/api/tables/{table['id']}/seats/{seat}",
        json={"name": name, "invite": table["invite"], "host_token": table["host_token"]}
        if seat == 0
        else {"name": name, "invite": table["invite"]},
    )
    assert response.status_code == 201, response.text
    return response.json()["token"]


async def one_player_and_bots(
    http: httpx.AsyncClient, address: str, name: str, **table_body: Any
) -> tuple[dict[str, Any], str, TableClient]:
    """A friends' table where `name` sits in seat 0 with a socket open and three bots fill
    the other seats (the game starts): the table, the seat token, the player's socket."""
    table = await friends_table(http, **table_body)
    token = await sit(http, table, 0, name)
    player = TableClient(address, table["id"], token)
    await player.connect()
    await add_bots(http, table["id"], range(1, 4), level="basic", invite=table["invite"])
    return table, token, player


# The refusals of a move made on a state the table had already left.
MOVED_ON = {"illegal", "not_your_turn", "stale", "conflict"}


def my_turn(message: dict[str, Any]) -> bool:
    view = message.get("state")
    return (
        message["type"] == "state"
        and view is not None
        and message["seat"] in view["turn"]
        and bool(view["legal"])
    )


async def test_the_timer_moves_an_idle_seat_in_time_then_autoplays_it_until_the_player_is_back(
    served, http
):
    _app, address = served
    table, _token, player = await one_player_and_bots(http, address, "Idle", turn_seconds=5)

    timed_out = []
    for _ in range(2):
        waiting = await player.until(my_turn)
        assert waiting["deadline"] is not None
        deadline = moment(waiting["deadline"])
        offset = moment(waiting["server_time"]) - datetime.now(UTC)
        assert (
            timedelta(seconds=4) < deadline - moment(waiting["server_time"]) <= timedelta(seconds=5)
        )
        seen = len(waiting["timer_moves"])
        moved = await player.until(
            lambda m, seen=seen: m["type"] == "state" and len(m["timer_moves"]) > seen,
            timeout=10,
        )
        late = datetime.now(UTC) + offset - deadline
        assert timedelta(seconds=-0.1) <= late <= timedelta(seconds=1), late
        timed_out.append(moved)
        assert moved["timer_moves"][-1]["seat"] == 0
    first, second = timed_out
    assert not first["table"]["seats"][0].get("autoplay")
    assert second["table"]["seats"][0]["autoplay"] is True
    assert second["table"]["seats"][0]["autoplay_reason"] == "timer"

    # On autoplay the bot plays for the seat at once; "back" gives the seat back.
    await player.send({"type": "back"})
    back = await player.until(
        lambda m: m["type"] == "state" and not m["table"]["seats"][0].get("autoplay")
    )
    assert back["table"]["seats"][0]["connected"] is True
    # The history lists the timer's moves with each finished hand; the state this hand's.
    history = (await http.get(f"/api/tables/{table['id']}/history")).json()
    listed = [move for hand in history["hands"] for move in hand["timer_moves"]]
    assert len(listed) + len(back["timer_moves"]) >= 2
    await player.close()


async def test_a_player_who_acts_keeps_the_seat_and_the_clock_restarts_for_each_seat(served, http):
    _app, address = served
    _table, _token, player = await one_player_and_bots(http, address, "Quick", turn_seconds=30)
    waiting = await player.until(my_turn)
    first_deadline = moment(waiting["deadline"])
    action = waiting["state"]["legal"][0]
    await player.send({"type": "act", "action": action, "id": "mine"})
    after = await player.until(lambda m: m["type"] == "state" and 0 not in m["state"]["turn"])
    assert after["timer_moves"] == []
    assert after["deadline"] is None or moment(after["deadline"]) >= first_deadline
    assert not after["table"]["seats"][0].get("autoplay")
    await player.close()


async def test_a_refused_action_says_the_engines_reason(served, http):
    _app, address = served
    _table, token, player = await one_player_and_bots(http, address, "Ann")
    waiting = await player.until(my_turn)
    assert waiting["state"]["phase"] == "bid"
    before = waiting["version"]
    await player.send({"type": "act", "action": {"type": "bid", "bid": 14}, "id": "x1"})
    refusal = await player.until(lambda m: m["type"] == "error")
    assert refusal["code"] == "illegal" and refusal["reason"] == "bad_bid"
    assert refusal["id"] == "x1"
    await player.send({"type": "hello", "token": token, "version": before})
    again = await player.until(lambda m: m["type"] == "state" and "chat" in m)
    assert again["state"]["bids"] == waiting["state"]["bids"]
    await player.close()


async def test_the_continue_link_puts_a_player_back_in_their_seat_on_another_device(served, http):
    _app, address = served
    table, token, laptop = await one_player_and_bots(http, address, "Ann")
    on_laptop = await laptop.until(lambda m: m["type"] == "state" and m["state"] is not None)
    # The phone knows only what the link carries: the seat token.
    phone = TableClient(address, table["id"], token)
    on_phone = await phone.connect()
    assert on_phone["seat"] == 0
    assert on_phone["state"]["hand"] == on_laptop["state"]["hand"]
    await laptop.close()
    await phone.send({"type": "ping"})
    await phone.until(lambda m: m["type"] == "pong")
    info = (await http.get(f"/api/tables/{table['id']}")).json()
    assert info["seats"][0]["connected"] is True  # the phone still holds the seat
    await phone.close()


async def test_a_reissued_seat_sends_the_old_token_to_watch_and_the_new_one_sits(served, http):
    _app, address = served
    table = await friends_table(http)
    await sit(http, table, 0, "Host")
    old = await sit(http, table, 1, "Lost")
    old_socket = TableClient(address, table["id"], old)
    await old_socket.connect()
    answer = await http.post(
        f"/api/tables/{table['id']}/seats/1/reissue",
        json={"name": "Found"},
        headers={"Authorization": f"Bearer {table['host_token']}"},
    )
    assert answer.status_code == 200
    told = await old_socket.until(lambda m: m["type"] == "error")
    assert told["code"] == "bad_token"
    watching = await old_socket.until(lambda m: m["type"] == "state")
    assert watching["seat"] is None
    again = TableClient(address, table["id"], old)
    refused = await again.connect()
    assert refused["seat"] is None
    assert any(m["type"] == "error" and m["code"] == "bad_token" for m in again.messages)
    fresh = TableClient(address, table["id"], answer.json()["token"])
    assert (await fresh.connect())["seat"] == 1
    for client in (old_socket, again, fresh):
        await client.close()


async def test_only_host_sockets_are_told_they_hold_the_controls(served, http):
    _app, address = served
    table = await friends_table(http)
    host_seat = await sit(http, table, 0, "Host")
    guest = await sit(http, table, 1, "Guest")
    host = TableClient(address, table["id"], host_seat)
    guest_socket = TableClient(address, table["id"], guest)
    watcher = TableClient(address, table["id"])
    host_token_only = TableClient(address, table["id"], host_token=table["host_token"])
    forged = TableClient(address, table["id"], host_token="forged-host-token")
    assert (await host.connect())["host"] is True
    assert (await guest_socket.connect())["host"] is False
    assert (await watcher.connect())["host"] is False
    assert (await host_token_only.connect())["host"] is True
    assert (await forged.connect())["host"] is False
    for client in (guest_socket, watcher, forged):
        assert table["invite"] not in str(client.messages)
        assert table["host_token"] not in str(client.messages)
    for client in (host, guest_socket, watcher, host_token_only, forged):
        await client.close()


async def test_the_host_hands_an_away_players_seat_to_a_bot_who_gives_it_back_on_return(
    served, http
):
    _app, address = served
    table = await friends_table(http, rules={"preset": "standard", "target_score": 100})
    host_token = await sit(http, table, 0, "Host")
    leaver_token = await sit(http, table, 1, "Leaver")
    await add_bots(http, table["id"], range(2, 4), level="basic", invite=table["invite"])
    host = TableClient(address, table["id"], host_token)
    await host.connect()
    leaver = TableClient(address, table["id"], leaver_token)
    await leaver.connect()
    await leaver.close()
    await host.until(lambda m: m["type"] == "state" and not m["table"]["seats"][1]["connected"])
    answer = await http.post(
        f"/api/tables/{table['id']}/seats/1/standin",
        headers={"Authorization": f"Bearer {host_token}"},
    )
    assert answer.status_code == 200, answer.text
    # The stand-in plays seat 1's turns: the host keeps being asked to act.
    moves = 0
    while moves < 3:
        # The answer to the last move may already be the host's turn (a trick it took).
        if host.state is None or not my_turn(host.state):
            await host.until(my_turn)
        # Act on the newest state received, not on an older one still queued behind it.
        host.drain()
        turn = host.state
        assert turn is not None
        if not my_turn(turn):
            continue
        await host.send({"type": "act", "action": turn["state"]["legal"][0]})
        # The move landed (the host may be on turn again at once: a trick it takes).
        acted = turn["version"]
        answer = await host.until(
            lambda m, acted=acted: (
                m["type"] == "error" or (m["type"] == "state" and m["version"] > acted)
            )
        )
        # A refusal can only be a move the table had already moved past; then look again.
        assert answer["type"] == "state" or answer["code"] in MOVED_ON, answer
        moves += answer["type"] == "state"
    back = TableClient(address, table["id"], leaver_token)
    returned = await back.connect()
    assert returned["seat"] == 1
    assert not returned["table"]["seats"][1].get("autoplay")
    for client in (host, back):
        await client.close()


async def test_the_host_role_passes_to_a_player_at_the_table_when_the_host_stays_away(
    settings: Settings,
):
    quick = settings.model_copy(update={"host_away_seconds": 0.3})
    from server.app import create_app

    application = create_app(quick)
    async for address in serve(application):
        async with httpx.AsyncClient(base_url=f"http://{address}") as http:
            table = await friends_table(http)
            host_token = await sit(http, table, 0, "Host")
            ann_token = await sit(http, table, 2, "Ann")
            host = TableClient(address, table["id"], host_token)
            ann = TableClient(address, table["id"], ann_token)
            await host.connect()
            await ann.connect()
            await host.close()
            passed = await ann.until(
                lambda m: m["type"] == "state" and m["table"]["host_seat"] == 2, timeout=10
            )
            assert passed["host"] is True
            refused = await http.patch(
                f"/api/tables/{table['id']}",
                json={"turn_seconds": 20},
                headers={"Authorization": f"Bearer {table['host_token']}"},
            )
            assert refused.status_code == 403
            await ann.close()


@pytest.mark.slow
async def test_a_countdown_survives_a_sigkill_restart_and_the_timer_still_moves_in_time(
    database_url,
):
    server = LiveServer(database_url)
    await asyncio.to_thread(server.start)
    address = server.url.removeprefix("http://")
    try:
        async with httpx.AsyncClient(base_url=server.url) as http:
            table, _token, player = await one_player_and_bots(
                http, address, "Idle", turn_seconds=12
            )
            waiting = await player.until(my_turn)
            deadline = moment(waiting["deadline"])
            offset = moment(waiting["server_time"]) - datetime.now(UTC)
            version = waiting["version"]
        await asyncio.sleep(1)
        server.kill()
        await player.close()
        started = time.monotonic()
        await asyncio.to_thread(server.start)
        restart_seconds = time.monotonic() - started
        watcher = TableClient(address, table["id"])
        resumed = await watcher.connect()
        assert resumed["version"] >= version
        assert moment(resumed["deadline"]) == deadline  # neither reset nor forgotten
        moved = await watcher.until(
            lambda m: m["type"] == "state" and len(m["timer_moves"]) >= 1, timeout=20
        )
        late = datetime.now(UTC) + offset - deadline
        assert timedelta(seconds=-0.1) <= late <= timedelta(seconds=1), (late, restart_seconds)
        assert moved["timer_moves"][0]["seat"] == 0
        await watcher.close()
    finally:
        server.stop()


async def test_every_socket_hears_of_the_hosts_new_rules_and_the_game_plays_them(served, http):
    _app, address = served
    table = await friends_table(http)
    host = TableClient(address, table["id"], await sit(http, table, 0, "Host"))
    guest = TableClient(address, table["id"], await sit(http, table, 1, "Guest"))
    watcher = TableClient(address, table["id"])
    await add_bots(http, table["id"], [2], level="basic", invite=table["invite"])
    sockets = (host, guest, watcher)
    for client in sockets:
        first = await client.connect()
        assert first["table"]["rules"]["bidding"] == "individual"
    whiz = {"preset": "whiz", "target_score": 200}
    changed = await http.patch(
        f"/api/tables/{table['id']}",
        json={"rules": whiz},
        headers={"Authorization": f"Bearer {table['host_token']}"},
    )
    assert changed.status_code == 200, changed.text
    for client in sockets:
        heard = await client.until(
            lambda m: m["type"] == "state" and m["table"]["rules"]["bidding"] == "whiz"
        )
        assert heard["table"]["rules"] == changed.json()["rules"]
        assert heard["table"]["summary"] == changed.json()["summary"]
        assert (
            heard["table"]["summary"].startswith("Whiz") and "to 200" in heard["table"]["summary"]
        )
    # The last seat filled, the game deals under the new rules: a whiz bid is the
    # bidder's spades or nil.
    await add_bots(http, table["id"], [3], level="basic", invite=table["invite"])
    asked = await first_to_bid((host, guest))
    spades = sum(card.endswith("S") for card in asked["state"]["hand"])
    bids = {entry["bid"] for entry in asked["state"]["legal"] if entry["type"] == "bid"}
    assert bids <= {0, spades} and spades in bids
    for client in sockets:
        await client.close()


async def first_to_bid(clients: tuple[TableClient, ...]) -> dict[str, Any]:
    """The state of the first of `clients` asked to bid (the bots bid by themselves)."""
    async with asyncio.timeout(20):
        while True:
            for client in clients:
                view = client.state["state"] if client.state else None
                if (
                    view is not None
                    and view["phase"] == "bid"
                    and client.state["seat"] in view["turn"]
                ):
                    return client.state
            await asyncio.sleep(0.02)


@pytest.mark.slow
async def test_new_rules_made_through_one_process_reach_a_spectator_on_another(
    migrated_postgres_url, redis_url
):
    first = LiveServer(migrated_postgres_url, redis_url=redis_url)
    second = LiveServer(migrated_postgres_url, redis_url=redis_url)
    await asyncio.gather(asyncio.to_thread(first.start), asyncio.to_thread(second.start))
    try:
        async with httpx.AsyncClient(base_url=first.url) as http_a:
            table = await friends_table(http_a)
            await add_bots(http_a, table["id"], [1], level="basic", invite=table["invite"])
            watcher = TableClient(second.url.removeprefix("http://"), table["id"])
            assert len((await watcher.connect())["table"]["seats"]) == 4
            changed = await http_a.patch(
                f"/api/tables/{table['id']}",
                json={"rules": {"preset": "cutthroat", "target_score": 250}},
                headers={"Authorization": f"Bearer {table['host_token']}"},
            )
            assert changed.status_code == 200, changed.text
            heard = await watcher.until(
                lambda m: m["type"] == "state" and m["table"]["rules"]["players"] == 3
            )
            assert heard["table"]["summary"] == changed.json()["summary"]
            assert [seat["name"] for seat in heard["table"]["seats"]] == [
                None,
                "North-west bot",
                None,
            ]
            await watcher.close()
    finally:
        await asyncio.gather(asyncio.to_thread(first.stop), asyncio.to_thread(second.stop))
