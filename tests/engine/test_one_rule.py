"""Each rule in one place (docs/rules.md §6-7): the game, its fast path, the view and the
bots agree on the legal cards, the trick's taker, a side's contract and the nil test; the
pass is a constraint in the view; every refusal has a stable code."""

from __future__ import annotations

import json
import random
import re
from itertools import combinations
from pathlib import Path

import pytest

from server.engine import Game, IllegalAction, Rules, View, trick_winner
from server.engine.actions import REFUSAL_CODES
from server.engine.bots import choose_action
from server.engine.bots.knowledge import seat_state
from server.engine.bots.rollout import Rollout
from server.engine.cards import CODES, INDEX, card_order
from server.engine.play import legal_plays
from server.engine.scoring import is_nil, side_contract

VARIANTS = [
    Rules.preset("standard"),
    Rules.preset("competitive"),
    Rules.preset("cutthroat", deck="jokers"),
    Rules.preset("two_player", deck="jokers_deuces"),
    Rules.preset("six_player"),
    Rules.preset("six_player", partnerships=True, bidding="team", deck="jokers"),
    Rules.preset("standard", first_lead="two_clubs", spades_broken_to_lead=False),
]


def random_hands(rules: Rules, seed: int, hands: int = 2):
    """Yield ``(game, seat)`` before every action of random play, for a few hands."""
    rng = random.Random(seed)
    game = Game(rules, seed=seed)
    while game.winner is None and game.hand_number <= hands:
        seat = game.turn[0]
        yield game, seat
        game.act(seat, rng.choice(game.legal(seat)))


def six_player_pass_game() -> Game:
    """Six players in partnerships passing 4 cards: seat 0 declared blind nil."""
    rules = Rules.preset(
        "six_player",
        partnerships=True,
        blind_nil=True,
        blind_nil_behind_by=None,
        blind_nil_pass=4,
    )
    game = Game(rules, seed=3, dealer=5)
    game.act(0, {"type": "blind_nil", "declare": True})
    while game.phase == "blind":
        game.act(game.turn[0], {"type": "blind_nil", "declare": False})
    assert game.phase == "pass" and game.turn == [0, 3]
    return game


# --- legal cards ------------------------------------------------------------------------


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: f"{r.players}p-{r.deck}-{r.first_lead}")
def test_legal_cards_are_the_same_in_legal_fast_path_view_and_rollouts(rules: Rules) -> None:
    for game, seat in random_hands(rules, seed=11):
        if game.phase != "play":
            continue
        cards = [action["card"] for action in game.legal(seat) if action["type"] == "play"]
        assert game.legal_cards(seat) == cards
        assert [a["card"] for a in game.view(seat)["legal"] if a["type"] == "play"] == cards
        view = game.view(seat)
        assert sorted(set(CODES[c] for c in rollout_legal(rules, view))) == sorted(cards)


def rollout_legal(rules: Rules, view: View) -> list[int]:
    """The cards the look-ahead's play-outs let the seat of `view` play now."""
    sim = Rollout(seat_state(rules, view, None), view)
    hand = [INDEX[code] for code in view["hand"]]
    trick = [(play["seat"], INDEX[play["card"]]) for play in view["trick"]]
    return sim.legal(hand, trick, list(view["tricks_won"]), view["spades_broken"])


@pytest.mark.parametrize("first_lead", ["left_of_dealer", "two_clubs", "lowest_club"])
def test_the_rollouts_play_the_first_trick_by_its_own_rules(first_lead: str) -> None:
    """On every first trick the play-outs allow exactly the engine's cards; the plain
    legality check (`legal_plays`, no first-trick rules) allows more where the first
    trick has rules of its own, so this would catch a rollout that forgets them."""
    rules = Rules.preset("standard", first_lead=first_lead)
    order = card_order(rules.deck)
    wider = 0
    for seed in range(30):
        rng = random.Random(seed)
        game = Game(rules, seed=seed, dealer=seed % rules.players)
        while not (game.phase == "play" and game.view(game.turn[0])["played"]):
            seat = game.turn[0]
            if game.phase == "play":
                view = game.view(seat)
                cards = sorted(a["card"] for a in game.legal(seat) if a["type"] == "play")
                assert sorted(CODES[c] for c in rollout_legal(rules, view)) == cards
                trick = view["trick"]
                led = order.suit[INDEX[trick[0]["card"]]] if trick else -1
                hand = [INDEX[code] for code in view["hand"]]
                closed = rules.spades_broken_to_lead and not view["spades_broken"]
                plain = legal_plays(hand, order.suit, led, closed)
                wider += sorted(CODES[c] for c in plain) != cards
            game.act(seat, rng.choice(game.legal(seat)))
    assert (wider > 0) == (first_lead != "left_of_dealer")


