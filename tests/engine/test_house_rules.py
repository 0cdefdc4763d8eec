"""House rules: Whiz, Mirror, Suicide, the nil pass, the mercy margin and a format night
(docs/rules.md, "House rules")."""

import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from server.engine import Game, Rules
from server.engine.cards import SPADES, card_index, card_order
from tests.engine.stacking import bid_all, play_first_legal, refused, stacked_game
from tests.engine.test_properties import check_view

# Seat 0: four spades; seat 1: none; seat 2: every other spade; seat 3: none.
HANDS = {
    0: "2S 3S 4S AS 2C 3C 4C 5C 6C 7C 8C 9C TC",
    1: "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
    2: "5S 6S 7S 8S 9S TS JS QS KS JC QC KC AC",
    3: "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
}


def bids_allowed(game, seat):
    return [action["bid"] for action in game.legal(seat)]


def spades_held(rules, hand):
    suit = card_order(rules.deck).suit
    return sum(1 for code in hand if suit[card_index(code)] == SPADES)


# ----------------------------------------------------------------------------- Whiz


def test_whiz_bids_are_nil_or_the_spades_held():
    game = stacked_game(Rules.preset("whiz"), HANDS)
    assert game.view(0)["bidding"] == "whiz"
    assert bids_allowed(game, 0) == [0, 4]
    error = refused(game, 0, {"type": "bid", "bid": 3})
    assert error.code == "bad_bid" and "nil (0) or 4" in str(error) and "Whiz" in str(error)
    bid_all(game, {0: 4, 1: 0, 2: 9, 3: 0})
    assert game.view(None)["contracts"] == [13, 0]


def test_whiz_without_spades_is_nil_only():
    game = stacked_game(Rules.preset("whiz"), HANDS)
    game.act(0, {"type": "bid", "bid": 0})
    assert bids_allowed(game, 1) == [0]
    assert "nil (0): under Whiz" in str(refused(game, 1, {"type": "bid", "bid": 1}))


def test_whiz_counts_jokers_and_the_trump_deuce_as_spades():
    rules = Rules.preset("whiz", deck="jokers_deuces")
    game = stacked_game(rules, {0: "BJ LJ 2D AS 3C 4C 5C 6C 7C 8C 9C TC JC"})
    assert bids_allowed(game, 0) == [0, 4]


# ----------------------------------------------------------------------------- Mirror


def test_mirror_has_one_bid_the_spades_held_and_none_is_a_nil():
    game = stacked_game(Rules.preset("mirror"), HANDS)
    assert bids_allowed(game, 0) == [4]
    error = refused(game, 0, {"type": "bid", "bid": 0})
    assert "must be 4: under Mirror" in str(error)
    game.act(0, {"type": "bid", "bid": 4})
    assert bids_allowed(game, 1) == [0]
    bid_all(game, {1: 0, 2: 9, 3: 0})
    assert game.view(None)["contracts"] == [13, 0]
    play_first_legal(game)
    nils = game.hand_results[0]["sides"][1]["nil"]
    assert [(nil["seat"], nil["blind"]) for nil in nils] == [(1, False), (3, False)]


# ----------------------------------------------------------------------------- Suicide


def test_suicide_first_bidder_nil_or_at_least_the_minimum_then_the_other():
    game = stacked_game(Rules.preset("suicide"), HANDS)
    assert bids_allowed(game, 0) == [0, *range(4, 14)]
    assert refused(game, 0, {"type": "bid", "bid": 3}).code == "bad_bid"
    game.act(0, {"type": "bid", "bid": 5})
    assert bids_allowed(game, 1) == [0, *range(4, 14)]
    game.act(1, {"type": "bid", "bid": 0})
    # Seat 2's partner bid a number: it must bid nil. Seat 3's partner bid nil.
    assert bids_allowed(game, 2) == [0]
    assert "Suicide" in str(refused(game, 2, {"type": "bid", "bid": 4}))
    game.act(2, {"type": "bid", "bid": 0})
    assert bids_allowed(game, 3) == list(range(4, 14))
    assert refused(game, 3, {"type": "bid", "bid": 0}).code == "bad_bid"


