"""A real server killed (SIGKILL) right after a club game's last trick, before any other
request, and started again on the same database: the game is rated exactly once."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from bench.harness.server import LiveServer
from tests.clubs.playing import (
    FAST,
    bearer,
    club_table,
    make_club,
    play_to_the_end,
    seat_members,
)

pytestmark = pytest.mark.slow


async def test_a_club_game_killed_at_its_end_is_rated_exactly_once(database_url):
    fast = {"SPADES_BOT_DELAY": "0", "SPADES_WS_RATE_LIMIT": "1000/second"}
    server = LiveServer(database_url, env=fast)
    await asyncio.to_thread(server.start)
    address = server.url.removeprefix("http://")
    try:
        async with httpx.AsyncClient(base_url=server.url) as http:
            club = await make_club(http, ["Ann", "Bob", "Cy", "Di"])
            order = list(club.members)
            table_id = await club_table(http, club, order[0], FAST)
            clients = await seat_members(http, address, table_id, club, order)
            await play_to_the_end(clients, FAST)
        # The last trick's state reached every player: the game's end had landed.
        server.kill()
        await asyncio.to_thread(server.start)
        async with httpx.AsyncClient(base_url=server.url) as http:
            shown = (
                await http.get(f"/api/clubs/{club.id}", headers=bearer(club.host_token))
            ).json()
            info = (await http.get(f"/api/tables/{table_id}")).json()
        [game] = shown["games"]
        assert game["table"] == table_id and game["rated"] and game["winner"] == info["winner"]
        assert all(member["games"] == 1 for member in shown["members"])
        ratings = sorted(member["mu"] for member in shown["members"])
        assert ratings[0] < 25 < ratings[-1]
        # A winner's mu after exactly one game of four fresh players (a second rating
        # would have moved it further).
        assert ratings[-1] == pytest.approx(26.964, abs=0.01)
    finally:
        server.stop()
