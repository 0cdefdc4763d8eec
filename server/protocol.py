"""Every shape the server shows its clients, described once (docs/protocol.md).

The WebSocket messages the server sends and the answers of the HTTP routes are TypedDicts:
the hub builds plain dicts of these shapes (orjson encodes them as they are, so typing the
hot path costs nothing), FastAPI takes them as `response_model`s, and pydantic describes
them for `/openapi.json`, the JSON Schema in docs/protocol.md and the web client's JSDoc
typedefs (`python -m server.realtime.messages --write`). A response model also filters: a
key the hub adds that is not declared here is not sent, so a secret can only reach an
answer by being named below. What clients send is validated, so it stays pydantic models
(`server.realtime.messages`, the bodies in `server.api.tables`).

The game's own data (a view, an action, a hand's score) are the engine's types
(`server.engine.shapes`), used here as they are. The rules of a table are shown as stored
(a table created under older rules still answers), with the engine's `Rules` schema as
their description.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import (
    TYPE_CHECKING,
    Annotated,
    Any,
    Literal,
    NotRequired,
    TypeAlias,
    cast,
    get_type_hints,
)

from pydantic import Field, WithJsonSchema
from typing_extensions import TypedDict

from server.clubs.figures import AVERAGES, FIGURES, Average, Figure
from server.engine import (
    Action,
    Bid,
    BidAction,
    HandClaim,
    PlayAction,
    Rules,
    SideResult,
    SideScore,
    TrickPlays,
    View,
)
from server.engine.describe import RuleCatalog, RuleValues
from server.engine.fairness import HandFairness, NextDeal

RULES_SCHEMA = Rules.model_json_schema(mode="serialization")
RulesShown = Annotated[dict[str, Any], WithJsonSchema(RULES_SCHEMA)]
# "ended": the host ended the table; nothing more can change.
TableStatus = Literal["waiting", "playing", "over", "ended"]


# -- a table -----------------------------------------------------------------------------


class PublicSeat(TypedDict):
    """One seat as everyone may see it: never a token. `autoplay` and its reason ("away"
    or "timer") are there only while a bot plays for the seat's player."""

    seat: int
    name: str | None
    bot: str | None
    connected: bool
    autoplay: NotRequired[bool]
    autoplay_reason: NotRequired[str]


class PublicTable(TypedDict):
    """The `table` object: what anyone may know of a table, never a secret, never a
    hidden card. `scores` has one entry per side, none before the first game starts;
    `series` the games each side won at this table, across rematches; `hints` whether
    players may ask for the expert bot's choice; `summary` the rules in one line;
    `rules_link` the lobby's address that opens the create form with these rules."""

    id: str
    name: str
    url: str
    rules: RulesShown
    summary: str
    rules_link: str
    status: TableStatus
    version: int
    game_number: int
    seats: list[PublicSeat]
    scores: list[SideScore]
    winner: int | None
    hands_played: int
    created: str
    listed: bool
    host_seat: int | None
    turn_seconds: int | None
    deadline: str | None
    series: list[int]
    hints: bool


class HiddenMove(TypedDict):
    """A pass, a draw or a blind nil decision as everyone may see it: its cards, choice
    or decision are private, so it shows its type alone."""

    type: Literal["pass", "draw", "blind_nil"]


# A move as everyone may see it.
PublicAction = BidAction | PlayAction | HiddenMove


class TimerMove(TypedDict):
    """A move the turn timer made for a seat whose player did not act in time."""

    seat: int
    action: PublicAction


class ChatLine(TypedDict):
    """One stored chat line (`seat` null for a spectator), as clients receive it."""

    version: int
    seat: int | None
    name: str
    text: str
    at: str


# -- WebSocket: server -> client ---------------------------------------------------------


class StateMessage(TypedDict):
    """One socket's view of the table after `hello` and after every change. The answer to
    `hello` alone carries `chat` (the lines so far) and `protocol` (its version)."""

    type: Literal["state"]
    version: int
    seat: int | None
    state: View | None
    table: PublicTable
    host: bool
    deadline: str | None
    server_time: str | None
    timer_moves: list[TimerMove]
    # The next deal (docs/fairness.md): null only for a game begun before deals had seeds.
    fairness: NextDeal | None
    chat: NotRequired[list[ChatLine]]
    protocol: NotRequired[int]


class ChatMessage(ChatLine):
    """A chat line, to every socket of the table."""

    type: Literal["chat"]


