"""The basic bot: always legal, plays like a decent human, and sees only its own view.

Hand-built views pin single decisions (what a player in that seat would see); whole
games between bots and random players pin legality and strength.
"""

from __future__ import annotations

import copy
import itertools
import random
import time
from typing import Any

import pytest

from server.engine import Game, Rules, deck_codes
from server.engine.bots import BOT_LEVELS, choose_action, hand_strength, nil_danger
from tests.engine.bot_games import LEGALITY_CASES, basic_bots, blind_view, game_phases, play_game
from tests.engine.timing import heap_frozen

STANDARD = Rules.preset("standard")

STRONG_HAND = ["AS", "KS", "QS", "JS", "AH", "KH", "AD", "KD", "AC", "2C", "3C", "4C", "5C"]
WEAK_HAND = ["2C", "3C", "4C", "5D", "6D", "7D", "8H", "9H", "3H", "4H", "2S", "3S", "TD"]
AVERAGE_HAND = ["AS", "7S", "4S", "KH", "9H", "5H", "2H", "QD", "8D", "3D", "JC", "6C", "3C"]


def bid_view(hand: list[str], bids: list[Any] | None = None, seat: int = 0) -> dict[str, Any]:
    """What a seat sees when it is its turn to bid in a standard game."""
    return {
        "phase": "bid",
        "seat": seat,
        "turn": [seat],
        "hand": hand,
        "bids": bids or [None] * 4,
        "tricks_won": [0] * 4,
        "trick": [],
        "played": [],
        "sides": [[0, 2], [1, 3]],
        "scores": [{"score": 0, "bags": 0}] * 2,
        "legal": [{"type": "bid", "bid": n} for n in range(14)],
    }


def play_view(
    hand: list[str],
    legal: list[str],
    trick: list[tuple[int, str]],
    bids: list[Any],
    tricks_won: list[int],
    seat: int = 0,
    played: list[tuple[int, str]] = (),
) -> dict[str, Any]:
    """What a seat sees when it is its turn to play in a standard game."""
    return {
        "phase": "play",
        "seat": seat,
        "turn": [seat],
        "hand": hand,
        "bids": bids,
        "tricks_won": tricks_won,
        "trick": [{"seat": s, "card": c} for s, c in trick],
        "played": [{"seat": s, "card": c} for s, c in played],
        "sides": [[0, 2], [1, 3]],
        "contracts": None,
        "scores": [{"score": 0, "bags": 0}] * 2,
        "legal": [{"type": "play", "card": c} for c in legal],
    }


def chosen_card(view: dict[str, Any], rules: Rules = STANDARD) -> str:
    return choose_action(rules, view)["card"]


# --- hand evaluation ------------------------------------------------------------------


def test_strength_counts_honours_and_spade_length() -> None:
    assert hand_strength(STRONG_HAND) > 8
    assert hand_strength(WEAK_HAND) < 0.5
    assert 1 < hand_strength(AVERAGE_HAND) < 3
    long_low_spades = ["9S", "8S", "7S", "6S", "5S", "4S", "2H", "3H", "4H", "5D", "6D", "7D", "8C"]
    assert hand_strength(long_low_spades) >= 2


def test_ace_and_guarded_king_outcount_an_unguarded_king() -> None:
    guarded = ["KH", "2H", "3C", "4C", "5C", "6D", "7D", "8D", "9D", "2S", "3S", "4C", "5H"]
    bare = ["KH", "6H", "3C", "4C", "5C", "6D", "7D", "8D", "9D", "2S", "3S", "4C", "5C"]
    assert hand_strength(guarded) > 0.4
    assert hand_strength(["KH", *bare[2:]]) < hand_strength(guarded)


def test_jokers_are_the_top_trumps_in_a_jokers_deck() -> None:
    hand = ["BJ", "LJ", "3C", "4C", "5C", "6D", "7D", "8D", "9D", "4H", "5H", "6H", "7H"]
    assert hand_strength(hand, deck="jokers") >= 2
    assert nil_danger(hand, deck="jokers") > 2


