"""The expert level: every bid and card chosen by simulating the hand over imagined deals,
within a time budget per decision.

- **Card play** (here) is the advanced look-ahead with more of what is seen put into the
  imagined deals: besides voids and bids, a nil bidder that ducked under a card holds
  nothing between its card and the winner, a seat that followed low under an
  opponent's winning card, last of its side, holds nothing that beats it, and a low
  card dropped on a partner's lead says it holds no honour there (deals that break a
  read count for less). Once few tricks are left each imagined deal is solved exactly
  (``expert_endgame.py``) instead of played out by the policy.
- **Bids and blind nil** are weighed on play-outs of imagined deals (``expert_bids.py``).
- **Play-outs** (``expert_rollout.HuntingRollout``) are the advanced level's, with nil
  hunters and bags as a debt growing with the square of the count
  (``expert_rollout.py``).
- **Work**: a decision imagines deals until it has spent nearly ``budget`` seconds of
  its own CPU time (``SPADES_BOT_BUDGET_MS`` milliseconds by default, 150), so a busy
  machine, which gives the thinking thread less of each second, slows the answer but
  does not weaken it; the wall clock only caps it, and a floor of deals is imagined
  whatever either clock says (``server.engine.bots.budget``). Or exactly ``samples`` deals
  when the caller fixes them (then the answer does not depend on any clock).

The pass and the draw are the advanced level's.
"""

from __future__ import annotations

import random

from server.engine.bots import advanced, basic
from server.engine.bots.budget import Deadline, budget_seconds
from server.engine.bots.expert_bids import choose_bid, choose_blind
from server.engine.bots.expert_endgame import Endgame, SearchTooBig
from server.engine.bots.expert_rollout import HuntingRollout
from server.engine.bots.knowledge import (
    CardChoice,
    Rng,
    SeatState,
    first_action,
    seat_state,
)
from server.engine.bots.rollout import Rollout, suit_tops
from server.engine.bots.sampling import Imagining, best_scored, view_seed
from server.engine.cards import SPADES, card_index
from server.engine.rules import Rules
from server.engine.shapes import Action, LegalAction, PlayAction, View

# A cap on imagined deals per card, whatever the budget.
MAX_PLAY_SAMPLES = 300
# Solve each imagined deal exactly once this many tricks are left, by table size.
EXACT_TRICKS = {2: 5, 3: 4, 4: 4, 6: 2}
# How much less an imagined deal counts for each read of the play it contradicts.
NIL_DUCK_READ = 0.15
CANNOT_BEAT_READ = 0.4
NO_HONOUR_READ = 0.6
# A low card: 7 or lower (power 5); an honour: queen or higher (power 10).
LOW_POWER = 5
HONOUR_POWER = 10


def choose(
    rules: Rules,
    view: View,
    legal: list[LegalAction],
    rng: Rng,
    samples: int | None = None,
    budget: float | None = None,
) -> Action:
    """The expert's action for a view with more than one legal action."""
    phase = str(view.get("phase"))
    deadline = Deadline(budget_seconds() if budget is None else budget, samples)
    if phase == "play":
        return choose_play(rules, view, legal, rng, deadline)
    if phase == "bid":
        return choose_bid(rules, view, legal, rng, deadline)
    if phase == "blind":
        return choose_blind(rules, view, rng, deadline)
    decide = advanced.DECISIONS.get(phase)
    return first_action(legal) if decide is None else decide(rules, view, legal, rng)


# Card play: imagined deals weighted by what the play has shown, solved exactly at the end.


