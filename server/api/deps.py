"""What every HTTP route reads the same way: an id, in a path or in a body, and the bearer
token of `Authorization: Bearer <token>`.

An id is checked to be one the server could have made (`is_id`: 1 to 16 URL-safe
characters) before anything looks it up: a NUL, a space or a megabyte never reaches a
query, and a malformed id is a 422 naming the field, on every database alike.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header, HTTPException
from pydantic import AfterValidator, WithJsonSchema

from server.realtime.hosting import ID_MAX_LENGTH, is_id

ID_PATTERN = f"^[A-Za-z0-9_-]{{1,{ID_MAX_LENGTH}}}$"
ID_RULE = f"an id is 1 to {ID_MAX_LENGTH} letters, digits, '-' or '_'"


def checked_id(text: str) -> str:
    """`text` when it is an id the server could have made, else ValueError (a 422).

    >>> checked_id("aB3-_x9Q")
    'aB3-_x9Q'
    """
    if not is_id(text):
        raise ValueError(f"{ID_RULE}.")
    return text


# A table's, a club's or a member's id, wherever a request names one; its schema says
# what `is_id` checks.
Id = Annotated[
    str,
    AfterValidator(checked_id),
    WithJsonSchema(
        {"type": "string", "minLength": 1, "maxLength": ID_MAX_LENGTH, "pattern": ID_PATTERN}
    ),
]


def bearer(authorization: Annotated[str | None, Header()] = None) -> str:
    """The token of `Authorization: Bearer <token>`, or "" when none was sent: no token
    matches "", so a missing one is refused like a wrong one."""
    scheme, _, token = (authorization or "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


Bearer = Annotated[str, Depends(bearer)]


def seat_token(token: Bearer) -> str:
    """The bearer token of a route that needs a seat's: 401 when none was sent."""
    if not token:
        raise HTTPException(401, "Send your seat token as 'Authorization: Bearer <token>'.")
    return token


SeatToken = Annotated[str, Depends(seat_token)]
