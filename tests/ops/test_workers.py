"""`spades serve --workers N`: N server processes behind HAProxy on one port, refused
clearly without what it needs (Redis, PostgreSQL, haproxy)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import psutil
import pytest

from bench.harness.tables import connect, create_table, take_seats
from server.workers import Backend, haproxy_config
from tests.ops.test_cli import SPADES, read_lines

POSTGRES = "postgresql+asyncpg://postgres@127.0.0.1:5432/spades"


def workers_env(**settings: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("SPADES_")}
    env.pop("REDIS_URL", None)
    return {**env, **settings}


def run_workers(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SPADES), "serve", "--workers", "2", *args],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip


def test_workers_refuse_without_redis(tmp_path):
    done = run_workers(workers_env(DATABASE_URL=POSTGRES))
    assert done.returncode == 2
    assert "--workers 2 needs REDIS_URL" in done.stderr
    assert "docs/operations.md" in done.stderr
    assert done.stdout == ""


def test_workers_refuse_a_sqlite_file(tmp_path):
    sqlite = f"sqlite+aiosqlite:///{tmp_path / 'spades.db'}"
    done = run_workers(workers_env(DATABASE_URL=sqlite, REDIS_URL="redis://127.0.0.1:6379/0"))
    assert done.returncode == 2
    assert "needs a PostgreSQL DATABASE_URL" in done.stderr
    assert not (tmp_path / "spades.db").exists()


def test_workers_refuse_without_haproxy_and_say_where_to_read(tmp_path):
    # A PATH with the interpreter's directory only: no haproxy on it.
    env = workers_env(DATABASE_URL=POSTGRES, REDIS_URL="redis://127.0.0.1:6379/0")
    env["PATH"] = str(Path(sys.executable).parent)
    done = run_workers(env)
    assert done.returncode == 2
    assert "`haproxy` is not installed" in done.stderr
    assert "apt-get install haproxy" in done.stderr and "docs/operations.md" in done.stderr


def test_workers_take_a_count_of_one_or_more():
    done = subprocess.run(
        [str(SPADES), "serve", "--workers", "0"],
        env=workers_env(), capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2 and "--workers takes a count of 1 or more" in done.stderr


def test_the_proxy_configuration_is_one_haproxy_accepts(tmp_path, haproxy):
    backends = [Backend("spades1", "127.0.0.1", 9001), Backend("spades2", "127.0.0.1", 9002)]
    for host in ("0.0.0.0", "127.0.0.1", "::"):
        config = tmp_path / "haproxy.cfg"
        config.write_text(haproxy_config(host, 8000, backends))
        checked = subprocess.run(
            [haproxy, "-c", "-f", str(config)], capture_output=True, text=True, timeout=30
        )
        assert checked.returncode == 0, checked.stdout + checked.stderr
    text = haproxy_config("0.0.0.0", 8000, backends)
    assert "balance uri path-only" in text and "hash-type consistent" in text
    assert "server spades2 127.0.0.1:9002" in text


def workers_of(server: subprocess.Popen[str]) -> list[psutil.Process]:
    """The live worker processes of `spades serve --workers` (not one that just died)."""
    found = []
    for child in psutil.Process(server.pid).children():
        try:
            if "--worker" in child.cmdline() and child.status() != psutil.STATUS_ZOMBIE:
                found.append(child)
        except psutil.Error:
            continue
    return found


@pytest.mark.slow
async def test_workers_serve_behind_one_port_and_a_dead_one_comes_back(
    fresh_postgres_database, redis_url, haproxy, tmp_path
):
    env = workers_env(
        DATABASE_URL=fresh_postgres_database, REDIS_URL=redis_url, SPADES_LOG_LEVEL="DEBUG"
    )
    log = (tmp_path / "stderr.log").open("w")
    server = subprocess.Popen(
        [str(SPADES), "serve", "--workers", "2", "--host", "127.0.0.1", "--port", "0"],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=log, text=True,
    )  # fmt: skip
    try:
        lines = read_lines(server.stdout, 1, timeout=120)
        assert lines, f"nothing printed (exit {server.poll()})"
        opened = re.fullmatch(r"Spades is running: open http://127\.0\.0\.1:(\d+)/", lines[0])
        assert opened, lines
        url = f"http://127.0.0.1:{opened[1]}"
        workers = workers_of(server)
        assert len(workers) == 2
        assert len([p for p in psutil.Process(server.pid).children() if "haproxy" in p.name()]) == 1

        # Migrated once by the parent: a table is made and a socket answers, through the port.
        async with httpx.AsyncClient(base_url=url, timeout=30) as http:
            table = await create_table(http, listed=False)
            secrets = [table["host_token"], table["invite"]]
            secrets += await take_seats(http, table["id"], [0], invite=table["invite"])
            page = await http.get(f"/t/{table['id']}", params={"invite": table["invite"]})
            assert page.status_code == 200
        ws = await connect("ws" + url[4:], table["id"], secrets[-1])
        try:
            assert '"type":"state"' in await ws.recv()
        finally:
            await ws.close()

        # A worker that dies is started again.
        workers[0].kill()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            alive = [p for p in workers_of(server) if p.pid != workers[0].pid]
            if len(alive) == 2:
                break
            time.sleep(0.2)
        assert len(alive) == 2
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(60)
    log.close()
    assert server.returncode == 0
    assert all(not worker.is_running() for worker in workers)
    # Neither the workers nor HAProxy wrote a token or an invite anywhere, even at DEBUG.
    written = (tmp_path / "stderr.log").read_text()
    assert "Application startup complete." in written
    assert not [secret for secret in secrets if secret in written]


ROUTING = (
    "balance uri path-only",
    "hash-type consistent",
    "option httpchk GET /healthz",
    "option forwardfor",
    "timeout tunnel",
    "on-marked-down shutdown-sessions",
)


def test_compose_puts_haproxy_in_front_of_replicas_routed_as_workers_are(haproxy):
    """docker-compose.yml publishes only the proxy; deploy/haproxy.cfg, which it mounts, is
    valid and routes as `spades serve --workers` does."""
    import yaml

    root = Path(__file__).resolve().parents[2]
    services = yaml.safe_load((root / "docker-compose.yml").read_text())["services"]
    assert "ports" not in services["app"] and services["proxy"]["ports"]
    assert services["app"]["deploy"]["replicas"] == "${SPADES_REPLICAS:-2}"
    mounted = services["proxy"]["volumes"][0].split(":")
    assert mounted[0] == "./deploy/haproxy.cfg"
    shipped = (root / "deploy" / "haproxy.cfg").read_text()
    generated = haproxy_config("0.0.0.0", 8000, [Backend("spades1", "127.0.0.1", 9001)])
    for line in ROUTING:
        assert line in shipped and line in generated, line
    checked = subprocess.run(
        [haproxy, "-c", "-f", str(root / "deploy" / "haproxy.cfg")],
        capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert checked.returncode == 0, checked.stdout + checked.stderr
