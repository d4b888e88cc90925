"""The page's conversation features in real headless Chromium on the tiny model: branches (and the
migration of conversations stored before them), search, the conversation list, keyboard
shortcuts, dark mode, storage use and "Continue"."""

from __future__ import annotations

import json

from playwright.sync_api import expect

from tests.pages import (
    downloaded,
    open_page,
    record_chat_bodies,
    send,
    set_max_new_tokens,
    stored,
    wait_loaded,
    wait_partial_reply,
    wait_reply,
)


def texts(page, role):
    return page.locator(f".msg.{role} .body").all_inner_texts()


def test_branches_keep_every_version_and_send_the_path_shown(context, live):
    page = open_page(context, live.url)
    bodies = []
    record_chat_bodies(page, bodies)
    send(page, "Hello")
    wait_reply(page, 2)
    send(page, "Second question")
    wait_reply(page, 4)
    # Edit the first message: a new version, with its own reply; the old branch stays.
    page.locator(".msg.user").first.get_by_role("button", name="Edit").click()
    page.fill(".msg.user .edit-box", "Hi instead")
    page.press(".msg.user .edit-box", "Enter")
    wait_reply(page, 2)
    assert bodies[-1]["messages"] == [{"role": "user", "content": "Hi instead"}]
    expect(page.locator(".msg")).to_have_count(2)
    expect(page.locator(".msg.user .versions")).to_contain_text("2/2")
    # Back to version 1: the whole old branch, its second exchange included.
    page.locator(".msg.user").first.get_by_role("button", name="Previous version").click()
    expect(page.locator(".msg")).to_have_count(4)
    assert texts(page, "user") == ["Hello", "Second question"]
    expect(page.locator(".msg.user").first.locator(".versions")).to_contain_text("1/2")
    # Regenerate the last reply there: 2 versions of it; the next turn sends this path.
    page.get_by_role("button", name="Regenerate").click()
    wait_reply(page, 4)
    expect(page.locator(".msg.assistant").nth(1).locator(".versions")).to_contain_text("2/2")
    # Greedy replies repeat: mark the first version's text, so the two can be told apart.
    regenerated = page.evaluate('''() => { const S = window.MnemoStore, c = S.list()[0];
        const leaf = c.messages.find((m) => m.id === c.leaf);
        c.messages.find((m) => m.parent === leaf.parent && m !== leaf).content = "first version";
        S.write(c); return leaf.content; }''')
    page.reload()
    wait_loaded(page)
    send(page, "Third")
    wait_reply(page, 6)
    sent = [m["content"] for m in bodies[-1]["messages"]]
    assert sent[0::2] == ["Hello", "Second question", "Third"]
    assert sent[3] == regenerated and "first version" not in sent  # the version shown
    conv = stored(page)[0]
    assert conv["version"] == 2 and len(conv["messages"]) == 9
    # It all survives a reload, the path shown included.
    page.reload()
    wait_loaded(page)
    assert texts(page, "user") == ["Hello", "Second question", "Third"]

    # Export and import keep every branch.
    exported = json.loads(downloaded(page, "#export-all"))
    assert exported["version"] == 2
    page.evaluate("localStorage.clear()")
    page.set_input_files("#import-file", files=[{
        "name": "all.json", "mimeType": "application/json", "buffer": json.dumps(exported).encode()}])
    expect(page.locator("#banner")).to_contain_text("Imported 1 conversation")
    assert stored(page) == exported["conversations"]
    assert page.errors == []


V1 = {"id": "old-1", "title": "Before branches", "created": 1700000000000, "updated": 1700000100000,
      "settings": {"system": "Be brief.", "template": "default", "adapter": "", "max_turns": 10,
                   "max_new_tokens": 8, "temperature": 0, "compact": True, "recall": False},
      "summary": {"text": "Earlier: Ada likes tea.", "signature": None, "next_id": "m3",
                  "kept_ids": [], "edited": True, "updated": 1700000050000},
      "messages": [
          {"id": "m1", "role": "user", "content": "I am Ada.", "status": "ok", "pinned": True},
          {"id": "m2", "role": "assistant", "content": "Hello **Ada**.", "status": "ok",
           "report": {"received": 1, "used": 1, "dropped": 0, "lost": 0},
           "usage": {"prompt_tokens": 20, "completion_tokens": 4, "total_tokens": 24}},
          {"id": "m3", "role": "user", "content": "What do I like?", "status": "failed",
           "error": "HTTP 503"},
      ]}


