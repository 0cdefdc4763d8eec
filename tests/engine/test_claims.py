"""Claims (docs/rules.md, "Claiming the rest"): offered exactly when the seat about to lead
takes every remaining trick in every layout of the cards it has not seen, whatever the
others (its partner too) play; acting on one ends and scores the hand.

The random sweep checks the engine against a brute force written here apart from it:
every layout of the unseen cards that fits the claimant's knowledge, each solved by a
full minimax (the claimant needing every trick, every other seat against it)."""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import combinations, product
from typing import Any

import pytest

from server.engine import Game, Rules, deck_codes, suit_of, trick_winner
from tests.engine.stacking import bid_all, refused, stacked_deck

RANKS = "23456789TJQKA"

CLAIM = {"type": "claim"}


def position(
    rules: Rules,
    hands: dict[int, str],
    tricks: list[tuple[int, str]],
    leader: int,
    *,
    broken: bool = True,
) -> Game:
    """A game of ``rules`` in the middle of its first hand's play: ``hands`` the cards
    each seat still holds, ``tricks`` the finished tricks (leader, "cards in play
    order"), ``leader`` the seat about to lead. Built as a saved game is restored."""
    game = Game(rules, seed=5, dealer=rules.players - 1)
    bid_all(game, {seat: 1 for seat in range(rules.players)})
    state: Any = game.to_state()
    played = [
        ((lead + offset) % rules.players, card)
        for lead, cards in tricks
        for offset, card in enumerate(cards.split())
    ]
    assert Counter(card for cards in hands.values() for card in cards.split()) + Counter(
        card for _, card in played
    ) == Counter(deck_codes(rules.players, rules.deck))
    won = [0] * rules.players
    won[leader] = len(tricks)
    state.update(
        hands=[hands[seat].split() for seat in range(rules.players)],
        played=played,
        trick=[],
        trick_number=len(tricks),
        tricks_won=won,
        turn=leader,
        spades_broken=broken,
        last_trick=None,
        forced_lead=None,
    )
    return Game.from_state(state)


STANDARD = Rules.preset("standard")

# Nine tricks played in which every seat followed suit: no void shown. The claimant,
# seat 0, holds AS KS AH AD; the twelve other cards are the unseen ones.
FOLLOWED = [
    (0, "2C 3C 4C 5C"),
    (0, "6C 7C 8C 9C"),
    (0, "TC JC QC KC"),
    (0, "4D 5D 6D 7D"),
    (0, "8D 9D TD JD"),
    (0, "5H 6H 7H 8H"),
    (0, "9H TH JH QH"),
    (0, "2S 3S 4S 5S"),
    (0, "6S 7S 8S 9S"),
]


def followed(hands: dict[int, str]) -> Game:
    """Seat 0 to lead, four tricks left, after ``FOLLOWED``."""
    return position(STANDARD, hands, FOLLOWED, leader=0)


def test_a_claim_is_offered_when_every_card_of_the_claimant_wins_whatever_the_layout() -> None:
    # Unseen: JS TS (two trumps, lower than the claimant's three), KH (below its AH).
    game = followed({0: "AS KS QS AH", 1: "JS 2H 3H 4H", 2: "TS 2D 3D QD", 3: "KH KD AD AC"})
    assert game.legal(0)[-1] == CLAIM
    assert sorted(a["card"] for a in game.legal(0) if a["type"] == "play") == [
        "AH",
        "AS",
        "KS",
        "QS",
    ]


def test_a_claim_is_offered_to_no_one_but_the_seat_about_to_lead() -> None:
    game = followed({0: "AS KS QS AH", 1: "JS 2H 3H 4H", 2: "TS 2D 3D QD", 3: "KH KD AD AC"})
    assert all(CLAIM not in game.legal(seat) for seat in (1, 2, 3))
    game.act(0, {"type": "play", "card": "AS"})
    assert CLAIM not in game.legal(1)
    refusal = refused(game, 1, CLAIM)
    assert refusal.code == "bad_claim" and "about to lead" in str(refusal)
    refusal = refused(game, 0, CLAIM)
    assert refusal.code == "not_your_turn"


