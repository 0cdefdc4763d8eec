"""The act path's CPU in one process, no sockets: the server's own cost of one move.

Every table is made, seated and joined through the hub as a socket would (four players,
`--spectators` watchers; each listener a mailbox that keeps only its latest message), on a
fresh SQLite file or `--database-url`. Then `--actions` moves are played in rounds: each
round takes one move from each table, the seat on turn choosing a legal action from its
own latest state (as bench/load.py's players do), `--together` moves in flight at once
(so the store's group commit sees a batch, as under load). A finished game is rematched.
The figure is the process's CPU time over the moves / moves (the store's SQLite thread
included), best and median of `--repeats` runs on the same tables: far steadier than
bench/load.py's server CPU, which a load client on the same two cores disturbs, so a
change to the hot path can be measured by A/B against another commit in minutes.

`--gap MS` idles the loop that long after each round, as a server between actions at a
low rate: the same moves then cost several times the CPU (caches gone cold while the
process slept), which is most of what bench/load.py's server CPU per action holds at
100 actions/s. `--split` also prints where each move's CPU went (this thread's CPU time
around the group commit, its sqlite3 transaction, the frames, the engine's move), the
parts timed by wrapping them in this process only. `--calls` counts the function calls
of the measured moves (a profile hook: Python functions entered, a coroutine resumed
counting again, and C functions called), a measure of how much code a move runs that
does not depend on how busy the machine is. `--disk` times, on the clock, each call the
event loop's thread makes into SQLite (a batch's transaction, with any checkpoint SQLite
makes in its commit; a checkpoint the loop makes itself) and prints their spread: every
table waits while one runs. `--waking N` then times N moves alone (this thread's CPU
around each move, its median) after each way of waiting `--gap` ms (10 if not given):
none (back to back), asleep, spinning on the clock (the core kept busy, little memory
touched), and spinning while writing over 8 MiB (the core busy, its caches evicted); it
tells how much of a cold move is the core waking from sleep and how much is caches.

    .venv/bin/python bench/act_path.py                       # 50 tables, 2,000 moves, x3
    .venv/bin/python bench/act_path.py --repeats 5 --together 8
    .venv/bin/python bench/act_path.py --together 1 --gap 10 --actions 500  # a cold loop
    .venv/bin/python bench/act_path.py --together 1 --gap 10 --actions 500 --split
    .venv/bin/python bench/act_path.py --together 1 --actions 1000 --repeats 1 --calls
    .venv/bin/python bench/act_path.py --together 16 --actions 4000 --disk
    .venv/bin/python bench/act_path.py --actions 200 --repeats 1 --waking 600
    .venv/bin/python bench/act_path.py --tables 2 --actions 40 --repeats 1   # a smoke run
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import functools
import random
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.harness.hub import SeatedTable, seat_table
from bench.harness.server import database
from bench.harness.stats import percentile
from bench.harness.tables import pick
from server.api.services import services_of
from server.app import create_app
from server.engine import Game, Rules
from server.realtime import views
from server.settings import Settings
from server.store.batch import GroupCommit, HeldSQLite

# --split: the parts of a move timed, as (class or module, function, label); CPU seconds
# and calls.
PARTS = (
    (GroupCommit, "_commit", "group commit (its task, the lock, the transaction)"),
    (HeldSQLite, "write", "  of it the sqlite3 transaction"),
    (views, "state_frames", "the frames of every socket"),
    (Game, "act", "the engine's move"),
)
SPENT: collections.defaultdict[str, float] = collections.defaultdict(float)
# --calls: Python functions entered (a coroutine or generator resumed counts again) and
# C functions called, during the measured moves.
CALLS: collections.Counter[str] = collections.Counter()


def count_call(frame: Any, event: str, _argument: Any) -> None:
    if event == "call":
        CALLS["python"] += 1
    elif event == "c_call":
        CALLS["C"] += 1


def time_parts() -> None:
    """Wrap each of PARTS so that this thread's CPU time in it is added to SPENT."""
    for owner, name, label in PARTS:
        original = getattr(owner, name)
        if asyncio.iscoroutinefunction(original):

            @functools.wraps(original)
            async def timed_async(*args: Any, _o: Any = original, _l: str = label) -> Any:
                started = time.thread_time()
                try:
                    return await _o(*args)
                finally:
                    SPENT[_l] += time.thread_time() - started

            setattr(owner, name, timed_async)
        else:

            @functools.wraps(original)
            def timed(*args: Any, _o: Any = original, _l: str = label) -> Any:
                started = time.thread_time()
                try:
                    return _o(*args)
                finally:
                    SPENT[_l] += time.thread_time() - started

            setattr(owner, name, timed)