def test_suicide_minimum_is_one_without_min_team_bid():
    game = stacked_game(Rules.preset("suicide", min_team_bid=0), HANDS)
    assert bids_allowed(game, 0) == list(range(14))


def test_suicide_blind_nil_is_the_sides_nil_and_its_partner_is_not_asked():
    rules = Rules.preset("suicide", blind_nil=True, blind_nil_behind_by=None, blind_nil_pass=0)
    game = stacked_game(rules, HANDS)
    assert game.phase == "blind" and game.turn == [0]
    game.act(0, {"type": "blind_nil", "declare": True})
    game.act(1, {"type": "blind_nil", "declare": False})
    # Seat 2, seat 0's partner, is skipped; seat 3 is asked.
    assert game.turn == [3]
    game.act(3, {"type": "blind_nil", "declare": False})
    assert game.phase == "bid" and game.turn == [1]
    game.act(1, {"type": "bid", "bid": 4})
    assert bids_allowed(game, 2) == list(range(4, 14))


# ----------------------------------------------------------------------------- nil pass


def test_nil_pass_exchanges_at_once_after_the_last_bid():
    game = stacked_game(Rules.preset("standard", nil_pass=2), HANDS)
    bid_all(game, {0: 0, 1: 4, 2: 6, 3: 3})
    assert game.phase == "pass" and game.turn == [0, 2]
    assert game.view(0)["legal"] == [{"type": "pass", "count": 2}]
    assert game.view(1)["legal"] == [] and game.legal(1) == []
    assert {"type": "pass", "cards": ["2C", "3C"]} in game.legal(0)
    assert refused(game, 0, {"type": "pass", "cards": ["AS"]}).code == "bad_pass"
    assert refused(game, 1, {"type": "pass", "cards": ["2H", "3H"]}).code == "not_your_turn"
    events = game.act(0, {"type": "pass", "cards": ["AS", "TC"]})
    assert [event["type"] for event in events] == ["pass_chosen"]
    assert "AS" in game.view(0)["hand"] and game.turn == [2]
    events = game.act(2, {"type": "pass", "cards": ["JC", "5S"]})
    assert [e["type"] for e in events] == ["pass_chosen", "pass", "pass"]
    assert game.phase == "play"
    hands = game.to_state()["hands"]
    assert "AS" in hands[2] and "TC" in hands[2] and "JC" in hands[0] and "5S" in hands[0]
    assert "AS" not in hands[0] and len(hands[0]) == len(hands[2]) == 13
    # The pass changes no deal: the hand's record keeps the cards as dealt.
    play_first_legal(game)
    assert game.hand_results[0]["deal"][0] == sorted(
        HANDS[0].split(), key=lambda c: card_order("standard").sort_key[card_index(c)]
    )


def test_nil_pass_of_several_sides_at_once_and_none_for_a_double_nil():
    game = stacked_game(Rules.preset("standard", nil_pass=1), HANDS)
    bid_all(game, {0: 0, 1: 0, 2: 6, 3: 3})
    assert game.phase == "pass" and game.turn == [0, 1, 2, 3]
    for seat, card in ((3, "2D"), (0, "2C"), (1, "2H"), (2, "5S")):
        game.act(seat, {"type": "pass", "cards": [card]})
    assert game.phase == "play"
    double = stacked_game(Rules.preset("standard", nil_pass=3), HANDS)
    bid_all(double, {0: 0, 1: 4, 2: 0, 3: 3})
    assert double.phase == "play"


