"""The expert's thinking budget: how much CPU time a decision may spend imagining deals
(``SPADES_BOT_BUDGET_MS``), and when it stops (``Deadline``). The budget counts the
thread's own CPU time, so a busy machine slows the expert without weakening it; the
wall clock only caps it."""

from __future__ import annotations

import os
import time

BUDGET_VARIABLE = "SPADES_BOT_BUDGET_MS"
DEFAULT_BUDGET_MS = 150.0
# Imagining stops once this share of the budget (CPU time) is spent, and before a deal
# that the average deal so far says would overrun it: the rest is for building the view
# and sending the move.
BUDGET_SHARE = 0.7
# However starved of CPU the thinking thread is, it answers within this many budgets of
# wall time (once it has its floor of deals).
WALL_CAP = 3.0
# The floor of deals imagined whatever the clocks.
MIN_SAMPLES = 6


def budget_seconds() -> float:
    """The CPU time per decision: ``SPADES_BOT_BUDGET_MS`` (milliseconds) or 150 ms."""
    raw = os.environ.get(BUDGET_VARIABLE)
    try:
        return (float(raw) if raw else DEFAULT_BUDGET_MS) / 1000
    except ValueError:
        return DEFAULT_BUDGET_MS / 1000


class Deadline:
    """When a decision stops imagining deals: after exactly ``samples`` deals if given,
    else when the next deal would overrun the share of the budget in the thread's own CPU
    time (``time.thread_time``), or at the wall-time cap; at least ``MIN_SAMPLES`` deals,
    at most the caller's cap."""

    def __init__(self, budget: float, samples: int | None) -> None:
        self.samples = samples
        self.start = time.thread_time()
        self.stop = self.start + budget * BUDGET_SHARE
        self.end = self.start + budget
        self.wall_end = time.perf_counter() + budget * WALL_CAP

    def passed(self, count: int) -> bool:
        """Whether the whole budget, or the wall-time cap, is spent once ``count`` deals
        are imagined (never, when counting ``samples``, nor below the floor)."""
        if self.samples is not None or count < MIN_SAMPLES:
            return False
        return time.thread_time() > self.end or time.perf_counter() > self.wall_end

    def more(self, count: int, cap: int) -> bool:
        if self.samples is not None:
            return count < max(self.samples, 1)
        if count < MIN_SAMPLES:
            return True
        if count >= cap or time.perf_counter() > self.wall_end:
            return False
        now = time.thread_time()
        return now + (now - self.start) / count <= self.stop