# --disk: the wall time of each call into SQLite made on the event loop's thread.
DISK_WAITS: list[float] = []


def time_disk() -> None:
    """Wrap HeldSQLite's calls so that those made on the main thread (the event loop's)
    are timed on the clock into DISK_WAITS; the writer thread's are left alone."""
    for name in ("write", "checkpoint"):
        original = getattr(HeldSQLite, name, None)
        if original is None:  # a commit before the loop made checkpoints of its own
            continue

        @functools.wraps(original)
        def timed(*args: Any, _o: Any = original) -> Any:
            if threading.current_thread() is not threading.main_thread():
                return _o(*args)
            started = time.perf_counter()
            try:
                return _o(*args)
            finally:
                DISK_WAITS.append(time.perf_counter() - started)

        setattr(HeldSQLite, name, timed)


async def open_tables(hub: Any, count: int, spectators: int, preset: str) -> list[SeatedTable]:
    """`count` tables seated and joined; every mailbox keeps its latest state only (the
    view decoded from it when its seat acts: the one client-side cost counted here)."""
    rules = Rules.preset(preset)
    return [
        await seat_table(hub, rules, f"act {n}", watchers=spectators, keep_all=False)
        for n in range(count)
    ]


async def move(hub: Any, table: SeatedTable, rng: random.Random) -> bool:
    """One move of `table` (a rematch if its game is over); False if none was made."""
    room = await hub.room(table.room.id)
    if room.stored.status == "over":
        await hub.rematch(room.id, table.tokens[0])
        return False
    turn = room.stored.game.turn if room.stored.game is not None else []
    for player in table.players:
        if player.seat in turn and (view := player.view()) and view["legal"]:
            await hub.act(room, player, pick(view, rng))
            return True
    return False


async def run(
    hub: Any, tables: list[SeatedTable], actions: int, together: int, seed: int, gap: float = 0.0
) -> float:
    """CPU seconds per move over `actions` moves, the loop idle `gap` s after each round."""
    rng = random.Random(seed)
    done = 0
    started = time.process_time()
    while done < actions:
        for first in range(0, len(tables), together):
            made = await asyncio.gather(
                *(move(hub, table, rng) for table in tables[first : first + together])
            )
            done += sum(made)
            if gap:
                await asyncio.sleep(gap)
            if done >= actions:
                break
    return (time.process_time() - started) / done


