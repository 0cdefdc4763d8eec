"""Who may open a table socket, and how much each may send: the checks before and around a
conversation (`server.api.sockets`).

A socket's `Origin` must be allowed (a page of another site may not drive a player's seat
from their browser), and its client address must be within its caps (open sockets, sockets
at one table) and its budget of new sockets a minute (`SocketGuard`); messages, chat lines
and hints spend moving-window budgets (`Limiter`).
"""

from __future__ import annotations

import time
from collections import Counter, deque
from typing import NamedTuple, TypeVar
from urllib.parse import urlsplit

from fastapi import WebSocket
from limits import RateLimitItem, parse

from server.settings import Settings

CLOSE_ORIGIN = 1008
CLOSE_TOO_MANY = 1013
DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}
Key = TypeVar("Key")


class Limiter:
    """A moving-window message budget: per connection (settings.ws_rate_limit) or, for
    chat, per client address (settings.chat_rate_limit); the rate as `limits` reads it.

    Kept here rather than in `limits`' memory storage, which never drops an expired key
    and walks all of them from a timer thread it starts again on every hit: the hits of
    each key are a queue of times, a connection's key goes when it closes (`forget`), and
    keys unused for a whole window are dropped once per window."""

    def __init__(self, rate: str, namespace: str = "ws") -> None:
        item: RateLimitItem = parse(rate)
        self.namespace = namespace
        self.amount = item.amount
        self.window = float(item.get_expiry())
        self.hits: dict[str, deque[float]] = {}
        self._swept = time.monotonic()

    def allow(self, key: str) -> bool:
        """Spend one message of `key`'s budget; False (nothing spent) when it is used up."""
        now = time.monotonic()
        if now - self._swept > self.window:
            self._sweep(now)
        hits = self.hits.get(key)
        if hits is None:
            hits = self.hits[key] = deque()
        while hits and hits[0] <= now - self.window:
            hits.popleft()
        if len(hits) >= self.amount:
            return False
        hits.append(now)
        return True

    def forget(self, key: str) -> None:
        """A connection closed: its budget goes with it."""
        self.hits.pop(key, None)

    def _sweep(self, now: float) -> None:
        self._swept = now
        for key in [
            key for key, hits in self.hits.items() if not hits or hits[-1] <= now - self.window
        ]:
            del self.hits[key]


def _origin_key(origin: str) -> tuple[str, str, int] | None:
    """(scheme, host, port) of an `Origin` value; None for `null` or anything unreadable.

    >>> _origin_key("https://Spades.Example.com")
    ('https', 'spades.example.com', 443)
    >>> _origin_key("http://[::1]:8000/")
    ('http', '::1', 8000)
    >>> _origin_key("null") is None
    True
    """
    try:
        parts = urlsplit(origin.strip())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
        return None
    return parts.scheme, parts.hostname.lower(), port or DEFAULT_PORTS[parts.scheme]


def same_origin(origin: tuple[str, str, int], host_header: str | None) -> bool:
    """Whether the Origin names the host (and port) the request was sent to.

    A `Host` without a port stands for the Origin scheme's default port.

    >>> same_origin(("http", "127.0.0.1", 8000), "127.0.0.1:8000")
    True
    >>> same_origin(("https", "spades.example.com", 443), "spades.example.com")
    True
    >>> same_origin(("http", "evil.example", 8000), "127.0.0.1:8000")
    False
    """
    if not host_header:
        return False
    try:
        parts = urlsplit(f"//{host_header.strip()}")
        port = parts.port
    except ValueError:
        return False
    _scheme, host, origin_port = origin
    host_port = port if port is not None else origin_port
    return (parts.hostname or "").lower() == host and host_port == origin_port


class Refusal(NamedTuple):
    """Why a socket is refused before its conversation: the close code and reason its client
    reads, and the `spades_sockets_dropped_total` reason."""

    code: int
    reason: str
    why: str


ORIGIN_NOT_ALLOWED = Refusal(CLOSE_ORIGIN, "origin not allowed", "origin_not_allowed")
TOO_MANY_OPEN = Refusal(CLOSE_TOO_MANY, "too many connections from your address", "per_address")
TOO_MANY_AT_TABLE = Refusal(
    CLOSE_TOO_MANY, "too many connections to this table from your address", "per_table"
)
TOO_MANY_NEW = Refusal(
    CLOSE_TOO_MANY, "too many new connections from your address", "new_per_address"
)


class SocketGuard:
    """The checks a WebSocket passes before its conversation: its Origin, and what its client
    address holds and has opened. One address may be many players (a school's NAT, a
    carrier's, a proxy whose `X-Forwarded-For` is not believed), so the caps are high and a
    flood is stopped by the budget of new sockets: at most `settings.ws_per_address` open,
    `settings.ws_per_table_per_address` of them at one table, and
    `settings.ws_new_per_address` opened per window. Counted in this process."""

    def __init__(self, settings: Settings) -> None:
        self.per_address = settings.ws_per_address
        self.per_table = settings.ws_per_table_per_address
        self.new = Limiter(settings.ws_new_per_address, "ws-new")
        words = [word.strip() for word in (settings.allowed_origins or "").split(",")]
        self.any_origin = "*" in words
        self.origins = {key for word in words if word and (key := _origin_key(word))}
        self.open: Counter[str] = Counter()
        self.at_table: Counter[tuple[str, str]] = Counter()

    def origin_allowed(self, websocket: WebSocket) -> bool:
        """No Origin (not a browser: scripts, bots, tests) is allowed; a browser's must be
        the page's own origin or one of `SPADES_ALLOWED_ORIGINS`."""
        origin = websocket.headers.get("origin")
        if origin is None or self.any_origin:
            return True
        key = _origin_key(origin)
        if key is None:
            return False
        return key in self.origins or same_origin(key, websocket.headers.get("host"))

    def take(self, address: str, table_id: str) -> Refusal | None:
        """Count one more socket from `address` at `table_id`; the refusal, with nothing
        counted, when a cap or the budget of new sockets says no."""
        if self.open[address] >= self.per_address:
            return TOO_MANY_OPEN
        if self.at_table[address, table_id] >= self.per_table:
            return TOO_MANY_AT_TABLE
        if not self.new.allow(address):
            return TOO_MANY_NEW
        self.open[address] += 1
        self.at_table[address, table_id] += 1
        return None

    def release(self, address: str, table_id: str) -> None:
        """A socket `take` counted has ended."""
        uncount(self.open, address)
        uncount(self.at_table, (address, table_id))


def uncount(counter: Counter[Key], key: Key) -> None:
    """One less of `key`, which leaves `counter` at zero."""
    counter[key] -= 1
    if counter[key] <= 0:
        del counter[key]
