"""The Spades game state machine: deal, blind nil, pass, draw, bid, play, score.

One ``Game`` is one table's whole game. The server feeds it actions from seats and sends
each viewer ``game.view(seat)``; the game knows nothing of sockets or storage.

>>> game = Game(Rules.preset("standard"), seed=7)
>>> game.phase, game.hand_number, len(game.view(game.turn[0])["hand"])
('bid', 1, 13)
>>> seat = game.turn[0]
>>> game.legal(seat)[:2]
[{'type': 'bid', 'bid': 0}, {'type': 'bid', 'bid': 1}]
>>> [event["type"] for event in game.act(seat, {"type": "bid", "bid": 3})]
['bid']
>>> game.act(seat, {"type": "bid", "bid": 3})
Traceback (most recent call last):
...
server.engine.actions.IllegalAction: It is not your turn: waiting for seat ...

Phases: ``"blind"`` (blind nil decisions, one seat at a time), ``"pass"`` (blind nil
exchange, all passers at once), ``"draw"`` (two players), ``"bid"``, ``"play"``,
``"over"``. After the last trick the hand is scored and the next hand starts at once.

Decisions where docs/rules.md is silent (those of the bidding phases are in
``server.engine.auction``, those of the first trick in ``server.engine.tricks``, when the
game ends in ``server.engine.results``):

- The previous hand's last trick stays in ``view()["last_trick"]`` until the first trick
  of the new hand is complete.
- Six players may play in partnerships (0&3, 1&4, 2&5) when ``partnerships: true``.
- Hands in views and hand results are sorted by suit (clubs, diamonds, hearts, spades,
  jokers and the trump 2D with the spades) then rank, low first.
- Scores and bags are computed only by ``score_hand`` (see ``server.engine.scoring``).

Extra API beyond docs/protocol.md: ``legal_cards(seat)`` and ``play(seat, card)`` (the fast
path for bots, simulations and benchmarks: the same checks and the same change of state as
``act``, but ``play`` builds no events and returns None; ``legal_cards`` is a fresh list of
codes), ``seat_to_play`` (the one seat on turn as an int, cheaper than ``turn[0]``; not
meaningful in ``"pass"`` and ``"over"``), ``hands`` (int cards per seat), ``pending``
(seats owing a blind nil decision or a pass), ``sides``, ``hand_number``, ``dealer``,
``bids``, ``tricks_won``, ``hand_results``, ``log`` (``(seat, action)`` accepted so far),
``to_state()`` / ``from_state(data)`` (and ``current_state()`` and ``log_since(start)``,
its parts for a caller that encodes it), and what the view is built from (``contracts``,
``trick``, ``played``, ``last_trick``, ``spades_broken``, ``draw_card(seat)``,
``stock_size``, ``card_order``).

``Game`` holds what lasts the whole game (scores, hand results, the log, the dealer) and
is the one way in: it checks who may act and hands each action to the phase it belongs
to. The phases and jobs around it live beside it: ``auction`` (one hand from the deal to
its last bid: blind nil, pass, draw, bids), ``tricks`` (the card play of one hand),
``table`` (what the rules make of seats and cards, once per game), ``saved`` (the saved
state), ``play`` (which cards may be played), ``cards`` (who takes a trick), ``actions``
(action shapes and refusals), ``view`` (what a seat sees), ``reading`` (what the view and
the saved state read of a game, so that neither imports ``Game``), ``dealing`` (decks,
shuffles, the deal), ``claims`` (whether the leader may claim the rest), ``results`` (a
finished hand's record, the game's end), ``scoring``.

Events returned by ``act`` (a list of dicts, each with ``"type"``; ``Event`` in
``server.engine.shapes``): ``hand_start``, ``blind_nil``, ``pass_chosen`` (seat only),
``pass`` (**private**: the cards a seat gave its partner), ``draw`` (seat only), ``bid``,
``bid_raised``, ``play``, ``trick``, ``claim`` (the claimant's cards laid down, the
tricks credited: ``server.engine.claims``), ``hand_scored``, ``game_over``. Only ``pass``
carries hidden cards; ``hand_scored`` carries the finished hand's deal, which is public
once the hand is over. The server broadcasts views, never raw events.
"""

from __future__ import annotations

import random

