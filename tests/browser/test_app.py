"""The table as an app on the phone: a valid manifest that opens full screen, a service
worker that Chromium accepts for installing, the shell it keeps (every file the pages
load), a start without the network, and a new version of the client used as soon as the
server has it: a changed stylesheet on the next load, a changed worker with its own cache."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.harness.server import LiveServer
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, ROOT

pytestmark = pytest.mark.browser

CACHED = """async () => {
  const names = await caches.keys();
  const urls = [];
  for (const name of names) {
    const cache = await caches.open(name);
    for (const request of await cache.keys()) urls.push(new URL(request.url).pathname);
  }
  return { names, urls };
}"""


def controlled(page) -> None:
    """Wait until the service worker controls the page."""
    page.wait_for_function("navigator.serviceWorker.controller !== null")


def test_manifest_and_worker_make_the_table_installable(browser, server, tmp_path) -> None:
    manifest = json.loads((ROOT / "web" / "manifest.webmanifest").read_text())
    assert manifest["display"] == "fullscreen" and manifest["start_url"] == "/"
    for icon in manifest["icons"]:
        assert (ROOT / "web" / icon["src"].removeprefix("/static/")).is_file(), icon
    assert {"192x192", "512x512"} <= {icon["sizes"] for icon in manifest["icons"]}
    # A persistent profile: Chromium never offers to install from an incognito one.
    context = browser.browser_type.launch_persistent_context(
        tmp_path / "profile",
        executable_path=str(CHROMIUM),
        args=CHROMIUM_ARGS,
        base_url=server.url,
        bypass_csp=True,
    )
    try:
        page = context.new_page()
        worker = page.request.get("/sw.js")
        assert worker.headers["content-type"].startswith("text/javascript")
        for path in ("/sw.js", "/", "/static/app.css", "/static/table.js"):
            assert page.request.get(path).headers["cache-control"] == "no-cache", path
        types = page.request.get("/static/manifest.webmanifest").headers["content-type"]
        assert types.startswith("application/manifest+json")
        page.goto("/")
        controlled(page)
        devtools = context.new_cdp_session(page)
        app = devtools.send("Page.getAppManifest")
        assert app["errors"] == [] and app["manifest"]["display"] == "kFullscreen"
        assert devtools.send("Page.getInstallabilityErrors") == {"installabilityErrors": []}
    finally:
        context.close()


@pytest.fixture
def own_copy(tmp_path) -> Iterator[tuple[LiveServer, Path]]:
    """A server running from a copy of the project, whose web/ the test may change."""
    copy = tmp_path / "project"
    ignore = shutil.ignore_patterns("__pycache__")
    for folder in ("server", "web", "migrations"):
        shutil.copytree(ROOT / folder, copy / folder, ignore=ignore)
    shutil.copy(ROOT / "alembic.ini", copy / "alembic.ini")
    with LiveServer(f"sqlite+aiosqlite:///{tmp_path / 'app.db'}", root=copy) as copied:
        yield copied, copy / "web"


def test_the_shell_is_kept_for_offline_and_a_new_client_replaces_it(browser, own_copy) -> None:
    copied, web = own_copy
    context = browser.new_context(base_url=copied.url, bypass_csp=True)
    try:
        page = context.new_page()
        loaded: set[str] = set()
        page.on("request", lambda request: loaded.add(request.url.split(copied.url, 1)[-1]))
        table = page.request.post("/api/tables", data={"name": "App"}).json()
        page.goto("/")
        controlled(page)
        page.goto(table["url"])
        page.locator('.seat[data-seat="0"].empty').wait_for()
        cached = page.evaluate(CACHED)
        assert cached["names"] == ["spades-shell-1"]
        shell = {url for url in loaded if url.startswith("/static/")} | {"/"}
        assert shell <= set(cached["urls"]), f"not kept: {shell - set(cached['urls'])}"

        # Without the server, the lobby and the table page still open (and say so).
        copied.stop()
        page.goto("/")
        assert page.title() == "Spades — lobby"
        page.goto(table["url"])
        page.locator("#connection-banner", has_text="Reconnecting").wait_for()
        copied.start()

        # A new stylesheet on the server: the next load uses it, and it is kept.
        css = web / "app.css"
        css.write_text(css.read_text() + '\n:root { --client-version: "2"; }\n')
        page.goto("/")
        version = "getComputedStyle(document.documentElement).getPropertyValue('--client-version')"
        assert page.evaluate(version).strip() == '"2"'
        kept = page.evaluate("async () => (await (await caches.match('/static/app.css')).text())")
        assert "--client-version" in kept

        # A new worker (a new cache name): it takes over and the old cache goes.
        worker = web / "sw.js"
        worker.write_text(worker.read_text().replace("spades-shell-1", "spades-shell-2"))
        page.evaluate("async () => (await navigator.serviceWorker.ready).update()")
        page.wait_for_function(
            "async () => JSON.stringify(await caches.keys()) === '[\"spades-shell-2\"]'"
        )
    finally:
        context.close()
