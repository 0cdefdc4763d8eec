"""Timing a bot's decisions in a test: its own CPU, not the test process's.

The CPU time is the calling thread's (`time.thread_time_ns`: a decision runs in it), so
that no other thread of the test process counts. And `heap_frozen` hides what the test
process holds by then, hundreds of tests' objects, from the collector while decisions
are timed: a full collection of it is paid by whichever allocation triggers it (2 million
lists take about 140 ms to walk here). A CI run once measured one expert decision, of a
hand whose others took about 21 ms, at 96 ms of the process's CPU. A server's bot decides
in a process of its own (the decision pool), whose heap is small.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def heap_frozen() -> Iterator[None]:
    """The objects alive now, out of the collector's sight until the block ends (the
    collector still runs, on what the block makes)."""
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
