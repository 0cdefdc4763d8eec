"""The garbage collector, tuned for a server that keeps many tables in memory.

Reference counting frees almost everything a move allocates (views, messages, frames); the
cyclic collector only finds the rest. Its default first threshold (700 allocations)
makes it run hundreds of times a second under load, and each full collection walks every
object of every room and socket: at 1,000 tables that stops the event loop for about a
second. So the first threshold is raised (`settings.gc_threshold`), and what start-up
made (modules, the app, the rooms resumed) is moved out of the collector's sight once
(`gc.freeze`), so that full collections walk only what came later.
"""

from __future__ import annotations

import gc

from server.settings import Settings

_frozen = False


def tune(settings: Settings) -> None:
    """Raise the collector's first threshold and, once per process, freeze what start-up
    made (after a collection, so that no garbage is frozen with it)."""
    global _frozen
    if settings.gc_threshold > 0:
        _young, middle, old = gc.get_threshold()
        gc.set_threshold(settings.gc_threshold, middle, old)
    if settings.gc_freeze and not _frozen:
        gc.collect()
        gc.freeze()
        _frozen = True
