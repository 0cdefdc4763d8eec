"""HTTP routes for tables and seats (docs/protocol.md). Thin: the hub does the work."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Request, Response
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    field_validator,
)

from server.api.clubs import club_rules, get_clubs, seat_member
from server.api.deps import Bearer, Id, SeatToken
from server.api.nights import get_nights, night_seat
from server.api.ratelimit import limit_writes
from server.api.rules import checked_rules
from server.api.services import services
from server.engine import PRESETS, Rules
from server.names import check_text
from server.protocol import (
    BotSeated,
    CreatedTable,
    History,
    Lobby,
    Presets,
    PublicTable,
    SeatReissued,
    SeatTaken,
)
from server.realtime.hosting import hash_token, new_token
from server.realtime.hub import TableHub
from server.realtime.timer import TURN_SECONDS_MAX, TURN_SECONDS_MIN
from server.realtime.views import room_table

router = APIRouter(prefix="/api", tags=["tables"])

# Seconds per move of the turn timer, or None for no timer.
TurnSeconds = Annotated[StrictInt | None, Field(ge=TURN_SECONDS_MIN, le=TURN_SECONDS_MAX)]


def get_hub(request: Request) -> TableHub:
    return services(request).hub


Hub = Annotated[TableHub, Depends(get_hub)]


Secret = Annotated[str | None, Field(max_length=256)]
# Routes that change something spend the client address's write budget (ratelimit.py).
WRITES = [Depends(limit_writes)]


class NewTable(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(default=None, max_length=1000)
    rules: dict[str, Any] = Field(default_factory=lambda: {"preset": "standard"})
    # Private by default: only listed tables are in the lobby and open to strangers.
    listed: StrictBool = False
    turn_seconds: TurnSeconds = None
    # Hints for players: null is on at friends' (unlisted) tables, off at listed ones.
    hints: StrictBool | None = None
    # A club's table (private): a member's token or the club's host token; the rules,
    # when not given, are the club's usual ones.
    club: Id | None = None
    member_token: Secret = None
    host_token: Secret = None

    @field_validator("name")
    @classmethod
    def _trim(cls, name: str | None) -> str | None:
        return check_text(name, "A table name").strip() or None if name is not None else None


class SeatRequest(BaseModel):
    name: str = Field(max_length=1000)
    invite: Secret = None
    host_token: Secret = None
    # A member of the table's club sits down as themselves, without the invite.
    member_token: Secret = None

    @field_validator("name")
    @classmethod
    def _trim(cls, name: str) -> str:
        return check_text(name, "A seat name").strip()


class BotRequest(BaseModel):
    level: str = Field(default="basic", max_length=64)
    invite: Secret = None
    host_token: Secret = None


class MoveRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    to: StrictInt


class ReissueRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(default=None, max_length=1000)

    @field_validator("name")
    @classmethod
    def _trim(cls, name: str | None) -> str | None:
        return check_text(name, "A seat name").strip() or None if name is not None else None


class TableChange(BaseModel):
    """The host's settings: each changes only when given (`"turn_seconds": null` turns
    the timer off); `rules` only before the first game."""

    model_config = ConfigDict(extra="forbid")

    turn_seconds: TurnSeconds = None
    rules: dict[str, Any] | None = None


@router.get("/presets")
async def presets() -> Presets:
    """Every preset's full rules, for the lobby's create form."""
    return {name: Rules.preset(name).model_dump(mode="json") for name in PRESETS}


@router.post("/tables", status_code=201, dependencies=WRITES)
async def create_table(body: NewTable, request: Request, hub: Hub) -> CreatedTable:
    limit = services(request).settings.table_name_max_length
    if body.name is not None and len(body.name) > limit:
        raise HTTPException(422, f"name: a table name is at most {limit} characters.")
    given = body.rules
    clubs = get_clubs(request)
    if body.club is not None:
        token = body.member_token or body.host_token
        explicit = given if "rules" in body.model_fields_set else None
        given = await club_rules(clubs, body.club, token, explicit)
    rules = checked_rules(given)
    listed = body.listed and body.club is None
    room, invite, host_token = await hub.create_table(
        body.name, rules, listed=listed, turn_seconds=body.turn_seconds, hints=body.hints
    )
    if body.club is not None:
        preset = given.get("preset")
        await clubs.attach_table(
            body.club, room.id, preset if isinstance(preset, str) else "custom", given
        )
    # The only answer that carries the invite and the host token: shown once, to the host.
    return CreatedTable(
        **room_table(room),
        invite=invite,
        host_token=host_token,
        invite_url=f"/t/{room.id}#invite={invite}",
    )


@router.get("/tables")
async def list_tables(hub: Hub) -> Lobby:
    return await hub.lobby()


@router.get("/tables/{table_id}")
async def table_info(table_id: Id, hub: Hub) -> PublicTable:
    return await hub.table_info(table_id)


@router.get("/tables/{table_id}/history")
async def history(table_id: Id, hub: Hub) -> History:
    return await hub.history(table_id)


@router.post(
    "/tables/{table_id}/seats/{seat}",
    status_code=201,
    dependencies=WRITES,
)
async def take_seat(
    table_id: Id, seat: int, body: SeatRequest, request: Request, response: Response, hub: Hub
) -> SeatTaken:
    check_seat_name(body.name, request)
    if body.member_token is None:
        token = await hub.take_seat(table_id, seat, body.name, body.invite, body.host_token)
        return SeatTaken(seat=seat, token=token)
    clubs = get_clubs(request)
    member = await seat_member(clubs, table_id, body.member_token)
    assert member.member is not None and member.name is not None
    # A club night's table: the seat kept for the member is given to them (200), again
    # with a fresh token if they ask again from another device.
    kept = await night_seat(get_nights(request), table_id, seat, member.member)
    if kept is not None:
        response.status_code = 200
        return SeatTaken(seat=seat, token=kept)
    # A member plays one seat: the seats of their earlier tokens here must be empty.
    theirs = await clubs.member_seat_hashes(table_id, member.member)
    token = new_token()
    # Known as the member's before it is given out: the game's end finds the member by it.
    await clubs.seat_member(table_id, member.member, hash_token(token))
    try:
        await hub.take_seat(table_id, seat, member.name, token=token, admitted=True, theirs=theirs)
    except Exception:
        await clubs.unseat_member(table_id, hash_token(token))
        raise
    return SeatTaken(seat=seat, token=token)


def check_seat_name(name: str, request: Request) -> None:
    limit = services(request).settings.seat_name_max_length
    if not 1 <= len(name) <= limit:
        raise HTTPException(422, f"name: a seat name is 1 to {limit} characters.")


@router.delete("/tables/{table_id}/seats/{seat}", status_code=204, dependencies=WRITES)
async def leave_seat(table_id: Id, seat: int, token: SeatToken, hub: Hub) -> Response:
    """The seat's player leaves it, or the host removes whoever sits there."""
    await hub.leave_seat(table_id, seat, token)
    return Response(status_code=204)