from server.engine.actions import (
    ACTION_FIELDS,
    PHASE_ACTION,
    IllegalAction,
    LogEntry,
    action_dict,
    action_kind,
    bad_seat,
    checked_code,
    claim_refusal,
)
from server.engine.auction import Auction
from server.engine.cards import INDEX, CardOrder, Taken
from server.engine.claims import ClaimCheck, lay_down
from server.engine.dealing import checked_deck, hand_deck, shuffle
from server.engine.fairness import Deals, HandFairness, NextDeal, checked_seed
from server.engine.results import game_end, hand_result
from server.engine.rules import BiddingFormat, Rules
from server.engine.saved import STATE_FORMAT, current_state, read_state, trick_plays
from server.engine.shapes import (
    Action,
    Bid,
    CurrentState,
    Event,
    GameState,
    HandClaim,
    HandResult,
    Phase,
    SideScore,
    TrickPlays,
    View,
)
from server.engine.table import Table
from server.engine.tricks import Tricks, first_lead
from server.engine.view import copy_result, seat_view

# ACTION_FIELDS, PHASE_ACTION, STATE_FORMAT and shuffle live in actions, saved and
# dealing; imported from here too.
__all__ = ["ACTION_FIELDS", "PHASE_ACTION", "STATE_FORMAT", "Game", "IllegalAction", "shuffle"]


