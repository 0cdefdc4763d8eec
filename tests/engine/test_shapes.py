"""The typed shapes say what the engine really hands out: every view, legal action, event,
hand result and saved state of whole random games has exactly the keys of its TypedDict."""

import random
import typing

import pytest

from server.engine import Game, IllegalAction, Rules, shapes
from server.engine.bots.knowledge import bid_numbers, first_action, pass_count, play_actions

ACTIONS = {typing.get_type_hints(kind)["type"].__args__[0]: kind for kind in shapes.Action.__args__}
EVENTS = {
    name: kind
    for kind in shapes.Event.__args__
    for name in typing.get_type_hints(kind)["type"].__args__
}
# Blind nil (and its pass) in every game; the six-player game in partnerships.
CASES = [
    ("standard", {"blind_nil": True, "blind_nil_behind_by": None}),
    ("competitive", {"blind_nil_behind_by": None}),
    ("cutthroat", {}),
    ("two_player", {}),
    ("six_player", {"partnerships": True, "blind_nil": True, "blind_nil_behind_by": None}),
]


def keys(shape):
    return set(shape.__required_keys__ | shape.__optional_keys__)


def check_result(result):
    # `claim` only in a hand a claim ended.
    assert set(result) == keys(shapes.HandResult) - ({"claim"} - set(result))
    if "claim" in result:
        assert set(result["claim"]) == keys(shapes.HandClaim)
    for side in result["sides"]:
        assert set(side) == keys(shapes.SideResult)
        assert all(set(nil) == keys(shapes.NilResult) for nil in side["nil"])


@pytest.mark.parametrize(("preset", "overrides"), CASES)
def test_whole_games_hand_out_exactly_the_typed_shapes(preset, overrides):
    # Random play is often set: a game also ends at -250.
    rules = Rules.preset(preset, target_score=250, lose_score=-250, **overrides)
    game = Game(rules, seed=11)
    rng = random.Random(11)
    seen = set()
    while game.phase != "over" and game.hand_number < 40:
        seat = rng.choice(game.turn)
        for viewer in (None, seat):
            view = game.view(viewer)
            assert set(view) == keys(shapes.View)
            assert all(set(score) == keys(shapes.SideScore) for score in view["scores"])
            if view["last_trick"] is not None:
                assert set(view["last_trick"]) == keys(shapes.LastTrick)
            if view["last_hand"] is not None:
                check_result(view["last_hand"])
        choices = game.view(seat)["legal"]
        if game.phase == "pass":
            assert choices == [{"type": "pass", "count": rules.blind_nil_pass}]
            assert set(choices[0]) == keys(shapes.PassChoice)
        legal = game.legal(seat)
        for action in legal:
            assert set(action) == keys(ACTIONS[action["type"]])
        for event in game.act(seat, rng.choice(legal)):
            seen.add(event["type"])
            shape = EVENTS[event["type"]]
            assert shape.__required_keys__ <= set(event) <= keys(shape)
            for play in event.get("cards", []) if event["type"] == "trick" else []:
                assert set(play) == keys(shapes.SeatCard)
    assert {"bid", "play", "trick", "hand_scored", "game_over"} <= seen
    assert ("hand_start" in seen) == (game.hand_number > 1)  # the first hand starts unseen
    for result in game.hand_results:
        check_result(result)
    state = game.to_state()
    assert set(state) == keys(shapes.GameState)
    assert set(game.current_state()) == keys(shapes.CurrentState)
    for plays in game.plays_of(game.hand_number) or []:
        assert set(plays) == keys(shapes.TrickPlays)


def test_a_malformed_action_is_refused_whatever_its_type_says():
    game = Game(Rules.preset("standard"), seed=3)
    seat = game.turn[0]
    for action in ({"type": "bid", "bid": "3"}, {"type": "bid"}, ["bid", 3], {"bid": 3}):
        with pytest.raises(IllegalAction) as refusal:
            game.act(seat, action)
        assert refusal.value.code in ("bad_action", "bad_bid")


def test_the_bots_read_legal_actions_by_their_type():
    legal = [{"type": "bid", "bid": 0}, {"type": "bid", "bid": 3}]
    assert bid_numbers(legal) == [0, 3] and play_actions(legal) == []
    assert first_action(legal) == {"type": "bid", "bid": 0}
    plays = [{"type": "play", "card": "2C"}, {"type": "play", "card": "AS"}]
    assert play_actions(plays) == plays and bid_numbers(plays) == []
    assert pass_count([{"type": "pass", "count": 2}]) == 2
    assert pass_count([{"type": "pass", "cards": ["2C", "3C", "4C"]}]) == 3
    with pytest.raises(ValueError):
        first_action([{"type": "pass", "count": 2}])
    with pytest.raises(ValueError):
        pass_count(plays)
