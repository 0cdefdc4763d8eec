"""Lobby benchmark: prints figures, checks nothing.

Run: ``.venv/bin/python bench/lobby.py [--tables 100] [--moves 140] [DATABASE_URL]``
(default: a SQLite file in a temporary folder; a PostgreSQL URL must name a scratch
database, since the tables are created there and left behind).

Fills the database with playing tables (four seated players, ``--moves`` actions played
in each through the hub, as their sockets would), then times, on a hub that has loaded nothing yet:

1. the lobby as served (``TableHub.lobby``: one summary query, no game loaded), and
2. what the lobby cost before (load every open table's room, replaying its game, and
   take its public info),

and the memory that 100 loaded rooms hold (tracemalloc), which is what idle eviction
(``SPADES_ROOM_IDLE_SECONDS``) gives back.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
import tracemalloc
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.harness.hub import seat_table
from bench.harness.server import database
from server.engine import Rules
from server.observability import configure_logging
from server.protocol import PublicTable
from server.realtime.hub import TableHub
from server.realtime.pubsub import LocalNotices
from server.realtime.views import room_table
from server.settings import Settings
from server.store.db import create_engine, migrate
from server.store.repository import TableStore

RUNS = 5


async def fill(hub: TableHub, tables: int, moves: int) -> None:
    """Playing tables with ``moves`` actions each (the first legal one, acted by the
    seat's player, so each is committed as in a real game); then every seat shown away
    again, as their sockets are gone."""
    rules = Rules.preset("standard", target_score=2000)
    for number in range(tables):
        table = await seat_table(hub, rules, f"Bench {number}", keep_all=False)
        for _ in range(moves):
            room = await hub.room(table.room.id)
            assert room.stored.game is not None
            seat = room.stored.game.turn[0]
            version = room.stored.version
            await hub.act(room, table.players[seat], room.stored.game.legal(seat)[0])
            if room.stored.version == version:
                raise RuntimeError(f"table {room.id}: the move of seat {seat} was refused")
    await hub.store.forget_presence()


async def load_every_room(hub: TableHub) -> list[PublicTable]:
    """The lobby as it was: every open table's room loaded, then its public info."""
    ids = await hub.store.table_ids(("waiting", "playing"))
    return [room_table(await hub.room(table_id)) for table_id in ids]


async def timed(
    fresh_hub: Callable[[], TableHub], run: Callable[[TableHub], Awaitable[list[Any]]]
) -> tuple[list[float], int, int]:
    """Milliseconds of ``RUNS`` runs, each on a hub with nothing loaded; tables listed and
    rooms the last run left loaded."""
    times = []
    for _ in range(RUNS):
        hub = fresh_hub()
        start = time.perf_counter()
        rows = await run(hub)
        times.append((time.perf_counter() - start) * 1000)
    return times, len(rows), len(hub.rooms)


async def main(given_url: str | None, tables: int, moves: int) -> None:
    async with database(given_url, prefix="lobby") as url:
        await measure(url, tables, moves)


async def measure(url: str, tables: int, moves: int) -> None:
    engine = create_engine(url)
    await migrate(engine)
    settings = Settings(DATABASE_URL=url, bot_delay=0, log_level="WARNING", log_json=False)
    configure_logging(settings)
    store = TableStore(engine)

    def fresh_hub() -> TableHub:
        return TableHub(store, settings, LocalNotices())

    started = time.perf_counter()
    await fill(fresh_hub(), tables, moves)
    print(
        f"{engine.dialect.name}: {tables} playing tables, {moves} actions each, filled in "
        f"{time.perf_counter() - started:.1f} s"
    )
    for name, run in (
        ("lobby (summary query)", TableHub.lobby),
        ("load every room", load_every_room),
    ):
        times, listed, loaded = await timed(fresh_hub, run)
        print(
            f"  {name:<22} {listed} tables listed: median {statistics.median(times):.1f} ms, "
            f"best {min(times):.1f} ms; rooms left in memory: {loaded}"
        )
    hub = fresh_hub()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    await load_every_room(hub)
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    print(
        f"  memory held by {len(hub.rooms)} loaded rooms: {held / 1024:,.0f} KiB "
        f"({held / max(1, len(hub.rooms)) / 1024:.1f} KiB per room)"
    )
    await engine.dispose()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("url", nargs="?", help="database URL (default: a temporary SQLite file)")
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--moves", type=int, default=140)
    args = parser.parse_args()
    asyncio.run(main(args.url, args.tables, args.moves))
