"""Seeds for the next deal through real sockets, on SQLite and PostgreSQL: each seat has a
budget over all its sockets and each client address one over all its seats, past which a
seed is `rate_limited` with nothing changed; a seed the seat already has changes nothing
(no version, no write, no state to anyone)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from bench.harness import tables
from server.app import create_app
from server.settings import Settings
from tests.conftest import serve
from tests.realtime.players import TableClient


@pytest.fixture
async def tight(settings: Settings) -> AsyncIterator[tuple[httpx.AsyncClient, str]]:
    """A served app whose seats have 3 seeds a minute, and an address 5."""
    budgets = {"seed_rate_limit": "3/minute", "seed_address_rate_limit": "5/minute"}
    application = create_app(settings.model_copy(update=budgets))
    async for address in serve(application):
        async with httpx.AsyncClient(base_url=f"http://{address}") as http:
            yield http, address


async def sit(http: httpx.AsyncClient, address: str, table_id: str, seat: int) -> TableClient:
    [token] = await tables.take_seats(http, table_id, [seat])
    client = TableClient(address, table_id, token)
    await client.connect()
    return client


async def seed(client: TableClient, value: str) -> dict[str, Any]:
    """Send a seed; the state that shows it, or the refusal."""
    await client.send({"type": "seed", "value": value})
    return await client.until(
        lambda m: (
            m["type"] == "error"
            or (m["type"] == "state" and value in m["fairness"]["client_seeds"].values())
        )
    )


async def test_seeds_have_a_budget_per_seat_and_per_address(tight):
    http, address = tight
    table_id = (await tables.create_table(http, {"preset": "standard"}, "seeds"))["id"]
    ann, bob = [await sit(http, address, table_id, seat) for seat in (0, 1)]
    anns_phone = TableClient(address, table_id, ann.token)
    await anns_phone.connect()
    try:
        answers = [await seed(ann, f"ann {n}") for n in range(4)]
        assert [a["type"] for a in answers] == ["state"] * 3 + ["error"]
        assert answers[3]["code"] == "rate_limited"
        version = (await http.get(f"/api/tables/{table_id}")).json()["version"]
        # Another socket of the same seat spends the same seat's budget.
        refused = await seed(anns_phone, "from the phone")
        assert refused["type"] == "error" and refused["code"] == "rate_limited"
        # Another seat from the same address: only what is left of the address's (5 - 3).
        more = [await seed(bob, f"bob {n}") for n in range(3)]
        assert [m["type"] for m in more] == ["state", "state", "error"]
        assert more[2]["code"] == "rate_limited"
        table = (await http.get(f"/api/tables/{table_id}")).json()
        assert table["version"] == version + 2
        assert bob.state is not None
        assert bob.state["fairness"]["client_seeds"] == {"0": "ann 2", "1": "bob 1"}
    finally:
        for client in (ann, bob, anns_phone):
            await client.close()


async def test_a_seed_the_seat_already_has_changes_nothing(served, http):
    _app, address = served
    table_id = (await tables.create_table(http, {"preset": "standard"}, "seeds"))["id"]
    ann = await sit(http, address, table_id, 0)
    watcher = TableClient(address, table_id)
    await watcher.connect()
    try:
        shown = await seed(ann, "lucky")
        await watcher.until(lambda m: m["type"] == "state" and m["version"] == shown["version"])
        version = (await http.get(f"/api/tables/{table_id}")).json()["version"]
        assert version == shown["version"]
        ann.drain(), watcher.drain()
        for _ in range(5):
            await ann.send({"type": "seed", "value": "lucky"})
        for client in (ann, watcher):  # a pong after the seeds: they have all been handled
            await client.send({"type": "ping"})
            await client.until(lambda m: m["type"] == "pong")
        assert [m for m in ann.drain() + watcher.drain() if m["type"] != "pong"] == []
        assert (await http.get(f"/api/tables/{table_id}")).json()["version"] == version
        changed = await seed(ann, "luckier")
        assert changed["type"] == "state" and changed["version"] > version
    finally:
        await ann.close()
        await watcher.close()
