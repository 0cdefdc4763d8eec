"""Dealing, play and trick rules (docs/rules.md §1-3, §7), each on a stacked deck."""

import pytest

from server.engine import Game, IllegalAction, Rules, deck_codes, trick_winner
from tests.engine.stacking import SUIT_HANDS, bid_all, play_first_legal, refused, stacked_game

STANDARD = Rules.preset("standard")


def play(game, seat, card):
    return game.act(seat, {"type": "play", "card": card})


def test_cards_dealt_one_at_a_time_clockwise_from_left_of_dealer():
    deck = deck_codes(4, "standard")
    game = Game(STANDARD, decks=[deck], dealer=2, seed=0)
    state = game.to_state()
    assert state["hands"][3][:2] == [deck[0], deck[4]]
    assert state["hands"][0][:2] == [deck[1], deck[5]]
    assert state["hands"][2][-1] == deck[51]


def test_first_dealer_comes_from_the_seed():
    dealers = {Game(STANDARD, seed=seed).dealer for seed in range(40)}
    assert dealers == {0, 1, 2, 3}
    assert Game(STANDARD, seed=5).dealer == Game(STANDARD, seed=5).dealer


def test_deal_passes_clockwise_each_hand():
    game = Game(STANDARD, seed=1, dealer=3)
    assert game.dealer == 3
    play_first_legal(game)
    assert (game.dealer, game.hand_number) == (0, 2)
    assert game.hand_results[0]["dealer"] == 3


def test_bidding_and_first_lead_start_left_of_dealer():
    game = Game(STANDARD, seed=1, dealer=1)
    assert game.turn == [2]
    bid_all(game, {0: 3, 1: 3, 2: 3, 3: 3})
    assert game.phase == "play" and game.turn == [2]


def test_play_goes_clockwise():
    game = stacked_game(STANDARD, {})
    bid_all(game, dict.fromkeys(range(4), 3))
    order = []
    for _ in range(4):
        seat = game.turn[0]
        order.append(seat)
        game.act(seat, game.legal(seat)[0])
    assert order == [0, 1, 2, 3]


def test_must_follow_suit():
    game = stacked_game(STANDARD, {0: "AH 2C", 1: "3H 4C"})
    bid_all(game, dict.fromkeys(range(4), 3))
    play(game, 0, "AH")
    error = refused(game, 1, {"type": "play", "card": "4C"})
    assert error.code == "must_follow_suit"
    assert str(error) == "You must follow suit: you hold a heart"
    assert {"type": "play", "card": "4C"} not in game.legal(1)
    assert game.legal(1) == [{"type": "play", "card": "3H"}]


def test_any_card_when_void_in_the_led_suit():
    game = stacked_game(STANDARD, SUIT_HANDS)
    bid_all(game, dict.fromkeys(range(4), 3))
    play(game, 0, "2S")
    assert len(game.legal(1)) == 13


def test_spades_cannot_lead_until_broken():
    game = stacked_game(STANDARD, {0: "AS 2H", 1: "3H"})
    bid_all(game, dict.fromkeys(range(4), 3))
    error = refused(game, 0, {"type": "play", "card": "AS"})
    assert error.code == "spades_not_broken"
    assert {"type": "play", "card": "AS"} not in game.legal(0)
    assert not game.view(0)["spades_broken"]


def test_spades_may_lead_when_the_leader_holds_only_spades():
    game = stacked_game(STANDARD, SUIT_HANDS)
    bid_all(game, dict.fromkeys(range(4), 3))
    # Every spade may be led (and, holding them all, seat 0 may claim the rest).
    assert game.legal(0) == [{"type": "play", "card": f"{rank}S"} for rank in "23456789TJQKA"] + [
        {"type": "claim"}
    ]
    play(game, 0, "2S")
    assert game.view(None)["spades_broken"]


def test_spades_break_when_a_spade_is_discarded():
    hands = {0: "AH KH QH", 1: "AS 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC", 2: "2H", 3: "3H"}
    game = stacked_game(STANDARD, hands)
    bid_all(game, dict.fromkeys(range(4), 3))
    play(game, 0, "AH")
    play(game, 1, "AS")
    assert game.view(None)["spades_broken"]
    play(game, 2, "2H")
    play(game, 3, "3H")
    assert game.turn == [1]
    assert {"type": "play", "card": "2C"} in game.legal(1)


def test_spades_may_lead_any_time_without_spades_broken_to_lead():
    rules = Rules.preset("standard", spades_broken_to_lead=False)
    game = stacked_game(rules, {0: "AS 2H"})
    bid_all(game, dict.fromkeys(range(4), 3))
    assert {"type": "play", "card": "AS"} in game.legal(0)