def test_more_trumps_out_than_the_claimant_holds_can_take_a_trick() -> None:
    # QS JS TS out against AS KS: one seat holding all three keeps a trump.
    game = followed({0: "AS KS AH AD", 1: "QS 2H 3H 4H", 2: "JS 2D 3D QD", 3: "TS KD KH AC"})
    assert CLAIM not in game.legal(0)
    refusal = refused(game, 0, CLAIM)
    assert refusal.code == "bad_claim" and "not seen" in str(refusal)


def test_one_unseen_card_decides_a_claim() -> None:
    # The AH is unseen: it takes the claimant's KH.
    game = followed({0: "AS KS QS KH", 1: "JS 2H 3H 4H", 2: "TS 2D 3D QD", 3: "AH KD AD AC"})
    assert CLAIM not in game.legal(0)
    # The same hand with the AH played in an earlier trick (seen), the QH unplayed.
    tricks = [*FOLLOWED[:6], (0, "9H TH JH AH"), *FOLLOWED[7:]]
    hands = {0: "AS KS QS KH", 1: "JS 2H 3H 4H", 2: "TS 2D 3D QD", 3: "QH KD AD AC"}
    assert CLAIM in position(STANDARD, hands, tricks, leader=0).legal(0)


# Nine tricks led by seat 0 in which seat 1 shows itself void in clubs and diamonds,
# seat 2 in clubs and hearts, seat 3 in diamonds and hearts.
VOIDS_SHOWN = [
    (0, "2S 3S 4S 5S"),
    (0, "6S 7S 8S 9S"),
    (0, "2C 2H 2D 3C"),
    (0, "4C 3H 3D 5C"),
    (0, "6C 4H 4D 7C"),
    (0, "5D 5H 6D 8C"),
    (0, "7D 6H 8D 9C"),
    (0, "7H 8H 9D TC"),
    (0, "9H TH TD AC"),
]


def test_a_shown_void_decides_a_claim() -> None:
    # AS KS AH AD against QS JS TS: one seat holding all three out-trumps the claimant.
    # With the voids shown each seat holds the three cards of its one suit left and a
    # single spade, and the claim holds.
    hands = {0: "AS KS AH AD", 1: "QS KH QH JH", 2: "JS KD QD JD", 3: "TS KC QC JC"}
    assert CLAIM in position(STANDARD, hands, VOIDS_SHOWN, leader=0).legal(0)
    # The same cards unseen, every seat having followed suit: no claim.
    game = followed({0: "AS KS AH AD", 1: "QS 2H 3H 4H", 2: "JS 2D 3D QD", 3: "TS KD KH AC"})
    assert CLAIM not in game.legal(0)


def test_spades_not_broken_the_claimant_leads_its_other_suits_first_and_may_be_ruffed() -> None:
    # Spades never led: the claimant must lead its AH first, and a seat out of hearts
    # with a spade ruffs it.
    tricks = [
        (0, "2C 3C 4C 5C"),
        (0, "6C 7C 8C 9C"),
        (0, "TC JC QC KC"),
        (0, "2D 3D 4D 5D"),
        (0, "6D 7D 8D 9D"),
        (0, "TD JD QD KD"),
        (0, "2H 3H 4H 5H"),
        (0, "6H 7H 8H 9H"),
        (0, "TH JH QH KH"),
    ]
    hands = {0: "AS KS QS AH", 1: "2S 3S 4S 5S", 2: "6S 7S 8S 9S", 3: "TS JS AC AD"}
    assert CLAIM not in position(STANDARD, hands, tricks, leader=0, broken=False).legal(0)
    # Spades broken, it would draw trumps first: but ten spades are out, and a seat
    # holding four of them keeps one after its three.
    assert CLAIM not in position(STANDARD, hands, tricks, leader=0, broken=True).legal(0)
    # Holding only spades it may lead them, the four highest: the claim holds.
    hands = {0: "AS KS QS JS", 1: "2S 3S 4S 5S", 2: "6S 7S 8S 9S", 3: "TS AH AC AD"}
    assert CLAIM in position(STANDARD, hands, tricks, leader=0, broken=False).legal(0)


