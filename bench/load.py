"""Load benchmark: many tables of four player sockets and spectators play real games at an
offered rate of actions per second; the same client then drives a bare relay
(bench/relay.py) in the same run, and our figures are printed as ratios to the relay's.

Starts the table server (`uvicorn server.app:app --ws websockets-sansio --ws-max-size
8192 --ws-per-message-deflate false`, as `spades serve`; `--deflate on` for per-message
deflate on both servers) on a fresh SQLite file, on `--database-url`, or with `--postgres`
on a scratch PostgreSQL database (created on 127.0.0.1:5432, dropped afterwards); or
targets a running one with `--url` (then `--pid` gives its CPU and memory). The relay is
served by the same uvicorn command line.

Each of `--tables` tables is created listed, its four seats are taken over HTTP with
names, and its four players and `--spectators` spectators connect over the WebSocket
(docs/protocol.md). Then the tables play at `--rate` actions/s in all, open loop: table i
acts at start + i/rate + k*tables/rate (its k-th action), whatever the others do; a table
whose last action is still in flight acts as soon as it completes (the lag behind the
schedule is reported), and nothing is sent after the end of the run. The acting seat
picks a legal action from its own view. An action's latency runs from sending it until
every socket of the table has received the state with the new version. A finished game
is rematched, so the load stays steady.

The client does no more with a state than the measurement needs, the same for both
servers: it reads the version from the message's first bytes (`"type"`, then
`"version"`, as both servers write it; any other message is decoded whole), and decodes a
player's state only when it looks at it (whose turn, the acting seat's legal actions, the
game's status): one or two of the table's five states an action. Decoding all five, and
freeing the decoded state each replaces, took nearly half the client's CPU, and far more on
the table server's states than on the relay's, then a padded string. The relay's states
are now one of the table server's, recorded (bench/relay.py): a decode costs the client
the same on both (`--relay-state padding` for the padded string, to compare with figures
measured so).

Figures: achieved actions/s, latency p50/p99/p99.9, errors by code, the server's own
act -> broadcast time (its /metrics histogram), server CPU per action (psutil: the
server's CPU seconds over the run / actions), memory per table (server RSS growth while
the tables connect, after the first, / tables), the state message size, and the load
client's own CPU (a process uses one core at most: over 90 % it says so, the figures are
then the client's). `--clients N` splits the tables over N client processes (table k in
process k mod N, each on the same schedule as one process would keep), for rates one
client process cannot offer; the client's CPU is then given for the busiest process and
for all together. `--rounds N` measures both servers N times, each time afresh, the
one measured first alternating from the second round on (so that a machine growing
busier or quieter weighs on both alike), and prints each round, the median of the
rounds' CPU ratios, how many rounds meet the target (2x or less), and from 6 rounds on a
95 % interval of the median (from the rounds' order statistics, assuming nothing about
how they spread).
`--search` finds, for each side, the highest offered rate with p99 under 50 ms,
no errors and at least 95 % of it achieved (doubling, then bisection, each step
`--step-seconds`, a failed step tried once more). `--stalls FILE` serves bench/stalls.py's
watchdog around our app and writes what the event loop ran while it stalled (and the
collector's pauses) during the play. `--uncommitted FILE` is a what-if, never a server to
run: our app with each lone move appended to FILE instead of committed to SQLite before
its broadcast (bench/uncommitted.py), which tells the commit's part of our CPU a move
at a low rate. `--profile` runs our server under
`py-spy record` and prints the profile's path. `--bot-tables N` adds, on our server only,
N tables of four bots (`--bot-level`, advanced by default) playing at bot delay 0 beside
the measured tables (`--bot-preset` for another variant than theirs), each replaced by a
new one when its game ends: the measured tables' figures then show what thinking bots
cost the people at other tables, and the bots' own decision times are read from the
server's `spades_bot_decision_seconds` (the decision pool's answer time, waiting
included). `--json` prints
the figures as JSON on stdout (the rest goes to stderr). The message limit per socket
stays as in production (20/s; a seat at a person's pace sends far fewer) unless
`--message-limit` lifts it: at 50 tables a search's higher steps ask more than 20 a second
of each seat, and the relay has no limit. Sockets per address and HTTP writes are
lifted, since every client here is 127.0.0.1.

    .venv/bin/python bench/load.py --tables 50 --spectators 1 --rate 100 --seconds 20
    .venv/bin/python bench/load.py --tables 50 --spectators 1 --rate 100 --rounds 5
    .venv/bin/python bench/load.py --postgres --tables 50 --rate 100 --seconds 20
    .venv/bin/python bench/load.py --tables 50 --search
    .venv/bin/python bench/load.py --tables 50 --search --clients 2  # two client processes
    .venv/bin/python bench/load.py --tables 50 --search --clients 2 --rounds 3 \
        --message-limit 1000/second    # the hot path's rate, three times, median
    .venv/bin/python bench/load.py --tables 50 --bot-tables 50 --rate 25 --no-relay
    .venv/bin/python bench/load.py --tables 2 --rate 10 --seconds 2      # a smoke run
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import math
import multiprocessing
import os
import random
import re
import secrets
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx
import orjson
import psutil
import websockets

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.soak import admin  # noqa: E402
from server.settings import Settings  # noqa: E402
from tests.live_server import free_port  # noqa: E402

SPADES_APP = ["server.app:app"]
RELAY_APP = ["--app-dir", str(ROOT / "bench"), "relay:app"]
# As `spades serve` (server/cli.py): the sans-I/O protocol and an 8 KiB frame limit.
UVICORN_OPTIONS = ["--ws", "websockets-sansio", "--ws-max-size", "8192"]
LATENCY_BUDGET_MS = 50.0
ACHIEVED_SHARE = 0.95  # of the offered rate, for a search step to pass
ACT_TIMEOUT = 10.0  # seconds an action may wait for every socket's new state
SETUP_CONCURRENCY = 16  # tables being created and connected at once
PROGRESS_EVERY = 100  # tables, while setting up
SEARCH_BISECTIONS = 4
SEARCH_TRIES = 2  # runs of a rate before it fails
SEARCH_MAX_RATE = 20000.0
# Issue #11's targets against the relay: CPU per action at most 2x, the highest rate at
# least 40 % (`--rounds` counts the rounds that meet them).
CPU_RATIO_TARGET = 2.0
RATE_RATIO_TARGET = 0.4
# py-spy's output by the profile file's suffix (a flame graph otherwise).
PROFILE_FORMATS = {".json": "speedscope", ".txt": "raw"}
INSIDE_TOTALS = re.compile(r"^spades_action_latency_seconds_(sum|count) ([0-9.e+-]+)$", re.M)
INSIDE_BUCKETS = re.compile(
    r'^spades_action_latency_seconds_bucket\{le="([0-9.e+-]+)"\} ([0-9.e+-]+)$', re.M
)
DECISION_LINES = re.compile(
    r"^spades_bot_decision_seconds(_bucket|_count|_sum)\{([^}]*)\} ([0-9.e+-]+)$", re.M
)
LABEL = re.compile(r'(\w+)="([^"]*)"')
# A state message's first bytes, as both servers write them: its version, read without
# decoding the rest (a message that does not start so is decoded whole).
STATE_HEAD = re.compile(r'\{"type":"state","version":(\d+),')
CLIENT_SATURATED = 90.0  # % of one core: above it the client, not the server, sets the pace


@dataclass
class Socket:
    table: Table
    seat: int | None  # None: a spectator
    token: str | None
    ws: Any = None
    version: int | None = None
    raw: str | None = None  # the latest state as received (players only)
    decoded: dict[str, Any] | None = None  # `raw` decoded, once something looked at it
    reader: asyncio.Task[None] | None = None  # held, so that the task is not collected

    @property
    def message(self) -> dict[str, Any] | None:
        """The latest state (players only), decoded on first look."""
        if self.decoded is None and self.raw is not None:
            self.decoded = orjson.loads(self.raw)
        return self.decoded

    def received(self, raw: str) -> None:
        self.raw, self.decoded = raw, None


@dataclass
class Table:
    id: str
    tokens: list[str]
    rng: random.Random
    sockets: list[Socket] = field(default_factory=list)
    awaited: int | None = None  # waiting until every socket has a version above this
    done: asyncio.Event = field(default_factory=asyncio.Event)
    completed_at: float = 0.0
    refused: str | None = None  # the error code the acting socket received
    dead: str | None = None  # why this table stopped (a socket closed, a timeout)

    @property
    def players(self) -> list[Socket]:
        return [socket for socket in self.sockets if socket.seat is not None]

    def versions(self) -> list[int]:
        return [-1 if s.version is None else s.version for s in self.sockets]

    def seen(self) -> None:
        """A socket received a state: the awaited version may now be everywhere."""
        if self.awaited is not None and min(self.versions()) > self.awaited:
            self.completed_at = time.perf_counter()
            self.awaited = None
            self.done.set()

    def latest(self) -> dict[str, Any] | None:
        """The state of the player who received the highest version (an action's turn and
        the game's status are in every seat's state of a version alike)."""
        players = [socket for socket in self.players if socket.raw is not None]
        if not players:
            return None
        return max(players, key=lambda socket: socket.version or 0).message

    def over(self) -> bool:
        message = self.latest()
        return message is not None and message["table"]["status"] == "over"

    def choose(self) -> tuple[Socket, dict[str, Any]] | None:
        """A seat whose own view lets it act now, and its action."""
        message = self.latest()
        turn = message["state"]["turn"] if message and message["state"] else []
        for socket in self.players:
            if socket.seat not in turn:
                continue
            view = socket.message["state"] if socket.message else None
            if view and socket.seat in view["turn"] and view["legal"]:
                return socket, pick(view, self.rng)
        return None


def pick(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A legal action. Bids stay near a real player's (so games reach the target), one in
    five allowed blind nils is declared (so cards get passed), cards are random."""
    legal = view["legal"]
    kind = legal[0]["type"]
    if kind == "pass" and "count" in legal[0]:  # the compact form: choose the cards
        return {"type": "pass", "cards": rng.sample(view["hand"], legal[0]["count"])}
    if kind == "bid":
        likely = [a for a in legal if isinstance(a["bid"], int) and 2 <= a["bid"] <= 4]
        return rng.choice(likely or legal)
    if kind == "blind_nil":
        return {"type": "blind_nil", "declare": rng.random() < 0.2}
    return rng.choice(legal)