def test_no_nil_pass_without_a_nil_or_beside_a_blind_nil():
    game = stacked_game(Rules.preset("standard", nil_pass=2), HANDS)
    bid_all(game, {0: 3, 1: 4, 2: 6, 3: 3})
    assert game.phase == "play"
    rules = Rules.preset(
        "standard", nil_pass=2, blind_nil=True, blind_nil_behind_by=None, blind_nil_pass=0
    )
    game = stacked_game(rules, HANDS)
    game.act(0, {"type": "blind_nil", "declare": True})
    while game.phase == "blind":
        game.act(game.turn[0], {"type": "blind_nil", "declare": False})
    bid_all(game, {1: 4, 2: 6, 3: 3})
    assert game.phase == "play"


def test_a_blind_nil_pass_then_a_nil_pass_of_the_other_side():
    rules = Rules.preset(
        "standard", nil_pass=1, blind_nil=True, blind_nil_behind_by=None, blind_nil_pass=2
    )
    game = stacked_game(rules, HANDS)
    game.act(0, {"type": "blind_nil", "declare": True})
    while game.phase == "blind":
        game.act(game.turn[0], {"type": "blind_nil", "declare": False})
    assert game.phase == "pass" and game.view(0)["legal"] == [{"type": "pass", "count": 2}]
    game.act(0, {"type": "pass", "cards": ["AS", "4S"]})
    game.act(2, {"type": "pass", "cards": ["JC", "QC"]})
    bid_all(game, {1: 0, 2: 6, 3: 3})
    assert game.phase == "pass" and game.turn == [1, 3]
    assert game.view(1)["legal"] == [{"type": "pass", "count": 1}]
    assert refused(game, 1, {"type": "pass", "cards": ["2H", "3H"]}).code == "bad_pass"
    game.act(1, {"type": "pass", "cards": ["AH"]})
    game.act(3, {"type": "pass", "cards": ["2D"]})
    assert game.phase == "play"
    hands = game.to_state()["hands"]
    assert "AH" in hands[3] and "2D" in hands[1] and "AS" in hands[2] and "JC" in hands[0]


def test_nil_pass_survives_a_restore_mid_pass():
    game = stacked_game(Rules.preset("standard", nil_pass=2), HANDS)
    bid_all(game, {0: 0, 1: 4, 2: 6, 3: 3})
    game.act(2, {"type": "pass", "cards": ["JC", "5S"]})
    copy = Game.from_state(game.to_state())
    assert copy.turn == [0] and copy.view(0)["legal"] == [{"type": "pass", "count": 2}]
    assert copy.act(0, {"type": "pass", "cards": ["AS", "TC"]}) == game.act(
        0, {"type": "pass", "cards": ["AS", "TC"]}
    )
    assert copy.to_state() == game.to_state()


# ----------------------------------------------------------------------------- mercy


def test_mercy_margin_ends_the_game_when_a_side_leads_every_other_by_it():
    rules = Rules.preset("standard", mercy_margin=70)
    game = stacked_game(rules, HANDS)
    bid_all(game, {0: 4, 1: 0, 2: 9, 3: 0})
    play_first_legal(game)
    scores = [side["score"] for side in game.scores]
    assert scores == [130, 200]
    assert game.phase == "over" and game.winner == scores.index(max(scores))
    plain = stacked_game(Rules.preset("standard"), HANDS)
    bid_all(plain, {0: 4, 1: 0, 2: 9, 3: 0})
    play_first_legal(plain)
    assert [side["score"] for side in plain.scores] == scores and plain.phase != "over"


def test_mercy_margin_counts_against_every_other_side():
    rules = Rules.preset("cutthroat", mercy_margin=100)
    from server.engine.scoring import game_winner

    def side(score):
        return {"score": score, "all_tricks": False}

    assert game_winner(rules, [side(250), side(160), side(0)]) is None
    assert game_winner(rules, [side(260), side(160), side(0)]) == 0


# ----------------------------------------------------------------------------- rotation