def test_a_claim_ends_the_hand_with_every_trick_to_the_claimant() -> None:
    game = followed({0: "AS KS QS AH", 1: "JS 2H 3H 4H", 2: "TS 2D 3D QD", 3: "KH KD AD AC"})
    won_before = list(game.tricks_won)
    events = game.act(0, CLAIM)
    assert [event["type"] for event in events] == ["claim", "hand_scored", "hand_start"]
    assert events[0] == {"type": "claim", "seat": 0, "cards": ["AH", "QS", "KS", "AS"], "tricks": 4}
    result = game.hand_results[-1]
    assert result["claim"] == {"seat": 0, "cards": ["AH", "QS", "KS", "AS"], "tricks": 4}
    assert result["tricks"] == [won_before[0] + 4, 0, 0, 0]
    assert game.hand_number == 2 and game.phase == "bid"
    assert game.view(2)["last_hand"] == result
    assert game.log[-1] == (0, CLAIM)
    plays = game.plays_of(1)
    assert plays is not None and len(plays) == 9 and plays[-1]["winner"] == 0


def test_a_claimed_game_replays_from_its_log_and_survives_a_restore() -> None:
    game = followed({0: "AS KS QS AH", 1: "JS 2H 3H 4H", 2: "TS 2D 3D QD", 3: "KH KD AD AC"})
    state = game.to_state()
    game.act(0, CLAIM)
    restored = Game.from_state(state)
    restored.act(0, CLAIM)
    assert restored.to_state() == game.to_state()
    again = Game.from_state(game.to_state())
    assert again.hand_results[-1]["claim"]["tricks"] == 4


# ------------------------------------------------------------------ the brute force


def brute_force(game: Game, seat: int) -> bool:
    """Whether ``seat``, about to lead, takes every remaining trick in every layout of
    the cards it has not seen, each layout solved by minimax."""
    known = claimant_knowledge(game, seat)
    solver = Solver(game.rules, known.closed, known.hand)
    return all(
        solver.wins_all(layout)
        for layout in layouts(
            known.pool,
            known.others,
            len(known.hand),
            known.voids,
            known.sure,
            known.discards,
            game.rules.deck,
        )
    )


def sampled(game: Game, seat: int, rng: random.Random, count: int) -> bool:
    """``brute_force`` on ``count`` random layouts only (drawn by dealing the unseen
    cards at random and keeping the deals that fit)."""
    known = claimant_knowledge(game, seat)
    solver = Solver(game.rules, known.closed, known.hand)
    size = len(known.hand)
    free = list((known.pool - _sure_of(known.others, known.sure)).elements())
    for _ in range(count):
        layout = _random_layout(known, free, size, game.rules.deck, rng)
        if layout is not None and not solver.wins_all(layout):
            return False
    return True


def _random_layout(
    known: Known, free: list[str], size: int, deck: str, rng: random.Random
) -> tuple[tuple[str, ...], ...] | None:
    """The unseen cards dealt at random, each seat taking the first cards of a shuffle
    that it may hold (None when the deal gets stuck)."""
    rng.shuffle(free)
    left = list(free)
    layout = []
    for other in known.others:
        need = size - sum(known.sure[other].values())
        cards = [card for card in left if suit_of(card, deck) not in known.voids[other]][:need]
        if len(cards) < need:
            return None
        for card in cards:
            left.remove(card)
        layout.append(tuple(sorted([*cards, *known.sure[other].elements()])))
    if left and not known.discards:
        return None
    return tuple(layout)


@dataclass
class Known:
    """What the claimant knows, as the brute force reads it."""

    hand: tuple[str, ...]
    pool: Counter[str]
    others: list[int]
    voids: dict[int, set[str]]
    sure: dict[int, Counter[str]]
    discards: bool
    closed: bool


