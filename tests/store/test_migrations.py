"""Alembic migrations: they build an empty database, and they match the models."""

from __future__ import annotations

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect

from server.store.db import alembic_config, create_engine, migrate
from server.store.models import Base


async def test_upgrade_head_builds_every_table_on_an_empty_database(empty_database_url):
    engine = create_engine(empty_database_url)
    try:
        await migrate(engine)
        async with engine.connect() as connection:
            names = await connection.run_sync(lambda sync: inspect(sync).get_table_names())
        assert set(Base.metadata.tables) <= set(names)
        assert "alembic_version" in names
        await migrate(engine)  # a second run is a no-op, as at every start-up
    finally:
        await engine.dispose()


async def test_models_and_migrations_agree(empty_database_url):
    engine = create_engine(empty_database_url)
    try:
        await migrate(engine)
        async with engine.connect() as connection:
            diff = await connection.run_sync(
                lambda sync: compare_metadata(
                    MigrationContext.configure(sync, opts={"compare_type": True}), Base.metadata
                )
            )
        assert diff == []
    finally:
        await engine.dispose()


def test_the_alembic_command_line_path_upgrades_and_downgrades(empty_database_url):
    """`alembic upgrade head` as an operator runs it (env.py makes its own engine)."""
    config = alembic_config(empty_database_url)
    command.upgrade(config, "head")
    command.downgrade(config, "base")
    command.upgrade(config, "head")
