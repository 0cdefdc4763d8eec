"""What the server accepts as people's text: table and seat names, chat lines.

Control characters (NUL included) and lone surrogates are refused everywhere: PostgreSQL
cannot store a NUL in text, a lone surrogate cannot be encoded as UTF-8, and neither has
any business in a name. Everything else (accents, emoji, any script) is welcome.
"""

from __future__ import annotations

import unicodedata

# Unicode categories refused: controls (C0, DEL, C1) and surrogates.
REFUSED_CATEGORIES = frozenset({"Cc", "Cs"})


def unprintable(text: str) -> str | None:
    """The first refused character of `text`, as `U+XXXX`, or None when all are fine.

    >>> unprintable("Ann ♠ Zoë"), unprintable("A\\u0000B"), unprintable("bell\\a")
    (None, 'U+0000', 'U+0007')
    >>> unprintable("\\ud800")
    'U+D800'
    """
    for character in text:
        if unicodedata.category(character) in REFUSED_CATEGORIES:
            return f"U+{ord(character):04X}"
    return None


def check_text(text: str, what: str) -> str:
    """`text` unchanged, or ValueError naming the character (pydantic turns it into 422).

    >>> check_text("Ann", "a seat name")
    'Ann'
    """
    refused = unprintable(text)
    if refused is not None:
        raise ValueError(f"{what} may not contain control characters ({refused}).")
    return text


# Where each seat sits, clockwise from seat 0, by the number of players. Seat 0 is South,
# the bottom of the table as a spectator (and the host, who usually sits there) sees it.
SEAT_PLACES: dict[int, tuple[str, ...]] = {
    2: ("South", "North"),
    3: ("South", "North-west", "North-east"),
    4: ("South", "West", "North", "East"),
    6: ("South", "South-west", "North-west", "North", "North-east", "South-east"),
}


def bot_name(seat: int, players: int) -> str:
    """A bot's name: where it sits, so that every bot at a table has its own.

    >>> [bot_name(seat, 4) for seat in range(4)]
    ['South bot', 'West bot', 'North bot', 'East bot']
    >>> bot_name(4, 5)
    'Seat 5 bot'
    """
    places = SEAT_PLACES.get(players)
    return f"{places[seat]} bot" if places else f"Seat {seat + 1} bot"
