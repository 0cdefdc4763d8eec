"""Security headers on every HTTP response: pages, the API, static files, errors alike.

The web client loads only its own scripts and styles (no inline code, no inline style
attributes), talks only to this server (HTTP and WebSocket), and is never framed: a page
of another site cannot overlay a table page to make a player click. Table links carry
their secrets in the URL fragment, which is never sent anywhere; no referrer is sent either.
"""

from __future__ import annotations

from collections.abc import Awaitable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; "
    "style-src 'self'; script-src 'self'; frame-ancestors 'none'; base-uri 'none'; "
    "form-action 'self'"
)
SECURITY_HEADERS: list[tuple[bytes, bytes]] = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
]
_NAMES = frozenset(name for name, _value in SECURITY_HEADERS)


class SecurityHeaders:
    """Pure ASGI middleware adding SECURITY_HEADERS to each `http.response.start` (a header
    the response already sets is replaced). WebSocket and lifespan traffic pass untouched."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        # Not a coroutine itself: a WebSocket, alive for hours, keeps no frame of ours.
        if scope["type"] != "http":
            return self.app(scope, receive, send)
        return self.http(scope, receive, send)

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [
                    (name, value)
                    for name, value in message.get("headers", [])
                    if name.lower() not in _NAMES
                ]
                message = {**message, "headers": [*headers, *SECURITY_HEADERS]}
            await send(message)

        await self.app(scope, receive, with_headers)