def test_nil_danger_is_low_only_for_low_cards_and_few_spades() -> None:
    assert nil_danger(WEAK_HAND) <= 2
    assert nil_danger(AVERAGE_HAND) > 2
    assert nil_danger(["AH", *WEAK_HAND[1:]]) > 2


# --- bidding --------------------------------------------------------------------------


def test_bids_high_with_a_strong_hand() -> None:
    assert 8 <= choose_action(STANDARD, bid_view(STRONG_HAND))["bid"] <= 10


def test_bids_nil_with_a_really_weak_hand() -> None:
    assert choose_action(STANDARD, bid_view(WEAK_HAND))["bid"] == 0


def test_bids_a_few_tricks_with_an_average_hand() -> None:
    assert 1 <= choose_action(STANDARD, bid_view(AVERAGE_HAND))["bid"] <= 3


def test_no_nil_when_the_table_forbids_it() -> None:
    view = bid_view(WEAK_HAND)
    view["legal"] = [{"type": "bid", "bid": n} for n in range(1, 14)]
    assert choose_action(Rules.preset("standard", nil=False), view)["bid"] == 1


def test_no_double_nil_over_a_partner_nil() -> None:
    view = bid_view(WEAK_HAND, bids=[None, 3, 0, None], seat=0)
    assert choose_action(STANDARD, view)["bid"] >= 1


def test_team_bidding_second_partner_names_the_side_total() -> None:
    rules = Rules.preset("competitive")
    view = bid_view(STRONG_HAND, bids=[None, 3, 3, None], seat=0)
    view["legal"] = [{"type": "bid", "bid": n} for n in range(4, 14)]
    assert choose_action(rules, view)["bid"] >= 3 + 8


# --- card play ------------------------------------------------------------------------

NIL_BIDS = [3, 0, 4, 3]  # seat 1 bid nil


def test_nil_bidder_ducks_with_the_highest_card_that_loses() -> None:
    view = play_view(
        hand=["AH", "QH", "3H", "5C"],
        legal=["AH", "QH", "3H"],
        trick=[(0, "KH")],
        bids=NIL_BIDS,
        tricks_won=[2, 0, 3, 4],
        seat=1,
    )
    assert chosen_card(view) == "QH"


def test_nil_bidder_void_sheds_its_most_dangerous_card() -> None:
    view = play_view(
        hand=["AD", "QS", "4C"],
        legal=["AD", "QS", "4C"],
        trick=[(0, "KH")],
        bids=NIL_BIDS,
        tricks_won=[2, 0, 3, 4],
        seat=1,
    )
    # Any spade would win this trick; of the cards that lose, the ace is the danger.
    assert chosen_card(view) == "AD"


def test_nil_bidder_leads_its_lowest_side_card() -> None:
    view = play_view(
        hand=["AD", "QS", "4C", "9H"],
        legal=["AD", "4C", "9H"],
        trick=[],
        bids=NIL_BIDS,
        tricks_won=[2, 0, 3, 4],
        seat=1,
    )
    assert chosen_card(view) == "4C"


def test_covers_a_nil_partner_by_playing_high_before_it() -> None:
    # Seat 0 covers seat 2 (nil): seat 3 led, seat 2 plays after seat 1.
    view = play_view(
        hand=["AH", "TH", "2H", "5C"],
        legal=["AH", "TH", "2H"],
        trick=[(3, "9H")],
        bids=[4, 3, 0, 3],
        tricks_won=[1, 2, 0, 2],
        seat=0,
    )
    assert chosen_card(view) == "AH"


def test_covers_a_nil_partner_by_overtaking_its_winning_card() -> None:
    view = play_view(
        hand=["KH", "2H", "5C"],
        legal=["KH", "2H"],
        trick=[(2, "QH"), (3, "5H")],
        bids=[4, 3, 0, 3],
        tricks_won=[1, 2, 0, 2],
        seat=0,
    )
    assert chosen_card(view) == "KH"


