"""The bots' decisions, made away from the event loop: a pool of decision processes.

An advanced or expert decision takes tens to hundreds of milliseconds, which other
tables' moves should not wait for, whatever the GIL: each is made in a decision process
(`bot_decision`), or with no processes configured in a worker thread. Bot moves, the turn
timer's moves and hints all ask here.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import random
import threading
import time
from concurrent.futures import BrokenExecutor, ProcessPoolExecutor

import structlog

from server.engine import Action, Game, Rules, View
from server.observability import ERRORS

log = structlog.get_logger(__name__)


# The bot decision processes of this server process, by pool size (settings.bot_processes):
# made when the first hub starts (or at the first decision), shared by every hub, ended
# with the interpreter.
POOLS: dict[int, ProcessPoolExecutor] = {}


def decide(rules: Rules, view: View, level: str, seed: int) -> Action:
    """One bot decision, in a decision process: everything it needs comes pickled, the rng
    as a seed drawn from the room's own."""
    from server.engine.bots import choose_action

    return choose_action(rules, view, level, random.Random(seed))


def watch_server(server: int, every: float = 1.0) -> None:
    """A decision process's initializer: the process ends once the server process that
    made its pool is gone. A server killed outright (SIGKILL, the OOM killer) cannot shut
    its pool down, and its decision processes, each holding the forkserver open, would
    otherwise wait for work forever."""

    def watch() -> None:
        while True:
            time.sleep(every)
            try:
                os.kill(server, 0)
            except ProcessLookupError:
                os._exit(0)

    threading.Thread(target=watch, name="watch-server", daemon=True).start()


def warm(pool: ProcessPoolExecutor, processes: int) -> None:
    """Start every one of `pool`'s decision processes now (blocking: run it in a thread),
    so that no bot move after a start-up waits for the forkserver, its imports or a fork.
    The pool starts a process for each task submitted while none is idle: `processes` tasks
    at once (the pool's size) start them all."""
    for done in [pool.submit(int) for _ in range(processes)]:
        done.result()


def decision_pool(size: int) -> ProcessPoolExecutor:
    pool = POOLS.get(size)
    if pool is None:
        # forkserver: workers fork from a clean process that imported the bots once, not
        # from this one with its threads and sockets.
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["server.engine.bots"])
        pool = POOLS[size] = ProcessPoolExecutor(
            size, mp_context=context, initializer=watch_server, initargs=(os.getpid(),)
        )
    return pool


class Thinking:
    """How many decisions are under way in this process's pool now."""

    count = 0


def saturated(processes: int) -> bool:
    """Whether every decision process (or the one worker thread) is busy: a new decision
    would wait for another's."""
    return Thinking.count >= max(processes, 1)


def quick_decision(rules: Rules, view: View, rng: random.Random) -> Action:
    """The basic bot's choice, made at once on the event loop (a fraction of a millisecond):
    for when the pool is busy and an answer must not wait."""
    return decide(rules, view, "basic", rng.getrandbits(64))


async def bot_decision(
    processes: int, rules: Rules, view: View, level: str, rng: random.Random
) -> Action:
    """A bot's action for `view`, made away from the event loop: in a decision process
    (a thinking bot holds no other table up, whatever the GIL), or with `processes` 0 in
    a worker thread. A pool whose process died is made again for the next decision."""
    Thinking.count += 1
    try:
        return await decision(processes, rules, view, level, rng.getrandbits(64))
    finally:
        Thinking.count -= 1


async def decision(processes: int, rules: Rules, view: View, level: str, seed: int) -> Action:
    if processes <= 0:
        return await asyncio.to_thread(decide, rules, view, level, seed)
    loop = asyncio.get_running_loop()
    try:
        return await loop.run_in_executor(
            decision_pool(processes), decide, rules, view, level, seed
        )
    except BrokenExecutor:
        ERRORS.labels(where="bot_pool").inc()
        log.warning("bot decision process died; the pool is made again")
        POOLS.pop(processes, None)
        return await asyncio.to_thread(decide, rules, view, level, seed)


def first_legal(game: Game, seat: int) -> Action:
    """An action the engine accepts from `seat` now, for when a bot's own choice failed.
    The pass is listed as a count of cards to choose (`{"type": "pass", "count": n}`):
    the first n cards of the hand are passed."""
    action = game.legal(seat)[0]
    if action["type"] == "pass" and "cards" not in action:
        hand = game.view(seat)["hand"]
        return {"type": "pass", "cards": list(hand[: action["count"]])}
    return action