class ErrorMessage(TypedDict):
    """A refusal, to the socket that asked only; `reason` is the engine's own code."""

    type: Literal["error"]
    id: str | int | None
    code: str
    message: str
    reason: NotRequired[str]


class PongMessage(TypedDict):
    """The answer to `ping`."""

    type: Literal["pong"]


class HintMessage(TypedDict):
    """The answer to `hint`, to the asking socket only: the expert bot's choice from
    that seat's view at `version`."""

    type: Literal["hint"]
    id: str | int | None
    version: int
    action: Action


class ReviewChoice(TypedDict):
    """One choice of the reviewing seat: the trick it was in (1-based; 0 for a bid or a
    blind nil), what the player chose, and what the expert bot would have chosen there
    from the player's view at that moment."""

    trick: int
    action: Action
    expert: Action


class ReviewMessage(TypedDict):
    """The answer to `review`, to the asking socket only: each of `seat`'s choices in
    hand `hand` of game `game_number` that had more than one option, in order."""

    type: Literal["review"]
    id: str | int | None
    game_number: int
    hand: int
    seat: int
    choices: list[ReviewChoice]


ServerMessage = (
    StateMessage | ChatMessage | ErrorMessage | PongMessage | HintMessage | ReviewMessage
)


# -- HTTP answers ------------------------------------------------------------------------


class CreatedTable(PublicTable):
    """The create answer: the only one that carries the table's secrets, once, to the host."""

    invite: str
    host_token: str
    invite_url: str


class SeatTaken(TypedDict):
    """A seat taken; `token` is the only proof of owning it, shown this once."""

    seat: int
    token: str


class BotSeated(TypedDict):
    seat: int
    bot: str


class SeatReissued(TypedDict):
    """A seat given to someone new: its fresh token and the link that carries it."""

    seat: int
    token: str
    continue_url: str


class StoredHand(TypedDict):
    """A finished hand as stored: the engine's `HandResult` (`deal` is each seat's dealt
    cards: the hand is over, so nothing here is hidden any more; `sides` each side's
    whole breakdown, docs/rules.md §8), the moves the turn timer made in it, and `plays`
    every trick in order, for the hand's replay (null for hands stored before it was kept);
    `claim` the claim that ended the hand early (its tricks are not in `plays`), else null."""

    dealer: int | None
    bids: list[Bid | None]
    tricks: list[int]
    deal: list[list[str]]
    sides: list[SideResult]
    timer_moves: list[TimerMove]
    plays: list[TrickPlays] | None
    # What proves the deal (docs/fairness.md); null for a hand not dealt from seeds.
    fairness: HandFairness | None
    # The claim that ended the hand early, if one did.
    claim: HandClaim | None


class DealSeeds(TypedDict):
    """The players' seeds for a table's next deal as stored, with the commitment of the
    server seed they answer (seeds answering an older one are stale)."""

    commitment: str
    seeds: dict[str, str]


class FinishedHand(StoredHand):
    """A row of the history: a stored hand and its number in the game (from 1)."""

    hand: int


class History(TypedDict):
    """The finished hands of the table's current game, in order."""

    id: str
    game_number: int
    hands: list[FinishedHand]


class Health(TypedDict):
    status: Literal["ok"]


class Readiness(TypedDict):
    """`checks` names each dependency's state: "ok", "not configured" or "down: <why>"."""

    status: Literal["ready", "unavailable"]
    down: NotRequired[list[str]]
    checks: dict[str, str]


class FieldProblem(TypedDict):
    """One thing a refused request got wrong (a 422 lists them as its `detail`): the
    kind of problem, where it is (`["body", "rules", "players"]`), and in words."""

    type: str
    loc: tuple[int | str, ...]
    msg: str


# -- clubs (docs/clubs.md) ---------------------------------------------------------------


class CreatedClub(TypedDict):
    """A new club: the only answer carrying its invite and host token, once, to its maker."""

    id: str
    name: str
    invite: str
    host_token: str
    url: str


class ClubMemberName(TypedDict):
    id: str
    name: str


class JoinedClub(TypedDict):
    """A member added; `token` is the only proof of membership, shown this once."""

    member: ClubMemberName
    token: str


def figure_fields(figures: Sequence[Figure], averages: Sequence[Average]) -> dict[str, object]:
    """One integer per figure and one number per average, each titled with its label (the
    JSON Schema's, so the client's), in the order of their declaration."""
    return {
        **{figure.name: Annotated[int, Field(title=figure.label)] for figure in figures},
        **{average.name: Annotated[float, Field(title=average.label)] for average in averages},
    }