def claimant_knowledge(game: Game, seat: int) -> Known:
    """The claimant's knowledge: its hand, this hand's finished tricks and the voids
    they show, the cards it passed, the cards it saw and discarded in a two-player
    draw."""
    rules = game.rules
    view = game.view(seat)
    n = rules.players
    hand = tuple(sorted(view["hand"] or []))
    played = [(play["seat"], play["card"]) for play in view["played"]]
    state = game.to_state()
    unseen = Counter(deck_codes(n, rules.deck))
    unseen.subtract(hand)
    unseen.subtract(card for _, card in played)
    if n == 2:
        # Each of the seat's turns showed it the stock's top card: kept, or discarded.
        for turn in range(len(state["stock"]) // 2):
            top = state["stock"][2 * turn]
            if (state["dealer"] + 1 + turn) % 2 == seat and top not in state["deal"][seat]:
                unseen[top] -= 1
    others = [other for other in range(n) if other != seat]
    voids: dict[int, set[str]] = {other: set() for other in others}
    for start in range(0, len(played), n):
        trick = played[start : start + n]
        club_trick = start == 0 and rules.first_lead == "lowest_club"
        led = "C" if club_trick else suit_of(trick[0][1], rules.deck)
        for player, card in trick if club_trick else trick[1:]:
            if suit_of(card, rules.deck) != led and player != seat:
                voids[player].add(led)
    sure: dict[int, Counter[str]] = {other: Counter() for other in others}
    partner = next(
        (other for side in rules.sides if seat in side for other in side if other != seat), None
    )
    for giver, cards in state["passes"]:
        if giver == seat and partner is not None:
            given = Counter(cards)
            given.subtract(card for player, card in played if player == partner)
            sure[partner] = +given
    return Known(
        hand=hand,
        pool=+unseen,
        others=others,
        voids=voids,
        sure=sure,
        discards=n == 2,
        closed=rules.spades_broken_to_lead and not view["spades_broken"],
    )


def layouts(
    pool: Counter[str],
    seats: list[int],
    size: int,
    voids: dict[int, set[str]],
    sure: dict[int, Counter[str]],
    discards: bool,
    deck: str,
) -> Iterator[tuple[tuple[str, ...], ...]]:
    """Every way to give each of ``seats`` ``size`` cards of ``pool`` (each once; the
    rest discarded when ``discards``), its ``sure`` cards among them, none of a suit it
    is void in."""
    pool = pool - Counter()
    for seat in seats:
        pool -= sure[seat]
    if not seats:
        if discards or not +pool:
            yield ()
        return
    seat, rest = seats[0], seats[1:]
    need = size - sum(sure[seat].values())
    allowed = sorted(
        card
        for card, count in pool.items()
        for _ in range(count)
        if suit_of(card, deck) not in voids[seat]
    )
    for chosen in dict.fromkeys(combinations(allowed, need)):
        left = pool - Counter(chosen)
        for sub in layouts(left + _sure_of(rest, sure), rest, size, voids, sure, discards, deck):
            yield (tuple(sorted([*chosen, *sure[seat].elements()])), *sub)


def _sure_of(seats: list[int], sure: dict[int, Counter[str]]) -> Counter[str]:
    total: Counter[str] = Counter()
    for seat in seats:
        total += sure[seat]
    return total


class Solver:
    """Minimax over one layout: can the claimant, leading, take every trick?"""

    def __init__(self, rules: Rules, closed: bool, mine: tuple[str, ...]) -> None:
        self.rules = rules
        self.closed = closed
        self.mine = mine
        self.suit = {
            code: suit_of(code, rules.deck) for code in set(deck_codes(rules.players, rules.deck))
        }
        # Positions met in any layout (a position is the same whatever layout led to it).
        self._memo: dict[Any, bool] = {}
        self._pairs: dict[tuple[str, str], bool] = {}

    def wins_all(self, others: tuple[tuple[str, ...], ...]) -> bool:
        return self._wins(self.mine, others, not self.closed)

    def _wins(
        self, mine: tuple[str, ...], others: tuple[tuple[str, ...], ...], broken: bool
    ) -> bool:
        if not mine:
            return True
        # Only the claimant leads: which other seat holds which hand does not matter.
        others = tuple(sorted(others))
        key = (mine, others, broken)
        known = self._memo.get(key)
        if known is not None:
            return known
        suit = self.suit
        leads = [c for c in mine if broken or suit[c] != "S"] or list(mine)
        answer = False
        for lead in dict.fromkeys(leads):
            led = suit[lead]
            replies = [
                dict.fromkeys([c for c in hand if suit[c] == led] or hand) for hand in others
            ]
            # A reply beating the lead takes the trick from the claimant whatever the
            # other replies are (the highest card takes it).
            if any(not self._holds_off(lead, card) for reply in replies for card in reply):
                continue
            if all(
                self._wins(
                    _without(mine, lead),
                    tuple(_without(hand, card) for hand, card in zip(others, reply, strict=True)),
                    broken or led == "S",
                )
                for reply in product(*replies)
            ):
                answer = True
                break
        self._memo[key] = answer
        return answer

    def _holds_off(self, lead: str, card: str) -> bool:
        """Whether the lead still takes the trick after ``card`` is played to it."""
        known = self._pairs.get((lead, card))
        if known is None:
            rules = self.rules
            known = trick_winner([lead, card], rules.deck, rules.duplicate_later_wins) == 0
            self._pairs[lead, card] = known
        return known


def _without(hand: tuple[str, ...], card: str) -> tuple[str, ...]:
    index = hand.index(card)
    return hand[:index] + hand[index + 1 :]


# ------------------------------------------------------------------ the random sweep

SWEEP_RULES = [
    ("standard", {}),
    ("standard", {"deck": "jokers"}),
    ("standard", {"deck": "jokers_deuces"}),
    ("standard", {"spades_broken_to_lead": False}),
    ("standard", {"blind_nil_behind_by": None, "blind_nil": True}),
    ("cutthroat", {}),
    ("cutthroat", {"deck": "jokers"}),
    ("two_player", {}),
    ("six_player", {}),
    ("six_player", {"duplicate_later_wins": False}),
    # The nil pass (every Suicide hand has one): the cards a seat passed stay known.
    ("suicide", {"nil_pass": 3, "lose_score": None, "target_score": 5000}),
]


def random_leads(
    rules: Rules, rng: random.Random, hands: int, strong: bool = False
) -> Iterator[tuple[Game, int]]:
    """Random games: every position where a seat is about to lead a trick that is not
    the hand's first, for ``hands`` hands. With ``strong`` each hand gives one seat,
    at random, mostly the deck's best cards (so that claims come early)."""
    dealer = rng.randrange(rules.players)
    decks = [strong_deck(rules, rng, (dealer + k) % rules.players) for k in range(hands)]
    game = Game(rules, seed=rng.getrandbits(32), dealer=dealer, decks=decks if strong else None)
    while game.phase != "over" and game.hand_number <= hands:
        seat = game.turn[0]
        legal = game.legal(seat)
        if game.phase == "play" and not game.trick and game.played:
            yield game, seat
        choices = [action for action in legal if action["type"] != "claim"]
        game.act(seat, rng.choice(choices))


def strong_deck(rules: Rules, rng: random.Random, dealer: int) -> list[str]:
    """A deck (in deal order, ``dealer`` dealing) giving a random seat its cards from
    the deck's best (trumps and high cards), the others the rest."""
    codes = deck_codes(rules.players, rules.deck)
    strength = {code: power for power, code in enumerate(_ranked(rules))}
    best = sorted(codes, key=lambda code: -strength[code])
    size = rules.hand_size
    chosen = rng.sample(best[: size + size // 2], size)
    return stacked_deck(rules, {rng.randrange(rules.players): " ".join(chosen)}, dealer)


def _ranked(rules: Rules) -> list[str]:
    """Every card code of the deck, weakest first: side cards by rank, then trumps."""
    codes = sorted(set(deck_codes(rules.players, rules.deck)))
    side = sorted(
        (c for c in codes if suit_of(c, rules.deck) != "S"), key=lambda c: RANKS.index(c[0])
    )
    trumps = [c for c in codes if suit_of(c, rules.deck) == "S"]
    trumps.sort(key=lambda c: _trump_power(c, rules.deck))
    return side + trumps


def _trump_power(code: str, deck: str) -> int:
    top = {"BJ": 20, "LJ": 19}
    if deck == "jokers_deuces":
        top |= {"2D": 18, "2S": 17}
    return top[code] if code in top else RANKS.index(code[0])


def _rules(preset: str, overrides: dict[str, Any]) -> Rules:
    return Rules.model_validate({**Rules.preset(preset).model_dump(), **overrides})


@pytest.mark.parametrize(("preset", "overrides"), SWEEP_RULES)
def test_with_four_tricks_or_fewer_left_a_claim_is_offered_exactly_when_it_holds(
    preset: str, overrides: dict[str, Any]
) -> None:
    rules = _rules(preset, overrides)
    rng = random.Random(f"claims:{preset}:{sorted(overrides.items())}")
    # Six players: five other hands make the layouts many; two tricks left at most.
    most = 2 if rules.players == 6 else 4
    checked = held = 0
    # Random deals, and (but for two players, who draw their cards) deals giving one
    # seat the best cards, where claims come often.
    for strong in (False, True) if rules.players != 2 else (False,):
        for game, seat in random_leads(rules, rng, hands=15, strong=strong):
            left = rules.hand_size - len(game.played) // rules.players
            if left > most:
                continue
            offered = {"type": "claim"} in game.legal(seat)
            assert offered == brute_force(game, seat), (game.to_state(), seat)
            checked += 1
            held += offered
    assert checked >= 40 and held >= 5 and checked - held >= 5, (checked, held)


@pytest.mark.parametrize(("preset", "overrides"), SWEEP_RULES[:4] + SWEEP_RULES[5:7])
def test_with_more_tricks_left_a_claim_is_never_offered_when_it_does_not_hold(
    preset: str, overrides: dict[str, Any]
) -> None:
    rules = _rules(preset, overrides)
    rng = random.Random(f"claims-early:{preset}:{sorted(overrides.items())}")
    offered = 0
    for game, seat in random_leads(rules, rng, hands=12, strong=True):
        left = rules.hand_size - len(game.played) // rules.players
        if left == 5 and {"type": "claim"} in game.legal(seat):
            assert sampled(game, seat, rng, count=40), (game.to_state(), seat)
            offered += 1
    assert offered >= 1


@pytest.mark.parametrize(("preset", "overrides"), SWEEP_RULES)
def test_what_a_hand_remembers_for_claims_changes_no_offer(
    preset: str, overrides: dict[str, Any]
) -> None:
    # The engine remembers, through a hand, each suit's best card still held, to refuse
    # most claims at once. At every lead of random games (strong hands too, where claims
    # come early), the offer is the same as a game restored there, remembering nothing.
    rules = _rules(preset, overrides)
    rng = random.Random(f"claims-memo:{preset}:{sorted(overrides.items())}")
    checked = held = 0
    for strong in (False, True) if rules.players != 2 else (False,):
        for game, seat in random_leads(rules, rng, hands=15, strong=strong):
            offered = CLAIM in game.legal(seat)
            assert offered == (CLAIM in Game.from_state(game.to_state()).legal(seat)), (
                game.to_state(),
                seat,
            )
            checked += 1
            held += offered
    assert checked >= 150 and held >= 3, (checked, held)


def test_deciding_a_claim_is_fast() -> None:
    # legal() at the start of a trick, the claim worked out afresh: well under a
    # millisecond on average (tens of microseconds here), with strong hands too.
    rng = random.Random("claims:timing")
    total, count = 0.0, 0
    for strong in (False, True):
        for game, seat in random_leads(STANDARD, rng, hands=10, strong=strong):
            fresh = Game.from_state(game.to_state())
            started = time.perf_counter()
            fresh.legal(seat)
            total += time.perf_counter() - started
            count += 1
    assert total / count < 0.001, total / count


def test_the_offer_leaks_nothing_it_is_the_same_whatever_the_others_hold() -> None:
    # The same claimant's hand and the same public play, the twelve other cards dealt
    # in different ways among the other seats: the offer never differs.
    rng = random.Random("claims:leak")
    for mine in ("AS KS QS AH", "AS KS AH AD", "AS KS QS KH"):
        rest = sorted(
            (Counter(deck_codes(4, "standard")) - Counter(mine.split()))
            - Counter(card for _, cards in FOLLOWED for card in cards.split())
        )
        offers = set()
        for _ in range(12):
            rng.shuffle(rest)
            hands = {
                0: mine,
                **{seat: " ".join(rest[4 * (seat - 1) : 4 * seat]) for seat in (1, 2, 3)},
            }
            offers.add(CLAIM in followed(hands).legal(0))
        assert len(offers) == 1, mine
