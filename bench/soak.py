"""Soak benchmark: bot-only tables play at bot delay 0 for minutes; checks that every game
finishes, no write fails and the server's memory stays flat.

Starts a real uvicorn process (bench/harness/server.py, `SPADES_BOT_DELAY=0`) on a fresh
SQLite file, on `--database-url`, or with `--postgres` on a scratch PostgreSQL database it
creates (on 127.0.0.1:5432) and drops afterwards. It keeps `--tables` tables live, each
four basic bots playing to `--target` points; when a game is over a new table takes its
place. After `--seconds` no new table is started and the live games get `--drain` seconds
to finish. Progress is watched through the public API (`GET /api/tables/{id}`: status and
version, every `--poll` seconds; `--spectators` adds one spectator WebSocket per table).

Prints games finished, actions/s (the sum of the tables' version increments), stalls (a
playing table whose version did not move for over `--stall` seconds) and the longest gap,
write failures (`spades_errors_total{where="store"}` and `{where="store_retry"}` from
/metrics), the server's RSS (VmRSS every `--rss-every` s: start, peak, end, and the slope
over the second half of the run), and the `database is locked` lines of the server's log,
then a verdict line; exits 1 on FAIL. Rooms of finished games stay in memory until
`SPADES_ROOM_IDLE_SECONDS` (300 s in production); the soak sets it to `--room-idle` (60 s)
so that the run reaches the steady state whose memory must stay flat; from a run of twice
`--settled` (180 s), RSS at the end must be within `--max-growth` (20 %) of its value then.
`--max-slope` (2 MB/min) lies between the warm-up still seen in a 5-minute run's second half (about
1 MB/min) and a leak of every finished game's room (about 68 KiB each, bench/lobby.py:
2.7 MB/min at 40 games a minute); the slope is judged from `--seconds 120` up.

    .venv/bin/python bench/soak.py                      # SQLite, 50 tables, 300 s
    .venv/bin/python bench/soak.py --postgres
    .venv/bin/python bench/soak.py --tables 3 --seconds 8 --target 100   # a smoke run
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.harness import metrics, tables
from bench.harness.server import LiveServer, database
from bench.harness.stats import rss_mb, slope_per_minute

LOCKED = "database is locked"
# A shorter run's second half is start-up warm-up (caches, first rooms): no slope verdict.
MIN_SLOPE_SECONDS = 120


@dataclass
class Table:
    id: str
    created: float
    version: int = 0
    status: str = "waiting"
    changed: float = 0.0  # when the version last moved (monotonic)
    longest_gap: float = 0.0  # longest time without a version change while playing
    stalls: int = 0  # gaps over the stall limit


@dataclass
class Soak:
    args: argparse.Namespace
    started: float = 0.0
    window_end: float = 0.0
    tables: list[Table] = field(default_factory=list)
    games: int = 0
    increments: int = 0  # version increments seen during the window
    increments_total: int = 0
    http_errors: list[str] = field(default_factory=list)
    rss: list[tuple[float, float]] = field(default_factory=list)  # (seconds, MB)
    retried: int = 0  # GETs sent again after their kept-alive connection closed
    spectator_messages: int = 0

    def seen(self, table: Table, version: int, status: str, now: float) -> None:
        """A table's version and status as read now: count its progress and its gaps."""
        if version > table.version:
            if table.status == "playing":
                self.gap(table, now)
            step = version - table.version
            self.increments_total += step
            if now <= self.window_end:
                self.increments += step
            table.version, table.changed = version, now
        if status != table.status:
            if status == "over" and table.status != "over":
                self.games += 1
            if status == "playing" and table.status == "waiting":
                table.changed = now
            table.status = status

    def gap(self, table: Table, now: float) -> None:
        gap = now - table.changed
        table.longest_gap = max(table.longest_gap, gap)
        if gap > self.args.stall:
            table.stalls += 1

    def stalls(self) -> list[Table]:
        return [table for table in self.tables if table.stalls]


