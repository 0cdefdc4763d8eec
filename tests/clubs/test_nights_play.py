"""A whole club night through the real protocol against a real server process, on SQLite
and PostgreSQL: 9 members (one sits out each round), three rounds of two hands. At one
table of each round the members take their seats with their member tokens and play
over WebSockets; at the other, the night's bots play for them. The server is killed
(SIGKILL) in the middle of round 2 and started again on the same database: the round
goes on where it was. Every member's standing equals what the games' histories say."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from bench.harness.server import LiveServer
from server.engine import Rules
from tests.clubs.playing import Club, bearer, make_club
from tests.realtime.players import TableClient, play_turns

pytestmark = pytest.mark.slow

NAMES = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ivy"]
HANDS = 2


async def night_of(http: httpx.AsyncClient, club: Club, night: str) -> dict[str, Any]:
    answer = await http.get(f"/api/clubs/{club.id}/nights/{night}", headers=bearer(club.host_token))
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


async def next_round(http: httpx.AsyncClient, club: Club, night: str) -> dict[str, Any]:
    started = await http.post(
        f"/api/clubs/{club.id}/nights/{night}/next", headers=bearer(club.host_token)
    )
    assert started.status_code == 201, started.text
    body: dict[str, Any] = started.json()
    return body


async def seat_and_connect(
    http: httpx.AsyncClient, address: str, club: Club, table_id: str, seats: dict[int, str]
) -> list[TableClient]:
    """Each member takes their kept seat with their member token and connects."""
    clients = []
    for seat, member in seats.items():
        taken = await http.post(
            f"/api/tables/{table_id}/seats/{seat}",
            json={"name": "ignored", "member_token": club.token(member)},
        )
        assert taken.status_code == 200, taken.text
        client = TableClient(address, table_id, taken.json()["token"])
        await client.connect()
        assert client.state is not None and client.state["seat"] == seat
        clients.append(client)
    return clients


def over(message: dict[str, Any]) -> bool:
    return bool(message["table"]["status"] == "over")


async def until_round_over(
    http: httpx.AsyncClient, club: Club, night: str, number: int
) -> dict[str, Any]:
    """The night once every table of round `number` is over (as the night reads them)."""
    async with asyncio.timeout(120):
        while True:
            shown = await night_of(http, club, night)
            tables = shown["schedule"][number - 1]["tables"]
            if shown["round"] == number and all(t["status"] == "over" for t in tables):
                return shown
            await asyncio.sleep(0.2)


async def play_round(
    http: httpx.AsyncClient,
    address: str,
    club: Club,
    shown: dict[str, Any],
    rules: Rules,
    done: Any = None,
    late: str | None = None,
) -> list[TableClient]:
    """Every member of the round takes their seat and plays over WebSockets until `done`
    (default: the game is over) at every table; `late` joins only once the first hand at
    their table is over, a bot playing for them until then."""
    number = shown["round"]
    clients: list[TableClient] = []
    waiting: tuple[str, int, str] | None = None
    for position, table_id in enumerate(shown["tables"]):
        seats = shown["schedule"][number - 1]["tables"][position]["seats"]
        for seat, member in enumerate(seats):
            if member == late:
                waiting = (table_id, seat, member)
                continue
            clients.extend(await seat_and_connect(http, address, club, table_id, {seat: member}))
    if waiting is not None:
        table_id, seat, member = waiting
        at_table = [c for c in clients if c.table_id == table_id]
        await play_turns(at_table, rules, done=lambda m: over(m) or m["state"]["hand_number"] >= 2)
        shown_table = (await http.get(f"/api/tables/{table_id}")).json()
        assert shown_table["seats"][seat]["autoplay"], "a bot played for the late member"
        clients.extend(await seat_and_connect(http, address, club, table_id, {seat: member}))
    await play_turns(clients, rules, done=done or over, timeout=120)
    return clients


def expected_standings(
    schedule: list[dict[str, Any]], histories: dict[str, dict[str, Any]]
) -> dict[str, dict[str, int]]:
    """Each member's points, games and wins from the games' histories, as the contract
    defines them: their side's points in each finished game, a win for the highest."""
    out: dict[str, dict[str, int]] = {}
    for entry in schedule:
        for table in entry["tables"]:
            hands = histories[table["table"]]["hands"]
            assert len(hands) == HANDS
            finals = [side["score"] for side in hands[-1]["sides"]]
            for seat, member in enumerate(table["seats"]):
                side = seat % 2
                mine = out.setdefault(
                    member, {"points": 0, "games": 0, "wins": 0, "hands": 0, "contracts_made": 0}
                )
                mine["points"] += sum(hand["sides"][side]["points"] for hand in hands)
                assert mine["points"] >= -100_000
                mine["games"] += 1
                mine["wins"] += int(finals[side] > finals[1 - side])
                mine["hands"] += len(hands)
                for hand in hands:
                    result = hand["sides"][side]
                    if result["contract"] > 0 and result["taken"] >= result["contract"]:
                        mine["contracts_made"] += 1
            # The side's points over the game are its final score.
            for side in (0, 1):
                assert sum(hand["sides"][side]["points"] for hand in hands) == finals[side]
    return out


