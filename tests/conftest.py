"""Shared fixtures: real databases (SQLite file and PostgreSQL), the app, a served app.

`database_url` runs a test on both databases. PostgreSQL gets a fresh database for the
test session (dropped at the end); when PostgreSQL is not reachable the Postgres half is
skipped, saying so, except under `CI=true`, where it fails.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import shutil
from collections.abc import AsyncIterator, Iterator
from typing import Any

import asyncpg
import httpx
import pytest
import uvicorn
from fastapi import FastAPI
from sqlalchemy.engine import make_url

from server.app import create_app
from server.settings import Settings
from server.store.db import create_engine, migrate

POSTGRES_URL = os.environ.get(
    "SPADES_TEST_POSTGRES_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres"
)
REDIS_URL = os.environ.get("SPADES_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


def missing_service(reason: str) -> None:
    """Skip locally; under CI a missing service is a failure."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (CI=true: a missing service is a failure)")
    pytest.skip(reason)


def _plain_dsn(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


async def _admin(sql: str) -> None:
    connection = await asyncpg.connect(_plain_dsn(POSTGRES_URL), timeout=5)
    try:
        await connection.execute(sql)
    finally:
        await connection.close()


def create_postgres_database() -> str:
    """A new, empty PostgreSQL database; returns its SQLAlchemy URL."""
    name = f"spades_test_{secrets.token_hex(5)}"
    try:
        asyncio.run(_admin(f'CREATE DATABASE "{name}"'))
        # Tests need no crash safety from PostgreSQL itself (it is never killed here):
        # skip the fsync wait of each commit, which dominates on a busy machine.
        asyncio.run(_admin(f'ALTER DATABASE "{name}" SET synchronous_commit = off'))
    except Exception as error:
        missing_service(f"PostgreSQL not reachable at {POSTGRES_URL}: {error!r}")
    return make_url(POSTGRES_URL).set(database=name).render_as_string(hide_password=False)


def drop_postgres_database(url: str) -> None:
    name = make_url(url).database
    asyncio.run(_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """One fresh PostgreSQL database for the whole test session."""
    url = create_postgres_database()
    yield url
    drop_postgres_database(url)


@pytest.fixture
def haproxy() -> str:
    """The haproxy command, for the tests of processes behind a proxy."""
    found = shutil.which("haproxy")
    if found is None:
        missing_service("haproxy is not installed (apt-get install haproxy)")
    assert found is not None
    return found


@pytest.fixture(scope="session")
def migrated_postgres_url(postgres_url: str) -> str:
    """The session's PostgreSQL database with the schema in place, for tests that start
    several server processes at the same moment (they must not race to migrate)."""

    async def upgrade() -> None:
        engine = create_engine(postgres_url)
        try:
            await migrate(engine)
        finally:
            await engine.dispose()

    asyncio.run(upgrade())
    return postgres_url


@pytest.fixture(params=["sqlite", "postgres"])
def database_url(request: pytest.FixtureRequest, tmp_path) -> str:
    """The test runs once on a SQLite file, once on PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite+aiosqlite:///{tmp_path / 'db' / 'spades.db'}"
    return request.getfixturevalue("postgres_url")


@pytest.fixture(params=["sqlite", "postgres"])
def empty_database_url(request: pytest.FixtureRequest, tmp_path) -> Iterator[str]:
    """A database nobody has touched: a new SQLite file, or a new PostgreSQL database."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'empty.db'}"
        return
    url = create_postgres_database()
    yield url
    drop_postgres_database(url)


@pytest.fixture
def redis_url() -> str:
    """Redis for multi-process tests (flushing nothing: channels carry no state)."""
    import redis

    try:
        redis.Redis.from_url(REDIS_URL, socket_timeout=5).ping()
    except Exception as error:
        missing_service(f"Redis not reachable at {REDIS_URL}: {error!r}")
    return REDIS_URL


@pytest.fixture
def settings(database_url: str) -> Settings:
    """Test settings: bots act at once, no Redis, a generous socket rate limit."""
    return Settings(
        DATABASE_URL=database_url,
        REDIS_URL=None,
        bot_delay=0,
        ws_rate_limit="1000/second",
        chat_rate_limit="1000/second",
        http_rate_limit="1000/second",
        log_level="WARNING",
    )


@pytest.fixture
async def app(settings: Settings) -> AsyncIterator[FastAPI]:
    """The app with its lifespan run (migrations, resume), as uvicorn would."""
    application = create_app(settings)
    async with application.router.lifespan_context(application):
        yield application


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        yield http


class _QuietServer(uvicorn.Server):
    """uvicorn in the test's event loop, leaving signal handling to pytest."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


async def serve(application: FastAPI, **options: Any) -> AsyncIterator[str]:
    """Serve `application` with real uvicorn on a free port; yields "127.0.0.1:PORT".
    `options` go to uvicorn's Config (e.g. `ws_ping_interval`)."""
    config = uvicorn.Config(
        application,
        host="127.0.0.1",
        port=0,
        ws="websockets-sansio",
        log_level="warning",
        **options,
    )
    server = _QuietServer(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task


@pytest.fixture
async def served(settings: Settings) -> AsyncIterator[tuple[FastAPI, str]]:
    """(app, "127.0.0.1:PORT"): the app behind a real uvicorn, WebSockets included."""
    application = create_app(settings)
    async for address in serve(application):
        yield application, address


@pytest.fixture
async def http(served: tuple[FastAPI, str]) -> AsyncIterator[httpx.AsyncClient]:
    """An HTTP client of the served app (real uvicorn, as `served`)."""
    _app, address = served
    async with httpx.AsyncClient(base_url=f"http://{address}") as client:
        yield client
