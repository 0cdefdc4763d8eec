"""What the store tests write: a migrated store, a table with a game started, a bid on
it, and the count of a game's logged actions."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from sqlalchemy import func, select

from server.engine import Game, Rules
from server.store.db import create_engine, migrate
from server.store.models import ActionRow
from server.store.records import ActionWrite
from server.store.repository import TableStore


@contextlib.asynccontextmanager
async def opened(url: str) -> AsyncIterator[TableStore]:
    """A store on `url`, migrated; closed after, with no connection left out of the pool."""
    engine = create_engine(url)
    await migrate(engine)
    store = TableStore(engine)
    yield store
    await store.close()
    assert engine.pool.checkedout() == 0
    await engine.dispose()


async def started(store: TableStore, table_id: str, seed: int = 7) -> int:
    """A standard table made and its game started from `seed`: the game's id (version 2)."""
    await store.create_table(table_id, "T", {"preset": "standard"}, 4)
    snapshot = Game(Rules.preset("standard"), seed=seed).to_state()
    game_id, _version = await store.start_game(table_id, 1, 1, seed, snapshot)
    return game_id


def bid(table_id: str, game_id: int, old_version: int, seat: int = 1, **more) -> ActionWrite:
    """`seat` bids 3 on top of `old_version`: the game's first action."""
    return ActionWrite(
        table_id=table_id,
        old_version=old_version,
        status="playing",
        game_id=game_id,
        seq=1,
        seat=seat,
        action={"type": "bid", "bid": 3},
        snapshot=None,
        new_hands=[],
        first_hand_number=1,
        winner=None,
        final_scores=None,
        **more,
    )


async def logged(store: TableStore, game_id: int) -> int:
    """The actions logged for the game."""
    async with store.sessions() as session:
        count = await session.scalar(
            select(func.count()).select_from(ActionRow).where(ActionRow.game_id == game_id)
        )
    return count or 0
