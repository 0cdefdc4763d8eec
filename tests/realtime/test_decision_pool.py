"""The bot decision pool does not outlive its server: a SIGKILLed server's decision
processes (and the forkserver they hold open) end by themselves."""

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
from server.realtime.autoplay import decision_pool
pool = decision_pool(1)
print(pool.submit(os.getpid).result(), flush=True)
time.sleep(120)
"""


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
