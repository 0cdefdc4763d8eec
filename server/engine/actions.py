"""Actions and their refusals: the shape ``act`` accepts, and why it refuses one.

Every refusal is an :class:`IllegalAction` with a stable ``code`` from
:data:`REFUSAL_CODES` (the server passes it on as the error's ``reason``, see
docs/protocol.md) and a sentence for the player. The game decides what is legal
(``server.engine.play`` for the cards); this module says what was wrong.

>>> checked_bool("yes", "keep")
Traceback (most recent call last):
...
server.engine.actions.IllegalAction: "keep" must be true or false
>>> action_dict((0, "pass", ("2C", "3C")))
{'type': 'pass', 'cards': ['2C', '3C']}
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import combinations

from server.engine.cards import CLUBS, CODES, INDEX, SUIT_SINGULAR, SUITS, CardOrder, card_name
from server.engine.shapes import Action, PassAction, PassChoice

# How the game's log keeps an accepted action: ``(seat, type, value)``, the value being
# the action's one field (a pass's cards as a tuple), cheaper than a dict on the hot path.
LogEntry = tuple[int, str, int | bool | str | tuple[str, ...]]

# The action each phase takes, and the one field beside "type" of each action.
PHASE_ACTION = {
    "draw": "draw",
    "blind": "blind_nil",
    "pass": "pass",
    "bid": "bid",
    "play": "play",
}
ACTION_FIELDS = {
    "draw": "keep",
    "blind_nil": "declare",
    "pass": "cards",
    "bid": "bid",
    "play": "card",
}
PHASE_WORDS = {
    "draw": "draw a card",
    "blind": "decide on blind nil",
    "pass": "pass cards",
    "bid": "bid",
    "play": "play a card",
}

REFUSAL_CODES: tuple[str, ...] = (
    "bad_seat",  # no such seat at this table
    "bad_action",  # not an action dict, an unknown type, a missing or extra field
    "game_over",  # the game has ended
    "not_your_turn",  # the seat may not act now
    "wrong_phase",  # an action of another phase (a bid while cards are played)
    "bad_bid",  # a bid the seat may not make
    "bad_pass",  # not the right number of cards from the seat's own hand
    "not_in_hand",  # a card the seat does not hold
    "must_follow_suit",  # a card of another suit while holding the led suit
    "spades_not_broken",  # a spade led before spades are broken
    "first_trick",  # the first trick's own rules (lowest club, forced lead)
    "bad_claim",  # a claim not offered: not about to lead, or the tricks are not sure
)

# The play phase's other action: a claim has no field beside its type.
CLAIM = "claim"


class IllegalAction(ValueError):
    """An action the game refuses; the game is unchanged.

    ``code`` is short and stable, one of :data:`REFUSAL_CODES`; ``str(error)`` (also
    ``message``) is a sentence for the player.

    >>> from server.engine import Game, Rules
    >>> game = Game(Rules.preset("standard"), seed=2, dealer=3)
    >>> try:
    ...     game.act(0, {"type": "bid", "bid": 14})
    ... except IllegalAction as error:
    ...     print(error.code, "-", error)
    bad_bid - Your bid must be nil (0) or 1 to 13
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def action_kind(
    phase: str, on_turn: bool, turn: Sequence[int], action: object
) -> tuple[str, object]:
    """``(type, value)`` of an action from a seat (``on_turn``: it may act now), or the
    refusal, checked in this order: the action's type, the game's end, the turn, the
    phase, the action's fields."""
    if not isinstance(action, dict):
        raise IllegalAction("bad_action", "An action must be an object with a type")
    kind = action.get("type")
    if not isinstance(kind, str) or (kind not in ACTION_FIELDS and kind != CLAIM):
        raise IllegalAction(
            "bad_action", f"Unknown action type; use one of {', '.join(ACTION_FIELDS)}, {CLAIM}"
        )
    if phase == "over":
        raise IllegalAction("game_over", "The game is over")
    if not on_turn:
        waiting = ", ".join(str(s) for s in turn)
        raise IllegalAction("not_your_turn", f"It is not your turn: waiting for seat {waiting}")
    if kind == CLAIM:
        if phase != "play":
            raise IllegalAction("wrong_phase", f"It is time to {PHASE_WORDS[phase]}, not to claim")
        if len(action) != 1:
            raise IllegalAction("bad_action", 'A "claim" action has only "type"')
        return kind, None
    if PHASE_ACTION[phase] != kind:
        raise IllegalAction("wrong_phase", f"It is time to {PHASE_WORDS[phase]}, not to {kind}")
    field = ACTION_FIELDS[kind]
    if len(action) != 2 or field not in action:
        raise IllegalAction("bad_action", f'A "{kind}" action has exactly "type" and "{field}"')
    return kind, action[field]


def claim_refusal(leading: bool) -> IllegalAction:
    """Why a claim was refused: the seat is not about to lead, or some layout of the
    cards it has not seen, or some play of the others, would take a trick from it."""
    if not leading:
        return IllegalAction("bad_claim", "You may claim only when you are about to lead a trick")
    return IllegalAction(
        "bad_claim",
        "You cannot claim: the cards you have not seen could still take a trick from you",
    )


def bad_seat(seat: object) -> IllegalAction:
    return IllegalAction("bad_seat", f"There is no seat {seat!r} at this table")


def checked_bool(value: object, field: str) -> bool:
    if not isinstance(value, bool):
        raise IllegalAction("bad_action", f'"{field}" must be true or false')
    return value