def test_format_night_rotates_the_bidding_hand_by_hand():
    formats = ["individual", "whiz", "mirror", "suicide"]
    rules = Rules.preset("standard", bidding_formats=formats, blind_nil=True)
    game = Game(rules, seed=5)
    seen = []
    while len(seen) < 6 and game.phase != "over":
        if game.view(None)["bidding"] not in seen[-1:]:
            seen.append(game.view(None)["bidding"])
        for seat in game.turn:
            assert game.view(seat)["bidding"] == rules.format_of(game.hand_number)
        seat = game.turn[0]
        game.act(seat, game.legal(seat)[-1 if game.phase == "blind" else 0])
    assert seen[:4] == formats


def test_format_night_offers_blind_nil_only_where_the_format_allows_it():
    rules = Rules.preset(
        "standard",
        bidding_formats=["whiz", "individual"],
        blind_nil=True,
        blind_nil_behind_by=None,
    )
    game = Game(rules, seed=3)
    assert game.view(None)["bidding"] == "whiz" and game.phase == "bid"
    play_first_legal(game)
    assert game.view(None)["bidding"] == "individual" and game.phase == "blind"


def test_format_night_scores_each_hand_by_its_own_format():
    """Team bidding's contract is the larger bid; individual's the sum."""
    rules = Rules.preset("standard", bidding_formats=["team", "individual"])
    game = stacked_game(rules, HANDS)
    bid_all(game, {0: 3, 1: 2, 2: 5, 3: 4})
    assert game.view(None)["contracts"] == [5, 4]
    play_first_legal(game)
    assert [side["contract"] for side in game.hand_results[0]["sides"]] == [5, 4]
    seat = game.turn[0]
    while game.phase == "bid":
        seat = game.turn[0]
        game.act(seat, {"type": "bid", "bid": 3})
    assert game.view(None)["contracts"] == [6, 6]


# ----------------------------------------------------------------------------- every decision

CONFIGS = [
    {"preset": "whiz"},
    {"preset": "whiz", "partnerships": False, "nil_pass": 0},
    {"preset": "whiz", "deck": "jokers_deuces", "nil_pass": 2},
    {"preset": "mirror", "nil_pass": 3, "mercy_margin": 120},
    {"preset": "mirror", "players": 3, "partnerships": False},
    {"preset": "suicide"},
    {"preset": "suicide", "nil_pass": 1, "blind_nil": True, "blind_nil_behind_by": None},
    {"preset": "suicide", "players": 6, "deck": "jokers", "nil_pass": 2, "min_team_bid": 0},
    {
        "preset": "competitive",
        "bidding_formats": ["team", "suicide", "individual"],
        "nil_pass": 2,
        "blind_nil_behind_by": None,
    },
    {
        "bidding_formats": ["individual", "whiz", "mirror", "suicide"],
        "blind_nil": True,
        "blind_nil_behind_by": 0,
        "nil_pass": 1,
        "mercy_margin": 200,
    },
    {"preset": "cutthroat", "bidding_formats": ["mirror", "whiz", "individual"]},
]


def expected_bids(rules, view):
    """The legal bids of the seat on turn, worked out again from the rule book's words
    for the house formats (None for the others)."""
    seat, hand, bids = view["seat"], view["hand"], view["bids"]
    spades = spades_held(rules, hand)
    if rules.bidding == "whiz":
        return [0, spades] if spades else [0]
    if rules.bidding == "mirror":
        return [spades]
    if rules.bidding == "suicide":
        partner = next(s for side in view["sides"] for s in side if seat in side and s != seat)
        low = max(rules.min_team_bid, 1)
        numbers = list(range(low, rules.hand_size + 1))
        if bids[partner] is None:
            return [0, *numbers]
        return numbers if bids[partner] in (0, "blind_nil") else [0]
    return None


def nil_passers(rules, bids):
    """The seats of every side with one plain nil and one number."""
    seats = []
    for side in rules.sides:
        side_bids = [bids[s] for s in side]
        if len(side) == 2 and side_bids.count(0) == 1 and "blind_nil" not in side_bids:
            seats += side
    return seats