def test_a_refused_card_leaves_the_cached_legal_cards_alone() -> None:
    for game, seat in random_hands(Rules.preset("standard"), seed=4, hands=1):
        if game.phase == "play" and game.view(seat)["trick"]:
            before = game.legal_cards(seat)
            hand = game.view(seat)["hand"]
            others = [code for code in hand if code not in before]
            if others:
                with pytest.raises(IllegalAction) as refusal:
                    game.play(seat, others[0])
                assert refusal.value.code == "must_follow_suit"
                assert game.legal_cards(seat) == before
                return
    pytest.fail("no refused follow in the hand")


# --- the trick's taker ------------------------------------------------------------------


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: f"{r.players}p-{r.deck}-{r.first_lead}")
def test_trick_winner_and_the_bots_agree_with_the_game_on_random_tricks(rules: Rules) -> None:
    rng = random.Random(5)
    game = Game(rules, seed=5)
    checked = 0
    while game.winner is None and game.hand_number <= 2:
        seat = game.turn[0]
        action = rng.choice(game.legal(seat))
        view = game.view(seat)
        if game.phase != "play" or len(view["trick"]) != rules.players - 1:
            game.act(seat, action)
            continue
        card = action["card"]
        codes = [play["card"] for play in view["trick"]] + [card]
        first_club_trick = not view["played"] and rules.first_lead == "lowest_club"
        position = trick_winner(
            codes, rules.deck, rules.duplicate_later_wins, "C" if first_club_trick else None
        )
        bot_position = seat_state(rules, view, None).wins_with(INDEX[card])
        events = game.act(seat, action)
        winner = next(event["winner"] for event in events if event["type"] == "trick")
        seats = [play["seat"] for play in view["trick"]] + [seat]
        assert seats[position] == winner and seats[bot_position] == winner
        checked += 1
    assert checked > 10


# --- a side's contract --------------------------------------------------------------------


@pytest.mark.parametrize(
    "rules",
    [
        Rules.preset("standard"),
        Rules.preset("standard", bidding="team"),
        Rules.preset("competitive"),
        Rules.preset("cutthroat"),
    ],
    ids=["individual", "team", "competitive", "solo"],
)
def test_view_contracts_are_known_as_soon_as_a_side_has_bid(rules: Rules) -> None:
    for game, seat in random_hands(rules, seed=8, hands=2):
        view = game.view(None)
        bids = view["bids"]
        sides = view["sides"]
        expected = [
            None
            if any(bids[s] is None for s in side)
            else side_contract(rules, [bids[s] for s in side])
            for side in sides
        ]
        if all(contract is None for contract in expected):
            assert view["contracts"] is None
        else:
            assert view["contracts"] == expected
        if game.phase == "play":
            state = seat_state(rules, game.view(seat), None)
            assert [state.contract(side) for side in sides] == expected


def test_team_contract_is_the_second_partners_number_not_the_sum() -> None:
    game = Game(Rules.preset("standard", bidding="team"), seed=1, dealer=3)
    game.act(0, {"type": "bid", "bid": 3})
    game.act(1, {"type": "bid", "bid": 2})
    game.act(2, {"type": "bid", "bid": 5})
    assert game.view(None)["contracts"] == [5, None]
    game.act(3, {"type": "bid", "bid": 4})
    assert game.view(1)["contracts"] == [5, 4]