async def server_counts(http: httpx.AsyncClient) -> tuple[dict[str, float], float]:
    """Errors by `where`, and accepted game actions, from /metrics."""
    samples = await metrics.scrape(http) or []
    errors = metrics.counters(samples, "spades_errors_total", by="where")
    return errors, sum(metrics.counters(samples, "spades_actions_total").values())


async def new_table(soak: Soak, http: httpx.AsyncClient, number: int) -> Table:
    """A private table with four basic bots (the last bot starts the game)."""
    rules = {"preset": "standard", "target_score": soak.args.target}
    info = await tables.create_table(http, rules, f"Soak {number}", listed=False)
    table = Table(info["id"], time.monotonic(), info["version"], changed=time.monotonic())
    soak.tables.append(table)
    await tables.add_bots(http, table.id, level="basic", invite=info["invite"])
    return table


async def spectate(soak: Soak, ws_url: str, table: Table) -> None:
    """One spectator socket: every state it receives is progress seen."""
    with contextlib.suppress(Exception):
        async with await tables.connect(ws_url, table.id, None, max_queue=None) as ws:
            async for raw in ws:
                message = json.loads(raw)
                if message.get("type") != "state":
                    continue
                soak.spectator_messages += 1
                soak.seen(table, message["version"], message["table"]["status"], time.monotonic())
                if table.status == "over":
                    return


async def keep_table(soak: Soak, http: httpx.AsyncClient, ws_url: str, slot: int) -> None:
    """One of the `--tables` slots: a table after another, until the window closes and
    the last one's game is over (or the drain time runs out)."""
    number = slot
    drain_end = soak.window_end + soak.args.drain
    while time.monotonic() < soak.window_end:
        try:
            table = await new_table(soak, http, number)
        except (httpx.HTTPError, KeyError, ValueError) as failure:
            soak.http_errors.append(f"new table: {failure!r}")
            await asyncio.sleep(1)
            continue
        number += soak.args.tables
        watcher = (
            asyncio.create_task(spectate(soak, ws_url, table)) if soak.args.spectators else None
        )
        try:
            while table.status != "over" and time.monotonic() < drain_end:
                await asyncio.sleep(soak.args.poll)
                try:
                    answer = await get_again(soak, http, f"/api/tables/{table.id}")
                    answer.raise_for_status()
                    info = answer.json()
                except (httpx.HTTPError, ValueError) as failure:
                    soak.http_errors.append(f"GET {table.id}: {failure!r}")
                    continue
                soak.seen(table, info["version"], info["status"], time.monotonic())
        finally:
            if watcher is not None:
                watcher.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await watcher
        if table.status == "playing":  # the drain time ran out: count the gap so far
            soak.gap(table, time.monotonic())


async def get_again(soak: Soak, http: httpx.AsyncClient, path: str) -> httpx.Response:
    """GET `path`, once more if the kept-alive connection it went out on was being closed
    by the server (uvicorn closes idle ones after 5 s: a race of the client's, not a fault
    of the server's); such retries are counted apart."""
    try:
        return await http.get(path)
    except httpx.TransportError:
        soak.retried += 1
        return await http.get(path)


async def sample_rss(soak: Soak, pid: int, stop: asyncio.Event) -> None:
    while not stop.is_set():
        value = rss_mb(pid)
        if value is not None:
            soak.rss.append((time.monotonic() - soak.started, value))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), soak.args.rss_every)