def percentile_ms(ordered: list[float], share: float) -> float | None:
    """The `share` percentile of sorted seconds, in milliseconds (None without samples)."""
    if not ordered:
        return None
    return 1000 * ordered[min(len(ordered) - 1, int(share * len(ordered)))]


@dataclass
class Figures:
    """One run at one offered rate."""

    offered: float
    seconds: float
    tables: int
    achieved: float = 0.0
    actions: int = 0
    p50_ms: float | None = None
    p99_ms: float | None = None
    p999_ms: float | None = None
    max_ms: float | None = None
    lag_p99_ms: float | None = None  # how late actions left, behind the schedule
    errors: dict[str, int] = field(default_factory=dict)
    games: int = 0
    server_cpu_ms_per_action: float | None = None
    # The part of it spent in the kernel (system time): sockets, the database's files.
    server_kernel_ms_per_action: float | None = None
    server_cpu_percent: float | None = None
    client_cpu_percent: float = 0.0  # the busiest client process's
    client_cpu_total_percent: float = 0.0  # every client process's together
    clients: int = 1  # load client processes
    state_bytes: float = 0.0  # mean size of a state message received
    # The server's own act -> broadcast time (its /metrics histogram; the relay has none).
    inside_mean_ms: float | None = None
    inside_p99_ms: float | None = None  # the upper bound of the bucket holding the p99

    def passed(self) -> bool:
        return (
            not self.errors
            and self.p99_ms is not None
            and self.p99_ms < LATENCY_BUDGET_MS
            and self.achieved >= ACHIEVED_SHARE * self.offered
        )


@dataclass
class Run:
    """What the tables record while playing one rate."""

    rate: float
    start: float
    end: float
    interval: float
    latencies: list[float] = field(default_factory=list)
    lags: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    in_time: int = 0  # actions completed before the end
    games: int = 0


@dataclass
class Side:
    """One server under test (ours or the relay) and the client's tables at it."""

    name: str
    url: str
    pid: int | None
    args: argparse.Namespace
    tables: list[Table] = field(default_factory=list)
    state_bytes: int = 0
    states: int = 0
    rss_mb: dict[str, float] = field(default_factory=dict)
    setup_seconds: float = 0.0
    clients: Clients | None = None  # with --clients N > 1: the processes holding the tables

    @property
    def ws_url(self) -> str:
        return "ws" + self.url[4:]

    def server(self) -> psutil.Process | None:
        return psutil.Process(self.pid) if self.pid else None

    def rss(self) -> float | None:
        server = self.server()
        return server.memory_info().rss / 2**20 if server else None


async def read(side: Side, socket: Socket) -> None:
    """Every message of one socket, until it closes."""
    table = socket.table
    try:
        async for raw in socket.ws:
            state = STATE_HEAD.match(raw)
            if state is None:
                message = orjson.loads(raw)
                if message["type"] == "error":
                    table.refused = message["code"]
                    table.done.set()
                if message["type"] != "state":
                    continue
                version = message["version"]
            else:
                version = int(state[1])
            side.state_bytes += len(raw)
            side.states += 1
            socket.version = version
            if socket.seat is not None:
                socket.received(raw)
            table.seen()
    except websockets.ConnectionClosed:
        pass
    finally:
        table.dead = table.dead or f"closed {socket.ws.close_code or 1006}"
        table.done.set()


