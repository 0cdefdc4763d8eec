"""`spades migrate` on real SQLite and PostgreSQL databases, through the console script."""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import asyncpg
import pytest
from alembic.script import ScriptDirectory
from sqlalchemy.engine import make_url

from server.cli import build_parser, main
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


def play_bots(capsys, *args: str) -> tuple[int, list[str]]:
    code = main(["bots", *args])
    return code, capsys.readouterr().out.splitlines()


def test_bots_play_a_whole_standard_game_to_the_target(capsys):
    code, lines = play_bots(capsys, "--seed", "1")
    assert code == 0
    assert lines[0] == "4 basic bots play 'standard' to 500 (seed 1)"
    hands = [n for n, line in enumerate(lines) if line.startswith("Hand ")]
    assert lines[hands[0]].startswith("Hand 1 (dealer: seat ")
    for start, end in zip(hands, [*hands[1:], len(lines) - 1], strict=True):
        hand = lines[start:end]
        assert sum(" bids " in line and "|" not in line for line in hand) == 4
        tricks = [line for line in hand if line.lstrip().startswith("trick ")]
        assert len(tricks) == 13
        assert all(len(re.findall(r"\b\d:[2-9TJQKA][CDHS]\b", line)) == 4 for line in tricks)
    winner = re.fullmatch(r"Winner: seat (\d) and seat (\d), (-?\d+) to (-?\d+)", lines[-1])
    assert winner, lines[-1]
    assert int(winner[3]) >= 500 > int(winner[4])
    last_hand_scores = lines[-3:-1]
    assert any(f"-> {winner[3]} (" in line for line in last_hand_scores), last_hand_scores


def test_bots_game_is_reproducible_from_its_seed(capsys):
    assert play_bots(capsys, "--seed", "7", "--target", "150") == play_bots(
        capsys, "--seed", "7", "--target", "150"
    )


def test_bots_play_cutthroat_with_three_seats(capsys):
    code, lines = play_bots(capsys, "--preset", "cutthroat", "--seed", "3", "--target", "150")
    assert code == 0
    tricks = [line for line in lines if line.lstrip().startswith("trick ")]
    assert tricks and all(len(re.findall(r"\b\d:\w\w\b", line)) == 3 for line in tricks)
    assert re.fullmatch(r"Winner: seat \d, \d+ to -?\d+ to -?\d+", lines[-1])


def test_bots_refuse_unknown_presets_and_levels_with_a_message(capsys):
    assert main(["bots", "--preset", "nope"]) == 2
    assert "unknown preset 'nope'" in capsys.readouterr().err
    assert main(["bots", "--level", "grandmaster"]) == 2
    assert "no bot level 'grandmaster'" in capsys.readouterr().err
