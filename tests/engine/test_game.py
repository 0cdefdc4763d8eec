"""Whole games: end of game (docs/rules.md §9), refusals, views, hand results, save/restore."""

import json

import pytest

from server.engine import Game, IllegalAction, Rules, score_hand
from tests.engine.stacking import (
    SUIT_HANDS,
    bid_all,
    play_first_legal,
    refused,
    stacked_game,
    with_scores,
)

STANDARD = Rules.preset("standard")


def side_zero_takes_all(rules, scores, bids=None):
    """Seat 0 holds every spade and leads: side 0 takes all 13 tricks."""
    game = with_scores(stacked_game(rules, SUIT_HANDS, dealer=3), scores)
    bid_all(game, bids or {0: 7, 1: 1, 2: 0, 3: 1})
    events = play_first_legal(game)
    return game, events


def test_game_ends_when_a_side_reaches_target_score():
    game, events = side_zero_takes_all(STANDARD, [[330, 0], [0, 0]])
    assert game.phase == "over" and game.winner == 0 and game.turn == []
    assert events[-1] == {"type": "game_over", "winner": 0, "scores": game.scores}
    assert game.scores[0] == {"score": 330 + 100 + 70 + 6, "bags": 6}
    assert refused(game, 0, {"type": "bid", "bid": 3}).code == "game_over"
    assert game.legal(0) == [] and game.view(0)["winner"] == 0


def test_game_goes_on_below_target_score():
    game, events = side_zero_takes_all(STANDARD, [[0, 0], [0, 0]])
    assert game.phase == "bid" and game.winner is None and game.hand_number == 2
    assert [e["type"] for e in events[-2:]] == ["hand_scored", "hand_start"]


def test_target_score_is_configurable():
    rules = Rules.preset("standard", target_score=150)
    game, _ = side_zero_takes_all(rules, [[0, 0], [0, 0]])
    assert game.winner == 0


def test_game_ends_when_a_side_falls_to_lose_score():
    rules = Rules.preset("standard", lose_score=-200)
    game, _ = side_zero_takes_all(rules, [[0, 0], [-150, 0]], bids={0: 7, 1: 5, 2: 0, 3: 5})
    assert game.scores[1]["score"] == -250
    assert game.phase == "over" and game.winner == 0


def test_tied_leaders_play_another_hand():
    rules = Rules.preset("standard", target_score=100)
    game, _ = side_zero_takes_all(rules, [[0, 0], [196, 0]])
    assert [s["score"] for s in game.scores] == [176, 176]
    assert game.phase != "over" and game.winner is None and game.hand_number == 2


def test_a_hand_limit_ends_the_game_after_that_hand_the_highest_score_winning():
    rules = Rules.preset("standard", hand_limit=1)
    game, events = side_zero_takes_all(rules, [[0, 0], [0, 0]])
    assert game.phase == "over" and game.winner == 0 and game.turn == []
    assert game.hand_number == 1 and len(game.hand_results) == 1
    assert events[-1] == {"type": "game_over", "winner": 0, "scores": game.scores}
    assert game.view(None)["winner"] == 0
    # Saved and restored, the game stays over.
    restored = Game.from_state(json.loads(json.dumps(game.to_state())))
    assert restored.phase == "over" and restored.winner == 0 and restored.legal(0) == []


def test_a_hand_limit_ends_a_tied_game_without_a_winner():
    rules = Rules.preset("standard", hand_limit=1)
    game, events = side_zero_takes_all(rules, [[0, 0], [196, 0]])
    assert [s["score"] for s in game.scores] == [176, 176]
    assert game.phase == "over" and game.winner is None
    assert events[-1] == {"type": "game_over", "winner": None, "scores": game.scores}
    assert refused(game, 0, {"type": "bid", "bid": 3}).code == "game_over"


