"""How the group commit runs its statements: through SQLAlchemy, or straight through sqlite3.

The batch's statements are a handful of fixed Core statements (`server.store.action_writes`).
On PostgreSQL they run on a SQLAlchemy `Connection` (`CoreWriter`). On SQLite, where the
batch is written on the event loop itself, SQLAlchemy's work around each execution (the
cache key, an execution context, the result) cost several times what sqlite3 spends on
the statement. So there `SQLiteWriter` has SQLAlchemy compile each statement once, takes
its column types' bind processors once (the same functions SQLAlchemy applies: JSON
through the engine's serializer, datetimes as SQLite text, booleans as integers), and
hands the rows to sqlite3's `executemany` as tuples.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, cast

from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.expression import ClauseElement, Executable

Rows = Sequence[Mapping[str, Any]]
# A batch's write, as a `OneStatement` takes it.
WriteIn = TypeVar("WriteIn", contravariant=True)


class Writer(Protocol):
    """Where a batch's statements run, inside a transaction its caller opened."""

    @property
    def dialect_name(self) -> str: ...

    def many(self, statement: ClauseElement, rows: Rows) -> int:
        """Run `statement` once per row (all rows with the same keys); the rows it changed."""
        ...

    def scalars(self, statement: ClauseElement, params: Mapping[str, Any]) -> list[Any]:
        """Run `statement` once; the first column of the rows it returns."""
        ...

    def rows(self, statement: ClauseElement, params: Mapping[str, Any]) -> list[tuple[Any, ...]]:
        """Run `statement` once; the rows it returns, as the driver gives them (JSON
        columns are best selected cast to text)."""
        ...


@dataclass(frozen=True, slots=True)
class Statement:
    """One SQL statement in the driver's own dialect (asyncpg's `$1`...), and its arguments."""

    sql: str
    args: tuple[Any, ...]


class OneStatement(Protocol[WriteIn]):
    """A batch that PostgreSQL can take as one statement, run on its own (a statement
    outside a transaction is atomic): one round trip instead of BEGIN, one per kind of
    row, and COMMIT. For the common batch only; any other goes through `Writer`."""

    def statement(self, writes: Sequence[WriteIn]) -> Statement | None:
        """The batch as one statement, or None when it needs a transaction."""
        ...

    def outcomes(self, writes: Sequence[WriteIn], returned: list[Any]) -> list[int | Exception]:
        """Each write's outcome from the first column of the rows the statement returned."""
        ...


class CoreWriter:
    """A batch on a SQLAlchemy connection."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection

    @property
    def dialect_name(self) -> str:
        return self.connection.dialect.name

    def many(self, statement: ClauseElement, rows: Rows) -> int:
        result = self.connection.execute(cast(Executable, statement), list(rows))
        return int(result.rowcount)

    def scalars(self, statement: ClauseElement, params: Mapping[str, Any]) -> list[Any]:
        return list(self.connection.execute(cast(Executable, statement), dict(params)).scalars())

    def rows(self, statement: ClauseElement, params: Mapping[str, Any]) -> list[tuple[Any, ...]]:
        result = self.connection.execute(cast(Executable, statement), dict(params))
        return [tuple(row) for row in result]


@dataclass(frozen=True, slots=True)
class Prepared:
    """A statement compiled for sqlite3: its text, and for each `?` the row key it takes
    and the type's bind processor (None: the value goes as it is)."""

    sql: str
    keys: tuple[str, ...]
    processors: tuple[Callable[[Any], Any] | None, ...]

    def bind(self, row: Mapping[str, Any]) -> tuple[Any, ...]:
        # A list, not a generator: a generator is resumed once per value.
        return tuple(
            [
                row[key] if process is None else process(row[key])
                for key, process in zip(self.keys, self.processors, strict=True)
            ]
        )


def prepare(statement: ClauseElement, dialect: Dialect, keys: Sequence[str]) -> Prepared:
    """`statement` compiled once by SQLAlchemy for `dialect` (an INSERT's columns are the
    row's keys). Every parameter must come from the row: a column default SQLAlchemy would
    fill at execution is refused here, not silently left out."""
    compiled = cast(SQLCompiler, statement.compile(dialect=dialect, column_keys=list(keys)))
    names = tuple(compiled.positiontup or ())
    missing = [name for name in names if name not in keys]
    if missing:
        raise ValueError(f"parameters not in the rows: {missing}")
    processors = tuple(
        dialect.type_descriptor(compiled.binds[name].type).bind_processor(dialect) for name in names
    )
    return Prepared(compiled.string, names, processors)


class SQLiteWriter:
    """A batch on a sqlite3 cursor; statements prepared once per (statement, row keys) in
    `cache`, which outlives the batch."""

    dialect_name = "sqlite"

    def __init__(
        self,
        cursor: sqlite3.Cursor,
        dialect: Dialect,
        cache: dict[tuple[ClauseElement, tuple[str, ...]], Prepared],
    ) -> None:
        self.cursor = cursor
        self.dialect = dialect
        self.cache = cache

    def _prepared(self, statement: ClauseElement, keys: tuple[str, ...]) -> Prepared:
        prepared = self.cache.get((statement, keys))
        if prepared is None:
            prepared = self.cache[(statement, keys)] = prepare(statement, self.dialect, keys)
        return prepared

    def many(self, statement: ClauseElement, rows: Rows) -> int:
        if not rows:
            return 0
        prepared = self._prepared(statement, tuple(rows[0]))
        self.cursor.executemany(prepared.sql, [prepared.bind(row) for row in rows])
        return self.cursor.rowcount

    def scalars(self, statement: ClauseElement, params: Mapping[str, Any]) -> list[Any]:
        prepared = self._prepared(statement, tuple(params))
        return [row[0] for row in self.cursor.execute(prepared.sql, prepared.bind(params))]

    def rows(self, statement: ClauseElement, params: Mapping[str, Any]) -> list[tuple[Any, ...]]:
        prepared = self._prepared(statement, tuple(params))
        return [tuple(row) for row in self.cursor.execute(prepared.sql, prepared.bind(params))]
