"""A budget of HTTP writes per client address (settings.http_rate_limit), with `limits`,
and the warning that the addresses these budgets count by are a proxy's.

Creating tables, taking seats, adding bots and rematches are cheap to script and each
writes to the database, so one address gets a moving-window budget of them; reading is
free. With `REDIS_URL` the windows live in Redis, so several server processes share one
budget per address; otherwise in this process's memory.

The client address is what uvicorn reports: behind a reverse proxy, let uvicorn trust the
proxy's `X-Forwarded-For` (`FORWARDED_ALLOW_IPS`, see docs/operations.md), or every
player would share the proxy's budget (and the socket caps, `server.api.sockets`).
`UntrustedForwarding` says so in the log the first time a request shows it.

If Redis cannot be reached the request is let through (and counted as an error): a
broken rate limiter must not stop people playing.
"""

from __future__ import annotations

import math
import time
from collections.abc import Awaitable

import structlog
from fastapi import HTTPException, Request
from limits import RateLimitItem, parse
from limits.aio.storage import MemoryStorage, RedisStorage, Storage
from limits.aio.strategies import MovingWindowRateLimiter
from starlette.types import ASGIApp, Receive, Scope, Send

from server.api.services import services
from server.observability import ERRORS

log = structlog.get_logger(__name__)

# Peers `UntrustedForwarding` warns about, at most (each once): then it stops looking.
MAX_WARNED_PEERS = 16


class WriteLimiter:
    """Counts writes per client address; `check` refuses one over the budget."""

    def __init__(self, rate: str, redis_url: str | None = None) -> None:
        self.item: RateLimitItem = parse(rate)
        storage: Storage = (
            RedisStorage(f"async+{redis_url}", implementation="redispy", socket_connect_timeout=2)
            if redis_url
            else MemoryStorage()
        )
        self.strategy = MovingWindowRateLimiter(storage)

    async def check(self, address: str) -> None:
        """Count one write from `address`; HTTP 429 with `Retry-After` when over budget."""
        try:
            if await self.strategy.hit(self.item, "http-writes", address):
                return
            stats = await self.strategy.get_window_stats(self.item, "http-writes", address)
        except Exception:
            ERRORS.labels(where="http").inc()
            log.warning("rate limiter unavailable, request let through", exc_info=True)
            return
        wait = max(1, math.ceil(stats.reset_time - time.time()))
        raise HTTPException(
            429,
            f"Too many changes from your address; try again in {wait} seconds.",
            headers={"Retry-After": str(wait)},
        )


async def limit_writes(request: Request) -> None:
    """FastAPI dependency for the routes that change something."""
    limiter = services(request).write_limiter
    client = request.client
    await limiter.check(client.host if client is not None else "unknown")


def forwarded_for(scope: Scope) -> list[str] | None:
    """The addresses in a request's `X-Forwarded-For`, or None without one.

    >>> forwarded_for({"headers": [(b"x-forwarded-for", b"203.0.113.7, 10.0.0.2")]})
    ['203.0.113.7', '10.0.0.2']
    >>> forwarded_for({"headers": [(b"host", b"example.com")]}) is None
    True
    """
    for name, value in scope.get("headers") or ():
        if name == b"x-forwarded-for":
            return [part.strip() for part in value.decode("latin-1").split(",")]
    return None


class UntrustedForwarding:
    """Middleware that warns, once per peer, when a request (or a WebSocket) carries
    `X-Forwarded-For` that the server did not believe: its client address is none of the
    forwarded ones, so it is the peer's own. That peer is most likely a reverse proxy or a
    tunnel left out of `FORWARDED_ALLOW_IPS`, and every player behind it then shares one
    address: one HTTP write budget, one chat budget, one set of socket caps. (uvicorn,
    trusting a proxy, makes the client one of the forwarded addresses.) Not a coroutine
    itself: a WebSocket keeps no frame of it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.warned: set[str] = set()

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        if len(self.warned) < MAX_WARNED_PEERS and scope["type"] in ("http", "websocket"):
            self.look(scope)
        return self.app(scope, receive, send)

    def look(self, scope: Scope) -> None:
        client = scope.get("client")
        if client is None or client[0] in self.warned:
            return
        forwarded = forwarded_for(scope)
        if forwarded is None or client[0] in forwarded:
            return
        peer = client[0]
        self.warned.add(peer)
        log.warning(
            "X-Forwarded-For ignored: its sender is not a trusted proxy, so every client "
            "behind it shares its address (one HTTP write budget, one chat budget, one set "
            "of socket caps). If it is your reverse proxy or tunnel, set "
            f"FORWARDED_ALLOW_IPS={peer} (see docs/operations.md, Playing across the internet)",
            peer=peer,
        )
