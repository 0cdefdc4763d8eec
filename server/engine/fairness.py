"""Deals anyone can verify: each hand shuffled from a committed server seed and the
players' own seeds (docs/fairness.md).

Before hand ``k`` is dealt, the server shows ``commitment(key)``, the SHA-256 of that
hand's fresh 32-byte server seed ``key``; seated players add their own seeds; the deck is
then shuffled by ``fair_deck`` from both, and the key is revealed once the hand is over.
Nobody, the server included, can pick a deal after seeing the others' seeds.

>>> key = bytes(range(32))
>>> commitment(key)[:16]
'630dcd2966c43366'
>>> mix({}) == hashlib.sha256(b"").hexdigest()
True
>>> mix({2: "b", 0: "a"}) == hashlib.sha256(b"0=a\\n2=b").hexdigest()
True
>>> fair_deck([0, 1, 2, 3], key, "t1", 1, {})
[2, 1, 0, 3]
>>> first_dealer(key, "t1", 4)
3
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass, field

from typing_extensions import TypedDict

from server.engine.cards import CODES, INDEX, deck_codes
from server.engine.rules import Rules

SEED_MAX = 64


class FairnessState(TypedDict):
    """The saved form of a game's ``Deals`` (in ``Game.to_state()``: secret until each
    hand is over)."""

    table: str
    keys: list[str]
    seeds: list[dict[str, str]]


class HandFairness(TypedDict):
    """What proves one finished hand's deal: its server seed, the commitment shown before
    it, the client seeds used and the deck in deal order (card codes)."""

    server_seed: str
    commitment: str
    client_seeds: dict[str, str]
    deck: list[str]


class NextDeal(TypedDict):
    """The next deal as every state shows it: its hand number (1 for the next game's
    first), the commitment of its server seed, and the client seeds so far."""

    hand: int
    commitment: str
    client_seeds: dict[str, str]


def new_key() -> bytes:
    """A fresh server seed: 32 bytes from the operating system's randomness."""
    return secrets.token_bytes(32)


def commitment(key: bytes) -> str:
    """The lowercase hex SHA-256 of a server seed."""
    return hashlib.sha256(key).hexdigest()


def mix(client_seeds: dict[int, str]) -> str:
    """The lowercase hex SHA-256 of one line ``"<seat>=<value>"`` per client seed, in seat
    order, joined by newlines."""
    text = "\n".join(f"{seat}={client_seeds[seat]}" for seat in sorted(client_seeds))
    return hashlib.sha256(text.encode()).hexdigest()


def fair_deck(
    base: list[int], key: bytes, table_id: str, hand: int, client_seeds: dict[int, str]
) -> list[int]:
    """Hand ``hand``'s deck in deal order: the table's cards sorted (suits C D H S, ranks 2
    to A, then LJ, BJ; the engine's card ints sort so), then a Fisher-Yates shuffle whose
    every swap index is drawn by HMAC-SHA256 keyed with the server seed."""
    deck = sorted(base)
    prefix = f"{table_id}|{hand}|{mix(client_seeds)}|"
    for i in range(len(deck) - 1, 0, -1):
        digest = hmac.new(key, f"{prefix}{i}".encode(), hashlib.sha256).digest()
        j = int.from_bytes(digest, "big") % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def first_dealer(key: bytes, table_id: str, players: int) -> int:
    """A game's first dealer, drawn from its first hand's server seed."""
    digest = hmac.new(key, f"{table_id}|dealer".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest, "big") % players


def checked_seed(value: object) -> str:
    """A client seed as accepted: 1 to 64 printable characters; ValueError otherwise.

    >>> checked_seed("lucky 7")
    'lucky 7'
    >>> checked_seed("a\\nb")
    Traceback (most recent call last):
    ...
    ValueError: a seed is 1 to 64 printable characters
    """
    if not isinstance(value, str) or not 1 <= len(value) <= SEED_MAX or not value.isprintable():
        raise ValueError(f"a seed is 1 to {SEED_MAX} printable characters")
    return value