async def post(http: httpx.AsyncClient, path: str, **options: Any) -> httpx.Response:
    """POST, once more if the connection broke: uvicorn closes a keep-alive connection
    idle for 5 s, and a request sent on it just then is lost unread (httpx.ReadError)."""
    try:
        return await http.post(path, **options)
    except httpx.TransportError:
        return await http.post(path, **options)


async def open_table(side: Side, http: httpx.AsyncClient, number: int) -> Table:
    """Create a listed table, take its four seats by name, connect every socket."""
    rules = {"preset": side.args.preset, "target_score": side.args.target}
    answer = await post(
        http, "/api/tables", json={"name": f"Load {number}", "rules": rules, "listed": True}
    )
    answer.raise_for_status()
    table_id = answer.json()["id"]
    tokens = []
    for seat in range(4):
        taken = await post(http, f"/api/tables/{table_id}/seats/{seat}", json={"name": f"P{seat}"})
        taken.raise_for_status()
        tokens.append(taken.json()["token"])
    table = Table(table_id, tokens, random.Random(side.args.seed * 100003 + number))
    table.sockets = [Socket(table, seat, token) for seat, token in enumerate(tokens)]
    table.sockets += [Socket(table, None, None) for _ in range(side.args.spectators)]
    for socket in table.sockets:
        socket.ws = await websockets.connect(
            f"{side.ws_url}/ws/tables/{table_id}", max_size=2**22, open_timeout=60
        )
        hello = {"type": "hello", "token": socket.token, "version": None}
        await socket.ws.send(orjson.dumps(hello).decode())
        socket.reader = asyncio.create_task(read(side, socket))
    await settled(table)
    return table


async def settled(table: Table, timeout: float = 30) -> None:
    """Until every socket holds the same version for a moment (presence changes done)."""
    async with asyncio.timeout(timeout):
        steady = 0
        while steady < 5:
            versions = table.versions()
            steady = steady + 1 if min(versions) == max(versions) >= 0 else 0
            await asyncio.sleep(0.02)


async def set_up(side: Side, http: httpx.AsyncClient, say: Any) -> None:
    """All tables, the first alone: the RSS growth after it is what a table costs. With
    `--clients N` the tables are opened, and later played, by N client processes (table
    k by process k mod N)."""
    started = time.perf_counter()
    side.rss_mb["start"] = side.rss() or 0.0
    if side.args.clients > 1:
        side.clients = Clients(side, side.args.clients)
        await side.clients.open([0])
        side.rss_mb["first_table"] = side.rss() or 0.0
        await side.clients.open(range(1, side.args.tables))
    else:
        side.tables += await open_tables(side, http, [0], say, started)
        side.rss_mb["first_table"] = side.rss() or 0.0
        side.tables += await open_tables(side, http, range(1, side.args.tables), say, started)
    side.rss_mb["connected"] = side.rss() or 0.0
    side.setup_seconds = time.perf_counter() - started


async def open_tables(
    side: Side, http: httpx.AsyncClient, numbers: Sequence[int], say: Any, started: float
) -> list[Table]:
    gate = asyncio.Semaphore(SETUP_CONCURRENCY)

    async def one(number: int) -> Table:
        async with gate:
            table = await open_table(side, http, number)
        if (number + 1) % PROGRESS_EVERY == 0:  # a big set-up takes minutes: show it moves
            say(f"  {side.name}: table {number + 1} open at {time.perf_counter() - started:.0f} s")
        return table

    return list(await asyncio.gather(*(one(n) for n in numbers)))


async def rematch(side: Side, http: httpx.AsyncClient, table: Table) -> None:
    table.awaited, table.refused = max(table.versions()), None
    table.done.clear()
    answer = await post(
        http,
        f"/api/tables/{table.id}/rematch",
        headers={"Authorization": f"Bearer {table.tokens[0]}"},
    )
    if answer.status_code != 201:
        table.dead = f"rematch {answer.status_code}"
        return
    await wait_done(table)


async def wait_done(table: Table) -> bool:
    try:
        await asyncio.wait_for(table.done.wait(), ACT_TIMEOUT)
    except TimeoutError:
        table.dead = "timeout"
        return False
    return table.dead is None


async def act(run: Run, table: Table, socket: Socket, action: dict[str, Any]) -> None:
    """Send one action; record its latency once every socket has the new version."""
    assert socket.version is not None
    table.awaited, table.refused = socket.version, None
    table.done.clear()
    sent = time.perf_counter()
    message = {"type": "act", "action": action, "id": str(socket.version)}
    await socket.ws.send(orjson.dumps(message).decode())
    if not await wait_done(table):
        run.errors[table.dead or "timeout"] += 1
        return
    if table.refused:
        run.errors[table.refused] += 1
        return
    run.latencies.append(table.completed_at - sent)
    if table.completed_at <= run.end:
        run.in_time += 1


async def drive(side: Side, http: httpx.AsyncClient, run: Run, table: Table, slot: int) -> None:
    """One table's share of the offered rate, on its own schedule (open loop): its first
    action at `slot` / rate, then one every `run.interval`. Nothing is sent after the end:
    a table behind its schedule leaves the rest of its share unsent."""
    due = run.start + slot / run.rate
    while due < run.end and table.dead is None and time.perf_counter() < run.end:
        delay = due - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        if table.over():
            run.games += 1
            await rematch(side, http, table)
            continue
        chosen = table.choose()
        if chosen is None:  # nobody may act: wait for the next state
            run.errors["nobody_to_act"] += 1
            table.awaited = max(table.versions())
            table.done.clear()
            await wait_done(table)
            continue
        run.lags.append(max(0.0, time.perf_counter() - due))
        await act(run, table, *chosen)
        due += run.interval


async def inside_timings(http: httpx.AsyncClient) -> dict[str, float] | None:
    """The server's own act -> broadcast histogram from /metrics (None: the relay has none):
    its sum, count and cumulative bucket counts by upper bound."""
    answer = await http.get("/metrics")
    if answer.status_code != 200:
        return None
    timings = {kind: float(value) for kind, value in INSIDE_TOTALS.findall(answer.text)}
    timings |= {bound: float(value) for bound, value in INSIDE_BUCKETS.findall(answer.text)}
    return timings


def inside_figures(
    before: dict[str, float], after: dict[str, float]
) -> tuple[float | None, float | None]:
    """Mean and p99 (the bucket bound that holds it) of the actions timed in between."""
    count = after.get("count", 0.0) - before.get("count", 0.0)
    if count <= 0:
        return None, None
    mean = 1000 * (after["sum"] - before["sum"]) / count
    for bound in sorted((b for b in after if b not in ("sum", "count")), key=float):
        if after[bound] - before.get(bound, 0.0) >= 0.99 * count:
            return mean, 1000 * float(bound)
    return mean, None


