"""An independent verifier of a game's record, written from docs/fairness.md alone.

It imports nothing of the server (hashlib and hmac only), so that the tests hold the
server to what the page promises, not to its own code.
"""

from __future__ import annotations

import hashlib
import hmac
from collections import Counter
from typing import Any

SUITS = "CDHS"
RANKS = "23456789TJQKA"


def starting_deck(players: int, deck: str) -> list[str]:
    """The table's cards sorted as the page says: suits C D H S, ranks 2..A, LJ, BJ."""
    cards = [rank + suit for suit in SUITS for rank in RANKS]
    if deck == "standard":
        one = [c for c in cards if c != "2C"] if players in (3, 6) else cards
    elif players in (3, 6):
        one = [*cards, "LJ", "BJ"]
    else:
        removed = {"2C", "2D"} if deck == "jokers" else {"2C", "2H"}
        one = [c for c in cards if c not in removed] + ["LJ", "BJ"]
    order = {code: index for index, code in enumerate([*cards, "LJ", "BJ"])}
    both = one + one if players == 6 else one
    return sorted(both, key=order.__getitem__)


def mix(client_seeds: dict[str, str]) -> str:
    lines = [f"{seat}={client_seeds[seat]}" for seat in sorted(client_seeds, key=int)]
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def shuffled(
    start: list[str], key: bytes, table_id: str, hand: int, seeds: dict[str, str]
) -> list[str]:
    deck = list(start)
    mixed = mix(seeds)
    for i in range(len(deck) - 1, 0, -1):
        message = f"{table_id}|{hand}|{mixed}|{i}".encode()
        j = int.from_bytes(hmac.new(key, message, hashlib.sha256).digest(), "big") % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def first_dealer(key: bytes, table_id: str, players: int) -> int:
    digest = hmac.new(key, f"{table_id}|dealer".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest, "big") % players


def dealt_from(
    deck: list[str], dealer: int, held: list[list[str]], players: int, partners: bool
) -> bool:
    if players == 2:
        for seat in (0, 1):
            turns = [t for t in range(len(deck) // 2) if (dealer + 1 + t) % 2 == seat]
            pairs = [deck[2 * t : 2 * t + 2] for t in turns]
            if len(held[seat]) != len(pairs):
                return False
            if any(sum(card in held[seat] for card in pair) != 1 for pair in pairs):
                return False
        return True
    shares = [
        [card for i, card in enumerate(deck) if (dealer + 1 + i) % players == seat]
        for seat in range(players)
    ]
    for seat in range(players):
        group = [seat, (seat + players // 2) % players] if partners and players % 2 == 0 else [seat]
        if Counter(c for s in group for c in shares[s]) != Counter(
            c for s in group for c in held[s]
        ):
            return False
    return True


def verify_record(record: dict[str, Any]) -> dict[int, list[str]]:
    """Each hand's number and what did not match in it (an empty list: all matched)."""
    table_id = record["table"]["id"]
    rules = record["table"]["rules"]
    players = rules["players"]
    start = starting_deck(players, rules["deck"])
    found: dict[int, list[str]] = {}
    for hand in record["hands"]:
        proof = hand["fairness"]
        problems = []
        key = bytes.fromhex(proof["server_seed"])
        if len(key) != 32:
            problems.append("seed length")
        if hashlib.sha256(key).hexdigest() != proof["commitment"]:
            problems.append("commitment")
        deck = shuffled(start, key, table_id, hand["hand"], proof["client_seeds"])
        if deck != proof["deck"]:
            problems.append("deck")
        if not dealt_from(deck, hand["dealer"], hand["deal"], players, rules["partnerships"]):
            problems.append("deal")
        if hand["hand"] == 1 and hand["dealer"] != first_dealer(key, table_id, players):
            problems.append("first dealer")
        found[hand["hand"]] = problems
    return found
