"""The socket and chat budgets: a moving window per key, and no key kept for ever."""

from __future__ import annotations

import pytest

from server.api import guards
from server.api.guards import Limiter


@pytest.fixture
def clock(monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(guards.time, "monotonic", lambda: now[0])
    return now


def test_a_budget_refuses_past_its_rate_and_refills_as_the_window_moves(clock):
    limiter = Limiter("3/second")
    assert [limiter.allow("a") for _ in range(4)] == [True, True, True, False]
    assert limiter.allow("b")
    clock[0] += 1.01
    assert limiter.allow("a")


def test_a_closed_connection_leaves_no_key(clock):
    limiter = Limiter("20/second")
    limiter.allow("socket-1")
    limiter.forget("socket-1")
    assert limiter.hits == {}


def test_keys_unused_for_a_whole_window_are_dropped(clock):
    limiter = Limiter("30/minute", "chat")
    for n in range(100):
        limiter.allow(f"198.51.100.{n}")
    clock[0] += 61
    limiter.allow("203.0.113.1")
    assert list(limiter.hits) == ["203.0.113.1"]
