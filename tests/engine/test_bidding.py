"""Bidding, blind nil, the pass and the draw method (docs/rules.md §4-6)."""

from server.engine import Game, Rules, deck_codes
from tests.engine.stacking import (
    bid_all,
    refused,
    side_one_leads_by_330,
    stacked_game,
)

STANDARD = Rules.preset("standard")


def bid(game, seat, number):
    return game.act(seat, {"type": "bid", "bid": number})


def bids_allowed(game, seat):
    return [action["bid"] for action in game.legal(seat)]


def test_bids_are_nil_or_one_to_the_hand_size():
    game = Game(STANDARD, seed=1, dealer=3)
    assert bids_allowed(game, 0) == list(range(14))
    assert refused(game, 0, {"type": "bid", "bid": 14}).code == "bad_bid"
    cutthroat = Game(Rules.preset("cutthroat", deck="jokers"), seed=1, dealer=2)
    assert bids_allowed(cutthroat, 0) == list(range(19))


def test_bid_of_zero_is_refused_without_nil():
    game = Game(Rules.preset("standard", nil=False), seed=1, dealer=3)
    assert bids_allowed(game, 0) == list(range(1, 14))
    error = refused(game, 0, {"type": "bid", "bid": 0})
    assert error.code == "bad_bid" and "1 to 13" in str(error)


def test_individual_contract_is_the_sum_of_non_nil_bids():
    game = Game(STANDARD, seed=1, dealer=3)
    bid_all(game, {0: 3, 1: 0, 2: 4, 3: 5})
    assert game.view(None)["contracts"] == [7, 5]


def test_no_contract_before_a_side_has_finished_bidding():
    game = Game(STANDARD, seed=1, dealer=3)
    bid(game, 0, 3)
    view = game.view(1)
    assert view["contracts"] is None and view["bids"] == [3, None, None, None]


def test_team_bidding_second_partner_names_the_side_total():
    rules = Rules.preset("standard", bidding="team")
    game = Game(rules, seed=1, dealer=3)
    bid(game, 0, 3)
    bid(game, 1, 2)
    assert bids_allowed(game, 2) == [0, *range(3, 14)]
    assert refused(game, 2, {"type": "bid", "bid": 2}).code == "bad_bid"
    bid(game, 2, 5)
    bid(game, 3, 4)
    assert game.view(None)["contracts"] == [5, 4]


def test_min_team_bid_binds_the_last_partner():
    rules = Rules.preset("standard", min_team_bid=4)
    game = Game(rules, seed=1, dealer=3)
    bid(game, 0, 1)
    bid(game, 1, 5)
    assert bids_allowed(game, 2) == [0, *range(3, 14)]
    bid(game, 2, 3)
    assert bids_allowed(game, 3) == [0, *range(1, 14)]


def test_nil_raise_to_min_team_bid():
    rules = Rules.preset("standard", min_team_bid=4)
    game = Game(rules, seed=1, dealer=3)
    bid(game, 0, 2)
    bid(game, 1, 4)
    events = bid(game, 2, 0)
    assert {"type": "bid_raised", "seat": 0, "bid": 4} in events
    assert game.bids[:3] == [4, 4, 0]


def test_partner_after_a_nil_bids_at_least_min_team_bid():
    rules = Rules.preset("competitive")
    game = Game(rules, seed=1, dealer=3)
    bid(game, 0, 0)
    bid(game, 1, 4)
    assert bids_allowed(game, 2) == list(range(4, 14))
    assert refused(game, 2, {"type": "bid", "bid": 0}).code == "bad_bid"


def test_double_nil_allowed_without_min_team_bid():
    game = Game(STANDARD, seed=1, dealer=3)
    bid(game, 0, 0)
    bid(game, 1, 4)
    assert 0 in bids_allowed(game, 2)
    bid(game, 2, 0)
    bid(game, 3, 4)
    assert game.view(None)["contracts"] == [0, 8]


def test_solo_min_team_bid_applies_to_each_own_bid_except_nil():
    rules = Rules.preset("cutthroat", min_team_bid=3)
    game = Game(rules, seed=1, dealer=2)
    assert bids_allowed(game, 0) == [0, *range(3, 18)]


