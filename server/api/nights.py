"""HTTP routes for club nights (docs/clubs.md, "Club nights"). Thin: `Nights` does the work.

Making a night and its controls (next round, late arrivals, a substitute, pause, end)
need the club's host token; reading it, the host's or a member's; its watch link's
read, the watch secret (shown to the host and the members in the night's read).
Everything else gets 403 and changes nothing; ids that cannot be ids are refused with
422 before any read.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Annotated, Any, Literal, TypeVar

from fastapi import APIRouter, Depends, HTTPException, Request, Response
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt

from server.api.clubs import Clubs, host_of, viewer_of
from server.api.deps import Bearer, Id
from server.api.ratelimit import limit_writes
from server.api.services import services
from server.clubs.pairing import MAX_MEMBERS, MIN_MEMBERS
from server.engine.rules import MAX_HANDS, MAX_SCORE
from server.nights import NightRefused, Nights
from server.protocol import ClubNight, ClubNights, NightWatch
from server.realtime.timer import TURN_SECONDS_MAX, TURN_SECONDS_MIN
from server.store.nights import NightRecord

router = APIRouter(prefix="/api", tags=["club nights"])
WRITES = [Depends(limit_writes)]
MAX_ROUNDS = 40
T = TypeVar("T")


def get_nights(request: Request) -> Nights:
    return services(request).nights


NightsDep = Annotated[Nights, Depends(get_nights)]


@asynccontextmanager
async def refusals() -> AsyncIterator[None]:
    """A `NightRefused` as the HTTP refusal it names."""
    try:
        yield
    except NightRefused as refused:
        raise HTTPException(refused.status, refused.detail) from None


class NewNight(BaseModel):
    model_config = ConfigDict(extra="forbid")

    members: list[Id] = Field(min_length=MIN_MEMBERS, max_length=MAX_MEMBERS)
    rounds: StrictInt = Field(ge=1, le=MAX_ROUNDS)
    format: Literal["rotating", "pairs"] = "rotating"
    # Hands a round's game lasts; or `target_score` alone: the round plays to it.
    hands: StrictInt | None = Field(default=None, ge=1, le=MAX_HANDS)
    target_score: StrictInt | None = Field(default=None, ge=1, le=MAX_SCORE)
    # When the members are not a multiple of 4: some sit out each round, or bots play.
    fill: Literal["sit_out", "bots"] = "sit_out"
    # The night's rules (default: the club's usual ones, else the standard preset).
    rules: dict[str, Any] | None = None
    # One bidding format a round (null: the rules' own).
    bidding: list[Annotated[str, Field(max_length=32)] | None] | None = Field(
        default=None, max_length=MAX_ROUNDS
    )
    turn_seconds: StrictInt | None = Field(default=None, ge=TURN_SECONDS_MIN, le=TURN_SECONDS_MAX)
    # The schedule's seed, for a night that can be made again (default: a random one).
    seed: StrictInt | None = Field(default=None, ge=0, le=2**62)


class LateMembers(BaseModel):
    model_config = ConfigDict(extra="forbid")

    members: list[Id] = Field(min_length=1, max_length=MAX_MEMBERS)


class Substitution(BaseModel):
    model_config = ConfigDict(extra="forbid")

    out: Id
    into: Id = Field(alias="in")


class Pausing(BaseModel):
    model_config = ConfigDict(extra="forbid")

    paused: StrictBool


@router.post("/clubs/{club_id}/nights", status_code=201, dependencies=WRITES)
async def create_night(
    club_id: Id, body: NewNight, token: Bearer, clubs: Clubs, nights: NightsDep
) -> ClubNight:
    await host_of(clubs, club_id, token)
    if body.hands is None and body.target_score is None:
        raise HTTPException(422, "hands: give the hands a round lasts (or a target score).")
    async with refusals():
        return await nights.create(
            club_id,
            body.members,
            body.rounds,
            body.format,
            body.hands,
            body.target_score,
            body.fill,
            body.rules,
            body.bidding,
            body.turn_seconds,
            body.seed,
        )


@router.get("/clubs/{club_id}/nights")
async def list_nights(club_id: Id, token: Bearer, clubs: Clubs, nights: NightsDep) -> ClubNights:
    """The club's latest nights, newest first (member or host)."""
    await viewer_of(clubs, club_id, token)
    return ClubNights(nights=await nights.latest(club_id))


