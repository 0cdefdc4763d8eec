"""Fixtures of the operations tests on real PostgreSQL and Redis.

Service URLs, fresh databases and the skip-or-fail rule (`CI=true` turns a missing service
into a failure) come from the shared tests/conftest.py; these only adapt them.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from bench.harness.server import free_port as unused_port
from tests.conftest import create_postgres_database, drop_postgres_database

ROOT = Path(__file__).resolve().parents[2]


def build_wheel(source: Path, into: Path) -> Path:
    """The project's wheel, built from `source` by pip (hatchling in an isolated build)."""
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(into),
         str(source)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr[-3000:]
    [wheel] = into.glob("spades_table-*.whl")
    return wheel


@pytest.fixture(scope="session")
def project_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel `pip install .` would install, built once per test session."""
    return build_wheel(ROOT, tmp_path_factory.mktemp("wheel"))


@pytest.fixture
def free_port() -> int:
    """A TCP port nothing listens on right now (the OS picks it)."""
    return unused_port()


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
