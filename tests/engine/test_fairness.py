"""Deals from seeds (docs/fairness.md): the engine's shuffle against the page's algorithm,
the worked example's numbers, games dealt from seeds, and the seeded games of old."""

from __future__ import annotations

import hashlib
import random
import re
from collections import Counter
from pathlib import Path

import pytest

from server.engine import PRESETS, Game, Rules
from server.engine.bots import choose_action
from server.engine.cards import CODES, INDEX, deck_codes
from server.engine.dealing import hand_deck
from server.engine.fairness import (
    Deals,
    check_deals,
    checked_seed,
    commitment,
    fair_deck,
    first_dealer,
    mix,
)
from tests import fairness_verifier

DOC = Path(__file__).parents[2] / "docs" / "fairness.md"
KEY = bytes(range(32))
VARIANTS = [
    {"preset": "standard"},
    {"preset": "standard", "deck": "jokers"},
    {"preset": "standard", "deck": "jokers_deuces"},
    {"preset": "competitive", "blind_nil_behind_by": None},
    {"preset": "cutthroat", "deck": "jokers"},
    {"preset": "two_player"},
    {"preset": "six_player"},
    {"preset": "six_player", "deck": "jokers"},
]


def rules_of(fields: dict[str, object]) -> Rules:
    preset = str(fields["preset"])
    return Rules.model_validate({**PRESETS[preset], **fields, "target_score": 60})


def play_out(game: Game, rng: random.Random, seeds: bool = True) -> None:
    """Bots play the game to its end; each seat adds a seed before most hands."""
    while game.phase != "over":
        if seeds and rng.random() < 0.2:
            game.add_seed(rng.randrange(game.rules.players), f"s{rng.randrange(10**6)}")
        seat = game.turn[0]
        game.act(seat, choose_action(game.rules, game.view(seat), "basic", rng))


def record_of(game: Game, table_id: str) -> dict[str, object]:
    """The game's record as the page downloads it: the table, and its finished hands."""
    hands = [
        {**result, "hand": result["hand_number"], "fairness": game.deal_proof(number)}
        for number, result in enumerate(game.hand_results, start=1)
    ]
    return {"table": {"id": table_id, "rules": game.rules.model_dump()}, "hands": hands}


@pytest.mark.parametrize("fields", VARIANTS, ids=lambda f: "-".join(map(str, f.values())))
def test_the_shuffle_is_the_pages_algorithm_on_every_deck(fields):
    rules = rules_of(fields)
    base = [INDEX[code] for code in deck_codes(rules.players, rules.deck)]
    start = fairness_verifier.starting_deck(rules.players, rules.deck)
    for hand, seeds in [(1, {}), (2, {0: "a"}), (7, {1: "x y", 0: "é"})]:
        deck = [CODES[card] for card in fair_deck(base, KEY, "tbl", hand, seeds)]
        by_page = fairness_verifier.shuffled(
            start, KEY, "tbl", hand, {str(s): v for s, v in seeds.items()}
        )
        assert deck == by_page
        assert Counter(deck) == Counter(deck_codes(rules.players, rules.deck))


def test_every_seed_changes_the_deal():
    base = list(range(52))
    decks = {
        tuple(fair_deck(base, KEY, "t", 1, seeds))
        for seeds in ({}, {0: "a"}, {0: "b"}, {1: "a"}, {0: "a", 1: "a"})
    }
    decks.add(tuple(fair_deck(base, KEY, "u", 1, {})))
    decks.add(tuple(fair_deck(base, KEY, "t", 2, {})))
    decks.add(tuple(fair_deck(base, bytes(32), "t", 1, {})))
    assert len(decks) == 8


def test_the_mix_lists_seeds_in_seat_order_without_a_trailing_newline():
    assert mix({10: "b", 2: "a"}) == hashlib.sha256(b"2=a\n10=b").hexdigest()
    assert mix({}) == hashlib.sha256(b"").hexdigest()


def test_the_worked_example_of_the_page_is_right():
    block = re.search(r"## A worked example.*?```\n(.*?)```", DOC.read_text(), re.S)
    assert block is not None
    shown = dict(line.split(": ", 1) for line in block.group(1).strip().splitlines())
    key = bytes.fromhex(shown["server_seed"])
    seeds = {0: "alice", 2: "lucky 7"}
    assert shown["commitment"] == commitment(key)
    assert shown["mix text"].replace("\\n", "\n") == "0=alice\n2=lucky 7"
    assert shown["mix"] == mix(seeds)
    for i in (51, 50):
        message = f"k7Qx2w|1|{mix(seeds)}|{i}".encode()
        digest = __import__("hmac").new(key, message, hashlib.sha256).digest()
        assert shown[f"hmac i={i}"] == digest.hex()
        assert int(shown[f"j i={i}"]) == int.from_bytes(digest, "big") % (i + 1)
    base = [INDEX[code] for code in deck_codes(4, "standard")]
    deck = [CODES[card] for card in fair_deck(base, key, "k7Qx2w", 1, seeds)]
    assert shown["deck"].split() == deck
    assert int(shown["first dealer"]) == first_dealer(key, "k7Qx2w", 4)
    assert shown["deck"].split() == fairness_verifier.shuffled(
        fairness_verifier.starting_deck(4, "standard"),
        key,
        "k7Qx2w",
        1,
        {"0": "alice", "2": "lucky 7"},
    )


