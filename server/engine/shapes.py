"""The typed shapes of the game's data: actions, views, hand results, events, saved state.

Every shape is what travels on the wire or into storage as it is (plain dicts and lists,
JSON-safe), typed so that the engine, the bots and the server agree on its keys. An
action is one of the per-type dicts of :data:`Action`; a view's ``legal`` may also hold a
:class:`PassChoice` (pass any ``count`` cards) instead of every set of cards.

>>> from server.engine import Game, Rules
>>> view: View = Game(Rules.preset("standard"), seed=7).view(0)
>>> sorted(view) == sorted(View.__required_keys__)
True
"""

from __future__ import annotations

from typing import Generic, Literal, TypeVar, final

from typing_extensions import TypedDict

from server.engine.fairness import FairnessState
from server.engine.rules import BiddingFormat, RuleFields

Phase = Literal["blind", "pass", "draw", "bid", "play", "over"]
# A final bid: a number (0 is nil) or a blind nil.
Bid = int | Literal["blind_nil"]

# ------------------------------------------------------------------------- actions
# Final: an action has exactly its ``type`` and its one field, so that ``"count" in entry``
# tells a view's pass choice from an action.


@final
class BidAction(TypedDict):
    type: Literal["bid"]
    bid: int


@final
class PlayAction(TypedDict):
    type: Literal["play"]
    card: str


@final
class PassAction(TypedDict):
    """The cards a seat gives its partner (blind nil, docs/rules.md §5)."""

    type: Literal["pass"]
    cards: list[str]


@final
class BlindNilAction(TypedDict):
    type: Literal["blind_nil"]
    declare: bool


@final
class DrawAction(TypedDict):
    """Two players: keep the stock's top card (``keep``) or the one under it."""

    type: Literal["draw"]
    keep: bool


@final
class ClaimAction(TypedDict):
    """The seat about to lead claims every remaining trick (offered in ``legal`` only
    when it is sure to take them all, ``server.engine.claims``)."""

    type: Literal["claim"]


Action = BidAction | PlayAction | PassAction | BlindNilAction | DrawAction | ClaimAction


@final
class PassChoice(TypedDict):
    """A view's pass: any ``count`` cards of the seat's own hand (answered by a
    :class:`PassAction`), instead of the thousands of sets ``Game.legal`` lists."""

    type: Literal["pass"]
    count: int


# One entry of a view's ``legal``: a list of actions, or of the one pass choice.
LegalAction = Action | PassChoice

# ------------------------------------------------------------------------- scoring


class SideScore(TypedDict):
    """A side's standing: its score and bag count."""

    score: int
    bags: int


class NilResult(TypedDict):
    seat: int
    blind: bool
    made: bool
    points: int


class SideResult(TypedDict):
    """One side's breakdown of a scored hand (``server.engine.scoring.score_sides``)."""

    seats: list[int]
    contract: int
    taken: int
    points: int  # this hand's change
    score: int  # after the hand
    bags: int  # after the hand
    bag_penalty: int
    nil: list[NilResult]
    all_tricks: bool


class HandClaim(TypedDict):
    """A hand ended by a claim: the claimant, the cards it laid down, and the tricks
    credited to it without being played."""

    seat: int
    cards: list[str]
    tricks: int


class HandSummary(TypedDict):
    """The keys of every finished hand."""

    hand_number: int
    dealer: int
    bids: list[Bid | None]
    tricks: list[int]
    sides: list[SideResult]
    deal: list[list[str]]


class HandResult(HandSummary, total=False):
    """A finished hand: ``Game.hand_results`` entries and a view's ``last_hand``;
    ``claim`` only when a claim ended it."""

    claim: HandClaim


# ------------------------------------------------------------------------- views


class SeatCard(TypedDict):
    """A card played by a seat."""

    seat: int
    card: str


class LastTrick(TypedDict):
    cards: list[SeatCard]
    winner: int


Plays = TypeVar("Plays")
Last = TypeVar("Last")


class MovingView(TypedDict, Generic[Plays, Last]):
    """The keys of the public view that may change with any move. Generic in the played
    cards and the last trick, which a caller that encodes views may give pre-encoded."""

    phase: Phase
    turn: list[int]
    hand_sizes: list[int]
    trick: list[SeatCard]
    last_trick: Last
    played: Plays
    tricks_won: list[int]
    spades_broken: bool
    pending: list[int]
    stock_size: int


