"""The runtime image's file set, assembled without Docker, serves the app.

No Docker daemon runs here. This lays out what the Dockerfile's runtime stage copies
(COPY sources into a fresh /app stand-in), applies its ENV (with /app mapped to that
directory), runs its CMD and then its HEALTHCHECK command. It proves that the copied files
are enough: web/ and migrations/ are found next to the package, SQLite lands in the
data volume, and the health check passes against the server that CMD starts.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import httpx
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


def stages() -> dict[str, list[tuple[str, str]]]:
    """Instructions of each stage by name ('' for instructions before the first FROM)."""
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    by_stage: dict[str, list[tuple[str, str]]] = {"": []}
    current = ""
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        instruction, _, arguments = line.partition(" ")
        if instruction.upper() == "FROM":
            current = arguments.split()[-1]
            by_stage[current] = []
        by_stage[current].append((instruction.upper(), arguments.strip()))
    return by_stage


def arguments_of(stage: list[tuple[str, str]], instruction: str) -> list[str]:
    return [arguments for name, arguments in stage if name == instruction]


def test_wheels_stage_builds_every_dependency_of_pyproject(tmp_path):
    [run] = arguments_of(stages()["wheels"], "RUN")
    extract, _, _ = run.partition(" && ")
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"  # python 3.11
    subprocess.run(extract, shell=True, cwd=tmp_path, check=True, env={**os.environ, "PATH": path})
    requirements = (tmp_path / "requirements.txt").read_text().split("\n")
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert [line for line in requirements if line] == dependencies


@pytest.mark.slow
def test_runtime_stage_files_serve_the_app_and_pass_the_healthcheck(tmp_path, free_port):
    runtime = stages()["runtime"]
    app_dir = tmp_path / "app"
    app_dir.mkdir()
    (app_dir / "data").mkdir()  # the RUN step creates it for the non-root user
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for arguments in arguments_of(runtime, "COPY"):
        *sources, target = [word for word in shlex.split(arguments) if not word.startswith("--")]
        for source in sources:
            destination = app_dir / target.removeprefix("./") if target != "./" else app_dir
            if (ROOT / source).is_dir():
                shutil.copytree(ROOT / source, destination, ignore=ignore)
            else:
                shutil.copy(ROOT / source, destination)

    env = {k: v for k, v in os.environ.items() if not k.startswith("SPADES_")}
    env.pop("DATABASE_URL", None)
    env.pop("REDIS_URL", None)
    for arguments in arguments_of(runtime, "ENV"):
        for pair in shlex.split(arguments):
            name, _, value = pair.partition("=")
            env[name] = value.replace("/app", str(app_dir))
    [workdir] = arguments_of(runtime, "WORKDIR")
    assert workdir == "/app"
    imported = subprocess.run(
        [sys.executable, "-c", "import server; print(server.__file__)"],
        cwd=app_dir, env=env, capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    assert imported == str(app_dir / "server" / "__init__.py"), "the copied server/ is used"

    [cmd] = arguments_of(runtime, "CMD")
    command = yaml.safe_load(cmd)
    assert command[0] == "python"
    command[0] = sys.executable  # the image's python has the same dependencies installed
    command[command.index("--port") + 1] = str(free_port)
    command[command.index("--host") + 1] = "127.0.0.1"
    server = subprocess.Popen(
        command, cwd=app_dir, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    try:
        assert server.stdout is not None
        announced = server.stdout.readline().strip()  # printed once it accepts connections
        assert announced == f"Spades is running: open http://127.0.0.1:{free_port}/"

        lobby = httpx.get(f"http://127.0.0.1:{free_port}/", timeout=10)
        assert lobby.status_code == 200 and "<html" in lobby.text.lower()
        assert (app_dir / "data" / "spades.db").is_file(), "SQLite lives in the data volume"

        [healthcheck] = arguments_of(runtime, "HEALTHCHECK")
        probe = yaml.safe_load(healthcheck.split(" CMD ", 1)[1])
        probe = [sys.executable, *probe[1:]]
        probe[-1] = probe[-1].replace(":8000/", f":{free_port}/")
        started = time.monotonic()
        assert subprocess.run(probe, env=env, timeout=10).returncode == 0
        assert time.monotonic() - started < 3, "inside the HEALTHCHECK --timeout"
    finally:
        server.terminate()
        assert server.wait(30) == 0
    stopped = subprocess.run(probe, env=env, timeout=10, capture_output=True)
    assert stopped.returncode != 0, "the health check fails when nothing serves"
