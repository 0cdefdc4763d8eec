"""Operations endpoints: liveness, readiness and Prometheus metrics.

`/healthz` answers while the process serves (an orchestrator restarts it otherwise);
`/readyz` says whether it can do useful work (a load balancer stops routing to it
otherwise); `/metrics` is scraped by Prometheus. None of them touches a game.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from fastapi import APIRouter, Request, Response
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, generate_latest
from sqlalchemy import text

import server.observability  # noqa: F401  (registers the game metrics that /metrics shows)
from server.api.services import services
from server.protocol import Health, Readiness

router = APIRouter(tags=["operations"])

# A dependency slower than this counts as down: a probe must answer before its own timeout.
CHECK_TIMEOUT_SECONDS = 2.0


@router.get("/healthz")
async def healthz() -> Health:
    """Always 200 while the process serves requests."""
    return Health(status="ok")


async def _check_database(request: Request) -> str:
    async with services(request).db_engine.connect() as connection:
        await connection.execute(text("SELECT 1"))
    return "ok"


async def _check_redis(request: Request) -> str:
    redis = services(request).redis
    if redis is None:
        return "not configured"
    await redis.ping()
    return "ok"


async def _run_check(check: Callable[[Request], Awaitable[str]], request: Request) -> str:
    """Run one check; name the failure by its kind only, since messages may hold a DSN."""
    try:
        return await asyncio.wait_for(check(request), CHECK_TIMEOUT_SECONDS)
    except TimeoutError:
        return f"down: no answer within {CHECK_TIMEOUT_SECONDS:g}s"
    except Exception as error:
        return f"down: {type(error).__name__}"


@router.get(
    "/readyz",
    response_model_exclude_unset=True,
    responses={503: {"model": Readiness, "description": "Something it needs is down"}},
)
async def readyz(request: Request, response: Response) -> Readiness:
    """200 when the database (and Redis, if configured) answer; 503 naming what is down."""
    database, redis = await asyncio.gather(
        _run_check(_check_database, request), _run_check(_check_redis, request)
    )
    checks = {"database": database, "redis": redis}
    down = sorted(name for name, state in checks.items() if state.startswith("down"))
    if down:
        response.status_code = 503
        return Readiness(status="unavailable", down=down, checks=checks)
    return Readiness(status="ready", checks=checks)


@router.get(
    "/metrics",
    response_class=Response,
    responses={200: {"content": {CONTENT_TYPE_LATEST: {"schema": {"type": "string"}}}}},
)
async def metrics() -> Response:
    """Prometheus text exposition of every registered metric (observability.py's included)."""
    return Response(generate_latest(REGISTRY), media_type=CONTENT_TYPE_LATEST)
