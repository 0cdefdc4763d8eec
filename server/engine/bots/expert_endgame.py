"""The expert level's exact search: the last few tricks of one imagined deal (every hand
known) solved by alpha-beta, each side playing for its own score.

Every seat of the bot's side maximizes the bot's utility (``Rollout.utility``: the
hand's points less the others', bags, and the game when the hand ends it) and every
other seat minimizes it, which is exact with two sides and cautious with more. Cards
that no remaining card separates are searched once (holding the 9 and 8 when the 10 is
gone is holding one card twice), which keeps a 4-trick endgame of four hands at a few
thousand positions.
"""

from __future__ import annotations

from server.engine.bots.rollout import Rollout
from server.engine.cards import SPADES, taking
from server.engine.play import legal_plays

# Above this many positions the search gives up on the deal: the caller plays the deal
# out with the rollout policy instead (a guard for crowded endgames: 5,000 positions
# are about 25 ms here).
NODE_LIMIT = 5_000


class SearchTooBig(Exception):
    """The endgame has more positions than ``NODE_LIMIT``."""


class Endgame:
    """Solves the rest of a hand for the seat whose utility ``sim`` scores."""

    def __init__(self, sim: Rollout) -> None:
        self.sim = sim
        self.nodes = 0

    def value(
        self,
        hands: list[list[int]],
        trick: list[tuple[int, int]],
        tricks_won: list[int],
        broken: bool,
        seat: int,
    ) -> float:
        """The utility of the position with best play by every side (``seat`` to play
        next into ``trick``); SearchTooBig past ``NODE_LIMIT`` positions."""
        self.nodes = 0
        return self._search(hands, trick, tuple(tricks_won), broken, seat, -1e18, 1e18)

    def _search(
        self,
        hands: list[list[int]],
        trick: list[tuple[int, int]],
        won: tuple[int, ...],
        broken: bool,
        seat: int,
        alpha: float,
        beta: float,
    ) -> float:
        sim = self.sim
        if len(trick) == sim.n:
            winner, _ = taking(trick, sim.win_key[sim.suit[trick[0][1]]], sim.later_wins)
            won = (*won[:winner], won[winner] + 1, *won[winner + 1 :])
            if not hands[winner]:
                return sim.utility(won)
            trick, seat = [], winner
        self.nodes += 1
        if self.nodes > NODE_LIMIT:
            raise SearchTooBig
        hand = hands[seat]
        maximizing = sim.side_of[seat] == sim.my_side
        best = -1e18 if maximizing else 1e18
        for card in self._moves(hands, hand, trick, broken):
            hand.remove(card)
            trick.append((seat, card))
            value = self._search(
                hands,
                trick,
                won,
                broken or sim.suit[card] == SPADES,
                (seat + 1) % sim.n,
                alpha,
                beta,
            )
            trick.pop()
            hand.append(card)
            if maximizing:
                best = max(best, value)
                alpha = max(alpha, value)
            else:
                best = min(best, value)
                beta = min(beta, value)
            if alpha >= beta:
                break
        return best

    def _moves(
        self,
        hands: list[list[int]],
        hand: list[int],
        trick: list[tuple[int, int]],
        broken: bool,
    ) -> list[int]:
        """The seat's legal cards, one of each run no other live card splits, highest
        first (winning tries first make the cut-offs come early)."""
        suit, power = self.sim.suit, self.sim.power
        led = suit[trick[0][1]] if trick else -1
        legal = legal_plays(hand, suit, led, self.sim.guard and not broken)
        if len(legal) == 1:
            return list(legal)
        others: set[tuple[int, int]] = {(suit[c], power[c]) for _, c in trick}
        for other in hands:
            if other is not hand:
                others.update((suit[c], power[c]) for c in other)
        ranked = sorted(set(legal), key=lambda c: (suit[c], power[c]))
        moves: list[int] = []
        for card in ranked:
            if moves and suit[moves[-1]] == suit[card]:
                low, high = power[moves[-1]], power[card]
                if not any(s == suit[card] and low <= p <= high for s, p in others):
                    continue
            moves.append(card)
        moves.sort(key=lambda c: (suit[c] == SPADES, power[c]), reverse=True)
        return moves
