"""A real server process is killed (SIGKILL) mid-hand and started again on the same
database: every game continues from where it was, nothing lost, versions never go back."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from server.engine import Rules
from tests.live_server import LiveServer
from tests.realtime.players import create_table, play_turns, seat_players

pytestmark = pytest.mark.slow

RULES = {"preset": "standard", "target_score": 100}


async def test_a_killed_server_resumes_every_game_where_it_was(database_url):
    server = LiveServer(database_url, env={"SPADES_BOT_DELAY": "0.05"})
    await asyncio.to_thread(server.start)
    address = server.url.removeprefix("http://")
    try:
        async with httpx.AsyncClient(base_url=server.url) as http:
            table_id = await create_table(http, RULES)
            players = await seat_players(http, address, table_id, 4)
            rules = Rules.model_validate(RULES)

            def mid_hand(message: dict[str, Any]) -> bool:
                view = message["state"]
                return sum(view["tricks_won"]) >= 3 and len(view["trick"]) == 2

            await play_turns(players, rules, done=mid_hand)
            before = {player.state["seat"]: player.state for player in players}
            last_version = max(player.version for player in players)

            bots_id = await create_table(http, RULES)
            for seat in range(4):
                await http.post(f"/api/tables/{bots_id}/seats/{seat}/bot", json={"level": "basic"})
            bots_before = (await http.get(f"/api/tables/{bots_id}")).json()
            assert bots_before["status"] == "playing"

        server.kill()
        for player in players:
            await player.close()
        await asyncio.to_thread(server.start)

        async with httpx.AsyncClient(base_url=server.url) as http:
            for player in players:
                back = await player.connect(version=player.version)
                assert back["version"] > last_version
                assert back["state"] == before[player.state["seat"]]["state"]
            # The game goes on from there: finish the hand.
            await play_turns(
                players,
                rules,
                done=lambda m: m["table"]["hands_played"] >= 1,
            )
            history = (await http.get(f"/api/tables/{table_id}/history")).json()
            assert sum(history["hands"][0]["tricks"]) == 13

            # The bot table resumed by itself: its bots move on from where they were.
            resumed = (await http.get(f"/api/tables/{bots_id}")).json()
            assert resumed["version"] >= bots_before["version"]
            async with asyncio.timeout(30):
                while (await http.get(f"/api/tables/{bots_id}")).json()["version"] <= resumed[
                    "version"
                ]:
                    await asyncio.sleep(0.05)
        for player in players:
            await player.close()
    finally:
        server.stop()
