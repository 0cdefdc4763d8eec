"""Fixtures of the operations tests: real PostgreSQL and Redis, or a skip that says why.

With `CI=true` a missing service fails the test instead: CI must prove what it claims.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import socket
from collections.abc import AsyncIterator

import asyncpg
import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

POSTGRES_URL = os.environ.get(
    "SPADES_TEST_POSTGRES_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres"
)
REDIS_URL = os.environ.get("SPADES_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


def missing_service(reason: str) -> None:
    """Skip locally, fail under CI."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (CI=true: a missing service is a failure)")
    pytest.skip(reason)


@pytest.fixture
def free_port() -> int:
    """A TCP port nothing listens on right now (the OS picks it)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
async def postgres_engine() -> AsyncIterator[AsyncEngine]:
    engine = create_async_engine(POSTGRES_URL)
    try:
        async with engine.connect() as connection:
            await asyncio.wait_for(connection.execute(text("SELECT 1")), 5)
    except Exception as error:
        await engine.dispose()
        missing_service(f"PostgreSQL not reachable at SPADES_TEST_POSTGRES_URL: {error!r}")
    yield engine
    await engine.dispose()


@pytest.fixture
async def sqlite_engine(tmp_path) -> AsyncIterator[AsyncEngine]:
    engine = create_async_engine(f"sqlite+aiosqlite:///{tmp_path / 'ops.db'}")
    yield engine
    await engine.dispose()


@pytest.fixture
async def redis_client():
    from redis.asyncio import Redis

    client = Redis.from_url(REDIS_URL)
    try:
        await asyncio.wait_for(client.ping(), 5)
    except Exception as error:
        await client.aclose()
        missing_service(f"Redis not reachable at SPADES_TEST_REDIS_URL: {error!r}")
    yield client
    await client.aclose()


@pytest.fixture
async def fresh_postgres_database():
    """A database of its own, so the migration test never touches anyone else's tables."""
    admin_dsn = make_url(POSTGRES_URL).set(drivername="postgresql").render_as_string(False)
    try:
        admin = await asyncpg.connect(admin_dsn, timeout=5)
    except Exception as error:
        missing_service(f"PostgreSQL not reachable at SPADES_TEST_POSTGRES_URL: {error!r}")
    name = f"spades_ops_{secrets.token_hex(4)}"
    await admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield make_url(POSTGRES_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()
