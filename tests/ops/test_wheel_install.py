"""`pip install` of the wheel, in a fresh virtual environment, gives a server that serves.

No editable install and no source checkout behind it: the environment holds only the
wheel and its dependencies (from the pip index this machine is configured with), and the
server runs from an empty folder. web/, migrations/ and alembic.ini must therefore come out
of the installed package: the lobby, a table page and the static files are served, and the
SQLite file `spades serve` creates in that folder is migrated to the latest revision.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from alembic.config import Config
from alembic.script import ScriptDirectory

from tests.ops.conftest import ROOT

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def installed(project_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new virtual environment with the wheel installed; returns its bin/ folder."""
    venv = tmp_path_factory.mktemp("wheel-env") / "env"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    pip = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", str(project_wheel)],
        capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert pip.returncode == 0, pip.stderr[-3000:]
    return venv / "bin"


def clean_env() -> dict[str, str]:
    """This environment without the server's settings and without the repo on the path."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("SPADES_")}
    for name in ("DATABASE_URL", "REDIS_URL", "PYTHONPATH", "VIRTUAL_ENV"):
        env.pop(name, None)
    return env


def test_the_installed_package_holds_web_migrations_and_alembic_ini(installed, tmp_path):
    probe = (
        "import server; print(server.__file__); "
        "print(*(server.shipped(name) for name in ('web', 'migrations', 'alembic.ini')))"
    )
    found = subprocess.run(
        [str(installed / "python"), "-c", probe],
        cwd=tmp_path, env=clean_env(), capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    package = Path(found[0]).parent
    assert "site-packages" in package.parts, f"{package}: not the installed package"
    assert not package.is_relative_to(ROOT), "the source checkout is not on the path"
    assert found[1:] == [str(package / name) for name in ("web", "migrations", "alembic.ini")]


@pytest.mark.timeout(900)
def test_spades_serve_from_an_empty_folder_serves_the_lobby_and_a_table(
    installed, tmp_path, free_port
):
    base = f"http://127.0.0.1:{free_port}"
    command = [str(installed / "spades"), "serve", "--host", "127.0.0.1", "--port", str(free_port)]
    log = tmp_path / "server.log"
    with log.open("wb") as errors:
        server = subprocess.Popen(
            command, cwd=tmp_path, env=clean_env(), stdout=subprocess.PIPE, stderr=errors,
            text=True,
        )  # fmt: skip
    try:
        assert server.stdout is not None
        announced = server.stdout.readline().strip()  # printed once it accepts connections
        assert announced == f"Spades is running: open {base}/", log.read_text()[-3000:]
        with httpx.Client(base_url=base, timeout=10) as http:
            lobby = http.get("/")
            assert lobby.status_code == 200 and "<html" in lobby.text.lower()
            assert http.get("/static/app.css").status_code == 200
            assert http.get("/healthz").json() == {"status": "ok"}
            table = http.post("/api/tables", json={"name": "Installed"})
            assert table.status_code == 201, table.text
            page = http.get(table.json()["url"])
            assert page.status_code == 200 and "<html" in page.text.lower()
    finally:
        server.send_signal(signal.SIGTERM)
        started = time.monotonic()
        assert server.wait(30) == 0
        assert time.monotonic() - started < 15

    head = ScriptDirectory.from_config(Config(str(ROOT / "alembic.ini"))).get_current_head()
    with contextlib.closing(sqlite3.connect(tmp_path / "data" / "spades.db")) as database:
        [(revision,)] = database.execute("SELECT version_num FROM alembic_version").fetchall()
    assert revision == head, "the SQLite file is migrated to the latest revision"
