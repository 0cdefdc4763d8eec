"""The repository's optimistic version check: a stale writer changes nothing."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from server.engine import Game, Rules
from server.store.action_writes import VersionConflict
from server.store.db import create_engine, migrate
from server.store.models import ActionRow
from server.store.records import ActionWrite, SeatRecord
from server.store.repository import TableStore


@pytest.fixture
async def store(database_url):
    engine = create_engine(database_url)
    await migrate(engine)
    yield TableStore(engine)
    await engine.dispose()


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
    await store.create_table("t-log", "T", {"preset": "standard"}, 4)
    snapshot = Game(Rules.preset("standard"), seed=42).to_state()
    game_id, _version = await store.start_game("t-log", 1, 1, 42, snapshot)
    write = ActionWrite(
        table_id="t-log",
        old_version=1,
        status="playing",
        game_id=game_id,
        seq=1,
        seat=0,
        action={"type": "bid", "bid": 3},
        snapshot=None,
        new_hands=[],
        first_hand_number=1,
        winner=None,
        final_scores=None,
    )
    with pytest.raises(VersionConflict):
        await store.record_action(write)
    async with store.sessions() as session:
        count = await session.scalar(
            select(func.count()).select_from(ActionRow).where(ActionRow.game_id == game_id)
        )
    assert count == 0
    assert (await store.load("t-log")).version == 2