def figures_shape(figures: Sequence[Figure], averages: Sequence[Average]) -> type:
    """The TypedDict of a member's figures (`figure_fields`)."""
    shape: type = TypedDict("ClubStats", figure_fields(figures, averages))  # type: ignore[misc]
    shape.__doc__ = (
        "A member's figures over their finished, rated club games (the hands they played),\n"
        "each titled with its label: counts, then averages per hand."
    )
    return shape


# A member's figures (`server.clubs.figures` declares them): to a type checker a mapping
# of figure names to numbers, to pydantic (so to the JSON Schema and the client's
# typedefs) one field per figure.
if TYPE_CHECKING:
    ClubStats: TypeAlias = dict[str, int | float]
else:
    ClubStats = figures_shape(FIGURES, AVERAGES)


class ClubMemberFields(TypedDict):
    """What a member has on the club page besides their overall figures: their rating
    (`rating`: the conservative value, mu - 3 sigma, higher is better; `mu` and `sigma`
    its estimate and uncertainty) and their figures per preset."""

    id: str
    name: str
    removed: bool
    rating: float
    mu: float
    sigma: float
    presets: dict[str, ClubStats]


def member_shape(figures: Sequence[Figure], averages: Sequence[Average]) -> type:
    """The TypedDict of a member on the club page: their overall figures at its top level
    (`figure_fields`), then `ClubMemberFields` (the presets' figures of the same shape)."""
    own = get_type_hints(ClubMemberFields, include_extras=True)
    own["presets"] = dict[str, figures_shape(figures, averages)]  # type: ignore[misc]
    fields = {**figure_fields(figures, averages), **own}
    shape: type = TypedDict("ClubMember", fields)  # type: ignore[misc]
    shape.__doc__ = (
        "A member with their overall figures (those of `ClubStats`, at the top level), their\n"
        "rating (`rating`: the conservative value, mu - 3 sigma, higher is better; `mu` and\n"
        "`sigma` its estimate and uncertainty) and their figures per preset (`ClubStats`)."
    )
    return shape


# A member (`member_shape`): to a type checker their own fields (the figures are
# `ClubStats`, a mapping to it), to pydantic one field per figure beside them.
if TYPE_CHECKING:
    ClubMember: TypeAlias = ClubMemberFields
else:
    ClubMember = member_shape(FIGURES, AVERAGES)


def club_member(own: ClubMemberFields, figures: ClubStats) -> ClubMember:
    """A member as the club page shows them: `figures` at the top level, then `own`."""
    return cast("ClubMember", {**figures, **own})


class ClubSide(TypedDict):
    members: list[str]
    score: int


class ClubGame(TypedDict):
    """A club game: `ended` when it finished (null for an abandoned game), `rated`,
    `winner` the winning side's index, `bots` whether a bot or a guest played a seat
    (then only the members were rated), `abandoned` when ended by the host or left
    unfinished (never rated), `rules_link` the lobby's address that opens the create form
    with the game's rules ("play these rules again")."""

    table: str
    ended: str | None
    rated: bool
    winner: int | None
    sides: list[ClubSide]
    preset: str
    bots: bool
    abandoned: bool
    rules_link: str


class ClubTable(TypedDict):
    """A live table of the club, to watch or sit at."""

    id: str
    name: str
    status: TableStatus
    seats: list[str | None]


class ClubPage(TypedDict):
    """Everything the club page shows: members (with stats and ratings), the
    leaderboard (member ids, best rating first), live tables, games (abandoned ones, then
    the latest 100 finished, newest first; `games_total` counts them all, the rest are
    read with `GET /api/clubs/{id}/games`);
    `you` the asking member's id (null for the host's token), `host` whether the token
    is the host's."""

    id: str
    name: str
    you: str | None
    host: bool
    # The usual rules as the club's latest table was given them: a preset and changes.
    rules: dict[str, bool | int | str | list[str] | None] | None
    # The house rules its host set (a preset and changes), for its new tables, and their
    # summary; null when the host set none.
    house_rules: RuleValues | None
    house_summary: str | None
    members: list[ClubMember]
    leaderboard: list[str]
    tables: list[ClubTable]
    games: list[ClubGame]
    games_total: int


class ClubGames(TypedDict):
    """Older finished games of a club, newest first, from `offset`."""

    offset: int
    games: list[ClubGame]


