"""A state's text frame written straight to the connection's transport, where uvicorn's
sans-I/O WebSocket protocol (`--ws websockets-sansio`) would write the same bytes.

A server's text frame is a FIN and opcode byte, the length and the unmasked payload
(RFC 6455, 5.2), so building it here spares each socket the `websockets` frame machinery
(docs/performance.md, "The frame fast path"). It is written only when nothing could be in
the way (see `write_text`); otherwise the caller sends through uvicorn's own `send`, which
waits, raises or compresses as that case asks. Pings, pongs and the close always go
through uvicorn, on the same transport and event loop, so frames never interleave.

ASGI has no way to send a text message's bytes without decoding them, so this is the
project's one exception to "never reach into a library's internals": it reads uvicorn's
protocol object and its `websockets` connection, and only for the uvicorn and websockets
versions it is tested with (`TESTED_UVICORN`, `TESTED_WEBSOCKETS`, and pyproject.toml's
pins); `SPADES_DIRECT_FRAMES=false` turns it off.
"""

from __future__ import annotations

import re
from typing import Any

import structlog
import uvicorn
import websockets.version
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import State

log = structlog.get_logger(__name__)

# Versions the direct path is tested with (tests/realtime/test_direct_frames.py, run at
# both ends: uvicorn 0.52.1 and 0.55.0, websockets 15.0 and 17.4), as [lowest, first one
# not tested). uvicorn's write flow control (`writable`) came in 0.52.1.
TESTED_UVICORN = ((0, 52, 1), (0, 56))
TESTED_WEBSOCKETS = ((15,), (18,))

# What `write_text` reads of the protocol object and of its `websockets` connection: a
# protocol without all of them is never written to directly.
PROTOCOL_STATE = (
    "conn",
    "transport",
    "writable",
    "handshake_complete",
    "close_sent",
    "disconnected",
    "initial_response",
)
CONNECTION_STATE = ("state", "expect_continuation_frame", "extensions", "writes")

# FIN and the text opcode (RFC 6455, 5.2), then the length's forms.
FIN_TEXT = 0x81
TWO_BYTE_LENGTH = 126
EIGHT_BYTE_LENGTH = 127
TWO_BYTE_HEAD = bytes((FIN_TEXT, TWO_BYTE_LENGTH))


def release(version: str) -> tuple[int, ...]:
    """The leading numbers of a version string.

    >>> release("0.55.0"), release("0.56.0rc1"), release("17.4")
    ((0, 55, 0), (0, 56, 0), (17, 4))
    """
    return tuple(int(part) for part in re.findall(r"\d+", version.split("+")[0])[:3])


def in_range(version: str, bounds: tuple[tuple[int, ...], tuple[int, ...]]) -> bool:
    """Whether `version` lies in `bounds`, [lowest, first one not tested).

    >>> in_range("0.55.0", TESTED_UVICORN), in_range("0.56.0", TESTED_UVICORN)
    (True, False)
    """
    lowest, beyond = bounds
    return lowest <= release(version) < beyond


class FramePath:
    """Which way one app's state frames go: straight to the transport (`protocol` finds
    the connection's protocol object), or through uvicorn's `send` (`protocol` is None).
    Decided once, when the app is made, and logged once."""

    def __init__(self, wanted: bool = True) -> None:
        versions = f"uvicorn {uvicorn.__version__}, websockets {websockets.version.version}"
        if not wanted:
            why = "turned off (SPADES_DIRECT_FRAMES)"
        elif not in_range(uvicorn.__version__, TESTED_UVICORN):
            why = "uvicorn's version is outside the tested range"
        elif not in_range(websockets.version.version, TESTED_WEBSOCKETS):
            why = "websockets' version is outside the tested range"
        else:
            why = ""
        self.direct = not why
        self.told_unusable = False
        if self.direct:
            log.info("state frames written to the transport directly", versions=versions)
        else:
            log.info("state frames sent through uvicorn's send", reason=why, versions=versions)

    def protocol(self, send: Any) -> WebSocketsSansIOProtocol | None:
        """The protocol object to write `send`'s states to, or None: uvicorn's `send`."""
        if not self.direct:
            return None
        protocol = direct_protocol(send)
        if protocol is None and not self.told_unusable:
            self.told_unusable = True
            log.info(
                "state frames sent through uvicorn's send for sockets not served by the "
                "websockets-sansio protocol it was tested with"
            )
        return protocol


def direct_protocol(send: Any) -> WebSocketsSansIOProtocol | None:
    """The uvicorn protocol object behind an ASGI `send`, when it is the sans-I/O one's
    own method and holds everything `write_text` checks; else None."""
    owner = getattr(send, "__self__", None)
    if (
        isinstance(owner, WebSocketsSansIOProtocol)
        and getattr(send, "__func__", None) is WebSocketsSansIOProtocol.send
        and all(hasattr(owner, name) for name in PROTOCOL_STATE)
        and all(hasattr(owner.conn, name) for name in CONNECTION_STATE)
    ):
        return owner
    return None


def text_frame(payload: bytes) -> bytes:
    """One unmasked, final text frame of `payload`, as a server sends it.

    >>> text_frame(b"hi")
    b'\\x81\\x02hi'
    >>> text_frame(b"x" * 200)[:4]
    b'\\x81~\\x00\\xc8'
    """
    size = len(payload)
    if size < TWO_BYTE_LENGTH:
        head = bytes((FIN_TEXT, size))
    elif size < 1 << 16:
        head = TWO_BYTE_HEAD + size.to_bytes(2, "big")
    else:
        head = bytes((FIN_TEXT, EIGHT_BYTE_LENGTH)) + size.to_bytes(8, "big")
    return head + payload


def write_text(protocol: WebSocketsSansIOProtocol, payload: bytes) -> bool:
    """Write `payload` as one text frame now, as `protocol.send` would, if nothing stands
    in the way: the handshake done, nothing closing or disconnected, no fragmented message
    under way, no extension (per-message deflate) to transform it, nothing left unwritten
    in the protocol object, and the transport not holding back writes. False, with nothing
    written, otherwise."""
    connection = protocol.conn
    if not (
        protocol.handshake_complete
        and protocol.writable.is_set()
        and not protocol.close_sent
        and not protocol.disconnected
        and protocol.initial_response is None
        and connection.state is State.OPEN
        and not connection.expect_continuation_frame
        and not connection.extensions
        and not connection.writes
    ):
        return False
    protocol.transport.write(text_frame(payload))
    return True
