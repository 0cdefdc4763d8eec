"""The browser pages: the lobby, a table page, and the static client files in `web/`."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import FileResponse

from server import shipped

WEB = shipped("web")

router = APIRouter(include_in_schema=False)


def page(name: str) -> FileResponse:
    path = WEB / name
    if not path.is_file():
        raise HTTPException(404, f"The web client has no {name} yet.")
    return FileResponse(path, media_type="text/html")


@router.get("/")
async def lobby() -> FileResponse:
    return page("index.html")


@router.get("/t/{table_id}")
async def table_page(table_id: str, request: Request) -> FileResponse:
    await request.app.state.hub.room(table_id)
    return page("table.html")


@router.get("/sw.js")
async def service_worker() -> FileResponse:
    """The client's service worker (web/sw.js), at the top of the site: a worker's scope
    is at most its own folder, and it must cover the lobby and every table page. Never
    kept by a cache unchecked, so a new worker is seen at once."""
    return FileResponse(
        WEB / "sw.js", media_type="text/javascript", headers={"Cache-Control": "no-cache"}
    )


@router.get("/favicon.ico")
async def favicon() -> FileResponse:
    """Browsers and bookmarks ask for /favicon.ico whatever the page links: the spade."""
    return FileResponse(WEB / "favicon.svg", media_type="image/svg+xml")
