"""Group commit: actions of many tables share a transaction, each answered by its own fate."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import event, text
from structlog.testing import capture_logs

from server.store import batch
from server.store.action_writes import PlainMoves, VersionConflict, write_actions
from server.store.batch import HeldSQLite, LandedFailed
from server.store.db import LOOP_CHECKPOINT_PAGES, create_engine, migrate, sqlite_file_engine
from server.store.records import ActionWrite, SeatRecord
from server.store.repository import TableStore
from server.store.statements import CoreWriter
from tests.store.writes import bid, logged, opened, started


@pytest.fixture
async def postgres_store(postgres_url):
    async with opened(postgres_url) as store:
        yield store


@pytest.fixture
async def sqlite_store(tmp_path):
    """SQLite alone: a file another process can lock."""
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'held.db'}")
    await migrate(engine)
    yield TableStore(engine)
    await engine.dispose()


async def test_actions_of_many_tables_arriving_together_share_transactions(store):
    games = {f"t-group-{n}": await started(store, f"t-group-{n}") for n in range(12)}
    seat = [SeatRecord(1, name="Bob", timeouts=1)]
    versions = await asyncio.gather(
        *(store.record_action(bid(table, game, 2, seats=seat)) for table, game in games.items())
    )
    assert versions == [3] * 12
    assert store.actions.batches < 12
    for table, game in games.items():
        record = await store.load(table)
        assert record is not None and record.version == 3
        assert record.seats[1].timeouts == 1
        assert await logged(store, game) == 1


async def test_a_conflict_in_a_batch_refuses_only_its_own_table(store):
    games = {f"t-mixed-{n}": await started(store, f"t-mixed-{n}") for n in range(6)}
    stale = "t-mixed-3"
    answers = await asyncio.gather(
        *(
            store.record_action(bid(table, game, 1 if table == stale else 2))
            for table, game in games.items()
        ),
        return_exceptions=True,
    )
    for (table, game), answer in zip(games.items(), answers, strict=True):
        if table == stale:
            assert isinstance(answer, VersionConflict)
            assert await logged(store, game) == 0
            assert (await store.load(table)).version == 2
        else:
            assert answer == 3
            assert await logged(store, game) == 1


async def test_each_write_of_a_batch_is_announced_in_the_step_that_committed_it(store):
    """`landed` runs with the write's new version before any caller of the batch wakes
    up (the broadcast does not wait one more turn of the loop), once per write that
    landed; a conflicting write's is never called, and a callback that raises fails its
    own caller (`LandedFailed`, not tried again) and nobody else's."""
    games = {f"t-landed-{n}": await started(store, f"t-landed-{n}") for n in range(5)}
    stale, broken = "t-landed-1", "t-landed-3"
    heard: list[tuple[str, int]] = []
    woken: list[str] = []

    def landed(table: str):
        def call(version: int) -> None:
            assert woken == []  # in the committing step: no caller has resumed yet
            heard.append((table, version))
            if table == broken:
                raise RuntimeError("a broadcast that fails")

        return call

    async def move(table: str, game: int) -> int:
        try:
            return await store.record_action(
                bid(table, game, 1 if table == stale else 2), landed(table)
            )
        finally:
            woken.append(table)

    answers = await asyncio.gather(
        *(move(table, game) for table, game in games.items()), return_exceptions=True
    )
    assert sorted(heard) == [(table, 3) for table in games if table != stale]
    assert isinstance(answers[1], VersionConflict)
    assert isinstance(answers[3], LandedFailed)
    assert isinstance(answers[3].__cause__, RuntimeError)
    assert [answers[n] for n in (0, 2, 4)] == [3, 3, 3]
    # The broken callback's write landed all the same, once.
    assert (await store.load(broken)).version == 3
    assert await logged(store, games[broken]) == 1


async def test_a_lone_write_is_announced_before_its_caller_goes_on(sqlite_store):
    game = await started(sqlite_store, "t-lone-landed")
    heard: list[int] = []
    assert await sqlite_store.record_action(bid("t-lone-landed", game, 2), heard.append) == 3
    assert heard == [3]
    with pytest.raises(VersionConflict):
        await sqlite_store.record_action(bid("t-lone-landed", game, 2), heard.append)
    assert heard == [3]


