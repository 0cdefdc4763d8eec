"""Database engine creation and migrations.

SQLite (the zero-setup default) runs in WAL mode so that readers never wait for the
writer; PostgreSQL is used through asyncpg. Migrations are Alembic's, run in-process at
start-up when `settings.migrate_on_start` is on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import event
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine

ROOT = Path(__file__).resolve().parents[2]
ALEMBIC_INI = ROOT / "alembic.ini"


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


def create_engine(url: str) -> AsyncEngine:
    """An AsyncEngine for `url`; SQLite connections get WAL mode and a busy timeout.

    `hide_parameters`: a database error must not quote a game snapshot (every hand) or a
    token hash into a log line."""
    if is_sqlite(url):
        engine = create_async_engine(url, hide_parameters=True)
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
        return engine
    return create_async_engine(url, pool_pre_ping=True, hide_parameters=True)


def session_factory(engine: AsyncEngine) -> async_sessionmaker:
    return async_sessionmaker(engine, expire_on_commit=False)


def alembic_config(url: str | None = None) -> Config:
    """Alembic configuration of this project, pointing at `url` when given."""
    config = Config(str(ALEMBIC_INI))
    config.set_main_option("script_location", str(ROOT / "migrations"))
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