def wrong_actions(game, seat, rng):
    """A few actions ``seat`` may not take now."""
    legal = game.legal(seat)
    hand = game.view(seat)["hand"] or []
    wrong = [{"type": "bid", "bid": n} for n in range(-1, game.rules.hand_size + 2)]
    wrong += [{"type": "play", "card": code} for code in hand]
    if hand:
        wrong.append({"type": "pass", "cards": hand[: game.pass_count + 1]})
        wrong.append({"type": "pass", "cards": ["AS"] * max(game.pass_count, 1)})
    wrong += [{"type": "blind_nil", "declare": "yes"}, {"type": "nap"}]
    wrong = [a for a in wrong if a not in legal]
    return rng.sample(wrong, min(3, len(wrong)))


def check_decision(game, seat, rng):
    """Every legal action is accepted (on a copy); some others are refused, the game
    unchanged; the bids follow the hand's format; the view's pass constraint fits."""
    view = game.view(seat)
    legal = game.legal(seat)
    hand_rules = game.rules.for_hand(game.hand_number)
    assert view["bidding"] == hand_rules.bidding == game.rules.format_of(game.hand_number)
    if game.phase == "bid":
        allowed = [action["bid"] for action in legal]
        expected = expected_bids(hand_rules, view)
        if expected is not None:
            assert allowed == expected, (hand_rules.bidding, view["hand"], view["bids"])
    if game.phase == "pass":
        assert view["legal"] == [{"type": "pass", "count": game.pass_count}]
        assert all(len(action["cards"]) == game.pass_count for action in legal)
        # Nobody sees a card they may not: the passed cards are no one else's yet.
        for viewer in [None, *range(game.rules.players)]:
            check_view(game, viewer)
    if game.phase == "blind":
        assert hand_rules.blind_nil and hand_rules.bidding not in ("whiz", "mirror")
    state = game.to_state()
    for action in rng.sample(legal, min(len(legal), 4)):
        Game.from_state(state).act(seat, action)
    for action in wrong_actions(game, seat, rng):
        refused(game, seat, action)


@pytest.mark.parametrize("overrides", CONFIGS, ids=lambda o: "-".join(map(str, o.values())))
def test_every_decision_of_random_games_under_the_house_rules(overrides):
    rules = Rules.model_validate(overrides)
    for seed in range(3):
        rng = random.Random(seed)
        game = Game(rules, seed=seed)
        steps = 0
        while game.phase != "over" and len(game.hand_results) < 4:
            seat = rng.choice(game.turn)
            if game.phase != "play" or steps % 9 == 0:
                check_decision(game, seat, rng)
            before = list(game.bids)
            was = game.phase
            game.act(seat, rng.choice(game.legal(seat)))
            steps += 1
            if was == "bid" and None not in game.bids and game.phase != "over":
                passers = nil_passers(rules, game.bids) if rules.nil_pass else []
                assert game.phase == ("pass" if passers else "play")
                assert game.turn == (sorted(passers) if passers else game.turn)
            assert None in before or was != "bid" or before == game.bids
        check_end(game)


def check_end(game):
    """A finished hand ends the game exactly when a side reached the target, one fell to
    the losing score, or one leads every other by the mercy margin (a tie at the top
    plays on)."""
    rules = game.rules
    for number, result in enumerate(game.hand_results, 1):
        totals = [side["score"] for side in result["sides"]]
        top = max(totals)
        runner_up = sorted(totals)[-2]
        reached = (
            top >= rules.target_score
            or (rules.lose_score is not None and min(totals) <= rules.lose_score)
            or (rules.mercy_margin is not None and top - runner_up >= rules.mercy_margin)
            or (rules.all_tricks == "win" and any(side["all_tricks"] for side in result["sides"]))
        )
        last = number == len(game.hand_results)
        if last and game.phase == "over":
            assert reached
        elif not last:
            assert not reached or totals.count(top) > 1


