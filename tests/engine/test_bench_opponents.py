"""The opponents `bench/tournament.py` plays (`bench.opponents`): the expert variants that
weigh its blind nil differ from it only there, and the nil hunter always plays a card."""

from bench.opponents import expert_blind_by_rule, expert_never_blind, nil_hunter
from server.engine import Game, Rules
from server.engine.bots import choose_action
from tests.engine.stacking import SUIT_HANDS, bid_all, side_one_leads_by_330, stacked_game


def far_behind_game() -> tuple[Rules, Game]:
    """Side 0 trails 330 after hand 1; seat 2 of it is asked about blind nil."""
    rules = Rules.preset("standard", blind_nil=True, blind_nil_behind_by=100)
    game = side_one_leads_by_330(rules)
    assert game.phase == "blind" and game.turn == [2]
    return rules, game


def test_by_rule_declares_as_advanced_does_and_never_declines() -> None:
    rules, game = far_behind_game()
    view = game.view(2)
    advanced = choose_action(rules, view, "advanced")
    assert advanced == {"type": "blind_nil", "declare": True}, "330 behind: the rule says yes"
    assert expert_blind_by_rule(rules, view) == advanced
    assert expert_never_blind(rules, view) == {"type": "blind_nil", "declare": False}


def test_outside_the_blind_decision_both_play_as_the_expert() -> None:
    rules, game = far_behind_game()
    game.act(2, {"type": "blind_nil", "declare": False})
    game.act(0, {"type": "blind_nil", "declare": False})
    assert game.phase == "bid"
    seat = game.turn[0]
    view = game.view(seat)
    for variant in (expert_blind_by_rule, expert_never_blind):
        # The expert's answer depends on the CPU its budget buys: checked as legal only.
        action = variant(rules, view, samples=8)
        assert action["type"] == "bid" and action in game.legal(seat), variant.__name__


def test_the_nil_hunter_on_lead_with_a_claim_offered_plays_a_card() -> None:
    """A claim among the legal actions is not a card: the hunter leads one (it raised
    KeyError when the claim was offered while an opponent's nil was clean)."""
    rules = Rules.preset("standard")
    game = stacked_game(rules, SUIT_HANDS)
    bid_all(game, {0: 13, 1: 0, 2: 0, 3: 0})
    view = game.view(0)
    assert {"type": "claim"} in game.legal(0)
    action = nil_hunter(rules, view)
    assert action["type"] == "play" and action in game.legal(0)
