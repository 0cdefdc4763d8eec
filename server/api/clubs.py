"""HTTP routes for friends' clubs (docs/clubs.md), and the club checks the table routes
make for a club's table and a member's seat. Thin: `ClubStore` keeps the data.

Everything of a club needs its host token or a member token (`Authorization: Bearer`);
without one, every read and write is 403, and a club that does not exist answers the
same, so a stranger learns nothing, not even whether it exists.
"""

from __future__ import annotations

import secrets
from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Depends, HTTPException, Query, Request, Response
from pydantic import BaseModel, ConfigDict, Field, field_validator

from server.api.deps import Bearer, Id
from server.api.ratelimit import limit_writes
from server.api.rules import checked_rules
from server.api.services import services
from server.engine.describe import compact, summary
from server.names import check_text
from server.protocol import (
    ClubGames,
    ClubHouseRules,
    ClubInvite,
    ClubPage,
    CreatedClub,
    JoinedClub,
)
from server.realtime.hosting import hash_token, new_id, new_token
from server.store.clubs import ClubStore, Viewer

router = APIRouter(prefix="/api", tags=["clubs"])
WRITES = [Depends(limit_writes)]
CLUB_NAME_MAX = 64
FORBIDDEN = "This club is private: open its link, or use your member token."


def get_clubs(request: Request) -> ClubStore:
    return services(request).clubs


Clubs = Annotated[ClubStore, Depends(get_clubs)]


def club_name(name: str) -> str:
    name = check_text(name, "A club name").strip()
    if not 1 <= len(name) <= CLUB_NAME_MAX:
        raise ValueError(f"a club name is 1 to {CLUB_NAME_MAX} characters.")
    return name