def test_does_not_overtake_a_partner_winning_card_once_the_contract_is_made() -> None:
    # Contract 3 + 3 = 6 already taken; seat 2 (partner) is winning with the 9.
    view = play_view(
        hand=["KH", "8H", "2H", "5C"],
        legal=["KH", "8H", "2H"],
        trick=[(1, "4H"), (2, "9H"), (3, "6H")],
        bids=[3, 4, 3, 3],
        tricks_won=[3, 1, 3, 2],
        seat=0,
    )
    assert chosen_card(view) in ("8H", "2H")


def test_ducks_an_opponent_once_the_contract_is_made() -> None:
    view = play_view(
        hand=["KH", "8H", "2H", "5C"],
        legal=["KH", "8H", "2H"],
        trick=[(1, "9H")],
        bids=[3, 4, 3, 3],
        tricks_won=[3, 1, 3, 1],
        seat=0,
    )
    assert chosen_card(view) == "8H"


def test_leads_low_at_a_nil_opponent() -> None:
    # Seat 1 bid nil and has shown no void: lead the lowest side card, not the ace.
    view = play_view(
        hand=["AH", "5H", "3C", "9D"],
        legal=["AH", "5H", "3C", "9D"],
        trick=[],
        bids=[4, 0, 4, 3],
        tricks_won=[1, 0, 1, 2],
        seat=0,
    )
    assert chosen_card(view) == "3C"


def test_last_to_play_wins_with_the_lowest_winning_card() -> None:
    view = play_view(
        hand=["AH", "KH", "TH", "2H"],
        legal=["AH", "KH", "TH", "2H"],
        trick=[(1, "5H"), (2, "3H"), (3, "9H")],
        bids=[4, 3, 4, 3],
        tricks_won=[1, 2, 1, 2],
        seat=0,
    )
    assert chosen_card(view) == "TH"


def test_second_hand_plays_low_without_a_sure_winner() -> None:
    view = play_view(
        hand=["KH", "TH", "2H", "5C"],
        legal=["KH", "TH", "2H"],
        trick=[(3, "5H")],
        bids=[4, 3, 4, 3],
        tricks_won=[1, 2, 1, 2],
        seat=0,
    )
    assert chosen_card(view) == "2H"


def test_third_hand_plays_high_over_an_opponent() -> None:
    view = play_view(
        hand=["KH", "TH", "2H", "5C"],
        legal=["KH", "TH", "2H"],
        trick=[(2, "5H"), (3, "8H")],
        bids=[4, 3, 4, 3],
        tricks_won=[1, 2, 1, 2],
        seat=0,
    )
    assert chosen_card(view) == "KH"


def test_trumps_when_void_and_tricks_are_needed() -> None:
    view = play_view(
        hand=["7S", "3S", "5C", "9D"],
        legal=["7S", "3S", "5C", "9D"],
        trick=[(1, "AH"), (2, "4H"), (3, "6H")],
        bids=[4, 3, 4, 3],
        tricks_won=[1, 2, 1, 2],
        seat=0,
    )
    assert chosen_card(view) == "3S"


def test_does_not_trump_a_partner_sure_winner() -> None:
    view = play_view(
        hand=["7S", "3S", "5C", "9D"],
        legal=["7S", "3S", "5C", "9D"],
        trick=[(1, "4H"), (2, "AH"), (3, "6H")],
        bids=[4, 3, 4, 3],
        tricks_won=[1, 2, 1, 2],
        seat=0,
    )
    assert chosen_card(view) in ("5C", "9D")


def test_cashes_a_sure_winner_when_leading() -> None:
    view = play_view(
        hand=["AH", "5H", "3C", "4D"],
        legal=["AH", "5H", "3C", "4D"],
        trick=[],
        bids=[4, 3, 4, 3],
        tricks_won=[1, 2, 1, 2],
        seat=0,
    )
    assert chosen_card(view) == "AH"