def cpu_seconds(process: psutil.Process | None) -> float | None:
    if process is None:
        return None
    times = process.cpu_times()
    return float(times.user + times.system)


def kernel_seconds(process: psutil.Process | None) -> float | None:
    return None if process is None else float(process.cpu_times().system)


async def play_share(
    side: Side, http: httpx.AsyncClient, schedule: Schedule, index: int = 0, processes: int = 1
) -> dict[str, Any]:
    """This process's live tables play their share of the offered rate: the j-th of
    process `index` first at (j * processes + index) / rate, every table at the interval
    all live tables of every process give. What they recorded, for `play` to merge."""
    live = [table for table in side.tables if table.dead is None]
    rate, start, seconds, live_total = schedule
    run = Run(rate, start, start + seconds, max(live_total, 1) / rate)
    side.state_bytes, side.states = 0, 0
    client = psutil.Process()
    client_before = cpu_seconds(client)
    slot = (j * processes + index for j in range(len(live)))
    await asyncio.gather(*(drive(side, http, run, table, next(slot)) for table in live))
    spent = cpu_seconds(client) - client_before  # type: ignore[operator]
    return {
        "latencies": run.latencies,
        "lags": run.lags,
        "errors": dict(run.errors),
        "in_time": run.in_time,
        "games": run.games,
        "state_bytes": side.state_bytes,
        "states": side.states,
        "client_cpu_seconds": spent,
        "live": sum(table.dead is None for table in side.tables),
    }


# What a run asks of each client process: offered rate, start (time.perf_counter(), which
# is the system's monotonic clock, the same in every process), seconds, live tables in all.
Schedule = tuple[float, float, float, int]


async def play(side: Side, http: httpx.AsyncClient, rate: float, seconds: float) -> Figures:
    """Every live table plays its share of `rate` for `seconds`."""
    start = time.perf_counter() + 0.2  # every driver is waiting before the first is due
    server = side.server()
    # The metrics are read outside the CPU window on both ends: the scrape is not play.
    inside_before = await inside_timings(http)
    server_before = cpu_seconds(server)
    kernel_before = kernel_seconds(server)
    if side.clients is not None:
        shares = await side.clients.play(rate, start, seconds)
    else:
        live = sum(table.dead is None for table in side.tables)
        shares = [await play_share(side, http, (rate, start, seconds, live))]
    wall = time.perf_counter() - start
    server_after = cpu_seconds(server)
    kernel_after = kernel_seconds(server)
    inside_after = await inside_timings(http)
    latencies = sorted(x for share in shares for x in share["latencies"])
    errors: Counter[str] = Counter()
    for share in shares:
        errors.update(share["errors"])
    states = sum(share["states"] for share in shares)
    client_cpu = [100 * share["client_cpu_seconds"] / wall for share in shares]
    figures = Figures(
        offered=rate,
        seconds=seconds,
        tables=sum(share["live"] for share in shares),
        achieved=sum(share["in_time"] for share in shares) / seconds,
        actions=len(latencies),
        p50_ms=percentile_ms(latencies, 0.5),
        p99_ms=percentile_ms(latencies, 0.99),
        p999_ms=percentile_ms(latencies, 0.999),
        max_ms=percentile_ms(latencies, 1.0),
        lag_p99_ms=percentile_ms(sorted(x for share in shares for x in share["lags"]), 0.99),
        errors=dict(errors),
        games=sum(share["games"] for share in shares),
        client_cpu_percent=max(client_cpu),
        client_cpu_total_percent=sum(client_cpu),
        clients=len(shares),
        state_bytes=sum(share["state_bytes"] for share in shares) / states if states else 0.0,
    )
    if inside_before is not None and inside_after is not None:
        figures.inside_mean_ms, figures.inside_p99_ms = inside_figures(inside_before, inside_after)
    if server_before is not None and server_after is not None:
        spent = server_after - server_before
        figures.server_cpu_percent = 100 * spent / wall
        if latencies:
            figures.server_cpu_ms_per_action = 1000 * spent / len(latencies)
            if kernel_before is not None and kernel_after is not None:
                kernel = kernel_after - kernel_before
                figures.server_kernel_ms_per_action = 1000 * kernel / len(latencies)
    return figures


class Clients:
    """`--clients N`: N load client processes, each holding and playing its own tables
    (table k in process k mod N), so that one process's core does not bound what the
    client can offer. Each answers the commands of `client_process` over a pipe."""

    def __init__(self, side: Side, processes: int) -> None:
        context = multiprocessing.get_context("spawn")
        self.pipes = []
        self.processes = []
        for index in range(processes):
            mine, theirs = context.Pipe()
            process = context.Process(
                target=client_process,
                args=(theirs, side.name, side.url, side.args, index, processes),
                daemon=True,
            )
            process.start()
            self.pipes.append(mine)
            self.processes.append(process)
        self.live = [0] * processes

    async def _ask(self, commands: dict[int, tuple[Any, ...]]) -> dict[int, Any]:
        """Send each process its command, then wait for every answer (an exception raised
        in a process comes back and is raised here)."""
        loop = asyncio.get_running_loop()
        for index, command in commands.items():
            self.pipes[index].send(command)
        answers = await asyncio.gather(
            *(loop.run_in_executor(None, self.pipes[index].recv) for index in commands)
        )
        for answer in answers:
            if isinstance(answer, BaseException):
                raise answer
        return dict(zip(commands, answers, strict=True))

    async def open(self, numbers: Sequence[int]) -> None:
        n = len(self.pipes)
        commands = {index: ("open", [k for k in numbers if k % n == index]) for index in range(n)}
        for index, live in (await self._ask(commands)).items():
            self.live[index] = live

    async def play(self, rate: float, start: float, seconds: float) -> list[dict[str, Any]]:
        schedule = (rate, start, seconds, sum(self.live))
        commands = {index: ("play", schedule) for index in range(len(self.pipes))}
        shares = list((await self._ask(commands)).values())
        self.live = [share["live"] for share in shares]
        return shares

    async def close(self) -> None:
        await self._ask({index: ("close",) for index in range(len(self.pipes))})
        for process in self.processes:
            process.join(10)


def client_process(
    pipe: Any, name: str, url: str, args: argparse.Namespace, index: int, processes: int
) -> None:
    """One load client process of `Clients`: opens the tables it is told to, plays its
    share of each run, closes its sockets; progress lines go to stderr."""
    gc.set_threshold(50_000, 20, 100)
    asyncio.run(client_commands(pipe, Side(name, url, None, args), index, processes))


