"""The image's two stages, played without Docker, build a wheel that serves the app.

No Docker daemon runs here. This copies what the Dockerfile's `wheels` stage copies into
a fresh build folder and runs its last RUN (the project's wheel), installs that wheel as
the runtime stage does (into a folder of its own, the dependencies being this
environment's), applies the runtime ENV (with /app mapped to an empty stand-in), runs its
CMD there and then its HEALTHCHECK command. It proves that the build stage copies enough
to build the wheel, that the runtime needs no source tree (web/ and migrations/ come from
the installed package), that SQLite lands in the data volume, and that the health check
passes against the server that CMD starts.
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

from tests.ops.conftest import ROOT, build_wheel


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


def copy_sources(stage: list[tuple[str, str]], into: Path) -> None:
    """The stage's COPY instructions (from the build context, the repo) into `into`."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for arguments in arguments_of(stage, "COPY"):
        if "--from=" in arguments:
            continue
        *sources, target = [word for word in shlex.split(arguments) if not word.startswith("--")]
        for source in sources:
            destination = into / target.removeprefix("./") if target != "./" else into
            if (ROOT / source).is_dir():
                shutil.copytree(ROOT / source, destination, ignore=ignore)
            else:
                shutil.copy(ROOT / source, destination)


def test_wheels_stage_builds_every_dependency_of_pyproject(tmp_path):
    dependencies_run, _project_run = arguments_of(stages()["wheels"], "RUN")
    extract, _, _ = dependencies_run.partition(" && ")
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"  # python 3.11
    subprocess.run(extract, shell=True, cwd=tmp_path, check=True, env={**os.environ, "PATH": path})
    requirements = (tmp_path / "requirements.txt").read_text().split("\n")
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert [line for line in requirements if line] == dependencies


def test_runtime_stage_copies_no_source_and_installs_the_project_wheel():
    runtime = stages()["runtime"]
    from_context = [copy for copy in arguments_of(runtime, "COPY") if "--from=" not in copy]
    assert not from_context, "the runtime holds the installed package only"
    # Only the wheels' checksums come from the wheels stage (they key the install's layer).
    assert arguments_of(runtime, "COPY") == ["--from=wheels /wheels/SHA256SUMS /tmp/wheels.sha256"]
    [install] = [run for run in arguments_of(runtime, "RUN") if "pip install" in run]
    assert "/wheels/spades_table-*.whl" in install and "--no-index" in install
    assert not any("PYTHONPATH" in env for env in arguments_of(runtime, "ENV"))


@pytest.mark.slow
def test_runtime_stage_installs_a_wheel_that_serves_the_app_and_passes_the_healthcheck(
    tmp_path, free_port
):
    build = tmp_path / "build"
    build.mkdir()
    copy_sources(stages()["wheels"], build)
    _dependencies_run, project_run = arguments_of(stages()["wheels"], "RUN")
    wheel_step, _, checksums = project_run.partition(" && ")
    assert wheel_step.startswith("pip wheel ") and wheel_step.rstrip().endswith(" .")
    assert checksums.startswith("sha256sum /wheels/*.whl")
    wheel = build_wheel(build, tmp_path / "wheels")
    site = tmp_path / "site"  # the image's site-packages; its dependencies are ours
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
         "--target", str(site), str(wheel)],
        check=True, timeout=300,
    )  # fmt: skip

    runtime = stages()["runtime"]
    app_dir = tmp_path / "app"
    app_dir.mkdir()
    (app_dir / "data").mkdir()  # the RUN step creates it for the non-root user
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPADES_")}
    env.pop("DATABASE_URL", None)
    env.pop("REDIS_URL", None)
    for arguments in arguments_of(runtime, "ENV"):
        for pair in shlex.split(arguments):
            name, _, value = pair.partition("=")
            env[name] = value.replace("/app", str(app_dir))
    env["PYTHONPATH"] = str(site)  # ahead of this environment's editable install
    [workdir] = arguments_of(runtime, "WORKDIR")
    assert workdir == "/app"
    imported = subprocess.run(
        [sys.executable, "-c", "import server; print(server.__file__)"],
        cwd=app_dir, env=env, capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    assert imported == str(site / "server" / "__init__.py"), "the installed wheel is used"

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
        assert lobby.status_code == 200 and "<html" in lobby.text.lower(), "web/ is installed"
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