def test_a_conversation_stored_by_the_previous_format_is_migrated_whole(context, live):
    page = open_page(context, live.url)
    page.evaluate("""(conv) => { localStorage.clear();
        localStorage.setItem('mnemo.v1.conv.' + conv.id, JSON.stringify(conv));
        localStorage.setItem('mnemo.v1.current', conv.id); }""", V1)
    page.reload()
    wait_loaded(page)
    expect(page.locator("#conv-title")).to_have_text("Before branches")
    assert texts(page, "user") == ["I am Ada.", "What do I like?"]
    expect(page.locator(".msg.assistant .body strong")).to_have_text("Ada")
    keys = page.evaluate("Object.keys(localStorage).filter((k) => k.includes('.conv.'))")
    assert keys == ["mnemo.v2.conv.old-1"]
    conv = json.loads(page.evaluate("localStorage.getItem('mnemo.v2.conv.old-1')"))
    assert conv["version"] == 2 and conv["leaf"] == "m3"
    assert [m["parent"] for m in conv["messages"]] == [None, "m1", "m2"]
    for old, new in zip(V1["messages"], conv["messages"], strict=True):
        # every field kept; format 2 adds the branch parent and the merge's revision stamps
        assert {k: v for k, v in new.items() if k not in ("parent", "rev", "revs")} == old
        assert new["rev"] > 0
        assert new["revs"] == {k: new["rev"] for k in new if k not in ("id", "rev", "revs")}
    assert {k: conv[k] for k in V1 if k != "messages"} == {k: V1[k] for k in V1 if k != "messages"}
    # The failed message can still be retried, and the history sent is the migrated one.
    bodies = []
    record_chat_bodies(page, bodies)
    page.get_by_role("button", name="Retry").click()
    wait_reply(page, 3)
    assert bodies[-1]["messages"][0] == {"role": "user", "content": "I am Ada.", "pinned": True}
    assert bodies[-1]["system"] == "Be brief."
    # An export written by the previous version imports too.
    page.evaluate("localStorage.clear()")
    old_export = {"format": "mnemo.conversations", "version": 1, "conversations": [V1]}
    page.set_input_files("#import-file", files=[{
        "name": "old.json", "mimeType": "application/json", "buffer": json.dumps(old_export).encode()}])
    expect(page.locator("#banner")).to_contain_text("Imported 1 conversation")
    assert [m["content"] for m in stored(page)[0]["messages"]] == [m["content"] for m in V1["messages"]]
    assert page.errors == []


def seed(page, title, pairs, used):
    page.evaluate("""([title, pairs, used]) => { const S = window.MnemoStore;
        const conv = S.create({system: "", template: "default", adapter: "", max_turns: 10,
                               max_new_tokens: 8, temperature: 0, compact: true, recall: false,
                               recall_chosen: true});
        conv.title = title;
        for (const [q, a] of pairs) {
          conv.messages.push({id: S.newId(), role: "user", content: q, status: "ok"});
          conv.messages.push({id: S.newId(), role: "assistant", content: a, status: "ok"});
        }
        S.write(conv); conv.used = conv.updated = used; S.write(conv, {keepTime: true}); }""",
                  [title, pairs, used])


def test_search_list_order_rename_and_delete_with_undo(context, live):
    page = open_page(context, live.url)
    page.evaluate("localStorage.clear()")
    seed(page, "Cooking", [["How long to boil an egg?", "About nine minutes."]], 1000)
    seed(page, "Travel", [["Trains to Lyon?", "Hourly from Paris."]], 3000)
    seed(page, "Garden", [["When to plant tulips?", "In autumn, before the frost."]], 2000)
    page.reload()
    wait_loaded(page)
    titles = lambda: page.locator("#conv-list .conv-open").evaluate_all(  # noqa: E731
        "(bs) => bs.map((b) => b.firstChild.textContent)")
    assert titles() == ["Travel", "Garden", "Cooking"]  # most recently used first
    page.locator("#conv-list .conv-open", has_text="Cooking").click()
    assert titles()[0] == "Cooking"  # opening is using

    page.fill("#search", "FROST")
    expect(page.locator("#conv-list li")).to_have_count(1)
    expect(page.locator("#search-status")).to_have_text("1 conversation match")
    expect(page.locator("#conv-list mark")).to_have_text("frost")
    page.locator("#conv-list .conv-open").click()
    expect(page.locator("#conv-title")).to_have_text("Garden")
    expect(page.locator(".msg mark")).to_have_text("frost")
    page.fill("#search", "travel")  # titles are searched too
    expect(page.locator("#conv-list li")).to_have_count(1)
    page.fill("#search", "")
    expect(page.locator("#conv-list li")).to_have_count(3)

    page.once("dialog", lambda d: d.accept("Trips"))
    page.get_by_role("button", name='Rename "Travel"').click()
    expect(page.locator("#conv-list")).to_contain_text("Trips")
    kept = next(c for c in stored(page) if c["title"] == "Trips")
    page.get_by_role("button", name='Delete "Trips"').click()
    expect(page.locator("#conv-list li")).to_have_count(2)
    assert all(c["id"] != kept["id"] for c in stored(page))
    page.locator("#banner").get_by_role("button", name="Undo").click()
    expect(page.locator("#conv-title")).to_have_text("Trips")
    assert next(c for c in stored(page) if c["id"] == kept["id"])["messages"] == kept["messages"]
    assert page.errors == []


def test_search_opens_the_branch_that_holds_the_match(context, live):
    page = open_page(context, live.url)
    send(page, "Tell me about owls")
    wait_reply(page, 2)
    page.locator(".msg.user").first.get_by_role("button", name="Edit").click()
    page.fill(".msg.user .edit-box", "Tell me about bats")
    page.click("text=Save and send")
    wait_reply(page, 2)
    page.click("#new-conv")
    page.fill("#search", "owls")
    page.locator("#conv-list .conv-open").click()
    assert texts(page, "user") == ["Tell me about owls"]
    expect(page.locator(".msg.user .versions")).to_contain_text("1/2")