class Game:
    """A whole game at one table: every hand until a side wins.

    ``Game(rules, seed=None, decks=None, dealer=None)``: ``decks[k]`` (card codes in deal
    order) is used for hand ``k`` (0-based); later hands are shuffled from ``seed``. The
    first dealer is ``dealer`` or drawn from ``seed``. The same seed always gives the
    same dealer and shuffles, and ``to_state()`` keeps it, so a restored game shuffles
    exactly as the original would have.

    ``Game(rules, deals=Deals.fresh(table_id, key))`` deals every hand verifiably instead
    (``server.engine.fairness``, without ``decks``): each hand from its committed server
    seed and the players' seeds (``add_seed``), the first dealer from hand 1's seed.
    """

    # Set when a hand starts (or a game is restored): where the hand stands.
    phase: Phase
    seat_to_play: int
    # The current hand's phases: its auction, and its tricks once play has started.
    _auction: Auction
    _tricks: Tricks | None
    # Whether the seat about to lead may claim, worked out once per trick.
    _claims: ClaimCheck

    def __init__(
        self,
        rules: Rules,
        seed: int | str | None = None,
        decks: list[list[str]] | None = None,
        dealer: int | None = None,
        deals: Deals | None = None,
    ) -> None:
        if not isinstance(rules, Rules):
            raise TypeError("rules must be a Rules instance")
        if deals is not None and decks:
            raise ValueError("a game is dealt from its decks or from its deals, not both")
        self.rules = rules
        self.seed: int | str = random.SystemRandom().getrandbits(62) if seed is None else seed
        self.decks = [checked_deck(rules, deck) for deck in decks or []]
        self.deals = deals
        players = rules.players
        if dealer is None and deals is not None:
            dealer = deals.dealer(players)
        elif dealer is None:
            dealer = random.Random(f"spades:{self.seed}:dealer").randrange(players)
        elif isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < players:
            raise ValueError(f"dealer must be a seat 0-{players - 1}")
        self.first_dealer = dealer
        self._table = Table(rules)
        self._scores = [[0, 0] for _ in self._table.sides]
        self.hand_results: list[HandResult] = []
        # The cards of the latest hand this object saw finish, in play order, and the last
        # trick's taker, by hand number: `plays_of` makes the replay record from them when
        # the store writes the hand, right after its last card. Not in views, events or
        # snapshots; one hand only, so that a long-lived game keeps no growing record.
        self._hands_played: dict[int, tuple[list[tuple[int, int]], int]] = {}
        self._log: list[LogEntry] = []
        self.winner: int | None = None
        self.hand_number = 0
        self.dealer = (dealer - 1) % players
        # The last trick of the hands before this one (the view's until this hand's first).
        self._last_trick: Taken | None = None
        self._claims = ClaimCheck()
        self._start_hand(None)

    # ----------------------------------------------------------------- public reading

    @property
    def turn(self) -> list[int]:
        """Seats that may act now: one seat, the passers not yet done, or none."""
        if self.phase == "over":
            return []
        if self.phase == "pass":
            return self._auction.waiting_passers()
        return [self.seat_to_play]

    @property
    def hands(self) -> list[list[int]]:
        """Each seat's cards as engine ints, in hand order (the engine's own lists: read
        them, never change them)."""
        tricks = self._tricks
        return self._auction.hands if tricks is None else tricks.hands

    @property
    def hand_sizes(self) -> list[int]:
        """How many cards each seat holds (without rebuilding any seat's cards)."""
        tricks = self._tricks
        if tricks is None:
            return [len(cards) for cards in self._auction.hands]
        return tricks.counts()

    def hand_size(self, seat: int) -> int:
        """How many cards ``seat`` holds: ``hand_sizes[seat]``, without a list of every
        seat's (the seat encoder reads it for each seat not on turn, every move)."""
        tricks = self._tricks
        return len(self._auction.hands[seat]) if tricks is None else tricks.count(seat)

    def hand(self, seat: int) -> list[int]:
        """``hands[seat]``, rebuilding only that seat's ints when they are stale (a fresh
        list then; the engine's own otherwise: read it, do not change it)."""
        tricks = self._tricks
        return self._auction.hands[seat] if tricks is None else tricks.hand(seat)

    @property
    def scores(self) -> list[SideScore]:
        """Each side's score and bag count, side k listed by its lowest seat."""
        return [{"score": score, "bags": bags} for score, bags in self._scores]

    @property
    def bids(self) -> list[Bid | None]:
        """Each seat's bid this hand (None: not yet; the engine's own list)."""
        return self._auction.bids

    @property
    def tricks_won(self) -> list[int]:
        """Tricks each seat has taken this hand (the engine's own list while playing)."""
        tricks = self._tricks
        return [0] * self._table.players if tricks is None else tricks.tricks_won

    @property
    def log(self) -> list[tuple[int, Action]]:
        """Every accepted action so far as ``(seat, action)``, in order (a fresh list).

        Replaying it on ``Game(rules, seed=..., decks=..., dealer=...)`` rebuilds the game.
        Pass actions hold hidden cards: like ``to_state()``, keep the log on the server.
        """
        return self.log_since(0)

    def log_since(self, start: int) -> list[tuple[int, Action]]:
        """``log[start:]``, made without the entries before ``start`` (the log only grows:
        a caller that keeps what it made of the older entries asks for the new ones)."""
        return [(entry[0], action_dict(entry)) for entry in self._log[start:]]

    @property
    def sides(self) -> list[list[int]]:
        """Seats of each side."""
        return [list(seats) for seats in self._table.sides]

    def legal(self, seat: int | None) -> list[Action]:
        """Every action ``act`` accepts from ``seat`` now (empty when not its turn).

        Pass actions list each set of cards once, in hand order. ``view(seat)["legal"]``
        carries the pass in a compact form instead: one ``{"type": "pass", "count": n}``
        (pass any ``n`` cards of the seat's own hand), since the sets run to thousands
        (a 4-card pass at six players lists about 1,500 of them).
        """
        phase = self.phase
        tricks = self._tricks
        if (
            phase == "play"
            and seat == self.seat_to_play
            and type(seat) is int
            and tricks is not None
        ):
            # The common case, first: a card to play.
            codes = tricks.legal_codes
            if codes is None:
                codes = tricks.legal_code_list(seat)
            actions: list[Action] = [{"type": "play", "card": code} for code in codes]
            if not tricks.trick and self._may_claim(tricks):
                actions.append({"type": "claim"})
            return actions
        if not self._is_seat(seat):
            return []
        if phase == "pass" or phase == "over":
            if seat not in self.turn:
                return []
        elif seat != self.seat_to_play:
            return []
        if phase == "play" and tricks is not None:
            # A seat given as another kind of int: the same answer as the common case.
            return self.legal(int(seat))
        return self._auction.legal(seat)

    def legal_cards(self, seat: int) -> list[str]:
        """Fast path for bots and benchmarks: the cards ``seat`` may play now.

        Same answer as the ``"play"`` actions of ``legal(seat)``, as a fresh list of
        codes; empty when not playing or not ``seat``'s turn.
        """
        tricks = self._tricks
        if (
            seat != self.seat_to_play
            or self.phase != "play"
            or type(seat) is not int
            or tricks is None
        ):
            return []
        return (tricks.legal_codes or tricks.legal_code_list(seat))[:]

    # ------------------------------------------------------------------- acting

    def act(self, seat: int, action: Action) -> list[Event]:
        """Apply one action from ``seat``; return the events. IllegalAction if refused.

        ``action`` may come from anywhere (a client, a file): whatever its type says, a
        malformed one is refused as ``bad_action``.
        """
        if (
            type(action) is dict
            and len(action) == 2
            and action.get("type") == "play"
            and self.phase == "play"
            and seat == self.seat_to_play
            and type(seat) is int
        ):
            # The common case, first: a legal card from the seat on turn. Anything else
            # (a card it may not play, a malformed action) takes the checked path below.
            code = action.get("card")
            tricks = self._tricks
            assert tricks is not None
            codes = tricks.legal_codes
            if codes is None:
                codes = tricks.legal_code_list(seat)
            if type(code) is str and code in codes:
                events: list[Event] = []
                self.seat_to_play = tricks.play_card(seat, INDEX[code], code, events)
                if tricks.over:
                    self._finish_hand(events)
                return events
        elif (
            type(action) is dict
            and len(action) == 2
            and action.get("type") == "bid"
            and self.phase == "bid"
            and seat == self.seat_to_play
            and type(seat) is int
        ):
            # The next most common: a legal bid from the seat on turn.
            bid = action.get("bid")
            auction = self._auction
            if type(bid) is int and bid in auction.legal_bids(seat):
                events = auction.bid(seat, bid)
                self._follow_auction()
                return events
        if not self._is_seat(seat):
            raise bad_seat(seat)
        phase = self.phase
        on_turn = seat == self.seat_to_play if phase != "pass" else seat in self.turn
        # The seats on turn only name who is awaited in a refusal.
        kind, value = action_kind(phase, on_turn, () if on_turn else self.turn, action)
        if kind == "claim":
            tricks = self._tricks
            assert tricks is not None
            if tricks.trick or not self._may_claim(tricks):
                raise claim_refusal(leading=not tricks.trick)
            return self._claim_rest(seat, tricks)
        if kind == "play":
            tricks = self._tricks
            assert tricks is not None
            code = checked_code(value)
            events = []
            self.seat_to_play = tricks.play_card(
                seat, tricks.checked_card(seat, code), code, events
            )
            if tricks.over:
                self._finish_hand(events)
            return events
        events = self._auction.act(seat, kind, value)
        self._follow_auction()
        return events

    def play(self, seat: int, card: str) -> None:
        """Fast path: ``act(seat, {"type": "play", "card": card})`` with the same checks
        and the same change of state, but no events are built and None is returned.

        An illegal card raises the same IllegalAction as ``act``. Meant for bots and
        benchmarks that read the state rather than events; the server uses ``act``.
        """
        tricks = self._tricks
        if (
            seat == self.seat_to_play
            and self.phase == "play"
            and type(seat) is int
            and tricks is not None
        ):
            codes = tricks.legal_codes
            if codes is None:
                codes = tricks.legal_code_list(seat)
            if type(card) is str and card in codes:
                self.seat_to_play = tricks.play_card(seat, INDEX[card], card, None)
                if tricks.over:
                    self._finish_hand(None)
                return
        self.act(seat, {"type": "play", "card": card})

    def _may_claim(self, tricks: Tricks) -> bool:
        """Whether the seat on lead may claim now (``server.engine.claims``)."""
        return self._claims.may_claim(
            self._table, tricks, self._auction, self.hand_number, self.seat_to_play
        )

    def _claim_rest(self, seat: int, tricks: Tricks) -> list[Event]:
        """``seat``'s checked claim: its cards laid down, the rest of the tricks its own,
        the hand scored."""
        claim = lay_down(self._table, tricks, seat)
        self._log.append((seat, "claim", True))
        events: list[Event] = [{"type": "claim", **claim}]
        self._finish_hand(events, claim)
        return events

    # ------------------------------------------------------------------- viewing

    def view(self, seat: int | None = None) -> View:
        """What ``seat`` may see (``None``: a spectator), JSON-safe.

        Never holds another seat's cards, the stock, discards, or passed cards before
        the exchange. A seat that still owes its blind nil decision sees ``hand: None``.
        ``seat`` echoes the viewer (``None`` for a spectator).

        ``legal`` is ``legal(seat)``, except in the pass: one ``{"type": "pass",
        "count": n}`` (pass any n cards of your hand) instead of every set of cards.

        ``contracts``: one entry per side, each side's contract (``side_contract``: the
        sum of its non-nil bids, under team bidding the larger; 0 for a side of nils) as
        soon as all its seats have bid, None for a side still bidding; the whole list is
        None while no side has finished bidding (a new hand starts so). It stays through
        the play, and after the last hand of the game.

        >>> game = Game(Rules.preset("two_player"), seed=3, dealer=0)
        >>> view = game.view(1)
        >>> view["draw_card"] is not None, game.view(0)["draw_card"], game.view(None)["hand"]
        (True, None, None)
        """
        if seat is not None and not self._is_seat(seat):
            raise bad_seat(seat)
        return seat_view(self, seat)

    # The public reading the view is built from (engine ints; read, never change).

    @property
    def card_order(self) -> CardOrder:
        """How this table's cards compare (suits, powers, sorting)."""
        return self._table.order

    @property
    def contracts(self) -> list[int | None] | None:
        """Each side's contract as the view gives it (see ``view``)."""
        return self._auction.side_contracts()

    @property
    def trick(self) -> list[tuple[int, int]]:
        """The trick on the table, ``(seat, card)`` in play order."""
        tricks = self._tricks
        return [] if tricks is None else tricks.trick

    @property
    def played(self) -> list[tuple[int, int]]:
        """The cards of this hand's finished tricks, ``(seat, card)`` in play order."""
        tricks = self._tricks
        return [] if tricks is None else tricks.played

    @property
    def last_trick(self) -> Taken | None:
        """The last finished trick and its winner (the previous hand's until the first
        trick of this one is complete)."""
        tricks = self._tricks
        return self._last_trick if tricks is None else tricks.last_trick

    @property
    def spades_broken(self) -> bool:
        tricks = self._tricks
        return tricks is not None and tricks.spades_broken

    def draw_card(self, seat: int | None) -> str | None:
        """The stock's top card, for the seat on turn in the draw only (else None)."""
        if self.phase == "draw" and seat == self.seat_to_play:
            return self._auction.draw_card()
        return None

    @property
    def stock_size(self) -> int:
        """Cards left in the stock during the draw (0 otherwise)."""
        return self._auction.stock_size() if self.phase == "draw" else 0

    @property
    def bidding(self) -> BiddingFormat:
        """The bidding format of the hand in progress (``Rules.format_of``)."""
        return self._auction.rules.bidding

    @property
    def pass_count(self) -> int:
        """Cards each passer gives in the pass under way (0 outside a pass)."""
        return self._auction.pass_count() if self.phase == "pass" else 0

    @property
    def pending(self) -> list[int]:
        """Seats that still owe a blind nil decision or a pass (seats only, no cards)."""
        if self.phase == "blind":
            return self._auction.owing_blind()
        if self.phase == "pass":
            return self.turn
        return []

    def add_seed(self, seat: int, value: str) -> None:
        """``seat``'s own seed for the next deal (the next game's first after the last
        hand): its last one counts. ValueError for a game without deals or a bad seed."""
        if self.deals is None:
            raise ValueError("this game is not dealt from seeds")
        if not self._is_seat(seat):
            raise bad_seat(seat)
        self.deals.add_seed(seat, checked_seed(value))

    def next_deal(self) -> NextDeal | None:
        """The next deal as everyone may see it (hand 1 of the next game once this one is
        over); None for a game without deals."""
        if self.deals is None:
            return None
        return self.deals.next_deal(1 if self.phase == "over" else self.hand_number + 1)

    def deal_proof(self, hand_number: int) -> HandFairness | None:
        """What proves a finished hand's deal (its server seed, revealed); None for a hand
        not over yet or a game without deals."""
        over = self.hand_number - (0 if self.phase == "over" else 1)
        if self.deals is None or not 1 <= hand_number <= over:
            return None
        return self.deals.revealed(hand_number, self._table.base_deck)

    def plays_of(self, hand_number: int) -> list[TrickPlays] | None:
        """Every trick of the latest hand this game object saw finish, in order: its
        leader, its cards, its taker (who leads the next one); None for any other hand.

        >>> game = Game(Rules.preset("standard"), seed=2)
        >>> game.plays_of(1) is None
        True
        """
        kept = self._hands_played.get(hand_number)
        if kept is None:
            return None
        played, last_taker = kept
        return trick_plays(played, last_taker, self._table.players)

    # ------------------------------------------------------------------ save/restore

    def to_state(self) -> GameState:
        """Everything needed to rebuild this exact game, JSON-safe (``server.engine.saved``).

        Holds every secret (hands, stock, seed): keep it on the server, never send it.
        The dict is a fresh copy: changing it does not change the game.
        """
        return {
            **self.current_state(),
            "hand_results": [copy_result(result) for result in self.hand_results],
            "log": self.log,
        }

    def current_state(self) -> CurrentState:
        """``to_state()`` but its history (``hand_results`` and ``log``, its last keys): a
        caller that encodes the state may read those as they are (``hand_results``, never
        changed once appended; ``log_since``) instead of copying them.

        >>> game = Game(Rules.preset("standard"), seed=4)
        >>> state = game.to_state()
        >>> {**game.current_state(), "hand_results": [], "log": []} == state
        True
        """
        return current_state(self, self._auction, self._tricks)

    @classmethod
    def from_state(cls, data: GameState) -> Game:
        """The game ``to_state()`` described, continuing exactly as the original would.

        ``data`` may be ``to_state()``'s dict or one read back from its JSON (lists where
        it has tuples); ValueError if it is not a saved game, or a damaged one.

        >>> game = Game(Rules.preset("standard"), seed=1)
        >>> Game.from_state(game.to_state()).to_state() == game.to_state()
        True
        """
        saved = read_state(data)
        game = cls.__new__(cls)
        game.rules = saved.rules
        game.seed = saved.seed
        game.decks = saved.decks
        game.deals = saved.deals
        game.first_dealer = saved.first_dealer
        game._table = saved.table
        game._scores = saved.scores
        game.hand_results = saved.hand_results
        game._hands_played = {}
        game._log = saved.log
        game.winner = saved.winner
        game.hand_number = saved.hand_number
        game.dealer = saved.dealer
        game._last_trick = saved.last_trick
        game.phase = saved.phase
        game.seat_to_play = saved.seat_to_play
        game._auction = saved.auction
        game._tricks = saved.tricks
        game._claims = ClaimCheck()
        return game

    # ------------------------------------------------------------------ from hand to hand

    def _start_hand(self, events: list[Event] | None) -> None:
        """Deal the next hand and open its auction."""
        table = self._table
        self.hand_number += 1
        self.dealer = (self.dealer + 1) % table.players
        if self.deals is not None:
            deck = self.deals.deal(self.hand_number, table.base_deck)
        else:
            deck = hand_deck(self.decks, table.base_deck, self.seed, self.hand_number - 1)
        self._tricks = None
        self._auction = Auction.start(
            table, deck, self.dealer, self._scores, self._log, self.hand_number
        )
        if events is not None:
            events.append(
                {"type": "hand_start", "hand_number": self.hand_number, "dealer": self.dealer}
            )
        self._follow_auction()

    def _follow_auction(self) -> None:
        """After an auction action: its phase and seat on turn, or the play once every
        seat has bid."""
        auction = self._auction
        if auction.phase != "play":
            self.phase = auction.phase
            self.seat_to_play = auction.seat
            return
        hands = auction.hands
        leader, forced_lead = first_lead(self._table, hands, self.dealer)
        self._tricks = Tricks(
            self._table, hands, self._log, forced_lead=forced_lead, last_trick=self._last_trick
        )
        self.phase = "play"
        self.seat_to_play = leader

    def _finish_hand(self, events: list[Event] | None, claim: HandClaim | None = None) -> None:
        """Score the hand whose last trick was just taken, or that ``claim`` ended; then
        the next hand, or the end (``server.engine.results``)."""
        tricks = self._tricks
        assert tricks is not None
        auction = self._auction
        result = hand_result(
            auction.rules,
            self.hand_number,
            self.dealer,
            auction.bids,
            tricks.tricks_won,
            self.scores,
            auction.deal,
            claim,
        )
        sides = result["sides"]
        self._scores = [[side["score"], side["bags"]] for side in sides]
        self.hand_results.append(result)
        # `played` is a new list each hand: kept as it is, the dicts made only when asked.
        self._last_trick = tricks.last_trick
        if claim is not None:
            # The claimant leads: it took the last trick played, if any.
            taker = claim["seat"]
        else:
            assert tricks.last_trick is not None
            taker = tricks.last_trick[1]
        self._hands_played = {self.hand_number: (tricks.played, taker)}
        if events is not None:
            events.append({"type": "hand_scored", **copy_result(result)})
        over, self.winner = game_end(self.rules, self.hand_number, sides)
        if over:
            self.phase = "over"
            if events is not None:
                events.append({"type": "game_over", "winner": self.winner, "scores": self.scores})
            return
        self._start_hand(events)

    def _is_seat(self, seat: object) -> bool:
        return (
            isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < self._table.players
        )