async def run(args: argparse.Namespace, url: str) -> bool:
    env = {
        "SPADES_BOT_DELAY": "0",
        "SPADES_ROOM_IDLE_SECONDS": str(args.room_idle),
        "SPADES_WS_PER_ADDRESS": str(2 * args.tables + 16),
        "SPADES_WS_NEW_PER_ADDRESS": "100000/second",
        "SPADES_HTTP_RATE_LIMIT": "100000/second",
        "SPADES_LOG_LEVEL": "WARNING",
    }
    server = LiveServer(url, env=env)
    await asyncio.to_thread(server.start)
    assert server.process is not None and server.pid is not None
    pid = server.pid
    backend = url.split(":")[0]
    print(
        f"soak on {backend}: {args.tables} tables of 4 basic bots to {args.target}, "
        f"{args.seconds:g} s (+ up to {args.drain:g} s to finish), bot delay 0, "
        f"room idle {args.room_idle:g} s, server pid {pid}",
        flush=True,
    )
    soak = Soak(args)
    stop = asyncio.Event()
    limits = httpx.Limits(max_connections=args.tables + 8, max_keepalive_connections=args.tables)
    try:
        async with httpx.AsyncClient(
            base_url=server.url, limits=limits, timeout=httpx.Timeout(60)
        ) as http:
            errors_before, actions_before = await server_counts(http)
            soak.started = time.monotonic()
            soak.window_end = soak.started + args.seconds
            sampler = asyncio.create_task(sample_rss(soak, pid, stop))
            progress = asyncio.create_task(report_progress(soak))
            await asyncio.gather(
                *(keep_table(soak, http, server.ws_url, slot) for slot in range(args.tables))
            )
            finished = time.monotonic()
            errors_after, actions_after = await server_counts(http)
            stop.set()
            await sampler
            progress.cancel()
        alive = server.process.poll() is None
    finally:
        stop.set()
        server.stop()
    log = server.output()
    return verdict(
        soak,
        args,
        finished - soak.started,
        alive,
        {k: errors_after.get(k, 0) - errors_before.get(k, 0) for k in errors_after},
        actions_after - actions_before,
        log,
    )


async def report_progress(soak: Soak) -> None:
    """A line every 30 s, so that a long run shows it is alive."""
    while True:
        await asyncio.sleep(30)
        now = time.monotonic()
        live = sum(1 for t in soak.tables if t.status == "playing")
        rss = soak.rss[-1][1] if soak.rss else 0
        print(
            f"  {now - soak.started:5.0f} s: {soak.games} games, {live} playing, "
            f"{soak.increments_total} versions, {len(soak.stalls())} stalled, RSS {rss:.0f} MB",
            flush=True,
        )


