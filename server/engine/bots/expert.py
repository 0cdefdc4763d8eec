"""The expert level: every bid and card chosen by simulating the hand over imagined deals,
within a time budget per decision.

- **Bidding** tries the advanced level's number and its neighbours (nil, and the
  number that lifts the side to 10 on 10-for-200 tables, where legal) on imagined deals
  of the other hands: the seats still to bid get the basic count of their imagined hand,
  the hand is played out by the rollout policy, and each bid is scored on the
  scoreboard, the game included. So it bids up to set opponents who would win by making
  their contract, bids safe when making its own contract wins, and takes a nil only
  when it survived the play-outs (opponents who lead low into it) often enough.
- **Card play** is the advanced look-ahead with more of what is seen put into the
  imagined deals: besides voids and bids, a nil bidder that ducked under a card holds
  nothing between its card and the winner, a seat that followed low under an
  opponent's winning card, last of its side, holds nothing that beats it, and a low
  card dropped on a partner's lead says it holds no honour there (deals that break a
  read count for less). Once few tricks are left each imagined deal is solved exactly
  (``expert_endgame.py``) instead of played out by the policy.
- **Play-outs** (``HuntingRollout``) are the advanced level's, with two changes: a seat
  in front of an opposing nil follows low, as a table's nil hunters do, and bags are a
  debt growing with the square of the count, so the bag that reaches the limit costs
  nearly the whole penalty while early bags are cheap.
- **Work**: a decision imagines deals until it has spent nearly ``budget`` seconds of
  its own CPU time (``SPADES_BOT_BUDGET_MS`` milliseconds by default, 150), so a busy
  machine, which gives the thinking thread less of each second, slows the answer but
  does not weaken it; the wall clock only caps it, and a floor of deals is imagined
  whatever either clock says (``server.engine.bots.budget``). Or exactly ``samples`` deals
  when the caller fixes them (then the answer does not depend on any clock).

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
  there (both choices carry a nil). With ``nil_pass``, each play-out starts after the
  nil pass of every side with one nil, made as the basic level makes it.

The pass and the draw are the advanced level's.
"""

from __future__ import annotations

import dataclasses
import math
import random

from server.engine.bots import advanced, basic
from server.engine.bots.budget import Deadline, budget_seconds
from server.engine.bots.evaluation import hand_strength, nil_danger
from server.engine.bots.expert_endgame import Endgame, SearchTooBig
from server.engine.bots.knowledge import (
    Rng,
    SeatState,
    bid_numbers,
    first_action,
    play_actions,
    seat_state,
)
from server.engine.bots.rollout import GAME_VALUE, Rollout, suit_tops
from server.engine.bots.sampling import (
    deal_hidden,
    hand_sizes,
    holding_weights,
    strong_cards,
    view_seed,
)
from server.engine.cards import (
    CLUBS,
    SPADES,
    card_code,
    card_index,
    card_order,
    counted_led,
    taking,
)
from server.engine.rules import Rules
from server.engine.scoring import game_winner, is_nil, nil_pass_sides, score_sides
from server.engine.shapes import (
    Action,
    Bid,
    BidAction,
    BlindNilAction,
    LegalAction,
    PlayAction,
    View,
)

# Caps on imagined deals, whatever the budget.
MAX_PLAY_SAMPLES = 300
MAX_BID_SAMPLES = 60
# Solve each imagined deal exactly once this many tricks are left, by table size.
EXACT_TRICKS = {2: 5, 3: 4, 4: 4, 6: 2}
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
# The scoreboard as a race (``win_chance``): what a side's score grows by in a hand, and
# the spread of one hand's change in the lead. Rough: bot games gain 35-45 a hand with a
# spread near 100, but these larger figures are the ones the tournaments were played with.
HAND_GAIN = 60.0
HAND_SPREAD = 120.0
# How much less an imagined deal counts for each read of the play it contradicts.
NIL_DUCK_READ = 0.15
CANNOT_BEAT_READ = 0.4
NO_HONOUR_READ = 0.6
# A low card: 7 or lower (power 5); an honour: queen or higher (power 10).
LOW_POWER = 5
HONOUR_POWER = 10