def test_before_its_hand_limit_the_game_goes_on_and_the_target_still_ends_it():
    rules = Rules.preset("standard", hand_limit=2)
    game, _ = side_zero_takes_all(rules, [[0, 0], [0, 0]])
    assert game.phase == "bid" and game.hand_number == 2
    early, _ = side_zero_takes_all(rules, [[330, 0], [0, 0]])
    assert early.phase == "over" and early.winner == 0 and early.hand_number == 1


@pytest.mark.parametrize("limit", [0, -1, 101, True, "many"])
def test_a_bad_hand_limit_is_refused(limit):
    with pytest.raises(ValueError):
        Rules.preset("standard", hand_limit=limit)


def test_all_tricks_win_ends_the_game_at_once():
    rules = Rules.preset("standard", all_tricks="win")
    game, _ = side_zero_takes_all(rules, [[-400, 0], [450, 0]])
    assert game.winner == 0 and game.phase == "over"


def test_all_tricks_bonus_is_added_to_the_score():
    rules = Rules.preset("standard", all_tricks="bonus")
    game, _ = side_zero_takes_all(rules, [[0, 0], [0, 0]])
    assert game.scores[0]["score"] == 100 + 70 + 6 + 200
    assert game.hand_results[0]["sides"][0]["all_tricks"] is True


def test_hand_results_summarise_each_hand_and_match_score_hand():
    game, events = side_zero_takes_all(STANDARD, [[0, 0], [0, 0]])
    result = game.hand_results[0]
    assert json.loads(json.dumps(result)) == result
    scored = next(e for e in events if e["type"] == "hand_scored")
    assert {k: v for k, v in scored.items() if k != "type"} == result
    assert result["hand_number"] == 1 and result["dealer"] == 3
    assert result["bids"] == [7, 1, 0, 1] and result["tricks"] == [13, 0, 0, 0]
    assert result["deal"][0] == SUIT_HANDS[0].split()
    side = result["sides"][0]
    assert side["seats"] == [0, 2] and side["contract"] == 7 and side["taken"] == 13
    assert side["points"] == 176 and side["bag_penalty"] == 0
    assert side["nil"] == [{"seat": 2, "blind": False, "made": True, "points": 100}]
    zero = [{"score": 0, "bags": 0}] * 2
    assert score_hand(STANDARD, result["bids"], result["tricks"], zero) == [
        {"score": s["score"], "bags": s["bags"]} for s in result["sides"]
    ]
    assert game.view(1)["last_hand"] == result


@pytest.mark.parametrize(
    ("action", "code"),
    [
        (None, "bad_action"),
        ("bid 3", "bad_action"),
        ({}, "bad_action"),
        ({"type": "shout"}, "bad_action"),
        ({"type": 3}, "bad_action"),
        ({"type": "bid"}, "bad_action"),
        ({"type": "bid", "bid": 3, "extra": 1}, "bad_action"),
        ({"type": "bid", "bid": "3"}, "bad_bid"),
        ({"type": "bid", "bid": True}, "bad_bid"),
        ({"type": "bid", "bid": 3.0}, "bad_bid"),
        ({"type": "bid", "bid": -1}, "bad_bid"),
        ({"type": "bid", "bid": None}, "bad_bid"),
        ({"type": "play", "card": "AS"}, "wrong_phase"),
        ({"type": "blind_nil", "declare": True}, "wrong_phase"),
    ],
)
def test_malformed_actions_are_refused_and_change_nothing(action, code):
    game = Game(STANDARD, seed=3, dealer=3)
    assert refused(game, 0, action).code == code


@pytest.mark.parametrize("seat", [-1, 4, "0", None, True, 1.0])
def test_seats_out_of_range_are_refused(seat):
    game = Game(STANDARD, seed=3, dealer=3)
    assert refused(game, seat, {"type": "bid", "bid": 3}).code == "bad_seat"