@dataclass(slots=True, eq=False)
class Deals:
    """One game's verifiable deals: ``keys[k - 1]`` and ``seeds[k - 1]`` are hand ``k``'s
    server seed and client seeds (by seat); the last of each belongs to the next hand,
    not dealt yet. ``changes`` counts the changes to what ``next_deal`` shows (equal only
    to itself, so that a cache of what it shows can tell it by identity)."""

    table_id: str
    keys: list[bytes]
    seeds: list[dict[int, str]]
    changes: int = field(default=0)

    @classmethod
    def fresh(cls, table_id: str, key: bytes, seeds: dict[int, str] | None = None) -> Deals:
        """A game's deals before its first hand: its server seed and client seeds so far."""
        return cls(table_id, [key], [dict(seeds or {})])

    @property
    def next_hand(self) -> int:
        """The number of the hand not dealt yet."""
        return len(self.keys)

    def add_seed(self, seat: int, value: str) -> None:
        """A seat's seed for the next deal (its last one counts)."""
        self.seeds[-1][seat] = value
        self.changes += 1

    def replace_seeds(self, seeds: dict[int, str]) -> None:
        """Every seat's seed for the next deal at once (as stored)."""
        self.seeds[-1] = dict(seeds)
        self.changes += 1

    def deal(self, hand: int, base: list[int]) -> list[int]:
        """Hand ``hand``'s deck (it must be the next hand), and a fresh server seed for
        the one after."""
        assert hand == self.next_hand
        deck = fair_deck(base, self.keys[-1], self.table_id, hand, self.seeds[-1])
        self.keys.append(new_key())
        self.seeds.append({})
        self.changes += 1
        return deck

    def dealer(self, players: int) -> int:
        """The first dealer, from hand 1's server seed."""
        return first_dealer(self.keys[0], self.table_id, players)

    def next_deal(self, hand: int) -> NextDeal:
        """The next deal as shown to everyone: no secret in it."""
        return {
            "hand": hand,
            "commitment": commitment(self.keys[-1]),
            "client_seeds": {str(seat): value for seat, value in sorted(self.seeds[-1].items())},
        }

    def revealed(self, hand: int, base: list[int]) -> HandFairness:
        """What proves hand ``hand``'s deal, once it is over (never before: its key)."""
        key, seeds = self.keys[hand - 1], self.seeds[hand - 1]
        deck = fair_deck(base, key, self.table_id, hand, seeds)
        return {
            "server_seed": key.hex(),
            "commitment": commitment(key),
            "client_seeds": {str(seat): value for seat, value in sorted(seeds.items())},
            "deck": [CODES[card] for card in deck],
        }

    def to_state(self) -> FairnessState:
        return {
            "table": self.table_id,
            "keys": [key.hex() for key in self.keys],
            "seeds": [{str(seat): value for seat, value in seeds.items()} for seeds in self.seeds],
        }

    @classmethod
    def from_state(cls, data: FairnessState) -> Deals:
        return cls(
            data["table"],
            [bytes.fromhex(key) for key in data["keys"]],
            [{int(seat): value for seat, value in seeds.items()} for seeds in data["seeds"]],
        )


class RecordedHand(TypedDict):
    """A finished hand as a game's record has it (the history's rows): what a check of
    its deal reads."""

    hand: int
    dealer: int | None
    deal: list[list[str]]
    fairness: HandFairness | None


@dataclass(frozen=True, slots=True)
class DealCheck:
    """What recomputing one hand's deal found: ``problems`` empty when all matched."""

    hand: int
    problems: tuple[str, ...]

    @property
    def matched(self) -> bool:
        return not self.problems


def check_deals(rules: Rules, table_id: str, hands: list[RecordedHand]) -> list[DealCheck]:
    """Every hand of a game's record recomputed from its revealed seeds: the server seed
    against its commitment, the deck against the shuffle, each seat's cards against the
    deck (across a blind nil pass between partners, and through the two-player draw), and
    the first dealer against hand 1's server seed."""
    base = sorted(INDEX[code] for code in deck_codes(rules.players, rules.deck))
    return [
        DealCheck(hand["hand"], tuple(_problems(rules, table_id, base, hand))) for hand in hands
    ]


def _problems(rules: Rules, table_id: str, base: list[int], hand: RecordedHand) -> list[str]:
    proof = hand["fairness"]
    if proof is None:
        return ["not dealt from seeds: nothing to recompute"]
    problems = []
    key = bytes.fromhex(proof["server_seed"])
    if len(key) != 32:
        problems.append("the server seed is not 32 bytes")
    if commitment(key) != proof["commitment"]:
        problems.append("the server seed does not hash to the commitment shown before the deal")
    seeds = {int(seat): value for seat, value in proof["client_seeds"].items()}
    deck = [CODES[card] for card in fair_deck(base, key, table_id, hand["hand"], seeds)]
    if deck != proof["deck"]:
        problems.append("the deck is not the one the seeds shuffle")
    dealer = hand["dealer"]
    if dealer is None or not _dealt_from(rules, deck, dealer, hand["deal"]):
        problems.append("the seats' cards are not the ones dealt from the deck")
    if hand["hand"] == 1 and dealer != first_dealer(key, table_id, rules.players):
        problems.append("the first dealer is not the one hand 1's server seed draws")
    return problems


def _dealt_from(rules: Rules, deck: list[str], dealer: int, held: list[list[str]]) -> bool:
    """Whether each seat's cards at the start of the bidding came from ``deck`` dealt by
    ``dealer``: its share (with a partner's, when a blind nil pass may have moved cards
    between them), or one card of each pair of the stock it drew from (two players)."""
    players = rules.players
    if len(held) != players:
        return False
    if players == 2:
        for seat in range(2):
            kept = held[seat]
            pairs = [deck[2 * turn : 2 * turn + 2] for turn in range(len(deck) // 2)]
            own = [pair for turn, pair in enumerate(pairs) if (dealer + 1 + turn) % 2 == seat]
            if len(kept) != len(own) or any(
                sum(card in kept for card in pair) != 1 for pair in own
            ):
                return False
        return True
    shares = [sorted(deck[(seat - dealer - 1) % players :: players]) for seat in range(players)]
    for seat in range(players):
        together = [seat]
        if rules.partnerships and players % 2 == 0:
            together.append((seat + players // 2) % players)
        if sorted(c for s in together for c in shares[s]) != sorted(
            c for s in together for c in held[s]
        ):
            return False
    return True