def test_nil_and_blind_nil_are_nil_and_a_number_is_not() -> None:
    assert is_nil(0) and is_nil("blind_nil") and not is_nil(1)
    view = {
        "phase": "play",
        "seat": 0,
        "turn": [0],
        "hand": ["2C"],
        "bids": [3, 0, "blind_nil", 0],
        "tricks_won": [0, 0, 0, 1],
        "legal": [],
    }
    state = seat_state(Rules.preset("standard"), view, None)
    assert [state.is_nil(seat) for seat in range(4)] == [False, True, True, False]


# --- the pass in the view -----------------------------------------------------------------


def test_six_player_four_card_pass_view_is_one_small_constraint() -> None:
    game = six_player_pass_game()
    view = game.view(0)
    assert view["legal"] == [{"type": "pass", "count": 4}]
    assert len(json.dumps(view)) < 5_000
    assert len(game.legal(0)) > 1_000  # the Python API still lists every set
    assert game.view(1)["legal"] == []


def test_any_four_cards_of_the_hand_are_accepted_as_the_pass() -> None:
    hand = six_player_pass_game().view(0)["hand"]
    rng = random.Random(2)
    for cards in [hand[:4], hand[-4:], rng.sample(hand, 4), rng.sample(hand, 4)]:
        game = six_player_pass_game()
        events = game.act(0, {"type": "pass", "cards": cards})
        assert events == [{"type": "pass_chosen", "seat": 0}]
        assert game.turn == [3]


def test_the_pass_constraint_refuses_other_counts_and_cards_not_held() -> None:
    game = six_player_pass_game()
    hand = game.view(0)["hand"]
    not_held = next(code for code in game.view(3)["hand"] if code not in hand)
    for cards in [hand[:3], hand[:5], [*hand[:3], not_held]]:
        with pytest.raises(IllegalAction) as refusal:
            game.act(0, {"type": "pass", "cards": cards})
        assert refusal.value.code == "bad_pass"


def test_game_legal_still_lists_every_set_of_cards_once_in_hand_order() -> None:
    rules = Rules.preset("standard", blind_nil=True, blind_nil_behind_by=None, blind_nil_pass=2)
    game = Game(rules, seed=5, dealer=3)
    game.act(0, {"type": "blind_nil", "declare": True})
    while game.phase == "blind":
        game.act(game.turn[0], {"type": "blind_nil", "declare": False})
    assert game.view(0)["legal"] == [{"type": "pass", "count": 2}]
    hand = game.view(0)["hand"]
    listed = [action["cards"] for action in game.legal(0)]
    assert listed == [list(pair) for pair in dict.fromkeys(combinations(hand, 2))]


@pytest.mark.parametrize("level", ["basic", "advanced"])
def test_bots_pass_from_the_views_constraint(level: str) -> None:
    game = six_player_pass_game()
    for seat in (0, 3):
        action = choose_action(game.rules, game.view(seat), level, random.Random(seat))
        assert action in game.legal(seat)
        game.act(seat, action)
    assert game.phase == "bid"


# --- refusal codes --------------------------------------------------------------------------


def test_turn_and_phase_refusals_have_their_codes() -> None:
    game = Game(Rules.preset("standard"), seed=1, dealer=3)
    with pytest.raises(IllegalAction) as refusal:
        game.act(1, {"type": "bid", "bid": 3})
    assert refusal.value.code == "not_your_turn"
    with pytest.raises(IllegalAction) as refusal:
        game.act(0, {"type": "play", "card": "2C"})
    assert refusal.value.code == "wrong_phase"
    with pytest.raises(IllegalAction) as refusal:
        game.act(7, {"type": "bid", "bid": 3})
    assert refusal.value.code == "bad_seat"


def test_every_refusal_the_engine_raises_has_a_listed_code() -> None:
    engine = Path(__file__).resolve().parents[2] / "server" / "engine"
    source = "\n".join(path.read_text() for path in engine.rglob("*.py"))
    raised = set(re.findall(r'IllegalAction\(\s*"(\w+)"', source))
    assert raised and raised <= set(REFUSAL_CODES)
    assert len(set(REFUSAL_CODES)) == len(REFUSAL_CODES)
