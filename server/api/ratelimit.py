"""A budget of HTTP writes per client address (settings.http_rate_limit), with `limits`.

Creating tables, taking seats, adding bots and rematches are cheap to script and each
writes to the database, so one address gets a moving-window budget of them; reading is
free. With `REDIS_URL` the windows live in Redis, so several server processes share one
budget per address; otherwise in this process's memory.

The client address is what uvicorn reports: behind a reverse proxy, let uvicorn trust the
proxy's `X-Forwarded-For` (`FORWARDED_ALLOW_IPS`, see docs/operations.md), or every
player would share the proxy's budget.

If Redis cannot be reached the request is let through (and counted as an error): a
broken rate limiter must not stop people playing.
"""

from __future__ import annotations

import math
import time

import structlog
from fastapi import HTTPException, Request
from limits import RateLimitItem, parse
from limits.aio.storage import MemoryStorage, RedisStorage, Storage
from limits.aio.strategies import MovingWindowRateLimiter

from server.observability import ERRORS

log = structlog.get_logger(__name__)


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
    limiter: WriteLimiter = request.app.state.write_limiter
    client = request.client
    await limiter.check(client.host if client is not None else "unknown")
