"""Stacked decks, scripted play and refusal checks for engine tests."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from server.engine import Game, IllegalAction, Rules, deck_codes

SUIT_HANDS = {
    0: "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
    1: "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
    2: "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
    3: "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
}


def stacked_deck(rules: Rules, hands: dict[int, str], dealer: int) -> list[str]:
    """A deck in deal order giving each listed seat those cards (the rest filled in order)."""
    n, size = rules.players, rules.hand_size
    remaining = Counter(deck_codes(n, rules.deck))
    wanted = {seat: cards.split() for seat, cards in hands.items()}
    for cards in wanted.values():
        assert not Counter(cards) - remaining, f"cards not in the deck: {cards}"
        remaining -= Counter(cards)
    rest = _elements_in_order(remaining, rules)
    full = []
    for seat in range(n):
        cards = wanted.get(seat, [])
        need = size - len(cards)
        full.append(cards + rest[:need])
        rest = rest[need:]
    return [full[(dealer + 1 + i) % n][i // n] for i in range(n * size)]


def _elements_in_order(remaining: Counter, rules: Rules) -> list[str]:
    out = []
    left = Counter(remaining)
    for code in deck_codes(rules.players, rules.deck):
        if left[code] > 0:
            out.append(code)
            left[code] -= 1
    return out


def stacked_game(rules: Rules, hands: dict[int, str], dealer: int = 3, **kwargs: Any) -> Game:
    """A game whose first hand deals ``hands`` (seat -> "AS KS ..."), dealer seat 3."""
    return Game(rules, decks=[stacked_deck(rules, hands, dealer)], dealer=dealer, seed=0, **kwargs)


def bid_all(game: Game, bids: dict[int, int]) -> None:
    """Every seat bids its number, in turn order."""
    while game.phase == "bid":
        seat = game.turn[0]
        game.act(seat, {"type": "bid", "bid": bids[seat]})


def play_first_legal(game: Game, hands: int = 1) -> list[dict[str, Any]]:
    """Play on with the first legal action until ``hands`` more hands are scored."""
    events: list[dict[str, Any]] = []
    target = len(game.hand_results) + hands
    while game.phase != "over" and len(game.hand_results) < target:
        seat = game.turn[0]
        events += game.act(seat, game.legal(seat)[0])
    return events


def with_scores(game: Game, scores: list[list[int]]) -> Game:
    """The same game restored with other scores (as a server restoring a saved game)."""
    state = game.to_state()
    state["scores"] = scores
    return Game.from_state(state)


def refused(game: Game, seat: int, action: dict[str, Any]) -> IllegalAction:
    """Act, expect a refusal, and check the game is exactly as before; returns the refusal."""
    before = game.to_state()
    with pytest.raises(IllegalAction) as caught:
        game.act(seat, action)
    assert game.to_state() == before
    return caught.value


def side_one_leads_by_330(rules: Rules) -> Game:
    """After hand 1 (dealer 0): seat 1 held every spade and made 13, seat 3 made nil, side
    0 was set; side 0 trails 330 and, where the table allows, is asked about blind nil."""
    hands = {1: SUIT_HANDS[0], 0: SUIT_HANDS[1], 2: SUIT_HANDS[2], 3: SUIT_HANDS[3]}
    game = stacked_game(rules, hands, dealer=0)
    while game.phase == "blind":
        game.act(game.turn[0], {"type": "blind_nil", "declare": False})
    bid_all(game, {0: 5, 1: 13, 2: 5, 3: 0})
    play_first_legal(game)
    assert [side["score"] for side in game.scores] == [-100, 230]
    return game