class HuntingRollout(Rollout):
    """The rollout policy, with opponents that hunt a nil as a table's do: a seat with a
    clean opposing nil still to play in the trick follows with its lowest card (the
    plain policy would overtake its own partner and let the nil off)."""

    def choose(
        self,
        seat: int,
        hand: list[int],
        trick: list[tuple[int, int]],
        tricks_won: list[int],
        broken: bool,
        tops: list[list[int]],
    ) -> int:
        if trick:
            led = self.suit[trick[0][1]]
            first = self.first_trick_rules and not any(tricks_won)
            cards = self.legal(hand, trick, tricks_won, broken) if first else hand
            following = [c for c in cards if self.suit[c] == led]
            if following and self._nil_still_to_play(seat, len(trick), tricks_won):
                return min(following, key=self.power.__getitem__)
        return super().choose(seat, hand, trick, tricks_won, broken, tops)

    def utility(self, tricks: tuple[int, ...]) -> float:
        """What a hand ending with these tricks is worth to the bot's side: a hand that
        ends the game is the game (``GAME_VALUE``, won or lost); any other is worth the
        chance of winning from the scores it leaves (``win_chance``), on the same scale.
        Each side's score counts its bags as a debt growing with the square of the count
        (``bag_debt``): early bags are cheap, the one that reaches the limit costs nearly
        the whole penalty, as a player near the limit feels it.

        Far from the target the chance moves in step with the lead, so this ranks hands
        as points would. Near it, it does not: 440 against 10 wins almost surely, so a
        10-for-200 gamble to end the game at once is worth little, and a set bid against
        opponents about to win is worth much."""
        cached = self._utilities.get(tricks)
        if cached is not None:
            return cached
        rules = self.rules
        after = score_sides(rules, self.bids, tricks, self.scores)
        winner = game_winner(rules, after)
        if winner is not None:
            value = float(GAME_VALUE if winner == self.my_side else -GAME_VALUE)
        else:
            worth = [side["score"] - bag_debt(rules, side["bags"]) for side in after]
            others = [w for i, w in enumerate(worth) if i != self.my_side]
            lead = worth[self.my_side] - (sum(others) / len(others) if others else 0.0)
            to_go = rules.target_score - max(side["score"] for side in after)
            value = GAME_VALUE * (2 * win_chance(lead, to_go) - 1)
        self._utilities[tricks] = value
        return value

    def _nil_still_to_play(self, seat: int, played: int, tricks_won: list[int]) -> bool:
        mine = self.side_of[seat]
        for k in range(1, self.n - played):
            other = (seat + k) % self.n
            if self.side_of[other] != mine and self.nil_bid[other] and not tricks_won[other]:
                return True
        return False


def win_chance(lead: float, to_go: float) -> float:
    """The chance of winning with ``lead`` points over the others when the leader is
    ``to_go`` points from the target: the lead as a random walk, ``HAND_SPREAD`` a hand,
    over the hands it takes the leader to get there at ``HAND_GAIN`` a hand (one at
    least)."""
    hands = max(to_go / HAND_GAIN, 1.0)
    return 0.5 * (1.0 + math.erf(lead / (HAND_SPREAD * math.sqrt(2.0 * hands))))


def bag_debt(rules: Rules, bags: int) -> float:
    """What holding ``bags`` is expected to cost later: the penalty times the square of
    the share of the limit they fill."""
    if not rules.bags or not rules.bag_limit:
        return 0.0
    return float(rules.bag_penalty * (bags / rules.bag_limit) ** 2)


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


# ---------------------------------------------------------------------------------------
# Bidding by simulation.


def choose_bid(
    rules: Rules, view: View, legal: list[LegalAction], rng: Rng, deadline: Deadline
) -> BidAction:
    """The legal bid whose imagined hands score best; ties go to the advanced bid."""
    state = seat_state(rules, view, rng)
    anchor = advanced.choose_bid(rules, view, legal, rng)["bid"]
    candidates = _bid_candidates(rules, view, state, legal, anchor)
    if len(candidates) == 1:
        return {"type": "bid", "bid": candidates[0]}
    rng = rng or random.Random(view_seed(view))
    unseen = list(state.unseen.elements())
    hidden = [s for s in range(state.players) if s != state.seat]
    sizes = view.get("hand_sizes") or hand_sizes(state)
    weights = holding_weights(state, view, hidden)
    strong = strong_cards(rules.deck)
    totals = dict.fromkeys(candidates, 0.0)
    nil_made = 0
    count = 0
    while deadline.more(count, MAX_BID_SAMPLES):
        deal = deal_hidden(
            rng, unseen, hidden, sizes, state.voids, state.order.suit, strong, weights
        )
        deal[state.seat] = list(state.hand)
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
    best = max(totals.values())
    tied = [bid for bid, total in totals.items() if total >= best - 1e-9]
    chosen = anchor if anchor in tied else tied[0]
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
        sim, tricks = _simulate(rules, view, state, passed, bids)
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
    return _exchange(state, deal, state.seat, state.teammates[0], passing)


