"""Alembic migrations: they build an empty database, and they match the models."""

from __future__ import annotations

import asyncio

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect, text

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


ACTION_LOG_ROWS = [
    "INSERT INTO tables (id, name, rules, status, version, game_number, created, listed,"
    " hints) VALUES ('t1', 'x', '{}', 'playing', 3, 1, '2026-12-03 00:00:00', true, false)",
    "INSERT INTO games (id, table_id, number, seed, snapshot, snapshot_seq, started)"
    " VALUES (1, 't1', 1, 7, '{}', 0, '2026-12-03 00:00:00')",
    *(
        "INSERT INTO actions (game_id, seq, seat, action, version, at)"
        # (`\\:`: a colon, not a bind parameter, to SQLAlchemy's text())
        f' VALUES (1, {seq}, 0, \'{{"type"\\:"bid","bid"\\:{seq}}}\', {seq},'
        " '2026-12-03 00:00:00')"
        for seq in (1, 2, 3)
    ),
]


def test_the_action_log_keeps_its_rows_through_0004_and_back(empty_database_url):
    """0004 rebuilds the SQLite action log without a rowid (one B-tree by its key); the
    rows stay, in both directions, and PostgreSQL is left as it is."""
    config = alembic_config(empty_database_url)
    sqlite = empty_database_url.startswith("sqlite")

    async def read(*statements: str) -> tuple[list[tuple[int, int, str]], bool]:
        """Run `statements` in one transaction; then the log's rows, and whether SQLite
        keeps it without a rowid."""
        engine = create_engine(empty_database_url)
        try:
            async with engine.begin() as connection:
                for statement in statements:
                    await connection.execute(text(statement))
                found = await connection.execute(
                    text("SELECT game_id, seq, action FROM actions ORDER BY seq")
                )
                rows = [(game, seq, str(action)) for game, seq, action in found]
                bare = False
                if sqlite:
                    sql = await connection.scalar(
                        text("SELECT sql FROM sqlite_master WHERE name = 'actions'")
                    )
                    bare = "WITHOUT ROWID" in sql
            return rows, bare
        finally:
            await engine.dispose()

    command.upgrade(config, "0003")
    before, bare = asyncio.run(read(*ACTION_LOG_ROWS))
    assert len(before) == 3 and not bare
    command.upgrade(config, "head")
    assert asyncio.run(read()) == (before, sqlite)
    command.downgrade(config, "0003")
    assert asyncio.run(read()) == (before, False)


def test_0005_gives_each_waiting_table_a_server_seed_and_keeps_every_row(empty_database_url):
    """A table still waiting shows a commitment after the upgrade (its own 32-byte server
    seed); a table with a game needs none; the downgrade keeps the tables and their games."""
    config = alembic_config(empty_database_url)
    command.upgrade(config, "0004")

    async def run(*statements: str) -> list[tuple[str, str | None]]:
        engine = create_engine(empty_database_url)
        try:
            async with engine.begin() as connection:
                for statement in statements:
                    await connection.execute(text(statement))
                if statements:
                    return []
                rows = await connection.execute(text("SELECT id, deal_key FROM tables ORDER BY id"))
                return [(table_id, key) for table_id, key in rows]
        finally:
            await engine.dispose()

    tables = [
        "INSERT INTO tables (id, name, rules, status, version, game_number, created, listed,"
        f" hints) VALUES ('{table_id}', 'x', '{{}}', '{status}', 1, 0,"
        " '2026-12-03 00:00:00', true, false)"
        for table_id, status in (("w1", "waiting"), ("w2", "waiting"), ("p1", "playing"))
    ]
    asyncio.run(run(*tables, *ACTION_LOG_ROWS))
    command.upgrade(config, "head")
    found = dict(asyncio.run(run()))
    assert found["p1"] is None and found["t1"] is None
    assert len(bytes.fromhex(found["w1"] or "")) == 32
    assert found["w1"] != found["w2"]
    command.downgrade(config, "0004")
    engine_rows = asyncio.run(count_rows(empty_database_url))
    assert engine_rows == (4, 3)


async def count_rows(url: str) -> tuple[int, int]:
    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            tables = await connection.scalar(text("SELECT count(*) FROM tables"))
            actions = await connection.scalar(text("SELECT count(*) FROM actions"))
            return tables, actions
    finally:
        await engine.dispose()
