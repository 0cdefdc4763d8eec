"""Moves nobody at the table makes by hand: bots, stand-ins for away players, the turn timer.

One task per room (`Autoplay.schedule`) plays every bot turn, one action at a time, until
a person must act. With several processes only the holder of the table's bot claim acts
(`TableNotices.claim_bots`, a Redis lock that expires unless renewed); the others stand
by, their rooms following through notices, and take over when the claim is let go or
expires. When the turn timer's deadline passes (`schedule_timer`), the same driver makes
the move for the seat on turn; two timed-out moves in a row put the seat on autoplay
(`seat_after`) until its player acts again.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import random
import threading
import time
from concurrent.futures import BrokenExecutor, ProcessPoolExecutor
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any, cast

import structlog

from server.engine import Game, Rules, View
from server.observability import BOT_DECISIONS, ERRORS
from server.realtime.errors import TableError
from server.realtime.hosting import TIMEOUTS_TO_AUTOPLAY, utcnow
from server.realtime.room import Room
from server.store.repository import SeatRecord, VersionConflict

if TYPE_CHECKING:
    from server.realtime.hub import TableHub

log = structlog.get_logger(__name__)

# How long a process's claim to drive a table's bots lasts unless renewed (plus bot_delay).
BOT_CLAIM_SECONDS = 5.0


# The bot decision processes of this server process, by pool size (settings.bot_processes):
# made when the first hub starts (or at the first decision), shared by every hub, ended
# with the interpreter.
_POOLS: dict[int, ProcessPoolExecutor] = {}


def decide(rules: Rules, view: View, level: str, seed: int) -> dict[str, Any]:
    """One bot decision, in a decision process: everything it needs comes pickled, the rng
    as a seed drawn from the room's own."""
    from server.engine.bots import choose_action

    return dict(choose_action(rules, view, level, random.Random(seed)))


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
    pool = _POOLS.get(size)
    if pool is None:
        # forkserver: workers fork from a clean process that imported the bots once, not
        # from this one with its threads and sockets.
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["server.engine.bots"])
        pool = _POOLS[size] = ProcessPoolExecutor(
            size, mp_context=context, initializer=watch_server, initargs=(os.getpid(),)
        )
    return pool


async def bot_decision(
    processes: int, rules: Rules, view: View, level: str, rng: random.Random
) -> dict[str, Any]:
    """A bot's action for `view`, made away from the event loop: in a decision process
    (a thinking bot holds no other table up, whatever the GIL), or with `processes` 0 in
    a worker thread. A pool whose process died is made again for the next decision."""
    seed = rng.getrandbits(64)
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
        _POOLS.pop(processes, None)
        return await asyncio.to_thread(decide, rules, view, level, seed)


def playing_again(current: SeatRecord) -> SeatRecord:
    """The seat's player plays for themselves: no bot, no timed-out moves counted."""
    return replace(current, timeouts=0, autoplay=False, autoplay_reason=None)


def seat_after(current: SeatRecord, cause: str | None) -> SeatRecord | None:
    """The seat's record after a move (None: unchanged): a timed-out move counts, and the
    second in a row puts the seat on autoplay; the player's own move clears both."""
    if current.bot is not None or cause == "autoplay":
        return None
    if cause == "timer":
        timeouts = current.timeouts + 1
        if timeouts >= TIMEOUTS_TO_AUTOPLAY:
            return replace(current, timeouts=timeouts, autoplay=True, autoplay_reason="timer")
        return replace(current, timeouts=timeouts)
    if current.timeouts or current.autoplay:
        return playing_again(current)
    return None


def first_legal(game: Game, seat: int) -> dict[str, Any]:
    """An action the engine accepts from `seat` now, for when a bot's own choice failed.
    The pass is listed as a count of cards to choose (`{"type": "pass", "count": n}`):
    the first n cards of the hand are passed."""
    action = game.legal(seat)[0]
    if action["type"] == "pass" and "cards" not in action:
        hand = game.view(seat)["hand"]
        return {"type": "pass", "cards": list(hand[: action["count"]])}
    return cast("dict[str, Any]", action)