@router.post(
    "/tables/{table_id}/seats/{seat}/bot",
    status_code=201,
    dependencies=WRITES,
)
async def add_bot(table_id: Id, seat: int, body: BotRequest, hub: Hub) -> BotSeated:
    from server.engine.bots import BOT_LEVELS

    if body.level not in BOT_LEVELS:
        raise HTTPException(422, f"level: choose one of {', '.join(BOT_LEVELS)}.")
    await hub.add_bot(table_id, seat, body.level, body.invite, body.host_token)
    return BotSeated(seat=seat, bot=body.level)


@router.post(
    "/tables/{table_id}/rematch",
    status_code=201,
    dependencies=WRITES,
)
async def rematch(table_id: Id, token: SeatToken, hub: Hub) -> PublicTable:
    return room_table(await hub.rematch(table_id, token))


# -- host controls (docs/protocol.md, "Host controls"): the host token, or the seat token
# of the host's seat, as `Authorization: Bearer`; anyone else gets 403.


@router.post(
    "/tables/{table_id}/seats/{seat}/move",
    dependencies=WRITES,
)
async def move_seat(
    table_id: Id, seat: int, body: MoveRequest, token: Bearer, hub: Hub
) -> PublicTable:
    return room_table(await hub.move_seat(table_id, token, seat, body.to))


@router.post(
    "/tables/{table_id}/seats/{seat}/standin",
    dependencies=WRITES,
)
async def stand_in(table_id: Id, seat: int, token: Bearer, hub: Hub) -> PublicTable:
    return room_table(await hub.stand_in(table_id, token, seat))


@router.post(
    "/tables/{table_id}/seats/{seat}/reissue",
    dependencies=WRITES,
)
async def reissue_seat(
    table_id: Id,
    seat: int,
    body: ReissueRequest,
    token: Bearer,
    request: Request,
    hub: Hub,
) -> SeatReissued:
    if body.name is not None:
        check_seat_name(body.name, request)
    fresh = await hub.reissue_seat(table_id, token, seat, body.name)
    # The seat token travels in the fragment, which browsers never send to a server.
    return SeatReissued(seat=seat, token=fresh, continue_url=f"/t/{table_id}#seat={fresh}")


@router.patch("/tables/{table_id}", dependencies=WRITES)
async def change_table(
    table_id: Id, body: TableChange, token: Bearer, request: Request, hub: Hub
) -> PublicTable:
    timer = "turn_seconds" in body.model_fields_set
    if body.rules is None and not timer:
        raise HTTPException(422, "Give the table's new rules, its turn_seconds, or both.")
    rules = checked_rules(body.rules) if body.rules is not None else None
    room = await hub.change_settings(
        table_id, token, rules=rules, timer=timer, turn_seconds=body.turn_seconds
    )
    if body.rules is not None:
        # A club's table: its games count under the preset its rules now start from.
        preset = body.rules.get("preset")
        await get_clubs(request).retag_table(
            table_id, preset if isinstance(preset, str) else "custom", body.rules
        )
    return room_table(room)


@router.delete("/tables/{table_id}", status_code=204, dependencies=WRITES)
async def end_table(table_id: Id, token: Bearer, hub: Hub) -> Response:
    await hub.end_table(table_id, token)
    return Response(status_code=204)
