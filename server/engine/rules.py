"""Table rules: one pydantic model, eight presets (docs/rules.md §10, §11.7).

A table's rules are a preset plus overrides. ``Rules`` is immutable and its
``model_dump()`` feeds back into ``Rules.model_validate`` unchanged, so the server can
store it as JSON.

>>> rules = Rules.preset("competitive", target_score=300)
>>> rules.bidding, rules.min_team_bid, rules.target_score
('team', 4, 300)
>>> Rules.model_validate(rules.model_dump()) == rules
True
>>> Rules.model_validate({"preset": "cutthroat", "bags": False}).players
3
>>> from pydantic import ValidationError
>>> try:
...     Rules.preset("cutthroat", bidding="team")
... except ValidationError as error:
...     print(error.errors()[0]["loc"], error.errors()[0]["msg"])
('bidding',) Value error, bidding "team" needs partnerships: true

Decisions where docs/rules.md is silent:

- ``preset`` is not a field: it only picks the starting values, and ``model_dump()``
  holds every field, so a dump re-validates to the same rules. A dict without
  ``preset`` starts from ``standard``.
- Unknown fields are refused (a typo must not silently fall back to a default).
- ``blind_nil_pass`` is ignored without partnerships (the ``standard`` preset itself
  carries 2 with blind nil off), and is limited to 0-4 cards.
- ``lose_score`` must be negative (every side starts at 0) and below ``target_score``.
- ``min_team_bid`` may not exceed the cards in a hand.
- Points and scores are bounded (``MAX_POINTS``, ``MAX_SCORE``, ``MAX_BAG_LIMIT``) so that
  no score of any game can outgrow a 64-bit integer (or JSON's safe range in a browser).
- Each field is declared once, with the ``standard`` preset's value as its default: the
  presets are built from the fields' defaults, and the fields that refuse ``true`` and
  ``false`` as numbers are the fields whose type is a number.
- A refusal is raised by the validator of the later of the two fields involved (a
  field's validator sees only the fields declared before it), so it names that field:
  ``nil`` for Whiz without nil, ``blind_nil`` for Mirror with blind nil.
- Under a rotation (``bidding_formats``) ``bidding`` is not played; it is still checked
  against partnerships. Each listed format is checked as ``bidding`` would be, but blind
  nil, which is offered only on the hands whose format allows it; blind nil with only
  Whiz and Mirror listed is refused (it could never be offered).
- ``nil_pass`` above 0 needs ``nil: true`` too (without nil there is no nil to pass to).
- ``bidding_formats`` dumps as a list (as JSON reads it back) and is held as a tuple, so
  the rules stay hashable.

>>> night = Rules.preset("standard", bidding_formats=["whiz", "suicide"], nil_pass=2)
>>> night.format_of(1), night.for_hand(2).bidding, night.for_hand(1).blind_nil
('whiz', 'suicide', False)
"""

from __future__ import annotations

import functools
from types import UnionType
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_serializer,
    field_validator,
    model_validator,
)
from pydantic.fields import FieldInfo

from server.engine.cards import hand_size

PresetName = Literal[
    "standard", "competitive", "cutthroat", "two_player", "six_player", "whiz", "mirror", "suicide"
]
BiddingFormat = Literal["individual", "team", "whiz", "mirror", "suicide"]
BIDDING_FORMATS: tuple[BiddingFormat, ...] = get_args(BiddingFormat)
# The formats whose bids are fixed by the spades held: no blind nil on their hands.
SPADE_COUNT_FORMATS: tuple[BiddingFormat, ...] = ("whiz", "mirror")
# The formats that need partnerships.
PARTNER_FORMATS: tuple[BiddingFormat, ...] = ("team", "suicide")
# The formats that need nil (a bid of 0 is part of the format).
NIL_FORMATS: tuple[BiddingFormat, ...] = ("whiz", "mirror", "suicide")
# Rules as plain data: each field's name and value (a preset, ``Rules.model_dump()``).
RuleFields = dict[str, bool | int | str | list[str] | None]

