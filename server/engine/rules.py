"""Table rules: one pydantic model, five presets (docs/rules.md §10).

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
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from server.engine.cards import hand_size

PresetName = Literal["standard", "competitive", "cutthroat", "two_player", "six_player"]
# Rules as plain data: each field's name and value (a preset, ``Rules.model_dump()``).
RuleFields = dict[str, bool | int | str | None]

_STANDARD: RuleFields = {
    "players": 4,
    "partnerships": True,
    "deck": "standard",
    "bidding": "individual",
    "min_team_bid": 0,
    "nil": True,
    "nil_bonus": 100,
    "nil_penalty": 100,
    "nil_tricks": "bags",
    "blind_nil": False,
    "blind_nil_behind_by": 100,
    "blind_nil_bonus": 200,
    "blind_nil_penalty": 200,
    "blind_nil_pass": 2,
    "ten_for_two_hundred": False,
    "ten_for_two_hundred_set": 200,
    "first_lead": "left_of_dealer",
    "spades_broken_to_lead": True,
    "bags": True,
    "bag_limit": 10,
    "bag_penalty": 100,
    "all_tricks": "none",
    "all_tricks_bonus": 200,
    "target_score": 500,
    "lose_score": None,
    "duplicate_later_wins": True,
}

_SOLO: RuleFields = {"partnerships": False, "blind_nil_pass": 0}

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
}

MAX_BLIND_NIL_PASS = 4
# Bonuses and penalties of one hand, the target and the losing score: generous for any
# house rule, small enough that scores stay far inside JavaScript's safe integers.
MAX_POINTS = 10_000
MAX_SCORE = 100_000
MAX_BAG_LIMIT = 1_000
MAX_HANDS = 100


class Rules(BaseModel):
    """Every rule groups disagree on, one field each, named as in docs/rules.md."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    players: Literal[2, 3, 4, 6] = 4
    partnerships: bool = True
    deck: Literal["standard", "jokers", "jokers_deuces"] = "standard"
    bidding: Literal["individual", "team"] = "individual"
    min_team_bid: int = Field(0, ge=0, le=MAX_POINTS)
    nil: bool = True
    nil_bonus: int = Field(100, ge=0, le=MAX_POINTS)
    nil_penalty: int = Field(100, ge=0, le=MAX_POINTS)
    nil_tricks: Literal["bags", "contract"] = "bags"
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

    @field_validator(
        "players",
        "min_team_bid",
        "nil_bonus",
        "nil_penalty",
        "blind_nil_behind_by",
        "blind_nil_bonus",
        "blind_nil_penalty",
        "blind_nil_pass",
        "ten_for_two_hundred_set",
        "bag_limit",
        "bag_penalty",
        "all_tricks_bonus",
        "target_score",
        "lose_score",
        "hand_limit",
        mode="before",
    )
    @classmethod
    def _no_bool_numbers(cls, value: Any, info: ValidationInfo) -> Any:
        if isinstance(value, bool):
            raise ValueError(f"{info.field_name} must be a number, not {value}")
        return value

    @field_validator("partnerships")
    @classmethod
    def _partnerships_need_even_table(cls, value: bool, info: ValidationInfo) -> bool:
        players = info.data.get("players")
        if value and players in (2, 3):
            raise ValueError(f"partnerships need 4 or 6 players, not {players}")
        return value

    @field_validator("bidding")
    @classmethod
    def _team_bidding_needs_partners(cls, value: str, info: ValidationInfo) -> str:
        if value == "team" and info.data.get("partnerships") is False:
            raise ValueError('bidding "team" needs partnerships: true')
        return value

    @field_validator("min_team_bid")
    @classmethod
    def _min_team_bid_fits_hand(cls, value: int, info: ValidationInfo) -> int:
        players, deck = info.data.get("players"), info.data.get("deck")
        if players is not None and deck is not None and value > hand_size(players, deck):
            raise ValueError(
                f"min_team_bid {value} is more than the {hand_size(players, deck)} tricks"
            )
        return value

    @field_validator("blind_nil")
    @classmethod
    def _blind_nil_needs_nil(cls, value: bool, info: ValidationInfo) -> bool:
        if value and info.data.get("nil") is False:
            raise ValueError("blind nil needs nil: true")
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