# --- the other phases -----------------------------------------------------------------


def test_draw_keeps_spades_and_high_cards_and_discards_low_side_cards() -> None:
    rules = Rules.preset("two_player")

    def keeps(card: str) -> bool:
        view = {
            "phase": "draw",
            "seat": 1,
            "turn": [1],
            "hand": [],
            "draw_card": card,
            "legal": [{"type": "draw", "keep": True}, {"type": "draw", "keep": False}],
        }
        return choose_action(rules, view)["keep"]

    assert keeps("3S") and keeps("AH") and keeps("KD")
    assert not keeps("4H") and not keeps("9C")


def test_blind_nil_only_when_far_behind() -> None:
    rules = Rules.preset("standard", blind_nil=True, blind_nil_behind_by=None)
    assert choose_action(rules, blind_view(100, 150))["declare"] is False
    assert choose_action(rules, blind_view(100, 400))["declare"] is True
    partner_declared = blind_view(100, 400, bids=[None, None, "blind_nil", None])
    assert choose_action(rules, partner_declared)["declare"] is False


def pass_view(seat: int, hand: list[str], bids: list[Any]) -> dict[str, Any]:
    return {
        "phase": "pass",
        "seat": seat,
        "turn": [0, 2],
        "hand": hand,
        "bids": bids,
        "sides": [[0, 2], [1, 3]],
        "legal": [{"type": "pass", "cards": list(p)} for p in itertools.combinations(hand, 2)],
    }


def test_blind_nil_bidder_passes_its_most_dangerous_cards() -> None:
    hand = ["AS", "9S", "AH", "KH", "2C", "3C", "4C", "5D", "6D", "7D", "8H", "9H", "TD"]
    action = choose_action(STANDARD, pass_view(0, hand, ["blind_nil", None, None, None]))
    assert sorted(action["cards"]) == ["AH", "AS"]


def test_partner_of_a_blind_nil_passes_its_lowest_side_cards() -> None:
    hand = ["AS", "2S", "AH", "KH", "2C", "3C", "4C", "5D", "6D", "7D", "8H", "9H", "TD"]
    action = choose_action(STANDARD, pass_view(2, hand, ["blind_nil", None, None, None]))
    assert sorted(action["cards"]) == ["2C", "3C"]


# --- contract -------------------------------------------------------------------------


def test_unknown_level_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown bot level"):
        choose_action(STANDARD, bid_view(WEAK_HAND), level="grandmaster")
    assert BOT_LEVELS == ("basic", "advanced", "expert")


def test_no_legal_action_is_refused() -> None:
    view = bid_view(WEAK_HAND)
    view["legal"] = []
    with pytest.raises(ValueError, match="no legal action"):
        choose_action(STANDARD, view)


def test_choice_depends_only_on_the_view_and_rng() -> None:
    view = play_view(
        hand=["KH", "TH", "2H", "5C", "5D"],
        legal=["KH", "TH", "2H"],
        trick=[(3, "5H")],
        bids=[4, 3, 4, 3],
        tricks_won=[1, 2, 1, 2],
    )
    before = copy.deepcopy(view)
    first = choose_action(STANDARD, view, rng=random.Random(5))
    assert view == before, "the bot must not change the view it is given"
    assert choose_action(STANDARD, copy.deepcopy(view), rng=random.Random(5)) == first


# --- whole games ----------------------------------------------------------------------


def basic_game(rules: Rules, seed: int, bot_seats: set[int]) -> tuple[Game, set[str]]:
    """A game of basic bots in ``bot_seats`` and random players elsewhere."""
    return play_game(rules, seed, basic_bots(bot_seats), random.Random(seed))