async def client_commands(pipe: Any, side: Side, index: int, processes: int) -> None:
    loop = asyncio.get_running_loop()
    limits = httpx.Limits(max_connections=64, max_keepalive_connections=64)
    started = time.perf_counter()

    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    async with httpx.AsyncClient(base_url=side.url, limits=limits, timeout=60) as http:
        while True:
            command, *details = await loop.run_in_executor(None, pipe.recv)
            try:
                if command == "open":
                    side.tables += await open_tables(side, http, details[0], say, started)
                    gc.collect()  # as `measure`: set-up's objects out of the collector's way
                    gc.freeze()
                    answer: Any = sum(table.dead is None for table in side.tables)
                elif command == "play":
                    answer = await play_share(side, http, details[0], index, processes)
                else:
                    await close_sockets(side)
                    pipe.send(None)
                    return
            except Exception as error:  # the parent raises it
                answer = error
            pipe.send(answer)


async def close_sockets(side: Side) -> None:
    if side.clients is not None:
        await side.clients.close()
    await asyncio.gather(*(s.ws.close() for t in side.tables for s in t.sockets))


async def search(
    side: Side, http: httpx.AsyncClient, first: float, say: Any
) -> tuple[float | None, list[Figures]]:
    """The highest offered rate that passes: doubling until a step fails, then bisection."""
    steps: list[Figures] = []

    async def step(rate: float) -> bool:
        """A rate passes if one of SEARCH_TRIES runs passes: on a shared machine one
        scheduling stall of another process's making is enough to push a p99 over."""
        for _ in range(SEARCH_TRIES):
            figures = await play(side, http, rate, side.args.step_seconds)
            steps.append(figures)
            verdict = "pass" if figures.passed() else "fail"
            say(f"  {side.name} search: {row(figures)} -> {verdict}")
            await asyncio.sleep(0.5)  # let the last broadcasts settle between steps
            if figures.passed():
                return True
        return False

    passed: float | None = None
    failed: float | None = None
    rate = first
    while rate <= SEARCH_MAX_RATE:
        if await step(rate):
            passed = rate
            if failed is not None:
                break
            rate *= 2
        else:
            failed = rate
            if passed is not None or rate < 2:
                break
            rate /= 2
    if passed is None or failed is None:
        return passed, steps
    for _ in range(SEARCH_BISECTIONS):
        middle = round((passed + failed) / 2)
        if middle in (passed, failed):
            break
        if await step(middle):
            passed = middle
        else:
            failed = middle
    return passed, steps


def row(figures: Figures) -> str:
    errors = ", ".join(f"{code} {n}" for code, n in sorted(figures.errors.items())) or "0"
    return (
        f"offered {figures.offered:g}/s, achieved {figures.achieved:.1f}/s, "
        f"p50 {number(figures.p50_ms)} p99 {number(figures.p99_ms)} "
        f"p99.9 {number(figures.p999_ms)} ms, "
        f"errors {errors}, CPU % of a core: server {number(figures.server_cpu_percent, 0)}, "
        f"client {figures.client_cpu_percent:.0f}"
    )


class Uvicorn:
    """One uvicorn process on 127.0.0.1 (optionally under py-spy)."""

    def __init__(
        self,
        app: list[str],
        env: dict[str, str],
        profile: Path | None = None,
        deflate: bool = True,
    ):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        command = [sys.executable, "-m", "uvicorn", *app, *UVICORN_OPTIONS]
        if not deflate:
            command += ["--ws-per-message-deflate", "false"]
        command += ["--host", "127.0.0.1", "--port", str(self.port), "--log-level", "warning"]
        if profile is not None:
            kind = PROFILE_FORMATS.get(profile.suffix, "flamegraph")
            record = [py_spy(), "record", "--nonblocking", "--format", kind, "-o", str(profile)]
            command = [*record, "--", *command]
        self.profile = profile
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 (lives as long as the server)
        environment = {**os.environ, **env}
        environment.pop("REDIS_URL", None)  # one process: no pub/sub between servers
        self.process = subprocess.Popen(
            command, cwd=ROOT, env=environment, stdout=self.log, stderr=self.log
        )
        self.pid = self.process.pid

    def wait_ready(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"server exited with {self.process.returncode}:\n{self.output()}"
                )
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200:
                    break
            time.sleep(0.1)
        else:
            raise TimeoutError(f"no answer on {self.url} within {timeout} s:\n{self.output()}")
        if self.profile is not None:  # py-spy's child is the server
            self.pid = psutil.Process(self.process.pid).children()[0].pid

    def stop(self) -> None:
        """SIGTERM to the server itself: py-spy then writes its profile and exits too."""
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGTERM)
        try:
            self.process.wait(60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def output(self) -> str:
        self.log.seek(0)
        return self.log.read().decode(errors="replace")


def py_spy() -> str:
    found = shutil.which("py-spy", path=str(Path(sys.executable).parent)) or shutil.which("py-spy")
    if found is None:
        raise SystemExit("--profile needs py-spy: .venv/bin/pip install -e '.[bench]'")
    return found


@contextlib.contextmanager
def served(
    app: list[str], env: dict[str, str], profile: Path | None = None, deflate: bool = True
) -> Iterator[Uvicorn]:
    server = Uvicorn(app, env, profile, deflate)
    try:
        server.wait_ready()
        yield server
    except Exception:
        print(f"server log (last lines):\n{server.output()[-3000:]}", file=sys.stderr)
        raise
    finally:
        server.stop()


def spades_env(args: argparse.Namespace, database_url: str) -> dict[str, str]:
    sockets = (4 + args.spectators) * args.tables
    return {
        "DATABASE_URL": database_url,
        # Every socket and every set-up request comes from 127.0.0.1: lift those limits.
        # The per-socket message limit stays as in production (20/s: a seat at a person's
        # pace sends far fewer) unless --message-limit says otherwise.
        "SPADES_WS_RATE_LIMIT": args.message_limit,
        "SPADES_WS_PER_ADDRESS": str(sockets + 16),
        "SPADES_HTTP_RATE_LIMIT": "1000/second",
        "SPADES_SPECTATORS_PER_TABLE": str(max(200, args.spectators)),
        "SPADES_LOG_LEVEL": "WARNING",
        # Bot-only tables beside the measured ones (--bot-tables) play as fast as they think.
        "SPADES_BOT_DELAY": "0",
    }


@contextlib.asynccontextmanager
async def database(args: argparse.Namespace) -> AsyncIterator[str]:
    """The database URL of this run: given, a scratch PostgreSQL database, or SQLite."""
    if args.database_url:
        yield args.database_url
    elif args.postgres:
        name = f"spades_load_{secrets.token_hex(4)}"
        await admin(f'CREATE DATABASE "{name}"')
        try:
            yield f"postgresql+asyncpg://postgres@127.0.0.1:5432/{name}"
        finally:
            await admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    else:
        with tempfile.TemporaryDirectory() as directory:
            yield f"sqlite+aiosqlite:///{directory}/load.db"


async def bot_table(http: httpx.AsyncClient, args: argparse.Namespace) -> tuple[str, int]:
    """A listed table with a bot in every seat (it starts at once and plays by itself),
    and its version once seated."""
    rules = {"preset": args.bot_preset or args.preset, "target_score": args.target}
    answer = await post(http, "/api/tables", json={"name": "Bots", "rules": rules, "listed": True})
    answer.raise_for_status()
    table_id: str = answer.json()["id"]
    for seat in range(len(answer.json()["seats"])):
        seated = await post(
            http, f"/api/tables/{table_id}/seats/{seat}/bot", json={"level": args.bot_level}
        )
        seated.raise_for_status()
    return table_id, (await http.get(f"/api/tables/{table_id}")).json()["version"]


async def bots_beside(
    http: httpx.AsyncClient, args: argparse.Namespace, stop: asyncio.Event
) -> dict[str, int]:
    """`--bot-tables` bot-only tables until `stop`, each finished game's table replaced by
    a new one; their games finished and their versions advanced (about one per move)."""
    tables = dict([await bot_table(http, args) for _ in range(args.bot_tables)])
    games = moves = 0
    while True:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 1.0)
        for table_id, seen in list(tables.items()):
            info = (await http.get(f"/api/tables/{table_id}")).json()
            moves += info["version"] - seen
            tables[table_id] = info["version"]
            if info["status"] == "over" and not stop.is_set():
                games += 1
                del tables[table_id]
                new_id, version = await bot_table(http, args)
                tables[new_id] = version
        if stop.is_set():
            return {
                "bot_tables": args.bot_tables,
                "bot_games": games,
                "bot_versions": moves,
                "decisions": decision_figures((await http.get("/metrics")).text),
            }


