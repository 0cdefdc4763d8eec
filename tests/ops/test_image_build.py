"""The real image, built from the Dockerfile by podman, runs the app and plays a move.

No Docker engine runs here and no image registry is reachable, so `scripts/build-image`
assembles the base images from Debian's packages (debootstrap) and builds the Dockerfile with
`--build-arg PYTHON_IMAGE=localhost/spades-python:3.11-bookworm` (Debian's Python 3.11 in
place of python:3.11-slim), plus PostgreSQL 15 and Redis 7 images from Debian's
postgresql-15 and redis-server (compose names postgres:16-alpine and redis:7-alpine).

Containers use the host's network and free loopback ports, since every other address is out
of bounds here, so each one's command is the image's (or compose's) with the port replaced,
and each health check is the image's (or compose's) with the port replaced, run by
`podman healthcheck run`.

What compose itself would do is done by hand: no compose tool runs the file. Its service
names (`postgres`, `redis`) resolve only on a compose network, a bridge with its own private
addresses, which is not made here; the URLs point at 127.0.0.1 and the services' ports
instead. `depends_on` is followed by starting the services in that order, each after the
previous one's health check passed (or, for `migrate`, after it exited 0).

The tests skip only when podman cannot run containers on this machine (the build script
exits 3 saying why), and fail instead under CI=true.
"""

from __future__ import annotations

import contextlib
import json
import re
import secrets
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from websockets.sync.client import connect

from tests.conftest import missing_service

ROOT = Path(__file__).resolve().parents[2]
PODMAN = ["podman", "--runtime", "runc"]
LIMITS = ["--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024"]
IMAGE = "localhost/spades:latest"
POSTGRES_IMAGE = "localhost/spades-postgres:15-bookworm"
REDIS_IMAGE = "localhost/spades-redis:7-bookworm"
APP_USER = "10001:10001"

pytestmark = pytest.mark.slow


def podman(*args: str, check: bool = True, timeout: float = 120) -> subprocess.CompletedProcess:
    result = subprocess.run(
        [*PODMAN, *args], capture_output=True, text=True, timeout=timeout, check=False
    )
    if check and result.returncode != 0:
        pytest.fail(f"podman {' '.join(args)}: exit {result.returncode}\n{result.stderr[-3000:]}")
    return result


def free_ports(count: int) -> list[int]:
    """`count` distinct TCP ports nothing listens on right now (held open together)."""
    with contextlib.ExitStack() as stack:
        probes = [stack.enter_context(socket.socket()) for _ in range(count)]
        for probe in probes:
            probe.bind(("127.0.0.1", 0))
        return [probe.getsockname()[1] for probe in probes]


def with_defaults(value: Any) -> str:
    """Compose's ${VAR:-default} interpolation, taking the defaults."""
    return re.sub(r"\$\{[A-Z_]+:-([^}]*)\}", r"\1", str(value))


def on_port(command: list[str], port: int) -> list[str]:
    """The image's `serve` command bound to 127.0.0.1:port (the host's network is shared)."""
    command = list(command)
    command[command.index("--host") + 1] = "127.0.0.1"
    command[command.index("--port") + 1] = str(port)
    return command


def health_cmd(test: list[str], port: int | None = None) -> str:
    """A Dockerfile or compose health check as podman's --health-cmd, its port replaced.

    podman 4.3 reads a JSON array without the leading "CMD" as exec form (with "CMD" it
    splits the text at spaces), and plain text as CMD-SHELL."""
    kind, *command = test
    if port is not None:
        command = [part.replace(":8000/", f":{port}/") for part in command]
    if kind == "CMD-SHELL":
        [text] = command
        return text
    assert kind == "CMD", test
    return json.dumps(command)


def wait_healthy(container: str, seconds: float = 90) -> None:
    """`podman healthcheck run` until it passes (it answers "unhealthy" while starting)."""
    deadline = time.monotonic() + seconds
    while True:
        result = podman("healthcheck", "run", container, check=False, timeout=30)
        if result.returncode == 0:
            return
        state = podman("inspect", "--format", "{{.State.Status}}", container, check=False)
        if time.monotonic() > deadline or state.stdout.strip() != "running":
            logs = podman("logs", container, check=False).stderr[-3000:]
            pytest.fail(f"{container} never healthy ({state.stdout.strip()}):\n{logs}")
        time.sleep(0.5)


