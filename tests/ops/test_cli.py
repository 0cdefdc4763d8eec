"""`spades migrate` on real SQLite and PostgreSQL databases, through the console script."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import asyncpg
import pytest
from alembic.script import ScriptDirectory
from sqlalchemy.engine import make_url

from server.cli import build_parser
from server.store.db import alembic_config

SPADES = Path(sys.executable).parent / "spades"
HEAD = ScriptDirectory.from_config(alembic_config()).get_current_head()


def run_spades(*args: str, database_url: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "DATABASE_URL": database_url, "SPADES_LOG_JSON": "true"}
    return subprocess.run(
        [str(SPADES), *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=120
    )


def test_parser_knows_every_command():
    parser = build_parser()
    assert parser.parse_args(["serve", "--port", "0"]).port == 0
    assert parser.parse_args(["migrate"]).command == "migrate"
    with pytest.raises(SystemExit):
        parser.parse_args([])


def test_migrate_brings_a_new_sqlite_file_to_head_and_is_idempotent(tmp_path):
    database = tmp_path / "nested" / "spades.db"
    url = f"sqlite+aiosqlite:///{database}"
    for _ in range(2):
        result = run_spades("migrate", database_url=url, cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        assert f"Database migrated to the latest schema: {url}" in result.stdout
    with sqlite3.connect(database) as connection:
        [(version,)] = connection.execute("SELECT version_num FROM alembic_version").fetchall()
    assert version == HEAD


async def test_migrate_brings_a_new_postgres_database_to_head(fresh_postgres_database, tmp_path):
    result = run_spades("migrate", database_url=fresh_postgres_database, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    dsn = make_url(fresh_postgres_database).set(drivername="postgresql")
    connection = await asyncpg.connect(dsn.render_as_string(hide_password=False))
    try:
        version = await connection.fetchval("SELECT version_num FROM alembic_version")
    finally:
        await connection.close()
    assert version == HEAD


def test_migrate_hides_the_password_it_reports(tmp_path):
    url = "postgresql+asyncpg://spades:hunter2secret@127.0.0.1:1/spades"
    result = run_spades("migrate", database_url=url, cwd=tmp_path)
    assert result.returncode != 0, "nothing listens on port 1"
    assert "hunter2secret" not in result.stdout + result.stderr
