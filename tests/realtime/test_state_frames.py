"""A change's `state` is encoded once per distinct view: each socket's text is exactly its
own message, and sockets that would get the same message share one encoded message."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import orjson

from bench.harness.hub import Mailbox, seat_table
from bench.harness.tables import pick
from server.api.services import services_of
from server.app import create_app
from server.engine import Rules
from server.realtime.messages import PROTOCOL_VERSION
from server.realtime.timer import iso_ms
from server.realtime.views import Encoded, public_table


def fresh_state(room: Any, listener: Any) -> dict[str, Any]:
    """The `state` a socket should get now, built whole from the room's public pieces as
    docs/protocol.md lists them (nothing kept from an earlier change); `server_time` left
    out. A hello's answer carries the chat so far and the protocol too."""
    return {
        "type": "state",
        "version": room.stored.version,
        "seat": listener.seat,
        "state": room.stored.game.view(listener.seat) if room.stored.game is not None else None,
        "table": public_table(room.summary()),
        "host": room.has_controls(listener),
        "deadline": iso_ms(room.stored.hosting.deadline),
        "server_time": None,
        "timer_moves": room.stored.timer_moves,
        "fairness": room.next_deal(),
    }


def as_sent(room: Any, listener: Any, sent: dict[str, Any]) -> dict[str, Any]:
    """`fresh_state`, with the welcome's own keys when `sent` is a hello's answer."""
    fresh = fresh_state(room, listener)
    if "protocol" in sent:
        fresh |= {"chat": list(room.stored.chat), "protocol": PROTOCOL_VERSION}
    return fresh


async def test_each_socket_text_is_its_own_state_and_watchers_share_one(settings):
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        hub = services_of(app).hub
        table = await seat_table(hub, Rules.preset("standard"), "frames", turn_seconds=30)
        room, players = table.room, table.players
        watchers = [Mailbox(), Mailbox()]
        await hub.join(room, watchers[0], None, table.host_token)
        await hub.join(room, watchers[1], None)
        seat = room.stored.game.turn[0]
        await hub.act(room, players[seat], {"type": "bid", "bid": 3})

        boxes = [*players, *watchers]
        frames = [box.messages[-1] for box in boxes]
        for box, frame in zip(boxes, frames, strict=True):
            assert isinstance(frame, Encoded)
            # The text is the message built whole from the room's public pieces.
            sent = orjson.loads(frame.text)
            assert sent == frame.message
            assert {**sent, "server_time": None} == as_sent(room, box, sent)
            assert frame.message["version"] == room.stored.version
        messages = [frame.message for frame in frames]
        assert [message["seat"] for message in messages] == [0, 1, 2, 3, None, None]
        assert messages[4]["host"] and not messages[5]["host"]
        assert frames[4] is not frames[5]
        assert len({message["server_time"] for message in messages}) == 1
        assert messages[seat]["state"]["hand"] != messages[(seat + 1) % 4]["state"]["hand"]
        assert messages[5]["state"] == room.stored.game.view(None)


async def test_watchers_of_the_same_kind_share_one_frame(settings):
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        hub = services_of(app).hub
        room, _invite, _host = await hub.create_table("shared", Rules.preset("standard"), True)
        watchers = [Mailbox() for _ in range(3)]
        for watcher in watchers:
            await hub.join(room, watcher, None)
        await hub.take_seat(room.id, 0, "Ann")
        last = [watcher.messages[-1] for watcher in watchers]
        assert last[0] is last[1] is last[2]
        assert orjson.loads(last[0].text)["table"]["seats"][0]["name"] == "Ann"


class CheckingBox(Mailbox):
    """A listener that checks every state it gets against one built afresh, whole, from
    the room as it is when the frame arrives (`fresh_state`: the public table and view
    made from scratch, nothing kept from an earlier change)."""

    def __init__(self, room: Any) -> None:
        super().__init__()
        self.room = room
        self.checked = 0

    def send(self, message: dict[str, Any]) -> None:
        super().send(message)
        if isinstance(message, Encoded):
            sent = orjson.loads(message.text)
            assert {**sent, "server_time": None} == as_sent(self.room, self, sent)
            self.checked += 1


async def test_every_frame_of_a_whole_table_life_is_what_a_fresh_build_makes(settings):
    """Seats taken and a bot added, a whole game played to its end under a turn timer, a
    seat's player away and back, the host's timer changed, seeds for the next deal (also
    for the rematch's first), a rematch: every frame every
    socket gets equals the state built whole at that moment (the room's kept JSON of its
    public table and anything else kept between changes never goes stale)."""
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        hub = services_of(app).hub
        room, _invite, host_token = await hub.create_table(
            "life", Rules.preset("standard", target_score=150), listed=True, turn_seconds=60
        )
        watcher = CheckingBox(room)
        await hub.join(room, watcher, None, host_token)
        tokens = [await hub.take_seat(room.id, seat, f"P{seat}") for seat in range(3)]
        await hub.add_bot(room.id, 3, "basic")
        players = [CheckingBox(room) for _ in tokens]
        for player, token in zip(players, tokens, strict=True):
            await hub.join(room, player, token)
        rng = random.Random(5)
        moves = 0
        while room.stored.status == "playing":
            assert moves < 2000, "the game never ended"
            if moves == 40:
                await hub.leave(room, players[2])
                await hub.join(room, players[2], tokens[2])
            if moves == 60:
                await hub.change_settings(room.id, host_token, timer=True, turn_seconds=30)
            if moves % 25 == 7:  # a player's seed for the next deal
                await hub.seed(room, players[moves % 3], f"seed {moves}")
            turn = [seat for seat in room.stored.game.turn if seat < 3]
            if not turn:
                await asyncio.sleep(0.01)  # the bot's move
                continue
            view = room.stored.game.view(turn[0])
            await hub.act(room, players[turn[0]], pick(view, rng))
            moves += 1
        assert room.stored.status == "over" and room.stored.game.winner is not None
        await hub.seed(room, players[1], "for the rematch")
        await hub.rematch(room.id, tokens[0])
        assert room.stored.game.deals.seeds[0][1] == "for the rematch"
        assert room.stored.status == "playing"
        boxes = [watcher, *players]
        assert all(box.checked > moves for box in boxes)
        last = orjson.loads(watcher.messages[-1].text)
        assert last["table"]["game_number"] == 2 and last["table"]["series"] != [0, 0]
