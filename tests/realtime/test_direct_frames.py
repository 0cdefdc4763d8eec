"""A state's text frame written straight to the transport (`server.api.wire`), through the
real protocol: real uvicorn (`--ws websockets-sansio`, in this process) and real clients.

The frame is the bytes `websockets` would have made, and a client receives byte for byte
what uvicorn's own `send` gives it; it goes straight only when nothing stands in the way,
and otherwise through uvicorn's `send` as before: a transport holding back writes (the
rest then follow in order, as they do through uvicorn's `send` alone), per-message
deflate, anything but a plain state. Outside the uvicorn and websockets versions it is
tested with, or with SPADES_DIRECT_FRAMES off, every frame goes through uvicorn's `send`.
These are about the socket layer, not the database: they run on SQLite only.
"""

from __future__ import annotations

import json
import secrets
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
import uvicorn
import websockets
import websockets.version
from websockets.frames import Frame as WireFrame
from websockets.frames import Opcode

from server.api.wire import FramePath, direct_protocol, text_frame
from server.realtime.views import Frame
from tests.realtime.players import create_table
from tests.realtime.test_socket_limits import (
    RawSocket,
    eventually,
    listeners,
    served_with,
    watcher_of_a_new_table,
)


@pytest.fixture
def database_url(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path / 'db' / 'spades.db'}"


@pytest.mark.parametrize("size", [0, 1, 125, 126, 127, 4096, 65535, 65536, 70000])
def test_a_text_frame_is_the_bytes_websockets_makes(size: int) -> None:
    payload = ("é" * size).encode()[:size]
    expected = WireFrame(Opcode.TEXT, payload).serialize(mask=False, extensions=[])
    assert text_frame(payload) == expected


class CountedSends:
    """Counts the texts uvicorn hands to `websockets` for one connection (a state that
    went straight to the transport never gets there)."""

    def __init__(self, protocol: Any) -> None:
        self.count = 0
        connection = protocol.conn
        original = connection.send_text

        def send_text(data: bytes, fin: bool = True) -> None:
            self.count += 1
            original(data, fin)

        connection.send_text = send_text


def state_frame(n: int, pad: str = "") -> Frame:
    return Frame(orjson.dumps({"type": "state", "n": n, "pad": pad}))


async def texts_until(socket: RawSocket, count: int) -> list[dict[str, Any]]:
    """The next `count` text messages the raw socket receives, decoded."""
    received: list[dict[str, Any]] = []
    while len(received) < count:
        for event in await socket.receive():
            if isinstance(event, WireFrame) and event.opcode is Opcode.TEXT:
                received.append(json.loads(event.data))
    return received


async def test_states_go_straight_to_the_transport_and_arrive_whole(settings) -> None:
    async with served_with(settings) as (app, address):
        client, listener = await watcher_of_a_new_table(app, address)
        await texts_until(client, 1)  # the hello's answer
        assert listener.direct is not None, "a websockets-sansio connection is written directly"
        counted = CountedSends(listener.direct)
        # Each length form of a frame (1, 3 and 9 bytes), non-ASCII text included.
        pads = ["", "ü" * 1000, "x" * 70000]
        for n, pad in enumerate(pads):
            listener.send(state_frame(n, pad))
        assert [(m["n"], m["pad"]) for m in await texts_until(client, 3)] == list(enumerate(pads))
        assert counted.count == 0, "the states went straight to the transport"
        # Any other message goes through uvicorn, in order with the states around it.
        listener.send({"type": "pong"})
        listener.send(state_frame(3))
        received = await texts_until(client, 2)
        assert [m["type"] for m in received] == ["pong", "state"]
        assert counted.count == 1
        client.close()


async def raw_bytes_of_states(settings, direct: bool, payloads: list[bytes]) -> bytes:
    """What a client's socket receives, byte for byte, when a listener is sent a state of
    each payload, with the frame path on or off; checks which path the states took."""
    async with served_with(settings, direct_frames=direct) as (app, address):
        client, listener = await watcher_of_a_new_table(app, address)
        await texts_until(client, 1)  # the hello's answer
        assert (listener.direct is not None) is direct
        counted = CountedSends(direct_protocol(listener.send_asgi))
        for payload in payloads:
            listener.send(Frame(payload))
        expected = sum(len(text_frame(payload)) for payload in payloads)
        received = b""
        while len(received) < expected:
            received += await client.reader.read(expected - len(received))
        assert counted.count == (0 if direct else len(payloads))
        client.close()
        return received


async def test_a_client_receives_the_same_bytes_as_through_uvicorns_send(settings) -> None:
    payloads = [
        orjson.dumps({"type": "state", "n": n, "pad": pad})
        for n, pad in enumerate(["", "ü" * 60, "ü" * 1000, "x" * 70000])
    ]
    through_uvicorn = await raw_bytes_of_states(settings, False, payloads)
    straight = await raw_bytes_of_states(settings, True, payloads)
    assert straight == through_uvicorn


