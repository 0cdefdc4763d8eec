"""Friends' tables: the invite, the tokens, who hosts. Pure decisions, no I/O.

A table is private unless listed: sitting down or adding a bot needs its invite. The
host is whoever holds the host token, or the player of the table's `host_seat`; the role
passes to another seated player when the host leaves (`after_leaving`) or stays away while
another player is here (`host_away`, `after_away`).

Secrets (invite, host token, seat tokens) are stored only as SHA-256 hashes and compared
in constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from server.observability import looks_secret
from server.store.records import Hosting, SeatRecord, TableUpdate

# Random bytes of a seat or host token (32 URL-safe characters).
TOKEN_BYTES = 24
# Random bytes of a table's, a club's or a member's id (8 URL-safe characters), and what
# an id the server made can be: anything else names nothing and never reaches a query.
ID_BYTES = 6
ID_MAX_LENGTH = 16
ID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")


def new_id() -> str:
    """A fresh table, club or member id.

    >>> is_id(new_id())
    True
    """
    return secrets.token_urlsafe(ID_BYTES)


def is_id(text: str) -> bool:
    """Whether `text` could be an id the server made: 1 to `ID_MAX_LENGTH` URL-safe
    characters (no NUL, no space, nothing PostgreSQL or a URL would choke on).

    >>> is_id("aB3-_x9Q"), is_id(""), is_id("a\\x00"), is_id("x" * 17)
    (True, False, False, False)
    """
    return 0 < len(text) <= ID_MAX_LENGTH and set(text) <= ID_CHARS


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


def after_leaving(hosting: Hosting, seats: list[SeatRecord], seat: int) -> TableUpdate:
    """What to write when `seat` is emptied: the host role passes on if it was the
    host's (the host token then stops working); nothing otherwise.

    >>> seats = [SeatRecord(0, "Ann", "h0"), SeatRecord(1, "Bo", "h1")]
    >>> after_leaving(Hosting(host_seat=0), seats, 0)
    {'host_seat': 1, 'host_hash': None}
    >>> after_leaving(Hosting(host_seat=0), seats[:1], 0), after_leaving(Hosting(), seats, 0)
    ({'host_seat': None}, {})
    """
    if hosting.host_seat != seat:
        return {}
    successor = next_host(seats, seat)
    if successor is None:
        return {"host_seat": None}  # nobody else sits: the host token keeps the role
    return {"host_seat": successor, "host_hash": None}


def host_away(hosting: Hosting, seats: list[SeatRecord], status: str) -> int | None:
    """The seat to hand the host role to while the host's seat is away and that player
    is here; None while the host is here (or nobody could take over).

    >>> seats = [SeatRecord(0, "Ann", "h0"), SeatRecord(1, "Bo", "h1", connected=True)]
    >>> host_away(Hosting(host_seat=0), seats, "playing"), host_away(Hosting(), seats, "playing")
    (1, None)
    """
    seat = hosting.host_seat
    if seat is None or status == "ended":
        return None
    host = seats[seat]
    if host.connected or host.token_hash is None:
        return None
    successor = next_host(seats, seat)
    if successor is None or not seats[successor].connected:
        return None
    return successor
