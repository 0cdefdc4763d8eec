"""The bot decision pool starts with its server, every process of it; and it does not
outlive its server: a SIGKILLed server's decision processes (and the
forkserver they hold open) end by themselves."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SERVER = """
import os, sys, time
from server.realtime.bots import decision_pool
pool = decision_pool(1)
print(pool.submit(os.getpid).result(), flush=True)
time.sleep(120)
"""


STARTED = """
import asyncio, multiprocessing, sys, time
from server.app import create_app
from server.settings import Settings

async def main():
    settings = Settings(DATABASE_URL="sqlite+aiosqlite:///" + sys.argv[1], REDIS_URL=None,
                        bot_processes=3, log_level="WARNING")
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        deadline = time.monotonic() + 30
        while len(multiprocessing.active_children()) < 3 and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        # The server's child processes (its decision processes, the pool's only ones):
        # nothing has been asked of the pool yet.
        print(" ".join(str(p.pid) for p in multiprocessing.active_children()), flush=True)

asyncio.run(main())
"""


def test_every_decision_process_starts_with_the_server(tmp_path: Path):
    """The pool started one process at its first task, and the others only when a task
    found them all busy: a second table's first decision waited for a process to start
    (200 ms and more)."""
    started = subprocess.run(
        [sys.executable, "-c", STARTED, str(tmp_path / "spades.db")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert started.returncode == 0, started.stderr
    workers = [int(pid) for pid in started.stdout.split()]
    assert len(workers) == 3


def alive(pid: int) -> bool:
    """Running, not merely a zombie waiting for its parent."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def test_a_killed_servers_decision_processes_end_by_themselves():
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        worker = int(server.stdout.readline())
        assert worker != server.pid and alive(worker)
        server.send_signal(signal.SIGKILL)
        server.wait(10)
        deadline = time.monotonic() + 10
        while alive(worker) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not alive(worker), "the decision process outlived its server"
    finally:
        if server.poll() is None:
            server.kill()
        if "worker" in locals() and alive(worker):
            os.kill(worker, signal.SIGKILL)
