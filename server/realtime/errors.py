"""Refusals of the table hub: one class, a machine-readable code, a readable message.

The WebSocket layer sends them as `{"type": "error", "code", "message"}`; the HTTP
layer answers with `status` and `{"detail": message}`.
"""

from __future__ import annotations


class TableError(Exception):
    """A request the table refuses; nothing was changed."""

    def __init__(
        self, code: str, message: str, status: int = 409, reason: str | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        # For `illegal`: the engine's own refusal code (`must_follow_suit`, `bad_bid`, ...).
        self.reason = reason


class Unsure(TableError):
    """A refusal that another process's newer write may overturn (a token it just gave
    out): the change pipeline reloads the room once and asks again before refusing."""


class HalfDone(TableError):
    """A change failed half-way through the engine: the room's game may be half-advanced,
    so the change pipeline reloads it from the database before refusing."""


def no_such_table() -> TableError:
    return TableError("no_such_table", "No such table.", 404)


def no_such_seat() -> TableError:
    return TableError("no_such_seat", "No such seat at this table.", 404)


def ended() -> TableError:
    return TableError("ended", "The host ended this table.", 409)
