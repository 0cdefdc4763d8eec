"""A state's text frame written straight to the connection, where uvicorn's sans-I/O
WebSocket protocol would write the same bytes.

uvicorn's `send` of a text message (`--ws websockets-sansio`) hands it to the `websockets`
protocol object, which builds a `Frame`, checks it, serializes it through a buffer with
each extension in turn, and keeps the bytes for uvicorn to join and write to the
transport: about twenty Python calls a socket, five for every move at a table with one
spectator, and most of a move's work beside the game's own. A server-to-client text
frame is the FIN and text opcode byte, the length (in 1, 3 or 9 bytes) and the payload,
unmasked (RFC 6455, section 5.2). So when nothing else could be in the way, the frame is
made here and written to the transport at once: the handshake done, nothing sent or
received that closes the connection, no fragmented message under way, no extension
(per-message deflate) that would transform the payload, nothing left unwritten in the
protocol object, and the transport not holding back writes (uvicorn's `writable`). In
every other case the caller sends through uvicorn's `send` as before, which then does
whatever that case asks (waits, raises, compresses).

Keepalive pings, pongs and the close go through uvicorn and `websockets` as always, on
the same transport: every write is a whole frame, made on the event loop, so frames never
interleave.
"""

from __future__ import annotations

from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import State

# What `write_text` reads of the protocol object: uvicorn's own checks before it writes a
# text message (its write flow control, `writable`, came with uvicorn 0.52.1). A protocol
# without all of them is never written to directly.
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


def direct_protocol(send: Any) -> WebSocketsSansIOProtocol | None:
    """The uvicorn protocol object behind an ASGI `send`, when it is the sans-I/O one's
    own method and holds everything `write_text` checks (its frames can then be written
    straight to its transport); else None."""
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
    in the way (see the module's docstring); False, with nothing written, otherwise."""
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
