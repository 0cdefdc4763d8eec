"""The app's long-lived services, made once by the app factory (`server.app.create_app`)
and read by the routes through one typed accessor (`services`, or the dependency
`AppServices`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated

from fastapi import Depends
from starlette.applications import Starlette
from starlette.requests import HTTPConnection

if TYPE_CHECKING:  # types only: the modules that read the services import this one
    from redis.asyncio import Redis
    from sqlalchemy.ext.asyncio import AsyncEngine

    from server.api.guards import Limiter, SocketGuard
    from server.api.ratelimit import WriteLimiter
    from server.nights import Nights
    from server.realtime.hub import TableHub
    from server.settings import Settings
    from server.store.clubs import ClubStore


@dataclass(frozen=True, slots=True)
class SocketLimits:
    """The budgets a table's socket spends: messages (per socket), chat lines (per
    address), hints (per player, then per address), seeds (per seat, then per address)."""

    messages: Limiter
    chat: Limiter
    hints: Limiter
    hints_by_address: Limiter
    seeds: Limiter
    seeds_by_address: Limiter


@dataclass(frozen=True, slots=True)
class Services:
    """What the routes share: set once on `app.state.services`, never changed."""

    settings: Settings
    db_engine: AsyncEngine
    # The Redis client of the notices between processes; None in a single process.
    redis: Redis | None
    hub: TableHub
    clubs: ClubStore
    nights: Nights
    socket_guard: SocketGuard
    socket_limits: SocketLimits
    write_limiter: WriteLimiter


def services_of(app: Starlette) -> Services:
    """The services of an app made by `create_app`."""
    found = getattr(app.state, "services", None)
    if not isinstance(found, Services):
        raise RuntimeError("the app has no services: make it with server.app.create_app")
    return found


def services(connection: HTTPConnection) -> Services:
    """The services of the app serving a request or a WebSocket (a FastAPI dependency)."""
    return services_of(connection.app)


AppServices = Annotated[Services, Depends(services)]
