"""Club page benchmark: prints figures, checks nothing.

Run: ``.venv/bin/python bench/club.py [--games 1000] [--requests 300] [DATABASE_URL]``
(default: a SQLite file in a temporary folder; a PostgreSQL URL must name a scratch
database, since the club is created there and left behind).

Fills a club of eight members with ``--games`` finished games, each a real game the
engine played to 200 points (basic bots; 100 distinct games, cycled), stored as the server
stores a game (table, seats, game, hands) and ended through the same code as a game's
last action (`write_club_results`, on its own transaction). Then times ``GET
/api/clubs/{id}`` with a member's token, through the app (in process, over ASGI):
median and p99 of ``--requests`` requests, and the answer's size. The page reads the
stored totals: its cost grows with the number of games listed, not with their hands.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import secrets
import statistics
import sys
import time
from functools import cache
from pathlib import Path

import httpx
from fastapi import FastAPI
from sqlalchemy import Connection
from sqlalchemy.ext.asyncio import AsyncConnection

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.harness.server import database
from server.api.services import services_of
from server.app import create_app
from server.engine import Game, Rules
from server.engine.bots import choose_action
from server.protocol import StoredHand
from server.realtime.hosting import hash_token, new_token
from server.realtime.moves import hand_fields
from server.settings import Settings
from server.store.club_results import write_club_results
from server.store.models import (
    CLUB_SEATS,
    CLUB_TABLES,
    GAMES,
    HANDS,
    SEATS,
    TABLES,
)
from server.store.records import ActionWrite
from server.store.statements import CoreWriter

RULES = Rules.preset("standard", target_score=200)
MEMBERS = 8


DISTINCT = 100  # engine games played; the club's games cycle through them


@cache
def played(seed: int) -> tuple[Game, list[StoredHand]]:
    """A whole game, every seat played by the basic bot from a seeded generator."""
    game = Game(RULES, seed=seed)
    rng = random.Random(seed)
    while game.winner is None and game.phase != "over":
        seat = game.turn[0]
        game.act(seat, choose_action(RULES, game.view(seat), "basic", rng))
    hands = [hand_fields(result, [], None) for result in game.hand_results]
    return game, hands


async def store_game(
    connection: AsyncConnection, club_id: str, seated: list[str], number: int
) -> ActionWrite:
    """A finished game of the club stored as the server stores one (its table, seats with
    the members' seat tokens, game and hands), not yet ended for the club: the write of
    its last action, for `write_club_results`."""
    game, hands = played(number % DISTINCT)
    table_id = secrets.token_urlsafe(6)
    tokens = [new_token() for _ in seated]
    await connection.execute(
        TABLES.insert(),
        {
            "id": table_id,
            "name": f"Club table {number}",
            "rules": RULES.model_dump(mode="json"),
            "status": "over",
            "version": 1,
            "game_number": 1,
            "listed": False,
            "hints": True,
        },
    )
    await connection.execute(
        SEATS.insert(),
        [
            {
                "table_id": table_id,
                "seat": seat,
                "name": f"P{seat}",
                "token_hash": hash_token(token),
                "connected": False,
                "autoplay": False,
                "timeouts": 0,
            }
            for seat, token in enumerate(tokens)
        ],
    )
    await connection.execute(
        CLUB_TABLES.insert(), {"table_id": table_id, "club_id": club_id, "preset": "standard"}
    )
    await connection.execute(
        CLUB_SEATS.insert(),
        [
            {"table_id": table_id, "token_hash": hash_token(token), "member_id": member}
            for token, member in zip(tokens, seated, strict=True)
        ],
    )
    game_id = (
        await connection.execute(
            GAMES.insert().returning(GAMES.c.id),
            {
                "table_id": table_id,
                "number": 1,
                "seed": number,
                "snapshot": {},
                "snapshot_seq": 0,
                "winner": game.winner,
                "final_scores": game.scores,
            },
        )
    ).scalar_one()
    await connection.execute(
        HANDS.insert(),
        [{"game_id": game_id, "number": n, **hand} for n, hand in enumerate(hands, 1)],
    )
    return ActionWrite(
        table_id=table_id,
        old_version=1,
        status="over",
        game_id=game_id,
        seq=len(game.log),
        seat=0,
        action=game.log[-1][1],
        snapshot=None,
        new_hands=[],
        first_hand_number=len(hands) + 1,
        winner=game.winner,
        final_scores=game.scores,
    )


def write_results(sync: Connection, end: ActionWrite) -> None:
    """The club's figures and ratings for a stored game's end, as the server writes them."""
    write_club_results(CoreWriter(sync), [end])


async def fill(http: httpx.AsyncClient, app: FastAPI, games: int) -> tuple[str, str]:
    """A club with `MEMBERS` members and `games` finished games; (club id, a member token)."""
    club = (await http.post("/api/clubs", json={"name": "Bench club"})).json()
    members: list[tuple[str, str]] = []
    for number in range(MEMBERS):
        joined = (
            await http.post(
                f"/api/clubs/{club['id']}/members",
                json={"name": f"Member {number}", "invite": club["invite"]},
            )
        ).json()
        members.append((joined["member"]["id"], joined["token"]))
    engine = services_of(app).db_engine
    rng = random.Random(1)
    for number in range(games):
        seated = [member for member, _token in rng.sample(members, RULES.players)]
        async with engine.begin() as connection:
            end = await store_game(connection, club["id"], seated, number)
            await connection.run_sync(write_results, end)
    return club["id"], members[0][1]


async def main(given_url: str | None, games: int, requests: int) -> None:
    async with database(given_url, prefix="club") as url:
        settings = Settings(
            DATABASE_URL=url,
            log_level="WARNING",
            log_json=False,
            http_rate_limit="100000/second",
            bot_processes=0,
        )
        app = create_app(settings)
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://bench") as http:
                started = time.perf_counter()
                club_id, token = await fill(http, app, games)
                dialect = services_of(app).db_engine.dialect.name
                print(
                    f"{dialect}: a club of {MEMBERS} members, {games} finished games, filled in "
                    f"{time.perf_counter() - started:.1f} s"
                )
                headers = {"Authorization": f"Bearer {token}"}
                times = []
                size = 0
                for _ in range(requests):
                    start = time.perf_counter()
                    answer = await http.get(f"/api/clubs/{club_id}", headers=headers)
                    times.append((time.perf_counter() - start) * 1000)
                    answer.raise_for_status()
                    size = len(answer.content)
                shown = answer.json()
                times.sort()
                p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
                print(
                    f"  GET /api/clubs/{{id}}: {len(shown['games'])} games listed, "
                    f"{size / 1024:.0f} KiB; median {statistics.median(times):.1f} ms, "
                    f"p99 {p99:.1f} ms, best {times[0]:.1f} ms ({requests} requests)"
                )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("url", nargs="?", help="database URL (default: a temporary SQLite file)")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--requests", type=int, default=300)
    args = parser.parse_args()
    asyncio.run(main(args.url, args.games, args.requests))
