"""Friends' tables: the invite, the host, the turn timer. Pure decisions, no I/O.

A table is private unless listed: sitting down or adding a bot needs its invite. The
host is whoever holds the host token, or the player of the table's `host_seat`; the role
passes to another seated player when the host leaves (`next_host`). With a turn timer,
the seats on turn must act by a deadline (`next_deadline`); when it passes a bot makes the
move, and after `TIMEOUTS_TO_AUTOPLAY` timed-out moves in a row the seat goes to autoplay.

Secrets (invite, host token, seat tokens) are stored only as SHA-256 hashes and compared
in constant time.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import secrets
import time
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from server.observability import looks_secret
from server.protocol import PublicAction
from server.store.repository import SeatRecord

TURN_SECONDS_MIN = 5
TURN_SECONDS_MAX = 300
TIMEOUTS_TO_AUTOPLAY = 2
# Random bytes of a seat or host token (32 URL-safe characters).
TOKEN_BYTES = 24


def new_token() -> str:
    """A fresh seat or host token: `secrets.token_urlsafe(TOKEN_BYTES)`, drawn again until the
    log scrubber would mask it in any line's free text (`looks_secret`: it needs a digit
    among the letters, or it cannot tell the run from a word). About one draw in 230 of
    24 bytes has no digit; leaving those out costs the secret under a hundredth of a bit.

    >>> token = new_token()
    >>> len(token), looks_secret(token), new_token() != token
    (32, True, True)
    """
    while True:
        token = secrets.token_urlsafe(TOKEN_BYTES)
        if looks_secret(token):
            return token


def hash_token(token: str) -> str:
    """SHA-256 hex of a secret: the only form in which tokens and invites are stored.

    >>> hash_token("secret")[:16]
    '2bb80d537b1da3e3'
    """
    return hashlib.sha256(token.encode()).hexdigest()


def matches(secret: str | None, digest: str | None) -> bool:
    """Whether `secret` hashes to `digest`, in constant time.

    >>> matches("secret", hash_token("secret")), matches("guess", hash_token("secret"))
    (True, False)
    >>> matches(None, hash_token("secret")), matches("secret", None)
    (False, False)
    """
    if not secret or digest is None:
        return False
    return hmac.compare_digest(hash_token(secret), digest)


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


def public_action(action: Mapping[str, Any]) -> PublicAction:
    """What everyone may see of a move: the cards of a pass, a draw's choice and a blind
    nil decision (shown by the table when the rules reveal it) are private.

    >>> public_action({"type": "play", "card": "5H"})
    {'type': 'play', 'card': '5H'}
    >>> public_action({"type": "pass", "cards": ["AS", "2C"]})
    {'type': 'pass'}
    """
    if action["type"] == "bid":
        return {"type": "bid", "bid": action["bid"]}
    if action["type"] == "play":
        return {"type": "play", "card": action["card"]}
    return {"type": action["type"]}


def next_host(seats: list[SeatRecord], leaving: int | None) -> int | None:
    """The seat the host role passes to: the lowest seat of a person at the table (one with
    a socket open), else of any seated person; never `leaving`.

    >>> seats = [SeatRecord(0, "Ann", "h0"), SeatRecord(1, "Bot", bot="basic"),
    ...          SeatRecord(2, "Cy", "h2"), SeatRecord(3, "Di", "h3", connected=True)]
    >>> next_host(seats, 0), next_host(seats[:3], 0), next_host(seats[:2], 0)
    (3, 2, None)
    """
    people = [seat for seat in seats if seat.token_hash is not None and seat.seat != leaving]
    present = [seat for seat in people if seat.connected]
    chosen = (present or people)[:1]
    return chosen[0].seat if chosen else None


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
    return f"{_second_iso(seconds)}.{rest // 1_000_000:03d}Z"


@functools.lru_cache(maxsize=4)
def _second_iso(seconds: int) -> str:
    """
    >>> _second_iso(1_796_119_205)
    '2026-12-01T10:00:05'
    """
    return datetime.fromtimestamp(seconds, UTC).replace(tzinfo=None).isoformat()
