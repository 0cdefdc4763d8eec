"""Rules model: presets, overrides, round trips and refused combinations (docs/rules.md §10)."""

import json

import pytest
from pydantic import ValidationError

from server.engine import PRESETS, Rules

PRESET_TABLE = {
    # field: (standard, competitive, cutthroat, two_player, six_player)
    "players": (4, 4, 3, 2, 6),
    "partnerships": (True, True, False, False, False),
    "bidding": ("individual", "team", "individual", "individual", "individual"),
    "min_team_bid": (0, 4, 0, 0, 0),
    "blind_nil": (False, True, False, False, False),
    "blind_nil_behind_by": (100, 200, 100, 100, 100),
    "blind_nil_penalty": (200, 100, 200, 200, 200),
    "blind_nil_pass": (2, 1, 0, 0, 0),
    "ten_for_two_hundred": (False, True, False, False, False),
    "ten_for_two_hundred_set": (200, 100, 200, 200, 200),
    "first_lead": (
        "left_of_dealer",
        "lowest_club",
        "left_of_dealer",
        "left_of_dealer",
        "left_of_dealer",
    ),
    "all_tricks": ("none", "win", "none", "none", "none"),
}
NAMES = ("standard", "competitive", "cutthroat", "two_player", "six_player")


@pytest.mark.parametrize("name", NAMES)
def test_presets_match_the_rule_book(name):
    rules = Rules.preset(name)
    for field, values in PRESET_TABLE.items():
        assert getattr(rules, field) == values[NAMES.index(name)], field
    assert rules.deck == "standard"
    assert (rules.nil, rules.nil_bonus, rules.nil_penalty) == (True, 100, 100)
    assert (rules.bags, rules.bag_limit, rules.bag_penalty) == (True, 10, 100)
    assert (rules.target_score, rules.lose_score) == (500, None)
    assert rules.blind_nil_bonus == 200 and rules.all_tricks_bonus == 200
    assert rules.duplicate_later_wins and rules.spades_broken_to_lead
    assert rules.nil_tricks == "bags"


HOUSE_NAMES = ("whiz", "mirror", "suicide")


def test_preset_names_are_the_eight_of_the_rule_book():
    assert list(PRESETS) == [*NAMES, *HOUSE_NAMES] == Rules.preset_names()


@pytest.mark.parametrize("name", HOUSE_NAMES)
def test_house_presets_are_standard_with_their_bidding(name):
    rules = Rules.preset(name)
    changed = {
        field: value
        for field, value in rules.model_dump().items()
        if value != Rules.preset("standard").model_dump()[field]
    }
    expected = {"bidding": name, "lose_score": -200}
    if name == "suicide":
        expected["min_team_bid"] = 4
    assert changed == expected
    assert not rules.blind_nil


def test_defaults_are_the_standard_preset_declared_once():
    """Every field's default is the standard preset's value."""
    assert Rules.model_validate({}) == Rules.preset("standard") == Rules()
    assert (Rules().nil_pass, Rules().mercy_margin, Rules().bidding_formats) == (0, None, None)


@pytest.mark.parametrize("name", NAMES)
def test_model_dump_round_trips_through_json(name):
    rules = Rules.preset(name, target_score=300, deck="jokers")
    dumped = json.loads(json.dumps(rules.model_dump()))
    assert Rules.model_validate(dumped) == rules
    assert Rules.model_validate({"preset": name, **dumped}) == rules


def test_overrides_from_json_dict_and_keywords_agree():
    assert Rules.model_validate({"preset": "cutthroat", "bags": False}) == Rules.preset(
        "cutthroat", bags=False
    )
    assert Rules.model_validate({}) == Rules.preset("standard")


def test_rules_are_immutable():
    with pytest.raises(ValidationError):
        Rules.preset("standard").target_score = 1  # type: ignore[misc]


