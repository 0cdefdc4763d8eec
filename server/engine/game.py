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

Decisions where docs/rules.md is silent:

- Blind nil decisions are taken one seat at a time in bidding order (so a partner's
  declaration can stop the other being asked), before the pass and, for two players,
  before the draw. Eligibility uses the scores before the hand.
- A player holds their cards while they choose their pass; they see them once the
  exchange is done. Both partners of a double blind nil pass to each other.
- Bids go up to the cards in a hand; a side's total is not capped (an impossible
  contract is simply set).
- ``bidding: "team"``: the first partner bids 1..hand size or nil; the second bids at
  least the first partner's number (and ``min_team_bid``), or nil.
- ``two_clubs`` forces the first lead to be the lowest club; if nobody holds a club (two
  players may discard them all) the player left of the dealer leads as usual.
- ``lowest_club``: if nobody plays a club or a spade on the first trick, the highest
  card of the first card's suit wins it.
- The stock of the draw method: turns alternate starting with the non-dealer; keeping
  the top card discards the next one unseen, refusing it keeps the next one.
- Blind nil eligibility: the leading other side's score minus the player's side's score
  is at least ``blind_nil_behind_by`` (so ``0`` lets a tied side declare).
- With ``min_team_bid > 0`` a blind nil bidder's partner must bid at least
  ``min_team_bid`` (a blind nil is a nil for every bidding rule).
- The game ends after a hand when a side reaches ``target_score`` or any side falls to
  ``lose_score``; the highest score wins, and a tie for the highest plays another hand.
  ``all_tricks: "win"`` gives the game to the side that took every trick, whatever
  the scores.
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

The jobs around the state machine live beside it: ``play`` (which cards may be played),
``cards`` (who takes a trick), ``actions`` (action shapes and refusals), ``view`` (what a
seat sees), ``dealing`` (decks and shuffles), ``scoring``.

Events returned by ``act`` (a list of dicts, each with ``"type"``; ``Event`` in
``server.engine.shapes``): ``hand_start``, ``blind_nil``, ``pass_chosen`` (seat only),
``pass`` (**private**: the cards a seat gave its partner), ``draw`` (seat only), ``bid``,
``bid_raised``, ``play``, ``trick``, ``hand_scored``, ``game_over``. Only ``pass``
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
    bid_refusal,
    card_refusal,
    checked_bool,
    checked_code,
    checked_pass,
    logged_action,
    pass_actions,
)
from server.engine.cards import (
    CARD_SLOTS,
    CLUBS,
    CODES,
    INDEX,
    SPADES,
    CardOrder,
    card_order,
    counted_led,
    deck_codes,
    taking,
)
from server.engine.dealing import checked_deck, shuffle
from server.engine.play import first_trick_plays, legal_plays
from server.engine.rules import Rules
from server.engine.scoring import (
    BLIND_NIL,
    final_bids,
    game_winner,
    is_nil,
    score_sides,
    side_contract,
)
from server.engine.shapes import (
    Action,
    Bid,
    CurrentState,
    Event,
    GameState,
    HandResult,
    Phase,
    SideScore,
    TrickPlays,
    View,
)
from server.engine.view import copy_result, seat_cards, seat_view

# ACTION_FIELDS, PHASE_ACTION and shuffle live in actions and dealing; imported from here too.
__all__ = ["ACTION_FIELDS", "PHASE_ACTION", "STATE_FORMAT", "Game", "IllegalAction", "shuffle"]

STATE_FORMAT = 1


