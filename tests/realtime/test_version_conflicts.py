"""Two hubs (two processes' worth) on one database without Redis: the stale one hits the
optimistic version check, reloads the table from the database, and validates again."""

from __future__ import annotations

import pytest

from bench.harness.hub import Mailbox
from server.api.services import services_of
from server.app import create_app
from server.engine import Rules
from server.realtime.errors import TableError


async def test_a_stale_hub_reloads_and_then_decides_on_the_fresh_table(settings):
    first, second = create_app(settings), create_app(settings)
    async with first.router.lifespan_context(first), second.router.lifespan_context(second):
        hub_a, hub_b = services_of(first).hub, services_of(second).hub
        room_a, _invite, _host = await hub_a.create_table(
            "race", Rules.preset("standard"), listed=True
        )
        room_b = await hub_b.room(room_a.id)
        tokens = [await hub_a.take_seat(room_a.id, 0, "Ann")]
        assert room_b.stored.version == room_a.stored.version - 1  # B has not heard of it

        tokens.append(await hub_b.take_seat(room_a.id, 1, "Bob"))
        assert room_b.stored.version == room_a.stored.version + 1
        assert [seat.name for seat in room_b.stored.seats[:2]] == ["Ann", "Bob"]

        tokens.append(await hub_a.take_seat(room_a.id, 2, "Cy"))  # A is stale now, B more so next
        with pytest.raises(TableError) as refused:
            await hub_b.take_seat(room_a.id, 2, "Dee")
        assert refused.value.status == 409
        assert room_b.stored.seats[2].name == "Cy"

        tokens.append(await hub_a.take_seat(room_a.id, 3, "Dee"))
        assert room_a.stored.status == "playing" and room_b.stored.status == "waiting"

        # A move through the stale hub: conflict, reload (the game appears), then applied.
        seat = room_a.stored.game.turn[0]
        player = Mailbox()
        await hub_b.join(room_b, player, tokens[seat])
        await hub_a.chat(room_a, Mailbox(), "good luck")  # A catches up, B falls behind
        assert room_b.stored.version < room_a.stored.version
        await hub_b.act(room_b, player, {"type": "bid", "bid": 3})
        assert [m for m in player.plain() if m["type"] == "error"] == []
        assert room_b.stored.game.view(None)["bids"][seat] == 3
        stored = await hub_a.store.load(room_a.id)
        assert stored.version == room_b.stored.version