def decision_figures(metrics: str) -> dict[str, str]:
    """The server's bot decisions by level and phase (`spades_bot_decision_seconds`, the
    decision pool's answer time): how many, their mean, and the bucket bound that holds
    their 99th percentile."""
    counts: dict[str, float] = {}
    sums: dict[str, float] = {}
    buckets: dict[str, list[tuple[float, float]]] = {}
    for name, labels, value in DECISION_LINES.findall(metrics):
        found = dict(LABEL.findall(labels))
        key = f"{found.get('level')}/{found.get('phase')}"
        if name == "_count":
            counts[key] = float(value)
        elif name == "_sum":
            sums[key] = float(value)
        else:
            buckets.setdefault(key, []).append((float(found["le"]), float(value)))
    figures = {}
    for key, count in sorted(counts.items()):
        if count <= 0:
            continue
        bound = next(
            (le for le, seen in sorted(buckets.get(key, [])) if seen >= 0.99 * count), None
        )
        p99 = "over 2.5 s" if bound is None or bound == float("inf") else f"<= {bound * 1000:g} ms"
        figures[key] = f"{int(count)}, mean {1000 * sums[key] / count:.0f} ms, p99 {p99}"
    return figures


async def measure(side: Side, say: Any) -> dict[str, Any]:
    """Set up the tables, then play the rate (or search), and close every socket."""
    args = side.args
    limits = httpx.Limits(max_connections=64, max_keepalive_connections=64)
    async with httpx.AsyncClient(base_url=side.url, limits=limits, timeout=60) as http:
        await set_up(side, http, say)
        # The client is the instrument: what set-up made (5,000 sockets at 1,000 tables)
        # leaves its collector, so its own pauses stay out of the figures.
        gc.collect()
        gc.freeze()
        sockets = (4 + args.spectators) * args.tables
        took = side.setup_seconds
        say(f"{side.name}: {args.tables} tables, {sockets} sockets in {took:.1f} s")
        result: dict[str, Any] = {"setup_seconds": side.setup_seconds}
        stop = asyncio.Event()
        beside = (
            asyncio.create_task(bots_beside(http, args, stop))
            if args.bot_tables and side.name == "spades"
            else None
        )
        watched = side.pid if args.stalls and side.name == "spades" and not args.url else None
        if watched is not None:
            os.kill(watched, signal.SIGUSR1)  # bench/stalls.py: count from here
        if args.search:
            best, steps = await search(side, http, args.rate, say)
            result |= {"search_best_rate": best, "search_steps": [asdict(s) for s in steps]}
        else:
            figures = await play(side, http, args.rate, args.seconds)
            say(f"  {side.name}: {row(figures)}")
            result["run"] = asdict(figures)
        if watched is not None:
            os.kill(watched, signal.SIGUSR2)  # bench/stalls.py: write what it saw
        if beside is not None:
            stop.set()
            result["bots"] = await beside
            say(f"  {side.name}: bots beside: {result['bots']}")
        side.rss_mb["end"] = side.rss() or 0.0
        await close_sockets(side)
    grown = side.rss_mb["connected"] - side.rss_mb["first_table"]
    per_table = 1024 * grown / (args.tables - 1) if args.tables > 1 else None
    result |= {"rss_mb": side.rss_mb, "rss_kib_per_table": per_table if side.pid else None}
    return result


async def run(args: argparse.Namespace, say: Any) -> dict[str, Any]:
    report: dict[str, Any] = {
        "tables": args.tables,
        "spectators": args.spectators,
        "sockets": (4 + args.spectators) * args.tables,
        "rate": args.rate,
        "seconds": args.step_seconds if args.search else args.seconds,
        "search": args.search,
        "cores": os.cpu_count(),
        "load_average_before": os.getloadavg(),
    }
    # Each round measures both servers afresh; from the second on, the one measured first
    # alternates, so that a machine growing busier or quieter during the run weighs on
    # both sides alike.
    rounds: list[dict[str, Any]] = []
    state_bytes = 2000
    for number in range(args.rounds):
        relay_first = number % 2 == 1 and not args.no_relay
        pair: dict[str, Any] = {"first": "relay" if relay_first else "spades"}
        if relay_first:
            pair["relay"] = await measure_relay(args, state_bytes, say)
        pair["spades"] = await measure_ours(args, report, say)
        state_bytes = state_size(pair["spades"])
        pair["relay_state_bytes"] = state_bytes
        if not relay_first and not args.no_relay:
            pair["relay"] = await measure_relay(args, state_bytes, say)
        rounds.append(pair)
        if args.rounds > 1:
            say(f"round {number + 1} of {args.rounds}: {round_line(pair)}")
    report |= {
        key: rounds[0][key] for key in ("spades", "relay", "relay_state_bytes") if key in rounds[0]
    }
    if args.rounds > 1:
        report["rounds"] = rounds
    report["load_average_after"] = os.getloadavg()
    return report