def _nil_passed(
    rules: Rules, state: SeatState, deal: list[list[int]], bids: list[Bid | None]
) -> list[list[int]]:
    """A copy of the deal after the nil pass (``nil_pass``) of every side whose bids are
    one nil and one number: the nil its most dangerous cards, the partner its lowest."""
    if rules.nil_pass <= 0:
        return [list(h) for h in deal]
    hands = deal
    for nil_seat, partner in nil_pass_sides(state.sides, bids):
        hands = _exchange(state, hands, nil_seat, partner, rules.nil_pass)
    return [list(h) for h in hands]


def _exchange(
    state: SeatState, deal: list[list[int]], nil_seat: int, partner: int, passing: int
) -> list[list[int]]:
    """The deal after a nil's pass: its ``passing`` most dangerous cards (top spades,
    then the highest) to its partner, the partner's lowest side cards back."""
    hands = [list(h) for h in deal]
    mine, theirs = hands[nil_seat], hands[partner]
    given = basic.passed_cards(state.order, mine, True, passing)
    back = basic.passed_cards(state.order, theirs, False, passing)
    for card in given:
        mine.remove(card)
        theirs.append(card)
    for card in back:
        theirs.remove(card)
        mine.append(card)
    return hands


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


def _bid_candidates(
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


def play_out(
    rules: Rules,
    view: View,
    state: SeatState,
    deal: list[list[int]],
    bids: list[Bid | None],
    optimism: float = 0.0,
) -> tuple[tuple[int, ...], float]:
    """The tricks the rollout policy takes on the deal with these bids, and their worth:
    with ``optimism``, that share of the worth is the worth of the same tricks with one
    of the side's moved to an opponent (``one_trick_less``), as the play-outs, every
    hand known, give the side more than a table does."""
    sim, tricks = _simulate(rules, view, state, deal, bids)
    value = sim.utility(tricks)
    if optimism > 0:
        fewer = one_trick_less(tricks, sim.bids, state.side_of(state.seat))
        value += optimism * (sim.utility(fewer) - value)
    return tricks, value


def _simulate(
    rules: Rules, view: View, state: SeatState, deal: list[list[int]], bids: list[Bid | None]
) -> tuple[HuntingRollout, tuple[int, ...]]:
    """The rollout policy (scoring these bids) and the tricks it takes on the deal (after
    the nil pass, at a table that has one)."""
    imagined = dataclasses.replace(state, bids=bids, contracts=None)
    sim = HuntingRollout(imagined, view)
    hands = _nil_passed(rules, state, deal, bids)
    leader = _first_leader(rules, view, hands)
    tricks_won = [0] * state.players
    broken = False
    if rules.first_lead == "lowest_club":
        leader, broken = _lowest_club_trick(state, sim, hands, leader, tricks_won)
    tricks = sim.rollout(hands, [], tricks_won, broken, leader, suit_tops(state.order, hands))
    return sim, tricks


def one_trick_less(tricks: tuple[int, ...], bids: list[Bid], side: list[int]) -> tuple[int, ...]:
    """The same tricks with one of ``side``'s moved to an opponent: from the side's seat
    with the most (a nil bidder's last), to the opponent with the most among those not
    bidding nil (any opponent if all did). Unchanged when the side took none."""
    takers = [s for s in side if tricks[s] > 0]
    others = [s for s in range(len(tricks)) if s not in side]
    if not takers or not others:
        return tricks
    giver = max(takers, key=lambda s: (not is_nil(bids[s]), tricks[s], -s))
    bidders = [s for s in others if not is_nil(bids[s])] or others
    taker = max(bidders, key=lambda s: (tricks[s], -s))
    moved = list(tricks)
    moved[giver] -= 1
    moved[taker] += 1
    return tuple(moved)


def _lowest_club_trick(
    state: SeatState, sim: Rollout, hands: list[list[int]], leader: int, tricks_won: list[int]
) -> tuple[int, bool]:
    """A ``lowest_club`` table's first trick, played out of ``hands`` as the rule forces
    it: each seat its lowest club; a seat without clubs a diamond or heart (a nil bidder
    its highest, anyone else its lowest), a spade only from a hand of spades. Counts the
    trick in ``tricks_won``; the seat that leads next, and whether spades are broken.
    (Played freely instead, a nil holding one high club would duck the trick it must
    take, and nil would look far safer than it is.)"""
    suit, power = state.order.suit, state.order.power
    trick: list[tuple[int, int]] = []
    for k in range(state.players):
        seat = (leader + k) % state.players
        hand = hands[seat]
        clubs = [c for c in hand if suit[c] == CLUBS]
        if clubs:
            card = min(clubs, key=power.__getitem__)
        else:
            others = [c for c in hand if suit[c] != SPADES] or hand
            card = (max if sim.nil_bid[seat] else min)(others, key=power.__getitem__)
        hand.remove(card)
        trick.append((seat, card))
    led = counted_led(trick, suit, CLUBS)
    winner, _ = taking(trick, state.order.win_key[led], state.rules.duplicate_later_wins)
    tricks_won[winner] += 1
    return winner, any(suit[c] == SPADES for _, c in trick)


def _first_leader(rules: Rules, view: View, hands: list[list[int]]) -> int:
    n = rules.players
    dealer = view.get("dealer")
    left = ((dealer if isinstance(dealer, int) else 0) + 1) % n
    if rules.first_lead != "two_clubs":
        return left
    suit, power = card_order(rules.deck).suit, card_order(rules.deck).power
    lowest = [
        (min(power[c] for c in hands[seat] if suit[c] == CLUBS), k, seat)
        for k, seat in enumerate((left + k) % n for k in range(n))
        if any(suit[c] == CLUBS for c in hands[seat])
    ]
    return min(lowest)[2] if lowest else left


# ---------------------------------------------------------------------------------------
# Card play: imagined deals weighted by what the play has shown, solved exactly at the end.


def choose_play(
    rules: Rules, view: View, legal: list[LegalAction], rng: Rng, deadline: Deadline
) -> PlayAction:
    """The distinct legal card whose imagined deals score best; ties go to the basic
    level's card."""
    state = seat_state(rules, view, rng)
    if not state.played and rules.first_lead == "lowest_club":
        return basic.choose_play(rules, view, legal, rng)
    plays = play_actions(legal)
    cards = [card_index(action["card"]) for action in plays]
    candidates = state.distinct_cards(cards)
    if len(candidates) == 1:
        return plays[cards.index(candidates[0])]
    basic_card = card_index(basic.choose_play(rules, view, legal, rng)["card"])
    basic_group = next(c for c in candidates if state.same_group(c, basic_card))
    rng = rng or random.Random(view_seed(view))
    sizes = view.get("hand_sizes") or hand_sizes(state)
    hidden = [s for s in range(state.players) if s != state.seat]
    unseen = list(state.unseen.elements())
    strong = strong_cards(rules.deck)
    weights = holding_weights(state, view, hidden)
    reads = _reads(state)
    sim = HuntingRollout(state, view)
    exact = len(state.hand) <= EXACT_TRICKS.get(rules.players, 0)
    solver = Endgame(sim)
    totals = [0.0] * len(candidates)
    count = 0
    while deadline.more(count, MAX_PLAY_SAMPLES):
        deal = deal_hidden(
            rng, unseen, hidden, sizes, state.voids, state.order.suit, strong, weights
        )
        deal[state.seat] = list(state.hand)
        weight = _likelihood(state.order.suit, state.order.power, deal, reads)
        for i, card in enumerate(candidates):
            totals[i] += weight * _card_value(state, sim, solver, deal, card, exact)
        count += 1
    best = max(totals)
    tied = [c for c, total in zip(candidates, totals, strict=True) if total >= best - 1e-9]
    chosen = basic_group if basic_group in tied else tied[0]
    return plays[cards.index(chosen)]


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
