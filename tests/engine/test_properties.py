"""Property tests: random legal play in every preset and deck keeps the rules' invariants."""

import json
from collections import Counter

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.engine import Game, IllegalAction, Rules, deck_codes, score_hand
from server.engine.cards import INDEX
from server.realtime.codec import StateEncoder

PRESETS = Rules.preset_names()
DECKS = ("standard", "jokers", "jokers_deuces")
WRONG_ACTIONS = (
    [{"type": "play", "card": code} for code in ("AS", "2C", "LJ", "7H", "TD", "QS")]
    + [{"type": "bid", "bid": number} for number in (-1, 0, 4, 13, 19)]
    + [
        {"type": "blind_nil", "declare": True},
        {"type": "draw", "keep": False},
        {"type": "pass", "cards": ["AS", "KS"]},
        {"type": "pass", "cards": ["AH"]},
        {"type": "play"},
        {"type": "nap"},
    ]
)


def rules_for(preset, deck, blind):
    overrides = {"deck": deck}
    if blind and Rules.preset(preset).bidding not in ("whiz", "mirror"):
        overrides |= {"blind_nil": True, "blind_nil_behind_by": None}
    return Rules.preset(preset, **overrides)


def visible_cards(game, seat):
    """Every card code ``seat`` may see now, from the saved state (the ground truth)."""
    state = game.to_state()
    allowed = Counter()
    if seat is not None:
        allowed.update(state["hands"][seat])
    allowed.update(code for _, code in state["played"] + state["trick"])
    if state["last_trick"]:
        allowed.update(code for _, code in state["last_trick"][0])
    if state["phase"] == "draw" and state["turn"] == seat:
        allowed[state["stock"][state["stock_pos"]]] += 1
    return set(allowed)


def codes_in(value):
    text = json.dumps(value)
    return {code for code in INDEX if f'"{code}"' in text}


def check_view(game, seat):
    view = game.view(seat)
    assert json.loads(json.dumps(view)) == view
    last_hand = view.pop("last_hand")
    assert last_hand == (game.hand_results[-1] if game.hand_results else None)
    assert codes_in(view) <= visible_cards(game, seat)
    if seat is None or (seat in game.pending and game.phase == "blind"):
        assert view["hand"] is None
    else:
        assert Counter(view["hand"]) == Counter(game.to_state()["hands"][seat])


def check_cards_conserved(game):
    state = game.to_state()
    if state["phase"] not in ("bid", "play"):
        return
    held = Counter(code for hand in state["hands"] for code in hand)
    held.update(code for _, code in state["played"] + state["trick"])
    dealt = Counter(code for hand in state["deal"] for code in hand)
    assert held == dealt
    deck = Counter(deck_codes(game.rules.players, game.rules.deck))
    assert not dealt - deck
    if game.rules.players != 2:
        assert dealt == deck


def check_every_legal_action_accepted(game, seat, legal):
    state = game.to_state()
    for action in legal[:20]:
        Game.from_state(state).act(seat, action)


def check_wrong_action_refused(game, seat, action):
    legal = game.legal(seat)
    if action in legal:
        return
    if action["type"] == "pass" and any(
        option["type"] == "pass" and Counter(option["cards"]) == Counter(action["cards"])
        for option in legal
    ):
        return  # legal() lists each set of cards once, in hand order; any order is the same pass
    before = game.to_state()
    with pytest.raises(IllegalAction):
        game.act(seat, action)
    assert game.to_state() == before


@pytest.mark.parametrize("deck", DECKS)
@pytest.mark.parametrize("preset", PRESETS)
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), blind=st.booleans(), data=st.data())
def test_random_legal_play_keeps_every_invariant(preset, deck, seed, blind, data):
    rules = rules_for(preset, deck, blind)
    game = Game(rules, seed=seed)
    n = rules.players
    scores = game.scores
    saved_at = data.draw(st.integers(0, 120), label="save at step")
    copy = None
    steps = 0
    # One snapshot encoder for the whole game, as a table keeps one: its JSON is exactly
    # that of the state built afresh (nothing it keeps between hands goes stale).
    snapshots = StateEncoder()
    while game.phase != "over" and len(game.hand_results) < 2 and steps < 500:
        steps += 1
        seat = data.draw(st.sampled_from(game.turn), label="seat")
        legal = game.legal(seat)
        assert legal, "a seat on turn always has a legal action"
        for other in set(range(n)) - set(game.turn):
            assert game.legal(other) == []
        if steps % 7 == 0:
            # Read before `hands`, which would make the card lists they may skip fresh.
            sizes, own = game.hand_sizes, [list(game.hand(other)) for other in range(n)]
            each = [game.hand_size(other) for other in range(n)]
            assert sizes == each == [len(cards) for cards in game.hands] and own == game.hands
            # A snapshot's JSON, made from the entries kept since the last one.
            assert snapshots.json(game) == orjson.dumps(game.to_state())
            check_every_legal_action_accepted(game, seat, legal)
            check_wrong_action_refused(game, seat, data.draw(st.sampled_from(WRONG_ACTIONS)))
            for viewer in [None, *range(n)]:
                check_view(game, viewer)
        if steps == saved_at:
            copy = Game.from_state(json.loads(json.dumps(game.to_state())))
        action = data.draw(st.sampled_from(legal), label="action")
        events = game.act(seat, action)
        if copy is not None:
            assert copy.act(seat, action) == events
        check_cards_conserved(game)
        for event in events:
            if event["type"] == "trick":
                assert sorted(card["seat"] for card in event["cards"]) == list(range(n))
            if event["type"] == "hand_scored":
                assert sum(event["tricks"]) == rules.hand_size
                assert all(len(cards) == rules.hand_size for cards in event["deal"])
                after = score_hand(rules, event["bids"], event["tricks"], scores)
                assert after == [{"score": s["score"], "bags": s["bags"]} for s in event["sides"]]
                scores = after
                if not rules.bags:
                    assert all(side["bags"] == 0 for side in after)
    assert game.scores == scores
    assert snapshots.json(game) == orjson.dumps(game.to_state())
    if copy is not None:
        assert copy.to_state() == game.to_state()
        assert StateEncoder().json(copy) == snapshots.json(game)
    replay = Game(rules, seed=seed)
    for seat, action in game.log:
        replay.act(seat, action)
    assert replay.to_state() == game.to_state()