class NewClub(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(max_length=1000)

    @field_validator("name")
    @classmethod
    def _name(cls, name: str) -> str:
        return club_name(name)


class Joining(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(max_length=1000)
    invite: str = Field(max_length=256)

    @field_validator("name")
    @classmethod
    def _name(cls, name: str) -> str:
        return check_text(name, "A member name").strip()


class HouseRules(BaseModel):
    """The club's house rules: a preset and changes, or null to clear them."""

    model_config = ConfigDict(extra="forbid")

    rules: dict[str, Any] | None


async def viewer_of(clubs: ClubStore, club_id: str, token: str | None) -> Viewer:
    """The host or member holding `token` for this club, else 403."""
    viewer = await clubs.viewer(club_id, hash_token(token)) if token else None
    if viewer is None:
        raise HTTPException(403, FORBIDDEN)
    return viewer


async def host_of(clubs: ClubStore, club_id: str, token: str) -> Viewer:
    viewer = await viewer_of(clubs, club_id, token)
    if not viewer.host:
        raise HTTPException(403, "Only the club's host can do that.")
    return viewer


def club_url(club_id: str, invite: str) -> str:
    return f"/c/{club_id}#invite={invite}"


@router.post("/clubs", status_code=201, dependencies=WRITES)
async def create_club(body: NewClub, clubs: Clubs) -> CreatedClub:
    club_id = new_id()
    invite, host_token = secrets.token_urlsafe(12), new_token()
    await clubs.create(club_id, body.name, hash_token(invite), hash_token(host_token))
    # The only answer carrying the invite and the host token: shown once, to the maker.
    return CreatedClub(
        id=club_id,
        name=body.name,
        invite=invite,
        host_token=host_token,
        url=club_url(club_id, invite),
    )


@router.post("/clubs/{club_id}/members", status_code=201, dependencies=WRITES)
async def join_club(club_id: Id, body: Joining, request: Request, clubs: Clubs) -> JoinedClub:
    limit = services(request).settings.seat_name_max_length
    if not 1 <= len(body.name) <= limit:
        raise HTTPException(422, f"name: a member name is 1 to {limit} characters.")
    invite_hash = await clubs.invite_hash(club_id)
    if invite_hash is None or not secrets.compare_digest(invite_hash, hash_token(body.invite)):
        raise HTTPException(403, "That club link is not valid (it may have been replaced).")
    member_id, token = new_id(), new_token()
    await clubs.join(club_id, member_id, body.name, hash_token(token))
    return JoinedClub(member={"id": member_id, "name": body.name}, token=token)


@router.get("/clubs/{club_id}", response_model=ClubPage)
async def club_page(club_id: Id, token: Bearer, clubs: Clubs) -> Response:
    """The club page, encoded by orjson as built (a `ClubPage`: the store builds exactly
    its fields, and no secret is among them): a club's list of games is long, and
    FastAPI's validation and encoding of each one cost more than the database."""
    page = await clubs.page(await viewer_of(clubs, club_id, token))
    if page is None:
        raise HTTPException(403, FORBIDDEN)
    return Response(orjson.dumps(page), media_type="application/json")


@router.get("/clubs/{club_id}/games")
async def club_games(
    club_id: Id,
    token: Bearer,
    clubs: Clubs,
    offset: Annotated[int, Query(ge=0, le=10_000_000)] = 0,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
) -> ClubGames:
    """Finished club games, newest first, from `offset`: the club page's older games."""
    await viewer_of(clubs, club_id, token)
    return ClubGames(offset=offset, games=await clubs.games(club_id, offset, limit))


@router.patch("/clubs/{club_id}", dependencies=WRITES)
async def rename_club(club_id: Id, body: NewClub, token: Bearer, clubs: Clubs) -> ClubPage:
    viewer = await host_of(clubs, club_id, token)
    await clubs.rename(club_id, body.name)
    page = await clubs.page(viewer)
    assert page is not None
    return page


@router.delete("/clubs/{club_id}/members/{member_id}", status_code=204, dependencies=WRITES)
async def remove_member(club_id: Id, member_id: Id, token: Bearer, clubs: Clubs) -> Response:
    """The member's token stops working; their past games and figures stay."""
    await host_of(clubs, club_id, token)
    if not await clubs.remove(club_id, member_id):
        raise HTTPException(404, "No such member in this club.")
    return Response(status_code=204)


@router.post("/clubs/{club_id}/invite", dependencies=WRITES)
async def new_invite(club_id: Id, token: Bearer, clubs: Clubs) -> ClubInvite:
    """A fresh club link; the old one stops letting anyone join."""
    await host_of(clubs, club_id, token)
    invite = secrets.token_urlsafe(12)
    await clubs.reinvite(club_id, hash_token(invite))
    return ClubInvite(invite=invite, url=club_url(club_id, invite))


@router.put("/clubs/{club_id}/rules", dependencies=WRITES)
async def set_house_rules(
    club_id: Id, body: HouseRules, token: Bearer, clubs: Clubs
) -> ClubHouseRules:
    """The host sets the rules of the club's new tables (a member: 403; rules that do not
    hold together: 422 naming the field, and nothing changes)."""
    await host_of(clubs, club_id, token)
    kept = None if body.rules is None else compact(checked_rules(body.rules).model_dump())
    await clubs.set_house_rules(club_id, kept)
    return ClubHouseRules(
        house_rules=kept, house_summary=summary(kept) if kept is not None else None
    )


# -- what the table routes ask of clubs ------------------------------------------------------


async def club_rules(
    clubs: ClubStore, club_id: str, token: str | None, given: dict[str, Any] | None
) -> dict[str, Any]:
    """For a new table of the club (403 without its host's or a member's token): the
    rules given, else the club's house rules, else its latest table's, else the standard
    preset."""
    await viewer_of(clubs, club_id, token)
    if given is not None:
        return given
    return dict(await clubs.usual_rules(club_id) or {"preset": "standard"})


async def seat_member(clubs: ClubStore, table_id: str, member_token: str) -> Viewer:
    """The member of the table's club holding `member_token`, else 403."""
    club_id = await clubs.club_of_table(table_id)
    if club_id is None:
        raise HTTPException(403, "This table is not a club's: sit down with its invite.")
    viewer = await viewer_of(clubs, club_id, member_token)
    if viewer.member is None:
        raise HTTPException(403, "Only a member sits down with a member token.")
    return viewer
