"""FastAPI application factory: wires settings, database, hub, pub/sub and routes.

Run with `uvicorn server.app:app --ws websockets-sansio`. At start-up the database is
migrated (`settings.migrate_on_start`) and every unfinished game resumes where it was;
at shutdown in-flight changes finish and sockets close with 1012 ("server restarting").
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import structlog
from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from server.api import ops, pages, sockets, tables
from server.api.ratelimit import WriteLimiter
from server.observability import ERRORS, configure_logging
from server.realtime.errors import TableError
from server.realtime.hub import TableHub
from server.realtime.pubsub import LocalNotices, RedisNotices, TableNotices
from server.settings import Settings, get_settings
from server.store.db import create_engine, migrate
from server.store.repository import TableStore

log = structlog.get_logger(__name__)

MAX_BODY_BYTES = 64 * 1024


class BodyTooLarge(Exception):
    pass


class BodyLimit:
    """Refuse request bodies over MAX_BODY_BYTES with 413 before anything parses them."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length", b"0")
        if not length.isdigit() or int(length) > MAX_BODY_BYTES:
            await too_large(send)
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > MAX_BODY_BYTES:
                raise BodyTooLarge
            return message

        try:
            await self.app(scope, counted, send)
        except BodyTooLarge:
            await too_large(send)


async def too_large(send: Send) -> None:
    body = b'{"detail":"Request body too large."}'
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": body})


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    settings: Settings = app.state.settings
    hub: TableHub = app.state.hub
    if settings.migrate_on_start:
        await migrate(app.state.db_engine)
    await hub.start(single_process=app.state.redis is None)
    log.info("table server ready")
    try:
        yield
    finally:
        await hub.shutdown()
        await hub.notices.close()
        if app.state.redis is not None:
            await app.state.redis.aclose()
        await app.state.db_engine.dispose()


def create_app(settings: Settings | None = None) -> FastAPI:
    """The ASGI app for `settings` (from the environment when None)."""
    settings = settings or get_settings()
    configure_logging(settings)
    app = FastAPI(title="Spades", lifespan=lifespan)
    app.state.settings = settings
    app.state.db_engine = create_engine(settings.database_url)
    app.state.redis = None
    notices: TableNotices = LocalNotices()
    if settings.redis_url:
        from redis.asyncio import Redis

        # A Redis that cannot be reached must fail fast, not hold a move for minutes.
        app.state.redis = Redis.from_url(settings.redis_url, socket_connect_timeout=2)
        notices = RedisNotices(app.state.redis)
    store = TableStore(app.state.db_engine, settings.chat_history)
    app.state.hub = TableHub(store, settings, notices)
    app.state.ws_limiter = sockets.Limiter(settings.ws_rate_limit)
    app.state.write_limiter = WriteLimiter(settings.http_rate_limit, settings.redis_url)

    app.add_middleware(BodyLimit)
    add_error_handlers(app)
    app.include_router(ops.router)
    app.include_router(tables.router)
    app.include_router(sockets.router)
    app.include_router(pages.router)
    app.mount("/static", StaticFiles(directory=pages.WEB, check_dir=False), name="static")
    return app


def add_error_handlers(app: FastAPI) -> None:
    """Every refusal is JSON `{"detail": ...}`; an unexpected failure is a logged 500."""

    @app.exception_handler(TableError)
    async def table_error(_request: Request, refusal: TableError) -> JSONResponse:
        return JSONResponse({"detail": refusal.message}, status_code=refusal.status)

    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, problem: RequestValidationError) -> JSONResponse:
        errors: list[dict[str, Any]] = [
            {key: value for key, value in item.items() if key in ("loc", "msg", "type")}
            for item in problem.errors()
        ]
        return JSONResponse({"detail": errors}, status_code=422)

    @app.exception_handler(HTTPException)
    async def http_error(_request: Request, problem: HTTPException) -> JSONResponse:
        return JSONResponse(
            {"detail": problem.detail}, status_code=problem.status_code, headers=problem.headers
        )

    @app.exception_handler(Exception)
    async def crash(_request: Request, problem: Exception) -> JSONResponse:
        ERRORS.labels(where="http").inc()
        log.exception("request failed")
        return JSONResponse({"detail": "Internal error."}, status_code=500)


app = create_app()
