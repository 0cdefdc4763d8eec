"""The advanced level: bidding that reads the scoreboard, card play by look-ahead.

Bidding starts from the basic count and then applies a few rules a seasoned player
would state out loud (see ``choose_bid``). Card play imagines deals of the unseen cards
that fit everything public (hand sizes, the voids players have shown; see
``server.engine.bots.sampling``), plays the rest of the hand out for every distinct legal
card with a cheap rule-of-thumb policy (``server.engine.bots.rollout``), and picks the
card whose deals score best for its side (the hand's points, bags and bag penalties
included, and the game itself when the hand ends it). It gets only the view: the deals
it imagines are drawn from the cards it has not seen.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from server.engine.bots import basic
from server.engine.bots.basic import (
    BID_MARGIN_PARTNERS,
    BID_MARGIN_SOLO,
    BLIND_NIL_DEFICIT,
    NIL_MAX_DANGER,
    NIL_MAX_STRENGTH,
    TRICKS_FROM_STRENGTH,
)
from server.engine.bots.evaluation import hand_strength, nil_danger
from server.engine.bots.knowledge import (
    CardChoice,
    Decision,
    Rng,
    SeatState,
    bid_numbers,
    seat_state,
)
from server.engine.bots.rollout import Rollout, suit_tops
from server.engine.bots.sampling import Imagining, best_scored, view_seed
from server.engine.cards import SPADES, card_index
from server.engine.rules import Rules
from server.engine.scoring import is_nil
from server.engine.shapes import (
    Bid,
    BidAction,
    BlindNilAction,
    LegalAction,
    PlayAction,
    View,
)

# Within this many bags of the bag limit, bid what the hand should take (a smaller margin).
BAG_WARNING = 3
BAG_MARGIN = 0.15
# Within this many points of the target, and not behind: no nil.
NEAR_TARGET = 80
# Late in a game (the leader within LATE of the target) and this far behind: nil with a
# weaker hand than usual, and blind nil when the table allows it.
LATE = 150
DESPERATE_DEFICIT = 150
NIL_MAX_DANGER_DESPERATE = 5.0
NIL_MAX_STRENGTH_DESPERATE = 2.2
# 10-for-200: raise the side's contract to 10 when its estimate falls short by at most
# this (more when a set of 10 costs no more than 100).
TEN_SLACK = 0.4
TEN_SLACK_CHEAP_SET = 0.9
# The look-ahead: at most ADVANCED_SAMPLES imagined deals per card decision, fewer when
# (distinct cards x cards left) would exceed the budget of simulated card plays, but
# never fewer than MIN_SAMPLES. About 2 microseconds per simulated card here: 30,000
# card plays are about 70 ms.
ADVANCED_SAMPLES = 64
ADVANCED_CARD_BUDGET = 30_000
# Tables that deal more cards than this scale ADVANCED_SAMPLES down in proportion.
CARDS_AT_FULL_SAMPLES = 52
MIN_SAMPLES = 6


@dataclass(frozen=True, slots=True)
class _Situation:
    """The scoreboard from one side's chair."""

    score: int
    bags: int
    best_other: int
    target: int
    bags_close: bool
    near_target: bool
    late: bool

    @property
    def deficit(self) -> int:
        return self.best_other - self.score


def _situation(rules: Rules, view: View, state: SeatState) -> _Situation:
    entries = view.get("scores") or [{"score": 0, "bags": 0} for _ in state.sides]
    mine = state.sides.index(state.side_of(state.seat))
    score, bags = int(entries[mine]["score"]), int(entries[mine]["bags"])
    others = [int(e["score"]) for i, e in enumerate(entries) if i != mine]
    best_other = max(others) if others else score
    target = int(view.get("target_score") or rules.target_score)
    return _Situation(
        score=score,
        bags=bags,
        best_other=best_other,
        target=target,
        bags_close=rules.bags and bags >= rules.bag_limit - BAG_WARNING,
        near_target=score >= target - NEAR_TARGET and score >= best_other,
        late=best_other >= target - LATE,
    )