def stop(container: str) -> int:
    """`podman stop` (SIGTERM, then 20 s before SIGKILL); the container's exit code."""
    podman("stop", "--time", "20", container, timeout=60)
    return int(podman("inspect", "--format", "{{.State.ExitCode}}", container).stdout)


@contextlib.contextmanager
def cleanup() -> Iterator[tuple[list[str], list[str]]]:
    """Lists to append container and volume names to; all are removed at the end."""
    containers: list[str] = []
    volumes: list[str] = []
    try:
        yield containers, volumes
    finally:
        for name in containers:
            podman("rm", "--force", "--volumes", "--time", "0", name, check=False)
        for name in volumes:
            podman("volume", "rm", "--force", name, check=False)


def play_a_move(base: str) -> dict[str, Any]:
    """A private table, one person and three bots, one legal move over a real WebSocket."""
    with httpx.Client(base_url=base, timeout=10) as http:
        created = http.post("/api/tables", json={"name": "Image test"})
        assert created.status_code == 201, created.text
        table = created.json()
        invite = table["invite"]
        seated = http.post(
            f"/api/tables/{table['id']}/seats/0", json={"name": "Ann", "invite": invite}
        )
        assert seated.status_code == 201, seated.text
        token = seated.json()["token"]
        for seat in (1, 2, 3):
            bot = http.post(
                f"/api/tables/{table['id']}/seats/{seat}/bot",
                json={"level": "basic", "invite": invite},
            )
            assert bot.status_code == 201, bot.text

    ws_url = base.replace("http://", "ws://") + f"/ws/tables/{table['id']}"
    with connect(ws_url, open_timeout=10, close_timeout=5) as ws:
        ws.send(json.dumps({"type": "hello", "token": token, "version": None}))
        deadline = time.monotonic() + 60
        acted: dict[str, Any] | None = None
        while time.monotonic() < deadline:
            message = json.loads(ws.recv(timeout=30))
            if message["type"] == "error":
                # Another seat moved between our state and our act: pick again.
                assert message["code"] == "stale" and acted is not None, message
                acted = None
                continue
            if message["type"] != "state":
                continue
            assert message["seat"] == 0
            view = message["state"]
            if acted is not None and message["version"] > acted["version"]:
                action = acted["action"]
                if action["type"] == "bid":
                    assert view["bids"][0] == action["bid"], view["bids"]
                return {"table": table["id"], "action": action, **acted, "next": message}
            if acted is None and view is not None and view["legal"]:
                action = view["legal"][0]
                acted = {"action": action, "version": message["version"]}
                ws.send(
                    json.dumps(
                        {"type": "act", "action": action, "id": "m1", "version": message["version"]}
                    )
                )
    pytest.fail("no legal move offered, or no state after the move, within 60 s")


def wait_for(url: str, container: str, seconds: float = 60) -> httpx.Response:
    deadline = time.monotonic() + seconds
    while True:
        try:
            response = httpx.get(url, timeout=2)
            if response.status_code == 200:
                return response
        except httpx.HTTPError:
            pass
        state = podman("inspect", "--format", "{{.State.Status}}", container, check=False)
        if time.monotonic() > deadline or state.stdout.strip() != "running":
            logs = podman("logs", container, check=False)
            pytest.fail(f"{url} not up ({state.stdout.strip()}):\n{logs.stderr[-3000:]}")
        time.sleep(0.3)


@pytest.fixture(scope="module")
def images() -> dict[str, Any]:
    """The app, Postgres and Redis images, by scripts/build-image --services."""
    started = time.monotonic()
    result = subprocess.run(
        [str(ROOT / "scripts" / "build-image"), "--services"],
        capture_output=True, text=True, timeout=1500, cwd=ROOT,
    )  # fmt: skip
    seconds = time.monotonic() - started
    if result.returncode == 3:
        missing_service(result.stderr.strip().splitlines()[-1])
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-5000:]
    print(result.stdout, f"scripts/build-image --services: {seconds:.1f}s", sep="")
    [inspected] = json.loads(podman("image", "inspect", IMAGE).stdout)
    return inspected