@pytest.mark.parametrize(
    ("action", "code"),
    [
        ({"type": "play", "card": "AH", "extra": 1}, "bad_action"),
        ({"type": "play"}, "bad_action"),
        ({"type": "play", "cards": "AH"}, "bad_action"),
        ({"type": "play", "card": "ah"}, "bad_action"),
        ({"type": "play", "card": None}, "bad_action"),
    ],
)
def test_malformed_plays_of_a_legal_card_are_refused(action, code):
    """The engine's quick lane for a legal card must not let a malformed action through."""
    game = stacked_game(STANDARD, {0: "AH 2C AS"})
    bid_all(game, dict.fromkeys(range(4), 3))
    assert "AH" in game.legal_cards(0)
    assert refused(game, 0, action).code == code


def test_a_bool_is_not_the_seat_on_turn():
    """``True == 1`` in Python: seat 1 on turn must still refuse ``True`` as a seat."""
    game = Game(STANDARD, seed=3, dealer=0)
    assert game.turn == [1]
    assert refused(game, True, {"type": "bid", "bid": 3}).code == "bad_seat"
    assert game.legal(True) == []
    bid_all(game, dict.fromkeys(range(4), 3))
    assert game.turn == [1]  # left of the dealer leads
    card = game.legal_cards(1)[0]
    assert refused(game, True, {"type": "play", "card": card}).code == "bad_seat"
    assert game.legal(True) == [] and game.legal_cards(True) == []


def test_playing_refusals_name_the_rule():
    game = stacked_game(STANDARD, {0: "AH 2C AS"})
    bid_all(game, dict.fromkeys(range(4), 3))
    assert refused(game, 1, {"type": "play", "card": "2D"}).code == "not_your_turn"
    assert refused(game, 0, {"type": "play", "card": "KD"}).code == "not_in_hand"
    assert refused(game, 0, {"type": "play", "card": "XX"}).code == "bad_action"
    assert refused(game, 0, {"type": "play", "card": ["AH"]}).code == "bad_action"
    assert refused(game, 0, {"type": "bid", "bid": 3}).code == "wrong_phase"
    error = refused(game, 0, {"type": "play", "card": "KD"})
    assert str(error) == "You do not hold the King of diamonds"


def test_a_view_shows_only_the_viewers_own_cards():
    game = Game(STANDARD, seed=11, dealer=3)
    hands = game.to_state()["hands"]
    for seat in range(4):
        view = game.view(seat)
        assert sorted(view["hand"]) == sorted(hands[seat])
        others = {card for other in range(4) if other != seat for card in hands[other]}
        assert not others & _cards_in(view)
    spectator = game.view(None)
    assert spectator["hand"] is None and spectator["legal"] == []
    assert not _cards_in(spectator)


def _cards_in(view):
    from server.engine.cards import INDEX

    text = json.dumps(view)
    return {code for code in INDEX if f'"{code}"' in text}


def test_view_holds_the_contract_fields():
    game = Game(STANDARD, seed=11, dealer=3)
    view = game.view(0)
    for field in [
        "phase",
        "dealer",
        "turn",
        "hand",
        "hand_sizes",
        "bids",
        "trick",
        "tricks_won",
        "scores",
        "legal",
        "hand_number",
        "winner",
        "players",
        "sides",
        "contracts",
        "last_trick",
        "played",
        "last_hand",
        "spades_broken",
        "draw_card",
        "pending",
        "target_score",
    ]:
        assert field in view, field
    assert view["legal"] == game.legal(0) and view["hand_number"] == 1
    with pytest.raises(IllegalAction):
        game.view(7)


def test_state_round_trips_through_json_mid_game():
    game = Game(Rules.preset("competitive", blind_nil_behind_by=None), seed=21)
    for _ in range(40):
        seat = game.turn[0]
        game.act(seat, game.legal(seat)[-1])
    restored = Game.from_state(json.loads(json.dumps(game.to_state())))
    assert restored.to_state() == game.to_state()
    for _ in range(300):
        seat = game.turn[0]
        action = game.legal(seat)[0]
        assert restored.act(seat, action) == game.act(seat, action)
    assert restored.to_state() == game.to_state()


