"""Whole games with bots for the bot tests: the game driver and the legality cases."""

from __future__ import annotations

import random
from typing import Any

import pytest

from server.engine import Game, Rules
from server.engine.bots import choose_action

ANY_TIME = {"blind_nil_behind_by": None}

# Every preset and deck, plus the rule toggles that change what a bot may do.
LEGALITY_CASES = [
    *(
        pytest.param(preset, {"deck": deck}, id=f"{preset}-{deck}")
        for preset in Rules.preset_names()
        for deck in ("standard", "jokers", "jokers_deuces")
    ),
    pytest.param("standard", {"blind_nil": True, **ANY_TIME}, id="standard-blind-nil-pass-2"),
    pytest.param("competitive", ANY_TIME, id="competitive-blind-nil-pass-1"),
    pytest.param("competitive", {"deck": "jokers", **ANY_TIME}, id="competitive-jokers-blind"),
    pytest.param("standard", {"partnerships": False}, id="standard-solo"),
    pytest.param("six_player", {"partnerships": True}, id="six_player-partners"),
    pytest.param("six_player", {"duplicate_later_wins": False}, id="six_player-earlier-wins"),
    pytest.param("standard", {"first_lead": "two_clubs", "nil": False}, id="two_clubs-no-nil"),
    pytest.param("standard", {"nil_tricks": "contract", "bags": False}, id="nil-tricks-contract"),
    pytest.param("cutthroat", {"min_team_bid": 2, "deck": "jokers"}, id="cutthroat-min-bid"),
    pytest.param("two_player", {"spades_broken_to_lead": False}, id="two_player-spades-any"),
    # House rules: the formats with the nil pass (every Suicide hand has one), a rotation.
    pytest.param("standard", {"nil_pass": 2}, id="standard-nil-pass-2"),
    pytest.param("suicide", {"nil_pass": 1}, id="suicide-nil-pass-1"),
    pytest.param(
        "suicide", {"nil_pass": 3, "blind_nil": True, **ANY_TIME}, id="suicide-blind-nil-pass-3"
    ),
    pytest.param("whiz", {"nil_pass": 2, "mercy_margin": 100}, id="whiz-nil-pass-mercy"),
    pytest.param("mirror", {"players": 6, "partnerships": True}, id="mirror-six-partners"),
    pytest.param(
        "standard",
        {"bidding_formats": ["suicide", "whiz", "mirror", "individual"], "nil_pass": 2},
        id="rotation-nil-pass",
    ),
    pytest.param("cutthroat", {"bidding_formats": ["mirror", "whiz"]}, id="cutthroat-rotation"),
]


def play_game(
    rules: Rules,
    seed: int,
    levels: dict[int, str],
    rng: random.Random | None = None,
    *,
    force_blind_nil: bool = False,
    max_hands: int = 60,
    samples: int | None = None,
    watch: str | None = None,
) -> tuple[Game, set[str]]:
    """Play up to ``max_hands`` hands: seats in ``levels`` are bots of that level, acting
    from their own view only, and every bot choice is checked against ``game.legal``; the
    other seats pick a random legal action. With ``force_blind_nil`` the first blind nil
    question of every other hand is answered "yes" for a bot, so that the card pass gets
    played. Returns the game and the phases in which bots (of level ``watch``, if given)
    acted."""
    game = Game(rules, seed=seed)
    rng = rng or random.Random(seed)
    phases: set[str] = set()
    forced_in_hand = 0
    while game.winner is None and len(game.hand_results) < max_hands:
        seat = game.turn[0]
        legal = game.legal(seat)
        force = force_blind_nil and game.phase == "blind" and game.hand_number % 2 == 1
        if seat not in levels:
            action = rng.choice(legal)
        elif force and forced_in_hand != game.hand_number:
            forced_in_hand = game.hand_number
            action = {"type": "blind_nil", "declare": True}
        else:
            if watch is None or levels[seat] == watch:
                phases.add(game.phase)
            action = choose_action(rules, game.view(seat), levels[seat], rng, samples=samples)
            assert action in legal, (game.phase, action)
        game.act(seat, action)
    return game, phases


def all_legal(
    preset: str, overrides: dict[str, Any], level: str, seed: int, samples: int
) -> tuple[Rules, bool]:
    """Two hands of a legality case, every seat a bot of `level` (asked about blind nil
    every other hand when the rules ask every hand): each choice legal (`play_game`
    checks it) and every phase of the rules reached. The rules, and whether blind nil
    is asked every hand."""
    rules = Rules.preset(preset, target_score=300, **overrides)
    asked_every_hand = rules.blind_nil and rules.blind_nil_behind_by is None
    everyone = dict.fromkeys(range(rules.players), level)
    game, phases = play_game(
        rules, seed, everyone, force_blind_nil=asked_every_hand, max_hands=2, samples=samples
    )
    assert game.hand_results
    assert game_phases(rules, asked_every_hand) <= phases
    return rules, asked_every_hand


def basic_bots(seats: set[int]) -> dict[int, str]:
    """``levels`` for basic bots in ``seats``."""
    return dict.fromkeys(seats, "basic")


def game_phases(rules: Rules, asked_every_hand: bool) -> set[str]:
    """The phases every game of these rules goes through (blind nil and the pass only
    when a bot is asked every hand)."""
    expected = {"bid", "play"} | ({"draw"} if rules.players == 2 else set())
    if rules.format_of(1) == "suicide" and rules.nil_pass:
        expected.add("pass")  # every side of a Suicide hand has one nil
    return expected | ({"blind", "pass"} if asked_every_hand else set())


def blind_view(mine: int, theirs: int, bids: list[Any] | None = None) -> dict[str, Any]:
    """Seat 0's view at its blind nil question, the sides' scores ``mine`` and ``theirs``."""
    return {
        "phase": "blind",
        "seat": 0,
        "turn": [0],
        "hand": None,
        "bids": bids or [None] * 4,
        "sides": [[0, 2], [1, 3]],
        "scores": [{"score": mine, "bags": 0}, {"score": theirs, "bags": 0}],
        "target_score": 500,
        "legal": [
            {"type": "blind_nil", "declare": True},
            {"type": "blind_nil", "declare": False},
        ],
    }