def test_keyboard_shortcuts(browser, live, app, hold):
    ctx = browser.new_context()
    ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=live.url)
    try:
        page = open_page(ctx, live.url)
        send(page, "Hello")
        wait_reply(page, 2)
        page.locator("body").click()
        page.keyboard.press("?")
        expect(page.locator("#shortcuts")).to_be_visible()
        for keys in ("Alt+Shift+N", "Ctrl+K", "Shift+Esc", "Esc", "Alt+Shift+R", "Alt+Shift+C", "?"):
            expect(page.locator("#shortcut-table")).to_contain_text(keys)
        page.keyboard.press("Escape")
        expect(page.locator("#shortcuts")).to_be_hidden()

        page.keyboard.press("Alt+Shift+C")  # copy the last reply
        reply = page.locator(".msg.assistant .body").inner_text().strip()
        page.wait_for_function("async (r) => (await navigator.clipboard.readText()).trim() === r", arg=reply)
        page.keyboard.press("Alt+Shift+R")  # regenerate: a second version
        wait_reply(page, 2)
        expect(page.locator(".msg.assistant .versions")).to_contain_text("2/2")
        page.keyboard.press("Control+k")
        expect(page.locator("#search")).to_be_focused()
        page.keyboard.press("Shift+Escape")
        expect(page.locator("#input")).to_be_focused()

        held = hold(app)
        set_max_new_tokens(page, 64)
        send(page, "Talk for a while")
        wait_partial_reply(page, 3)  # and held there
        page.keyboard.press("Escape")  # stops the reply
        wait_reply(page, 4)
        expect(page.locator(".msg.assistant").last.locator(".meta")).to_contain_text("stopped")
        held.release()

        first = stored(page)
        page.keyboard.press("Alt+Shift+N")
        expect(page.locator("#conv-title")).to_have_text("New chat")
        assert len(stored(page)) == len(first) + 1
        assert page.errors == []
    finally:
        ctx.close()


def background(page):
    return page.evaluate("getComputedStyle(document.body).backgroundColor")


def test_dark_mode_follows_the_system_and_the_switch(browser, live):
    ctx = browser.new_context(color_scheme="dark")
    try:
        page = open_page(ctx, live.url)
        assert background(page) == "rgb(22, 24, 28)"
        assert page.evaluate("matchMedia(document.querySelector('#hl-dark').media).matches")
        page.select_option("#theme", "light")
        assert background(page) == "rgb(255, 255, 255)"
        assert page.evaluate("document.querySelector('#hl-light').media") == "all"
        page.reload()
        wait_loaded(page)
        assert background(page) == "rgb(255, 255, 255)"  # the choice is kept
        page.select_option("#theme", "system")
        assert background(page) == "rgb(22, 24, 28)"
    finally:
        ctx.close()
    ctx = browser.new_context(color_scheme="light")
    try:
        page = open_page(ctx, live.url)
        assert background(page) == "rgb(255, 255, 255)"
        page.select_option("#theme", "dark")
        assert background(page) == "rgb(22, 24, 28)"
    finally:
        ctx.close()


def test_storage_use_is_shown_and_warned_of_before_it_is_full(context, live):
    page = open_page(context, live.url)
    expect(page.locator("#storage")).to_contain_text("Storage: ")
    expect(page.locator("#storage")).to_contain_text("of about 10.0 MB used")
    assert page.evaluate("window.mnemoPersisted !== undefined")  # persistence was asked for
    # 85 % of the quota in another key: the page warns on its next render, and saving works.
    page.evaluate("localStorage.setItem('filler', 'x'.repeat(Math.floor(5 * 1024 * 1024 * 0.85)))")
    send(page, "Still room")
    expect(page.locator("#banner")).to_contain_text("85 % full")
    expect(page.locator("#banner").get_by_role("button", name="Export all conversations")).to_be_visible()
    wait_reply(page, 2)
    assert stored(page)[0]["messages"][0]["content"] == "Still room"


def test_continue_extends_a_reply_cut_at_the_token_limit(context, live):
    page = open_page(context, live.url)
    bodies = []
    record_chat_bodies(page, bodies)
    set_max_new_tokens(page, 6)
    send(page, "Tell me a long story")
    wait_reply(page, 2)
    expect(page.locator(".msg.assistant .cut")).to_have_text("cut at the token limit")
    partial = stored(page)[0]["messages"][1]["content"]
    page.get_by_role("button", name="Continue").click()
    wait_reply(page, 2)
    assert bodies[-1]["continue"] is True
    assert bodies[-1]["messages"][-1] == {"role": "assistant", "content": partial}
    reply = stored(page)[0]["messages"][1]
    assert reply["content"].startswith(partial) and len(reply["content"]) > len(partial)
    assert reply["usage"]["completion_tokens"] == 12
    expect(page.locator(".msg")).to_have_count(2)  # the same reply, longer
    assert page.errors == []
