"""Two games of one club ending at the same moment in two transactions (two server
processes) on PostgreSQL: the second waits for the first, so both are counted and the
ratings are those of one game after the other. (SQLite writes one transaction at a
time: there, nothing can interleave.)"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI

from bench.club import store_game
from server.api.services import services_of
from server.app import create_app
from server.clubs.ratings import Rating, rate
from server.engine import Rules
from server.settings import Settings
from server.store.club_results import write_club_results
from server.store.clubs import ClubStore
from server.store.records import ActionWrite
from server.store.statements import CoreWriter
from tests.clubs.playing import bearer, make_club

RULES = Rules.preset("standard")


@pytest.fixture
async def postgres_app(postgres_url: str) -> AsyncIterator[FastAPI]:
    settings = Settings(
        DATABASE_URL=postgres_url, REDIS_URL=None, log_level="WARNING", bot_processes=0
    )
    application = create_app(settings)
    async with application.router.lifespan_context(application):
        yield application


async def test_two_games_of_one_club_ending_at_once_both_count(postgres_app: FastAPI) -> None:
    transport = httpx.ASGITransport(app=postgres_app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        club = await make_club(http, ["Ann", "Bob", "Cy", "Di"])
        members = list(club.members)
        engine = services_of(postgres_app).db_engine
        async with engine.begin() as connection:
            first = await store_game(connection, club.id, members, 1)
            second = await store_game(connection, club.id, members[1:] + members[:1], 2)

        written = asyncio.Event()

        async def end(write: ActionWrite, hold: bool) -> None:
            async with engine.begin() as connection:
                await connection.run_sync(
                    lambda sync: write_club_results(CoreWriter(sync), [write])
                )
                if hold:
                    written.set()
                    await asyncio.sleep(0.5)  # the other transaction runs meanwhile

        async def later() -> None:
            await written.wait()
            await end(second, hold=False)

        await asyncio.wait_for(asyncio.gather(end(first, hold=True), later()), timeout=60)

        shown = (await http.get(f"/api/clubs/{club.id}", headers=bearer(club.host_token))).json()
    assert len(shown["games"]) == 2 and all(game["rated"] for game in shown["games"])
    by_id = {member["id"]: member for member in shown["members"]}
    assert all(by_id[member]["games"] == 2 for member in members)
    # The ratings of the first game, then the second's from those.
    ratings = {member: Rating(25.0, 25 / 3) for member in members}
    for write, order in ((first, members), (second, members[1:] + members[:1])):
        teams = [[order[seat] for seat in side] for side in RULES.sides]
        scores = [side["score"] for side in write.final_scores or []]
        ratings |= rate(teams, ratings, scores, write.winner)
    for member in members:
        assert by_id[member]["mu"] == pytest.approx(ratings[member].mu, abs=1e-3)
        assert by_id[member]["sigma"] == pytest.approx(ratings[member].sigma, abs=1e-3)
    clubs: ClubStore = services_of(postgres_app).clubs
    for member, kinds in (await clubs.recount(club.id)).items():
        assert by_id[member]["hands"] == kinds["all"]["hands"]