# --waking: how the loop waits before each timed move, as (label, how).
WAITS = (
    ("back to back", "none"),
    ("asleep", "sleep"),
    ("spinning on the clock", "spin"),
    ("spinning over 8 MiB", "thrash"),
)
THRASH = bytearray(8 << 20)
ZEROS = bytes(len(THRASH) // 64)


async def wait(how: str, seconds: float) -> None:
    if how == "none":
        return
    if how == "sleep":
        await asyncio.sleep(seconds)
        return
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        if how == "thrash":
            THRASH[::64] = ZEROS  # a byte in each 64-byte line: every line of 8 MiB


async def waking(hub: Any, tables: list[SeatedTable], count: int, gap: float) -> dict[str, float]:
    """The median CPU (this thread's, microseconds) of one move alone after each of WAITS."""
    rng = random.Random(0)
    medians = {}
    for label, how in WAITS:
        spent: list[int] = []
        turn = 0
        while len(spent) < count:  # a rematch is not a move: it is not counted
            await wait(how, gap)
            started = time.thread_time_ns()
            if await move(hub, tables[turn % len(tables)], rng):
                spent.append(time.thread_time_ns() - started)
            turn += 1
        medians[label] = statistics.median(spent) / 1000
    return medians


async def main(arguments: argparse.Namespace) -> None:
    async with database(arguments.database_url, prefix="act") as url:
        settings = Settings(
            DATABASE_URL=url,
            REDIS_URL=None,
            bot_processes=0,
            ws_rate_limit="1000000/second",
            log_level="WARNING",
        )
        app = create_app(settings)
        async with app.router.lifespan_context(app):
            hub = services_of(app).hub
            gap = arguments.gap / 1000
            tables = await open_tables(
                hub, arguments.tables, arguments.spectators, arguments.preset
            )
            # A warm-up round: caches, the statement cache, the first snapshots.
            await run(hub, tables, min(arguments.actions, 4 * arguments.tables), 8, 0)
            SPENT.clear()
            DISK_WAITS.clear()
            if arguments.calls:
                sys.setprofile(count_call)
            figures = [
                await run(hub, tables, arguments.actions, arguments.together, repeat + 1, gap)
                for repeat in range(arguments.repeats)
            ]
            sys.setprofile(None)
            woken = (
                await waking(hub, tables, arguments.waking, (arguments.gap or 10) / 1000)
                if arguments.waking
                else {}
            )
    micro = [figure * 1e6 for figure in figures]
    print(
        f"act path: {arguments.tables} tables x (4 players + {arguments.spectators} watching), "
        f"{arguments.actions} moves x {arguments.repeats}, {arguments.together} at once, "
        f"{arguments.gap:g} ms idle between rounds, "
        f"{'SQLite' if not arguments.database_url else url.split(':', 1)[0]}"
    )
    print(
        f"CPU per move: best {min(micro):.0f} us, median {statistics.median(micro):.0f} us "
        f"(runs: {', '.join(f'{value:.0f}' for value in micro)})"
    )
    if arguments.calls:
        moves = arguments.actions * arguments.repeats
        print(
            f"calls per move (the profile hook slows the moves; their CPU is not comparable): "
            f"{CALLS['python'] / moves:.0f} Python, {CALLS['C'] / moves:.0f} C"
        )
    if arguments.disk and DISK_WAITS:
        moves = arguments.actions * arguments.repeats
        waits = sorted(DISK_WAITS)
        p50, p99 = percentile(waits, 0.5), percentile(waits, 0.99)
        print(
            f"the loop's calls into SQLite: {len(waits)}, p50 {p50 * 1e6:.0f} us, "
            f"p99 {p99 * 1e6:.0f} us, max {waits[-1] * 1e3:.1f} ms; "
            f"over 2 ms: {sum(wait > 0.002 for wait in waits)}; "
            f"{sum(waits) / moves * 1e6:.0f} us a move in all"
        )
    if woken:
        print(
            f"one move alone, median CPU of {arguments.waking} after waiting "
            f"{arguments.gap or 10:g} ms:"
        )
        for label, spent in woken.items():
            print(f"  {label:24} {spent:6.0f} us  x{spent / woken['back to back']:.1f}")
    if arguments.split:
        moves = arguments.actions * arguments.repeats
        for _owner, _name, label in PARTS:
            print(f"  {label:52} {SPENT[label] / moves * 1e6:6.0f} us a move")


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--spectators", type=int, default=1)
    parser.add_argument("--actions", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--together", type=int, default=8, help="moves in flight at once")
    parser.add_argument("--gap", type=float, default=0.0, help="ms idle after each round")
    parser.add_argument("--split", action="store_true", help="where each move's CPU went")
    parser.add_argument("--calls", action="store_true", help="function calls per move")
    parser.add_argument("--disk", action="store_true", help="the loop's waits on SQLite")
    parser.add_argument(
        "--waking", type=int, default=0, help="moves timed alone after each way of waiting"
    )
    parser.add_argument("--preset", default="standard")
    parser.add_argument("--database-url", help="another database than a fresh SQLite file")
    return parser.parse_args(argv)


if __name__ == "__main__":
    arguments = parse()
    if arguments.split:
        time_parts()
    if arguments.disk:
        time_disk()
    asyncio.run(main(arguments))
