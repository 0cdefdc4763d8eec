"""The expert's bids and blind nil, each weighed by playing imagined deals out
(``expert_rollout.play_out``) within the decision's time budget.

- **Bidding** tries the advanced level's number and its neighbours (nil, and the
  number that lifts the side to 10 on 10-for-200 tables, where legal) on imagined deals
  of the other hands: the seats still to bid get the basic count of their imagined hand,
  the hand is played out by the rollout policy, and each bid is scored on the
  scoreboard, the game included. So it bids up to set opponents who would win by making
  their contract, bids safe when making its own contract wins, and takes a nil only
  when it survived the play-outs (opponents who lead low into it) often enough.
- **Blind nil** is weighed the same way (``choose_blind``): the seat's own unseen hand
  imagined among the others, each deal played out once as a blind nil and once with
  the ordinary bid, and declared when the blind nil's chance of winning the game is
  the higher on average.
- **House formats**: the imagined bids of the seats still to bid follow the hand's
  format (Whiz: nil for a hand the basic level would nil, else its spade count; Mirror:
  its spade count; Suicide: the first of a side as the basic level decides, the second
  what that leaves). Whiz's nil, and Suicide's first bidder's nil, are always weighed
  on the play-outs (not only for a hand that looks like a nil); in Suicide the number
  is weighed with the partner's forced nil, so nil is not held to ``NIL_MIN_MADE``
  there (both choices carry a nil).
"""

from __future__ import annotations

import dataclasses
import random

from server.engine.bots import advanced, basic
from server.engine.bots.budget import Deadline
from server.engine.bots.evaluation import hand_strength, nil_danger
from server.engine.bots.expert_rollout import exchange, play_out, simulate
from server.engine.bots.knowledge import Rng, SeatState, bid_numbers, seat_state
from server.engine.bots.sampling import Imagining, best_scored, deal_hidden, view_seed
from server.engine.cards import SPADES, card_code, card_order
from server.engine.rules import Rules
from server.engine.scoring import is_nil
from server.engine.shapes import Bid, BidAction, BlindNilAction, LegalAction, View

# A cap on imagined deals per bid, whatever the budget.
MAX_BID_SAMPLES = 60
# Bids tried around the advanced level's number.
BIDS_BELOW, BIDS_ABOVE = 1, 3
# A set bid may go this far over the hand's own number (the advanced level's).
SET_REACH = 2
# Nil is tried only for a hand this safe by the basic count, and chosen only if it
# survived this share of the play-outs (the play-outs' hunters are gentler than a
# table's).
NIL_TRY_DANGER = 6.0
NIL_TRY_STRENGTH = 3.0
NIL_MIN_MADE = 0.8
# The play-outs, every hand known, give the bidder's side more than a table does: this
# share of each bid's worth is the worth of one trick less for the side
# (``one_trick_less``).
TRICK_OPTIMISM = 0.3
# A blind nil that survived a play-out survives at a table this share of the time.
BLIND_NIL_SURVIVAL = 0.7


def choose_bid(
    rules: Rules, view: View, legal: list[LegalAction], rng: Rng, deadline: Deadline
) -> BidAction:
    """The legal bid whose imagined hands score best; ties go to the advanced bid."""
    state = seat_state(rules, view, rng)
    anchor = advanced.choose_bid(rules, view, legal, rng)["bid"]
    candidates = bid_candidates(rules, view, state, legal, anchor)
    if len(candidates) == 1:
        return {"type": "bid", "bid": candidates[0]}
    rng = rng or random.Random(view_seed(view))
    imagining = Imagining.of(view, state)
    totals = dict.fromkeys(candidates, 0.0)
    nil_made = 0
    count = 0
    while deadline.more(count, MAX_BID_SAMPLES):
        deal = imagining.deal(rng)
        values: dict[int, float] = {}
        made = False
        for bid in candidates:
            # A deal counts only whole (every candidate played out on it); the budget
            # may end one part way, and the decision with it.
            if deadline.passed(count):
                break
            bids = _imagined_bids(rules, view, state, deal, bid)
            tricks, values[bid] = play_out(rules, view, state, deal, bids, TRICK_OPTIMISM)
            if bid == 0:
                made = tricks[state.seat] == 0
        else:
            for bid, value in values.items():
                totals[bid] += value
            nil_made += made
            count += 1
            continue
        break
    if count == 0:  # not one whole deal within the budget: the advanced level's bid
        return {"type": "bid", "bid": anchor}
    suicide = rules.bidding == "suicide"
    if 0 in totals and len(totals) > 1 and nil_made < NIL_MIN_MADE * count and not suicide:
        del totals[0]
    chosen = best_scored(list(totals), list(totals.values()), anchor)
    floor = _set_floor(rules, view, state, anchor)
    if floor is not None and chosen < floor:
        chosen = min((n for n in candidates if n >= floor), default=chosen)
    return {"type": "bid", "bid": chosen}