@pytest.mark.parametrize("direct", [True, False], ids=["direct", "uvicorn-send"])
async def test_a_state_that_must_wait_goes_through_uvicorn_and_the_rest_follow_in_order(
    settings, direct: bool
) -> None:
    # The same sends with the frame path off are the reference: both ways, the first send
    # that must wait leaves a writer and a queue, and the client gets every state in order.
    async with served_with(settings, direct_frames=direct) as (app, address):
        slow, listener = await watcher_of_a_new_table(app, address, receive_buffer=4096)
        counted = CountedSends(direct_protocol(listener.send_asgi))
        # Nothing read: the first states go straight, until the transport holds back
        # writes; the next one goes through uvicorn's send (which waits: a writer finishes
        # it) and the ones after it are queued behind it.
        pad = secrets.token_urlsafe(49152)
        count = 60
        for n in range(count):
            listener.send(state_frame(n, pad))
        assert listener.writer is not None and listener.queue, "a send had to wait"
        received = [m["n"] for m in await texts_until(slow, count + 1) if "n" in m]
        assert received == list(range(count))
        if direct:
            # Some went straight, the one that waited and those queued behind it did not.
            assert 0 < counted.count < count
        else:
            assert counted.count == count
        # Once the queue is empty, the next state goes straight again (or through uvicorn).
        await eventually(lambda: listener.writer is None and listener.queue is None)
        through_uvicorn = counted.count
        listener.send(state_frame(count))
        assert listener.writer is None
        assert counted.count == through_uvicorn + (0 if direct else 1)
        assert [m["n"] for m in await texts_until(slow, 1)] == [count]
        slow.close()


async def test_with_per_message_deflate_states_are_compressed_by_websockets(settings) -> None:
    # The served app's uvicorn offers per-message deflate (its default); the client takes it.
    async with served_with(settings) as (app, address):
        async with httpx.AsyncClient(base_url=f"http://{address}") as http:
            table_id = await create_table(http, {"preset": "standard"})
        async with websockets.connect(
            f"ws://{address}/ws/tables/{table_id}", compression="deflate"
        ) as client:
            await client.send(json.dumps({"type": "hello", "token": None, "version": None}))
            assert json.loads(await client.recv())["type"] == "state"
            [listener] = await listeners(app, table_id)
            assert listener.direct.conn.extensions, "deflate was negotiated"
            counted = CountedSends(listener.direct)
            listener.send(state_frame(1, "y" * 5000))
            message = json.loads(await client.recv())
            assert (message["n"], message["pad"]) == (1, "y" * 5000)
            assert counted.count == 1, "the state went through websockets, to be compressed"


@pytest.mark.parametrize(
    ("library", "version", "direct"),
    [
        (uvicorn, "0.55.0", True),
        (uvicorn, "0.52.0", False),
        (uvicorn, "0.56.0", False),
        (uvicorn, "1.0.0", False),
        (websockets.version, "17.4", True),
        (websockets.version, "14.0", False),
        (websockets.version, "18.0", False),
    ],
)
def test_the_frame_path_is_direct_only_for_the_tested_versions(
    monkeypatch: pytest.MonkeyPatch, library: Any, version: str, direct: bool
) -> None:
    # The version strings the gate reads, the other library's one inside its range.
    monkeypatch.setattr(uvicorn, "__version__", "0.55.0")
    monkeypatch.setattr(websockets.version, "version", "17.4")
    monkeypatch.setattr(library, "__version__" if library is uvicorn else "version", version)
    assert FramePath().direct is direct
    assert FramePath(wanted=False).direct is False


async def test_outside_the_tested_uvicorn_every_state_goes_through_uvicorns_send(
    settings, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(uvicorn, "__version__", "0.99.0")
    async with served_with(settings, log_level="INFO", log_json=True) as (app, address):
        logged = [json.loads(line) for line in capsys.readouterr().err.splitlines() if line]
        [path] = [line for line in logged if line["event"].startswith("state frames")]
        assert path["event"] == "state frames sent through uvicorn's send"
        assert "outside the tested range" in path["reason"] and "0.99.0" in path["versions"]
        client, listener = await watcher_of_a_new_table(app, address)
        await texts_until(client, 1)
        assert listener.direct is None
        counted = CountedSends(direct_protocol(listener.send_asgi))
        for n in range(3):
            listener.send(state_frame(n))
        assert [m["n"] for m in await texts_until(client, 3)] == [0, 1, 2]
        assert counted.count == 3, "every state went through uvicorn's send"
        client.close()
