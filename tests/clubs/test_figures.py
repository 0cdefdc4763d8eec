"""The figures and ratings as pure functions: a hand's figures against the rule book's
scoring of it (nils, blind nils, 10-for-200, nil tricks counted into the contract), and
ratings for partnerships, free-for-alls, sides without members."""

from __future__ import annotations

import pytest

from server.clubs.ratings import fresh, places, rate
from server.clubs.stats import HandFacts, Tally, tally_game, tally_hand
from server.engine import Rules
from server.engine.scoring import score_sides


def hand(rules: Rules, bids: list, tricks: list[int]) -> HandFacts:
    scores = [{"score": 0, "bags": 0} for _ in rules.sides]
    return HandFacts(bids, tricks, score_sides(rules, bids, tricks, scores))


def test_a_made_contract_beside_a_failed_nil() -> None:
    rules = Rules.preset("standard")
    facts = hand(rules, [4, 3, 0, 5], [6, 3, 1, 3])
    north = tally_hand(rules, facts, 0)
    assert north == Tally(
        hands=1, contracts=1, contracts_made=1, bags=3, points=facts.sides[0]["points"]
    )
    nil_seat = tally_hand(rules, facts, 2)
    assert (nil_seat["nils"], nil_seat["nils_made"], nil_seat["contracts_made"]) == (1, 0, 1)
    assert nil_seat["bags"] == 3  # the side's: 2 overtricks and the nil bidder's trick
    east = tally_hand(rules, facts, 1)
    assert (east["contracts"], east["sets"], east["bags"]) == (1, 1, 0)


def test_blind_nil_and_ten_for_two_hundred() -> None:
    rules = Rules.preset("competitive", blind_nil_behind_by=None)
    facts = hand(rules, ["blind_nil", 3, 10, 3], [0, 2, 10, 1])
    blind = tally_hand(rules, facts, 0)
    assert (blind["nils"], blind["nils_made"], blind["blind_nils"], blind["blind_nils_made"]) == (
        1,
        1,
        1,
        1,
    )
    assert blind["ten_for_two_hundreds"] == 1 and blind["contracts_made"] == 1
    assert tally_hand(rules, facts, 1)["ten_for_two_hundreds"] == 0


def test_nil_tricks_counted_into_the_contract_are_not_bags() -> None:
    rules = Rules.preset("standard", nil_tricks="contract")
    facts = hand(rules, [4, 3, 0, 5], [5, 3, 1, 4])
    north = tally_hand(rules, facts, 0)
    assert facts.sides[0]["taken"] == 6
    assert north["bags"] == 2 and north["contracts_made"] == 1


def test_a_side_without_a_contract_and_a_game_tally() -> None:
    rules = Rules.preset("standard")
    facts = hand(rules, [0, 6, 0, 6], [0, 7, 0, 6])
    assert tally_hand(rules, facts, 0)["contracts"] == 0
    game = tally_game(rules, [facts, facts], {0: "a", 1: "b"}, winner=1)
    assert game["a"]["games"] == game["b"]["games"] == 1
    assert (game["a"]["wins"], game["b"]["wins"]) == (0, 1)
    assert game["a"]["hands"] == 2 and game["a"]["nils_made"] == 2


def test_cutthroat_each_seat_its_own_side() -> None:
    rules = Rules.preset("cutthroat")
    facts = hand(rules, [4, 5, 3], [5, 5, 3])
    figures = [tally_hand(rules, facts, seat) for seat in range(3)]
    assert [f["bags"] for f in figures] == [1, 0, 0]
    assert all(f["contracts_made"] == 1 for f in figures)


def test_partners_share_the_result_and_the_winner_gains() -> None:
    ratings = {m: fresh() for m in "abcd"}
    new = rate([["a", "c"], ["b", "d"]], ratings, [250, 120], winner=0)
    assert new["a"] == new["c"] and new["b"] == new["d"]
    assert new["a"].mu > 25 > new["b"].mu
    assert new["a"].ordinal > ratings["a"].ordinal


def test_a_free_for_all_orders_by_place() -> None:
    ratings = {m: fresh() for m in "xyz"}
    new = rate([["x"], ["y"], ["z"]], ratings, [80, 210, 120], winner=1)
    assert new["y"].mu > new["z"].mu > new["x"].mu


def test_sides_without_members_are_left_out_and_one_side_alone_is_not_rated() -> None:
    ratings = {m: fresh() for m in "ab"}
    assert rate([["a"], []], ratings, [200, 100], winner=0) == {}
    assert set(rate([["a"], [], ["b"]], ratings, [200, 150, 100], winner=0)) == {"a", "b"}


@pytest.mark.parametrize(
    ("scores", "winner", "expected"),
    [([100, 100], None, [1, 1]), ([90, 120], 0, [1, 2]), ([1, 2, 3], 2, [3, 2, 1])],
)
def test_places(scores: list[int], winner: int | None, expected: list[int]) -> None:
    assert places(scores, winner) == expected
