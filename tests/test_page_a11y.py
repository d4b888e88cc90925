"""Accessibility of the page, checked by axe-core (vendored in tests/vendor/) in Chromium: desktop
and phone width, light and dark, with a conversation holding Markdown, code, versions and the
panels open. No serious or critical violation is allowed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.pages import open_page, send, wait_reply

AXE = (Path(__file__).parent / "vendor" / "axe.min.js").read_text(encoding="utf-8")
WIDE = " | ".join(f"column {i}" for i in range(30))
REPLY = (f"Sure:\n\n| {WIDE} |\n|{'---|' * 30}\n| {' | '.join('1' * 30)} |\n\n> a quote\n\n"
         f"```python\nprint('hi')  # {'x' * 300}\n```\n\nSee [the docs](https://example.org).")


def violations(page) -> list[str]:
    # what is fading in or out (the message actions, 0.12 s) has no settled contrast to check
    page.wait_for_function("() => document.getAnimations().every((a) => a.playState !== 'running')")
    page.evaluate(AXE)  # evaluated through the devtools protocol: the page's CSP still holds
    result = page.evaluate("""async () => (await axe.run(document, {
        runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']},
    })).violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
       .map((v) => v.id + ': ' + v.help + ' @ ' + v.nodes.map((n) => n.target.join(' ')).join(', '))""")
    return result


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", [1280, 375])
def test_no_serious_accessibility_violations(browser, live, scheme, width):
    ctx = browser.new_context(viewport={"width": width, "height": 800}, color_scheme=scheme)
    try:
        page = open_page(ctx, live.url)
        send(page, "Hello")
        wait_reply(page, 2)
        page.click("text=Regenerate")
        wait_reply(page, 2)
        done = {"message": {"role": "assistant", "content": REPLY}, "finish_reason": "length",
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                "history": {"received": 3, "used": 1, "dropped": 2, "lost": 2}}
        page.route("**/api/chat", lambda route: route.fulfill(
            status=200, content_type="text/event-stream",
            body=f"event: done\ndata: {json.dumps(done)}\n\n"))
        send(page, "Show me code")
        wait_reply(page, 4)
        if width < 700:  # the conversation list is a drawer on a phone
            page.click("#show-sidebar")
        page.fill("#search", "hello")
        assert violations(page) == []
        if width < 700:
            page.click("#toggle-sidebar")
        page.click("#toggle-settings")
        page.click("#toggle-memory")
        assert violations(page) == []
        page.keyboard.press("Escape")
        page.locator("#input").focus()
        page.keyboard.press("Shift+Escape")
        page.locator("body").focus()
        page.evaluate("document.activeElement.blur()")
        page.keyboard.press("?")
        assert page.locator("#shortcuts").is_visible()
        assert violations(page) == []
        assert page.errors == []
    finally:
        ctx.close()
