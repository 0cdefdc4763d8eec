"""The repository's optimistic version check: a stale writer changes nothing."""

from __future__ import annotations

import pytest

from server.store.action_writes import VersionConflict
from server.store.records import SeatRecord
from tests.store.writes import bid, logged, started


async def test_a_write_on_top_of_an_old_version_is_refused(store):
    await store.create_table("t-conflict", "T", {"preset": "standard"}, 4)
    record = await store.load("t-conflict")
    assert record is not None and record.version == 1
    await store.update_seats("t-conflict", 1, [SeatRecord(0, name="Ann")])
    with pytest.raises(VersionConflict):
        await store.update_seats("t-conflict", 1, [SeatRecord(1, name="Bob")])
    record = await store.load("t-conflict")
    assert record.version == 2
    assert [seat.name for seat in record.seats] == ["Ann", None, None, None]


async def test_a_refused_action_leaves_no_trace_in_the_log(store):
    game_id = await started(store, "t-log", seed=42)
    with pytest.raises(VersionConflict):
        await store.record_action(bid("t-log", game_id, 1, seat=0))
    assert await logged(store, game_id) == 0
    assert (await store.load("t-log")).version == 2
