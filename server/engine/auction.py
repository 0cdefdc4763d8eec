"""One hand from the deal to its last bid: blind nil decisions, the pass, the draw, the bids.

These phases run once per hand, each seat acting in turn until every seat has bid; then
the cards are played (``server.engine.tricks``). :class:`Auction` holds what they decide
(the bids, and the cards until play starts) and says which phase and seat come next;
``Game`` follows it and checks who may act.

Decisions where docs/rules.md is silent:

- Blind nil decisions are taken one seat at a time in bidding order (so a partner's
  declaration can stop the other being asked), before the pass and, for two players,
  before the draw. Eligibility uses the scores before the hand: the leading other side's
  score minus the player's side's score is at least ``blind_nil_behind_by`` (so ``0``
  lets a tied side declare).
- A player holds their cards while they choose their pass; they see them once the
  exchange is done. Both partners of a double blind nil pass to each other.
- The stock of the draw method: turns alternate starting with the non-dealer; keeping
  the top card discards the next one unseen, refusing it keeps the next one.
- Bids go up to the cards in a hand; a side's total is not capped (an impossible
  contract is simply set).
- ``bidding: "team"``: the first partner bids 1..hand size or nil; the second bids at
  least the first partner's number (and ``min_team_bid``), or nil.
- With ``min_team_bid > 0`` a blind nil bidder's partner must bid at least
  ``min_team_bid`` (a blind nil is a nil for every bidding rule), and is not asked
  about blind nil.
- Whiz and Mirror count the spades a seat holds when it bids (jokers and the trump 2D
  included): the cards dealt, or drawn with two players (their hands have no blind nil,
  so no pass comes before). Nil is 0 in both, so a side may bid a double nil.
- Suicide: "first" and "second" are the order the partners bid in; a blind nil counts
  as its side's nil, so its partner bids a number, and is not asked about blind nil.
- The nil pass comes after the last bid, for every side whose bids are one nil (not
  blind) and one number, all such sides passing at once; a side with a blind nil
  has had its blind nil pass (if any) instead. The hand's recorded deal is the one
  before the nil pass (the pass changes no deal).

>>> from server.engine.cards import INDEX, deck_codes
>>> from server.engine.rules import Rules
>>> table = Table(Rules.preset("standard"))
>>> deck = [INDEX[code] for code in deck_codes(4, "standard")]
>>> auction = Auction.start(table, deck, 3, [[0, 0], [0, 0]], log=[], hand_number=1)
>>> auction.phase, auction.seat, auction.legal_bids(0)[:3]
('bid', 0, [0, 1, 2])
"""

from __future__ import annotations

from dataclasses import dataclass, field

from server.engine.actions import (
    IllegalAction,
    LogEntry,
    bid_refusal,
    checked_bool,
    checked_pass,
    pass_actions,
)
from server.engine.cards import CODES, SPADES
from server.engine.dealing import deal
from server.engine.rules import Rules
from server.engine.scoring import BLIND_NIL, is_nil, nil_pass_sides, side_contract
from server.engine.shapes import Action, Bid, Event, Phase
from server.engine.table import Table


