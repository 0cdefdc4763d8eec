"""A change's `state` is encoded once per seat and spliced: each socket's text is exactly
its own message, and sockets that would get the same message share one frame."""

from __future__ import annotations

from typing import Any

import orjson

from server.app import create_app
from server.engine import Rules
from server.realtime.room import Frame


class Mailbox:
    def __init__(self) -> None:
        self.seat: int | None = None
        self.messages: list[dict[str, Any]] = []

    def send(self, message: dict[str, Any]) -> None:
        self.messages.append(message)

    async def close(self, code: int, reason: str) -> None:
        self.messages.append({"type": "closed", "code": code})


async def test_each_socket_text_is_its_own_state_and_watchers_share_one(settings):
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        hub = app.state.hub
        room, _invite, host_token = await hub.create_table(
            "frames", Rules.preset("standard"), listed=True, turn_seconds=30
        )
        tokens = [await hub.take_seat(room.id, seat, f"P{seat}") for seat in range(4)]
        players = [Mailbox() for _ in tokens]
        for player, token in zip(players, tokens, strict=True):
            await hub.join(room, player, token)
        watchers = [Mailbox(), Mailbox()]
        await hub.join(room, watchers[0], None, host_token)
        await hub.join(room, watchers[1], None)
        seat = room.game.turn[0]
        await hub.act(room, players[seat], {"type": "bid", "bid": 3})

        boxes = [*players, *watchers]
        frames = [box.messages[-1] for box in boxes]
        for box, frame in zip(boxes, frames, strict=True):
            assert isinstance(frame, Frame)
            # The spliced text is the message `state_message` builds from the whole view.
            whole = room.state_message(box, room.view(box.seat), room.table())
            assert {**orjson.loads(frame.text), "server_time": None} == {
                **whole,
                "server_time": None,
            }
            assert frame["version"] == room.version
        assert [frame["seat"] for frame in frames] == [0, 1, 2, 3, None, None]
        assert frames[4]["host"] and not frames[5]["host"]
        assert frames[4] is not frames[5]
        assert len({frame["server_time"] for frame in frames}) == 1
        assert frames[seat]["state"]["hand"] != frames[(seat + 1) % 4]["state"]["hand"]
        assert frames[5]["state"] == room.game.view(None)


async def test_watchers_of_the_same_kind_share_one_frame(settings):
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        hub = app.state.hub
        room, _invite, _host = await hub.create_table("shared", Rules.preset("standard"), True)
        watchers = [Mailbox() for _ in range(3)]
        for watcher in watchers:
            await hub.join(room, watcher, None)
        await hub.take_seat(room.id, 0, "Ann")
        last = [watcher.messages[-1] for watcher in watchers]
        assert last[0] is last[1] is last[2]
        assert orjson.loads(last[0].text)["table"]["seats"][0]["name"] == "Ann"
