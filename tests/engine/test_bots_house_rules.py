"""The bots under the house rules: Whiz, Mirror and Suicide bids, the nil pass's cards, a
format night (docs/bots.md)."""

import random

import pytest

from server.engine import Rules
from server.engine.bots import BOT_LEVELS, choose_action
from server.engine.bots.evaluation import nil_danger
from tests.engine.stacking import bid_all, stacked_game

WEAK = "2C 3C 4C 5D 6D 7D 2H 3H 4H 5H 6H 2S 3S"
STRONG = "AS KS QS JS TS 9S AH KH AD KD AC KC QC"
MIDDLE = "6S 7S 8S 5C 6C 7C 8C 8D 9D TD 7H 8H 9H"


def choose(rules, game, seat, level):
    return choose_action(rules, game.view(seat), level, random.Random(1), samples=8)


@pytest.mark.parametrize("level", BOT_LEVELS)
def test_whiz_bids_nil_with_a_weak_hand_and_the_spades_with_a_strong_one(level):
    rules = Rules.preset("whiz")
    game = stacked_game(rules, {0: WEAK, 1: STRONG})
    assert choose(rules, game, 0, level) == {"type": "bid", "bid": 0}
    game.act(0, {"type": "bid", "bid": 0})
    assert choose(rules, game, 1, level) == {"type": "bid", "bid": 6}


@pytest.mark.parametrize("level", BOT_LEVELS)
def test_mirror_bids_the_one_bid(level):
    rules = Rules.preset("mirror")
    game = stacked_game(rules, {0: MIDDLE})
    assert choose(rules, game, 0, level) == {"type": "bid", "bid": 3}


@pytest.mark.parametrize("level", BOT_LEVELS)
def test_suicide_first_bidder_takes_the_nil_with_a_weak_hand(level):
    rules = Rules.preset("suicide")
    game = stacked_game(rules, {0: WEAK, 1: STRONG, 2: MIDDLE})
    assert choose(rules, game, 0, level) == {"type": "bid", "bid": 0}
    game.act(0, {"type": "bid", "bid": 0})
    # Seat 1, strong, bids a number; seat 2, after its partner's nil, at least 4.
    first = choose(rules, game, 1, level)
    assert first["bid"] >= 4
    game.act(1, first)
    assert choose(rules, game, 2, level)["bid"] >= 4


@pytest.mark.parametrize("level", BOT_LEVELS)
def test_pass_of_the_nil_pass_the_nil_gives_danger_the_partner_low_cards(level):
    rules = Rules.preset("standard", nil_pass=2)
    nil_hand = "2C 3C 4C 5D 6D 7D 2H 3H 4H 5H QH AS 3S"
    game = stacked_game(rules, {0: nil_hand, 2: "KS QS JS TS 9S AH KH AD KD AC KC JC 9C"})
    bid_all(game, {0: 0, 1: 3, 2: 8, 3: 2})
    assert game.phase == "pass" and game.turn == [0, 2]
    nil_pass = choose(rules, game, 0, level)
    assert sorted(nil_pass["cards"]) == ["AS", "QH"]
    partner_pass = choose(rules, game, 2, level)
    assert sorted(partner_pass["cards"]) == ["9C", "JC"]  # its lowest side cards
    game.act(0, nil_pass)
    game.act(2, partner_pass)
    hand = game.view(0)["hand"]
    assert nil_danger(hand) < nil_danger(nil_hand.split())


def test_expert_weighs_whiz_nil_on_its_play_outs_even_for_an_average_hand():
    """A hand the nil rules of thumb would not try: the expert plays nil and the spade
    count out, and gives the answer of the play-outs (either is legal; nil was weighed)."""
    rules = Rules.preset("whiz")
    game = stacked_game(rules, {0: "2S 9C 8C 7C 6C 5C 4D 3D 2D AH 3H 4H 5H"})
    from server.engine.bots.expert_bids import bid_candidates
    from server.engine.bots.knowledge import bid_numbers, seat_state

    view = game.view(0)
    state = seat_state(rules, view, random.Random(1))
    candidates = bid_candidates(rules, view, state, view["legal"], 1)
    assert candidates == [0, 1] == bid_numbers(view["legal"])


def test_a_format_night_bot_reads_the_hand_format_from_the_view():
    rules = Rules.preset("standard", bidding_formats=["team", "whiz"])
    game = stacked_game(rules, {0: MIDDLE, 2: STRONG})
    game.act(0, {"type": "bid", "bid": 3})
    game.act(1, {"type": "bid", "bid": 2})
    # Team bidding: the second partner's number is the side's total, at least 3.
    view = game.view(2)
    assert view["bidding"] == "team"
    assert choose_action(rules, view, "basic")["bid"] >= 3 + 6
    view = {**view, "bidding": "poker"}
    with pytest.raises(ValueError, match="poker"):
        choose_action(rules, view, "basic")


@pytest.mark.parametrize("level", BOT_LEVELS)
def test_whole_suicide_games_with_the_nil_pass_stay_legal(level):
    from tests.engine.bot_games import play_game

    rules = Rules.preset("suicide", nil_pass=2, target_score=200)
    everyone = dict.fromkeys(range(4), level)
    game, phases = play_game(rules, 5, everyone, max_hands=2, samples=2)
    assert {"bid", "pass", "play"} <= phases
    for result in game.hand_results:
        for side in result["sides"]:
            assert len(side["nil"]) == 1  # exactly one nil a side