MAX_BLIND_NIL_PASS = 4
MAX_NIL_PASS = 3
MAX_FORMATS = 13
# Bonuses and penalties of one hand, the target and the losing score: generous for any
# house rule, small enough that scores stay far inside JavaScript's safe integers.
MAX_POINTS = 10_000
MAX_SCORE = 100_000
MAX_BAG_LIMIT = 1_000
MAX_HANDS = 100


class Rules(BaseModel):
    """Every rule groups disagree on, one field each, named as in docs/rules.md. Each
    field's default is the ``standard`` preset's value (the presets are built from them)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    players: Literal[2, 3, 4, 6] = 4
    partnerships: bool = True
    deck: Literal["standard", "jokers", "jokers_deuces"] = "standard"
    bidding: BiddingFormat = "individual"
    bidding_formats: tuple[BiddingFormat, ...] | None = Field(
        None, min_length=1, max_length=MAX_FORMATS
    )
    min_team_bid: int = Field(0, ge=0, le=MAX_POINTS)
    nil: bool = True
    nil_bonus: int = Field(100, ge=0, le=MAX_POINTS)
    nil_penalty: int = Field(100, ge=0, le=MAX_POINTS)
    nil_tricks: Literal["bags", "contract"] = "bags"
    nil_pass: int = Field(0, ge=0, le=MAX_NIL_PASS)
    blind_nil: bool = False
    blind_nil_behind_by: int | None = Field(100, ge=0, le=MAX_SCORE)
    blind_nil_bonus: int = Field(200, ge=0, le=MAX_POINTS)
    blind_nil_penalty: int = Field(200, ge=0, le=MAX_POINTS)
    blind_nil_pass: int = Field(2, ge=0, le=MAX_BLIND_NIL_PASS)
    ten_for_two_hundred: bool = False
    ten_for_two_hundred_set: int = Field(200, ge=0, le=MAX_POINTS)
    first_lead: Literal["left_of_dealer", "two_clubs", "lowest_club"] = "left_of_dealer"
    spades_broken_to_lead: bool = True
    bags: bool = True
    bag_limit: int = Field(10, ge=1, le=MAX_BAG_LIMIT)
    bag_penalty: int = Field(100, ge=0, le=MAX_POINTS)
    all_tricks: Literal["none", "bonus", "win"] = "none"
    all_tricks_bonus: int = Field(200, ge=0, le=MAX_POINTS)
    target_score: int = Field(500, ge=1, le=MAX_SCORE)
    lose_score: int | None = Field(None, lt=0, ge=-MAX_SCORE)
    mercy_margin: int | None = Field(None, ge=1, le=MAX_SCORE)
    duplicate_later_wins: bool = True
    # The game also ends after this many hands, the highest score winning (a tie: no
    # winner); None: no limit (a club night's round lasts a set number of hands).
    hand_limit: int | None = Field(None, ge=1, le=MAX_HANDS)

    @classmethod
    def preset_names(cls) -> list[str]:
        """The preset names, in docs/rules.md order."""
        return list(PRESETS)

    @classmethod
    def preset(cls, name: str, **overrides: Any) -> Rules:
        """A preset with some fields changed; ValidationError for a bad name or value.

        >>> Rules.preset("six_player").players
        6
        """
        return cls.model_validate({"preset": name, **overrides})

    @property
    def formats(self) -> tuple[BiddingFormat, ...]:
        """The bidding formats the table plays: ``bidding_formats``, else ``bidding``."""
        return self.bidding_formats or (self.bidding,)

    def format_of(self, hand_number: int) -> BiddingFormat:
        """The bidding format of hand ``hand_number`` (1 for the first).

        >>> Rules.preset("standard", bidding_formats=["whiz", "mirror"]).format_of(3)
        'whiz'
        """
        formats = self.formats
        return formats[(hand_number - 1) % len(formats)]

    def for_hand(self, hand_number: int) -> Rules:
        """The rules one hand is played by: its format as ``bidding``, no rotation, and
        blind nil only where that format allows it. ``self`` without a rotation."""
        if self.bidding_formats is None:
            return self
        return _hand_rules(self, self.format_of(hand_number))

    def for_format(self, bidding: str) -> Rules:
        """``for_hand`` of a hand played in ``bidding`` (one of this table's formats; a
        view's ``bidding``). ValueError for a format the table does not play."""
        if bidding not in self.formats:
            raise ValueError(f"this table does not play bidding {bidding!r}")
        if self.bidding_formats is None:
            return self
        return _hand_rules(self, bidding)

    @model_validator(mode="before")
    @classmethod
    def _apply_preset(cls, data: Any) -> Any:
        """Fill every field the caller did not give from the named preset."""
        if not isinstance(data, dict):
            return data
        name = data.get("preset", "standard")
        if not isinstance(name, str) or name not in PRESETS:
            raise ValueError(f"preset: unknown preset {name!r}; choose one of {', '.join(PRESETS)}")
        return {**PRESETS[name], **{k: v for k, v in data.items() if k != "preset"}}

    @field_validator("*", mode="before")
    @classmethod
    def _no_bool_numbers(cls, value: Any, info: ValidationInfo) -> Any:
        if isinstance(value, bool) and info.field_name in _NUMBER_FIELDS:
            raise ValueError(f"{info.field_name} must be a number, not {value}")
        return value

    @field_serializer("bidding_formats")
    def _formats_as_list(self, value: tuple[str, ...] | None) -> list[str] | None:
        """A list in the dump, as JSON reads it back."""
        return None if value is None else list(value)

    @field_validator("partnerships")
    @classmethod
    def _partnerships_need_even_table(cls, value: bool, info: ValidationInfo) -> bool:
        players = info.data.get("players")
        if value and players in (2, 3):
            raise ValueError(f"partnerships need 4 or 6 players, not {players}")
        return value

    @field_validator("bidding")
    @classmethod
    def _bidding_needs_partners(cls, value: str, info: ValidationInfo) -> str:
        if value in PARTNER_FORMATS and info.data.get("partnerships") is False:
            raise ValueError(f'bidding "{value}" needs partnerships: true')
        return value

    @field_validator("bidding_formats")
    @classmethod
    def _formats_need_partners(
        cls, value: tuple[str, ...] | None, info: ValidationInfo
    ) -> tuple[str, ...] | None:
        if value is None or info.data.get("partnerships") is not False:
            return value
        for name in value:
            if name in PARTNER_FORMATS:
                raise ValueError(f'bidding_formats: "{name}" needs partnerships: true')
        return value

    @field_validator("min_team_bid")
    @classmethod
    def _min_team_bid_fits(cls, value: int, info: ValidationInfo) -> int:
        players, deck = info.data.get("players"), info.data.get("deck")
        if players is not None and deck is not None and value > hand_size(players, deck):
            raise ValueError(
                f"min_team_bid {value} is more than the {hand_size(players, deck)} tricks"
            )
        spade_count = [name for name in _formats(info) if name in SPADE_COUNT_FORMATS]
        if value > 0 and spade_count:
            raise ValueError(f"min_team_bid must be 0 with {_format_words(info, spade_count[0])}")
        return value

    @field_validator("nil")
    @classmethod
    def _formats_need_nil(cls, value: bool, info: ValidationInfo) -> bool:
        needing = [name for name in _formats(info) if name in NIL_FORMATS]
        if not value and needing:
            raise ValueError(f"{_format_words(info, needing[0])} needs nil: true")
        return value

    @field_validator("nil_pass")
    @classmethod
    def _nil_pass_needs_partners(cls, value: int, info: ValidationInfo) -> int:
        if value > 0 and info.data.get("partnerships") is False:
            raise ValueError("nil_pass needs partnerships: true (or 0)")
        if value > 0 and info.data.get("nil") is False:
            raise ValueError("nil_pass needs nil: true (or 0)")
        return value

    @field_validator("blind_nil")
    @classmethod
    def _blind_nil_fits(cls, value: bool, info: ValidationInfo) -> bool:
        if not value:
            return value
        if info.data.get("nil") is False:
            raise ValueError("blind nil needs nil: true")
        formats = _formats(info)
        if formats and all(name in SPADE_COUNT_FORMATS for name in formats):
            raise ValueError(f"blind nil cannot be bid under {_format_words(info, formats[0])}")
        return value

    @field_validator("lose_score")
    @classmethod
    def _lose_below_target(cls, value: int | None, info: ValidationInfo) -> int | None:
        target = info.data.get("target_score")
        if value is not None and target is not None and value >= target:
            raise ValueError("lose_score must be below target_score")
        return value

    @property
    def hand_size(self) -> int:
        """Cards each player holds when play starts (13, 17 or 18)."""
        return hand_size(self.players, self.deck)

    @property
    def sides(self) -> list[list[int]]:
        """Seats of each side, side k listed by its lowest seat (docs/rules.md §1).

        >>> Rules.preset("standard").sides, Rules.preset("cutthroat").sides
        ([[0, 2], [1, 3]], [[0], [1], [2]])
        >>> Rules.preset("six_player", partnerships=True).sides
        [[0, 3], [1, 4], [2, 5]]
        """
        n = self.players
        if self.partnerships:
            return [[seat, seat + n // 2] for seat in range(n // 2)]
        return [[seat] for seat in range(n)]


def _formats(info: ValidationInfo) -> tuple[str, ...]:
    """The formats already validated (``bidding_formats``, else ``bidding``; none when
    the bidding itself was refused)."""
    listed = info.data.get("bidding_formats")
    if listed:
        return tuple(listed)
    bidding = info.data.get("bidding")
    return () if bidding is None else (bidding,)


def _format_words(info: ValidationInfo, name: str) -> str:
    """How a refusal names the format: the field that holds it, and the format."""
    if info.data.get("bidding_formats"):
        return f'"{name}" in bidding_formats'
    return f'bidding "{name}"'


@functools.lru_cache(maxsize=256)
def _hand_rules(rules: Rules, bidding: BiddingFormat) -> Rules:
    """``rules`` for one hand of a rotation played in ``bidding`` (checked again)."""
    blind = rules.blind_nil and bidding not in SPADE_COUNT_FORMATS
    return Rules.model_validate(
        {**rules.model_dump(), "bidding": bidding, "bidding_formats": None, "blind_nil": blind}
    )


def _is_number(field: FieldInfo) -> bool:
    """Whether a field holds a number (an int, an optional int, a choice of ints)."""
    annotation = field.annotation
    if annotation is int:
        return True
    args = get_args(annotation)
    if get_origin(annotation) in (Union, UnionType):
        return int in args
    return get_origin(annotation) is Literal and all(type(arg) is int for arg in args)


# The fields that hold numbers: true and false are refused there (JSON's true is no count).
_NUMBER_FIELDS = frozenset(name for name, field in Rules.model_fields.items() if _is_number(field))

_STANDARD: RuleFields = {
    name: list(field.default) if isinstance(field.default, tuple) else field.default
    for name, field in Rules.model_fields.items()
}
_SOLO: RuleFields = {"partnerships": False, "blind_nil_pass": 0}
# The house-rule presets: standard with that bidding, no blind nil, and a losing score.
_HOUSE: RuleFields = {**_STANDARD, "blind_nil": False, "lose_score": -200}

PRESETS: dict[str, RuleFields] = {
    "standard": _STANDARD,
    "competitive": {
        **_STANDARD,
        "bidding": "team",
        "min_team_bid": 4,
        "blind_nil": True,
        "blind_nil_behind_by": 200,
        "blind_nil_penalty": 100,
        "blind_nil_pass": 1,
        "ten_for_two_hundred": True,
        "ten_for_two_hundred_set": 100,
        "first_lead": "lowest_club",
        "all_tricks": "win",
    },
    "cutthroat": {**_STANDARD, **_SOLO, "players": 3},
    "two_player": {**_STANDARD, **_SOLO, "players": 2},
    "six_player": {**_STANDARD, **_SOLO, "players": 6},
    "whiz": {**_HOUSE, "bidding": "whiz"},
    "mirror": {**_HOUSE, "bidding": "mirror"},
    "suicide": {**_HOUSE, "bidding": "suicide", "min_team_bid": 4},
}