@pytest.mark.parametrize(("preset", "overrides"), LEGALITY_CASES)
def test_bots_always_choose_a_legal_action(preset: str, overrides: dict[str, Any]) -> None:
    rules = Rules.preset(preset, target_score=300, **overrides)
    asked_every_hand = rules.blind_nil and rules.blind_nil_behind_by is None
    game, phases = play_game(
        rules,
        seed=11,
        levels=basic_bots(set(range(rules.players))),
        rng=random.Random(11),
        force_blind_nil=asked_every_hand,
        max_hands=12,
    )
    assert game.hand_results
    assert game_phases(rules, asked_every_hand) <= phases


def test_four_bots_play_a_standard_game_to_a_winner() -> None:
    rules = Rules.preset("standard")
    game, _ = basic_game(rules, 3, {0, 1, 2, 3})
    assert game.scores[game.winner]["score"] >= rules.target_score
    assert len(game.hand_results) < 40


def test_bots_beat_random_players_clearly() -> None:
    # A coin toss would win 6 of 12 partnership games and 1 in 3 cutthroat games.
    standard = Rules.preset("standard")
    won = sum(basic_game(standard, seed, {0, 2})[0].winner == 0 for seed in range(12))
    assert won >= 11
    cutthroat = Rules.preset("cutthroat", target_score=300)
    won = sum(basic_game(cutthroat, seed, {0})[0].winner == 0 for seed in range(10))
    assert won >= 8


def test_bot_nils_mostly_succeed_in_bot_games() -> None:
    rules = Rules.preset("standard")
    results = [
        nil["made"]
        for seed in range(6)
        for hand in basic_game(rules, seed, {0, 1, 2, 3})[0].hand_results
        for side in hand["sides"]
        for nil in side["nil"]
    ]
    assert len(results) >= 5
    assert sum(results) >= 0.7 * len(results)


def test_bot_choice_depends_only_on_its_own_view() -> None:
    """Two deals give seat 0 the same cards and everyone else different ones: seat 0's
    view is the same in both games, and so are its bid and its opening lead."""
    rules = Rules.preset("standard")
    deck = deck_codes(4, "standard")
    random.Random(5).shuffle(deck)
    # Dealer 3 deals card i to seat (3 + 1 + i) % 4: seat 0 gets every fourth card.
    others = [i for i in range(52) if i % 4 != 0]
    other_cards = [deck[i] for i in others]
    random.Random(6).shuffle(other_cards)
    second = list(deck)
    for i, card in zip(others, other_cards, strict=True):
        second[i] = card
    games = [Game(rules, decks=[d], dealer=3) for d in (deck, second)]
    assert games[0].view(1)["hand"] != games[1].view(1)["hand"]
    assert games[0].view(0) == games[1].view(0)
    bids = [choose_action(rules, g.view(0), rng=random.Random(1)) for g in games]
    assert bids[0] == bids[1]
    for game in games:
        game.act(0, bids[0])
        for seat in (1, 2, 3):
            game.act(seat, {"type": "bid", "bid": 3})
    assert games[0].view(0) == games[1].view(0)
    leads = [choose_action(rules, g.view(0), rng=random.Random(1)) for g in games]
    assert leads[0] == leads[1]


def test_bot_decides_within_two_milliseconds_at_p99() -> None:
    """CPU time per decision, so that other work on a shared machine does not count (the
    decision's own, as tests.engine.timing says)."""
    times: list[int] = []
    with heap_frozen():
        for preset in ("standard", "six_player"):
            rules = Rules.preset(preset)
            game = Game(rules, seed=8)
            rng = random.Random(8)
            while game.winner is None and len(game.hand_results) < 6:
                seat = game.turn[0]
                view = game.view(seat)
                start = time.thread_time_ns()
                action = choose_action(rules, view, rng=rng)
                times.append(time.thread_time_ns() - start)
                game.act(seat, action)
    times.sort()
    assert len(times) > 500
    assert times[int(len(times) * 0.99)] < 2_000_000