def choose_bid(rules: Rules, view: View, legal: list[LegalAction], rng: Rng) -> BidAction:
    """The basic count, adjusted by the situation, one rule at a time:

    - near the target and not behind: no nil (a failed nil would hand the game over);
    - own side near the bag limit: bid close to the estimate (bags now cost 100);
    - far behind late in the game: nil with a weaker hand than usual;
    - 10-for-200 tables: a second partner lifts the side to 10 when the side's
      estimate is within reach of it.

    Opponents about to win are fought in the play (the look-ahead counts a hand that
    ends the game as the game): bidding higher then, or a bigger margin near the
    target, did no better in duplicate deals against the basic level.
    """
    state = seat_state(rules, view, rng)
    hand = view.get("hand") or []
    numbers = bid_numbers(legal)
    situation = _situation(rules, view, state)
    strength = hand_strength(hand, rules.deck, rules.players)
    slope, intercept = TRICKS_FROM_STRENGTH[rules.players]
    expected = slope * strength + intercept
    margin = BID_MARGIN_PARTNERS if state.teammates else BID_MARGIN_SOLO
    partner_bids = [bid for s in state.teammates if (bid := state.bids[s]) is not None]
    desperate = situation.late and situation.deficit >= DESPERATE_DEFICIT
    if situation.bags_close and not situation.near_target:
        margin = min(margin, BAG_MARGIN)
    max_danger, max_strength = NIL_MAX_DANGER, NIL_MAX_STRENGTH
    if desperate:
        max_danger, max_strength = NIL_MAX_DANGER_DESPERATE, NIL_MAX_STRENGTH_DESPERATE
    suicide = basic.suicide_nil(rules, hand, numbers)
    if suicide is not None:
        if suicide:
            return {"type": "bid", "bid": 0}
    elif (
        0 in numbers
        and not situation.near_target
        and strength <= max_strength
        and nil_danger(hand, rules.deck, rules.players) <= max_danger
        and _nil_fits_partner(rules, partner_bids)
    ):
        return {"type": "bid", "bid": 0}
    own = max(int(expected + 0.5 - margin), 1)
    partner_numbers = [b for b in partner_bids if isinstance(b, int) and b > 0]
    team = rules.bidding == "team"
    base = sum(partner_numbers) if team else 0
    wanted = base + own
    if (
        rules.ten_for_two_hundred
        and partner_numbers
        and not situation.near_target
        and sum(partner_numbers) + own < 10
    ):
        slack = TEN_SLACK_CHEAP_SET if rules.ten_for_two_hundred_set <= 100 else TEN_SLACK
        # The partner's bid is itself a cautious count: add back its margin.
        side_estimate = sum(partner_numbers) + BID_MARGIN_PARTNERS + expected
        if side_estimate >= 10 - slack:
            wanted = 10 if team else 10 - sum(partner_numbers)
    candidates = [n for n in numbers if n > 0] or numbers
    return {"type": "bid", "bid": min(candidates, key=lambda n: (abs(n - wanted), n))}


def _nil_fits_partner(rules: Rules, partner_bids: list[Bid]) -> bool:
    if any(is_nil(b) for b in partner_bids):
        return False
    return not any(isinstance(b, int) and b < rules.min_team_bid - 1 for b in partner_bids)


def choose_blind(rules: Rules, view: View, legal: list[LegalAction], rng: Rng) -> BlindNilAction:
    """Blind nil when the table allows it (the engine only asks eligible players), the
    partner has not declared, and the side is far behind: 150 late in the game (the
    leader within LATE of the target), else 200, or more if the table demands more."""
    state = seat_state(rules, view, rng)
    situation = _situation(rules, view, state)
    needed = DESPERATE_DEFICIT if situation.late else BLIND_NIL_DEFICIT
    needed = max(needed, rules.blind_nil_behind_by or 0)
    partner_declared = any(state.bids[s] == "blind_nil" for s in state.teammates)
    declare = situation.deficit >= needed and not partner_declared
    return {"type": "blind_nil", "declare": declare}


def choose_play(
    rules: Rules, view: View, legal: list[LegalAction], rng: Rng, samples: int | None
) -> PlayAction:
    """The distinct legal card whose imagined deals score best for the bot's side; ties
    go to the basic level's choice."""
    state = seat_state(rules, view, rng)
    if not state.played and rules.first_lead == "lowest_club":
        # The first trick's own rules (lowest clubs, forced): the basic play is fine.
        return basic.choose_play(rules, view, legal, rng)
    choice = CardChoice.of(state, legal)
    candidates = choice.candidates
    basic_card = card_index(basic.choose_play(rules, view, legal, rng)["card"])
    basic_group = next(c for c in candidates if state.same_group(c, basic_card))
    if len(candidates) == 1:
        return choice.action(candidates[0])
    if rng is None:
        rng = random.Random(view_seed(view))
    imagining = Imagining.of(view, state)
    left = sum(imagining.sizes)
    if samples is None:
        # Bigger tables (six players: 108 cards) imagine fewer deals of more cards.
        dealt = rules.players * rules.hand_size
        cap = max(int(ADVANCED_SAMPLES * min(1.0, CARDS_AT_FULL_SAMPLES / dealt)), 1)
    else:
        cap = max(int(samples), 1)
    count = min(cap, max(MIN_SAMPLES, ADVANCED_CARD_BUDGET // (len(candidates) * left)))
    sim = Rollout(state, view)
    totals = [0.0] * len(candidates)
    next_seat = (state.seat + 1) % state.players
    for _ in range(count):
        deal = imagining.deal(rng)
        tops = suit_tops(state.order, deal)
        for i, card in enumerate(candidates):
            hands = [list(h) for h in deal]
            hands[state.seat].remove(card)
            card_tops = [list(t) for t in tops]
            card_tops[state.order.suit[card]].remove(state.order.power[card])
            tricks = sim.rollout(
                hands,
                [*state.trick, (state.seat, card)],
                list(state.tricks_won),
                sim.broken or state.order.suit[card] == SPADES,
                next_seat,
                card_tops,
            )
            totals[i] += sim.utility(tricks)
    chosen = best_scored(candidates, totals, basic_group)
    return choice.action(chosen)


DECISIONS: dict[str, Decision] = {
    **basic.DECISIONS,
    "blind": choose_blind,
    "bid": choose_bid,
}
