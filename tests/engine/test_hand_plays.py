"""Every trick of a finished hand is kept for its replay (docs/protocol.md, history)."""

from __future__ import annotations

import random
from typing import Any

from server.engine import Game, Rules
from server.engine.bots import choose_action


def play_hands(rules: Rules, hands: int, seed: int) -> tuple[Game, list[list[dict[str, Any]]]]:
    """A game played by basic bots for `hands` hands, and each hand's plays, read as the
    store reads them: right after the hand's last card."""
    game = Game(rules, seed=seed)
    rng = random.Random(seed)
    plays: list[list[dict[str, Any]]] = []
    while len(game.hand_results) < hands and game.winner is None:
        seat = game.turn[0]
        finished = len(game.hand_results)
        game.act(seat, choose_action(rules, game.view(seat), "basic", rng))
        if len(game.hand_results) > finished:
            kept = game.plays_of(game.hand_results[-1]["hand_number"])
            assert kept is not None
            plays.append(kept)
    return game, plays


def test_each_trick_names_its_leader_its_cards_in_order_and_its_taker():
    for preset in ("standard", "cutthroat", "six_player", "two_player"):
        rules = Rules.preset(preset)
        game, hands = play_hands(rules, 2, seed=11)
        for result, plays in zip(game.hand_results, hands, strict=True):
            assert len(plays) == sum(result["tricks"]), preset
            taken = [0] * rules.players
            for trick, following in zip(plays, [*plays[1:], None], strict=True):
                seats = [card["seat"] for card in trick["cards"]]
                assert seats[0] == trick["leader"] and len(set(seats)) == len(seats)
                if following is not None:
                    assert following["leader"] == trick["winner"]
                taken[trick["winner"]] += 1
            assert taken == result["tricks"], preset
        # Only the latest hand is kept: a long game keeps no growing record.
        assert game.plays_of(1) is None and game.plays_of(2) == hands[1]


def test_the_plays_are_the_cards_each_seat_played_and_stay_out_of_views():
    rules = Rules.preset("standard")
    game, hands = play_hands(rules, 1, seed=5)
    result = game.hand_results[0]
    played: list[set[str]] = [set() for _ in range(rules.players)]
    for trick in hands[0]:
        for card in trick["cards"]:
            played[card["seat"]].add(card["card"])
    # No pass in `standard`: every seat played exactly the cards it was dealt.
    assert played == [set(cards) for cards in result["deal"]]
    assert "plays" not in game.view(0)["last_hand"]
    assert Game.from_state(game.to_state()).plays_of(1) is None