async def test_a_failing_write_in_a_batch_fails_alone(store):
    games = {f"t-bad-{n}": await started(store, f"t-bad-{n}") for n in range(4)}
    # A log row for a game that does not exist breaks its own transaction only.
    writes = [bid(table, game, 2) for table, game in games.items()]
    writes[0] = bid("t-bad-0", 999_999, 2)
    answers = await asyncio.gather(
        *(store.record_action(write) for write in writes), return_exceptions=True
    )
    assert isinstance(answers[0], Exception) and not isinstance(answers[0], VersionConflict)
    assert answers[1:] == [3, 3, 3]
    assert (await store.load("t-bad-0")).version == 2


async def test_only_the_action_that_ends_a_game_writes_the_status(store):
    """The bump leaves the status alone; the game-ending write sets it, in a batch too."""
    games = {f"t-end-{n}": await started(store, f"t-end-{n}") for n in range(5)}
    ending = {"t-end-1", "t-end-2", "t-end-4"}
    writes = [
        replace(bid(table, game, 2), status="over", winner=0, final_scores=[500, 100])
        if table in ending
        else bid(table, game, 2)
        for table, game in games.items()
    ]
    assert await asyncio.gather(*(store.record_action(w) for w in writes[:4])) == [3] * 4
    # One alone (not in a batch) ends its game as well.
    assert await store.record_action(writes[4]) == 3
    for table in games:
        record = await store.load(table)
        assert record is not None
        assert record.status == ("over" if table in ending else "playing"), table


async def test_a_lone_action_on_sqlite_is_written_in_its_callers_own_step(sqlite_store):
    """Nothing else ready to run, nothing waiting: the write needs no writer task, no
    future and no more turns of the loop; its answer is the same (a conflict or a failure
    raised to its caller alone, the table as it was)."""
    store = sqlite_store
    game = await started(store, "t-lone")
    commit = store.actions
    assert await store.record_action(bid("t-lone", game, 2)) == 3
    with pytest.raises(VersionConflict):
        await store.record_action(bid("t-lone", game, 2))
    with pytest.raises(sqlite3.IntegrityError):  # a log row for a game that does not exist
        await store.record_action(bid("t-lone", 999_999, 3))
    assert not commit.started_writer  # every one of them went without the writer task
    assert (commit.batches, commit.writes) == (2, 2)  # the failed one was rolled back
    assert (await store.load("t-lone")).version == 3
    assert await logged(store, game) == 1


async def test_a_lone_write_compiles_no_statement_once_its_statements_are_cached(sqlite_store):
    """Every statement of a lone move's transaction, BEGIN and COMMIT included, comes from
    sqlite3's statement cache: SQLite's parser does not run on a move's path (sqlite3's
    implicit BEGIN and its `commit()` compile theirs again for every transaction). SQLite
    calls an authorizer only while it compiles a statement. The transaction still opens
    with BEGIN IMMEDIATE, ends committed, and a failed one is rolled back."""
    store = sqlite_store
    game = await started(store, "t-cached")
    commit = store.actions
    assert await store.record_action(bid("t-cached", game, 2)) == 3
    held = commit.on_loop
    assert held is not None and held.raw is not None
    compiled: list[tuple[int, str | None]] = []

    def authorize(action: int, first: str | None, *_rest: object) -> int:
        compiled.append((action, first))
        return sqlite3.SQLITE_OK

    held.raw.set_authorizer(authorize)  # expires the cached statements: compiled again once
    statements: list[str] = []
    held.raw.set_trace_callback(statements.append)
    write = replace(bid("t-cached", game, 3), seq=2)
    assert await store.record_action(write) == 4
    assert (sqlite3.SQLITE_TRANSACTION, "BEGIN") in compiled
    assert (sqlite3.SQLITE_TRANSACTION, "COMMIT") in compiled
    compiled.clear()
    statements.clear()
    write = replace(bid("t-cached", game, 4), seq=3)
    assert await store.record_action(write) == 5
    assert compiled == []
    assert statements[0] == "BEGIN IMMEDIATE" and statements[-1] == "COMMIT", statements
    assert not held.raw.in_transaction
    with pytest.raises(VersionConflict):
        await store.record_action(replace(bid("t-cached", game, 4), seq=4))
    with pytest.raises(sqlite3.IntegrityError):  # a log row for a game that does not exist
        await store.record_action(bid("t-cached", 999_999, 5))
    assert statements[-1] == "ROLLBACK" and not held.raw.in_transaction
    held.raw.set_authorizer(None)
    held.raw.set_trace_callback(None)
    assert not commit.started_writer  # all of them written on the loop, alone
    assert (await store.load("t-cached")).version == 5
    assert await logged(store, game) == 3


