"""Database engine creation and migrations.

SQLite (the zero-setup default) runs in WAL mode so that readers never wait for the
writer; PostgreSQL is used through asyncpg. Migrations are Alembic's, run in-process at
start-up when `settings.migrate_on_start` is on.

SQLite has one writer at a time, and a connection that finds the file locked waits in
SQLite's busy handler, which sleeps and retries (no queue): with many tables writing at
once through the pool's connections, one writer could lose every retry for the whole
busy timeout and fail with `database is locked`. So the sessions made here for SQLite
take their write transactions (`sessions.begin()`) one at a time, in order of arrival,
in the process (`SerialWriteSessions`). sqlite3 opens each write transaction with
`BEGIN IMMEDIATE` (before its first INSERT/UPDATE/DELETE): the file's write lock is taken
at BEGIN, never by upgrading a read, and the busy timeout is left for another process (a
`spades` command) that writes to the same file.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import weakref
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import orjson
from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, event
from sqlalchemy import create_engine as create_sync_engine
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)

from server import shipped

# Inside the installed package, or at the top of a source checkout (server.shipped).
ALEMBIC_INI = shipped("alembic.ini")


def is_sqlite(url: str) -> bool:
    return make_url(url).get_backend_name() == "sqlite"


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def ensure_sqlite_directory(url: str) -> None:
    """Create the directory of a SQLite database file (called at start-up, not import)."""
    if is_sqlite(url):
        database = make_url(url).database
        if database and database != ":memory:":
            Path(database).parent.mkdir(parents=True, exist_ok=True)


def json_text(value: Any) -> str:
    """A JSON column's text, by orjson (several times faster than `json.dumps` on a game
    snapshot); integer keys become strings, as `json.dumps` makes them."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


def create_engine(url: str) -> AsyncEngine:
    """An AsyncEngine for `url`; SQLite connections get WAL mode, a busy timeout and
    `BEGIN IMMEDIATE` (see the module's docstring). JSON columns go through orjson.

    `hide_parameters`: a database error must not quote a game snapshot (every hand) or a
    token hash into a log line."""
    json = {"json_serializer": json_text, "json_deserializer": orjson.loads}
    if is_sqlite(url):
        # sqlite3's own transaction control stays (a SELECT opens no transaction, so no
        # reader holds a snapshot it would have to upgrade to write), but the BEGIN it
        # emits before the first INSERT/UPDATE/DELETE is `BEGIN IMMEDIATE`.
        engine = create_async_engine(
            url, hide_parameters=True, connect_args={"isolation_level": "IMMEDIATE"}, **json
        )
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
        return engine
    return create_async_engine(url, pool_pre_ping=True, hide_parameters=True, **json)


def sqlite_file_engine(engine: AsyncEngine, wait: bool = True) -> Engine | None:
    """A synchronous engine (sqlite3 itself, no thread of its own) on the SQLite file of
    `engine`, set up the same way (WAL, busy timeout, `BEGIN IMMEDIATE`, orjson), for the
    store's group commit (`server.store.batch`, whose held connections run their own
    `BEGIN IMMEDIATE` and `COMMIT` in autocommit mode). `wait=False`: no busy timeout, a file
    another process holds is refused at once, and the WAL is checkpointed only past
    `LOOP_CHECKPOINT_PAGES` (for writes made on the event loop itself).
    None for PostgreSQL or an in-memory database, which another connection would not
    share."""
    url = engine.url
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
        return None
    file = create_sync_engine(
        url.set(drivername="sqlite"),
        hide_parameters=True,
        connect_args={"isolation_level": "IMMEDIATE", "check_same_thread": False},
        json_serializer=json_text,
        json_deserializer=orjson.loads,
        # Every use is a `begin()` block, which commits or rolls back itself: the pool's
        # rollback on each return would be one more call per batch for nothing.
        pool_reset_on_return=None,
    )
    event.listen(file, "connect", _sqlite_pragmas)
    if not wait:
        event.listen(file, "connect", _on_the_loop)
    # Its connection closes with the engine's own (the app's shutdown, a test's end).
    event.listen(engine.sync_engine, "engine_disposed", lambda _engine: file.dispose())
    return file


# The WAL's size, in pages, at which a connection on the event loop checkpoints it itself:
# only a backstop, should the writer thread's checkpoints (`server.store.batch`) stop.
LOOP_CHECKPOINT_PAGES = 20_000


def _on_the_loop(dbapi_connection: Any, _record: Any) -> None:
    """A connection written on the event loop waits neither for the file (no busy
    timeout) nor for the disk (it leaves the WAL's checkpoints to the writer thread)."""
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA busy_timeout=0")
    cursor.execute(f"PRAGMA wal_autocheckpoint={LOOP_CHECKPOINT_PAGES}")
    cursor.close()


# One lock per SQLite file and event loop: the writers of this process queue on it.
_WRITE_LOCKS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, asyncio.Lock]] = (
    weakref.WeakKeyDictionary()
)


def sqlite_write_lock(engine: AsyncEngine) -> asyncio.Lock:
    """The lock this process's write transactions on `engine`'s SQLite file take, first
    come first served (an asyncio.Lock hands itself to its waiters in order)."""
    key = _file_key(engine.url.database or ":memory:")
    locks = _WRITE_LOCKS.setdefault(asyncio.get_running_loop(), {})
    return locks.setdefault(key, asyncio.Lock())


@functools.lru_cache(maxsize=64)
def _file_key(database: str) -> str:
    """The file's absolute path (resolved once: it is asked on every write)."""
    return database if database == ":memory:" else str(Path(database).resolve())


def write_lock(engine: AsyncEngine) -> AbstractAsyncContextManager[Any]:
    """What a write transaction on `engine` waits for first: the SQLite file's lock in this
    process (`sqlite_write_lock`); nothing for PostgreSQL, whose rows lock themselves."""
    if engine.dialect.name == "sqlite":
        return sqlite_write_lock(engine)
    return contextlib.nullcontext()


class SerialWriteSessions(async_sessionmaker[AsyncSession]):
    """Sessions for SQLite whose `begin()` (a write transaction, committed at the end)
    waits for the file's write lock in the process first; plain sessions (reads) do not
    wait, WAL lets them read while a write goes on."""

    def __init__(self, engine: AsyncEngine, **options: Any) -> None:
        super().__init__(engine, **options)
        self.engine = engine

    @asynccontextmanager
    async def _one_writer(self) -> AsyncIterator[AsyncSession]:
        async with sqlite_write_lock(self.engine), super().begin() as session:
            yield session

    def begin(self) -> Any:  # an async context manager, like the base class's
        return self._one_writer()


def session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    if engine.dialect.name == "sqlite":
        return SerialWriteSessions(engine, expire_on_commit=False)
    return async_sessionmaker(engine, expire_on_commit=False)


def alembic_config(url: str | None = None) -> Config:
    """Alembic configuration of this project, pointing at `url` when given."""
    config = Config(str(ALEMBIC_INI))
    config.set_main_option("script_location", str(shipped("migrations")))
    if url is not None:
        config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def _upgrade(connection: Connection, url: str) -> None:
    config = alembic_config(url)
    config.attributes["connection"] = connection
    command.upgrade(config, "head")


async def migrate(engine: AsyncEngine) -> None:
    """Run `alembic upgrade head` on `engine`'s database (idempotent)."""
    url = engine.url.render_as_string(hide_password=False)
    ensure_sqlite_directory(url)
    async with engine.begin() as connection:
        await connection.run_sync(_upgrade, url)
