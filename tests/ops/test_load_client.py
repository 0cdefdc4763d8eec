"""bench/load.py's client (bench/harness/tables.py) does the same small work on both
servers' states: it reads each state's version from its first bytes and decodes a
player's state only when it looks at it; the relay's states have the shape of the table
server's (bench/relay.py)."""

from __future__ import annotations

import asyncio
import random
import time

import orjson
import pytest

from bench import relay
from bench.harness import tables
from bench.harness.hub import Mailbox, seat_table
from bench.harness.stats import median_interval
from server.api.services import services_of
from server.app import create_app
from server.engine import Rules
from server.settings import Settings


async def played_states(settings: Settings, moves: int) -> tuple[list[Mailbox], list[Mailbox]]:
    """What the table server sent four players and a spectator over `moves` moves."""
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        hub = services_of(app).hub
        table = await seat_table(hub, Rules.preset("standard"), "load", watchers=1)
        room, players = table.room, table.players
        rng = random.Random(5)
        for _ in range(moves):
            seat = room.stored.game.turn[0]
            await hub.act(room, players[seat], tables.pick(players[seat].view(), rng))
    return players, table.watchers


async def test_the_version_is_read_from_the_first_bytes_of_every_state_sent(settings):
    players, watchers = await played_states(settings, 20)
    texts = [text for box in (*players, *watchers) for text in box.texts()]
    assert len(texts) > 5 * 20
    texts.append(relay.RelayTable("t1", version=731, turn=2).state())
    for text in texts:
        head = tables.STATE_HEAD.match(text)
        assert head is not None, text[:80]
        assert int(head[1]) == orjson.loads(text)["version"]
    # What does not start so is not read as a state.
    assert tables.STATE_HEAD.match('{"type":"error","code":"stale","version":3}') is None


async def test_the_relays_state_is_shaped_as_the_servers(settings):
    players, _watchers = await played_states(settings, 8)
    ours = orjson.loads(players[0].texts()[-1])
    recorded = relay.RECORDED
    # Recorded again when the table server's state grows or loses a part.
    assert set(recorded) == set(ours)
    assert set(recorded["state"]) == set(ours["state"])
    assert set(recorded["table"]) == set(ours["table"])


@pytest.mark.parametrize("size", [2000, 2723, 4000])
def test_the_relays_state_has_the_size_asked_for_and_its_own_version_and_turn(size):
    table = relay.RelayTable("abc", version=57, turn=3)
    text = table.state(relay.template(size))
    assert abs(len(text) - size) <= 20
    message = orjson.loads(text)
    assert (message["type"], message["version"], message["seat"]) == ("state", 57, None)
    assert message["state"]["turn"] == [3]
    assert message["table"]["id"] == "abc" and message["table"]["version"] == 57
    assert message["state"]["legal"] == relay.RECORDED["state"]["legal"]
    assert message["table"]["rules"] == relay.RECORDED["table"]["rules"]
    table.version, table.turn = 58, 0
    assert orjson.loads(table.state(relay.template(size)))["state"]["turn"] == [0]


async def test_a_players_state_is_decoded_only_when_looked_at(settings):
    players, _watchers = await played_states(settings, 12)
    table = tables.Table("t", ["a", "b", "c", "d"], random.Random(1))
    sockets = [tables.Socket(table, seat, None) for seat in range(4)]
    table.sockets = [*sockets, tables.Socket(table, None, None)]
    for socket, box in zip(sockets, players, strict=True):
        socket.version = orjson.loads(box.texts()[-1])["version"]
        socket.received(box.texts()[-1])
    assert all(socket.decoded is None for socket in sockets)

    chosen = table.choose()
    assert chosen is not None
    actor, action = chosen
    view = orjson.loads(players[actor.seat].texts()[-1])["state"]
    assert actor.seat in view["turn"] and action in view["legal"]
    # The latest state for the turn, and the acting seat's own: no more than two of four.
    assert sum(socket.decoded is not None for socket in sockets) <= 2
    assert not table.over()


def test_the_relays_padded_state_as_before_has_the_size_and_what_the_client_reads():
    table = relay.RelayTable("abc", version=9, turn=1)
    text = table.state(relay.padded(2723))
    assert abs(len(text) - 2723) <= 20
    message = orjson.loads(text)
    assert tables.STATE_HEAD.match(text)[1] == "9"
    assert message["state"]["turn"] == [1] and message["state"]["legal"]
    assert message["table"] == {"version": 9, "id": "abc", "status": "playing"}


def test_the_median_interval_of_rounds_is_distribution_free_and_needs_six_of_them() -> None:
    """`--rounds` prints a 95 % interval of the median ratio from order statistics: with n
    rounds, the k-th smallest and k-th largest, k the most whose binomial tails stay within
    2.5 % each; fewer than 6 rounds cannot give 95 %."""
    ten = [2.14, 1.84, 1.92, 1.83, 2.05, 1.37, 1.45, 1.83, 1.75, 1.89]
    assert median_interval(ten) == (1.45, 2.05)  # the 2nd smallest and 2nd largest
    assert median_interval(ten[:6]) == (1.37, 2.14)  # 2 x (1/2)**6 = 3.1 % < 5 %
    assert median_interval(ten[:5]) is None
    twenty = [float(value) for value in range(20)]
    assert median_interval(twenty) == (5.0, 14.0)  # P(X <= 5) = 2.1 %, P(X <= 6) = 5.8 %
    assert median_interval(twenty, confidence=0.5) == (7.0, 12.0)  # P(X <= 7) = 13 %


def opening(table_id: str) -> tables.Table:
    """A table being opened: a player's socket greeted (version 3), a spectator's not yet."""
    table = tables.Table(table_id, ["token"], random.Random(1))
    table.sockets = [
        tables.Socket(table, 0, "token", where="ws://a", version=3),
        tables.Socket(table, None, None, where="ws://b"),
    ]
    return table


async def test_a_table_being_opened_waits_for_a_late_greeting_while_the_server_greets_others():
    """A server opening many tables at once (each socket at a process drawn at random)
    greets a socket later than any fixed budget: the set-up waits as long as sockets of
    other tables still get states, and gives up only once nothing arrives anywhere,
    saying where each socket of the table stands."""
    received = tables.Received()
    late = opening("late")

    async def busy_server() -> None:
        for _ in range(10):  # 0.5 s of other tables' greetings, then this spectator's
            await asyncio.sleep(0.05)
            received.states += 1
        late.sockets[1].version = 3

    greeting = asyncio.create_task(busy_server())
    await late.settled(received, stall=0.2)
    await greeting
    assert late.versions() == [3, 3]

    stuck = opening("stuck")
    started = time.perf_counter()
    with pytest.raises(TimeoutError) as raised:
        await stuck.settled(received, stall=0.2)
    assert 0.2 <= time.perf_counter() - started < 2
    assert str(raised.value) == (
        "table stuck: 0.2 s without a state; ws://a seat 0 at 3, ws://b spectator at nothing"
    )