BLIND = {"blind_nil": True, "blind_nil_behind_by": None}


@pytest.mark.parametrize(
    ("rules", "phases"),
    [
        (
            Rules.preset("standard", first_lead="two_clubs", min_team_bid=4, **BLIND),
            {"blind", "bid", "play"},
        ),
        (Rules.preset("two_player", **BLIND), {"blind", "draw", "bid", "play"}),
        (
            Rules.preset("six_player", partnerships=True, blind_nil_pass=2, **BLIND),
            {"blind", "pass", "bid", "play"},
        ),
        (Rules.preset("competitive", deck="jokers_deuces", first_lead="lowest_club"), {"play"}),
    ],
    ids=["blind-two-clubs", "blind-draw", "six-partners-pass", "lowest-club"],
)
def test_a_game_restored_at_any_step_goes_on_exactly_as_the_original(rules, phases):
    """Every phase's state is in the saved state: a game saved and restored (through
    JSON) before any action gives the same events, views and state as the original."""
    game = Game(rules, seed=5)
    seen = set()
    while len(game.hand_results) < 2 and game.phase != "over":
        seen.add(game.phase)
        restored = Game.from_state(json.loads(json.dumps(game.to_state())))
        assert restored.to_state() == game.to_state()
        seat = game.turn[-1]
        assert restored.view(seat) == game.view(seat) and restored.turn == game.turn
        legal = game.legal(seat)
        action = legal[len(game.log) % len(legal)]
        events = game.act(seat, action)
        assert restored.act(seat, action) == events
        assert restored.to_state() == game.to_state()
        for event in events:
            if event["type"] == "hand_scored":
                finished = event["hand_number"]
                assert restored.plays_of(finished) == game.plays_of(finished) is not None
    assert phases <= seen


def test_replaying_the_log_rebuilds_the_game():
    rules = Rules.preset("standard", blind_nil=True, blind_nil_behind_by=None)
    game = Game(rules, seed=8)
    for step in range(200):
        seat = game.turn[0]
        legal = game.legal(seat)
        game.act(seat, legal[step % len(legal)])
    replay = Game(rules, seed=8)
    for seat, action in game.log:
        replay.act(seat, action)
    assert replay.to_state() == game.to_state()


def test_same_seed_same_shuffles_and_given_decks_come_first():
    first, second = Game(STANDARD, seed=99), Game(STANDARD, seed=99)
    assert first.to_state() == second.to_state()
    assert Game(STANDARD, seed=100).to_state()["hands"] != first.to_state()["hands"]
    deck = stacked_game(STANDARD, SUIT_HANDS).decks
    assert deck


def test_decks_must_be_the_tables_deck():
    with pytest.raises(ValueError):
        Game(STANDARD, decks=[["AS"] * 52], dealer=0)
    with pytest.raises(ValueError):
        Game(STANDARD, dealer=4)


def test_from_state_refuses_foreign_data():
    with pytest.raises(ValueError):
        Game.from_state({"format": 999})


def test_from_state_refuses_damaged_data():
    state = Game(STANDARD, seed=3).to_state()
    del state["hands"]
    with pytest.raises(ValueError):
        Game.from_state(state)


def test_changing_a_saved_state_or_a_view_does_not_change_the_game():
    game, _ = side_zero_takes_all(STANDARD, [[0, 0], [0, 0]])
    before = game.to_state()
    game.to_state()["hand_results"][0]["sides"][0]["score"] = 999
    game.view(0)["last_hand"]["bids"][0] = 9
    game.view(0)["hand"].clear()
    assert game.to_state() == before


def test_engine_shuffle_matches_random_shuffle_so_seeds_keep_their_deals():
    import random

    from server.engine.game import shuffle

    for seed in range(300):
        for size in (51, 52, 54, 102, 108):
            ours, theirs = list(range(size)), list(range(size))
            shuffle(ours, random.Random(f"s{seed}"))
            random.Random(f"s{seed}").shuffle(theirs)
            assert ours == theirs
