"""Presence with a grace time of 0 (a bot takes over at once) and the socket rate limit."""

from __future__ import annotations

import pytest

from bench.harness.tables import take_seats
from server.settings import Settings
from tests.realtime.players import TableClient, create_table, seat_players

FAST_RULES = {"preset": "standard", "target_score": 100}


@pytest.fixture
def settings(settings: Settings) -> Settings:
    """The shared test settings, tighter: a small rate limit, bots take over at once."""
    # 30 a minute: a burst test that no slow machine can pass by accident.
    return settings.model_copy(update={"grace_seconds": 0, "ws_rate_limit": "30/minute"})


async def test_too_many_messages_are_refused_but_the_connection_stays(served, http):
    _app, address = served
    table_id = await create_table(http, FAST_RULES)
    client = TableClient(address, table_id)
    await client.connect()
    for _ in range(60):
        await client.send({"type": "ping"})
    replies = [await client.until(lambda m: True) for _ in range(60)]
    limited = [m for m in replies if m["type"] == "error"]
    assert limited and all(m["code"] == "rate_limited" for m in limited)
    assert sum(m["type"] == "pong" for m in replies) == 29  # 30 a minute, hello included
    assert client.close_code is None
    await client.close()


async def test_a_bot_plays_for_an_absent_player_until_they_return(served, http):
    _app, address = served
    table_id = await create_table(http, FAST_RULES)
    players = await seat_players(http, address, table_id, 4)
    absent_seat = players[0].view["turn"][0]
    absent = players[absent_seat]
    await absent.close()
    others = [p for p in players if p is not absent]
    covered = await others[0].until(
        lambda m: (
            m["type"] == "state" and m["state"] and m["state"]["bids"][absent_seat] is not None
        )
    )
    assert covered["table"]["seats"][absent_seat].get("autoplay") is True
    back = await absent.connect()
    assert back["table"]["seats"][absent_seat]["connected"] is True
    assert "autoplay" not in back["table"]["seats"][absent_seat]
    for player in players:
        await player.close()


async def test_players_who_never_come_get_bots_after_the_grace_time(served, http):
    _app, address = served
    table_id = await create_table(http, FAST_RULES)
    watcher = TableClient(address, table_id)
    await watcher.connect()
    await take_seats(http, table_id)
    final = await watcher.until(
        lambda m: m["type"] == "state" and m["table"]["status"] == "over", timeout=60
    )
    assert all(seat.get("autoplay") for seat in final["table"]["seats"])
    assert final["table"]["winner"] in (0, 1)
    await watcher.close()
