"""The expert's play-outs: an imagined hand played from its deal to its last trick by the
rollout policy, and scored on the scoreboard.

- **The policy** (``HuntingRollout``) is the advanced level's, with two changes: a seat
  in front of an opposing nil follows low, as a table's nil hunters do, and bags are a
  debt growing with the square of the count, so the bag that reaches the limit costs
  nearly the whole penalty while early bags are cheap.
- **A whole hand** (``play_out``): with ``nil_pass``, each play-out starts after the nil
  pass of every side with one nil, made as the basic level makes it; a ``lowest_club``
  table's first trick is played as the rule forces it.
"""

from __future__ import annotations

import dataclasses
import math

from server.engine.bots import basic
from server.engine.bots.knowledge import SeatState
from server.engine.bots.rollout import GAME_VALUE, Rollout, suit_tops
from server.engine.cards import CLUBS, SPADES, card_order, counted_led, taking
from server.engine.rules import Rules
from server.engine.scoring import game_winner, is_nil, nil_pass_sides, score_sides
from server.engine.shapes import Bid, View

# The scoreboard as a race (``win_chance``): what a side's score grows by in a hand, and
# the spread of one hand's change in the lead. Rough: bot games gain 35-45 a hand with a
# spread near 100, but these larger figures are the ones the tournaments were played with.
HAND_GAIN = 60.0
HAND_SPREAD = 120.0


class HuntingRollout(Rollout):
    """The rollout policy, with opponents that hunt a nil as a table's do: a seat with a
    clean opposing nil still to play in the trick follows with its lowest card (the
    plain policy would overtake its own partner and let the nil off)."""

    hunts_nil = True

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


def _nil_passed(
    rules: Rules, state: SeatState, deal: list[list[int]], bids: list[Bid | None]
) -> list[list[int]]:
    """A copy of the deal after the nil pass (``nil_pass``) of every side whose bids are
    one nil and one number: the nil its most dangerous cards, the partner its lowest."""
    if rules.nil_pass <= 0:
        return [list(h) for h in deal]
    hands = deal
    for nil_seat, partner in nil_pass_sides(state.sides, bids):
        hands = exchange(state, hands, nil_seat, partner, rules.nil_pass)
    return [list(h) for h in hands]


def exchange(
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
    sim, tricks = simulate(rules, view, state, deal, bids)
    value = sim.utility(tricks)
    if optimism > 0:
        fewer = one_trick_less(tricks, sim.bids, state.side_of(state.seat))
        value += optimism * (sim.utility(fewer) - value)
    return tricks, value


def simulate(
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
