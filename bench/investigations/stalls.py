"""What the event loop was doing when it stalled: the table server with a watchdog.

`bench.investigations.stalls:app` is the same app as `server.app:app`; beside it a
thread wakes every few milliseconds and checks the event loop's heartbeat (a callback
the loop runs every `BEAT` seconds). While the loop has not beaten for `STALL_SECONDS`
(default 0.03), the thread samples the loop thread's Python stack, so each sample names
what kept the loop from its other sockets. Garbage collections are timed through
`gc.callbacks`. SIGUSR1 starts the count afresh (send it once the load client has set
up its tables, so that set-up is left out) and SIGUSR2 writes `STALLS_FILE`, as the
server's shutdown does: the stalls (count, total and longest), the collections by
generation, and the sampled stacks, heaviest first, innermost frame last. Measured with
bench/load.py's `--url` and `--pid` (bench/investigations/README.md).
"""

from __future__ import annotations

import asyncio
import gc
import os
import signal
import sys
import threading
import time
import traceback
from collections import Counter
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

from server.app import app as spades_app

BEAT = 0.005
STALL_SECONDS = float(os.environ.get("STALL_SECONDS", "0.03"))
SAMPLE_EVERY = 0.005
# STALLS_GC_MIDDLE=n: the collector's middle threshold for this run (the server keeps it).
if os.environ.get("STALLS_GC_MIDDLE"):
    _young, _middle, _old = gc.get_threshold()
    gc.set_threshold(_young, int(os.environ["STALLS_GC_MIDDLE"]), _old)
# STALLS_TYPES=1: count the types of what a young collection finds in the young generation.
TYPES = os.environ.get("STALLS_TYPES") == "1"


class Watchdog:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.beat = time.monotonic()
        self.loop_thread = threading.get_ident()
        self.stop = threading.Event()
        self.samples: Counter[tuple[str, ...]] = Counter()
        self.stalls: list[float] = []
        self.collections: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self.gc_started = 0.0
        self.young_types: Counter[str] = Counter()

    def reset(self) -> None:
        self.samples.clear()
        self.stalls.clear()
        self.young_types.clear()
        for times in self.collections.values():
            times.clear()

    def on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            if TYPES and info["generation"] == 0:
                self.young_types.update(type(o).__qualname__ for o in gc.get_objects(0))
            self.gc_started = time.perf_counter()
        else:
            self.collections[info["generation"]].append(time.perf_counter() - self.gc_started)

    async def heartbeat(self) -> None:
        while not self.stop.is_set():
            self.beat = time.monotonic()
            await asyncio.sleep(BEAT)

    def watch(self) -> None:
        stalled_since: float | None = None
        while not self.stop.wait(SAMPLE_EVERY):
            now = time.monotonic()
            late = now - self.beat
            if late < STALL_SECONDS + BEAT:
                if stalled_since is not None:
                    self.stalls.append(now - stalled_since)
                    stalled_since = None
                continue
            if stalled_since is None:
                stalled_since = self.beat
            frame = sys._current_frames().get(self.loop_thread)
            if frame is not None:
                stack = tuple(
                    f"{Path(entry.filename).name}:{entry.lineno} {entry.name}"
                    for entry in traceback.extract_stack(frame)[-14:]
                )
                self.samples[stack] += 1

    def report(self) -> str:
        lines = [
            f"stalls over {STALL_SECONDS * 1000:.0f} ms: {len(self.stalls)}, "
            f"total {sum(self.stalls):.2f} s, longest {max(self.stalls, default=0) * 1000:.0f} ms"
        ]
        for generation, times in self.collections.items():
            lines.append(
                f"gc generation {generation}: {len(times)} collections, "
                f"total {sum(times) * 1000:.0f} ms, longest {max(times, default=0) * 1000:.1f} ms"
            )
        young = Counter(type(o).__qualname__ for o in gc.get_objects(0))
        lines.append(
            f"young generation now: {sum(young.values())} objects (gc.get_count() {gc.get_count()})"
        )
        lines.extend(f"    {n:>8} {name}" for name, n in young.most_common(25))
        if self.young_types:
            lines.append("young generation at its collections, by type:")
            lines.extend(f"    {n:>8} {name}" for name, n in self.young_types.most_common(30))
        total = sum(self.samples.values())
        lines.append(f"{total} stack samples during stalls, every {SAMPLE_EVERY * 1000:.0f} ms")
        for stack, count in self.samples.most_common(40):
            lines.append(f"\n{count} samples ({100 * count / max(total, 1):.1f} %)")
            lines.extend(f"    {entry}" for entry in stack)
        return "\n".join(lines) + "\n"


class App:
    """The table server's ASGI app, with the watchdog started and stopped by its lifespan."""

    def __init__(self) -> None:
        self.watchdog: Watchdog | None = None

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "lifespan":
            await spades_app(scope, receive, send)
            return

        async def wrapped_send(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "lifespan.startup.complete":
                self.start()
            elif message["type"] == "lifespan.shutdown.complete":
                self.finish()
            await send(message)

        await spades_app(scope, receive, wrapped_send)

    def start(self) -> None:
        watchdog = self.watchdog = Watchdog(Path(os.environ.get("STALLS_FILE", "stalls.txt")))
        gc.callbacks.append(watchdog.on_gc)
        self.beat_task = asyncio.get_running_loop().create_task(watchdog.heartbeat())
        threading.Thread(target=watchdog.watch, name="stall-watchdog", daemon=True).start()
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGUSR1, watchdog.reset)
        loop.add_signal_handler(signal.SIGUSR2, self.write)

    def write(self) -> None:
        if self.watchdog is not None:
            self.watchdog.path.write_text(self.watchdog.report())

    def finish(self) -> None:
        if self.watchdog is not None:
            self.write()
            self.watchdog.stop.set()


app = App()