class ClubInvite(TypedDict):
    """A fresh club link: the old invite no longer lets anyone join."""

    invite: str
    url: str


class RulesChecked(TypedDict):
    """Rules checked for the rule builder: every field, the one-line summary and the
    lobby's address that opens the create form with them."""

    rules: RulesShown
    summary: str
    link: str


class ClubHouseRules(TypedDict):
    """A club's house rules as its host set them (a preset and changes), and their summary;
    both null when cleared."""

    house_rules: RuleValues | None
    house_summary: str | None


NightStatus = Literal["waiting", "playing", "over"]


class NightTable(TypedDict):
    """A table of a night's round: each seat's member (None: a bot); once the round has
    started, the table's id and status (None before)."""

    seats: list[str | None]
    table: NotRequired[str | None]
    status: NotRequired[TableStatus | None]


class NightRound(TypedDict):
    """One round of a night's schedule: its tables, and the members sitting it out."""

    round: int
    tables: list[NightTable]
    sitting_out: list[str]


class NightStanding(TypedDict):
    """A member's night so far. `points`, `games` and `wins` count finished night games
    (the side's points in the game; a win is the highest score, a tie is none);
    `live_points` adds the hands of the game being played; `hands`, `contracts` and
    `contracts_made` count every hand played. `place` is 1 for the leader, shared when
    every tie-break ties (docs/clubs.md)."""

    member: str
    name: str
    place: int
    points: int
    games: int
    wins: int
    live_points: int
    hands: int
    contracts: int
    contracts_made: int


class NightEvenness(TypedDict):
    """How evenly the schedule spreads partners and opponents, beside the ideal."""

    partner_max: int
    partner_ideal: int
    opponent_max: int
    opponent_ideal: int
    sit_out_min: int
    sit_out_max: int


class NightSeat(TypedDict):
    """Where the reading member sits in the round being played (`table` None until the
    round's tables are made)."""

    round: int
    table: str | None
    seat: int


class ClubNight(TypedDict):
    """A club night as its members and host read it (`watch_url` only for them). `you`:
    the reading member's id (None for the host); `seat`: their seat in the round being
    played (None when sitting out, for the host, or before the first round)."""

    id: str
    club: str
    status: NightStatus
    round: int
    rounds: int
    format: Literal["rotating", "pairs"]
    fill: Literal["sit_out", "bots"]
    hands: int | None
    paused: bool
    ended: bool
    members: list[str]
    names: dict[str, str]
    rules: list[RulesShown]
    schedule: list[NightRound]
    tables: list[str]
    standings: list[NightStanding]
    evenness: NightEvenness
    you: str | None
    seat: NightSeat | None
    watch_url: NotRequired[str]


class NightSummary(TypedDict):
    """A club's night as its list shows it, newest first."""

    id: str
    created: str
    status: NightStatus
    round: int
    rounds: int
    format: Literal["rotating", "pairs"]
    members: int
    ended: bool


class ClubNights(TypedDict):
    nights: list[NightSummary]


class NightWatch(TypedDict):
    """What the night's watch link shows anyone holding it: the standings and the
    tables to watch, never a token."""

    id: str
    club_name: str
    status: NightStatus
    round: int
    rounds: int
    paused: bool
    names: dict[str, str]
    schedule: list[NightRound]
    tables: list[str]
    standings: list[NightStanding]


# Every preset's full rules, by name.
Presets = dict[str, RulesShown]
# The lobby: listed tables that are waiting or playing, newest first.
Lobby = list[PublicTable]
# The HTTP answers, by name, as docs/protocol.md publishes them.
ANSWERS: dict[str, Any] = {
    "Presets": Presets,
    "Lobby": Lobby,
    "PublicTable": PublicTable,
    "CreatedTable": CreatedTable,
    "SeatTaken": SeatTaken,
    "BotSeated": BotSeated,
    "SeatReissued": SeatReissued,
    "History": History,
    "Health": Health,
    "Readiness": Readiness,
    "CreatedClub": CreatedClub,
    "JoinedClub": JoinedClub,
    "ClubPage": ClubPage,
    "ClubGames": ClubGames,
    "ClubInvite": ClubInvite,
    "ClubHouseRules": ClubHouseRules,
    "RuleCatalog": RuleCatalog,
    "RulesChecked": RulesChecked,
    "ClubNight": ClubNight,
    "ClubNights": ClubNights,
    "NightWatch": NightWatch,
}
