"""The README's quick start, followed literally in a fresh copy of the work tree.

Line 1 installs into a new virtualenv and serves; we run its install part as written,
start its last command, wait for the URL it prints, and load the lobby from that URL.
Line 2 must be the command CI runs (`.ci/run` execs it).
"""

from __future__ import annotations

import os
import queue
import re
import shlex
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
URL_LINE = re.compile(r"^Spades is running: open (http://\S+)$")

pytestmark = pytest.mark.slow


def quick_start_lines() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    [block] = re.findall(r"```sh\n(.*?)```", section, re.DOTALL)
    return [line for line in block.splitlines() if line.strip()]


def copy_work_tree(destination: Path) -> None:
    """Every file git would clone, plus new files not yet committed; nothing ignored."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, check=True,
    ).stdout.decode().split("\0")  # fmt: skip
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            target = destination / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


def clean_env(**extra: str) -> dict[str, str]:
    """The caller's environment minus anything that would point at our own venv or DBs."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "DATABASE_URL", "REDIS_URL")
        and not key.startswith("SPADES_")
    }
    venv_bin = str(ROOT / ".venv" / "bin")
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if p != venv_bin)
    return {**env, **extra}


def forward_lines(stream, lines: queue.Queue[str]) -> None:
    for line in stream:
        lines.put(line)


def test_quick_start_has_two_lines_and_the_second_is_what_ci_runs():
    install_and_serve, test_command = quick_start_lines()
    assert install_and_serve == (
        "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/spades serve"
    )
    assert test_command == "scripts/test"
    ci_lines = (ROOT / ".ci" / "run").read_text().splitlines()
    assert f"exec {test_command}" in [line.strip() for line in ci_lines]
    assert os.access(ROOT / test_command, os.X_OK)


@pytest.mark.timeout(900)
def test_quick_start_first_line_installs_and_serves_the_lobby(tmp_path, free_port):
    first_line, _ = quick_start_lines()
    *install_steps, serve_command = first_line.split(" && ")
    tree = tmp_path / "spades"
    copy_work_tree(tree)
    env = clean_env(SPADES_PORT=str(free_port))  # the default 8000 may be taken on a CI box

    started = time.monotonic()
    install = subprocess.run(
        " && ".join(install_steps), shell=True, cwd=tree, env=env,
        capture_output=True, text=True, timeout=840,
    )  # fmt: skip
    install_seconds = time.monotonic() - started
    assert install.returncode == 0, install.stdout[-3000:] + install.stderr[-3000:]

    server = subprocess.Popen(
        shlex.split(serve_command), cwd=tree, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=forward_lines, args=(server.stdout, lines), daemon=True).start()
    try:
        url = None
        deadline = time.monotonic() + 60
        while url is None and time.monotonic() < deadline and server.poll() is None:
            try:
                match = URL_LINE.match(lines.get(timeout=1).strip())
            except queue.Empty:
                continue
            url = match and match[1]
        assert url == f"http://127.0.0.1:{free_port}/", f"no URL printed (exit {server.poll()})"

        lobby = httpx.get(url, timeout=10)
        assert lobby.status_code == 200
        assert lobby.headers["content-type"].startswith("text/html")
        assert "<html" in lobby.text.lower()
        assert (tree / "data" / "spades.db").is_file(), "the default setup serves on SQLite"
    finally:
        server.send_signal(signal.SIGTERM)
        returncode = server.wait(30)
    assert returncode == 0
    print(f"quick start install: {install_seconds:.1f}s")
