"""Helpers for the page's tests in real headless Chromium (the ``browser`` fixture is in
conftest.py: one Chromium for the session)."""

from __future__ import annotations

import json

from playwright.sync_api import expect

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def open_page(context, url, loaded="#set-adapter"):
    """Open the page and wait until the server's config filled ``loaded`` (a select)."""
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(url)
    expect(page.locator("#conv-title")).to_be_visible()
    wait_loaded(page, loaded)
    page.errors = errors
    return page


def wait_loaded(page, select="#set-adapter") -> None:
    """Wait until the server's config filled ``select`` (after opening or reloading the page)."""
    page.wait_for_function(f"() => document.querySelector('{select}').options.length > 1")


def set_max_new_tokens(page, n: int) -> None:
    page.click("#toggle-settings")
    page.fill("#set-max-new", str(n))
    page.dispatch_event("#set-max-new", "change")


def wait_partial_reply(page, chars: int) -> None:
    """Wait until the last reply (the one streaming) shows more than ``chars`` characters."""
    page.wait_for_function("() => ([...document.querySelectorAll('.msg.assistant .body')].pop() || {})"
                           f".textContent?.length > {chars}")


def mid_reply(context, live, app, hold, chars: int = 5):
    """A page whose reply has shown ``chars`` and is held there, still streaming, until the
    test ends (``hold``, the fixture): no window a slow machine can miss."""
    hold(app, after=16)
    page = open_page(context, live.url)
    set_max_new_tokens(page, 64)
    send(page, "Talk for a while")
    wait_partial_reply(page, chars)
    return page


def send(page, text):
    page.fill("#input", text)
    page.press("#input", "Enter")


def wait_reply(page, n_messages):
    page.wait_for_function(
        f"() => document.querySelectorAll('.msg').length >= {n_messages} && "
        "!document.querySelector('#send').disabled")


def record_chat_bodies(page, bodies):
    """Collect the JSON bodies the page posts to /api/chat."""
    def on_request(req):
        if req.url.endswith("/api/chat"):
            bodies.append(json.loads(req.post_data))
    page.on("request", on_request)


def stored(page):
    return page.evaluate("window.MnemoStore.list()")


def downloaded(page, button: str) -> str:
    """Click ``button`` and return the text of the file it downloads."""
    menu = page.locator(button).locator("xpath=ancestor::details")
    if menu.count() and not menu.evaluate("d => d.open"):
        menu.locator("summary").click()  # an item of the Export menu: open it first
    with page.expect_download() as info:
        page.click(button)
    return open(info.value.path(), encoding="utf-8").read()
