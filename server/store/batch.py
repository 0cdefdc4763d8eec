"""Group commit: the accepted actions of many tables written by one task, in one transaction.

An action's writer hands it to `GroupCommit.submit` and waits for its own answer. One task
per event loop commits every write waiting at that moment together; writes arriving
meanwhile wait for the next transaction. Under load a transaction carries many actions;
a quiet table's action still commits at once, alone. A caller learns of its commit only
once it has landed (its `landed` callback runs in the step that committed it, so the
table can broadcast without waiting another turn of the loop). A version conflict is one
write's answer; a batch that fails is rolled back and its writes committed again one by
one, so one bad write fails only its own table.

On SQLite a batch is written by sqlite3 itself on the event loop, on one held connection
with its statements, BEGIN and COMMIT compiled once: cheaper than a thread hand-off per
statement. That connection never waits for the file: while another process holds it, the
batch goes to a writer thread, which also runs the WAL's checkpoints (they wait for the
disk); after a checkpoint that found a long WAL, the loop's connection copies the last few
pages itself so the WAL can start over. On PostgreSQL a batch of the common kind (a
`OneStatement`: moves that only bump a version and log an action) is one statement on the
driver's connection, outside a transaction: one round trip. Any other batch runs the same
statements as SQLite through SQLAlchemy (`CoreWriter`) in a transaction. Both use one
connection, kept while writes keep coming and for `LINGER_SECONDS` after (taking it from
the pool again would cost a ping of the server first).
Measurements behind these choices: docs/perf-log/.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractAsyncContextManager
from typing import Any, Generic, TypeVar

import structlog
from sqlalchemy import Engine, event
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from sqlalchemy.sql.expression import ClauseElement

from server.observability import COMMITS, COMMITTED_WRITES
from server.store.db import sqlite_file_engine, write_lock
from server.store.statements import CoreWriter, OneStatement, Prepared, SQLiteWriter, Writer

log = structlog.get_logger(__name__)

Write = TypeVar("Write")
# What a batch's writes answer, in order: each write's new version, or the exception it
# must raise to its caller (a VersionConflict).
Outcomes = list[int | Exception]

# The most writes one transaction carries; more wait for the next one.
MAX_BATCH = 256
# The one thread where this process writes batches to SQLite files (they take turns on
# each file's write lock anyway), and checkpoints their WAL.
_SQLITE_WRITER = ThreadPoolExecutor(1, thread_name_prefix="sqlite-writer")
# Transactions on the event loop's connection between two checkpoints in the writer thread.
CHECKPOINT_EVERY = 200
# A WAL found this long (pages) by the writer thread's checkpoint is finished on the loop.
FINISH_PAGES = 4000
# PostgreSQL: how long the writer keeps its connection once no write waits, for the next
# write to find it.
LINGER_SECONDS = 1.0


class LandedFailed(Exception):
    """A write landed, but its `landed` callback raised (the cause): the write is not to be
    tried again."""


class Ambiguous(Exception):
    """A batch cannot tell which of its writes did not land (a multi-row UPDATE matched
    fewer rows than it has writes): commit them one by one to find out."""


WriteAll = Callable[[Writer, list[Write]], Outcomes]
# Called with a write's new version once it has landed (see the module's docstring).
Landed = Callable[[int], None]


class HeldSQLite:
    """One sqlite3 connection of a synchronous engine on the SQLite file, taken from its
    pool on first use and kept (a checkout and a return per batch cost more than the
    batch's statements), closed when the app's engine is disposed. A connection that
    fails to roll back is dropped, and the next batch takes a fresh one."""

    def __init__(self, file: Engine) -> None:
        self.file = file
        self.connection: Any = None  # the pool's proxy of a sqlite3 connection
        self.prepared: dict[tuple[ClauseElement, tuple[str, ...]], Prepared] = {}
        # The sqlite3 connection itself and the writer on its one cursor, while held.
        self.raw: sqlite3.Connection | None = None
        self.writer: SQLiteWriter | None = None

    def write(self, write_all: WriteAll[Write], writes: list[Write]) -> Outcomes:
        """`write_all` in one transaction (`BEGIN IMMEDIATE`), committed, or rolled back
        before the failure is raised. BEGIN and COMMIT are statements of the connection's
        cursor, compiled once in sqlite3's statement cache: sqlite3's own implicit BEGIN
        and `commit()` compile theirs again for every transaction, which runs SQLite's
        parser on every move (the connection is held in autocommit mode for that)."""
        raw, writer = self.raw, self.writer
        if raw is None or writer is None:
            raw, writer = self._open()
        cursor = writer.cursor
        try:
            cursor.execute("BEGIN IMMEDIATE")
            outcomes = write_all(writer, writes)
            cursor.execute("COMMIT")
        except BaseException:
            try:
                raw.rollback()
            except Exception:
                self.close()
            raise
        return outcomes

    def _open(self) -> tuple[sqlite3.Connection, SQLiteWriter]:
        self.connection = self.file.raw_connection()
        raw = self.raw = self.connection.driver_connection
        # Transactions begin and end in `write` (the connection is never handed back to
        # the pool: `close` invalidates it).
        raw.isolation_level = None
        writer = self.writer = SQLiteWriter(raw.cursor(), self.file.dialect, self.prepared)
        return raw, writer

    def checkpoint(self) -> tuple[int, int, int]:
        """A passive checkpoint of the file's WAL (it waits for no reader or writer):
        SQLite's answer, (busy, pages in the WAL, pages copied into the database file)."""
        raw = self.raw if self.raw is not None else self._open()[0]
        busy, logged, copied = raw.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        return busy, logged, copied

    def close(self) -> None:
        connection, self.connection = self.connection, None
        self.raw = self.writer = None
        if connection is not None:
            with contextlib.suppress(Exception):
                connection.invalidate()


class GroupCommit(Generic[Write]):
    """The one writer task of `engine` for one kind of write; `write_all` writes a batch
    on an open transaction and answers each write's outcome."""

    def __init__(
        self,
        engine: AsyncEngine,
        write_all: WriteAll[Write],
        one_statement: OneStatement[Write] | None = None,
    ) -> None:
        self.engine = engine
        self.write_all = write_all
        self.one_statement = one_statement
        # SQLite: connections of sqlite3 itself on the same file, on the loop and in the
        # writer thread (None on PostgreSQL).
        inline, file = sqlite_file_engine(engine, wait=False), sqlite_file_engine(engine)
        self.on_loop = HeldSQLite(inline) if inline is not None else None
        self.in_thread = HeldSQLite(file) if file is not None else None
        if self.on_loop is not None and self.in_thread is not None:
            event.listen(engine.sync_engine, "engine_disposed", self._close_held)
        self._waiting: list[tuple[Write, asyncio.Future[int], Landed | None]] = []
        self._writer: asyncio.Task[None] | None = None
        # PostgreSQL: the connection this burst of batches writes on (None between bursts).
        self._connection: AsyncConnection | None = None
        # Its driver's own connection (asyncpg's), for `one_statement`.
        self._driver: Any = None
        # While the writer lingers with its connection: the future a new write resolves.
        self._wake: asyncio.Future[bool] | None = None
        self._closing = False
        self._lock: AbstractAsyncContextManager[Any] = contextlib.nullcontext()
        self._lock_loop: asyncio.AbstractEventLoop | None = None
        self.batches = 0
        self.writes = 0
        # Transactions on the loop's connection since the last checkpoint was asked for,
        # the checkpoint under way in the writer thread, and how many have been made.
        self._since_checkpoint = 0
        self._checkpointing: Future[tuple[int, int, int]] | None = None
        self.checkpoints = 0
        # Set by the writer thread's checkpoint: the loop's connection copies the rest.
        self._finish_due = False
        self.finished = 0

    @property
    def started_writer(self) -> bool:
        """Whether a writer task has ever been started (a lone write on SQLite needs none)."""
        return self._writer is not None

    @property
    def checkpointing(self) -> bool:
        """Whether a checkpoint is under way in the writer thread."""
        return self._checkpointing is not None

    async def submit(self, write: Write, landed: Landed | None = None) -> int:
        """Commit `write` with whatever else is waiting; its new version once committed.
        `landed`, if given, is called with that version first, in the step that committed
        it; should it raise, the caller gets `LandedFailed`."""
        loop = asyncio.get_running_loop()
        if self.on_loop is not None and not self._waiting and _alone(loop):
            lock = self._write_lock(loop)
            if isinstance(lock, asyncio.Lock) and not lock.locked():
                # Nothing else could join a batch: write it now, in the caller's own step
                # (no writer task, no future, no two more turns of the loop to wait for).
                outcome = self._write_now(self.on_loop, write)
                if outcome is not None:
                    if isinstance(outcome, Exception):
                        raise outcome
                    if landed is not None:
                        _call(landed, outcome)
                    return outcome
        answer: asyncio.Future[int] = loop.create_future()
        self._waiting.append((write, answer, landed))
        _resolve(self._wake, True)
        if self._writer is None or self._writer.done():
            # The task ends when nothing waits: no task outlives the writes (nor its loop).
            self._writer = loop.create_task(self._drain())
        # The batch runs in the writer task: a caller cancelled meanwhile cancels only its
        # wait for this answer (`_settle` then leaves it be), never the batch or its write.
        return await answer

    async def _drain(self) -> None:
        """The writer task: commit bursts of writes until none waits, giving the
        connection back after each burst."""
        while True:
            try:
                await self._commit_burst()
            finally:
                await self._release()
            # A write that came while the connection was being given back found this task
            # running, and started none: it is this task's.
            if not self._waiting:
                return

    async def _commit_burst(self) -> None:
        """Commit what waits, `MAX_BATCH` writes a transaction; while a PostgreSQL
        connection is held, linger for more and commit those too."""
        while True:
            while self._waiting:
                batch = self._waiting[:MAX_BATCH]
                self._waiting = self._waiting[MAX_BATCH:]
                await self._commit(batch)
            if self._connection is None or self._closing or not await self._linger():
                return

    async def _linger(self) -> bool:
        """Wait up to `LINGER_SECONDS` for another write, keeping the connection: whether
        one came (and `close` was not called)."""
        loop = asyncio.get_running_loop()
        wake = self._wake = loop.create_future()
        timer = loop.call_later(LINGER_SECONDS, _resolve, wake, False)
        try:
            await wake
        finally:
            timer.cancel()
            self._wake = None
        return bool(self._waiting) and not self._closing

    async def close(self) -> None:
        """Stop lingering: the writer commits what waits, gives its connection back to the
        pool and ends (at shutdown, before the engine is disposed)."""
        self._closing = True
        _resolve(self._wake, False)
        writer = self._writer
        if (
            writer is not None
            and not writer.done()
            and writer.get_loop() is asyncio.get_running_loop()
        ):
            await asyncio.wait([writer])

    def _counted(self, writes: int) -> None:
        """One more transaction committed, of `writes` writes."""
        self.batches += 1
        self.writes += writes
        COMMITS.inc()
        COMMITTED_WRITES.inc(writes)

    def _write_now(self, inline: HeldSQLite, write: Write) -> int | Exception | None:
        """`write` alone, on sqlite3 on the loop, synchronously: its outcome (its new
        version, or the exception its caller must raise), or None when another process
        holds the file (the write then goes the usual way, to wait for it in the thread)."""
        try:
            outcomes = inline.write(self.write_all, [write])
        except sqlite3.OperationalError as refusal:
            if is_busy(refusal):
                return None
            return refusal
        except Exception as failure:
            return failure
        self._counted(1)
        self._count_inline()
        return outcomes[0]

    def _count_inline(self) -> None:
        """One more transaction committed on the loop's connection: a long WAL the writer
        thread's last checkpoint left is finished here, and every `CHECKPOINT_EVERY`, a
        checkpoint goes to the writer thread (unless one is still under way there)."""
        if self._finish_due and self.on_loop is not None:
            self._finish_due = False
            try:
                self.on_loop.checkpoint()
            except sqlite3.Error as problem:
                log.warning("WAL checkpoint failed", error=type(problem).__name__)
            else:
                self.finished += 1
        self._since_checkpoint += 1
        if self._since_checkpoint < CHECKPOINT_EVERY or self._checkpointing is not None:
            return
        file = self.in_thread
        if file is None:
            return
        self._since_checkpoint = 0
        self._checkpointing = _SQLITE_WRITER.submit(file.checkpoint)
        self._checkpointing.add_done_callback(self._checkpointed)

    def _checkpointed(self, done: Future[tuple[int, int, int]]) -> None:
        """In the writer thread: a checkpoint has ended (a failure is logged; the next
        one is asked for as usual, and the backstop still holds the WAL's size). A long
        WAL is left for the loop's connection to finish."""
        problem = done.exception()
        if problem is not None:
            log.warning("WAL checkpoint failed", error=type(problem).__name__)
        else:
            self.checkpoints += 1
            _busy, logged, _copied = done.result()
            self._finish_due = logged >= FINISH_PAGES
        # Last: the loop reads it as the checkpoint's end, its outcome noted by then.
        self._checkpointing = None

    def _close_held(self, _engine: Engine) -> None:
        if self.on_loop is not None:
            self.on_loop.close()
        if self.in_thread is not None:
            # In the writer thread, after whatever it is doing with that connection (a
            # checkpoint, a batch waiting for the file) has ended.
            with contextlib.suppress(Exception):
                _SQLITE_WRITER.submit(self.in_thread.close).result()

    def _write_lock(self, loop: asyncio.AbstractEventLoop) -> AbstractAsyncContextManager[Any]:
        """`write_lock(engine)`, looked up once per event loop (it is taken every batch).
        The caller passes the running loop it has already looked up: each lookup is a
        system call (asyncio checks the process id), on every move's path."""
        if self._lock_loop is not loop:
            self._lock, self._lock_loop = write_lock(self.engine), loop
        return self._lock

    async def _release(self) -> None:
        """Give the burst's connection back to the pool (the pool discards a dead one)."""
        connection, self._connection = self._connection, None
        self._driver = None
        if connection is not None:
            with contextlib.suppress(Exception):  # a connection that died closes as it can
                await connection.close()

    async def _commit(self, batch: list[tuple[Write, asyncio.Future[int], Landed | None]]) -> None:
        writes = [write for write, _, _ in batch]
        try:
            async with self._write_lock(asyncio.get_running_loop()):
                outcomes = await self._transaction(writes)
        except Exception as failure:
            if len(batch) == 1:
                _settle(batch[0][1], failure)
                return
            for one in batch:  # alone, so that a failure is its own write's
                await self._commit([one])
            return
        self._counted(len(batch))
        for (_write, answer, landed), outcome in zip(batch, outcomes, strict=True):
            # A caller that stopped waiting (cancelled) has let go of its table: its
            # callback is not run behind the back of whoever holds the table now.
            if landed is not None and isinstance(outcome, int) and not answer.done():
                try:
                    _call(landed, outcome)
                except LandedFailed as failure:
                    outcome = failure
            _settle(answer, outcome)

    async def _transaction(self, writes: list[Write]) -> Outcomes:
        """`write_all` in one transaction, committed (or rolled back) before it answers."""
        inline, file = self.on_loop, self.in_thread
        if inline is None or file is None:
            if self._connection is None:
                self._connection = await self.engine.connect()
            connection = self._connection
            try:
                single = self.one_statement.statement(writes) if self.one_statement else None
                if single is not None and self.one_statement is not None:
                    if self._driver is None:
                        self._driver = (await connection.get_raw_connection()).driver_connection
                    returned = await self._driver.fetch(single.sql, *single.args)
                    return self.one_statement.outcomes(writes, [row[0] for row in returned])
                async with connection.begin():
                    return await connection.run_sync(
                        lambda sync: self.write_all(CoreWriter(sync), writes)
                    )
            except BaseException:
                await self._release()
                raise
        try:
            outcomes = inline.write(self.write_all, writes)
        except sqlite3.OperationalError as refusal:
            if not is_busy(refusal):
                raise
        else:
            self._count_inline()
            return outcomes
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(_SQLITE_WRITER, file.write, self.write_all, writes)


def _alone(loop: asyncio.AbstractEventLoop) -> bool:
    """Whether nothing else will run on `loop` before it next waits for its sockets: no
    other write could then join a batch begun now. Read from asyncio's queue of ready
    callbacks (CPython's event loops; an event loop without one is never alone, and its
    writes always go through the writer task)."""
    ready = getattr(loop, "_ready", None)
    return ready is not None and not ready


def is_busy(refusal: Exception) -> bool:
    """Whether SQLite refused because another connection holds the file."""
    words = str(getattr(refusal, "orig", refusal)).lower()
    return "locked" in words or "busy" in words


def _call(landed: Landed, version: int) -> None:
    try:
        landed(version)
    except Exception as problem:
        raise LandedFailed(f"after commit: {type(problem).__name__}") from problem


def _resolve(wake: asyncio.Future[bool] | None, more: bool) -> None:
    if wake is not None and not wake.done():
        wake.set_result(more)


def _settle(answer: asyncio.Future[int], outcome: int | BaseException) -> None:
    if answer.done():
        return
    if isinstance(outcome, BaseException):
        answer.set_exception(outcome)
    else:
        answer.set_result(outcome)