class Game:
    """A whole game at one table: every hand until a side wins.

    ``Game(rules, seed=None, decks=None, dealer=None)``: ``decks[k]`` (card codes in deal
    order) is used for hand ``k`` (0-based); later hands are shuffled from ``seed``. The
    first dealer is ``dealer`` or drawn from ``seed``. The same seed always gives the
    same dealer and shuffles, and ``to_state()`` keeps it, so a restored game shuffles
    exactly as the original would have.
    """

    def __init__(
        self,
        rules: Rules,
        seed: int | str | None = None,
        decks: list[list[str]] | None = None,
        dealer: int | None = None,
    ) -> None:
        if not isinstance(rules, Rules):
            raise TypeError("rules must be a Rules instance")
        self.rules = rules
        self.seed: int | str = random.SystemRandom().getrandbits(62) if seed is None else seed
        self.decks = [checked_deck(rules, deck) for deck in decks or []]
        players = rules.players
        if dealer is None:
            dealer = random.Random(f"spades:{self.seed}:dealer").randrange(players)
        elif isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < players:
            raise ValueError(f"dealer must be a seat 0-{players - 1}")
        self.first_dealer = dealer
        self._setup()
        self._scores = [[0, 0] for _ in self._sides]
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
        self._last_trick: tuple[list[tuple[int, int]], int] | None = None
        self._start_hand([])

    def _setup(self) -> None:
        """Derived, immutable lookups (also rebuilt by ``from_state``)."""
        rules = self.rules
        self._n = rules.players
        self._order = card_order(rules.deck)
        self._suit = self._order.suit
        self._code_suit = self._order.code_suit
        self._power = self._order.power
        self._sides = rules.sides
        self._side_of = [0] * self._n
        self._next_seat = [*range(1, self._n), 0]
        for index, seats in enumerate(self._sides):
            for seat in seats:
                self._side_of[seat] = index
        self._hand_size = rules.hand_size
        self._base_deck = [INDEX[code] for code in deck_codes(rules.players, rules.deck)]
        self._duplicates = rules.players == 6
        self._lowest_club_first = rules.first_lead == "lowest_club"
        self._blind_possible = rules.blind_nil and rules.nil
        # Of identical cards (only six players have them) the later takes the trick.
        self._later_wins = self._duplicates and rules.duplicate_later_wins
        # Whether a follow's legal cards are legal_plays' answer as it is (no identical
        # cards to list once), so that _play_card may work them out at once.
        self._plain_follows = not self._duplicates
        self._guard_spades = rules.spades_broken_to_lead
        self._win_key = self._order.win_key
        self._trick_entry, self._log_entry = _play_entries(self._n)
        self._partner_of = [
            next((other for other in self._sides[self._side_of[seat]] if other != seat), None)
            for seat in range(self._n)
        ]
        self._legal_codes: list[str] | None = None
        self._bids_cache: tuple[int, list[Bid | None], list[int]] | None = None
        # During play, each seat's cards as codes in hand order, all of them and by
        # suit (built when play starts or a game in play is restored), so that the legal
        # cards of a follow are a list that already exists. Empty before play.
        self._hand_codes: list[list[str]] = []
        # Each seat's cards as ints; during play rebuilt from the codes when stale.
        self._hands: list[list[int]] = []
        self._hands_fresh = True
        self._suit_codes: list[list[list[str]]] = []

    # ----------------------------------------------------------------- public reading

    @property
    def turn(self) -> list[int]:
        """Seats that may act now: one seat, the passers not yet done, or none."""
        if self.phase == "over":
            return []
        if self.phase == "pass":
            return [seat for seat in self._passers if seat not in self._passes]
        return [self.seat_to_play]

    @property
    def hands(self) -> list[list[int]]:
        """Each seat's cards as engine ints, in hand order (the engine's own lists).

        During play the code lists kept for the legal cards are the record; the int
        lists are rebuilt from them here, once after cards were played, so that playing
        a card updates one representation, not two.
        """
        if not self._hands_fresh:
            self._hands = [[INDEX[code] for code in codes] for codes in self._hand_codes]
            self._hands_fresh = True
        return self._hands

    @property
    def hand_sizes(self) -> list[int]:
        """How many cards each seat holds (read from whichever record is current, so that
        no seat's cards are rebuilt for it)."""
        return [len(cards) for cards in (self._hands if self._hands_fresh else self._hand_codes)]

    def hand_size(self, seat: int) -> int:
        """How many cards ``seat`` holds: ``hand_sizes[seat]``, without a list of every
        seat's (the seat encoder reads it for each seat not on turn, every move)."""
        return len((self._hands if self._hands_fresh else self._hand_codes)[seat])

    def hand(self, seat: int) -> list[int]:
        """``hands[seat]``, rebuilding only that seat's ints when they are stale (a fresh
        list then; the engine's own otherwise: read it, do not change it)."""
        if self._hands_fresh:
            return self._hands[seat]
        return [INDEX[code] for code in self._hand_codes[seat]]

    @property
    def scores(self) -> list[SideScore]:
        """Each side's score and bag count, side k listed by its lowest seat."""
        return [{"score": score, "bags": bags} for score, bags in self._scores]

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
        return [list(seats) for seats in self._sides]

    def legal(self, seat: int | None) -> list[Action]:
        """Every action ``act`` accepts from ``seat`` now (empty when not its turn).

        Pass actions list each set of cards once, in hand order. ``view(seat)["legal"]``
        carries the pass in a compact form instead: one ``{"type": "pass", "count": n}``
        (pass any ``n`` cards of the seat's own hand), since the sets run to thousands
        (a 4-card pass at six players lists about 1,500 of them).
        """
        phase = self.phase
        if phase == "play" and seat == self.seat_to_play and type(seat) is int:
            # The common case, first: a card to play.
            codes = self._legal_codes
            if codes is None:
                codes = self._legal_code_list()
            return [{"type": "play", "card": code} for code in codes]
        if not (type(seat) is int and 0 <= seat < self._n) and not self._is_seat(seat):
            return []
        if phase == "pass" or phase == "over":
            if seat not in self.turn:
                return []
        elif seat != self.seat_to_play:
            return []
        if phase == "play":
            return [{"type": "play", "card": code} for code in self._legal_code_list()]
        if phase == "bid":
            return [{"type": "bid", "bid": bid} for bid in self._legal_bids(seat)]
        if phase == "blind":
            return [{"type": "blind_nil", "declare": True}, {"type": "blind_nil", "declare": False}]
        if phase == "draw":
            return [{"type": "draw", "keep": True}, {"type": "draw", "keep": False}]
        hand = self._order.sorted_codes(self.hands[seat])
        return [*pass_actions(hand, self.rules.blind_nil_pass)]

    def legal_cards(self, seat: int) -> list[str]:
        """Fast path for bots and benchmarks: the cards ``seat`` may play now.

        Same answer as the ``"play"`` actions of ``legal(seat)``, as a fresh list of
        codes; empty when not playing or not ``seat``'s turn.
        """
        if seat != self.seat_to_play or self.phase != "play" or type(seat) is not int:
            return []
        return (self._legal_codes or self._legal_code_list())[:]

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
            codes = self._legal_codes
            if codes is None:
                codes = self._legal_code_list()
            if type(code) is str and code in codes:
                events: list[Event] = []
                self._play_card(seat, INDEX[code], code, events)
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
            if type(bid) is int and bid in self._legal_bids(seat):
                return self._bid(seat, bid)
        if not self._is_seat(seat):
            raise bad_seat(seat)
        phase = self.phase
        on_turn = seat == self.seat_to_play if phase != "pass" else seat in self.turn
        # The seats on turn only name who is awaited in a refusal.
        kind, value = action_kind(phase, on_turn, () if on_turn else self.turn, action)
        if kind == "play":
            code = checked_code(value)
            card = self._checked_card(code)
            events = []
            self._play_card(seat, card, code, events)
        elif kind == "bid":
            events = self._bid(seat, self._checked_bid(seat, value))
        elif kind == "blind_nil":
            events = self._declare_blind(seat, checked_bool(value, "declare"))
        elif kind == "draw":
            events = self._draw(seat, checked_bool(value, "keep"))
        else:
            events = self._choose_pass(
                seat, checked_pass(value, self.rules.blind_nil_pass, self.hands[seat])
            )
        return events

    def play(self, seat: int, card: str) -> None:
        """Fast path: ``act(seat, {"type": "play", "card": card})`` with the same checks
        and the same change of state, but no events are built and None is returned.

        An illegal card raises the same IllegalAction as ``act``. Meant for bots and
        benchmarks that read the state rather than events; the server uses ``act``.
        """
        if seat == self.seat_to_play and self.phase == "play" and type(seat) is int:
            codes = self._legal_codes
            if codes is None:
                codes = self._legal_code_list()
            if type(card) is str and card in codes:
                self._play_card(seat, INDEX[card], card, None)
                return
        self.act(seat, {"type": "play", "card": card})

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
        return self._order

    @property
    def contracts(self) -> list[int | None] | None:
        """Each side's contract as the view gives it (see ``view``)."""
        return self._side_contracts()

    @property
    def trick(self) -> list[tuple[int, int]]:
        """The trick on the table, ``(seat, card)`` in play order."""
        return self._trick

    @property
    def played(self) -> list[tuple[int, int]]:
        """The cards of this hand's finished tricks, ``(seat, card)`` in play order."""
        return self._played

    @property
    def last_trick(self) -> tuple[list[tuple[int, int]], int] | None:
        """The last finished trick and its winner (the previous hand's until the first
        trick of this one is complete)."""
        return self._last_trick

    @property
    def spades_broken(self) -> bool:
        return self._spades_broken

    def draw_card(self, seat: int | None) -> str | None:
        """The stock's top card, for the seat on turn in the draw only (else None)."""
        if self.phase == "draw" and seat == self.seat_to_play:
            return CODES[self._stock[self._stock_pos]]
        return None

    @property
    def stock_size(self) -> int:
        """Cards left in the stock during the draw (0 otherwise)."""
        return len(self._stock) - self._stock_pos if self.phase == "draw" else 0

    @property
    def pending(self) -> list[int]:
        """Seats that still owe a blind nil decision or a pass (seats only, no cards)."""
        if self.phase == "blind":
            return self._owing_blind()
        if self.phase == "pass":
            return self.turn
        return []

    # ------------------------------------------------------------------ save/restore

    def to_state(self) -> GameState:
        """Everything needed to rebuild this exact game, JSON-safe.

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
        return {
            "format": STATE_FORMAT,
            "rules": self.rules.model_dump(),
            "seed": self.seed,
            "decks": [[CODES[c] for c in deck] for deck in self.decks],
            "first_dealer": self.first_dealer,
            "dealer": self.dealer,
            "hand_number": self.hand_number,
            "phase": self.phase,
            "turn": self.seat_to_play,
            "scores": [list(side) for side in self._scores],
            "winner": self.winner,
            "hands": [[CODES[c] for c in cards] for cards in self.hands],
            "bids": list(self.bids),
            "contracts": self._side_contracts(),
            "blind_queue": list(self._blind_queue),
            "passers": list(self._passers),
            "passes": [(seat, [CODES[c] for c in cards]) for seat, cards in self._passes.items()],
            "stock": [CODES[c] for c in self._stock],
            "stock_pos": self._stock_pos,
            "trick": [(seat, CODES[c]) for seat, c in self._trick],
            "played": [(seat, CODES[c]) for seat, c in self._played],
            "tricks_won": list(self.tricks_won),
            "trick_number": self._trick_number,
            "spades_broken": self._spades_broken,
            "forced_lead": None if self._forced_lead is None else CODES[self._forced_lead],
            "deal": self._deal,
            "last_trick": None
            if self._last_trick is None
            else ([(seat, CODES[c]) for seat, c in self._last_trick[0]], self._last_trick[1]),
        }

    @classmethod
    def from_state(cls, data: GameState) -> Game:
        """The game ``to_state()`` described, continuing exactly as the original would.

        ``data`` may be ``to_state()``'s dict or one read back from its JSON (lists where
        it has tuples); ValueError if it is not a saved game, or a damaged one.

        >>> game = Game(Rules.preset("standard"), seed=1)
        >>> Game.from_state(game.to_state()).to_state() == game.to_state()
        True
        """
        if not isinstance(data, dict) or data.get("format") != STATE_FORMAT:
            raise ValueError("not a saved Spades game of a known format")
        try:
            return cls._restore(data)
        except (KeyError, IndexError, TypeError, AttributeError) as error:
            raise ValueError(f"a damaged saved game: {error!r}") from error

    @classmethod
    def _restore(cls, data: GameState) -> Game:
        game = cls.__new__(cls)
        game.rules = Rules.model_validate(data["rules"])
        game.seed = data["seed"]
        game.decks = [checked_deck(game.rules, deck) for deck in data["decks"]]
        game.first_dealer = data["first_dealer"]
        game._setup()
        game.dealer = data["dealer"]
        game.hand_number = data["hand_number"]
        game.phase = data["phase"]
        game.seat_to_play = data["turn"]
        game._scores = [list(side) for side in data["scores"]]
        game.winner = data["winner"]
        game._hands = [[INDEX[code] for code in cards] for cards in data["hands"]]
        game._hands_fresh = True
        game.bids = list(data["bids"])
        game._blind_queue = list(data["blind_queue"])
        game._passers = list(data["passers"])
        game._passes = {seat: [INDEX[code] for code in cards] for seat, cards in data["passes"]}
        game._stock = [INDEX[code] for code in data["stock"]]
        game._stock_pos = data["stock_pos"]
        game._trick = [(seat, INDEX[code]) for seat, code in data["trick"]]
        game._played = [(seat, INDEX[code]) for seat, code in data["played"]]
        game.tricks_won = list(data["tricks_won"])
        game._trick_number = data["trick_number"]
        game._spades_broken = data["spades_broken"]
        game._forced_lead = None if data["forced_lead"] is None else INDEX[data["forced_lead"]]
        game._deal = [list(cards) for cards in data["deal"]]
        last = data["last_trick"]
        game._last_trick = (
            None if last is None else ([(seat, INDEX[code]) for seat, code in last[0]], last[1])
        )
        game.hand_results = [copy_result(result) for result in data["hand_results"]]
        game._hands_played = {}
        game._log = [logged_action(seat, action) for seat, action in data["log"]]
        if game.phase == "play":
            game._build_hand_codes()
        return game

    # ------------------------------------------------------------------ hand setup

    def _start_hand(self, events: list[Event] | None) -> None:
        n = self._n
        self.hand_number += 1
        self.dealer = (self.dealer + 1) % n
        index = self.hand_number - 1
        if index < len(self.decks):
            deck = list(self.decks[index])
        else:
            deck = list(self._base_deck)
            shuffle(deck, random.Random(f"spades:{self.seed}:hand:{index}"))
        self.bids: list[Bid | None] = [None] * n
        self.tricks_won = [0] * n
        self._trick: list[tuple[int, int]] = []
        self._played: list[tuple[int, int]] = []
        self._trick_number = 0
        self._spades_broken = False
        self._forced_lead: int | None = None
        self._passers: list[int] = []
        self._passes: dict[int, list[int]] = {}
        self._deal: list[list[str]] = []
        self._legal_codes = None
        self._hand_codes = []
        if n == 2:
            self._hands = [[], []]
            self._stock = deck
        else:
            self._hands = [[] for _ in range(n)]
            for offset in range(n):
                self._hands[(self.dealer + 1 + offset) % n] = deck[offset::n]
            self._stock = []
        self._hands_fresh = True
        self._stock_pos = 0
        self.phase: Phase = "blind"
        self.seat_to_play = (self.dealer + 1) % n
        if events is not None:
            events.append(
                {"type": "hand_start", "hand_number": self.hand_number, "dealer": self.dealer}
            )
        if not self._blind_possible:
            # No blind nil at this table: straight on (the same path, without the asking).
            self._blind_queue = []
            self._after_pass()
            return
        order = self._bidding_order()
        self._blind_queue = [seat for seat in order if self._blind_eligible(seat)]
        self._continue_blind()

    def _bidding_order(self) -> list[int]:
        n = self._n
        return [(self.dealer + 1 + offset) % n for offset in range(n)]

    def _blind_eligible(self, seat: int) -> bool:
        rules = self.rules
        if not (rules.blind_nil and rules.nil):
            return False
        if rules.blind_nil_behind_by is None:
            return True
        own = self._side_of[seat]
        leader = max(score for side, (score, _) in enumerate(self._scores) if side != own)
        return leader - self._scores[own][0] >= rules.blind_nil_behind_by

    def _partner(self, seat: int) -> int | None:
        return self._partner_of[seat]

    def _skips_blind(self, seat: int) -> bool:
        """A player whose partner declared blind nil is not asked when min_team_bid > 0."""
        partner = self._partner(seat)
        return (
            self.rules.min_team_bid > 0 and partner is not None and self.bids[partner] == BLIND_NIL
        )

    def _owing_blind(self) -> list[int]:
        if self.phase != "blind":
            return []
        return [seat for seat in self._blind_queue if not self._skips_blind(seat)]

    def _continue_blind(self) -> None:
        queue = self._blind_queue
        while queue and self._skips_blind(queue[0]):
            queue.pop(0)
        if queue:
            self.phase = "blind"
            self.seat_to_play = queue[0]
            return
        declared = [seat for seat in range(self._n) if self.bids[seat] == BLIND_NIL]
        if declared and self.rules.partnerships and self.rules.blind_nil_pass > 0:
            passers = set(declared)
            for seat in declared:
                partner = self._partner(seat)
                if partner is not None:
                    passers.add(partner)
            self._passers = sorted(passers)
            self.phase = "pass"
            return
        self._after_pass()

    def _after_pass(self) -> None:
        if self._n == 2:
            self.phase = "draw"
            self.seat_to_play = (self.dealer + 1) % 2
            return
        self._start_bidding()

    def _start_bidding(self) -> None:
        self._deal = [self._order.sorted_codes(cards) for cards in self.hands]
        self.phase = "bid"
        waiting = [seat for seat in self._bidding_order() if self.bids[seat] is None]
        if waiting:
            self.seat_to_play = waiting[0]
        else:
            self._start_play()

    # ------------------------------------------------------------------ setup actions

    def _declare_blind(self, seat: int, declare: bool) -> list[Event]:
        self._blind_queue.pop(0)
        if declare:
            self.bids[seat] = BLIND_NIL
            self._bids_cache = None
        self._log.append((seat, "blind_nil", declare))
        self._continue_blind()
        return [{"type": "blind_nil", "seat": seat, "declare": declare}]

    def _choose_pass(self, seat: int, cards: list[int]) -> list[Event]:
        self._passes[seat] = cards
        self._log.append((seat, "pass", tuple(self._order.sorted_codes(cards))))
        events: list[Event] = [{"type": "pass_chosen", "seat": seat}]
        if len(self._passes) < len(self._passers):
            return events
        for giver, given in self._passes.items():
            for card in given:
                self.hands[giver].remove(card)
        for giver, given in self._passes.items():
            receiver = self._partner(giver)
            assert receiver is not None
            self.hands[receiver].extend(given)
            events.append(
                {
                    "type": "pass",
                    "seat": giver,
                    "to": receiver,
                    "cards": self._order.sorted_codes(given),
                }
            )
        self._after_pass()
        return events

    def _draw(self, seat: int, keep: bool) -> list[Event]:
        top = self._stock_pos
        self.hands[seat].append(self._stock[top if keep else top + 1])
        self._stock_pos += 2
        self._log.append((seat, "draw", keep))
        if self._stock_pos >= len(self._stock):
            self._start_bidding()
        else:
            self.seat_to_play = 1 - seat
        return [{"type": "draw", "seat": seat}]

    # ------------------------------------------------------------------ bidding

    def _side_contracts(self) -> list[int | None] | None:
        """Each side's contract once all its seats have bid (None for a side still
        bidding; None for all while no side is done): docs/rules.md §6."""
        bids = self.bids
        contracts: list[int | None] = []
        for seats in self._sides:
            made = [bid for seat in seats if (bid := bids[seat]) is not None]
            contracts.append(side_contract(self.rules, made) if len(made) == len(seats) else None)
        return contracts if any(c is not None for c in contracts) else None

    def _legal_bids(self, seat: int) -> list[int]:
        """The bids ``seat`` may make now; cached until a bid changes (read, never change)."""
        cached = self._bids_cache
        if cached is not None and cached[0] == seat and cached[1] is self.bids:
            return cached[2]
        rules = self.rules
        top = self._hand_size
        allow_nil = rules.nil
        partner = self._partner(seat)
        partner_bid = None if partner is None else self.bids[partner]
        if partner is None:
            low = max(1, rules.min_team_bid)
        elif partner_bid is None:
            low = 1
        elif is_nil(partner_bid):
            low = max(1, rules.min_team_bid)
            allow_nil = allow_nil and rules.min_team_bid == 0
        elif rules.bidding == "team":
            low = max(1, int(partner_bid), rules.min_team_bid)
        else:
            low = max(1, rules.min_team_bid - int(partner_bid))
        allowed = ([0] if allow_nil else []) + list(range(low, top + 1))
        self._bids_cache = (seat, self.bids, allowed)
        return allowed

    def _bid(self, seat: int, bid: int) -> list[Event]:
        self.bids[seat] = bid
        self._bids_cache = None
        self._log.append((seat, "bid", bid))
        events: list[Event] = [{"type": "bid", "seat": seat, "bid": bid}]
        partner = self._partner(seat)
        minimum = self.rules.min_team_bid
        if bid == 0 and partner is not None:
            partner_bid = self.bids[partner]
            if isinstance(partner_bid, int) and 0 < partner_bid < minimum:
                self.bids[partner] = minimum
                events.append({"type": "bid_raised", "seat": partner, "bid": minimum})
        if None not in self.bids:
            self._start_play()
            return events
        n = self._n
        bids = self.bids
        following = seat + 1 if seat + 1 < n else 0
        while bids[following] is not None:
            following = following + 1 if following + 1 < n else 0
        self.seat_to_play = following
        return events

    # ------------------------------------------------------------------ play

    def _start_play(self) -> None:
        rules = self.rules
        self.phase = "play"
        self.seat_to_play = (self.dealer + 1) % self._n
        self._legal_codes = None
        self._build_hand_codes()
        if rules.first_lead == "two_clubs":
            clubs = [
                (self._power[card], position, card, seat)
                for position, seat in enumerate(self._bidding_order())
                for card in self.hands[seat]
                if self._suit[card] == CLUBS
            ]
            if clubs:
                _, _, card, seat = min(clubs)
                self._forced_lead = card
                self.seat_to_play = seat

    def _build_hand_codes(self) -> None:
        suit = self._suit
        hands = self.hands
        self._hand_codes = [[CODES[c] for c in cards] for cards in hands]
        self._suit_codes = []
        for cards in hands:
            by_suit: list[list[str]] = [[], [], [], []]
            for card in cards:
                by_suit[suit[card]].append(CODES[card])
            self._suit_codes.append(by_suit)

    def _legal_code_list(self) -> list[str]:
        """The codes of the cards the seat on turn may play, in hand order, each card
        once; cached for this turn (docs/rules.md §7, see ``server.engine.play``).

        The answer may be one of the seat's own card lists: read it, never change it.
        """
        codes = self._legal_codes
        if codes is not None:
            return codes
        seat = self.seat_to_play
        trick = self._trick
        first = None
        if self._trick_number == 0 and (self._lowest_club_first or self._forced_lead is not None):
            first = first_trick_plays(
                self.hands[seat],
                self._suit,
                self._power,
                self._lowest_club_first,
                self._forced_lead,
                leading=not trick,
            )
        if first is None:
            codes = legal_plays(
                self._hand_codes[seat],
                self._code_suit,
                self._suit[trick[0][1]] if trick else -1,
                self._guard_spades and not self._spades_broken,
                self._suit_codes[seat],
            )
        else:
            codes = [CODES[card] for card in first]
        if self._duplicates:
            codes = list(dict.fromkeys(codes))
        self._legal_codes = codes
        return codes

    def _play_card(self, seat: int, card: int, code: str, events: list[Event] | None) -> None:
        """Play a checked card. The one core of ``act`` and the fast path ``play``:
        ``events`` is the list ``act`` returns, or None when nobody wants events (then
        none are built)."""
        card_suit = self._suit[card]
        # During play the code lists always exist (built by _start_play or _restore) and
        # are the hands: the int hands are rebuilt from them when asked for (see hands).
        self._hands_fresh = False
        self._hand_codes[seat].remove(code)
        self._suit_codes[seat][card_suit].remove(code)
        self._log.append(self._log_entry[seat][card])
        trick = self._trick
        trick.append(self._trick_entry[seat][card])
        if card_suit == SPADES:
            self._spades_broken = True
        if events is not None:
            events.append({"type": "play", "seat": seat, "card": code})
        # The next seat's legal cards are worked out here, at once, where the fast path
        # can: the hot spot of bots and benchmarks, one call here instead of two frames
        # in legal_cards. The first trick and identical cards take the lazy path.
        plain = self._plain_follows and (self._trick_number or not self._lowest_club_first)
        if len(trick) < self._n:
            following = self.seat_to_play = self._next_seat[seat]
            self._legal_codes = (
                legal_plays(
                    self._hand_codes[following],
                    self._code_suit,
                    self._suit[trick[0][1]],
                    False,
                    self._suit_codes[following],
                )
                if plain
                else None
            )
            return
        if self._trick_number or not self._lowest_club_first:
            led = self._suit[trick[0][1]]
        else:
            led = counted_led(trick, self._suit, CLUBS)
        winner = taking(trick, self._win_key[led], self._later_wins)[0]
        self.tricks_won[winner] += 1
        self._played.extend(trick)
        self._last_trick = (trick, winner)
        self._trick = []
        self._trick_number += 1
        self.seat_to_play = winner
        self._legal_codes = (
            legal_plays(
                self._hand_codes[winner],
                self._code_suit,
                -1,
                self._guard_spades and not self._spades_broken,
                self._suit_codes[winner],
            )
            if self._plain_follows and self._trick_number < self._hand_size
            else None
        )
        if events is not None:
            events.append(
                {
                    "type": "trick",
                    "winner": winner,
                    "cards": seat_cards(trick),
                    "number": self._trick_number,
                }
            )
        if self._trick_number == self._hand_size:
            self._finish_hand(events)

    # ------------------------------------------------------------------ scoring

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
        n = self._n
        tricks = [played[start : start + n] for start in range(0, len(played), n)]
        takers = [trick[0][0] for trick in tricks[1:]] + [last_taker]
        return [
            {"leader": trick[0][0], "cards": seat_cards(trick), "winner": taker}
            for trick, taker in zip(tricks, takers, strict=True)
        ]

    def _finish_hand(self, events: list[Event] | None) -> None:
        rules = self.rules
        # Every seat has bid by the last trick.
        sides = score_sides(rules, final_bids(self.bids), self.tricks_won, self.scores)
        self._scores = [[side["score"], side["bags"]] for side in sides]
        result: HandResult = {
            "hand_number": self.hand_number,
            "dealer": self.dealer,
            "bids": list(self.bids),
            "tricks": list(self.tricks_won),
            "sides": sides,
            "deal": self._deal,
        }
        self.hand_results.append(result)
        # `_played` is a new list each hand: kept as it is, the dicts made only when asked.
        assert self._last_trick is not None
        self._hands_played = {self.hand_number: (self._played, self._last_trick[1])}
        if events is not None:
            events.append({"type": "hand_scored", **copy_result(result)})
        self.winner = game_winner(rules, sides)
        if self.winner is not None:
            self.phase = "over"
            if events is not None:
                events.append({"type": "game_over", "winner": self.winner, "scores": self.scores})
            return
        self._start_hand(events)

    # ------------------------------------------------------------------ checking input

    def _is_seat(self, seat: object) -> bool:
        return isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < self._n

    def _checked_card(self, code: object) -> int:
        code = checked_code(code)
        if code in self._legal_code_list():
            return INDEX[code]
        first = self._trick_number == 0
        raise card_refusal(
            code,
            self.hands[self.seat_to_play],
            self._order,
            self._trick,
            first and self._lowest_club_first,
            self._forced_lead if first else None,
        )

    def _checked_bid(self, seat: int, bid: object) -> int:
        if isinstance(bid, bool) or not isinstance(bid, int):
            raise IllegalAction("bad_bid", "A bid is a whole number (0 is nil)")
        allowed = self._legal_bids(seat)
        if bid in allowed:
            return bid
        raise bid_refusal(allowed)


_PLAY_ENTRIES: dict[int, tuple[list[list[tuple[int, int]]], list[list[tuple[int, str, str]]]]] = {}


def _play_entries(
    players: int,
) -> tuple[list[list[tuple[int, int]]], list[list[tuple[int, str, str]]]]:
    """``[seat][card]`` tables of the tuples a played card appends to the trick and to
    the log, shared and immutable, so that playing a card allocates nothing the garbage
    collector tracks (a long game's collections cost more and more). Once per table size.
    """
    entries = _PLAY_ENTRIES.get(players)
    if entries is None:
        seats = range(players)
        entries = (
            [[(seat, card) for card in range(CARD_SLOTS)] for seat in seats],
            [[(seat, "play", CODES[card]) for card in range(CARD_SLOTS)] for seat in seats],
        )
        _PLAY_ENTRIES[players] = entries
    return entries