def test_cards_stay_conserved_through_a_nil_pass():
    rules = Rules.preset("suicide", nil_pass=3)
    game = Game(rules, seed=11)
    while game.phase == "bid":
        seat = game.turn[0]
        game.act(seat, game.legal(seat)[0])
    assert game.phase == "pass"
    before = Counter(code for hand in game.to_state()["hands"] for code in hand)
    for seat in list(game.turn):
        game.act(seat, game.legal(seat)[-1])
    after = Counter(code for hand in game.to_state()["hands"] for code in hand)
    assert before == after and game.phase == "play"


# ----------------------------------------------------------------------------- any combination

FORMATS = ["individual", "team", "whiz", "mirror", "suicide"]


@st.composite
def builder_rules(draw):
    """A combination a rule builder would offer: a preset and the house-rule fields."""
    data = {"preset": draw(st.sampled_from(Rules.preset_names()))}
    if draw(st.booleans()):
        data["bidding"] = draw(st.sampled_from(FORMATS))
    if draw(st.booleans()):
        data["bidding_formats"] = draw(st.lists(st.sampled_from(FORMATS), min_size=1, max_size=5))
    data["nil_pass"] = draw(st.integers(0, 3))
    data["mercy_margin"] = draw(st.none() | st.integers(1, 400))
    data["blind_nil"] = draw(st.booleans())
    data["blind_nil_behind_by"] = draw(st.sampled_from([None, 0, 100]))
    data["deck"] = draw(st.sampled_from(["standard", "jokers", "jokers_deuces"]))
    data["min_team_bid"] = draw(st.sampled_from([0, 0, 3]))
    if draw(st.booleans()):
        data["partnerships"] = draw(st.booleans())
    data["target_score"] = draw(st.sampled_from([100, 250, 500]))
    return data


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=builder_rules(), seed=st.integers(0, 2**32))
def test_legal_and_act_agree_under_any_combination(data, seed):
    """Any combination is either refused naming a field, or played: at every decision
    each legal action is accepted (on a copy) and others refused with the game unchanged."""
    try:
        rules = Rules.model_validate(data)
    except ValidationError as error:
        assert all(e["loc"] for e in error.errors()), error.errors()
        event("refused")
        return
    event("played")
    rng = random.Random(seed)
    game = Game(rules, seed=seed)
    steps = 0
    while game.phase != "over" and len(game.hand_results) < 2 and steps < 400:
        seat = rng.choice(game.turn)
        if game.phase != "play" or steps % 13 == 0:
            check_decision(game, seat, rng)
        game.act(seat, rng.choice(game.legal(seat)))
        steps += 1
    check_end(game)


def test_the_hand_review_replays_a_format_night_with_the_nil_pass():
    """``server.engine.replay`` rebuilds the game from its log, passes included: each
    reviewed choice is the seat's own, legal in the view it had then."""
    from server.engine.bots import choose_action
    from server.engine.replay import decisions, replay_start

    rules = Rules.preset("standard", bidding_formats=["suicide", "whiz"], nil_pass=2)
    game = Game(rules, seed=8)
    while len(game.hand_results) < 2:
        seat = game.turn[0]
        game.act(seat, choose_action(rules, game.view(seat), "basic", random.Random(seat)))
    for hand in (1, 2):
        seen = decisions(rules, replay_start(game), game.log, seat=1, hand_number=hand)
        assert seen and all(d.view["bidding"] == rules.format_of(hand) for d in seen)
        for decision in seen:
            legal = decision.view["legal"]
            assert decision.action in legal
        assert [d.action["type"] for d in seen] == sorted(
            (d.action["type"] for d in seen), key=["bid", "play"].index
        )
    assert any(action["type"] == "pass" for _, action in game.log)
