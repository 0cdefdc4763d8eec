"""A what-if for measurement only: the table server without its per-move SQLite commit.

`bench.investigations.uncommitted:app` is the same app as `server.app:app`, but a write
that the group commit would make alone on the event loop's sqlite3 connection (a move at
a low rate: one version bump, one log row, the COMMIT) is appended instead as one line
of JSON to a scratch file (`UNCOMMITTED_FILE`), with one `os.write`, and reported as
landed. Batches of several writes (under load) still go to SQLite. Such a server is not
one to run: its moves are not in the database, and it broadcasts moves that no
transaction has committed. It tells what the commit that comes before every broadcast
costs a move at a low rate, against the cheapest durable record of the move the kernel
offers a process (an append, which survives the process's death), so that the CPU ratio
to the relay can be split into the commit's part and the rest. Measured with
bench/load.py's `--url` and `--pid` (bench/investigations/README.md).
"""

from __future__ import annotations

import os
from typing import Any

import orjson

from server.app import app as spades_app
from server.store.batch import HeldSQLite, Outcomes, WriteAll
from server.store.records import ActionWrite

_committed = HeldSQLite.write
_file = os.open(
    os.environ.get("UNCOMMITTED_FILE", os.devnull), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600
)


def _appended(self: HeldSQLite, write_all: WriteAll[Any], writes: list[Any]) -> Outcomes:
    """A lone move appended to the file, its new version answered; anything else as usual."""
    if len(writes) != 1 or not isinstance(writes[0], ActionWrite):
        return _committed(self, write_all, writes)
    os.write(_file, orjson.dumps(writes[0]) + b"\n")  # a dataclass: every field
    return [writes[0].old_version + 1]


HeldSQLite.write = _appended  # type: ignore[method-assign]
app = spades_app
