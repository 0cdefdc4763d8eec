"""What a change to a table does, as data: the one write it makes and the steps that
follow once that write has landed.

A change function (`seats`, `controls`, `moves`) reads a room and returns `Effects`; it
never writes and never changes the room. The change pipeline (`changes.TableChanges`) turns
them into exactly one store call and, once it has landed, applies them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from server.engine import Game, Rules
from server.realtime.room import Room
from server.store.records import ActionWrite, SeatRecord, TableUpdate


@dataclass(frozen=True, slots=True)
class GameStart:
    """A new game (the first, or a rematch), already dealt."""

    game: Game
    number: int
    seed: int
    deadline: datetime | None


@dataclass(frozen=True, slots=True)
class ChatDraft:
    """A chat line to store (`seat` None for a spectator)."""

    seat: int | None
    name: str
    text: str


# A step on a room's sockets (who holds which seat, who gets what): run by the pipeline.
SocketStep = Callable[[Room], None]


@dataclass(frozen=True, slots=True)
class Effects:
    """One change. At most one of `rules`, `start`, `action` and `chat`; `seats` and
    `table` go with any of them but `chat`. With nothing to write, only the socket steps
    run."""

    seats: tuple[SeatRecord, ...] = ()
    table: TableUpdate | None = None
    # The table's new rules, before its first game (the seats follow their number).
    rules: Rules | None = None
    start: GameStart | None = None
    action: ActionWrite | None = None
    chat: ChatDraft | None = None
    # Run once the write has landed: `sockets` before the broadcast, `then` after it.
    sockets: SocketStep | None = None
    then: SocketStep | None = None
    # Seats whose sockets in this process changed: renewed or released across processes.
    recount: frozenset[int] = frozenset()
    # Seats whose grace timer starts, or stops.
    grace: frozenset[int] = frozenset()
    ungrace: frozenset[int] = frozenset()
    # A log line once landed, for the changes worth one of their own.
    note: str | None = None

    @property
    def writes(self) -> bool:
        """Whether the change writes anything (and so raises the table's version)."""
        return bool(
            self.seats
            or self.table
            or self.rules is not None
            or self.start
            or self.action is not None
            or self.chat
        )


NOTHING = Effects()
