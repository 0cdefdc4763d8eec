"""Hints: the expert bot's choice from the asking seat's own view, for that socket alone.

Nothing is played and nothing changes, so no lock is taken: the view is read at once and
the answer names the version it was made on. Each seat's latest hint is kept on its room by
that version (`Room.hints`): asking again before the table moves gets the same answer,
thought out once in the bots' decision pool. Hints never queue behind or ahead of bots
there: while every decision process is busy, a hint is the basic bot's choice, made at once.
"""

from __future__ import annotations

import asyncio

import structlog

from server.observability import ERRORS
from server.protocol import HintMessage
from server.realtime.bots import bot_decision, quick_decision, saturated
from server.realtime.errors import TableError
from server.realtime.messages import error
from server.realtime.room import Listener, Room
from server.settings import Settings

log = structlog.get_logger(__name__)

# The bot level whose choice a hint shows: the strongest, thinking within its budget in the
# decision pool.
HINT_LEVEL = "expert"


def refusal(room: Room, seat: int | None) -> TableError | None:
    """Why `seat` may not have a hint now; None when it may."""
    if seat is None:
        return TableError("not_seated", "Spectators get no hints; take a seat first.")
    if not room.stored.hosting.hints:
        return TableError("hints_off", "Hints are off at this table.")
    if room.stored.game is None or room.stored.status != "playing":
        return TableError("not_started", "The game has not started yet.")
    if seat not in room.stored.game.turn:
        return TableError("not_your_turn", "A hint waits for your turn.")
    return None


async def hint(
    settings: Settings, room: Room, listener: Listener, hint_id: str | int | None = None
) -> None:
    """Answer a socket's `hint` (or refuse it) on that socket alone."""
    seat, game = listener.seat, room.stored.game
    refused = refusal(room, seat)
    if refused is not None or seat is None or game is None:
        assert refused is not None
        listener.send(error(refused.code, refused.message, hint_id))
        return
    version = room.stored.version
    made = room.tasks.hints.get(seat)
    if made is None or made[0] != version:
        view = game.view(seat)
        if saturated(settings.bot_processes):
            # Bots and timers must not wait behind hints: a busy pool gets no hint to think
            # about, and the asker gets the basic bot's choice at once instead.
            thinking = asyncio.get_running_loop().create_future()
            thinking.set_result(quick_decision(room.stored.rules, view, room.rng))
        else:
            thinking = asyncio.ensure_future(
                bot_decision(settings.bot_processes, room.stored.rules, view, HINT_LEVEL, room.rng)
            )
        made = room.tasks.hints[seat] = (version, thinking)
    try:
        action = await asyncio.shield(made[1])
    except Exception:
        if room.tasks.hints.get(seat) is made:  # the next ask thinks again
            del room.tasks.hints[seat]
        ERRORS.labels(where="hint").inc()
        log.exception("hint failed", table=room.id, version=version, seat=seat)
        listener.send(error("unavailable", "No hint right now; try again.", hint_id))
        return
    listener.send(HintMessage(type="hint", id=hint_id, version=version, action=action))
