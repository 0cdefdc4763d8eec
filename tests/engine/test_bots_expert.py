"""The expert bot: always legal, sees only its own view, keeps to its time budget, and
its exact endgame search agrees with a search of every line.

Its bidding and the classic complaints are in test_bot_complaints.py; its strength is
measured by bench/tournament.py (too slow for a test).
"""

from __future__ import annotations

import itertools
import random
import time
from typing import Any

import pytest

from server.engine import Game, Rules
from server.engine.bots import BOT_LEVELS, choose_action
from server.engine.bots.budget import (
    BUDGET_VARIABLE,
    MIN_SAMPLES,
    WALL_CAP,
    Deadline,
    budget_seconds,
)
from server.engine.bots.expert_bids import blind_nil_odds
from server.engine.bots.expert_endgame import Endgame
from server.engine.bots.expert_rollout import bag_debt, one_trick_less, play_out
from server.engine.bots.knowledge import seat_state
from server.engine.bots.rollout import Rollout
from server.engine.cards import SPADES, card_index, taking
from server.engine.shapes import Bid
from tests.engine.bot_games import LEGALITY_CASES, all_legal, blind_view
from tests.engine.stacking import bid_all, stacked_game
from tests.engine.timing import heap_frozen

STANDARD = Rules.preset("standard")


def test_expert_is_a_level() -> None:
    assert BOT_LEVELS == ("basic", "advanced", "expert")


@pytest.mark.parametrize(("preset", "overrides"), LEGALITY_CASES)
def test_expert_bots_always_choose_a_legal_action(preset: str, overrides: dict[str, Any]) -> None:
    all_legal(preset, overrides, "expert", 13, samples=2)


def test_choice_depends_only_on_the_view() -> None:
    """Two deals that look the same from seat 0 (its cards, the bids, the first lead)
    but differ elsewhere get the same card, with the same rng or with none."""
    hands = {0: "AH 7H 3H KD 9D 4D QC 8C 2C AS 9S 5S 3S", 3: "2H 4H 5H 6H 8H 9H TH JH QH KH"}
    games = [
        stacked_game(STANDARD, hands, dealer=2),
        stacked_game(STANDARD, {**hands, 1: "KS QS JS TS 8S 7S 6S 4S 2S JD QD AD AC"}, dealer=2),
    ]
    views = []
    for game in games:
        bid_all(game, {3: 3, 0: 4, 1: 3, 2: 3})
        game.act(3, {"type": "play", "card": "9H"})
        views.append(game.view(0))
    assert games[0].view(1)["hand"] != games[1].view(1)["hand"]
    assert views[0] == views[1]
    seeded = [choose_action(STANDARD, v, "expert", random.Random(3), samples=16) for v in views]
    unseeded = [choose_action(STANDARD, v, "expert", samples=16) for v in views]
    assert seeded[0] == seeded[1] and unseeded[0] == unseeded[1]


def test_budget_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(BUDGET_VARIABLE, raising=False)
    assert budget_seconds() == 0.150
    monkeypatch.setenv(BUDGET_VARIABLE, "40")
    assert budget_seconds() == 0.040