def choose_blind(rules: Rules, view: View, rng: Rng, deadline: Deadline) -> BlindNilAction:
    """Blind nil when it is worth more than the ordinary bid on the same imagined deals
    (``blind_nil_odds``). Never beside a partner's blind nil. The engine asks only the
    seats the table lets bid it."""
    state = seat_state(rules, view, rng)
    if any(state.bids[s] == "blind_nil" for s in state.teammates):
        return {"type": "blind_nil", "declare": False}
    return {
        "type": "blind_nil",
        "declare": _weigh_blind(rules, view, state, rng, deadline).gain > 0,
    }


@dataclasses.dataclass(frozen=True)
class BlindNilOdds:
    """What the play-outs say of a blind nil: ``gain``, the mean of its worth minus the
    ordinary bid's (``GAME_VALUE`` units of the chance of winning the game); ``survived``,
    the share of play-outs it survived (before ``BLIND_NIL_SURVIVAL``); over ``deals``."""

    gain: float
    survived: float
    deals: int


def blind_nil_odds(rules: Rules, view: View, rng: Rng, deadline: Deadline) -> BlindNilOdds:
    """Weigh a blind nil against the ordinary bid on the same imagined deals. The seat
    has not seen its cards, so every hand is imagined, its own too. On each deal it
    plays out twice: once as a blind nil (after the pass, its most dangerous cards for
    its partner's lowest), every other seat bidding the basic count of its hand; once
    bidding that count itself. Each play-out is scored as the bids are
    (``HuntingRollout.utility``: the chance of winning the game), and a blind nil that
    survived a play-out counts as surviving only ``BLIND_NIL_SURVIVAL`` of the time, as
    a table's hunters break more nils than the play-outs' do."""
    return _weigh_blind(rules, view, seat_state(rules, view, rng), rng, deadline)


def _weigh_blind(
    rules: Rules, view: View, state: SeatState, rng: Rng, deadline: Deadline
) -> BlindNilOdds:
    rng = rng or random.Random(view_seed(view))
    seats = list(range(state.players))
    sizes = [rules.hand_size] * state.players
    unseen = list(state.unseen.elements())
    passing = rules.blind_nil_pass if rules.partnerships else 0
    gain = 0.0
    survived = 0
    count = 0
    while deadline.more(count, MAX_BID_SAMPLES):
        deal = deal_hidden(rng, unseen, seats, sizes, {}, state.order.suit)
        bids = _imagined_bids(rules, view, state, deal, None)
        _, ordinary = play_out(rules, view, state, deal, bids)
        passed = _blind_pass(state, deal, passing)
        bids = _imagined_bids(rules, view, state, passed, "blind_nil")
        sim, tricks = simulate(rules, view, state, passed, bids)
        blind = sim.utility(tricks)
        if tricks[state.seat] == 0:
            survived += 1
            failed = sim.utility(_one_trick_to(tricks, state.seat))
            blind = failed + BLIND_NIL_SURVIVAL * (blind - failed)
        gain += blind - ordinary
        count += 1
    return BlindNilOdds(gain=gain / count, survived=survived / count, deals=count)


def _blind_pass(state: SeatState, deal: list[list[int]], passing: int) -> list[list[int]]:
    """The deal after a blind nil's pass: its ``passing`` most dangerous cards (top
    spades, then the highest) to its partner, the partner's lowest side cards back."""
    if passing <= 0 or not state.teammates:
        return [list(h) for h in deal]
    return exchange(state, deal, state.seat, state.teammates[0], passing)


def _one_trick_to(tricks: tuple[int, ...], seat: int) -> tuple[int, ...]:
    """The same tricks with one moved to ``seat`` from the seat that took the most."""
    giver = max((s for s in range(len(tricks)) if s != seat), key=lambda s: (tricks[s], -s))
    moved = list(tricks)
    moved[giver] -= 1
    moved[seat] += 1
    return tuple(moved)