def test_a_game_from_seeds_deals_its_first_hand_and_dealer_from_them():
    rules = Rules.preset("standard")
    game = Game(rules, deals=Deals.fresh("t9", KEY, {1: "mine"}))
    assert game.first_dealer == first_dealer(KEY, "t9", 4) == game.dealer
    base = [INDEX[code] for code in deck_codes(4, "standard")]
    deck = fair_deck(base, KEY, "t9", 1, {1: "mine"})
    for offset in range(4):
        seat = (game.dealer + 1 + offset) % 4
        assert sorted(game.hand(seat)) == sorted(deck[offset::4])
    shown = game.next_deal()
    assert shown is not None and shown["hand"] == 2 and shown["client_seeds"] == {}
    assert shown["commitment"] == commitment(game.deals.keys[1]) != commitment(KEY)


def test_a_seed_counts_for_the_next_hand_only_and_the_last_one_counts():
    game = Game(Rules.preset("standard"), deals=Deals.fresh("t", KEY))
    game.add_seed(2, "first")
    game.add_seed(2, "second")
    game.add_seed(0, "zero")
    assert game.next_deal()["client_seeds"] == {"0": "zero", "2": "second"}
    play_out_hand(game)
    assert game.hand_number == 2
    proof = game.deal_proof(1)
    assert proof is not None and proof["client_seeds"] == {}
    assert game.deal_proof(2) is None  # not over: its key stays secret
    play_out_hand(game)
    assert game.deal_proof(2)["client_seeds"] == {"0": "zero", "2": "second"}


def play_out_hand(game: Game) -> None:
    rng = random.Random(5)
    number = game.hand_number
    while game.hand_number == number and game.phase != "over":
        seat = game.turn[0]
        game.act(seat, choose_action(game.rules, game.view(seat), "basic", rng))


@pytest.mark.parametrize("value", ["", "x" * 65, "a\nb", "tab\there", "\x00", 7, None])
def test_a_bad_seed_is_refused_and_changes_nothing(value):
    game = Game(Rules.preset("standard"), deals=Deals.fresh("t", KEY))
    before = game.to_state()
    with pytest.raises(ValueError, match="1 to 64 printable"):
        game.add_seed(0, value)
    assert game.to_state() == before
    assert checked_seed("x" * 64) == "x" * 64


def test_a_game_without_deals_takes_no_seed_and_a_bad_seat_is_refused():
    with pytest.raises(ValueError, match="not dealt from seeds"):
        Game(Rules.preset("standard"), seed=1).add_seed(0, "a")
    game = Game(Rules.preset("standard"), deals=Deals.fresh("t", KEY))
    with pytest.raises(ValueError):
        game.add_seed(4, "a")
    with pytest.raises(ValueError, match="not both"):
        Game(
            Rules.preset("standard"), decks=[deck_codes(4, "standard")], deals=Deals.fresh("t", KEY)
        )


def test_seeded_and_stacked_games_deal_exactly_as_before():
    rules = Rules.preset("standard")
    game = Game(rules, seed=42)
    assert game.deals is None and game.next_deal() is None
    base = [INDEX[code] for code in deck_codes(4, "standard")]
    deck = hand_deck([], base, 42, 0)
    dealer = random.Random("spades:42:dealer").randrange(4)
    assert game.dealer == dealer
    for offset in range(4):
        assert sorted(game.hand((dealer + 1 + offset) % 4)) == sorted(deck[offset::4])
    stacked = deck_codes(4, "standard")
    game = Game(rules, decks=[stacked], dealer=0)
    assert [CODES[c] for c in sorted(game.hand(1))] == sorted(stacked[0::4], key=INDEX.get)


def test_a_restored_game_keeps_its_seeds_and_deals_on_exactly_alike():
    """Restored mid-hand (as the server does, from the snapshot after the last hand), the
    game deals the next hand from the same seeds; only the server seed drawn for the hand
    after that is new (drawn when the hand is dealt, and saved with it)."""
    rng = random.Random(3)
    game = Game(Rules.preset("standard"), deals=Deals.fresh("t", KEY))
    play_out_hand(game)
    game.add_seed(1, "later")
    copy = Game.from_state(game.to_state())
    assert copy.to_state() == game.to_state()
    while game.hand_number == 2:
        seat = game.turn[0]
        action = choose_action(game.rules, game.view(seat), "basic", rng)
        game.act(seat, action)
        copy.act(seat, action)
    assert copy.hands == game.hands and copy.dealer == game.dealer
    assert copy.deal_proof(2) == game.deal_proof(2)
    assert copy.deals.keys[:-1] == game.deals.keys[:-1]
    assert copy.deals.keys[-1] != game.deals.keys[-1]
    assert game.deals.seeds[2] == copy.deals.seeds[2] == {1: "later"}  # hand 3, dealt alike


@pytest.mark.parametrize("fields", VARIANTS, ids=lambda f: "-".join(map(str, f.values())))
def test_whole_games_from_seeds_verify_and_a_tampered_record_does_not(fields):
    rules = rules_of(fields)
    game = Game(rules, deals=Deals.fresh("tbl42", KEY))
    play_out(game, random.Random(11))
    record = record_of(game, "tbl42")
    checks = check_deals(rules, "tbl42", record["hands"])
    assert checks and all(check.matched for check in checks), checks
    assert all(not problems for problems in fairness_verifier.verify_record(record).values())

    record["hands"][0]["fairness"]["client_seeds"]["0"] = "forged"
    assert not check_deals(rules, "tbl42", record["hands"])[0].matched
    assert "deck" in fairness_verifier.verify_record(record)[1]