def verdict(
    soak: Soak,
    args: argparse.Namespace,
    elapsed: float,
    alive: bool,
    errors: dict[str, float],
    game_actions: float,
    log: str,
) -> bool:
    window = min(args.seconds, elapsed)
    unfinished = [t for t in soak.tables if t.status != "over"]
    stalled = soak.stalls()
    longest = max(soak.tables, key=lambda t: t.longest_gap, default=None)
    store, retries = int(errors.get("store", 0)), int(errors.get("store_retry", 0))
    others = {k: int(v) for k, v in errors.items() if k not in ("store", "store_retry") and v}
    lines = log.splitlines()
    locked = sum(1 for line in lines if LOCKED in line)
    not_stored = sum(1 for line in lines if "action not stored" in line)
    reloaded = sum(1 for line in lines if "reloaded after a failed write" in line)
    print(f"tables started: {len(soak.tables)}, wall: {elapsed:.1f} s")
    print(f"games finished: {soak.games}, unfinished: {len(unfinished)}")
    print(
        f"actions/s: {soak.increments / window:.0f} (version increments in the {window:.0f} s "
        f"window); game actions: {game_actions:.0f} ({game_actions / elapsed:.0f}/s)"
    )
    if args.spectators:
        print(f"spectator states received: {soak.spectator_messages}")
    print(
        f"stalls: {len(stalled)} tables with no version change for over {args.stall:g} s "
        f"while playing; longest gap {longest.longest_gap if longest else 0:.1f} s"
        + (f" (table {longest.id})" if longest else "")
    )
    print(f"write failures: store {store}, store_retry {retries}; other errors: {others or 0}")
    print(
        f"server log: {locked} '{LOCKED}' lines, {not_stored} 'action not stored' lines, "
        f"{reloaded} tables reloaded after a failed write"
    )
    reasons = []
    rss_slope = 0.0
    if soak.rss:
        values = [mb for _, mb in soak.rss]
        half = [(t, mb) for t, mb in soak.rss if args.seconds / 2 <= t <= args.seconds]
        rss_slope = slope_per_minute(half)
        judged = args.seconds >= MIN_SLOPE_SECONDS
        print(
            f"RSS MB: start {values[0]:.1f}, peak {max(values):.1f}, end {values[-1]:.1f}, "
            f"slope {rss_slope:+.2f} MB/min over the second half ({len(half)} samples"
            + ("" if judged else f"; not judged under {MIN_SLOPE_SECONDS} s")
            + ")"
        )
        if not judged:
            rss_slope = 0.0
        settled = [mb for t, mb in soak.rss if t >= args.settled]
        if args.seconds >= 2 * args.settled and settled:
            growth = values[-1] / settled[0] - 1
            print(
                f"RSS MB at {args.settled:g} s {settled[0]:.1f}, at the end {values[-1]:.1f}: "
                f"{growth:+.0%} (at most {args.max_growth:+.0%})"
            )
            if growth > args.max_growth:
                reasons.append(f"RSS grew {growth:.0%} after {args.settled:g} s")
    print(
        f"HTTP errors: {len(soak.http_errors)} ({soak.retried} GETs sent again on a new connection)"
    )
    for failure in soak.http_errors[:5]:
        print(f"  {failure}")
    if not alive:
        reasons.append("the server exited")
    if soak.games == 0:
        reasons.append("no game finished")
    if unfinished:
        reasons.append(f"{len(unfinished)} games unfinished")
    if stalled:
        reasons.append(f"{len(stalled)} stalls (longest {longest.longest_gap:.0f} s)")  # type: ignore[union-attr]
    if store or retries:
        reasons.append(f"{store + retries} write failures ({store} store, {retries} retries)")
    if locked:
        reasons.append(f"{locked} '{LOCKED}' log lines")
    if soak.http_errors:
        reasons.append(f"{len(soak.http_errors)} HTTP errors")
    if rss_slope > args.max_slope:
        reasons.append(f"RSS grows {rss_slope:.1f} MB/min")
    rss = f"RSS {soak.rss[0][1]:.0f} -> {soak.rss[-1][1]:.0f} MB" if soak.rss else "RSS ?"
    summary = (
        f"{args.tables} tables, {args.seconds:g} s, {soak.games} games, {len(stalled)} stalls, "
        f"{store + retries} write failures, {rss}"
    )
    if reasons:
        print(f"soak: FAIL ({summary}): {'; '.join(reasons)}")
        return False
    print(f"soak: PASS ({summary})")
    return True


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=300)
    parser.add_argument("--target", type=int, default=200)
    parser.add_argument("--stall", type=float, default=10, help="seconds without progress")
    parser.add_argument("--drain", type=float, default=60, help="time for live games to end")
    parser.add_argument("--poll", type=float, default=1.0, help="seconds between GETs")
    parser.add_argument("--rss-every", type=float, default=2.0)
    parser.add_argument(
        "--settled", type=float, default=180.0, help="seconds after which memory must level off"
    )
    parser.add_argument(
        "--max-growth", type=float, default=0.2, help="RSS growth allowed after --settled"
    )
    parser.add_argument("--room-idle", type=float, default=60, help="SPADES_ROOM_IDLE_SECONDS")
    parser.add_argument(
        "--max-slope", type=float, default=2.0, help="RSS growth allowed, MB/min (see above)"
    )
    parser.add_argument("--spectators", action="store_true", help="a spectator socket each")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--database-url", help="default: a fresh SQLite file")
    where.add_argument(
        "--postgres", action="store_true", help="a scratch database on 127.0.0.1:5432"
    )
    args = parser.parse_args()
    return 0 if asyncio.run(soak_on(args)) else 1


async def soak_on(args: argparse.Namespace) -> bool:
    async with database(args.database_url, args.postgres, "spades_soak") as url:
        return await run(args, url)


if __name__ == "__main__":
    sys.exit(main())
