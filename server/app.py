"""FastAPI application factory: wires settings, database, hub, pub/sub and routes.

Run with `spades serve`, or `uvicorn server.app:app --ws websockets-sansio --ws-max-size 8192
--no-proxy-headers` (docs/operations.md). At start-up the database is
migrated (`settings.migrate_on_start`) and every unfinished game resumes where it was;
at shutdown in-flight changes finish and sockets close with 1012 ("server restarting").
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager

import orjson
import structlog
from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from server.api import clubs, guards, nights, ops, pages, rules, sockets, tables
from server.api.ratelimit import UntrustedForwarding, WriteLimiter
from server.api.security import SecurityHeaders
from server.api.services import Services, SocketLimits, services_of
from server.nights import Nights
from server.observability import ERRORS, configure_logging
from server.protocol import FieldProblem
from server.realtime.errors import TableError
from server.realtime.hub import TableHub
from server.realtime.pubsub import LocalNotices, RedisNotices, TableNotices
from server.settings import Settings, get_settings
from server.store.clubs import ClubStore
from server.store.db import create_engine, migrate
from server.store.feed import DatabaseChannel
from server.store.nights import NightStore
from server.store.repository import TableStore

log = structlog.get_logger(__name__)

MAX_BODY_BYTES = 64 * 1024
TOO_LARGE = "Request body too large."
TOO_SLOW = "Request body not received in time."


class BodyRefused(HTTPException):
    """Raised from `receive` while the body is read. FastAPI lets an HTTPException from
    reading a body through, so the app's handler answers it as `{"detail": ...}`."""


class BodyLimit:
    """Refuse request bodies over MAX_BODY_BYTES with 413 before anything parses them, and
    bodies not complete within `timeout` seconds of the request with 408 (the connection is
    then closed): a client that announces a body and sends it slowly, or never, holds no
    request for long."""

    def __init__(self, app: ASGIApp, timeout: float = 10.0) -> None:
        self.app = app
        self.timeout = timeout

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        # Not a coroutine itself: a WebSocket, alive for hours, keeps no frame of ours.
        if scope["type"] != "http":
            return self.app(scope, receive, send)
        return self.limited(scope, receive, send)

    async def limited(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length", b"0")
        if not length.isdigit() or int(length) > MAX_BODY_BYTES:
            await refuse_body(send, 413, TOO_LARGE)
            return
        deadline = asyncio.get_running_loop().time() + self.timeout
        seen = 0
        complete = False

        async def counted() -> Message:
            nonlocal seen, complete
            if complete:  # later reads wait for a disconnect, for as long as a response takes
                return await receive()
            try:
                async with asyncio.timeout_at(deadline):
                    message = await receive()
            except TimeoutError:
                raise BodyRefused(408, TOO_SLOW, headers={"Connection": "close"}) from None
            seen += len(message.get("body", b""))
            if seen > MAX_BODY_BYTES:
                raise BodyRefused(413, TOO_LARGE)
            complete = message["type"] != "http.request" or not message.get("more_body", False)
            return message

        started = False

        async def tracked(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, tracked)
        except BodyRefused as refusal:  # read outside FastAPI's handlers: answer it here
            if not started:
                await refuse_body(send, refusal.status_code, refusal.detail)


async def refuse_body(send: Send, status: int, detail: str) -> None:
    headers = [(b"content-type", b"application/json")]
    if status == 408:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": orjson.dumps({"detail": detail})})


class SpadesApp(FastAPI):
    """FastAPI with SecurityHeaders around its whole middleware stack, so that even the
    500 of Starlette's outermost error middleware carries the headers."""

    def build_middleware_stack(self) -> ASGIApp:
        return SecurityHeaders(super().build_middleware_stack())


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    found = services_of(app)
    if found.settings.migrate_on_start:
        await migrate(found.db_engine)
    await found.hub.start(single_process=found.redis is None)
    log.info("table server ready")
    try:
        yield
    finally:
        await found.hub.shutdown()
        await found.hub.notices.close()
        if found.redis is not None:
            await found.redis.aclose()
        await found.db_engine.dispose()


def create_app(settings: Settings | None = None) -> FastAPI:
    """The ASGI app for `settings` (from the environment when None)."""
    settings = settings or get_settings()
    configure_logging(settings)
    app = SpadesApp(title="Spades", lifespan=lifespan)
    db_engine = create_engine(settings.database_url)
    redis = None
    notices: TableNotices = LocalNotices()
    if settings.redis_url:
        redis_notices = RedisNotices.from_url(settings.redis_url, DatabaseChannel.of(db_engine))
        redis = redis_notices.redis
        notices = redis_notices
    hub = TableHub(TableStore(db_engine, settings.chat_history), settings, notices)
    club_store = ClubStore(db_engine)
    app.state.services = Services(
        settings=settings,
        db_engine=db_engine,
        redis=redis,
        hub=hub,
        clubs=club_store,
        nights=Nights(NightStore(db_engine), club_store, hub),
        socket_guard=guards.SocketGuard(settings),
        socket_limits=SocketLimits(
            messages=guards.Limiter(settings.ws_rate_limit),
            chat=guards.Limiter(settings.chat_rate_limit, "chat"),
            hints=guards.Limiter(settings.hint_rate_limit, "hint"),
            hints_by_address=guards.Limiter(settings.hint_address_rate_limit, "hint-address"),
            seeds=guards.Limiter(settings.seed_rate_limit, "seed"),
            seeds_by_address=guards.Limiter(settings.seed_address_rate_limit, "seed-address"),
        ),
        write_limiter=WriteLimiter(settings.http_rate_limit, settings.redis_url),
    )

    app.add_middleware(BodyLimit, timeout=settings.body_timeout_seconds)
    app.add_middleware(UntrustedForwarding)
    add_error_handlers(app)
    app.include_router(ops.router)
    app.include_router(tables.router)
    app.include_router(rules.router)
    app.include_router(clubs.router)
    app.include_router(nights.router)
    app.include_router(sockets.router)
    app.include_router(pages.router)
    app.mount("/static", pages.ClientFiles(directory=pages.WEB, check_dir=False), name="static")
    return app


def add_error_handlers(app: FastAPI) -> None:
    """Every refusal is JSON `{"detail": ...}`; an unexpected failure is a logged 500."""

    @app.exception_handler(TableError)
    async def table_error(_request: Request, refusal: TableError) -> JSONResponse:
        return JSONResponse({"detail": refusal.message}, status_code=refusal.status)

    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, problem: RequestValidationError) -> JSONResponse:
        errors: list[FieldProblem] = [
            {"type": item["type"], "loc": item["loc"], "msg": item["msg"]}
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