@pytest.mark.timeout(1500)
def test_image_runs_as_non_root_on_sqlite_in_a_volume_and_plays_a_move(images):
    config = images["Config"]
    assert config["User"] == APP_USER
    assert config["WorkingDir"] == "/app"
    assert "8000/tcp" in config["ExposedPorts"]
    assert "/app/data" in config["Volumes"]
    healthcheck = images.get("Healthcheck")  # podman keeps it beside Config
    assert healthcheck and "/healthz" in healthcheck["Test"][-1], "Docker format keeps it"
    [port] = free_ports(1)
    run_id = secrets.token_hex(4)
    name, volume = f"spades-image-test-{run_id}", f"spades-image-test-data-{run_id}"

    with cleanup() as (containers, volumes):
        podman("volume", "create", volume)
        volumes.append(volume)
        start = [
            "run", "--detach", "--network", "host", *LIMITS,
            "--volume", f"{volume}:/app/data",
            "--health-cmd", health_cmd(healthcheck["Test"], port), "--health-interval", "disable",
            IMAGE, *on_port(config["Cmd"], port),
        ]  # fmt: skip
        podman(*start[:2], "--name", name, *start[2:])
        containers.append(name)
        base = f"http://127.0.0.1:{port}"
        assert wait_for(f"{base}/healthz", name).json() == {"status": "ok"}

        assert podman("exec", name, "id", "-u").stdout.strip() == "10001"
        status = podman("exec", name, "cat", "/proc/1/status").stdout
        assert re.search(r"^Uid:\s+10001\s", status, re.M), "PID 1 (the server) is not root"
        imported = podman("exec", name, "python", "-c", "import server; print(server.__file__)")
        assert imported.stdout.strip().endswith("-packages/server/__init__.py"), "installed"
        podman("exec", name, "test", "!", "-e", "/app/server")  # no source tree is copied
        assert podman("healthcheck", "run", name, check=False).returncode == 0
        lobby = httpx.get(f"{base}/", timeout=10)
        assert lobby.status_code == 200 and "<html" in lobby.text.lower(), "web/ is in the image"

        moved = play_a_move(base)
        assert moved["next"]["version"] > moved["version"]
        podman("exec", name, "test", "-s", "/app/data/spades.db")  # SQLite is in the volume
        assert stop(name) == 0, "SIGTERM reaches the server as PID 1 and it exits 0"

        # A new container on the same volume finds the table and the move.
        again = f"{name}-again"
        podman(*start[:2], "--name", again, *start[2:])
        containers.append(again)
        wait_for(f"{base}/healthz", again)
        table = httpx.get(f"{base}/api/tables/{moved['table']}", timeout=10).json()
        assert table["status"] == "playing"
        assert table["version"] >= moved["next"]["version"]
        assert stop(again) == 0


