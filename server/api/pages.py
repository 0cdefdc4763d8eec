"""The browser pages: the lobby, a table page, a club page, and the client files in `web/`."""

from __future__ import annotations

import os

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from starlette.responses import Response
from starlette.types import Scope

from server import shipped
from server.api.deps import Id
from server.api.services import services

WEB = shipped("web")

# Every file of the client is checked with the server at each use (the ETag makes that
# a 304 when nothing changed): a browser never keeps running an old client beside a new
# server, and the service worker's copy is refreshed on every load it is online for.
REVALIDATE = {"Cache-Control": "no-cache"}

router = APIRouter(include_in_schema=False)


class ClientFiles(StaticFiles):
    """`web/` under /static/, each answer revalidated (`REVALIDATE`)."""

    def file_response(
        self,
        full_path: str | os.PathLike[str],
        stat_result: os.stat_result,
        scope: Scope,
        status_code: int = 200,
    ) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        response.headers.update(REVALIDATE)
        return response


def page(name: str) -> FileResponse:
    path = WEB / name
    if not path.is_file():
        raise HTTPException(404, f"The web client has no {name} yet.")
    return FileResponse(path, media_type="text/html", headers=REVALIDATE)


@router.get("/")
async def lobby() -> FileResponse:
    return page("index.html")


@router.get("/t/{table_id}")
async def table_page(table_id: Id, request: Request) -> FileResponse:
    await services(request).hub.room(table_id)
    return page("table.html")


@router.get("/c/{club_id}")
async def club_page(club_id: Id) -> FileResponse:
    """The club page, the same for every id: whether a club exists is told only to a
    holder of one of its tokens (the page asks /api/clubs/{id} with the one it keeps)."""
    return page("club.html")


@router.get("/c/{club_id}/night/{night_id}")
async def night_page(club_id: str, night_id: str) -> FileResponse:
    """A club night's page, the same for every id, as the club page: the night is read
    with a token the page holds."""
    return page("night.html")


@router.get("/c/{club_id}/night/{night_id}/standings")
async def night_standings(club_id: str, night_id: str) -> FileResponse:
    """A club night's standings board (the room's screen, a phone): the night page that
    never moves to a table."""
    return page("night.html")


@router.get("/sw.js")
async def service_worker() -> FileResponse:
    """The client's service worker (web/sw.js), at the top of the site: a worker's scope
    is at most its own folder, and it must cover the lobby and every table page."""
    return FileResponse(WEB / "sw.js", media_type="text/javascript", headers=REVALIDATE)


@router.get("/favicon.ico")
async def favicon() -> FileResponse:
    """Browsers and bookmarks ask for /favicon.ico whatever the page links: the spade."""
    return FileResponse(WEB / "favicon.svg", media_type="image/svg+xml")