def _set_floor(rules: Rules, view: View, state: SeatState, anchor: int) -> int | None:
    """Bidding last against a side that wins the game by making its contract: the
    lowest bid that lifts the table past the tricks there are, so that they cannot
    make it unless we are set too (None when no such bid is within SET_REACH of the
    hand's own number, or nobody is about to win)."""
    if any(state.bids[s] is None for s in range(state.players) if s != state.seat):
        return None
    scores = view.get("scores") or []
    target = int(view.get("target_score") or rules.target_score)
    mine = state.sides.index(state.side_of(state.seat))
    threats = [
        state.need(side)
        for index, side in enumerate(state.sides)
        if index != mine
        and index < len(scores)
        and state.need(side) > 0
        and int(scores[index]["score"]) + 10 * state.need(side) >= target
    ]
    if not threats:
        return None
    others = sum(state.need(side) for i, side in enumerate(state.sides) if i != mine)
    if rules.bidding == "team":
        floor = rules.hand_size + 1 - others
    else:
        partners = sum(b for s in state.teammates if isinstance(b := state.bids[s], int))
        floor = rules.hand_size + 1 - others - partners
    return floor if floor <= anchor + SET_REACH else None


def bid_candidates(
    rules: Rules, view: View, state: SeatState, legal: list[LegalAction], anchor: int
) -> list[int]:
    numbers = set(bid_numbers(legal))
    wanted = set(range(anchor - BIDS_BELOW, anchor + BIDS_ABOVE + 1))
    ordinary = sorted(n for n in numbers if n > 0)
    if ordinary and not wanted & set(ordinary):
        # No ordinary number near the anchor is legal: a nil anchor where the side's
        # contract must reach min_team_bid, or the second partner of team bidding,
        # whose number must reach the first's. The lowest legal numbers are the
        # alternatives to weigh, not nil against 10-for-200 alone.
        wanted.update(ordinary[: BIDS_BELOW + BIDS_ABOVE])
    if rules.ten_for_two_hundred:
        partner = sum(b for s in state.teammates if isinstance(b := state.bids[s], int))
        wanted.add(10 if rules.bidding == "team" else 10 - partner)
    hand = view.get("hand") or []
    nil_hand = (
        hand_strength(hand, rules.deck, rules.players) <= NIL_TRY_STRENGTH
        and nil_danger(hand, rules.deck, rules.players) <= NIL_TRY_DANGER
    )
    if anchor == 0 or nil_hand or rules.bidding in ("whiz", "suicide"):
        wanted.add(0)
    else:
        wanted.discard(0)
    found = sorted(numbers & wanted)
    return found or [anchor]


def _imagined_bids(
    rules: Rules, view: View, state: SeatState, deal: list[list[int]], bid: Bid | None
) -> list[Bid | None]:
    """Every seat's bid: those made, this seat's ``bid``, and for the seats still to
    bid (this one too when ``bid`` is None) the basic count of their imagined hand (in
    team bidding, on top of a partner's number)."""
    bids = list(state.bids)
    bids[state.seat] = bid
    n = state.players
    dealer = view.get("dealer")
    first = ((dealer if isinstance(dealer, int) else 0) + 1) % n
    slope, intercept = basic.TRICKS_FROM_STRENGTH[n]
    order = [(first + k) % n for k in range(n)]
    for seat in order:
        if bids[seat] is not None:
            continue
        side = state.side_of(seat)
        margin = basic.BID_MARGIN_PARTNERS if len(side) > 1 else basic.BID_MARGIN_SOLO
        hand = [card_code(c) for c in deal[seat]]
        strength = hand_strength(hand, rules.deck, n)
        own = max(int(slope * strength + intercept + 0.5 - margin), 1)
        if rules.bidding in ("whiz", "mirror", "suicide"):
            bids[seat] = _format_bid(rules, deal[seat], hand, [bids[s] for s in side], own)
            continue
        if rules.bidding == "team":
            own += sum(b for s in side if s != seat and isinstance(b := bids[s], int))
        bids[seat] = max(own, rules.min_team_bid)
    return bids


def _format_bid(
    rules: Rules, cards: list[int], hand: list[str], side_bids: list[Bid | None], own: int
) -> int:
    """An imagined seat's bid under Whiz, Mirror or Suicide: the basic level's choice
    among the bids the format leaves it (``own``: its basic count; ``side_bids``: its
    side's bids so far, its own None)."""
    order = card_order(rules.deck)
    if rules.bidding != "suicide":
        spades = sum(1 for c in cards if order.suit[c] == SPADES)
        if rules.bidding == "mirror" or spades == 0:
            return spades
        weak = hand_strength(hand, rules.deck, rules.players) <= basic.NIL_MAX_STRENGTH
        safe = nil_danger(hand, rules.deck, rules.players) <= basic.NIL_MAX_DANGER
        return 0 if weak and safe else spades
    low = max(rules.min_team_bid, 1)
    made = [b for b in side_bids if b is not None]
    if not made:
        numbers = [0, low]
        return 0 if basic.suicide_nil(rules, hand, numbers) else max(own, low)
    return max(own, low) if any(is_nil(b) for b in made) else 0
