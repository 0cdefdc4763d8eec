"""The look-ahead's rollouts: the rest of a hand played out on an imagined deal (every
hand known) by a cheap policy that follows the basic level's rules of thumb, and scored."""

from __future__ import annotations

from server.engine.bots.basic import SET_MARGIN
from server.engine.bots.knowledge import SeatState
from server.engine.bots.preferences import preferences
from server.engine.cards import CLUBS, SPADES, CardOrder, taking
from server.engine.play import first_trick_plays, legal_plays
from server.engine.scoring import final_bids, game_winner, is_nil, score_sides
from server.engine.shapes import SideScore, View

# What ending the game is worth, in points of this hand, to the look-ahead.
GAME_VALUE = 1000

_NIL, _COVER, _WANT, _DUCK = range(4)


def suit_tops(order: CardOrder, hands: list[list[int]]) -> list[list[int]]:
    """Per suit, the powers of the cards still in hands, highest first."""
    tops: list[list[int]] = [[], [], [], []]
    for hand in hands:
        for card in hand:
            tops[order.suit[card]].append(order.power[card])
    for top in tops:
        top.sort(reverse=True)
    return tops


class Rollout:
    """Plays the rest of a hand out on a deal (every hand known) with a cheap policy
    that follows the basic level's rules of thumb, and scores the result."""

    # Whether opponents hunt a nil as a table's do: a seat with a clean opposing nil
    # still to play in the trick follows with its lowest card (without, the policy may
    # overtake its own partner and let the nil off).
    hunts_nil = False

    def __init__(self, state: SeatState, view: View) -> None:
        rules = state.rules
        n = rules.players
        self.rules = rules
        self.n = n
        self.suit = state.order.suit
        self.power = state.order.power
        self.win_key = state.order.win_key
        prefer = preferences(state.order)
        self.danger, self.shed, self.keep = prefer.danger, prefer.shed, prefer.keep
        self.later_wins = rules.duplicate_later_wins
        self.guard = rules.spades_broken_to_lead
        self.lowest_club = rules.first_lead == "lowest_club"
        self.first_trick_rules = rules.first_lead != "left_of_dealer"
        self.broken = bool(view.get("spades_broken")) or any(
            self.suit[c] == SPADES for _, c in state.played + state.trick
        )
        self.bids = final_bids(state.bids)
        self.sides = state.sides
        self.side_of = [0] * n
        for index, side in enumerate(self.sides):
            for seat in side:
                self.side_of[seat] = index
        self.partners = [[t for t in self.sides[self.side_of[s]] if t != s] for s in range(n)]
        self.nil_bid = [is_nil(b) for b in self.bids]
        counts_failed_nil = rules.nil_tricks == "contract"
        self.counted = [
            [s for s in side if counts_failed_nil or not self.nil_bid[s]] for side in self.sides
        ]
        self.contracts = [state.contract(side) for side in self.sides]
        self.my_side = self.side_of[state.seat]
        self.scores: list[SideScore] = list(
            view.get("scores") or [{"score": 0, "bags": 0} for _ in self.sides]
        )
        self._utilities: dict[tuple[int, ...], float] = {}

    def rollout(
        self,
        hands: list[list[int]],
        trick: list[tuple[int, int]],
        tricks_won: list[int],
        broken: bool,
        seat: int,
        tops: list[list[int]],
    ) -> tuple[int, ...]:
        """Play on from ``trick`` (``seat`` to play next) until the hands are empty;
        the tricks each seat won this hand."""
        n, suit, power, win_key, later = (
            self.n,
            self.suit,
            self.power,
            self.win_key,
            self.later_wins,
        )
        while True:
            if len(trick) == n:
                winner, _ = taking(trick, win_key[suit[trick[0][1]]], later)
                tricks_won[winner] += 1
                trick = []
                seat = winner
                if not hands[seat]:
                    return tuple(tricks_won)
            if not hands[seat]:
                # Only a view that contradicts itself gets here: score what was played.
                return tuple(tricks_won)
            card = self.choose(seat, hands[seat], trick, tricks_won, broken, tops)
            hands[seat].remove(card)
            card_suit = suit[card]
            tops[card_suit].remove(power[card])
            if card_suit == SPADES:
                broken = True
            trick.append((seat, card))
            seat = seat + 1 if seat + 1 < n else 0

    def _mode(self, seat: int, tricks_won: list[int], left: int) -> int:
        if self.nil_bid[seat]:
            return _NIL if tricks_won[seat] == 0 else _DUCK
        for partner in self.partners[seat]:
            if self.nil_bid[partner] and tricks_won[partner] == 0:
                return _COVER
        mine = self.side_of[seat]
        for index, counted in enumerate(self.counted):
            need = self.contracts[index] - sum(tricks_won[s] for s in counted)
            if index == mine and need > 0:
                return _WANT
            if index != mine and 0 < need <= left < need + SET_MARGIN + 1:
                return _WANT
        return _DUCK

    def choose(
        self,
        seat: int,
        hand: list[int],
        trick: list[tuple[int, int]],
        tricks_won: list[int],
        broken: bool,
        tops: list[list[int]],
    ) -> int:
        """The policy's card for ``seat``: the basic level's rules of thumb, cheaply."""
        suit, power = self.suit, self.power
        led = suit[trick[0][1]] if trick else -1
        if self.first_trick_rules and not any(tricks_won):
            legal = self.legal(hand, trick, tricks_won, broken)
        else:
            legal = legal_plays(hand, suit, led, self.guard and not broken)
        if len(legal) == 1:
            return legal[0]
        if trick and self.hunts_nil and self._nil_still_to_play(seat, len(trick), tricks_won):
            following = [c for c in legal if suit[c] == led]
            if following:
                return min(following, key=power.__getitem__)
        mode = self._mode(seat, tricks_won, len(hand))
        if not trick:
            return self._lead(seat, mode, hand, legal, tricks_won, tops)
        keys = self.win_key[led]
        later = self.later_wins
        winner, best = taking(trick, keys, later)
        if later and best >= 0:
            winners = [c for c in legal if keys[c] >= best]
            losers = [c for c in legal if keys[c] < best]
        else:
            winners = [c for c in legal if keys[c] > best]
            losers = [c for c in legal if keys[c] <= best]
        last = len(trick) == self.n - 1
        if mode == _NIL:
            if losers:
                return max(losers, key=self.danger.__getitem__)
            return _forced_win(winners, keys, last)
        if mode == _DUCK:
            if losers:
                return max(losers, key=self.shed.__getitem__)
            return _forced_win(winners, keys, last)
        low = min(legal, key=self.keep.__getitem__)
        if mode == _COVER:
            nil_partner = next(
                p for p in self.partners[seat] if self.nil_bid[p] and tricks_won[p] == 0
            )
            if winner == nil_partner:
                return min(winners, key=keys.__getitem__) if winners else low
            if all(p != nil_partner for p, _ in trick) and winners:
                following = [c for c in winners if suit[c] == led]
                if following:
                    return max(following, key=power.__getitem__)
                return min(winners, key=keys.__getitem__)
        if winner in self.partners[seat]:
            win_card = next(c for p, c in trick if p == winner)
            top = tops[suit[win_card]]
            if last or not top or power[win_card] >= top[0]:
                return low
        elif self.nil_bid[winner] and tricks_won[winner] == 0 and losers:
            return max(losers, key=self.shed.__getitem__)
        if not winners:
            return low
        if last:
            return min(winners, key=keys.__getitem__)
        following = [c for c in winners if suit[c] == led]
        if not following:
            return min(winners, key=keys.__getitem__)
        high = max(following, key=power.__getitem__)
        if power[high] >= tops[led][0] or len(trick) > 1:
            return high
        return low

    def legal(
        self, hand: list[int], trick: list[tuple[int, int]], tricks_won: list[int], broken: bool
    ) -> list[int]:
        """The cards of ``hand`` the engine lets its seat play to ``trick`` (docs/rules.md
        §7), the first trick's own rules included: no trick is won yet while the first is
        played. Under ``two_clubs`` the seat leading the first trick is the holder of the
        lowest club, so the card it must lead is its own lowest club."""
        if self.first_trick_rules and not any(tricks_won):
            forced = None
            if not trick and not self.lowest_club:
                clubs = [card for card in hand if self.suit[card] == CLUBS]
                forced = min(clubs, key=lambda card: (self.power[card], card)) if clubs else None
            first = first_trick_plays(
                hand, self.suit, self.power, self.lowest_club, forced, leading=not trick
            )
            if first is not None:
                return first
        led = self.suit[trick[0][1]] if trick else -1
        return legal_plays(hand, self.suit, led, self.guard and not broken)

    def _nil_still_to_play(self, seat: int, played: int, tricks_won: list[int]) -> bool:
        mine = self.side_of[seat]
        for k in range(1, self.n - played):
            other = (seat + k) % self.n
            if self.side_of[other] != mine and self.nil_bid[other] and not tricks_won[other]:
                return True
        return False

    def _lead(
        self,
        seat: int,
        mode: int,
        hand: list[int],
        legal: list[int],
        tricks_won: list[int],
        tops: list[list[int]],
    ) -> int:
        suit, power = self.suit, self.power
        low = min(legal, key=self.keep.__getitem__)
        if mode in (_NIL, _DUCK):
            return low
        side_cards = [c for c in legal if suit[c] != SPADES]
        bosses = [c for c in side_cards if power[c] >= tops[suit[c]][0]]
        if mode == _COVER:
            if bosses:
                return bosses[0]
            return max(side_cards or legal, key=power.__getitem__)
        if any(self.nil_bid[s] and tricks_won[s] == 0 for s in range(self.n) if s != seat):
            opponents = [s for s in range(self.n) if self.side_of[s] != self.side_of[seat]]
            if any(self.nil_bid[s] and tricks_won[s] == 0 for s in opponents):
                return low
        if bosses:
            return bosses[0]
        spades = [c for c in legal if suit[c] == SPADES]
        if spades:
            high = max(spades, key=power.__getitem__)
            if power[high] >= tops[SPADES][0] and (len(spades) >= 2 or not side_cards):
                return high
        if not side_cards:
            return min(spades, key=power.__getitem__)
        lengths = [0, 0, 0, 0]
        for card in hand:
            lengths[suit[card]] += 1
        return min(side_cards, key=lambda c: (-lengths[suit[c]], power[c]))

    def utility(self, tricks: tuple[int, ...]) -> float:
        """What a hand that ends with these tricks is worth to the bot's side: its points
        less the others' (on average), each bag taken at its share of the bag penalty
        (a bag is worth 1 point now and costs ``bag_penalty / bag_limit`` later); or the
        game, when the hand ends it."""
        cached = self._utilities.get(tricks)
        if cached is not None:
            return cached
        rules = self.rules
        after = score_sides(rules, self.bids, tricks, self.scores)
        bag_cost = rules.bag_penalty / rules.bag_limit if rules.bags and rules.bag_limit else 0.0
        deltas = []
        for side, old in zip(after, self.scores, strict=True):
            penalties = side["bag_penalty"] / rules.bag_penalty if rules.bag_penalty else 0
            bags = side["bags"] - old["bags"] + penalties * rules.bag_limit
            deltas.append(side["score"] - old["score"] + side["bag_penalty"] - bag_cost * bags)
        others = [d for i, d in enumerate(deltas) if i != self.my_side]
        value = float(deltas[self.my_side] - (sum(others) / len(others) if others else 0))
        winner = game_winner(rules, after)
        if winner is not None:
            value += GAME_VALUE if winner == self.my_side else -GAME_VALUE
        self._utilities[tricks] = value
        return value


def _forced_win(winners: list[int], keys: list[int], last: bool) -> int:
    """Every card wins: the highest when last (the trick is lost anyway), else the
    lowest, hoping a later player overtakes."""
    return max(winners, key=keys.__getitem__) if last else min(winners, key=keys.__getitem__)