class SteadyView(TypedDict):
    """The keys of the public view that change only with the phase, a bid, a finished
    hand or the end."""

    players: int
    sides: list[list[int]]
    dealer: int
    bids: list[Bid | None]
    contracts: list[int | None] | None
    scores: list[SideScore]
    target_score: int
    # The bidding format of the hand in progress (docs/rules.md §11.6).
    bidding: BiddingFormat
    hand_number: int
    last_hand: HandResult | None
    winner: int | None


class PublicView(MovingView[list[SeatCard], LastTrick | None], SteadyView):
    """What every seat and spectator sees alike."""


class SeatPart(TypedDict):
    """What only one seat sees (``seat`` None: a spectator)."""

    seat: int | None
    hand: list[str] | None
    legal: list[Action] | list[PassChoice]
    draw_card: str | None


class View(PublicView, SeatPart):
    """``Game.view(seat)``: everything ``seat`` may see (docs/protocol.md)."""


# ------------------------------------------------------------------------- events


class HandStartEvent(TypedDict):
    type: Literal["hand_start"]
    hand_number: int
    dealer: int


class BlindNilEvent(TypedDict):
    type: Literal["blind_nil"]
    seat: int
    declare: bool


class PassChosenEvent(TypedDict):
    type: Literal["pass_chosen"]
    seat: int


class PassEvent(TypedDict):
    """Private: the cards ``seat`` gave its partner ``to``."""

    type: Literal["pass"]
    seat: int
    to: int
    cards: list[str]


class DrawEvent(TypedDict):
    type: Literal["draw"]
    seat: int


class BidEvent(TypedDict):
    """A bid (``bid_raised``: a partner's bid raised to the side's minimum)."""

    type: Literal["bid", "bid_raised"]
    seat: int
    bid: int


class PlayEvent(TypedDict):
    type: Literal["play"]
    seat: int
    card: str


class TrickEvent(TypedDict):
    type: Literal["trick"]
    winner: int
    cards: list[SeatCard]
    number: int


class ClaimEvent(HandClaim):
    type: Literal["claim"]


class HandScoredEvent(HandResult):
    type: Literal["hand_scored"]


class GameOverEvent(TypedDict):
    type: Literal["game_over"]
    # None: a game stopped by its hand limit with the top score shared.
    winner: int | None
    scores: list[SideScore]


Event = (
    HandStartEvent
    | BlindNilEvent
    | PassChosenEvent
    | PassEvent
    | DrawEvent
    | BidEvent
    | PlayEvent
    | TrickEvent
    | ClaimEvent
    | HandScoredEvent
    | GameOverEvent
)


class TrickPlays(TypedDict):
    """One trick of a finished hand's record (``Game.plays_of``)."""

    leader: int
    cards: list[SeatCard]
    winner: int


# ------------------------------------------------------------------------- saved state


class CurrentState(TypedDict):
    """``Game.current_state()``: the saved state but its history (every secret in it)."""

    format: int
    rules: RuleFields
    seed: int | str
    decks: list[list[str]]
    # The verifiable deals' seeds (server.engine.fairness); None: dealt from ``seed``.
    fairness: FairnessState | None
    first_dealer: int
    dealer: int
    hand_number: int
    phase: Phase
    turn: int
    scores: list[list[int]]
    winner: int | None
    hands: list[list[str]]
    bids: list[Bid | None]
    contracts: list[int | None] | None
    blind_queue: list[int]
    passers: list[int]
    passes: list[tuple[int, list[str]]]
    stock: list[str]
    stock_pos: int
    trick: list[tuple[int, str]]
    played: list[tuple[int, str]]
    tricks_won: list[int]
    trick_number: int
    spades_broken: bool
    forced_lead: str | None
    deal: list[list[str]]
    last_trick: tuple[list[tuple[int, str]], int] | None


class GameState(CurrentState):
    """``Game.to_state()``: everything needed to rebuild a game (every secret in it)."""

    hand_results: list[HandResult]
    log: list[tuple[int, Action]]