async def test_the_wal_is_checkpointed_in_the_writer_thread_not_on_the_loop(
    sqlite_store, monkeypatch
):
    """The connection written on the event loop leaves the WAL's checkpoints (copies and
    fsyncs) to the writer thread: its own is a backstop far above SQLite's default, and
    every CHECKPOINT_EVERY of its transactions one passive checkpoint runs in the thread
    and copies the WAL into the file. A checkpoint that fails is logged, and the next one
    is asked for as usual."""
    monkeypatch.setattr(batch, "CHECKPOINT_EVERY", 3)
    store = sqlite_store
    game = await started(store, "t-checkpoint")
    commit = store.actions
    assert commit.in_thread is not None and commit.on_loop is not None
    made: list[tuple[str, tuple[int, int, int]]] = []
    real = commit.in_thread.checkpoint
    failures = [RuntimeError("the disk said no")]

    def checkpoint() -> tuple[int, int, int]:
        if failures:
            raise failures.pop()
        answer = real()
        made.append((threading.current_thread().name, answer))
        return answer

    monkeypatch.setattr(commit.in_thread, "checkpoint", checkpoint)

    async def settled() -> None:
        while commit.checkpointing:
            await asyncio.sleep(0.01)

    with capture_logs() as logs:
        for version in range(2, 5):  # three transactions on the loop: the first ask fails
            write = replace(bid("t-checkpoint", game, version), seq=version)
            assert await store.record_action(write) == version + 1
        await settled()
    assert (commit.checkpoints, made) == (0, [])
    assert [(e["event"], e["error"]) for e in logs] == [("WAL checkpoint failed", "RuntimeError")]
    for version in range(5, 8):  # three more: the next one is made
        write = replace(bid("t-checkpoint", game, version), seq=version)
        assert await store.record_action(write) == version + 1
    await settled()
    assert commit.checkpoints == 1
    [(thread, (busy, logged_pages, copied))] = made
    assert thread.startswith("sqlite-writer")
    assert busy == 0 and logged_pages > 0 and copied == logged_pages
    loop_connection = commit.on_loop.raw
    assert loop_connection is not None
    pages = loop_connection.execute("PRAGMA wal_autocheckpoint").fetchone()[0]
    assert pages == LOOP_CHECKPOINT_PAGES > 1000
    assert (await store.load("t-checkpoint")).version == 8
    assert await logged(store, game) == 6


async def test_a_long_wal_is_finished_by_the_loops_own_connection(sqlite_store, monkeypatch):
    """Under load the writer thread's checkpoint never reaches the end of a WAL the loop
    keeps writing, and a WAL starts over only once all of it is copied: when the thread
    found it FINISH_PAGES long or more, the loop's connection copies the rest itself,
    once, right after its next transaction."""
    monkeypatch.setattr(batch, "CHECKPOINT_EVERY", 2)
    monkeypatch.setattr(batch, "FINISH_PAGES", 1)
    store = sqlite_store
    game = await started(store, "t-finish")
    commit = store.actions
    assert commit.on_loop is not None
    threads: list[str] = []
    real = commit.on_loop.checkpoint

    def on_the_loop() -> tuple[int, int, int]:
        threads.append(threading.current_thread().name)
        return real()

    monkeypatch.setattr(commit.on_loop, "checkpoint", on_the_loop)
    for version in range(2, 4):  # the second asks the thread for a checkpoint
        write = replace(bid("t-finish", game, version), seq=version)
        assert await store.record_action(write) == version + 1
    while commit.checkpointing:
        await asyncio.sleep(0.01)
    assert (commit.checkpoints, commit.finished, threads) == (1, 0, [])
    write = replace(bid("t-finish", game, 4), seq=4)
    assert await store.record_action(write) == 5  # then the loop finishes the WAL
    assert (commit.finished, threads) == (1, [threading.main_thread().name])
    write = replace(bid("t-finish", game, 5), seq=5)
    assert await store.record_action(write) == 6  # once only
    assert commit.finished == 1
    assert await logged(store, game) == 4


