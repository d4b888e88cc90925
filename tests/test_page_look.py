"""How the page looks, at desktop and phone width, light and dark: screenshots of an empty and
of a used conversation (written to $MNEMO_SCREENSHOTS, else pytest's temporary directory), and
the layout rules behind them checked on the rendered page."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.pages import downloaded, mid_reply, open_page, send

LONG = ("Could you explain, step by step and with an example, how a hash table keeps its lookups "
        "fast when many keys collide in the same bucket?")
SEED = """([user, reply]) => {
  const S = window.MnemoStore, c = S.create({});
  c.title = "Hash tables, collisions and the load factor explained";
  c.messages.push(
    {id: "u1", role: "user", content: user, status: "ok"},
    {id: "r1", role: "assistant", content: reply, status: "ok", finish_reason: "stop",
     usage: {prompt_tokens: 31, completion_tokens: 58, total_tokens: 89},
     report: {used: 1, received: 1}},
    {id: "u2", role: "user", content: "Thanks!", status: "ok"},
    {id: "r2", role: "assistant", content: "You're welcome.", status: "ok", finish_reason: "stop"});
  c.leaf = "r2";
  S.write(c);
  localStorage.setItem("mnemo.v1.current", c.id);
}"""
REPLY = ("Each bucket holds a short list. When two keys land in the same bucket, the table walks "
         "that list:\n\n```python\nbucket = table[hash(key) % len(table)]\n```\n\nWhen the lists "
         "grow, the table doubles and spreads the keys again, so lookups stay fast on average.")

VIEWS = {"desktop": {"viewport": {"width": 1280, "height": 800}},
         "phone": {"viewport": {"width": 390, "height": 844}, "has_touch": True,
                   "is_mobile": True, "device_scale_factor": 2}}


@pytest.fixture()
def shots(tmp_path) -> Path:
    path = Path(os.environ.get("MNEMO_SCREENSHOTS") or tmp_path)
    path.mkdir(parents=True, exist_ok=True)
    return path


def box(locator) -> dict:
    b = locator.bounding_box()
    assert b, "not rendered"
    return b


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("view", list(VIEWS))
def test_the_page_at_each_width_and_scheme(browser, live, shots, view, scheme):
    ctx = browser.new_context(color_scheme=scheme, **VIEWS[view])
    try:
        page = open_page(ctx, live.url)
        # An empty conversation names the model and offers ways to start.
        empty = page.locator(".empty")
        expect(empty).to_contain_text(page.evaluate("fetch('/api/config').then(r => r.json())"
                                                    ".then(c => c.model)"))
        assert page.locator(".examples button").count() >= 3
        page.screenshot(path=shots / f"empty-{view}-{scheme}.png")

        page.evaluate(SEED, [LONG, REPLY])
        page.reload()
        expect(page.locator(".msg")).to_have_count(4)
        page.screenshot(path=shots / f"chat-{view}-{scheme}.png")
        column = box(page.locator("#messages"))
        user, reply = box(page.locator(".msg.user").first), box(page.locator(".msg.assistant").first)
        short = box(page.locator(".msg.user").nth(1))
        # the user's messages sit on the right and are narrower; replies take the column
        assert user["width"] < reply["width"] * 0.9
        assert abs((user["x"] + user["width"]) - (reply["x"] + reply["width"])) < 2
        assert abs((short["x"] + short["width"]) - (reply["x"] + reply["width"])) < 2
        assert short["width"] < user["width"] / 2  # a short message is a small bubble
        assert reply["x"] >= column["x"] and reply["width"] <= 800
        # no horizontal scrolling at this width
        assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")

        actions = page.locator(".msg.assistant").first.locator(".actions")
        opacity = "el => getComputedStyle(el).opacity"
        if view == "phone":  # no hover on a touch screen: the actions stay shown
            assert actions.evaluate(opacity) == "1"
        else:
            page.mouse.move(0, 0)
            expect(actions).to_have_css("opacity", "0")
            page.locator(".msg.assistant").first.hover()
            expect(actions).to_have_css("opacity", "1")
            page.mouse.move(0, 0)
            actions.get_by_role("button", name="Copy message").focus()  # the keyboard's way
            expect(actions).to_have_css("opacity", "1")
    finally:
        ctx.close()


def test_titles_exports_and_search_hits_read_well(context, live):
    page = open_page(context, live.url)
    expect(page.locator("#export-json")).to_be_hidden()  # inside the closed Export menu
    send(page, "Please tell me everything about the migration patterns of arctic terns today")
    page.wait_for_function("() => !document.querySelector('#send').disabled")
    title = page.locator("#conv-title").inner_text()
    # cut at a word, with an ellipsis
    assert title == "Please tell me everything about the…"
    assert downloaded(page, "#export-json") and downloaded(page, "#export-md")
    with page.expect_download() as info:
        page.locator("#export-menu summary").click()
        page.click("#export-md")
    assert info.value.suggested_filename == "Please-tell-me-everything-about-the.md"
    expect(page.locator("#export-md")).to_be_hidden()  # the menu closed after the choice
    # names count what a reader sees as one character: an emoji family, a letter and its marks
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    got = page.evaluate("""async ([family, accents, emoji]) => {
      const N = await import("/static/names.js");
      return [N.titleFrom(family.repeat(45)), N.fileName({title: accents}, "md"),
              N.fileName({title: emoji.repeat(70)}, "json")]; }""",
                        [family, "Cafe\u0301 nai\u0308ve नमस्ते", "\U0001f600"])
    assert got == [family * 40 + "…", "Café-naïve-नमस्ते.md", "conversation.json"]

    page.evaluate("""() => { const S = window.MnemoStore, c = S.create({}); c.title = "Notes";
      c.messages.push({id: "n1", role: "user", status: "ok", content:
        "A very long message that talks about many unrelated things first, the weather, the " +
        "garden, the neighbours, the car, and only much later mentions the word zeppelin."});
      S.write(c); }""")
    page.fill("#search", "zeppelin")
    hit = page.locator("#conv-list .snippet mark").first
    expect(hit).to_have_text("zeppelin")
    line = box(page.locator("#conv-list .snippet").first)
    word = box(hit)
    assert word["x"] + word["width"] <= line["x"] + line["width"] + 1  # not under the ellipsis
    assert "(under 1 %)" in page.locator("#storage").inner_text()
    assert page.errors == []


def test_a_reply_cut_by_a_reload_is_marked_cut_at_once(context, live, app, hold):
    page = mid_reply(context, live, app, hold, chars=3)
    page.reload()  # within a second of the last save: no waiting for the 10 s rule
    expect(page.locator(".msg.assistant .meta")).to_contain_text("cut short")
    assert page.locator("[aria-busy='true']").count() == 0
    stored = page.evaluate("window.MnemoStore.list()")[0]["messages"]
    assert [m["status"] for m in stored] == ["ok", "stopped"]


def test_a_duplicated_tab_leaves_the_live_reply_alone(context, live, app, hold):
    """A duplicate copies the tab's sessionStorage (its name with it) while the tab writes on:
    the copy must not take the live reply for its own and mark it cut."""
    page = mid_reply(context, live, app, hold, chars=3)
    name = page.evaluate("sessionStorage.getItem('mnemo.tab')")
    copy = context.new_page()
    copy.add_init_script(f"sessionStorage.setItem('mnemo.tab', {json.dumps(name)})")
    copy.goto(live.url)
    expect(copy.locator(".msg.assistant")).to_have_count(1)
    assert "cut short" not in copy.locator(".msg.assistant .meta").inner_text()
    assert copy.evaluate("sessionStorage.getItem('mnemo.tab')") != name
    stored = copy.evaluate("window.MnemoStore.list()")[0]["messages"]
    assert stored[1]["status"] == "streaming"


def test_examples_menus_and_the_temperature_field_keep_what_was_typed(context, live):
    page = open_page(context, live.url)
    # an example is sent, and a draft typed before it stays in the composer
    page.fill("#input", "my half-written thought")
    page.locator(".examples button").first.click()
    expect(page.locator(".msg.user")).to_have_count(1)
    assert page.locator(".msg.user").inner_text().strip().startswith("Explain")
    expect(page.locator("#input")).to_have_value("my half-written thought")
    page.wait_for_function("() => !document.querySelector('#send').disabled")

    # the Export menu: a choice puts focus back on its button; a Tab out of it closes it
    menu = page.locator("#export-menu")
    menu.locator("summary").click()
    with page.expect_download():
        page.click("#export-json")
    assert page.evaluate("document.activeElement === document.querySelector('#export-menu summary')")
    menu.locator("summary").click()
    page.focus("#export-md")
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    expect(page.locator("#export-md")).to_be_hidden()

    # the temperature: a value out of range is said, and the saved one stays
    page.click("#toggle-settings")
    page.fill("#set-temperature", "0.5")
    page.dispatch_event("#set-temperature", "change")
    page.fill("#set-temperature", "7")
    page.dispatch_event("#set-temperature", "change")
    assert page.evaluate("document.querySelector('#set-temperature').validationMessage")
    assert page.evaluate("window.MnemoStore.list()")[0]["settings"]["temperature"] == 0.5
    page.fill("#set-temperature", "")
    page.dispatch_event("#set-temperature", "change")
    assert page.evaluate("document.querySelector('#set-temperature').validationMessage") == ""
    assert page.evaluate("window.MnemoStore.list()")[0]["settings"]["temperature"] is None
    assert page.errors == []