def test_blind_nil_only_when_trailing_by_blind_nil_behind_by():
    rules = Rules.preset("standard", blind_nil=True, blind_nil_behind_by=100)
    game = side_one_leads_by_330(rules)
    assert game.phase == "blind" and game.turn == [2] and game.pending == [2, 0]
    assert game.view(2)["hand"] is None and game.view(0)["hand"] is None
    assert len(game.view(1)["hand"]) == 13 and len(game.view(3)["hand"]) == 13
    assert game.legal(1) == []
    game.act(2, {"type": "blind_nil", "declare": False})
    game.act(0, {"type": "blind_nil", "declare": False})
    assert game.phase == "bid"


def test_blind_nil_not_offered_when_trailing_by_less():
    rules = Rules.preset("standard", blind_nil=True, blind_nil_behind_by=400)
    game = side_one_leads_by_330(rules)
    assert game.phase == "bid" and game.pending == []


def test_blind_nil_not_offered_when_not_behind():
    rules = Rules.preset("standard", blind_nil=True)
    game = Game(rules, seed=5, dealer=3)
    assert game.phase == "bid" and game.view(None)["pending"] == []


def test_blind_nil_any_time_when_behind_by_is_null():
    rules = Rules.preset("standard", blind_nil=True, blind_nil_behind_by=None)
    game = Game(rules, seed=5, dealer=3)
    assert game.phase == "blind"
    assert game.turn == [0] and game.pending == [0, 1, 2, 3]


def test_blind_nil_decider_sees_no_cards_until_deciding():
    rules = Rules.preset("standard", blind_nil=True, blind_nil_behind_by=None)
    game = Game(rules, seed=5, dealer=3)
    assert game.view(0)["hand"] is None
    assert game.view(2)["hand"] is None
    game.act(0, {"type": "blind_nil", "declare": False})
    assert len(game.view(0)["hand"]) == 13
    assert game.view(1)["hand"] is None
    assert game.turn == [1]


def test_blind_nil_is_the_bid_and_bidding_skips_the_bidder():
    rules = Rules.preset("standard", blind_nil=True, blind_nil_behind_by=None, blind_nil_pass=0)
    game = Game(rules, seed=5, dealer=3)
    game.act(0, {"type": "blind_nil", "declare": True})
    for seat in (1, 2, 3):
        game.act(seat, {"type": "blind_nil", "declare": False})
    assert game.phase == "bid" and game.turn == [1]
    assert game.bids[0] == "blind_nil"
    bid_all(game, {1: 3, 2: 4, 3: 3})
    assert game.phase == "play"
    assert game.view(None)["contracts"] == [4, 6]


def test_partner_of_blind_nil_not_asked_with_min_team_bid():
    rules = Rules.preset("competitive", blind_nil_behind_by=None)
    game = Game(rules, seed=5, dealer=3)
    game.act(0, {"type": "blind_nil", "declare": True})
    game.act(1, {"type": "blind_nil", "declare": False})
    assert game.turn == [3]
    assert game.view(2)["hand"] is not None


def test_blind_nil_pass_exchanged_at_once():
    rules = Rules.preset("standard", blind_nil=True, blind_nil_behind_by=None)
    hands = {
        0: "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
        2: "AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S",
    }
    game = stacked_game(rules, hands)
    game.act(0, {"type": "blind_nil", "declare": True})
    for seat in (1, 2, 3):
        game.act(seat, {"type": "blind_nil", "declare": False})
    assert game.phase == "pass" and sorted(game.turn) == [0, 2] and game.pending == [0, 2]
    assert len(game.legal(0)) == 78
    assert refused(game, 0, {"type": "pass", "cards": ["AC"]}).code == "bad_pass"
    assert refused(game, 0, {"type": "pass", "cards": ["AC", "AS"]}).code == "bad_pass"
    events = game.act(0, {"type": "pass", "cards": ["KC", "AC"]})
    assert events == [{"type": "pass_chosen", "seat": 0}]
    assert "AC" in game.view(0)["hand"] and "AC" not in str(game.view(2))
    assert game.view(1)["pending"] == [2]
    events = game.act(2, {"type": "pass", "cards": ["2S", "3S"]})
    assert {"type": "pass", "seat": 0, "to": 2, "cards": ["KC", "AC"]} in events
    assert set(game.view(0)["hand"]) >= {"2S", "3S"} and "AC" not in game.view(0)["hand"]
    assert {"KC", "AC"} <= set(game.view(2)["hand"])
    assert game.phase == "bid" and game.turn == [1]
    assert game.to_state()["deal"][0][:2] == ["2C", "3C"] and "2S" in game.to_state()["deal"][0]


