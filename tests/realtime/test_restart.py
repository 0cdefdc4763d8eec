"""A real server process is killed (SIGKILL) mid-hand and started again on the same
database: every game continues from where it was, nothing lost, versions never go back."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from bench.harness.server import LiveServer
from bench.harness.tables import add_bots
from server.engine import Rules
from tests.realtime.players import crash_and_restart, create_table, play_turns, seat_players

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
            await add_bots(http, bots_id, level="basic")
            bots_before = (await http.get(f"/api/tables/{bots_id}")).json()
            assert bots_before["status"] == "playing"

        await crash_and_restart(server, players)

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


async def test_the_series_tally_survives_a_killed_server(database_url):
    """Games won are counted from the stored games: after a SIGKILL and a start on the same
    database, the table still shows them, and the next game adds to them."""
    # Four scripted players act as fast as the server answers: above a person's 20/s.
    fast = {"SPADES_BOT_DELAY": "0", "SPADES_WS_RATE_LIMIT": "1000/second"}
    server = LiveServer(database_url, env=fast)
    await asyncio.to_thread(server.start)
    address = server.url.removeprefix("http://")
    rules = Rules.model_validate(RULES)

    def over(game_number: int) -> Any:
        return lambda m: m["table"]["game_number"] == game_number and m["table"]["status"] == "over"

    try:
        async with httpx.AsyncClient(base_url=server.url) as http:
            table_id = await create_table(http, RULES)
            players = await seat_players(http, address, table_id, 4)
            await play_turns(players, rules, done=over(1))
            first = (await http.get(f"/api/tables/{table_id}")).json()
            tally = [0, 0]
            tally[first["winner"]] += 1
            assert first["series"] == tally

        await crash_and_restart(server, players)

        async with httpx.AsyncClient(base_url=server.url) as http:
            assert (await http.get(f"/api/tables/{table_id}")).json()["series"] == tally
            for player in players:
                await player.connect()
            token = players[0].token
            again = await http.post(
                f"/api/tables/{table_id}/rematch", headers={"Authorization": f"Bearer {token}"}
            )
            assert again.status_code == 201, again.text
            await play_turns(players, rules, done=over(2))
            second = (await http.get(f"/api/tables/{table_id}")).json()
            tally[second["winner"]] += 1
            assert second["series"] == tally
        for player in players:
            await player.close()
    finally:
        server.stop()
