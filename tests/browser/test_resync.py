"""A message lost on the way (a version gap) makes the page say hello again and catch up:
the lost chat line comes back with the hello answer's backlog."""

from __future__ import annotations

import json
import re

import pytest

pytestmark = pytest.mark.browser


def test_version_gap_makes_the_page_resync(open_page, browser, server) -> None:
    lobby = open_page("/")
    table = lobby.request.post("/api/tables", data={"name": "Gap"}).json()
    sent_by_page: list[dict] = []
    dropped: list[dict] = []

    def relay(route) -> None:
        server = route.connect_to_server()

        def from_page(message: str | bytes) -> None:
            sent_by_page.append(json.loads(message))
            server.send(message)

        def from_server(message: str | bytes) -> None:
            parsed = json.loads(message)
            if parsed.get("type") == "chat" and parsed.get("text") == "lost line":
                dropped.append(parsed)
                return
            route.send(message)

        route.on_message(from_page)
        server.on_message(from_server)

    watcher = browser.new_context(base_url=server.url)
    try:
        page = watcher.new_page()
        page.route_web_socket(re.compile(r"/ws/tables/"), relay)
        page.goto(table["url"])
        page.locator(".seat").first.wait_for()

        talker = open_page(table["url"])
        talker.locator("#chat-text").fill("lost line")
        talker.locator("#chat-text").press("Enter")
        talker.locator("#chat-log li", has_text="lost line").wait_for()
        talker.locator("#chat-text").fill("next line")
        talker.locator("#chat-text").press("Enter")

        page.locator("#chat-log li", has_text="next line").wait_for()
        page.locator("#chat-log li", has_text="lost line").wait_for()
        assert dropped, "the relay never saw the line it should drop"
        hellos = [message for message in sent_by_page if message["type"] == "hello"]
        assert len(hellos) == 2
        assert hellos[1]["version"] is not None
    finally:
        watcher.close()
