"""HTTP hardening through real uvicorn: security headers on every response (pages, API,
static files, 404/413/422/500, /metrics, /healthz), pages that load in Chromium under that
Content-Security-Policy, bodies that must arrive in time (408), and X-Forwarded-For that is
believed only from configured proxies (`spades serve`).

These are about the HTTP layer, not the database: they run on SQLite only.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import httpx
import pytest

from server.api.security import CONTENT_SECURITY_POLICY
from server.app import MAX_BODY_BYTES
from server.settings import Settings
from tests.conftest import missing_service
from tests.realtime.test_socket_limits import served_with, spades_serve

CHROMIUM = Path("/usr/bin/chromium")
EXPECTED = {
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "cross-origin-opener-policy": "same-origin",
}


@pytest.fixture
def database_url(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path / 'db' / 'spades.db'}"


def assert_secured(response: httpx.Response) -> None:
    for name, value in EXPECTED.items():
        assert response.headers.get(name) == value, (response.request.url, name)
    assert len(response.headers.get_list("x-frame-options")) == 1


def test_the_policy_is_the_one_the_operations_doc_names():
    assert CONTENT_SECURITY_POLICY == (
        "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; "
        "style-src 'self'; script-src 'self'; frame-ancestors 'none'; base-uri 'none'; "
        "form-action 'self'"
    )


async def test_every_http_response_carries_the_security_headers(http):
    table = (await http.post("/api/tables", json={"listed": True})).json()
    answers = {
        "/": 200,
        f"/t/{table['id']}": 200,
        "/c/any-club": 200,
        "/static/club.js": 200,
        "/c/any-club/night/any-night": 200,
        "/c/any-club/night/any-night/standings": 200,
        "/static/night.js": 200,
        "/static/app.css": 200,
        "/static/table.js": 200,
        "/api/tables": 200,
        f"/api/tables/{table['id']}": 200,
        "/healthz": 200,
        "/readyz": 200,
        "/metrics": 200,
        "/t/nope": 404,
        "/static/nope.js": 404,
        "/no/such/route": 404,
    }
    for path, status in answers.items():
        response = await http.get(path)
        assert response.status_code == status, path
        assert_secured(response)
    assert "spades_sockets_dropped_total" in (await http.get("/metrics")).text
    assert (await http.get("/healthz")).json() == {"status": "ok"}
    invalid = await http.post("/api/tables", json={"rules": {"preset": "nope"}})
    assert invalid.status_code == 422
    assert_secured(invalid)
    declared = await http.post("/api/tables", json={"name": "x" * (MAX_BODY_BYTES + 1)})
    assert declared.status_code == 413
    assert declared.json() == {"detail": "Request body too large."}
    assert_secured(declared)


async def test_a_streamed_body_over_the_limit_gets_413_with_the_headers(http):
    async def chunks():
        for _ in range(MAX_BODY_BYTES // 1024 + 2):
            yield b" " * 1024

    response = await http.post(
        "/api/tables", content=chunks(), headers={"content-type": "application/json"}
    )
    assert response.status_code == 413
    assert response.json() == {"detail": "Request body too large."}
    assert_secured(response)


async def test_an_unexpected_500_carries_the_headers_too(app):
    async def broken() -> None:
        raise RuntimeError("boom")

    app.add_api_route("/broken-for-test", broken)
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        response = await client.get("/broken-for-test")
    assert response.status_code == 500
    assert response.json() == {"detail": "Internal error."}
    assert_secured(response)


# -- Bodies that do not arrive ---------------------------------------------------------


async def raw_request(address: str, head: bytes, body: bytes) -> tuple[bytes, float, bool]:
    """Send `head` and part of a body, then nothing: (the answer, seconds it took, whether
    the server then closed the connection)."""
    host, port = address.rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port))
    started = time.monotonic()
    writer.write(head + body)
    await writer.drain()
    answer = b""
    try:
        async with asyncio.timeout(15):
            while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
                chunk = await reader.read(4096)
                if not chunk:
                    break
                answer += chunk
        elapsed = time.monotonic() - started
        async with asyncio.timeout(5):
            closed = await reader.read(4096) == b""
    finally:
        writer.close()
    return answer, elapsed, closed


async def test_a_body_sent_too_slowly_gets_408_in_time(settings):
    async with served_with(settings, body_timeout_seconds=1.0) as (_app, address):
        announced = (
            b"POST /api/tables HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
            b"Content-Length: 200\r\n\r\n" % address.encode()
        )
        chunked = (
            b"POST /api/tables HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n" % address.encode()
        )
        # A Content-Length body half sent; a chunk announcing 16 MiB with 5 bytes of it.
        for head, body in ((announced, b'{"name": "slo'), (chunked, b'1000000\r\n{"na')):
            answer, elapsed, closed = await raw_request(address, head, body)
            assert answer.startswith(b"HTTP/1.1 408 "), answer
            assert b'{"detail":"Request body not received in time."}' in answer
            assert b"content-security-policy:" in answer.lower()
            assert 0.9 <= elapsed < 4, elapsed
            assert closed, "the connection is closed after a 408"
        # A body that arrives in time is not affected.
        async with httpx.AsyncClient(base_url=f"http://{address}") as http:
            assert (await http.post("/api/tables", json={"listed": True})).status_code == 201
    assert Settings().body_timeout_seconds == 10


# -- X-Forwarded-For -------------------------------------------------------------------


async def writes_until_refused(address: str, forwarded: str | None) -> list[int]:
    """Two writes that claim to come from `forwarded`, then one plain write."""
    headers = {} if forwarded is None else {"X-Forwarded-For": forwarded}
    async with httpx.AsyncClient(base_url=f"http://{address}") as http:
        statuses = [
            (await http.post("/api/tables", json={}, headers=headers)).status_code for _ in range(2)
        ]
        statuses.append((await http.post("/api/tables", json={})).status_code)
    return statuses


async def test_forwarded_for_is_believed_only_from_configured_proxies(tmp_path):
    budget = {"SPADES_HTTP_RATE_LIMIT": "2/minute"}
    # Unset: a request from loopback saying it forwards 203.0.113.9 is counted under
    # 127.0.0.1, so the plain third write finds the budget spent.
    with spades_serve(tmp_path / "trusting-nobody", budget) as address:
        assert await writes_until_refused(address, "203.0.113.9") == [201, 201, 429]
    # Configured: the proxy on loopback is believed, the two writes were 203.0.113.9's.
    with spades_serve(
        tmp_path / "trusting-loopback", budget | {"FORWARDED_ALLOW_IPS": "127.0.0.1"}
    ) as address:
        assert await writes_until_refused(address, "203.0.113.9") == [201, 201, 201]


# -- The web client under the policy ---------------------------------------------------


@pytest.mark.browser
async def test_the_lobby_and_a_table_page_load_in_chromium_with_no_csp_violation(served, http):
    if not CHROMIUM.exists():
        missing_service(f"{CHROMIUM} is missing (apt-get install chromium)")
    from playwright.async_api import async_playwright

    from tests.browser.conftest import CHROMIUM_ARGS

    _app, address = served
    table = (await http.post("/api/tables", json={"name": "Policy table", "listed": True})).json()
    # Reported by the page itself (securitypolicyviolation) and by the console.
    watch = """window.__violations = [];
      document.addEventListener('securitypolicyviolation',
        (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));"""
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS
        )
        try:
            context = await browser.new_context(base_url=f"http://{address}")
            await context.add_init_script(watch)
            console: list[str] = []
            page = await context.new_page()
            page.on("console", lambda m: console.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: console.append(str(e)))
            missing: list[str] = []
            page.on("response", lambda r: missing.append(r.url) if r.status >= 400 else None)

            response = await page.goto("/")
            assert response.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
            await page.locator("#open-tables li", has_text="Policy table").wait_for()

            async with page.expect_websocket() as opened:
                await page.goto(table["invite_url"])
            socket = await opened.value
            await socket.wait_for_event("framereceived")
            await page.wait_for_function(
                "() => document.getElementById('table-name').textContent.includes('Policy table')"
            )
            await page.wait_for_load_state("networkidle")
            violations = await page.evaluate("window.__violations")
            # The club page, joined (it draws its members, links and forms).
            made = await page.request.post("/api/clubs", data={"name": "Policy club"})
            club = await made.json()
            await page.goto(club["url"])
            await page.locator("#member-name").fill("Ada")
            await page.locator("#join").click()
            await page.locator("#leaderboard tbody tr").first.wait_for()
            await page.wait_for_load_state("networkidle")
            violations += await page.evaluate("window.__violations")
            # A club night's page (the host's) and its standings board (the watch link).
            host = {"Authorization": f"Bearer {club['host_token']}"}
            for name in ("Bo", "Cy", "Di"):
                joining = {"name": name, "invite": club["invite"]}
                await page.request.post(f"/api/clubs/{club['id']}/members", data=joining)
            listed = await page.request.get(f"/api/clubs/{club['id']}", headers=host)
            members = [member["id"] for member in (await listed.json())["members"]]
            wanted = {"members": members, "rounds": 1, "hands": 1}
            made_night = await page.request.post(
                f"/api/clubs/{club['id']}/nights", headers=host, data=wanted
            )
            night = await made_night.json()
            for path in (
                f"/c/{club['id']}/night/{night['id']}#host={club['host_token']}",
                night["watch_url"],
            ):
                await page.goto(path)
                await page.locator("#standings tbody tr").nth(3).wait_for()
                await page.wait_for_load_state("networkidle")
                violations += await page.evaluate("window.__violations")
            await context.close()
        finally:
            await browser.close()
    assert violations == []
    assert not [line for line in console if "Content Security Policy" in line], console
    # Chromium asks for /favicon.ico, which the client does not have: nothing else fails.
    assert all(url.endswith("/favicon.ico") for url in missing), missing
    assert len([line for line in console if "Failed to load resource" not in line]) == 0, console