def choose_play(
    rules: Rules, view: View, legal: list[LegalAction], rng: Rng, deadline: Deadline
) -> PlayAction:
    """The distinct legal card whose imagined deals score best; ties go to the basic
    level's card."""
    state = seat_state(rules, view, rng)
    if not state.played and rules.first_lead == "lowest_club":
        return basic.choose_play(rules, view, legal, rng)
    choice = CardChoice.of(state, legal)
    candidates = choice.candidates
    if len(candidates) == 1:
        return choice.action(candidates[0])
    basic_card = card_index(basic.choose_play(rules, view, legal, rng)["card"])
    basic_group = next(c for c in candidates if state.same_group(c, basic_card))
    rng = rng or random.Random(view_seed(view))
    imagining = Imagining.of(view, state)
    reads = _reads(state)
    sim = HuntingRollout(state, view)
    exact = len(state.hand) <= EXACT_TRICKS.get(rules.players, 0)
    solver = Endgame(sim)
    totals = [0.0] * len(candidates)
    count = 0
    while deadline.more(count, MAX_PLAY_SAMPLES):
        deal = imagining.deal(rng)
        weight = _likelihood(state.order.suit, state.order.power, deal, reads)
        for i, card in enumerate(candidates):
            totals[i] += weight * _card_value(state, sim, solver, deal, card, exact)
        count += 1
    chosen = best_scored(candidates, totals, basic_group)
    return choice.action(chosen)


def _card_value(
    state: SeatState, sim: Rollout, solver: Endgame, deal: list[list[int]], card: int, exact: bool
) -> float:
    hands = [list(h) for h in deal]
    hands[state.seat].remove(card)
    trick = [*state.trick, (state.seat, card)]
    broken = sim.broken or state.order.suit[card] == SPADES
    next_seat = (state.seat + 1) % state.players
    if exact:
        try:
            return solver.value(hands, trick, list(state.tricks_won), broken, next_seat)
        except SearchTooBig:
            hands = [list(h) for h in deal]
            hands[state.seat].remove(card)
    tops = suit_tops(state.order, hands)
    tricks = sim.rollout(hands, trick, list(state.tricks_won), broken, next_seat, tops)
    return sim.utility(tricks)


# A read: (seat, suit, low, high, weight): the seat most likely holds no card of the suit
# with a power from low to high; a deal where it does counts ``weight`` times.
Read = tuple[int, int, int, int, float]


def _reads(state: SeatState) -> list[Read]:
    """What the finished tricks (and the one on the table) say about the hidden hands."""
    reads: list[Read] = []
    order = state.order
    n = state.players
    plays = state.played + state.trick
    for start in range(0, len(plays), n):
        cards = plays[start : start + n]
        led = order.suit[cards[0][1]]
        if start == 0 and state.rules.first_lead == "lowest_club":
            continue  # the first trick's cards are forced
        for position in range(1, len(cards)):
            seat, card = cards[position]
            if seat == state.seat or order.suit[card] != led:
                continue
            reads.extend(_reads_of_follow(state, cards[:position], seat, card, led))
    return reads


def _reads_of_follow(
    state: SeatState, before: list[tuple[int, int]], seat: int, card: int, led: int
) -> list[Read]:
    order = state.order
    keys = order.win_key[led]
    winner, best = max(before, key=lambda play: keys[play[1]])
    power = order.power[card]
    if keys[card] > keys[best]:
        return []
    top = order.power[best] if order.suit[best] == led else 99
    if state.is_nil(seat):
        # A clean nil ducks with its highest card under the winner: none lies between.
        return [(seat, led, power + 1, top - 1, NIL_DUCK_READ)]
    side = state.side_of(seat)
    if winner in side:
        if before[0][0] in side and power <= LOW_POWER:
            return [(seat, led, HONOUR_POWER, 99, NO_HONOUR_READ)]
        return []
    partners_after = any(s in side for s in _seats_after_in_trick(state, before[0][0], len(before)))
    if not partners_after and order.suit[best] == led:
        return [(seat, led, top + 1, 99, CANNOT_BEAT_READ)]
    return []


def _seats_after_in_trick(state: SeatState, leader: int, played: int) -> list[int]:
    n = state.players
    return [(leader + k) % n for k in range(played + 1, n)]


def _likelihood(
    suit: list[int], power: list[int], deal: list[list[int]], reads: list[Read]
) -> float:
    weight = 1.0
    for seat, read_suit, low, high, factor in reads:
        if any(suit[c] == read_suit and low <= power[c] <= high for c in deal[seat]):
            weight *= factor
    return weight