@pytest.mark.timeout(1500)
def test_compose_services_migrate_and_serve_a_move_on_postgres_and_redis(images):
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    postgres_port, redis_port, app_port = free_ports(3)
    run_id = secrets.token_hex(4)

    def named(service: str) -> str:
        return f"spades-compose-test-{service}-{run_id}"

    def mounts(service: str) -> list[str]:
        """The service's named volumes, each a fresh podman volume for this run."""
        found = []
        for volume in services[service].get("volumes", []):
            source, target = volume.split(":")[:2]
            found += ["--volume", f"{named(source)}:{target}"]
        return found

    def app_env(service: str) -> list[str]:
        """Compose's environment for the service, service names replaced by our ports."""
        env = []
        for key, value in services[service]["environment"].items():
            value = with_defaults(value)
            value = value.replace("@postgres:5432/", f"@127.0.0.1:{postgres_port}/")
            value = value.replace("//redis:6379/", f"//127.0.0.1:{redis_port}/")
            assert "@postgres:" not in value and "//redis:" not in value, value
            env += ["--env", f"{key}={value}"]
        return env

    with cleanup() as (containers, volumes):
        for service in ("postgres", "redis"):
            for volume in services[service].get("volumes", []):
                volumes.append(named(volume.split(":")[0]))
        postgres_env = [f"{key}={with_defaults(value)}" for key, value in
                        services["postgres"]["environment"].items()]  # fmt: skip
        containers.append(named("postgres"))
        podman(
            "run", "--detach", "--name", named("postgres"), "--network", "host", *LIMITS,
            *mounts("postgres"), *(f"--env={pair}" for pair in postgres_env),
            "--env", f"PGPORT={postgres_port}",  # the server's and pg_isready's port
            "--health-cmd", health_cmd(services["postgres"]["healthcheck"]["test"]),
            "--health-interval", "disable",
            POSTGRES_IMAGE, "-c", "listen_addresses=127.0.0.1",
        )  # fmt: skip
        redis_test = list(services["redis"]["healthcheck"]["test"])
        assert redis_test[:2] == ["CMD", "redis-cli"]
        redis_test[2:2] = ["-p", str(redis_port)]  # redis-cli's default 6379 is the host's
        containers.append(named("redis"))
        podman(
            "run", "--detach", "--name", named("redis"), "--network", "host", *LIMITS,
            *mounts("redis"), "--health-cmd", health_cmd(redis_test),
            "--health-interval", "disable",
            REDIS_IMAGE, "redis-server", "--bind", "127.0.0.1", "--port", str(redis_port),
            "--dir", "/data",
        )  # fmt: skip
        wait_healthy(named("postgres"))
        wait_healthy(named("redis"))

        migrate = services["migrate"]
        assert migrate["image"] == services["app"]["image"] == "spades:latest"
        migrated = podman(
            "run", "--rm", "--name", named("migrate"), "--network", "host", *LIMITS,
            *app_env("migrate"), IMAGE, *migrate["command"], check=False, timeout=120,
        )  # fmt: skip
        assert migrated.returncode == 0, migrated.stdout[-2000:] + migrated.stderr[-3000:]

        def psql(sql: str) -> str:
            user = with_defaults(services["postgres"]["environment"]["POSTGRES_USER"])
            database = with_defaults(services["postgres"]["environment"]["POSTGRES_DB"])
            return podman(
                "exec", named("postgres"), "psql", "-U", user, "-d", database, "-tAc", sql
            ).stdout.strip()

        from alembic.config import Config
        from alembic.script import ScriptDirectory

        head = ScriptDirectory.from_config(Config(str(ROOT / "alembic.ini"))).get_current_head()
        assert psql("SELECT version_num FROM alembic_version") == head

        app = services["app"]
        [probe] = [part for part in app["healthcheck"]["test"] if "/readyz" in part]
        assert ":8000/" in probe
        containers.append(named("app"))
        podman(
            "run", "--detach", "--name", named("app"), "--network", "host", *LIMITS,
            *app_env("app"),
            "--health-cmd", health_cmd(app["healthcheck"]["test"], app_port),
            "--health-interval", "disable",
            IMAGE, *on_port(images["Config"]["Cmd"], app_port),
        )  # fmt: skip
        base = f"http://127.0.0.1:{app_port}"
        wait_for(f"{base}/healthz", named("app"))
        wait_healthy(named("app"))  # compose's /readyz check: Postgres and Redis answer
        ready = httpx.get(f"{base}/readyz", timeout=10).json()
        assert ready == {"status": "ready", "checks": {"database": "ok", "redis": "ok"}}

        moved = play_a_move(base)
        assert moved["next"]["version"] > moved["version"]
        stored = psql(
            "SELECT a.action FROM actions a JOIN games g ON g.id = a.game_id "
            f"WHERE g.table_id = '{moved['table']}' AND a.seat = 0"
            " ORDER BY a.seq"
        )
        assert json.loads(stored.splitlines()[0]) == moved["action"], "the move is in Postgres"
        listeners = podman(
            "exec", named("redis"), "redis-cli", "-p", str(redis_port),
            "pubsub", "numsub", "spades:table-changed",
        ).stdout.split()  # fmt: skip
        assert listeners == ["spades:table-changed", "1"], "the app listens on Redis"

        assert stop(named("app")) == 0
        for service in ("redis", "postgres"):
            assert stop(named(service)) == 0, podman("logs", named(service)).stderr[-2000:]
