"""What a durable commit costs the CPU right after the process has slept, and why.

At 100 actions a second over 50 tables the server sleeps about 10 ms between actions, and
each action then runs on cold caches (docs/performance.md, "Cold moves"). This measures
the part of a move the relay does not have, its SQLite commit, outside the server: the
act's transaction on sqlite3 (WAL, `synchronous=NORMAL`, the table's version raised
with its optimistic check, one row appended to a log kept without rowid, the COMMIT) on a
fresh file shaped like ours, back to back and with `--gap` ms of sleep before each one;
the same with SQLite's locks held for good (`locking_mode=EXCLUSIVE`, which the server
cannot use: other connections and `spades` commands share the file), and without the
version bump; then the system calls around such a commit in the server (`strace` before
9af85c3: 2 `getpid` from asyncio's loop lookups, 6 `fcntl` on the WAL index, 4 `pwrite64`
for two pages), each kind alone, and
an empty step (one clock read) for the cost of waking at all. Figures are this thread's
CPU time (`time.thread_time_ns`), medians of `--count` samples.

    .venv/bin/python bench/investigations/cold.py                  # 10 ms gap, 300 samples
    .venv/bin/python bench/investigations/cold.py --gap 1 --count 1000
    .venv/bin/python bench/investigations/cold.py --count 20       # a smoke run
"""

from __future__ import annotations

import argparse
import fcntl
import os
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

TABLES = 1000
ACTION = '{"type":"play","card":"AS"}'
AT = "2026-12-03 18:00:00.000000"


def median_us(step: Callable[[], None], count: int, gap: float) -> float:
    """The median CPU time of `step` in microseconds, each run after `gap` s of sleep."""
    spent = []
    for _ in range(count):
        if gap:
            time.sleep(gap)
        started = time.thread_time_ns()
        step()
        spent.append(time.thread_time_ns() - started)
    return statistics.median(spent) / 1000


class Commits:
    """A file shaped like the server's (its `tables` and `actions`), and the act's
    transaction on it, one table after another."""

    def __init__(
        self, path: Path, exclusive: bool = False, bump: bool = True, cached: bool = False
    ) -> None:
        self.db = sqlite3.connect(path, isolation_level="IMMEDIATE")
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        if exclusive:
            self.db.execute("PRAGMA locking_mode=EXCLUSIVE")
        self.db.execute(
            "CREATE TABLE tables (id TEXT PRIMARY KEY, version INTEGER, deadline TEXT, status TEXT)"
        )
        self.db.execute("CREATE INDEX ix_tables_status ON tables (status)")
        self.db.execute(
            "CREATE TABLE actions (game_id INTEGER, seq INTEGER, seat INTEGER, action TEXT,"
            " version INTEGER, cause TEXT, at TEXT, PRIMARY KEY (game_id, seq)) WITHOUT ROWID"
        )
        self.db.executemany(
            "INSERT INTO tables VALUES (?, 0, NULL, 'playing')",
            [(f"t{n}",) for n in range(TABLES)],
        )
        self.db.commit()
        self.cursor = self.db.cursor()
        self.bump = bump
        # `cached`: BEGIN and COMMIT run as statements of their own, prepared once in
        # sqlite3's statement cache (autocommit mode), not parsed again for every
        # transaction as sqlite3's implicit BEGIN and `commit()` are.
        self.cached = cached
        if cached:
            self.db.isolation_level = None
        self.versions = [0] * TABLES
        self.next = 0

    def commit(self) -> None:
        table = self.next
        self.next = (table + 1) % TABLES
        old = self.versions[table]
        if self.cached:
            self.cursor.execute("BEGIN IMMEDIATE")
        if self.bump:
            self.cursor.executemany(
                "UPDATE tables SET version = ?, deadline = ? WHERE id = ? AND version = ?",
                [(old + 1, None, f"t{table}", old)],
            )
            if self.cursor.rowcount != 1:
                raise RuntimeError("the version check failed")
        self.cursor.executemany(
            "INSERT INTO actions VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(table, old + 1, 0, ACTION, old + 1, None, AT)],
        )
        if self.cached:
            self.cursor.execute("COMMIT")
        else:
            self.db.commit()
        self.versions[table] = old + 1


def system_calls(fd: int) -> dict[str, Callable[[], None]]:
    """Each kind of system call a lone commit makes, as many times as it makes it, on the
    open file `fd`."""
    os.pwrite(fd, b"\0" * 65536, 0)
    page = b"x" * 4096

    def nothing() -> None:
        return None

    def getpid() -> None:
        os.getpid()
        os.getpid()

    def locks() -> None:
        for _ in range(3):
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, 120)
            fcntl.lockf(fd, fcntl.LOCK_UN, 1, 120)

    def writes() -> None:
        for offset, size in ((0, 24), (24, 4096), (4120, 24), (4144, 4096)):
            os.pwrite(fd, page[:size], offset)

    return {
        "waking only (one clock read)": nothing,
        "getpid x2": getpid,
        "fcntl lock/unlock x3": locks,
        "pwrite64 x4 (two frames)": writes,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gap", type=float, default=10.0, help="ms of sleep before each")
    parser.add_argument("--count", type=int, default=300, help="samples of each")
    args = parser.parse_args()
    gap = args.gap / 1000
    print(f"median CPU us of one step: back to back, then after {args.gap:g} ms asleep")
    with tempfile.TemporaryDirectory() as name:
        directory = Path(name)
        kinds = {
            "the act's transaction (bump, log row, COMMIT)": Commits(directory / "a.db"),
            "  the same, locks held (locking_mode=EXCLUSIVE)": Commits(
                directory / "b.db", exclusive=True
            ),
            "  the same, no version bump (one page)": Commits(directory / "c.db", bump=False),
            "  the same, BEGIN and COMMIT prepared once": Commits(directory / "d.db", cached=True),
        }
        steps: dict[str, Callable[[], None]] = {
            label: commits.commit for label, commits in kinds.items()
        }
        fd = os.open(directory / "calls.bin", os.O_RDWR | os.O_CREAT)
        steps.update(system_calls(fd))
        for label, step in steps.items():
            median_us(step, 20, 0.0)  # warm up: the file's first pages, the code
            warm = median_us(step, args.count, 0.0)
            cold = median_us(step, args.count, gap)
            # A clock coarser than the step reads 0 back to back: no ratio then.
            ratio = f"x{cold / warm:.1f}" if warm else "x-"
            print(f"{label:50} {warm:8.1f} {cold:8.1f}  {ratio}")
        os.close(fd)
        for commits in kinds.values():
            commits.db.close()


if __name__ == "__main__":
    main()