def test_pass_cards_are_a_set_in_any_order():
    rules = Rules.preset("standard", blind_nil=True, blind_nil_behind_by=None)
    game = Game(rules, seed=3, dealer=3)
    game.act(0, {"type": "blind_nil", "declare": True})
    for seat in (1, 2, 3):
        game.act(seat, {"type": "blind_nil", "declare": False})
    first, second = game.legal(0)[5]["cards"]
    assert {"type": "pass", "cards": [second, first]} not in game.legal(0)
    game.act(0, {"type": "pass", "cards": [second, first]})
    assert game.turn == [2]


def test_no_pass_without_partnerships():
    rules = Rules.preset("cutthroat", blind_nil=True, blind_nil_behind_by=None, blind_nil_pass=2)
    game = Game(rules, seed=3, dealer=2)
    game.act(0, {"type": "blind_nil", "declare": True})
    game.act(1, {"type": "blind_nil", "declare": False})
    game.act(2, {"type": "blind_nil", "declare": False})
    assert game.phase == "bid"


def test_draw_method_keep_discards_the_next_card():
    rules = Rules.preset("two_player")
    stock = deck_codes(2, "standard")
    game = Game(rules, decks=[stock], dealer=1, seed=0)
    assert game.phase == "draw" and game.turn == [0]
    assert game.view(0)["draw_card"] == stock[0]
    assert game.view(1)["draw_card"] is None and game.view(None)["draw_card"] is None
    game.act(0, {"type": "draw", "keep": True})
    assert game.view(0)["hand"] == [stock[0]]
    assert game.turn == [1] and game.view(1)["draw_card"] == stock[2]
    game.act(1, {"type": "draw", "keep": False})
    assert game.view(1)["hand"] == [stock[3]]
    assert stock[1] not in str(game.view(0)) + str(game.view(1))


def test_draw_method_gives_each_player_thirteen_cards_then_bidding():
    game = Game(Rules.preset("two_player", deck="jokers"), seed=4, dealer=0)
    assert game.turn == [1]
    for turn in range(26):
        seat = game.turn[0]
        assert seat == (1 + turn) % 2
        assert game.view(1 - seat)["draw_card"] is None
        game.act(seat, {"type": "draw", "keep": turn % 3 == 0})
    assert game.phase == "bid" and game.turn == [1]
    assert game.view(None)["hand_sizes"] == [13, 13]


def test_blind_nil_decisions_come_before_the_draw():
    rules = Rules.preset("two_player", blind_nil=True, blind_nil_behind_by=None)
    game = Game(rules, seed=4, dealer=0)
    assert game.phase == "blind" and game.turn == [1]
    game.act(1, {"type": "blind_nil", "declare": True})
    game.act(0, {"type": "blind_nil", "declare": False})
    assert game.phase == "draw"


def test_partner_of_a_blind_nil_bids_at_least_min_team_bid_after_the_pass():
    rules = Rules.preset("competitive", blind_nil_behind_by=None)
    game = Game(rules, seed=5, dealer=3)
    game.act(0, {"type": "blind_nil", "declare": True})
    game.act(1, {"type": "blind_nil", "declare": False})
    game.act(3, {"type": "blind_nil", "declare": False})
    assert game.phase == "pass" and game.turn == [0, 2]
    assert len(game.legal(0)) == 13
    game.act(0, game.legal(0)[0])
    game.act(2, game.legal(2)[-1])
    assert game.phase == "bid" and game.turn == [1]
    bid(game, 1, 4)
    assert bids_allowed(game, 2) == list(range(4, 14))
