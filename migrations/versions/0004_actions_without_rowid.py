"""the action log without a rowid on SQLite

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-03 14:50:00

On SQLite a table with a primary key other than one integer column keeps two B-trees:
its rows under a hidden rowid, and the primary key's index. The action log is read and
written only by its key (game, seq), so it is kept as one B-tree ordered by that key
(`WITHOUT ROWID`): each action's insert touches one tree, not two. PostgreSQL has no
rowid; nothing changes there.
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _rebuild(with_rowid: bool) -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    # The table is made anew with the option and its rows copied (SQLite cannot change
    # it in place).
    with op.batch_alter_table(
        "actions", recreate="always", table_kwargs={"sqlite_with_rowid": with_rowid}
    ):
        pass


def upgrade() -> None:
    _rebuild(with_rowid=False)


def downgrade() -> None:
    _rebuild(with_rowid=True)