def test_highest_spade_wins_the_trick():
    game = stacked_game(STANDARD, {0: "AH", 1: "2S", 2: "KH 3S", 3: "QH"})
    bid_all(game, dict.fromkeys(range(4), 3))
    events = []
    for seat, card in [(0, "AH"), (1, "2S"), (2, "KH"), (3, "QH")]:
        events += play(game, seat, card)
    trick = events[-1]
    assert trick["type"] == "trick" and trick["winner"] == 1 and trick["number"] == 1
    assert trick["cards"][1] == {"seat": 1, "card": "2S"}


def test_highest_card_of_the_led_suit_wins_without_spades():
    game = stacked_game(STANDARD, {0: "5H", 1: "AC", 2: "9H", 3: "7H"})
    bid_all(game, dict.fromkeys(range(4), 3))
    for seat, card in [(0, "5H"), (1, "AC"), (2, "9H"), (3, "7H")]:
        play(game, seat, card)
    assert game.tricks_won == [0, 0, 1, 0]


def test_the_winner_of_a_trick_leads_the_next():
    game = stacked_game(STANDARD, {0: "5H", 1: "AC", 2: "9H", 3: "7H"})
    bid_all(game, dict.fromkeys(range(4), 3))
    for seat, card in [(0, "5H"), (1, "AC"), (2, "9H"), (3, "7H")]:
        play(game, seat, card)
    assert game.turn == [2]
    view = game.view(None)
    assert view["last_trick"]["winner"] == 2
    assert [c["card"] for c in view["played"]] == ["5H", "AC", "9H", "7H"]


def test_first_lead_left_of_dealer_may_be_any_non_spade():
    game = stacked_game(STANDARD, {0: "AD 5H 2C AS"}, dealer=3)
    bid_all(game, dict.fromkeys(range(4), 3))
    assert game.turn == [0]
    assert {"type": "play", "card": "AD"} in game.legal(0)


def test_two_clubs_first_lead():
    rules = Rules.preset("standard", first_lead="two_clubs")
    game = stacked_game(rules, {2: "2C AH"})
    bid_all(game, dict.fromkeys(range(4), 3))
    assert game.turn == [2]
    assert game.legal(2) == [{"type": "play", "card": "2C"}]
    assert refused(game, 2, {"type": "play", "card": "AH"}).code == "first_trick"


def test_two_clubs_first_lead_is_the_next_lowest_club_when_2c_is_removed():
    rules = Rules.preset("standard", first_lead="two_clubs", deck="jokers")
    game = stacked_game(rules, {1: "3C AH"})
    bid_all(game, dict.fromkeys(range(4), 3))
    assert game.turn == [1]
    assert game.legal(1) == [{"type": "play", "card": "3C"}]


def test_two_clubs_between_copies_first_in_bidding_order_leads():
    rules = Rules.preset("six_player", first_lead="two_clubs")
    game = stacked_game(rules, {1: "3C", 4: "3C"}, dealer=2)
    bid_all(game, dict.fromkeys(range(6), 2))
    assert game.turn == [4]
    assert game.legal(4) == [{"type": "play", "card": "3C"}]


def test_lowest_club_first_trick():
    rules = Rules.preset("competitive")
    hands = {
        0: "5C 9C AH KH QH JH TH 9H 8H 7H 6H 5H 4H",
        1: "KC 3C 2S 3H 2H 4C 6C 7C 8C TC JC QC AC",
        2: "AD KD QD JD TD 9D 8D 7D 6D 5D 4D 3D 2D",
        3: "AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2C",
    }
    game = stacked_game(rules, hands)
    bid_all(game, {0: 4, 1: 4, 2: 4, 3: 4})
    assert game.legal(0) == [{"type": "play", "card": "5C"}]
    error = refused(game, 0, {"type": "play", "card": "9C"})
    assert error.code == "first_trick" and "Five of clubs" in str(error)
    play(game, 0, "5C")
    assert game.legal(1) == [{"type": "play", "card": "3C"}]
    play(game, 1, "3C")
    assert len(game.legal(2)) == 13
    play(game, 2, "AD")
    assert game.legal(3) == [{"type": "play", "card": "2C"}]
    play(game, 3, "2C")
    assert game.tricks_won == [1, 0, 0, 0]


def test_lowest_club_spade_only_from_a_player_holding_only_spades():
    rules = Rules.preset("competitive")
    game = stacked_game(rules, {0: "2C", 1: "AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S", 2: "AH"})
    bid_all(game, {0: 4, 1: 4, 2: 4, 3: 4})
    play(game, 0, "2C")
    play(game, 1, "2S")
    assert not any(action["card"].endswith("S") for action in game.legal(2))
    play(game, 2, game.legal(2)[0]["card"])
    play(game, 3, game.legal(3)[0]["card"])
    assert game.tricks_won[1] == 1