@dataclass(slots=True, eq=False, repr=False)
class Auction:
    """The phases of one hand before play, and what they decided (public on purpose: the
    game reads it, and its saved state holds all of it). Made in a saved game's state;
    :meth:`start` deals a new one. ``rules``: the rules of this hand (``Rules.for_hand``:
    its bidding format, with a rotation).

    ``phase`` is ``"blind"``, ``"pass"``, ``"draw"`` or ``"bid"``, then ``"play"`` once
    every seat has bid; ``seat`` the one seat on turn (not meaningful in ``"pass"``, where
    the passers act at once, nor once it is over). ``hands``: each seat's cards until play
    starts (then the tricks keep them). ``blind_queue``: the seats still to be asked about
    blind nil; ``passers`` and ``passes`` (the cards each has chosen) the exchange;
    ``stock`` and ``stock_pos`` the draw's stock and its top; ``deal``: the hands as they
    were when bidding started (the hand result's record), empty before (so a pass with a
    deal is the nil pass, one without the blind nil pass). ``log`` is the game's log,
    which every accepted action is appended to.
    """

    table: Table
    rules: Rules
    log: list[LogEntry]
    dealer: int
    phase: Phase
    seat: int
    hands: list[list[int]]
    bids: list[Bid | None]
    blind_queue: list[int]
    passers: list[int]
    passes: dict[int, list[int]]
    stock: list[int]
    stock_pos: int
    deal: list[list[str]]
    # legal_bids' answer for one seat, until a bid changes.
    _allowed_bids: tuple[int, list[int]] | None = field(default=None, init=False)

    @classmethod
    def start(
        cls,
        table: Table,
        deck: list[int],
        dealer: int,
        scores: list[list[int]],
        log: list[LogEntry],
        hand_number: int,
    ) -> Auction:
        """Hand ``hand_number`` dealt from ``deck`` (in deal order), at its first phase:
        the blind nil decisions of the seats ``scores`` (``[score, bags]`` per side,
        before this hand) make eligible, else the pass, the draw or the bids."""
        n = table.players
        hands, stock = deal(deck, n, dealer)
        rules = table.rules.for_hand(hand_number)
        auction = cls(
            table=table,
            rules=rules,
            log=log,
            dealer=dealer,
            phase="blind",
            seat=(dealer + 1) % n,
            hands=hands,
            bids=[None] * n,
            blind_queue=[],
            passers=[],
            passes={},
            stock=stock,
            stock_pos=0,
            deal=[],
        )
        if not rules.blind_nil:
            # No blind nil at this table: straight on (the same path, without the asking).
            auction._after_pass()
            return auction
        order = table.bidding_order(dealer)
        auction.blind_queue = [seat for seat in order if _blind_eligible(table, scores, seat)]
        auction._continue_blind()
        return auction

    # ------------------------------------------------------------------- reading

    def waiting_passers(self) -> list[int]:
        """The passers who have not chosen their cards yet."""
        return [seat for seat in self.passers if seat not in self.passes]

    def pass_count(self) -> int:
        """Cards each passer gives in the pass under way: the nil pass once bidding has
        started, else the blind nil pass."""
        return self.rules.nil_pass if self.deal else self.rules.blind_nil_pass

    def spades_held(self, seat: int) -> int:
        """The cards of the spade suit ``seat`` holds (jokers and a trump 2D included)."""
        suit = self.table.order.suit
        return sum(1 for card in self.hands[seat] if suit[card] == SPADES)

    def owing_blind(self) -> list[int]:
        """The seats still to decide on blind nil (during ``"blind"``)."""
        return [seat for seat in self.blind_queue if not self._skips_blind(seat)]

    def side_contracts(self) -> list[int | None] | None:
        """Each side's contract once all its seats have bid (None for a side still
        bidding; None for all while no side is done): docs/rules.md §6."""
        bids = self.bids
        rules = self.rules
        contracts: list[int | None] = []
        for seats in self.table.sides:
            made = [bid for seat in seats if (bid := bids[seat]) is not None]
            contracts.append(side_contract(rules, made) if len(made) == len(seats) else None)
        return contracts if any(c is not None for c in contracts) else None

    def legal_bids(self, seat: int) -> list[int]:
        """The bids ``seat`` may make now; cached until a bid changes (read, never change)."""
        cached = self._allowed_bids
        if cached is not None and cached[0] == seat:
            return cached[1]
        allowed = self._allowed(seat)
        self._allowed_bids = (seat, allowed)
        return allowed

    def _allowed(self, seat: int) -> list[int]:
        """The bids ``seat`` may make now, by the hand's bidding format."""
        rules = self.rules
        bidding = rules.bidding
        if bidding == "whiz" or bidding == "mirror":
            spades = self.spades_held(seat)
            if bidding == "mirror" or spades == 0:
                return [spades]
            return [0, spades]
        allow_nil = rules.nil
        partner = self.table.partner_of[seat]
        partner_bid = None if partner is None else self.bids[partner]
        if bidding == "suicide":
            low = max(1, rules.min_team_bid)
            numbers = list(range(low, self.table.hand_size + 1))
            if partner_bid is None:
                return [0, *numbers]
            return numbers if is_nil(partner_bid) else [0]
        if partner is None:
            low = max(1, rules.min_team_bid)
        elif partner_bid is None:
            low = 1
        elif is_nil(partner_bid):
            low = max(1, rules.min_team_bid)
            allow_nil = allow_nil and rules.min_team_bid == 0
        elif bidding == "team":
            low = max(1, int(partner_bid), rules.min_team_bid)
        else:
            low = max(1, rules.min_team_bid - int(partner_bid))
        return ([0] if allow_nil else []) + list(range(low, self.table.hand_size + 1))

    def legal(self, seat: int) -> list[Action]:
        """Every action of the phase under way that ``seat``, on turn (or a passer still to
        choose), may take: each set of cards of a pass once, in hand order."""
        phase = self.phase
        if phase == "bid":
            return [{"type": "bid", "bid": bid} for bid in self.legal_bids(seat)]
        if phase == "blind":
            return [{"type": "blind_nil", "declare": True}, {"type": "blind_nil", "declare": False}]
        if phase == "draw":
            return [{"type": "draw", "keep": True}, {"type": "draw", "keep": False}]
        hand = self.table.order.sorted_codes(self.hands[seat])
        return [*pass_actions(hand, self.pass_count())]

    def checked_bid(self, seat: int, bid: object) -> int:
        """``bid`` if ``seat`` may make it now, else the IllegalAction saying why."""
        if isinstance(bid, bool) or not isinstance(bid, int):
            raise IllegalAction("bad_bid", "A bid is a whole number (0 is nil)")
        allowed = self.legal_bids(seat)
        if bid in allowed:
            return bid
        raise bid_refusal(allowed, self.rules.bidding)

    def draw_card(self) -> str:
        """The stock's top card (during ``"draw"``)."""
        return CODES[self.stock[self.stock_pos]]

    def stock_size(self) -> int:
        """Cards left in the stock."""
        return len(self.stock) - self.stock_pos

    # ------------------------------------------------------------------- acting
    # Each action is checked by the game first; each appends itself to the log and
    # returns its events.

    def act(self, seat: int, kind: str, value: object) -> list[Event]:
        """``seat``'s action of the phase under way, its ``kind`` and the ``value`` of its
        field as ``actions.action_kind`` read them (the seat is on turn): its value
        checked, else the IllegalAction saying why."""
        if kind == "bid":
            return self.bid(seat, self.checked_bid(seat, value))
        if kind == "blind_nil":
            return self.declare_blind(seat, checked_bool(value, "declare"))
        if kind == "draw":
            return self.draw(seat, checked_bool(value, "keep"))
        return self.choose_pass(seat, checked_pass(value, self.pass_count(), self.hands[seat]))

    def declare_blind(self, seat: int, declare: bool) -> list[Event]:
        self.blind_queue.pop(0)
        if declare:
            self.bids[seat] = BLIND_NIL
            self._allowed_bids = None
        self.log.append((seat, "blind_nil", declare))
        self._continue_blind()
        return [{"type": "blind_nil", "seat": seat, "declare": declare}]

    def choose_pass(self, seat: int, cards: list[int]) -> list[Event]:
        """``seat``'s cards for the pass under way; the exchange once every passer has
        chosen. ``passes`` keeps every seat's given cards for the rest of the hand (a seat
        passes once a hand at most: a side with a blind nil has no nil pass)."""
        order = self.table.order
        self.passes[seat] = cards
        self.log.append((seat, "pass", tuple(order.sorted_codes(cards))))
        events: list[Event] = [{"type": "pass_chosen", "seat": seat}]
        if self.waiting_passers():
            return events
        for giver in self.passers:
            for card in self.passes[giver]:
                self.hands[giver].remove(card)
        for giver in self.passers:
            given = self.passes[giver]
            receiver = self.table.partner_of[giver]
            assert receiver is not None
            self.hands[receiver].extend(given)
            events.append(
                {"type": "pass", "seat": giver, "to": receiver, "cards": order.sorted_codes(given)}
            )
        if self.deal:
            self.phase = "play"
        else:
            self._after_pass()
        return events

    def draw(self, seat: int, keep: bool) -> list[Event]:
        top = self.stock_pos
        self.hands[seat].append(self.stock[top if keep else top + 1])
        self.stock_pos += 2
        self.log.append((seat, "draw", keep))
        if self.stock_pos >= len(self.stock):
            self._start_bidding()
        else:
            self.seat = 1 - seat
        return [{"type": "draw", "seat": seat}]

    def bid(self, seat: int, bid: int) -> list[Event]:
        bids = self.bids
        bids[seat] = bid
        self._allowed_bids = None
        self.log.append((seat, "bid", bid))
        events: list[Event] = [{"type": "bid", "seat": seat, "bid": bid}]
        partner = self.table.partner_of[seat]
        minimum = self.table.rules.min_team_bid
        if bid == 0 and partner is not None:
            partner_bid = bids[partner]
            if isinstance(partner_bid, int) and 0 < partner_bid < minimum:
                bids[partner] = minimum
                events.append({"type": "bid_raised", "seat": partner, "bid": minimum})
        if None not in bids:
            self._after_bidding()
            return events
        n = self.table.players
        following = seat + 1 if seat + 1 < n else 0
        while bids[following] is not None:
            following = following + 1 if following + 1 < n else 0
        self.seat = following
        return events

    # ------------------------------------------------------------------- moving on

    def _skips_blind(self, seat: int) -> bool:
        """A player whose partner declared blind nil is not asked when min_team_bid > 0
        or under Suicide (one nil a side)."""
        partner = self.table.partner_of[seat]
        rules = self.rules
        return (
            (rules.min_team_bid > 0 or rules.bidding == "suicide")
            and partner is not None
            and self.bids[partner] == BLIND_NIL
        )

    def _continue_blind(self) -> None:
        queue = self.blind_queue
        while queue and self._skips_blind(queue[0]):
            queue.pop(0)
        if queue:
            self.phase = "blind"
            self.seat = queue[0]
            return
        rules = self.rules
        declared = [seat for seat, bid in enumerate(self.bids) if bid == BLIND_NIL]
        if declared and rules.partnerships and rules.blind_nil_pass > 0:
            passers = set(declared)
            for seat in declared:
                partner = self.table.partner_of[seat]
                if partner is not None:
                    passers.add(partner)
            self.passers = sorted(passers)
            self.phase = "pass"
            return
        self._after_pass()

    def _after_pass(self) -> None:
        if self.table.players == 2:
            self.phase = "draw"
            self.seat = (self.dealer + 1) % 2
            return
        self._start_bidding()

    def _start_bidding(self) -> None:
        order = self.table.order
        self.deal = [order.sorted_codes(cards) for cards in self.hands]
        waiting = [
            seat for seat in self.table.bidding_order(self.dealer) if self.bids[seat] is None
        ]
        if waiting:
            self.phase = "bid"
            self.seat = waiting[0]
        else:
            self._after_bidding()

    def _after_bidding(self) -> None:
        """Every seat has bid: the nil pass (``nil_pass``) of each side with one nil and
        one number, else the play."""
        self.phase = "play"
        if self.rules.nil_pass <= 0:
            return
        passers = [seat for side in nil_pass_sides(self.table.sides, self.bids) for seat in side]
        if passers:
            self.passers = sorted(passers)
            self.phase = "pass"


def _blind_eligible(table: Table, scores: list[list[int]], seat: int) -> bool:
    """Whether ``seat`` may declare blind nil, from the scores before the hand."""
    behind_by = table.rules.blind_nil_behind_by
    if behind_by is None:
        return True
    own = table.side_of[seat]
    leader = max(score for side, (score, _) in enumerate(scores) if side != own)
    return leader - scores[own][0] >= behind_by
