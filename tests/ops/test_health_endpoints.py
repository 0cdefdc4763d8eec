"""/healthz, /readyz and /metrics on real SQLite, PostgreSQL and Redis (no mocks)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from prometheus_client import REGISTRY

from server.api.services import services_of
from server.observability import ACTION_LATENCY, ACTIONS, REFUSED_ACTIONS

METRIC_NAMES = (
    "spades_open_tables",
    "spades_connected_sockets",
    "spades_actions_total",
    "spades_refused_actions_total",
    "spades_action_latency_seconds",
    "spades_bot_decision_seconds",
    "spades_errors_total",
)
PATHS = ("/healthz", "/readyz", "/metrics")


def ops_app(db_engine: Any, redis: Any) -> FastAPI:
    """The table server's app, its services holding this database engine and Redis client."""
    from server.app import create_app
    from server.settings import Settings

    app = create_app(Settings(database_url="sqlite+aiosqlite://", redis_url=None))
    app.state.services = replace(services_of(app), db_engine=db_engine, redis=redis)
    return app


async def client_for(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://ops.test") as client:
        yield client


@pytest.fixture
async def sqlite_client(sqlite_engine) -> AsyncIterator[httpx.AsyncClient]:
    async for client in client_for(ops_app(sqlite_engine, None)):
        yield client


async def test_healthz_is_200_while_serving(sqlite_client):
    response = await sqlite_client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


async def test_readyz_on_sqlite_without_redis_is_ready(sqlite_client):
    response = await sqlite_client.get("/readyz")
    assert response.status_code == 200
    assert response.json() == {
        "status": "ready",
        "checks": {"database": "ok", "redis": "not configured"},
    }


async def test_readyz_on_postgres_and_redis_is_ready(postgres_engine, redis_client):
    async for client in client_for(ops_app(postgres_engine, redis_client)):
        response = await client.get("/readyz")
    assert response.status_code == 200
    assert response.json()["checks"] == {"database": "ok", "redis": "ok"}


async def test_readyz_names_redis_down_when_its_port_is_unreachable(sqlite_engine, free_port):
    from redis.asyncio import Redis

    unreachable = Redis.from_url(f"redis://127.0.0.1:{free_port}/0")
    async for client in client_for(ops_app(sqlite_engine, unreachable)):
        response = await client.get("/readyz")
    await unreachable.aclose()
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert body["down"] == ["redis"]
    assert body["checks"]["database"] == "ok"
    assert body["checks"]["redis"].startswith("down: ")


async def test_readyz_names_database_down_when_postgres_is_unreachable(free_port):
    from sqlalchemy.ext.asyncio import create_async_engine

    engine = create_async_engine(f"postgresql+asyncpg://postgres@127.0.0.1:{free_port}/x")
    async for client in client_for(ops_app(engine, None)):
        response = await client.get("/readyz")
    await engine.dispose()
    assert response.status_code == 503
    assert response.json()["down"] == ["database"]


async def test_metrics_exposes_every_game_metric_in_prometheus_text(sqlite_client):
    labels = {"type": "bid"}
    before = REGISTRY.get_sample_value("spades_actions_total", labels) or 0.0
    ACTIONS.labels(**labels).inc()
    REFUSED_ACTIONS.labels(code="not_your_turn").inc()
    ACTION_LATENCY.observe(0.003)

    response = await sqlite_client.get("/metrics")

    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    body = response.text
    for name in METRIC_NAMES:
        assert f"# TYPE {name} " in body, name
    assert f'spades_actions_total{{type="bid"}} {before + 1}' in body
    assert 'spades_refused_actions_total{code="not_your_turn"}' in body
    assert 'spades_action_latency_seconds_bucket{le="0.005"}' in body
    assert 'spades_connected_sockets{role="spectator"}' in body


@pytest.fixture
async def real_app_with(tmp_path):
    """The table server's own app (create_app), its engine and Redis client closed after."""
    from server.app import create_app
    from server.settings import Settings

    apps: list[FastAPI] = []

    def build(redis_url: str | None) -> FastAPI:
        database_url = f"sqlite+aiosqlite:///{tmp_path / 'app.db'}"
        apps.append(create_app(Settings(database_url=database_url, redis_url=redis_url)))
        return apps[-1]

    yield build
    for app in apps:
        if services_of(app).redis is not None:
            await services_of(app).redis.aclose()
        await services_of(app).db_engine.dispose()


async def test_the_real_app_serves_health_readiness_and_metrics(real_app_with, redis_url):
    async for client in client_for(real_app_with(redis_url)):
        health, ready, metrics = [await client.get(path) for path in PATHS]
    assert health.json() == {"status": "ok"}
    assert ready.status_code == 200, ready.text
    assert ready.json()["checks"] == {"database": "ok", "redis": "ok"}
    assert all(f"# TYPE {name} " in metrics.text for name in METRIC_NAMES)


async def test_the_real_app_is_not_ready_when_its_redis_is_unreachable(real_app_with, free_port):
    async for client in client_for(real_app_with(f"redis://127.0.0.1:{free_port}/0")):
        health = await client.get("/healthz")
        ready = await client.get("/readyz")
    assert health.status_code == 200, "alive even when a dependency is down"
    assert ready.status_code == 503
    assert ready.json()["down"] == ["redis"]
