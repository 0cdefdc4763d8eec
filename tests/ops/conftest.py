"""Fixtures of the operations tests on real PostgreSQL and Redis.

Service URLs, fresh databases and the skip-or-fail rule (`CI=true` turns a missing service
into a failure) come from the shared tests/conftest.py; these only adapt them.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Iterator

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from tests.conftest import create_postgres_database, drop_postgres_database


@pytest.fixture
def free_port() -> int:
    """A TCP port nothing listens on right now (the OS picks it)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
async def postgres_engine(postgres_url: str) -> AsyncIterator[AsyncEngine]:
    engine = create_async_engine(postgres_url)
    yield engine
    await engine.dispose()


@pytest.fixture
async def sqlite_engine(tmp_path) -> AsyncIterator[AsyncEngine]:
    engine = create_async_engine(f"sqlite+aiosqlite:///{tmp_path / 'ops.db'}")
    yield engine
    await engine.dispose()


@pytest.fixture
async def redis_client(redis_url: str):
    from redis.asyncio import Redis

    client = Redis.from_url(redis_url)
    await asyncio.wait_for(client.ping(), 5)
    yield client
    await client.aclose()


@pytest.fixture
def fresh_postgres_database() -> Iterator[str]:
    """A database of its own, so the migration test never touches anyone else's tables."""
    url = create_postgres_database()
    yield url
    drop_postgres_database(url)
