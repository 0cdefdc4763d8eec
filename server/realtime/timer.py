"""The turn timer: its limits, the deadline of each turn, and the moves it made. Pure.

With a turn timer, the seats on turn must act by a deadline; when it passes a bot makes
the move (the bot driver wakes for it), and after `TIMEOUTS_TO_AUTOPLAY` timed-out moves in
a row the seat goes to autoplay (`server.realtime.seats.after_move`). Everyone sees which
moves the timer made in the current hand (`public_move`), never a private choice.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from server.protocol import TimerMove

TURN_SECONDS_MIN = 5
TURN_SECONDS_MAX = 300
TIMEOUTS_TO_AUTOPLAY = 2


def utcnow() -> datetime:
    return datetime.now(UTC)


def next_deadline(
    turn_seconds: int | None,
    deadline: datetime | None,
    turn_before: list[int],
    actor: int,
    turn_after: list[int],
    now: datetime,
) -> datetime | None:
    """The deadline after `actor` acted: the clock restarts whenever a seat comes to act;
    seats that were already waiting together (blind nil, the pass) keep their deadline.

    >>> now = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)
    >>> later = now + timedelta(seconds=9)
    >>> next_deadline(30, now, [1], 1, [2], later) == later + timedelta(seconds=30)
    True
    >>> next_deadline(30, now, [0, 1, 2, 3], 1, [0, 2, 3], later) == now
    True
    >>> next_deadline(None, None, [1], 1, [2], later) is None
    True
    >>> next_deadline(30, now, [1], 1, [], later) is None
    True
    """
    if turn_seconds is None or not turn_after:
        return None
    still_waiting = set(turn_before) - {actor}
    if deadline is not None and set(turn_after) <= still_waiting:
        return deadline
    return now + timedelta(seconds=turn_seconds)


def fresh_deadline(turn_seconds: int | None, turn: list[int], now: datetime) -> datetime | None:
    """The deadline of a turn that starts now (a new game, a changed timer)."""
    if turn_seconds is None or not turn:
        return None
    return now + timedelta(seconds=turn_seconds)


def public_move(seat: int, action: Mapping[str, Any]) -> TimerMove:
    """A move the timer made, as everyone may see it: the cards of a pass, a draw's choice
    and a blind nil decision (shown by the table when the rules reveal it) are private.

    >>> public_move(1, {"type": "play", "card": "5H"})
    {'seat': 1, 'action': {'type': 'play', 'card': '5H'}}
    >>> public_move(2, {"type": "pass", "cards": ["AS", "2C"]})
    {'seat': 2, 'action': {'type': 'pass'}}
    """
    if action["type"] == "bid":
        return {"seat": seat, "action": {"type": "bid", "bid": action["bid"]}}
    if action["type"] == "play":
        return {"seat": seat, "action": {"type": "play", "card": action["card"]}}
    return {"seat": seat, "action": {"type": action["type"]}}


def iso_ms(moment: datetime | None) -> str | None:
    """UTC ISO-8601 with milliseconds and a Z, for countdowns.

    >>> iso_ms(datetime(2026, 12, 1, 10, 0, 5, 250_000, tzinfo=UTC))
    '2026-12-01T10:00:05.250Z'
    """
    if moment is None:
        return None
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="milliseconds") + "Z"


def now_iso_ms() -> str:
    """``iso_ms(utcnow())``, from the clock's nanoseconds: the date and time of a second
    are formatted once for every message of that second.

    >>> shown = now_iso_ms()
    >>> late = utcnow().replace(tzinfo=None) - datetime.fromisoformat(shown.removesuffix("Z"))
    >>> shown.endswith("Z") and len(shown) == 24 and timedelta(0) <= late < timedelta(seconds=1)
    True
    """
    nanoseconds = time.time_ns()
    seconds, rest = divmod(nanoseconds, 1_000_000_000)
    return f"{second_iso(seconds)}.{rest // 1_000_000:03d}Z"


@functools.lru_cache(maxsize=4)
def second_iso(seconds: int) -> str:
    """One second's date and time, formatted once.

    >>> second_iso(1_796_119_205)
    '2026-12-01T10:00:05'
    """
    return datetime.fromtimestamp(seconds, UTC).replace(tzinfo=None).isoformat()