def test_a_decision_keeps_to_its_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a 30 ms budget the decisions of a hand stop imagining in time: their CPU
    time (never more than their wall time) stays under the budget plus one deal's
    overrun, asserted with head room for a busy machine (the decision's own CPU, as
    tests.engine.timing says)."""
    monkeypatch.setenv(BUDGET_VARIABLE, "30")
    game = Game(STANDARD, seed=5)
    rng = random.Random(5)
    spent: list[float] = []
    with heap_frozen():
        while not game.hand_results:
            seat = game.turn[0]
            view = game.view(seat)
            start = time.thread_time()
            action = choose_action(STANDARD, view, "expert", rng)
            if len(view["legal"]) > 1:
                spent.append(time.thread_time() - start)
            game.act(seat, action)
    spent.sort()
    # The 95th percentile, not the slowest: on a shared virtual machine the thread's CPU
    # clock also runs while the host holds the core (one decision of 254 ms seen in CI,
    # its neighbours 20-28 ms).
    assert spent[len(spent) // 2] < 0.030 + 0.015
    assert spent[len(spent) * 95 // 100] < 0.030 + 0.060


def test_the_budget_counts_work_not_waiting() -> None:
    """Time the thinking thread spends without a core (here asleep) does not spend the
    budget, up to the wall-time cap; the floor of deals holds whatever the clocks say."""
    budget = 0.05
    deadline = Deadline(budget, samples=None)
    time.sleep(budget * 1.5)  # longer than the budget, no CPU used
    assert deadline.more(MIN_SAMPLES, cap=300)
    assert not deadline.passed(MIN_SAMPLES)
    time.sleep(budget * WALL_CAP)  # past the wall-time cap
    assert not deadline.more(MIN_SAMPLES, cap=300)
    assert deadline.passed(MIN_SAMPLES)
    assert deadline.more(MIN_SAMPLES - 1, cap=300)
    assert not deadline.passed(MIN_SAMPLES - 1)
    busy = Deadline(0.005, samples=None)
    end = time.thread_time() + 0.01
    while time.thread_time() < end:  # the budget's worth of work, and more
        pass
    assert busy.passed(MIN_SAMPLES) and not busy.more(MIN_SAMPLES, cap=300)


def test_bag_debt_grows_with_the_square_of_the_bags() -> None:
    assert bag_debt(STANDARD, 0) == 0
    assert bag_debt(STANDARD, 5) == 25
    assert bag_debt(STANDARD, 9) == 81
    assert bag_debt(Rules.preset("standard", bags=False), 9) == 0


def every_line_value(
    sim: Rollout,
    hands: list[list[int]],
    trick: list[tuple[int, int]],
    won: list[int],
    broken: bool,
    seat: int,
) -> float:
    """The same endgame by plain minimax over every legal card (no pruning, no runs)."""
    if len(trick) == sim.n:
        winner, _ = taking(trick, sim.win_key[sim.suit[trick[0][1]]], sim.later_wins)
        won = [w + (s == winner) for s, w in enumerate(won)]
        if not hands[winner]:
            return sim.utility(tuple(won))
        trick, seat = [], winner
    hand = hands[seat]
    if trick:
        legal = [c for c in hand if sim.suit[c] == sim.suit[trick[0][1]]] or hand
    else:
        legal = [c for c in hand if broken or sim.suit[c] != SPADES] or hand
    values = []
    for card in set(legal):
        rest = [list(h) for h in hands]
        rest[seat].remove(card)
        values.append(
            every_line_value(
                sim,
                rest,
                [*trick, (seat, card)],
                won,
                broken or sim.suit[card] == SPADES,
                (seat + 1) % sim.n,
            )
        )
    return max(values) if sim.side_of[seat] == sim.my_side else min(values)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_endgame_search_agrees_with_every_line(seed: int) -> None:
    """Four tricks left in a randomly played deal with the bids 3-3-3-3, valued for
    seat 0: the alpha-beta search over runs gives the value of plain minimax."""
    game = Game(STANDARD, seed=seed)
    bid_all(game, dict.fromkeys(range(4), 3))
    rng = random.Random(seed)
    while game.view(0)["trick"] or len(game.view(0)["hand"]) > 4:
        seat = game.turn[0]
        game.act(seat, rng.choice(game.legal(seat)))
    leader = game.turn[0]
    view = game.view(0)
    state = seat_state(STANDARD, view, None)
    sim = Rollout(state, view)
    hands = [[card_index(c) for c in game.view(s)["hand"]] for s in range(4)]
    won = list(view["tricks_won"])
    broken = bool(view["spades_broken"])
    expected = every_line_value(sim, [list(h) for h in hands], [], won, broken, leader)
    assert Endgame(sim).value([list(h) for h in hands], [], won, broken, leader) == expected


def test_a_sparse_view_with_a_nil_duck_gets_a_legal_card() -> None:
    """A hand-built view without hand sizes, scores or contracts, whose finished tricks
    hold a nil's ducks (reads the look-ahead weighs its deals by): a legal card, the
    same one for the same rng."""
    view = {
        "phase": "play",
        "seat": 0,
        "turn": [0],
        "hand": ["KH", "TH", "2H", "5C", "9D"],
        "bids": [4, 0, 4, 3],
        "tricks_won": [2, 0, 0, 0],
        "trick": [{"seat": 3, "card": "5H"}, {"seat": 1, "card": "3H"}, {"seat": 2, "card": "4H"}],
        "played": [
            {"seat": s, "card": c}
            for s, c in itertools.chain(
                [(0, "AD"), (1, "8D"), (2, "3D"), (3, "4D")],
                [(0, "AC"), (1, "9C"), (2, "4C"), (3, "6C")],
            )
        ],
        "legal": [{"type": "play", "card": c} for c in ("KH", "TH", "2H")],
    }
    first = choose_action(STANDARD, view, "expert", random.Random(2), samples=12)
    assert first["card"] in ("KH", "TH", "2H")
    assert choose_action(STANDARD, view, "expert", random.Random(2), samples=12) == first


def test_one_trick_less_moves_a_trick_from_the_side_to_a_bidding_opponent() -> None:
    # Seat 0's side (0, 2) gives the trick from the seat with the most; the opponent
    # bidding nil (seat 1) is spared, so seat 3 takes it.
    assert one_trick_less((4, 0, 3, 6), [4, 0, 3, 5], [0, 2]) == (3, 0, 3, 7)
    # A nil bidder of the side that has taken tricks gives last.
    assert one_trick_less((0, 4, 3, 6), [0, 4, 3, 5], [0, 2]) == (0, 4, 2, 7)
    assert one_trick_less((1, 4, 0, 8), [0, 4, 3, 5], [0, 2]) == (0, 4, 0, 9)
    # A side without tricks has none to give.
    assert one_trick_less((0, 6, 0, 7), [0, 4, 0, 5], [0, 2]) == (0, 6, 0, 7)


def test_the_optimism_correction_costs_a_contract_made_exactly() -> None:
    """The play-outs' tricks count for a little less: a bid the side makes exactly is
    worth less once corrected (one trick less sets it), and more so the larger the
    correction."""
    game = Game(STANDARD, seed=4)
    view = game.view(0)
    while view["phase"] != "bid":
        game.act(game.turn[0], {"type": "blind_nil", "declare": False})
        view = game.view(0)
    state = seat_state(STANDARD, view, None)
    deal = [[card_index(c) for c in game.view(s)["hand"]] for s in range(4)]
    exactly = []
    for partner in range(1, 11):
        bids: list[Bid | None] = [3, 3, partner, 3]
        tricks, exact = play_out(STANDARD, view, state, deal, bids)
        if tricks[0] + tricks[2] == 3 + partner:
            exactly.append((bids, exact))
    assert exactly, "some contract of the side is made exactly"
    bids, exact = exactly[0]
    _, corrected = play_out(STANDARD, view, state, deal, bids, 0.3)
    _, more = play_out(STANDARD, view, state, deal, bids, 0.6)
    assert exact > corrected > more


def declares_blind(rules: Rules, mine: int, theirs: int, bids: list[Any] | None = None) -> bool:
    view = {**blind_view(mine, theirs, bids), "dealer": 3}
    action = choose_action(rules, view, "expert", random.Random(2), samples=60)
    return bool(action["declare"])


def test_blind_nil_when_the_imagined_deals_say_it_pays() -> None:
    """Far behind late in the game a blind nil is the better chance; well ahead it is
    not (the table would allow it: this one asks every hand); never beside a partner's
    blind nil."""
    rules = Rules.preset("standard", blind_nil=True, blind_nil_behind_by=None)
    assert declares_blind(rules, 200, 400)
    assert not declares_blind(rules, 400, 300)
    assert not declares_blind(rules, 200, 400, [None, None, "blind_nil", None])


def test_the_blind_nil_odds_say_what_the_decision_weighed() -> None:
    """`blind_nil_odds` (the decision's own weighing, which bench/investigations reads)
    counts the deals it imagined, the share of them the blind nil survived, and a gain
    that is positive far behind and negative well ahead, as the decision goes."""
    rules = Rules.preset("standard", blind_nil=True, blind_nil_behind_by=None)
    for mine, theirs, declares in ((200, 400, True), (400, 300, False)):
        view = {**blind_view(mine, theirs), "dealer": 3}
        odds = blind_nil_odds(rules, view, random.Random(2), Deadline(1.0, 60))
        assert odds.deals == 60
        assert 0.0 < odds.survived < 1.0
        assert (odds.gain > 0) is declares
