"""Browser fixtures: a real table server in a subprocess and Debian's Chromium.

Playwright's own browser download does not work here, so the tests drive
/usr/bin/chromium. Without it they skip, saying so, except under `CI=true`, where a
missing browser is a failure. Screenshots go to test-artifacts/screenshots/ (gitignored);
the path is printed at the end of the run.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bench.harness.server import LiveServer
from tests.browser import pictures

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
DOC_SCREENSHOTS = ROOT / "docs" / "screenshots"
LAPTOP = {"width": 1280, "height": 860}
PHONE = {"width": 360, "height": 760}

_saved: list[Path] = []


def missing(reason: str) -> None:
    """Skip locally; under CI a missing browser or server is a failure."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (CI=true: a missing service is a failure)")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One uvicorn process on a fresh SQLite file, bots acting without delay."""
    database = tmp_path_factory.mktemp("browser-db") / "t.db"
    # Bots added from the page are experts (its default level); 20 ms a card instead of
    # 150 keeps whole games in the browser quick.
    with LiveServer(f"sqlite+aiosqlite:///{database}", env={"SPADES_BOT_BUDGET_MS": "20"}) as live:
        yield live


# Package scope, not session: Playwright's sync API keeps an event loop running in the
# main thread until it stops, which would break every asyncio test collected after these.
@pytest.fixture(scope="package")
def browser() -> Iterator[object]:
    if not CHROMIUM.exists():
        missing(f"{CHROMIUM} is missing (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def open_page(browser, server: LiveServer) -> Iterator[Callable[..., object]]:
    """open_page(path, viewport=LAPTOP): a page in its own context (own localStorage).

    Page errors (uncaught exceptions in the client) fail the test at the end.
    """
    contexts = []
    errors: list[str] = []

    def opener(path: str = "/", viewport: dict[str, int] | None = None, init_script: str = ""):
        # Playwright's wait_for_function polls its predicate with eval, which the pages'
        # Content-Security-Policy forbids; tests/api/test_security.py loads the pages
        # with the policy in force and checks that nothing breaks it.
        context = browser.new_context(
            viewport=viewport or LAPTOP, base_url=server.url, bypass_csp=True
        )
        context.set_default_timeout(20_000)  # the CI machine is shared and busy
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(f"{path}: {error}"))
        if init_script:
            page.add_init_script(init_script)
        page.goto(path)
        return page

    yield opener
    for context in contexts:
        context.close()
    assert not errors, f"uncaught errors in the page: {errors}"


def screenshot(page, name: str, *, full_page: bool = True, doc: bool | None = None) -> Path:
    """Save test-artifacts/screenshots/<name>.png. A doc picture (named without a "-", or
    `doc=True`: docs/screenshots/, the README's) shows the window only, and fails the test
    when the committed one differs in size or layout from what the page draws now
    (tests/browser/pictures.py); with SPADES_DOC_SCREENSHOTS=1 it replaces the committed
    one instead. `full_page=False` shows the window only, as a player sees it without
    scrolling."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    if doc is None:
        doc = "-" not in name
    if doc:
        pictures.settle(page)
    page.screenshot(path=str(path), full_page=full_page and not doc)
    _saved.append(path)
    if not doc:
        return path
    layout = pictures.layout_of(page)
    committed = DOC_SCREENSHOTS / path.name
    if os.environ.get("SPADES_DOC_SCREENSHOTS") == "1":
        DOC_SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        pictures.save(path, committed, layout)
        return path
    differences = pictures.differences(path, committed, layout)
    assert not differences, (
        f"docs/screenshots/{path.name} is not what the page draws now; "
        f"regenerate the pictures with {pictures.REGENERATE}: " + "; ".join(differences)
    )
    return path


def pytest_terminal_summary(terminalreporter) -> None:
    if _saved:
        terminalreporter.write_line(f"browser screenshots ({len(_saved)}) saved in {SCREENSHOTS}")
