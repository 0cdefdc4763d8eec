"""Scoring a hand (docs/rules.md §8): the worked examples and every scoring toggle."""

import pytest

from server.engine import Rules, score_hand
from server.engine.scoring import score_sides

STANDARD = Rules.preset("standard")
ZERO = [{"score": 0, "bags": 0}, {"score": 0, "bags": 0}]


def side0(rules, bids, tricks, scores=ZERO):
    return score_hand(rules, bids, tricks, scores)[0]


def test_made_contract_with_an_overtrick_is_plus_71_and_one_bag():
    assert side0(STANDARD, [3, 1, 4, 1], [5, 2, 3, 3]) == {"score": 71, "bags": 1}


def test_set_contract_loses_ten_per_trick_bid():
    assert side0(STANDARD, [3, 1, 4, 1], [3, 4, 3, 3]) == {"score": -70, "bags": 0}


def test_nil_made_and_partner_made_with_a_bag():
    assert side0(STANDARD, [0, 3, 4, 3], [0, 4, 5, 4]) == {"score": 141, "bags": 1}
    side = score_sides(STANDARD, [0, 3, 4, 3], [0, 4, 5, 4], ZERO)[0]
    assert side["nil"] == [{"seat": 0, "blind": False, "made": True, "points": 100}]
    assert side["contract"] == 4 and side["taken"] == 5


def test_tenth_bag_costs_bag_penalty_and_the_count_drops_by_the_limit():
    before = [{"score": 200, "bags": 9}, {"score": 0, "bags": 0}]
    result = side0(STANDARD, [2, 3, 3, 3], [3, 3, 4, 3], before)
    assert result == {"score": 200 + 52 - 100, "bags": 1}
    side = score_sides(STANDARD, [2, 3, 3, 3], [3, 3, 4, 3], before)[0]
    assert side["points"] == -48 and side["bag_penalty"] == 100


def test_failed_nil_loses_the_penalty_and_its_tricks_are_bags():
    side = score_sides(STANDARD, [0, 3, 4, 3], [2, 4, 4, 3], ZERO)[0]
    assert side["nil"][0]["made"] is False and side["nil"][0]["points"] == -100
    assert (side["score"], side["bags"]) == (-100 + 40 + 2, 2)


def test_failed_nil_tricks_do_not_help_the_partner_under_nil_tricks_bags():
    side = score_sides(STANDARD, [0, 3, 5, 3], [2, 4, 4, 3], ZERO)[0]
    assert (side["score"], side["bags"]) == (-100 - 50 + 2, 2)


def test_nil_tricks_contract_count_toward_the_partners_contract():
    rules = Rules.preset("standard", nil_tricks="contract")
    side = score_sides(rules, [0, 3, 5, 3], [2, 4, 4, 3], ZERO)[0]
    assert (side["score"], side["bags"], side["taken"]) == (-100 + 50 + 1, 1, 6)


def test_blind_nil_scores_double():
    made = side0(STANDARD, ["blind_nil", 3, 4, 3], [0, 4, 4, 5])
    assert made == {"score": 240, "bags": 0}
    failed = score_sides(STANDARD, ["blind_nil", 3, 4, 3], [1, 4, 4, 4], ZERO)[0]
    assert failed["score"] == -200 + 40 + 1
    assert failed["nil"] == [{"seat": 0, "blind": True, "made": False, "points": -200}]


def test_blind_nil_bonus_and_penalty_follow_the_rules():
    rules = Rules.preset("competitive")
    assert side0(rules, ["blind_nil", 3, 4, 3], [1, 4, 4, 4])["score"] == -100 + 40 + 1


def test_double_nil_tricks_are_all_bags():
    side = score_sides(STANDARD, [0, 6, 0, 6], [1, 6, 1, 5], ZERO)[0]
    assert side["contract"] == 0
    assert (side["score"], side["bags"]) == (-200 + 2, 2)
    made = score_sides(STANDARD, [0, 6, 0, 7], [0, 6, 0, 7], ZERO)[0]
    assert (made["score"], made["bags"]) == (200, 0)


def test_ten_for_two_hundred():
    rules = Rules.preset("standard", ten_for_two_hundred=True)
    assert side0(rules, [5, 1, 5, 1], [6, 1, 5, 1]) == {"score": 201, "bags": 1}
    assert side0(rules, [5, 1, 5, 1], [4, 4, 5, 0]) == {"score": -200, "bags": 0}
    assert side0(rules, [5, 1, 4, 1], [5, 3, 4, 1]) == {"score": 90, "bags": 0}
    competitive = Rules.preset("competitive")
    assert side0(competitive, [3, 1, 10, 2], [4, 1, 5, 3])["score"] == -100


def test_set_contract_gives_no_bags_but_failed_nil_bags_still_count():
    side = score_sides(STANDARD, [0, 3, 8, 3], [1, 4, 6, 2], ZERO)[0]
    assert (side["score"], side["bags"]) == (-100 - 80 + 1, 1)


def test_bags_false_scores_a_point_per_bag_and_keeps_no_count():
    rules = Rules.preset("standard", bags=False)
    before = [{"score": 0, "bags": 0}, {"score": 0, "bags": 0}]
    assert side0(rules, [1, 1, 1, 1], [6, 0, 7, 0], before) == {"score": 31, "bags": 0}


def test_bag_limit_and_penalty_are_configurable():
    rules = Rules.preset("standard", bag_limit=5, bag_penalty=50)
    before = [{"score": 0, "bags": 4}, {"score": 0, "bags": 0}]
    # 4 + 11 bags = 15: three times past the limit of 5
    assert side0(rules, [1, 1, 1, 1], [6, 0, 7, 0], before) == {"score": 31 - 150, "bags": 0}


def test_bags_are_kept_apart_from_a_negative_score():
    before = [{"score": -300, "bags": 3}, {"score": 0, "bags": 0}]
    assert side0(STANDARD, [2, 1, 2, 1], [3, 2, 3, 5], before) == {"score": -258, "bags": 5}


@pytest.mark.parametrize(
    ("all_tricks", "expected"), [("none", 70 + 6), ("bonus", 70 + 6 + 200), ("win", 70 + 6)]
)
def test_all_tricks_bonus(all_tricks, expected):
    rules = Rules.preset("standard", all_tricks=all_tricks)
    side = score_sides(rules, [4, 1, 3, 1], [6, 0, 7, 0], ZERO)[0]
    assert side["all_tricks"] is True and side["score"] == expected


def test_all_tricks_counts_a_failed_nil_bidders_tricks():
    rules = Rules.preset("standard", all_tricks="bonus")
    side = score_sides(rules, [0, 1, 7, 1], [1, 0, 12, 0], ZERO)[0]
    assert side["all_tricks"] is True
    assert side["score"] == -100 + 70 + 5 + 1 + 200


def test_team_bidding_contract_is_the_second_partners_number():
    rules = Rules.preset("competitive")
    assert side0(rules, [3, 2, 5, 2], [3, 4, 3, 3]) == {"score": 51, "bags": 1}


def test_solo_sides_score_their_own_bids():
    rules = Rules.preset("cutthroat")
    scores = [{"score": 0, "bags": 0}] * 3
    assert score_hand(rules, [5, 0, 6], [6, 0, 11], scores) == [
        {"score": 51, "bags": 1},
        {"score": 100, "bags": 0},
        {"score": 65, "bags": 5},
    ]


def test_score_hand_refuses_wrong_lengths():
    with pytest.raises(ValueError):
        score_hand(STANDARD, [1, 2, 3], [1, 2, 3], ZERO)
