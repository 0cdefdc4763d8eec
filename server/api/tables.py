"""HTTP routes for tables and seats (docs/protocol.md). Thin: the hub does the work."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, HTTPException, Request, Response
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from server.api.ratelimit import limit_writes
from server.engine import PRESETS, Rules
from server.realtime.hub import TableHub

router = APIRouter(prefix="/api", tags=["tables"])


def get_hub(request: Request) -> TableHub:
    return request.app.state.hub


Hub = Annotated[TableHub, Depends(get_hub)]


def seat_token(authorization: Annotated[str | None, Header()] = None) -> str:
    """The seat token from `Authorization: Bearer <token>`."""
    scheme, _, token = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise HTTPException(401, "Send your seat token as 'Authorization: Bearer <token>'.")
    return token.strip()


Token = Annotated[str, Depends(seat_token)]
# Routes that change something spend the client address's write budget (ratelimit.py).
WRITES = [Depends(limit_writes)]


class NewTable(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(default=None, max_length=1000)
    rules: dict[str, Any] = Field(default_factory=lambda: {"preset": "standard"})

    @field_validator("name")
    @classmethod
    def _trim(cls, name: str | None) -> str | None:
        return name.strip() or None if name is not None else None


class SeatRequest(BaseModel):
    name: str = Field(max_length=1000)

    @field_validator("name")
    @classmethod
    def _trim(cls, name: str) -> str:
        return name.strip()


class BotRequest(BaseModel):
    level: str = Field(default="basic", max_length=64)


@router.get("/presets")
async def presets() -> dict[str, Any]:
    """Every preset's full rules, for the lobby's create form."""
    return {name: Rules.preset(name).model_dump(mode="json") for name in PRESETS}


@router.post("/tables", status_code=201, dependencies=WRITES)
async def create_table(body: NewTable, request: Request, hub: Hub) -> dict[str, Any]:
    limit = request.app.state.settings.table_name_max_length
    if body.name is not None and len(body.name) > limit:
        raise HTTPException(422, f"name: a table name is at most {limit} characters.")
    try:
        rules = Rules.model_validate(body.rules)
    except ValidationError as invalid:
        raise HTTPException(422, rule_errors(invalid)) from None
    room = await hub.create_table(body.name, rules)
    return room.public()


def rule_errors(invalid: ValidationError) -> str:
    """Pydantic's errors as one readable line naming each field."""
    parts = []
    for problem in invalid.errors(include_url=False, include_input=False):
        where = ".".join(str(part) for part in problem["loc"])
        message = problem["msg"].removeprefix("Value error, ")
        parts.append(f"{where}: {message}" if where and not message.startswith(where) else message)
    return "rules: " + "; ".join(parts)


@router.get("/tables")
async def list_tables(hub: Hub) -> list[dict[str, Any]]:
    return await hub.lobby()


@router.get("/tables/{table_id}")
async def table_info(table_id: str, hub: Hub) -> dict[str, Any]:
    return (await hub.room(table_id)).public()


@router.get("/tables/{table_id}/history")
async def history(table_id: str, hub: Hub) -> dict[str, Any]:
    return await hub.history(table_id)


@router.post("/tables/{table_id}/seats/{seat}", status_code=201, dependencies=WRITES)
async def take_seat(
    table_id: str, seat: int, body: SeatRequest, request: Request, hub: Hub
) -> dict[str, Any]:
    limit = request.app.state.settings.seat_name_max_length
    if not 1 <= len(body.name) <= limit:
        raise HTTPException(422, f"name: a seat name is 1 to {limit} characters.")
    token = await hub.take_seat(table_id, seat, body.name)
    return {"seat": seat, "token": token}


@router.delete("/tables/{table_id}/seats/{seat}", status_code=204, dependencies=WRITES)
async def leave_seat(table_id: str, seat: int, token: Token, hub: Hub) -> Response:
    await hub.leave_seat(table_id, seat, token)
    return Response(status_code=204)


@router.post("/tables/{table_id}/seats/{seat}/bot", status_code=201, dependencies=WRITES)
async def add_bot(table_id: str, seat: int, body: BotRequest, hub: Hub) -> dict[str, Any]:
    from server.engine.bots import BOT_LEVELS

    if body.level not in BOT_LEVELS:
        raise HTTPException(422, f"level: choose one of {', '.join(BOT_LEVELS)}.")
    await hub.add_bot(table_id, seat, body.level)
    return {"seat": seat, "bot": body.level}


@router.post("/tables/{table_id}/rematch", status_code=201, dependencies=WRITES)
async def rematch(table_id: str, token: Token, hub: Hub) -> dict[str, Any]:
    return (await hub.rematch(table_id, token)).public()
