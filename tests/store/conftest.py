"""The store tests' `store`: migrated, on SQLite and on PostgreSQL (`database_url`)."""

from __future__ import annotations

import pytest

from tests.store.writes import opened


@pytest.fixture
async def store(database_url):
    async with opened(database_url) as store:
        yield store