def _refused_field(data):
    with pytest.raises(ValidationError) as caught:
        Rules.model_validate(data)
    errors = caught.value.errors()
    return [str(error["loc"][0]) if error["loc"] else error["msg"] for error in errors]


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"preset": "cutthroat", "bidding": "team"}, "bidding"),
        ({"preset": "two_player", "partnerships": True}, "partnerships"),
        ({"preset": "cutthroat", "partnerships": True}, "partnerships"),
        ({"preset": "competitive", "nil": False}, "blind_nil"),
        ({"target_score": 0}, "target_score"),
        ({"target_score": -5}, "target_score"),
        ({"bag_limit": 0}, "bag_limit"),
        ({"deck": "tarot"}, "deck"),
        ({"players": 5}, "players"),
        ({"players": "four"}, "players"),
        ({"players": True}, "players"),
        ({"bag_limit": True}, "bag_limit"),
        ({"blind_nil_pass": True}, "blind_nil_pass"),
        ({"nil_penalty": False}, "nil_penalty"),
        ({"min_team_bid": 14}, "min_team_bid"),
        ({"min_team_bid": -1}, "min_team_bid"),
        ({"lose_score": 0}, "lose_score"),
        ({"lose_score": -600, "target_score": -700}, "target_score"),
        ({"bidding": "auction"}, "bidding"),
        ({"first_lead": "anyone"}, "first_lead"),
        ({"nil_tricks": "points"}, "nil_tricks"),
        ({"all_tricks": "maybe"}, "all_tricks"),
        ({"blind_nil_pass": 9}, "blind_nil_pass"),
        ({"blind_nil_behind_by": -1}, "blind_nil_behind_by"),
        ({"nil_bonus": -100}, "nil_bonus"),
        ({"target_scor": 300}, "target_scor"),
        # House rules: every combination a format refuses names the field.
        ({"preset": "whiz", "blind_nil": True}, "blind_nil"),
        ({"preset": "mirror", "blind_nil": True}, "blind_nil"),
        ({"preset": "whiz", "nil": False}, "nil"),
        ({"preset": "mirror", "nil": False}, "nil"),
        ({"preset": "suicide", "nil": False}, "nil"),
        ({"preset": "whiz", "min_team_bid": 1}, "min_team_bid"),
        ({"preset": "mirror", "min_team_bid": 4}, "min_team_bid"),
        ({"preset": "suicide", "partnerships": False}, "bidding"),
        ({"preset": "cutthroat", "bidding": "suicide"}, "bidding"),
        ({"preset": "six_player", "bidding": "suicide"}, "bidding"),
        ({"preset": "cutthroat", "nil_pass": 1}, "nil_pass"),
        ({"nil_pass": 4}, "nil_pass"),
        ({"nil_pass": -1}, "nil_pass"),
        ({"nil_pass": True}, "nil_pass"),
        ({"nil_pass": 2, "nil": False}, "nil_pass"),
        ({"mercy_margin": 0}, "mercy_margin"),
        ({"mercy_margin": True}, "mercy_margin"),
        ({"mercy_margin": "lots"}, "mercy_margin"),
        ({"bidding_formats": []}, "bidding_formats"),
        ({"bidding_formats": ["individual"] * 14}, "bidding_formats"),
        ({"bidding_formats": ["whiz", "poker"]}, "bidding_formats"),
        ({"bidding_formats": "whiz"}, "bidding_formats"),
        ({"preset": "cutthroat", "bidding_formats": ["individual", "suicide"]}, "bidding_formats"),
        ({"preset": "cutthroat", "bidding_formats": ["team"]}, "bidding_formats"),
        ({"preset": "competitive", "bidding_formats": ["team", "whiz"]}, "min_team_bid"),
        ({"bidding_formats": ["mirror", "suicide"], "nil": False}, "nil"),
        ({"bidding_formats": ["whiz", "mirror"], "blind_nil": True}, "blind_nil"),
    ],
)
def test_inconsistent_rules_are_refused_naming_the_field(data, field):
    assert field in _refused_field(data)


def test_refusals_of_a_format_say_which_field_holds_it():
    messages = _refused_messages({"preset": "competitive", "bidding_formats": ["team", "whiz"]})
    assert any('"whiz" in bidding_formats' in message for message in messages)
    messages = _refused_messages({"preset": "whiz", "blind_nil": True})
    assert any('bidding "whiz"' in message for message in messages)


def _refused_messages(data):
    with pytest.raises(ValidationError) as caught:
        Rules.model_validate(data)
    return [error["msg"] for error in caught.value.errors()]


def test_a_rotation_offers_blind_nil_only_on_the_hands_that_allow_it():
    rules = Rules.preset(
        "standard", blind_nil=True, bidding_formats=["individual", "whiz", "mirror", "suicide"]
    )
    played = [rules.for_hand(k) for k in range(1, 9)]
    assert [hand.bidding for hand in played] == ["individual", "whiz", "mirror", "suicide"] * 2
    assert [hand.blind_nil for hand in played[:4]] == [True, False, False, True]
    assert all(hand.bidding_formats is None for hand in played)
    assert rules.for_format("mirror") == played[2]
    with pytest.raises(ValueError, match="team"):
        rules.for_format("team")


def test_a_rotation_round_trips_through_json_as_a_list():
    rules = Rules.preset("standard", bidding_formats=["whiz", "suicide"], nil_pass=2)
    dumped = rules.model_dump()
    assert dumped["bidding_formats"] == ["whiz", "suicide"]
    assert Rules.model_validate(json.loads(json.dumps(dumped))) == rules
    assert hash(rules) == hash(Rules.model_validate(dumped))


@pytest.mark.parametrize(
    "data",
    [
        {"preset": "whiz", "partnerships": False},
        {"preset": "mirror", "players": 3, "partnerships": False},
        {"preset": "suicide", "nil_pass": 3, "blind_nil": True},
        {"preset": "cutthroat", "bidding_formats": ["individual", "whiz", "mirror"]},
        {"preset": "competitive", "bidding_formats": ["team", "suicide"], "nil_pass": 1},
        {"bidding_formats": ["whiz", "individual"], "blind_nil": True},
        {"mercy_margin": 1},
        {"nil_pass": 3, "preset": "six_player", "partnerships": True},
    ],
)
def test_consistent_house_rules_are_accepted(data):
    rules = Rules.model_validate(data)
    assert Rules.model_validate(rules.model_dump()) == rules


def test_unknown_preset_is_refused_naming_preset():
    messages = _refused_field({"preset": "hearts"})
    assert any("preset" in message and "hearts" in message for message in messages)


def test_min_team_bid_may_reach_a_bigger_hand():
    assert Rules.preset("cutthroat", min_team_bid=17).min_team_bid == 17


def test_sides_pair_seat_with_seat_plus_half():
    assert Rules.preset("standard").sides == [[0, 2], [1, 3]]
    assert Rules.preset("six_player", partnerships=True).sides == [[0, 3], [1, 4], [2, 5]]
    assert Rules.preset("standard", partnerships=False).sides == [[0], [1], [2], [3]]


def test_hand_size_follows_deck_table():
    assert Rules.preset("standard").hand_size == 13
    assert Rules.preset("standard", deck="jokers").hand_size == 13
    assert Rules.preset("cutthroat").hand_size == 17
    assert Rules.preset("cutthroat", deck="jokers").hand_size == 18
    assert Rules.preset("two_player", deck="jokers_deuces").hand_size == 13
    assert Rules.preset("six_player").hand_size == 17
    assert Rules.preset("six_player", deck="jokers").hand_size == 18