async def measure_ours(
    args: argparse.Namespace, report: dict[str, Any], say: Any
) -> dict[str, Any]:
    """One measurement of our server: the one at --url, or one served for it."""
    if args.url:
        report["backend"] = "given --url"
        return await measure(Side("spades", args.url, args.pid, args), say)
    async with database(args) as url:
        report["backend"] = url.split(":")[0].split("+")[0]
        profile = Path(args.profile).resolve() if args.profile else None
        env = spades_env(args, url)
        app = SPADES_APP
        if args.stalls:
            app = ["bench.stalls:app"]
            env["STALLS_FILE"] = str(Path(args.stalls).resolve())
        elif args.uncommitted:
            app = ["bench.uncommitted:app"]
            env["UNCOMMITTED_FILE"] = str(Path(args.uncommitted).resolve())
        with served(app, env, profile, args.deflate == "on") as server:
            say(f"spades server pid {server.pid} on {report['backend']}")
            result = await measure(Side("spades", server.url, server.pid, args), say)
        if profile is not None:
            report["profile"] = str(profile)
            say(f"profile written: {profile}")
        if args.stalls:
            report["stalls"] = str(Path(args.stalls).resolve())
            say(f"event-loop stalls written: {report['stalls']}")
    return result


async def measure_relay(args: argparse.Namespace, state_bytes: int, say: Any) -> dict[str, Any]:
    """One measurement of the relay, its state messages padded to `state_bytes`."""
    relay_env = {"RELAY_STATE_BYTES": str(state_bytes), "RELAY_STATE": args.relay_state}
    with served(RELAY_APP, relay_env, deflate=args.deflate == "on") as relay:
        say(f"relay pid {relay.pid}, state messages of {state_bytes} bytes")
        return await measure(Side("relay", relay.url, relay.pid, args), say)


def rate_ratio(pair: dict[str, Any]) -> float | None:
    """Our highest passing rate over the relay's, in one search round (None without both)."""
    ours, theirs = (
        pair["spades"].get("search_best_rate"),
        pair.get("relay", {}).get("search_best_rate"),
    )
    return ours / theirs if ours is not None and theirs else None


def cpu_ratio(pair: dict[str, Any]) -> float | None:
    """Our server CPU per action over the relay's, in one round (None without both)."""
    if "relay" not in pair or "run" not in pair["spades"]:
        return None
    ours = pair["spades"]["run"]["server_cpu_ms_per_action"]
    theirs = pair["relay"]["run"]["server_cpu_ms_per_action"]
    return ours / theirs if ours is not None and theirs else None


def round_line(pair: dict[str, Any]) -> str:
    ours, theirs = pair["spades"].get("run"), pair.get("relay", {}).get("run")
    if ours is None:
        best = pair["spades"].get("search_best_rate")
        line = f"{pair['first']} first, highest rate {number(best, 0)}/s"
        if (found := rate_ratio(pair)) is not None:
            line += f" (relay {number(pair['relay']['search_best_rate'], 0)}/s, {found:.2f}x)"
        return line
    line = (
        f"{pair['first']} first, server CPU ms/action {number(ours['server_cpu_ms_per_action'], 2)}"
    )
    if theirs is not None:
        line += (
            f" (relay {number(theirs['server_cpu_ms_per_action'], 2)}, "
            f"{number(cpu_ratio(pair), 2)}x), p99 ms {number(ours['p99_ms'])} "
            f"(relay {number(theirs['p99_ms'])})"
        )
    return line


def state_size(result: dict[str, Any]) -> int:
    runs = result["search_steps"] if "search_steps" in result else [result["run"]]
    sizes = [r["state_bytes"] for r in runs if r["state_bytes"]]
    return round(sum(sizes) / len(sizes)) if sizes else 2000


def ratio(ours: float | None, theirs: float | None) -> str:
    if ours is None or theirs is None or theirs == 0:
        return ""
    return f"{ours / theirs:.2f}x"