async def test_an_action_waits_for_another_process_holding_the_sqlite_file(sqlite_store):
    store = sqlite_store
    game = await started(store, "t-held")
    other = sqlite3.connect(store.engine.url.database, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # a `spades` command writing to the same file
    try:
        pending = asyncio.ensure_future(store.record_action(bid("t-held", game, 2)))
        await asyncio.sleep(0.3)
        assert not pending.done()  # not refused: it waits in the writer thread
    finally:
        other.execute("COMMIT")
        other.close()
    assert await asyncio.wait_for(pending, 10) == 3
    assert await logged(store, game) == 1


async def test_sqlite3_stores_exactly_what_sqlalchemy_would(tmp_path):
    """On SQLite the batch goes straight through sqlite3 (`SQLiteWriter`); the same batch
    written through SQLAlchemy (`CoreWriter`) into another file leaves the same rows,
    column for column as stored: JSON, booleans, NULLs, datetimes as SQLite text."""
    deadline = datetime(2026, 12, 1, 21, 30, 5, 250000, tzinfo=UTC)
    files = {}
    for kind in ("core", "sqlite3"):
        engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / kind}.db")
        await migrate(engine)
        store = TableStore(engine)
        games = [await started(store, f"t-{n}") for n in range(2)]
        seats = [SeatRecord(1, name="Bob", connected=True, autoplay=True, autoplay_reason="away")]
        writes = [
            bid("t-0", games[0], 2, deadline=deadline, seats=seats, cause="timer"),
            replace(
                bid("t-1", games[1], 2),
                status="over",
                snapshot={"format": 1, "nested": {"1": [None, True]}},
                winner=1,
                final_scores=[510, 230],
                new_hands=[
                    {
                        "dealer": 0,
                        "bids": [3, 4, 2, 4],
                        "tricks": [3, 4, 2, 4],
                        "deal": [["AS"], ["KS"], ["QS"], ["JS"]],
                        "sides": [{"points": 70, "score": 510, "bags": 1}],
                        "timer_moves": [],
                        "plays": None,
                        "fairness": None,
                    }
                ],
            ),
        ]
        file = sqlite_file_engine(engine)
        assert file is not None
        if kind == "core":
            with file.begin() as connection:
                outcomes = write_actions(CoreWriter(connection), writes)
        else:
            outcomes = HeldSQLite(file).write(write_actions, writes)
        assert outcomes == [3, 3]
        file.dispose()
        await engine.dispose()
        files[kind] = tmp_path / f"{kind}.db"

    def rows(path: Path) -> dict[str, list[tuple]]:
        connection = sqlite3.connect(path)
        try:
            return {
                "tables": connection.execute(
                    "SELECT id, version, status, deadline FROM tables ORDER BY id"
                ).fetchall(),
                "seats": connection.execute(
                    "SELECT * FROM seats ORDER BY table_id, seat"
                ).fetchall(),
                "actions": connection.execute(
                    "SELECT game_id, seq, seat, action, version, cause, length(at) FROM actions"
                ).fetchall(),
                "games": connection.execute(
                    "SELECT id, snapshot, snapshot_seq, winner, final_scores, finished IS NULL"
                    " FROM games ORDER BY id"
                ).fetchall(),
                "hands": connection.execute("SELECT * FROM hands ORDER BY id").fetchall(),
            }
        finally:
            connection.close()

    core, direct = rows(files["core"]), rows(files["sqlite3"])
    assert direct == core
    assert direct["tables"][0][3] == "2026-12-01 21:30:05.250000"
    assert direct["games"][1][1:] == (
        '{"format":1,"nested":{"1":[null,true]}}',
        1,
        1,
        "[510,230]",
        0,
    )