class Autoplay:
    """The bot driver and the turn timer of one hub's rooms."""

    def __init__(self, hub: TableHub) -> None:
        self.hub = hub
        self.settings = hub.settings
        self.notices = hub.notices

    def schedule(self, room: Room) -> None:
        """Start the room's bot driver when a bot must act (or nudge one standing by)."""
        if self.hub.closing or room.evicted or room.bot_seat() is None:
            return
        if room.bot_task is None or room.bot_task.done():
            room.bot_task = asyncio.create_task(self._drive(room))
        else:
            room.bot_nudge.set()  # a task standing by for another process looks again

    async def _drive(self, room: Room) -> None:
        """Play every bot turn of a table, one action at a time, until a person must act;
        with several processes, only while holding the table's bot claim."""
        claim = BOT_CLAIM_SECONDS + self.settings.bot_delay
        driving = False
        try:
            while not self.hub.closing:
                room.bot_nudge.clear()
                pending = room.bot_seat()
                if pending is None or pending[2] != "timer":
                    # A bot pauses like a person would; a timed-out move has waited enough.
                    await asyncio.sleep(self.settings.bot_delay)
                driving = await self.notices.claim_bots(room.id, claim)
                async with room.lock:
                    turn = None if room.evicted else room.bot_seat()
                    going = turn is not None
                    if turn is not None and driving:
                        going = await self._turn(room, *turn)
                    if not going:
                        if driving:
                            await self.notices.release_bots(room.id)
                            driving = False
                        room.bot_task = None
                        return
                if not driving:
                    # Look again when the table changes, or when the claim may have expired.
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(claim / 2):
                            await room.bot_nudge.wait()
        finally:
            if driving:  # cancelled at shutdown: let another process take over at once
                await self.notices.release_bots(room.id)

    async def _turn(self, room: Room, seat: int, level: str, cause: str | None) -> bool:
        """One bot action, under the room's lock; False when the bots must stop."""
        assert room.game is not None
        view = room.game.view(seat)
        try:
            # Away from the event loop: an advanced or expert decision takes tens to
            # hundreds of milliseconds, which other tables' moves should not wait for.
            # The room stays locked meanwhile; the bot reads only its view (a fresh dict).
            started = time.perf_counter()
            action = await bot_decision(
                self.settings.bot_processes, room.rules, view, level, room.rng
            )
            BOT_DECISIONS.labels(level=level, phase=view["phase"]).observe(
                time.perf_counter() - started
            )
        except Exception:
            ERRORS.labels(where="bot").inc()
            log.exception("bot failed", table=room.id, version=room.version)
            action = first_legal(room.game, seat)
        try:
            await self._act(room, seat, action, cause)
        except VersionConflict:
            log.info("version conflict", table=room.id, version=room.version, seat=seat)
            await self.hub._reload(room)
        except TableError:
            return False
        return True

    async def _act(self, room: Room, seat: int, action: dict[str, Any], cause: str | None) -> None:
        """Apply a bot's choice; a refused choice is a bot bug: play the first legal action."""
        try:
            await self.hub._apply(room, seat, action, cause)
        except TableError as refusal:
            if room.evicted:  # the write failed and the room was dropped (`_forget`)
                raise
            ERRORS.labels(where="bot").inc()
            log.error("bot refused", table=room.id, version=room.version, code=refusal.code)
            assert room.game is not None
            await self.hub._apply(room, seat, first_legal(room.game, seat), cause)

    # -- the turn timer --------------------------------------------------------------

    def schedule_timer(self, room: Room) -> None:
        """Wake the bots when the current deadline passes (a new deadline replaces the
        wait for the old one)."""
        deadline = room.hosting.deadline
        task = room.timer_task
        if task is not None and not task.done():
            if getattr(task, "deadline", None) == deadline:
                return
            task.cancel()
        room.timer_task = None
        if self.hub.closing or room.evicted or deadline is None or room.status != "playing":
            return
        room.timer_task = asyncio.create_task(self._await_deadline(room, deadline))
        room.timer_task.deadline = deadline  # type: ignore[attr-defined]

    async def _await_deadline(self, room: Room, deadline: datetime) -> None:
        # The event loop's clock and the wall clock drift apart: wait until the wall clock
        # has passed the deadline, then let the bot driver make the move.
        while (left := (deadline - utcnow()).total_seconds()) >= 0:
            await asyncio.sleep(left + 0.01)
        self.schedule(room)