def number(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def print_report(report: dict[str, Any]) -> None:
    before, after = report["load_average_before"], report["load_average_after"]
    print(
        f"load on {report['backend']}: {report['tables']} tables x (4 players + "
        f"{report['spectators']} spectators) = {report['sockets']} sockets; "
        f"{report['cores']} cores, load average {before[0]:.2f} before, {after[0]:.2f} after"
    )
    ours, relay = report["spades"], report.get("relay", {})
    if report["search"]:
        print_search(ours, relay)
    else:
        print(f"offered {report['rate']:g} actions/s for {report['seconds']:g} s, open loop")
        print_run(ours, relay)
    if report.get("rounds"):
        print_rounds(report["rounds"])
    if report.get("profile"):
        print(f"profile: {report['profile']}")


# The rows of a run's table: label, figure, digits shown.
RUN_ROWS = [
    ("achieved actions/s", "achieved", 1),
    ("actions completed", "actions", 0),
    ("latency p50 ms", "p50_ms", 1),
    ("latency p99 ms", "p99_ms", 1),
    ("latency p99.9 ms", "p999_ms", 1),
    ("latency max ms", "max_ms", 1),
    ("schedule lag p99 ms", "lag_p99_ms", 1),
    ("in server: mean ms", "inside_mean_ms", 1),
    ("in server: p99 <= ms", "inside_p99_ms", 1),
    ("server CPU ms/action", "server_cpu_ms_per_action", 2),
    ("  of it in the kernel", "server_kernel_ms_per_action", 2),
    ("server CPU % of a core", "server_cpu_percent", 0),
    ("memory KiB/table", "rss_kib_per_table", 1),
    ("client CPU %, busiest", "client_cpu_percent", 0),
    ("client CPU %, all", "client_cpu_total_percent", 0),
    ("state message bytes", "state_bytes", 0),
    ("games finished", "games", 0),
]


def print_run(ours: dict[str, Any], relay: dict[str, Any]) -> None:
    a = {**ours["run"], "rss_kib_per_table": ours["rss_kib_per_table"]}
    b = {**relay["run"], "rss_kib_per_table": relay["rss_kib_per_table"]} if relay else {}
    print(f"{'':24}{'spades':>12}{'relay':>12}{'ratio':>10}")
    for label, key, digits in RUN_ROWS:
        mine, theirs = a[key], b.get(key)
        shown = f"{number(mine, digits):>12}{number(theirs, digits):>12}"
        print(f"{label:24}{shown}{ratio(mine, theirs):>10}")
    for name, figures in (("spades", a), ("relay", b)):
        errors = figures.get("errors")
        if figures:
            shown = ", ".join(f"{c} {n}" for c, n in sorted(errors.items())) if errors else "0"
            print(f"errors {name}: {shown}")
    warn_client([a, b])


def print_rounds(rounds: list[dict[str, Any]]) -> None:
    """Each round in a line (the table above is the first round's), and the median of the
    rounds' CPU ratios (or, searching, of their highest rates' ratios); then how many
    rounds meet the target (`CPU_RATIO_TARGET`, `RATE_RATIO_TARGET`) and, from 6 rounds
    on, a 95 % interval of the median (`median_interval`): single rounds swing widely on
    a small shared machine, and the interval says how far the median itself may be off."""
    for index, pair in enumerate(rounds, 1):
        print(f"round {index}: {round_line(pair)}")
    targets = (
        ("server CPU ratio", cpu_ratio, CPU_RATIO_TARGET, -1),
        ("highest rate's ratio", rate_ratio, RATE_RATIO_TARGET, 1),
    )
    for what, of_round, target, direction in targets:
        ratios = sorted(r for r in map(of_round, rounds) if r is not None)
        if ratios:
            shown = ", ".join(f"{r:.2f}" for r in ratios)
            print(
                f"{what} to the relay, median of {len(ratios)} rounds: "
                f"{statistics.median(ratios):.2f}x ({shown})"
            )
            interval = median_interval(ratios)
            spread = (
                f"; 95 % interval of the median {interval[0]:.2f}-{interval[1]:.2f}x"
                if interval is not None
                else ""
            )
            # direction -1: at the target or under it meets it; 1: at it or over it.
            meeting = sum(1 for r in ratios if (r - target) * direction >= 0)
            side = "or less" if direction < 0 else "or more"
            print(f"  {meeting} of {len(ratios)} rounds at {target:g}x {side}{spread}")


def median_interval(
    values: Sequence[float], confidence: float = 0.95
) -> tuple[float, float] | None:
    """A distribution-free interval holding the median of what `values` were drawn from
    with at least `confidence`: the k-th smallest and k-th largest value, for the largest
    k with P(Binomial(n, 1/2) < k) <= (1 - confidence) / 2. None when even the smallest
    and largest values do not give that confidence (fewer than 6 values at 95 %).

    >>> median_interval([1.9, 1.4, 2.1, 1.8, 1.7, 2.0, 1.6, 1.5, 2.2, 1.3])
    (1.4, 2.1)
    >>> median_interval([1.0, 2.0, 3.0, 4.0, 5.0]) is None
    True
    """
    ordered, n = sorted(values), len(values)
    tail, below, k = (1 - confidence) / 2, 0.0, 0
    # Add P(X = k) to the lower tail for as long as the tail stays within `tail`.
    while k < n and (more := below + math.comb(n, k) / 2**n) <= tail:
        below, k = more, k + 1
    if k == 0:
        return None
    return ordered[k - 1], ordered[n - k]


def print_search(ours: dict[str, Any], relay: dict[str, Any]) -> None:
    best, theirs = ours["search_best_rate"], relay.get("search_best_rate")
    print(
        f"highest offered rate with p99 < {LATENCY_BUDGET_MS:g} ms, no errors and "
        f">= {ACHIEVED_SHARE:.0%} achieved: spades {number(best, 0)} actions/s, "
        f"relay {number(theirs, 0)} actions/s {ratio(best, theirs)}".rstrip()
    )
    steps = ours["search_steps"] + relay.get("search_steps", [])
    for name, result in (("spades", ours), ("relay", relay)):
        for figures in result.get("search_steps", []):
            print(f"  {name:7}{row(Figures(**figures))}")
        if result:
            print(f"  {name:7}memory KiB/table {number(result['rss_kib_per_table'])}")
    warn_client(steps)


def warn_client(runs: list[dict[str, Any]]) -> None:
    busiest = max((r.get("client_cpu_percent", 0.0) for r in runs), default=0.0)
    if busiest > CLIENT_SATURATED:
        print(
            f"note: the load client used {busiest:.0f} % of a core: it saturated, so the "
            "figures at that rate are bounded by the client, not the server"
        )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--spectators", type=int, default=1, help="per table")
    parser.add_argument("--rate", type=float, default=100, help="offered actions/s, all tables")
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--search", action="store_true", help="find the highest passing rate")
    parser.add_argument("--step-seconds", type=float, default=4, help="each --search step")
    parser.add_argument("--preset", default="standard")
    parser.add_argument("--target", type=int, default=200, help="target score of the games")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--clients", type=int, default=1, help="load client processes holding the tables"
    )
    parser.add_argument(
        "--profile",
        metavar="FILE",
        help="run our server under py-spy record: FILE.svg flame graph, .json speedscope, "
        ".txt collapsed stacks",
    )
    parser.add_argument(
        "--bot-tables", type=int, default=0, help="bot-only tables playing beside (ours only)"
    )
    parser.add_argument("--bot-level", default="advanced", help="the --bot-tables' bots")
    parser.add_argument("--bot-preset", help="the --bot-tables' preset (default: --preset)")
    parser.add_argument("--no-relay", action="store_true", help="skip the relay baseline")
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="measure both servers this many times, alternating which goes first",
    )
    parser.add_argument(
        "--message-limit",
        default=Settings.model_fields["ws_rate_limit"].default,
        help="our server's per-socket message limit (default: production's); the relay has "
        "none. A search to 50 tables' highest rate needs more than 20/s a seat: 1000/second",
    )
    parser.add_argument(
        "--deflate",
        choices=("on", "off"),
        default="off",
        help="per-message deflate on both servers (off: as spades serve; uvicorn's own: on)",
    )
    parser.add_argument(
        "--relay-state",
        choices=("recorded", "padding"),
        default="recorded",
        help="the relay's state: one of ours, recorded (default), or the rounds before "
        "13dd2df's padded string, cheaper for the client to decode",
    )
    parser.add_argument(
        "--stalls",
        metavar="FILE",
        help="serve bench.stalls:app: what the event loop ran while it stalled, into FILE",
    )
    parser.add_argument(
        "--uncommitted",
        metavar="FILE",
        help="a what-if: serve bench.uncommitted:app, each lone move appended to FILE "
        "instead of committed to SQLite (not a server to run: see bench/uncommitted.py)",
    )
    parser.add_argument("--json", action="store_true", help="figures as JSON on stdout")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--database-url", help="default: a fresh SQLite file")
    where.add_argument("--postgres", action="store_true", help="a scratch database")
    where.add_argument("--url", help="a running table server, e.g. http://127.0.0.1:8000")
    parser.add_argument("--pid", type=int, help="with --url: the server's pid, for CPU and RSS")
    args = parser.parse_args()
    out = sys.stderr if args.json else sys.stdout

    def say(line: str) -> None:
        print(line, file=out, flush=True)

    # The load client's collector, as the server's (server/realtime/collector.py): a young
    # collection per 50,000 allocations, not per 700.
    gc.set_threshold(50_000, 20, 100)
    report = asyncio.run(run(args, say))
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print_report(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