async def test_a_club_night_of_nine_survives_a_kill_and_its_standings_match_the_histories(
    database_url,
):
    fast = {"SPADES_BOT_DELAY": "0", "SPADES_WS_RATE_LIMIT": "1000/second"}
    server = LiveServer(database_url, env=fast)
    await asyncio.to_thread(server.start)
    address = server.url.removeprefix("http://")
    clients: list[TableClient] = []
    try:
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
            club = await make_club(http, NAMES)
            made = await http.post(
                f"/api/clubs/{club.id}/nights",
                json={
                    "members": list(club.members),
                    "rounds": 3,
                    "format": "rotating",
                    "hands": HANDS,
                    "seed": 11,
                },
                headers=bearer(club.host_token),
            )
            assert made.status_code == 201, made.text
            night = made.json()["id"]
            rules = Rules.model_validate(made.json()["rules"][0])
            assert rules.hand_limit == HANDS

            # Round 1: every member plays at their table.
            shown = await next_round(http, club, night)
            clients = await play_round(http, address, club, shown, rules)
            for client in clients:
                await client.close()
            await until_round_over(http, club, night, 1)
            member = await http.post(
                f"/api/clubs/{club.id}/nights/{night}/next",
                headers=bearer(club.token(shown["schedule"][0]["tables"][0]["seats"][0])),
            )
            assert member.status_code == 403

            # Round 2: killed once the first hand at each table is scored.
            shown = await next_round(http, club, night)
            assert shown["round"] == 2
            clients = await play_round(
                http,
                address,
                club,
                shown,
                rules,
                done=lambda m: over(m) or m["state"]["hand_number"] == 2,
            )
            seated = [(client.table_id, client.token) for client in clients]
            for client in clients:
                await client.close()
            before = await night_of(http, club, night)
        server.kill()
        await asyncio.to_thread(server.start)
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
            after = await night_of(http, club, night)
            assert after["round"] == 2 and after["status"] == "playing"
            assert after["tables"] == before["tables"] and after["schedule"] == before["schedule"]
            assert after["standings"] == before["standings"]
            refused = await http.post(
                f"/api/clubs/{club.id}/nights/{night}/next", headers=bearer(club.host_token)
            )
            assert refused.status_code == 409
            clients = [TableClient(address, table_id, token) for table_id, token in seated]
            for client in clients:
                await client.connect()
            await play_turns(clients, rules, done=over, timeout=120)
            for client in clients:
                await client.close()
            await until_round_over(http, club, night, 2)

            # Round 3: one member comes late; a bot plays for them until they arrive.
            shown = await next_round(http, club, night)
            late = shown["schedule"][2]["tables"][1]["seats"][3]
            clients = await play_round(http, address, club, shown, rules, late=late)
            for client in clients:
                await client.close()
            final = await until_round_over(http, club, night, 3)
            assert final["status"] == "over"
            done = await http.post(
                f"/api/clubs/{club.id}/nights/{night}/next", headers=bearer(club.host_token)
            )
            assert done.status_code == 409

            histories = {}
            for entry in final["schedule"]:
                for table in entry["tables"]:
                    answer = await http.get(f"/api/tables/{table['table']}/history")
                    histories[table["table"]] = answer.json()
            expected = expected_standings(final["schedule"], histories)
            shown_standings = {row["member"]: row for row in final["standings"]}
            assert set(shown_standings) == set(club.members)
            for member, figures in expected.items():
                row = shown_standings[member]
                assert {name: row[name] for name in figures} == figures, row["name"]
                assert row["live_points"] == row["points"]
            # One member sat out each round, none twice: three played two games, six three ...
            assert sorted(row["games"] for row in final["standings"]) == [2] * 3 + [3] * 6
            # ... and the standings are in order.
            keys = [(-r["points"], -r["wins"], -r["contracts_made"]) for r in final["standings"]]
            assert keys == sorted(keys)
            # Every night game counted for the club as its games do.
            page = (await http.get(f"/api/clubs/{club.id}", headers=bearer(club.host_token))).json()
            tables = {table["table"] for entry in final["schedule"] for table in entry["tables"]}
            assert {game["table"] for game in page["games"]} == tables
            assert all(game["rated"] for game in page["games"])
            assert sorted(member["games"] for member in page["members"]) == [2] * 3 + [3] * 6
    finally:
        for client in clients:
            await client.close()
        server.stop()