def checked_code(code: object) -> str:
    """A card code, else the refusal."""
    if not isinstance(code, str) or code not in INDEX:
        raise IllegalAction("bad_action", f"Not a card: {code!r}")
    return code


def card_refusal(
    code: str,
    hand: Sequence[int],
    order: CardOrder,
    trick: Sequence[tuple[int, int]],
    lowest_club_trick: bool,
    forced_lead: int | None,
) -> IllegalAction:
    """Why a card that is not among the legal plays was refused (docs/rules.md §7).

    ``lowest_club_trick``: the first trick of a ``lowest_club`` table; ``forced_lead``:
    the card the first trick must be led with, if any.
    """
    card = INDEX[code]
    if card not in hand:
        return IllegalAction("not_in_hand", f"You do not hold the {card_name(code)}")
    suit = order.suit
    if lowest_club_trick:
        clubs = [c for c in hand if suit[c] == CLUBS]
        if clubs:
            lowest = card_name(CODES[min(clubs, key=order.power.__getitem__)])
            return IllegalAction(
                "first_trick", f"On the first trick you must play your lowest club, the {lowest}"
            )
        return IllegalAction(
            "first_trick", "On the first trick you may play a spade only if you hold nothing else"
        )
    if not trick:
        if forced_lead is not None:
            lowest = card_name(CODES[forced_lead])
            return IllegalAction("first_trick", f"The first trick must be led with the {lowest}")
        return IllegalAction("spades_not_broken", "You cannot lead a spade until spades are broken")
    led = SUITS[suit[trick[0][1]]]
    return IllegalAction(
        "must_follow_suit", f"You must follow suit: you hold a {SUIT_SINGULAR[led]}"
    )


# Why a format allows so few bids, said after the bids it allows.
FORMAT_WORDS = {
    "whiz": "under Whiz you bid nil or the number of spades you hold",
    "mirror": "under Mirror you bid the number of spades you hold",
    "suicide": "under Suicide one partner bids nil and the other a number",
}


def bid_refusal(allowed: Sequence[int], bidding: str = "individual") -> IllegalAction:
    """Why a bid outside ``allowed`` (the seat's legal bids, ascending, a range of numbers
    with or without nil) was refused under the hand's ``bidding`` format.

    >>> str(bid_refusal([0, 4], "whiz"))
    'Your bid must be nil (0) or 4: under Whiz you bid nil or the number of spades you hold'
    """
    numbers = [b for b in allowed if b > 0]
    words = ["nil (0)"] if 0 in allowed else []
    if len(numbers) == 1:
        words.append(str(numbers[0]))
    elif numbers:
        words.append(f"{numbers[0]} to {numbers[-1]}")
    why = FORMAT_WORDS.get(bidding)
    return IllegalAction(
        "bad_bid", f"Your bid must be {' or '.join(words) or 'nothing'}{f': {why}' if why else ''}"
    )


def checked_pass(cards: object, count: int, hand: Sequence[int]) -> list[int]:
    """The passed cards as ints: exactly ``count`` cards of ``hand`` (a card held twice
    may be given twice), else the refusal."""
    message = f"Pass exactly {count} card{'s' if count != 1 else ''} from your hand"
    if not isinstance(cards, list) or len(cards) != count:
        raise IllegalAction("bad_pass", message)
    if not all(isinstance(code, str) and code in INDEX for code in cards):
        raise IllegalAction("bad_pass", message)
    chosen = [INDEX[code] for code in cards]
    if Counter(chosen) - Counter(hand):
        raise IllegalAction("bad_pass", message)
    return chosen


def action_dict(entry: LogEntry) -> Action:
    """The action of a log entry."""
    _, kind, value = entry
    if kind == "play" and isinstance(value, str):
        return {"type": "play", "card": value}
    if kind == "bid" and isinstance(value, int) and not isinstance(value, bool):
        return {"type": "bid", "bid": value}
    if kind == "pass" and isinstance(value, tuple):
        return {"type": "pass", "cards": list(value)}
    if kind == "blind_nil" and isinstance(value, bool):
        return {"type": "blind_nil", "declare": value}
    if kind == "draw" and isinstance(value, bool):
        return {"type": "draw", "keep": value}
    if kind == CLAIM:
        return {"type": "claim"}
    raise ValueError(f"not a logged action: {entry!r}")


def logged_action(seat: int, action: Action) -> LogEntry:
    """The log entry of an accepted action from ``seat``."""
    if action["type"] == "play":
        return seat, "play", action["card"]
    if action["type"] == "bid":
        return seat, "bid", action["bid"]
    if action["type"] == "pass":
        return seat, "pass", tuple(action["cards"])
    if action["type"] == "blind_nil":
        return seat, "blind_nil", action["declare"]
    if action["type"] == "draw":
        return seat, "draw", action["keep"]
    if action["type"] == CLAIM:
        return seat, CLAIM, True
    raise ValueError(f"not an action: {action!r}")


def pass_actions(hand: Sequence[str], count: int) -> list[PassAction]:
    """The legal pass from a hand (codes in hand order): every set of ``count`` cards, each
    once.

    >>> pass_actions(["2C", "3C", "AS"], 2)[:2]
    [{'type': 'pass', 'cards': ['2C', '3C']}, {'type': 'pass', 'cards': ['2C', 'AS']}]
    """
    return [
        {"type": "pass", "cards": list(cards)} for cards in dict.fromkeys(combinations(hand, count))
    ]


def pass_choice(count: int) -> PassChoice:
    """The legal pass as the constraint a view carries instead of every set of cards.

    >>> pass_choice(2)
    {'type': 'pass', 'count': 2}
    """
    return {"type": "pass", "count": count}
