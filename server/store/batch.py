"""Group commit: the accepted actions of many tables written by one task, in one transaction.

An action's writer hands it to `GroupCommit.submit` and waits for its own answer. One task
per event loop takes every write waiting at that moment and commits them together; writes
that arrive meanwhile wait for the next transaction. So under load a transaction carries
many actions (one BEGIN and one COMMIT, one INSERT for all their log rows), and when the
tables are quiet each action still commits at once, alone. Each caller learns of its own
commit only once the transaction has landed: it broadcasts after its own commit, never
before.

On SQLite a batch is written by sqlite3 itself, synchronously, on the event loop: a
small WAL transaction takes a fraction of a millisecond, less than handing it to another
thread and back (aiosqlite does that for every statement; under the GIL the other thread
only takes turns with the loop anyway, and on a busy machine each hand-off waits to be
scheduled). That connection never waits for the file: if another process (a `spades`
command) holds it, the batch goes to one writer thread whose connection waits as long as
the busy timeout. On PostgreSQL the same statements run on the async engine (`run_sync`:
asyncpg, no thread), on one connection kept while writes keep coming: taking it from the
pool for each batch would cost two more round trips a batch (the pool's ping on checkout,
its rollback on return). It goes back to the pool when nothing waits, and after a
failure, so that the writes committed again one by one take one the pool has checked.

A version conflict is one write's answer, not the batch's. A batch that fails (or cannot
tell which of its writes conflicted) is rolled back and its writes are committed again
one by one, so that one bad write fails only its own table.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Generic, TypeVar

from sqlalchemy import Engine
from sqlalchemy.engine import Connection
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from server.store.db import sqlite_file_engine, write_lock

Write = TypeVar("Write")
# What a batch's writes answer, in order: each write's new version, or the exception it
# must raise to its caller (a VersionConflict).
Outcomes = list[int | Exception]

# The most writes one transaction carries; more wait for the next one.
MAX_BATCH = 256
# The one thread where this process writes batches to SQLite files (they take turns on
# each file's write lock anyway).
_SQLITE_WRITER = ThreadPoolExecutor(1, thread_name_prefix="sqlite-writer")


class Ambiguous(Exception):
    """A batch cannot tell which of its writes did not land (a multi-row UPDATE matched
    fewer rows than it has writes): commit them one by one to find out."""


class GroupCommit(Generic[Write]):
    """The one writer task of `engine` for one kind of write; `write_all` writes a batch
    on an open transaction and answers each write's outcome."""

    def __init__(
        self, engine: AsyncEngine, write_all: Callable[[Connection, list[Write]], Outcomes]
    ) -> None:
        self.engine = engine
        self.write_all = write_all
        # SQLite's own synchronous engines on the same file: on the loop, and in the thread.
        self._inline: Engine | None = sqlite_file_engine(engine, wait=False)
        self._file: Engine | None = sqlite_file_engine(engine)
        self._waiting: list[tuple[Write, asyncio.Future[int]]] = []
        self._writer: asyncio.Task[None] | None = None
        # PostgreSQL: the connection this burst of batches writes on (None between bursts).
        self._connection: AsyncConnection | None = None
        self.batches = 0
        self.writes = 0

    async def submit(self, write: Write) -> int:
        """Commit `write` with whatever else is waiting; its new version once committed."""
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[int] = loop.create_future()
        self._waiting.append((write, answer))
        if self._writer is None or self._writer.done():
            # The task ends when nothing waits: no task outlives the writes (nor its loop).
            self._writer = loop.create_task(self._drain())
        # Shielded: a caller cancelled while its batch commits does not cancel the batch.
        return await asyncio.shield(answer)

    async def _drain(self) -> None:
        try:
            while self._waiting:
                batch, self._waiting = self._waiting[:MAX_BATCH], self._waiting[MAX_BATCH:]
                await self._commit(batch)
        finally:
            await self._release()

    async def _release(self) -> None:
        """Give the burst's connection back to the pool (the pool discards a dead one)."""
        connection, self._connection = self._connection, None
        if connection is not None:
            with contextlib.suppress(Exception):  # a connection that died closes as it can
                await connection.close()

    async def _commit(self, batch: list[tuple[Write, asyncio.Future[int]]]) -> None:
        writes = [write for write, _ in batch]
        try:
            async with write_lock(self.engine):
                outcomes = await self._transaction(writes)
        except Exception as failure:
            if len(batch) == 1:
                _settle(batch[0][1], failure)
                return
            for one in batch:  # alone, so that a failure is its own write's
                await self._commit([one])
            return
        self.batches += 1
        self.writes += len(batch)
        for (_write, answer), outcome in zip(batch, outcomes, strict=True):
            _settle(answer, outcome)

    async def _transaction(self, writes: list[Write]) -> Outcomes:
        """`write_all` in one transaction, committed (or rolled back) before it answers."""
        inline, file = self._inline, self._file
        if inline is None or file is None:
            if self._connection is None:
                self._connection = await self.engine.connect()
            connection = self._connection
            try:
                async with connection.begin():
                    return await connection.run_sync(self.write_all, writes)
            except BaseException:
                await self._release()
                raise
        try:
            return self._write_on(inline, writes)
        except OperationalError as refusal:
            if not is_busy(refusal):
                raise
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(_SQLITE_WRITER, self._write_on, file, writes)

    def _write_on(self, file: Engine, writes: list[Write]) -> Outcomes:
        with file.begin() as connection:
            return self.write_all(connection, writes)


def is_busy(refusal: OperationalError) -> bool:
    """Whether SQLite refused because another connection holds the file."""
    words = str(refusal.orig).lower()
    return "locked" in words or "busy" in words


def _settle(answer: asyncio.Future[int], outcome: int | BaseException) -> None:
    if answer.done():
        return
    if isinstance(outcome, BaseException):
        answer.set_exception(outcome)
    else:
        answer.set_result(outcome)
