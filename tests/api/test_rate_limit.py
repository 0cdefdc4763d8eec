"""The HTTP write budget per client address (server/api/ratelimit.py)."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI
from prometheus_client import REGISTRY

from server.api.services import services_of
from server.app import create_app
from server.settings import Settings

BUDGET = 4


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"http_rate_limit": f"{BUDGET}/minute"})


def client_at(app: FastAPI, address: str) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app, client=(address, 40000))
    return httpx.AsyncClient(transport=transport, base_url="http://test")


async def test_writes_over_the_budget_are_refused_and_change_nothing(app):
    async with client_at(app, "203.0.113.7") as spammer, client_at(app, "198.51.100.2") as other:
        for _ in range(BUDGET):
            assert (await spammer.post("/api/tables", json={"listed": True})).status_code == 201
        refused = await spammer.post("/api/tables", json={"name": "one too many", "listed": True})
        assert refused.status_code == 429
        assert "Too many changes" in refused.json()["detail"]
        assert 1 <= int(refused.headers["Retry-After"]) <= 60
        # Nothing was created by the refused request; reading is not limited.
        tables = (await spammer.get("/api/tables")).json()
        assert "one too many" not in {table["name"] for table in tables}
        # Another address has its own budget, and seats count as writes too.
        table_id = tables[0]["id"]
        for seat in range(BUDGET):
            taken = await other.post(f"/api/tables/{table_id}/seats/{seat % 4}", json={"name": "x"})
            assert taken.status_code in (201, 409)
        over = await other.post(f"/api/tables/{table_id}/seats/0/bot", json={})
        assert over.status_code == 429


async def test_reads_are_never_limited(app):
    async with client_at(app, "203.0.113.8") as reader:
        for _ in range(BUDGET * 3):
            assert (await reader.get("/api/tables")).status_code == 200
        assert (await reader.post("/api/tables", json={})).status_code == 201


@pytest.fixture
async def shared_app_pair(settings: Settings, redis_url: str) -> AsyncIterator[list[FastAPI]]:
    """Two apps (two server processes, as far as the limiter knows) on one Redis."""
    shared = settings.model_copy(update={"redis_url": redis_url})
    apps = [create_app(shared), create_app(shared)]
    first, second = (app.router.lifespan_context(app) for app in apps)
    async with first, second:
        yield apps


async def test_with_redis_processes_share_one_budget_per_address(shared_app_pair):
    # A fresh address per run: the windows live in Redis, which outlives the test.
    address = f"10.{secrets.randbelow(250)}.{secrets.randbelow(250)}.{secrets.randbelow(250)}"
    first, second = (client_at(app, address) for app in shared_app_pair)
    async with first, second:
        codes = []
        for turn in range(BUDGET + 2):
            client = first if turn % 2 == 0 else second
            codes.append((await client.post("/api/tables", json={})).status_code)
    assert codes == [201] * BUDGET + [429, 429]


async def test_an_unreachable_redis_lets_writes_through(settings: Settings):
    # Nothing listens on port 1: the limiter fails open (and counts an error).
    broken = settings.model_copy(update={"redis_url": "redis://127.0.0.1:1/0"})
    app = create_app(broken)
    limiter = services_of(app).write_limiter
    errors = REGISTRY.get_sample_value("spades_errors_total", {"where": "http"}) or 0
    for _ in range(BUDGET + 2):
        await limiter.check("203.0.113.9")
    assert (
        REGISTRY.get_sample_value("spades_errors_total", {"where": "http"}) == errors + BUDGET + 2
    )