@router.get("/clubs/{club_id}/nights/{night_id}")
async def read_night(
    club_id: Id, night_id: Id, token: Bearer, clubs: Clubs, nights: NightsDep
) -> ClubNight:
    """The night; for a member, also where they sit in the round being played."""
    viewer = await viewer_of(clubs, club_id, token)
    async with refusals():
        return await nights.read(await nights.night(club_id, night_id), you=viewer.member)


@router.get("/nights/{night_id}/watch")
async def watch_night(night_id: Id, token: Bearer, nights: NightsDep) -> NightWatch:
    """The watch link's read: standings and the tables to watch, for anyone holding the
    link's secret (`Authorization: Bearer <watch>`)."""
    async with refusals():
        return await nights.watch(night_id, token)


class HostControl:
    """What a host's control of a night reads from its request (the club's and night's
    ids, checked as ids, the bearer token, the nights), taken as a dependency that reads
    nothing: a malformed id or body is refused with 422 before anything is read, and the
    control itself is made by `apply`."""

    def __init__(
        self, club_id: Id, night_id: Id, token: Bearer, clubs: Clubs, nights: NightsDep
    ) -> None:
        self.club_id = club_id
        self.night_id = night_id
        self.token = token
        self.clubs = clubs
        self.nights = nights

    async def apply(self, change: Callable[[Nights, NightRecord], Awaitable[T]]) -> T:
        """`change` made to the night, once the token is checked to be the club host's
        (403 otherwise); 404 when the club has no such night, and any `NightRefused` as
        the refusal it names."""
        await host_of(self.clubs, self.club_id, self.token)
        async with refusals():
            return await change(self.nights, await self.nights.night(self.club_id, self.night_id))


Control = Annotated[HostControl, Depends()]


@router.post("/clubs/{club_id}/nights/{night_id}/next", status_code=201, dependencies=WRITES)
async def next_round(control: Control, response: Response) -> ClubNight:
    """Start the next round (201); 200 when it finishes making a round begun before."""
    night, started = await control.apply(lambda nights, night: nights.start_next(night))
    if not started:
        response.status_code = 200
    return night


@router.post("/clubs/{club_id}/nights/{night_id}/members", dependencies=WRITES)
async def add_members(control: Control, body: LateMembers) -> ClubNight:
    """Late arrivals: the rounds not yet started are scheduled again with them."""
    return await control.apply(lambda nights, night: nights.add_members(night, body.members))


@router.post("/clubs/{club_id}/nights/{night_id}/substitute", dependencies=WRITES)
async def substitute(control: Control, body: Substitution) -> ClubNight:
    """`in` takes `out`'s place from the round being played on."""
    return await control.apply(lambda nights, night: nights.substitute(night, body.out, body.into))


@router.post("/clubs/{club_id}/nights/{night_id}/pause", dependencies=WRITES)
async def pause(control: Control, body: Pausing) -> ClubNight:
    """While paused, no round starts; the games being played go on."""
    return await control.apply(lambda nights, night: nights.pause(night, body.paused))


@router.post("/clubs/{club_id}/nights/{night_id}/end", dependencies=WRITES)
async def end_night(control: Control) -> ClubNight:
    """The night ends now; its games still being played stop, unrated."""
    return await control.apply(lambda nights, night: nights.end(night))


async def night_seat(nights: Nights, table_id: str, seat: int, member: str) -> str | None:
    """For the table routes: a night's table gives a member their own seat (the fresh
    seat token); None when the table is not a night's."""
    async with refusals():
        return await nights.take_seat(table_id, seat, member)