async def test_postgresql_writes_plain_moves_as_one_statement_exactly_as_a_transaction_would(
    postgres_store,
):
    """A batch of moves that only bump and log (`PlainMoves`) is one statement on
    PostgreSQL; it leaves the same rows as `write_actions` in a transaction, and refuses
    a stale move as that does, writing nothing of it."""
    store = postgres_store
    deadline = datetime(2026, 12, 1, 21, 30, 5, 250000, tzinfo=UTC)

    def moves(prefix: str, games: list[int]) -> list[ActionWrite]:
        return [
            bid(f"{prefix}-0", games[0], 2, deadline=deadline, cause="timer"),
            replace(bid(f"{prefix}-1", games[1], 2), action={"type": "play", "card": "QH"}),
            bid(f"{prefix}-2", games[2], 1),  # stale: the table is at version 2
        ]

    ones = [await started(store, f"t-one-{n}") for n in range(3)]
    cores = [await started(store, f"t-core-{n}") for n in range(3)]
    plain = PlainMoves()
    assert plain.statement(moves("t-one", ones)) is not None
    through_sqlalchemy: list[str] = []

    def executed(_connection, _cursor, statement, *_args) -> None:
        through_sqlalchemy.append(statement)

    event.listen(store.engine.sync_engine, "before_cursor_execute", executed)
    assert await store.actions.submit(moves("t-one", ones)[0]) == 3
    answers = await asyncio.gather(
        *(store.record_action(write) for write in moves("t-one", ones)[1:]),
        return_exceptions=True,
    )
    event.remove(store.engine.sync_engine, "before_cursor_execute", executed)
    assert through_sqlalchemy == []  # neither BEGIN nor a statement went through SQLAlchemy
    assert answers[0] == 3 and isinstance(answers[1], VersionConflict)
    async with store.engine.begin() as connection:
        outcomes = await connection.run_sync(
            lambda sync: write_actions(CoreWriter(sync), moves("t-core", cores))
        )
    assert outcomes[:2] == [3, 3] and isinstance(outcomes[2], VersionConflict)

    async def rows(prefix: str, games: list[int]) -> list[tuple]:
        found = []
        async with store.engine.connect() as connection:
            for n, game in enumerate(games):
                table = await connection.execute(
                    text("SELECT version, status, deadline FROM tables WHERE id = :id"),
                    {"id": f"{prefix}-{n}"},
                )
                logs = await connection.execute(
                    text(
                        "SELECT seq, seat, action::text, version, cause, at IS NOT NULL"
                        " FROM actions WHERE game_id = :game"
                    ),
                    {"game": game},
                )
                found.append((tuple(table.one()), [tuple(row) for row in logs]))
        return found

    one, core = await rows("t-one", ones), await rows("t-core", cores)
    assert one == core
    assert one[0] == (
        (3, "playing", deadline),
        [(1, 1, '{"type":"bid","bid":3}', 3, "timer", True)],
    )
    assert one[2] == ((2, "playing", None), [])


async def test_a_batch_that_ends_a_hand_or_changes_a_seat_is_not_one_statement():
    """Only plain moves of distinct tables make one statement; the rest need a transaction."""
    plain = PlainMoves()
    move = bid("t-a", 1, 2)
    assert plain.statement([move, bid("t-b", 2, 5)]) is not None
    assert plain.statement([move, replace(bid("t-b", 2, 5), seats=[SeatRecord(1)])]) is None
    assert plain.statement([move, replace(bid("t-b", 2, 5), snapshot={"format": 1})]) is None
    assert plain.statement([move, replace(bid("t-b", 2, 5), status="over", winner=0)]) is None
    assert plain.statement([move, bid("t-a", 1, 3)]) is None  # two moves of one table


async def test_the_writer_keeps_its_postgresql_connection_between_moves_and_gives_it_back(
    postgres_store, monkeypatch
):
    """Moves one after another take the pool's connection once (a checkout pings the
    server first); the writer gives it back once no write came for `LINGER_SECONDS`,
    and at `close` at once."""
    store = postgres_store
    game = await started(store, "t-linger")
    checkouts: list[object] = []
    event.listen(store.engine.sync_engine, "checkout", lambda *args: checkouts.append(args))
    for version in range(2, 7):
        assert await store.record_action(replace(bid("t-linger", game, version), seq=version)) == (
            version + 1
        )
        await asyncio.sleep(0.01)
    assert len(checkouts) == 1
    assert store.engine.pool.checkedout() == 1
    await store.close()
    assert store.engine.pool.checkedout() == 0
    monkeypatch.setattr(batch, "LINGER_SECONDS", 0.05)
    store.actions = type(store.actions)(store.engine, write_actions, PlainMoves())
    assert await store.record_action(replace(bid("t-linger", game, 7), seq=7)) == 8
    assert store.engine.pool.checkedout() == 1
    await asyncio.sleep(0.2)
    assert store.engine.pool.checkedout() == 0
    assert await logged(store, game) == 6
