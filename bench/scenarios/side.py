"""One server under test (ours or the relay) and the tables the load client holds at it,
in this process or, with `--clients N`, in N client processes (table k in process k
mod N); each process plays its share of an offered rate (`play_share`), open loop.

Our server may be several processes (`--processes N`, on one database and Redis): then
a table's sockets all go to one process (table k to process k mod N, as a proxy hashing
on the table's path keeps them), or with `--affinity off` each socket to a process drawn
at random. HTTP requests go to the first process."""

from __future__ import annotations

import argparse
import asyncio
import gc
import multiprocessing
import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx
import orjson
import psutil

from bench.harness.stats import cpu_seconds, rss_mb
from bench.harness.tables import Received, Socket, Table, open_table

SETUP_CONCURRENCY = 16  # tables being created and connected at once
PROGRESS_EVERY = 100  # tables, while setting up
HTTP_LIMITS = httpx.Limits(max_connections=64, max_keepalive_connections=64)

Say = Callable[[str], None]
# What a run asks of each client process: offered rate, start (time.perf_counter(), which
# is the system's monotonic clock, the same in every process), seconds, live tables in all.
Schedule = tuple[float, float, float, int]


@dataclass
class Side:
    """One server under test and the client's tables at it."""

    name: str
    url: str
    pid: int | None
    args: argparse.Namespace
    tables: list[Table] = field(default_factory=list)
    received: Received = field(default_factory=Received)
    rss_mb: dict[str, float] = field(default_factory=dict)
    setup_seconds: float = 0.0
    clients: Clients | None = None  # with --clients N > 1: the processes holding the tables
    # Every server process's URL and pid (`url` and `pid` are the first's), and the pid of
    # the Redis they share (its CPU is counted beside theirs).
    urls: list[str] = field(default_factory=list)
    pids: list[int] = field(default_factory=list)
    redis_pid: int | None = None

    def __post_init__(self) -> None:
        self.urls = self.urls or [self.url]
        self.pids = self.pids or ([self.pid] if self.pid else [])

    @property
    def ws_url(self) -> str:
        return "ws" + self.url[4:]

    def servers(self) -> list[psutil.Process]:
        return [psutil.Process(pid) for pid in self.pids]

    def redis(self) -> psutil.Process | None:
        return psutil.Process(self.redis_pid) if self.redis_pid else None

    def rss(self) -> float:
        return sum(rss_mb(pid) or 0.0 for pid in self.pids)

    def placement(self, number: int) -> Callable[[int], str]:
        """Where each socket of table `number` connects (by its index at the table): with
        affinity every one to process `number` mod N, without it each to one drawn at
        random (from the table's own seed, so that runs place alike)."""
        sockets = ["ws" + url[4:] for url in self.urls]
        if getattr(self.args, "affinity", "on") == "on":
            return lambda _index: sockets[number % len(sockets)]
        draw = random.Random(self.args.seed * 7919 + number)
        return lambda _index: draw.choice(sockets)


async def set_up(side: Side, http: httpx.AsyncClient, say: Say) -> None:
    """All tables, the first alone: the RSS growth after it is what a table costs. With
    `--clients N` the tables are opened, and later played, by N client processes."""
    started = time.perf_counter()
    side.rss_mb["start"] = side.rss()
    if side.args.clients > 1:
        side.clients = Clients(side, side.args.clients)
        await side.clients.open([0])
        side.rss_mb["first_table"] = side.rss()
        await side.clients.open(range(1, side.args.tables))
    else:
        side.tables += await open_tables(side, http, [0], say, started)
        side.rss_mb["first_table"] = side.rss()
        side.tables += await open_tables(side, http, range(1, side.args.tables), say, started)
    side.rss_mb["connected"] = side.rss()
    side.setup_seconds = time.perf_counter() - started