def test_jokers_trump_order():
    rules = Rules.preset("standard", deck="jokers", spades_broken_to_lead=False)
    game = stacked_game(rules, {0: "AS", 1: "LJ", 2: "BJ", 3: "KS"})
    bid_all(game, dict.fromkeys(range(4), 3))
    for seat, card in [(0, "AS"), (1, "LJ"), (2, "BJ"), (3, "KS")]:
        play(game, seat, card)
    assert game.tricks_won[2] == 1
    assert trick_winner(["AS", "LJ", "KS"], "jokers") == 1


def test_jokers_deuces_trump_order():
    rules = Rules.preset("standard", deck="jokers_deuces", spades_broken_to_lead=False)
    game = stacked_game(rules, {0: "2S", 1: "AS", 2: "2D", 3: "3S"})
    bid_all(game, dict.fromkeys(range(4), 3))
    for seat, card in [(0, "2S"), (1, "AS"), (2, "2D"), (3, "3S")]:
        play(game, seat, card)
    assert game.tricks_won[2] == 1
    assert trick_winner(["AS", "2S", "2D", "LJ", "BJ"], "jokers_deuces") == 4
    assert trick_winner(["AS", "2S", "2D", "LJ"], "jokers_deuces") == 3
    assert trick_winner(["AS", "2S", "2D"], "jokers_deuces") == 2
    assert trick_winner(["AS", "2S"], "jokers_deuces") == 1
    assert trick_winner(["3S", "KH"], "jokers_deuces") == 0


def test_jokers_and_deuce_of_diamonds_are_spades_for_following():
    rules = Rules.preset("standard", deck="jokers_deuces", spades_broken_to_lead=False)
    game = stacked_game(rules, {0: "AS", 1: "2D AD"})
    bid_all(game, dict.fromkeys(range(4), 3))
    play(game, 0, "AS")
    assert game.legal(1) == [{"type": "play", "card": "2D"}]


@pytest.mark.parametrize(("later_wins", "winner"), [(True, 2), (False, 1)])
def test_duplicate_later_wins(later_wins, winner):
    rules = Rules.preset("six_player", duplicate_later_wins=later_wins, spades_broken_to_lead=False)
    game = stacked_game(rules, {0: "2S", 1: "AS", 2: "AS"}, dealer=5)
    bid_all(game, dict.fromkeys(range(6), 2))
    for seat, card in [(0, "2S"), (1, "AS"), (2, "AS")]:
        play(game, seat, card)
    for seat in (3, 4, 5):
        play(game, seat, game.legal_cards(seat)[0])
    assert game.tricks_won[winner] == 1


def test_six_players_hold_a_double_deck_without_the_clubs_deuces():
    game = Game(Rules.preset("six_player"), seed=2)
    view = game.view(0)
    assert view["hand_sizes"] == [17] * 6
    assert "2C" not in game.to_state()["hands"][0]
    legal = game.legal(game.turn[0])
    assert len(legal) == len({str(action) for action in legal})


def test_cutthroat_removes_the_deuce_of_clubs():
    game = Game(Rules.preset("cutthroat"), seed=2)
    hands = game.to_state()["hands"]
    assert [len(hand) for hand in hands] == [17, 17, 17]
    assert all("2C" not in hand for hand in hands)


def test_tricks_per_hand_equal_hand_size():
    game = Game(Rules.preset("cutthroat", deck="jokers"), seed=4)
    play_first_legal(game)
    assert sum(game.hand_results[0]["tricks"]) == 18


def test_fast_path_agrees_with_legal_and_act():
    game = Game(STANDARD, seed=9)
    bid_all(game, dict.fromkeys(range(4), 3))
    seat = game.turn[0]
    assert game.legal_cards(seat) == [a["card"] for a in game.legal(seat)]
    assert game.legal_cards((seat + 1) % 4) == []
    with pytest.raises(IllegalAction) as caught:
        game.play((seat + 1) % 4, game.legal_cards(seat)[0])
    assert caught.value.code == "not_your_turn"
    twin = Game(STANDARD, seed=9)
    bid_all(twin, dict.fromkeys(range(4), 3))
    # play() builds no events and returns None; the state changes exactly as by act().
    while game.winner is None and game.hand_number < 3:
        seat = game.turn[0]
        if game.phase == "play":
            card = game.legal_cards(seat)[-1]
            assert game.play(seat, card) is None
            assert twin.act(seat, {"type": "play", "card": card})[0]["type"] == "play"
        else:
            action = game.legal(seat)[-1]
            game.act(seat, action)
            twin.act(seat, action)
        assert game.to_state() == twin.to_state()