async def open_tables(
    side: Side, http: httpx.AsyncClient, numbers: Sequence[int], say: Say, started: float
) -> list[Table]:
    gate = asyncio.Semaphore(SETUP_CONCURRENCY)
    args = side.args
    rules = {"preset": args.preset, "target_score": args.target}

    async def one(number: int) -> Table:
        rng = random.Random(args.seed * 100003 + number)
        async with gate:
            table = await open_table(
                http,
                side.placement(number),
                rules,
                f"Load {number}",
                args.spectators,
                rng,
                side.received,
            )
        if (number + 1) % PROGRESS_EVERY == 0:  # a big set-up takes minutes: show it moves
            say(f"  {side.name}: table {number + 1} open at {time.perf_counter() - started:.0f} s")
        return table

    return list(await asyncio.gather(*(one(n) for n in numbers)))


async def close_sockets(side: Side) -> None:
    if side.clients is not None:
        await side.clients.close()
    await asyncio.gather(*(table.close() for table in side.tables))


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


async def act(run: Run, table: Table, socket: Socket, action: dict[str, Any]) -> None:
    """Send one action; record its latency once every socket has the new version."""
    assert socket.version is not None
    table.expect(socket.version)
    sent = time.perf_counter()
    message = {"type": "act", "action": action, "id": str(socket.version)}
    await socket.ws.send(orjson.dumps(message).decode())
    if not await table.wait():
        run.errors[table.dead or "timeout"] += 1
        return
    if table.refused:
        run.errors[table.refused] += 1
        return
    run.latencies.append(table.completed_at - sent)
    if table.completed_at <= run.end:
        run.in_time += 1


async def drive(http: httpx.AsyncClient, run: Run, table: Table, slot: int) -> None:
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
            await table.rematch(http)
            continue
        chosen = table.choose()
        if chosen is None:  # nobody may act: wait for the next state
            run.errors["nobody_to_act"] += 1
            table.expect(max(table.versions()))
            await table.wait()
            continue
        run.lags.append(max(0.0, time.perf_counter() - due))
        await act(run, table, *chosen)
        due += run.interval


async def play_share(
    side: Side, http: httpx.AsyncClient, schedule: Schedule, index: int = 0, processes: int = 1
) -> dict[str, Any]:
    """This process's live tables play their share of the offered rate: the j-th of
    process `index` first at (j * processes + index) / rate, every table at the interval
    all live tables of every process give. What they recorded, for `steady.play` to merge."""
    live = [table for table in side.tables if table.dead is None]
    rate, start, seconds, live_total = schedule
    run = Run(rate, start, start + seconds, max(live_total, 1) / rate)
    side.received.state_bytes, side.received.states = 0, 0
    client = psutil.Process()
    client_before = cpu_seconds(client)
    slot = (j * processes + index for j in range(len(live)))
    await asyncio.gather(*(drive(http, run, table, next(slot)) for table in live))
    spent = cpu_seconds(client) - client_before  # type: ignore[operator]
    return {
        "latencies": run.latencies,
        "lags": run.lags,
        "errors": dict(run.errors),
        "in_time": run.in_time,
        "games": run.games,
        "state_bytes": side.received.state_bytes,
        "states": side.received.states,
        "client_cpu_seconds": spent,
        "live": sum(table.dead is None for table in side.tables),
    }


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
                args=(theirs, side.name, side.urls, side.args, index, processes),
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
    pipe: Any, name: str, urls: list[str], args: argparse.Namespace, index: int, processes: int
) -> None:
    """One load client process of `Clients`: opens the tables it is told to, plays its
    share of each run, closes its sockets; progress lines go to stderr."""
    gc.set_threshold(50_000, 20, 100)
    side = Side(name, urls[0], None, args, urls=urls)
    asyncio.run(client_commands(pipe, side, index, processes))


async def client_commands(pipe: Any, side: Side, index: int, processes: int) -> None:
    loop = asyncio.get_running_loop()
    started = time.perf_counter()

    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    async with httpx.AsyncClient(base_url=side.url, limits=HTTP_LIMITS, timeout=60) as http:
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
