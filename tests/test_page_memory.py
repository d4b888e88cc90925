"""The page's memory in real headless Chromium on the tiny model: pins, the memory panel, the
server's summary stored with the conversation, an edited (unsigned) summary, export/import."""

from __future__ import annotations

import json

from playwright.sync_api import expect

from tests.pages import downloaded, open_page, record_chat_bodies, send, stored, wait_loaded, wait_reply


def seeded(page, exchanges: int, recall: bool = False, chosen: bool = True) -> str:
    """Store a conversation of ``exchanges`` exchanges and open it; return its id."""
    return page.evaluate("""([n, recall, chosen]) => {
        const S = window.MnemoStore;
        const conv = S.create({system: "", template: "default", adapter: "", max_turns: 10,
                               max_new_tokens: 8, temperature: 0, compact: true, recall,
                               recall_chosen: chosen});
        conv.title = "Seeded";
        conv.messages.push({id: S.newId(), role: "user", status: "ok",
                            content: "My name is Ursula and my code is 8812."});
        conv.messages.push({id: S.newId(), role: "assistant", content: "Noted, Ursula.", status: "ok"});
        for (let i = 0; i < n; i++) {
          conv.messages.push({id: S.newId(), role: "user", content: "Filler question " + i, status: "ok"});
          conv.messages.push({id: S.newId(), role: "assistant", content: "Filler answer " + i, status: "ok"});
        }
        S.write(conv);
        localStorage.setItem("mnemo.v1.current", conv.id);
        return conv.id;
    }""", [exchanges, recall, chosen])


def test_pin_is_sent_kept_and_shown_in_the_preview(context, live):
    page = open_page(context, live.url)
    seeded(page, 14)
    page.reload()
    wait_loaded(page)
    first = page.locator(".msg").nth(0)
    first.get_by_role("button", name="Pin").click()
    expect(first).to_have_class("msg user pinned")
    assert stored(page)[0]["messages"][0]["pinned"] is True
    page.click("#toggle-memory")
    page.fill("#input", "What is my code?")
    page.click("#mem-preview")
    plan = page.locator("#mem-plan")
    expect(plan).to_contain_text("pinned: #1")
    # 15 exchanges and the draft, max_turns 10: messages 2 to 12 are dropped, the pin stays.
    expect(plan).to_contain_text("dropped and in no summary: 11 (not sent: #2–#12)")
    # The text that reaches the model, part by part: the pin first, marked as pinned.
    parts = plan.locator(".seen li")
    expect(parts.first).to_have_class("part part-pinned")
    expect(parts.first).to_contain_text("My name is Ursula and my code is 8812.")
    expect(parts.last).to_have_class("part part-latest")
    expect(parts.last).to_contain_text("What is my code?")
    bodies = []
    record_chat_bodies(page, bodies)
    send(page, "What is my code?")
    wait_reply(page, 32)
    assert bodies[-1]["messages"][0] == {"role": "user", "pinned": True,
                                         "content": "My name is Ursula and my code is 8812."}
    assert page.errors == []


def test_server_summary_is_stored_edited_and_travels_with_export(context, live):
    page = open_page(context, live.url)
    conv_id = seeded(page, 14)
    page.reload()
    wait_loaded(page)
    bodies = []
    record_chat_bodies(page, bodies)
    send(page, "What is my code?")
    wait_reply(page, 32)
    # History was dropped (max_turns): the server compacted and the page kept its summary.
    conv = stored(page)[0]
    summary = conv["summary"]
    assert summary["signature"].startswith("v3.")
    page.click("#toggle-memory")
    expect(page.locator("#mem-summary-state")).to_have_text("(written by the server, signed)")
    expect(page.locator("#mem-summary-text")).to_have_value(summary["text"])
    # The next turn sends it back, with covers counted in the list it sends.
    send(page, "And my name?")
    wait_reply(page, 34)
    sent = bodies[-1]["summary"]
    assert sent["signature"] == summary["signature"]
    assert bodies[-1]["messages"][sent["covers"]]["content"] == next(
        m["content"] for m in conv["messages"] if m["id"] == summary["next_id"])
    assert "kept" in sent and sent["kept"] == []  # nothing was pinned when it was made
    last = stored(page)[0]["messages"][-1]
    assert last["report"]["summary"] == {"covers": sent["covers"], "signed": True,
                                         "placement": "context"}
    # Edited by hand: unsigned, marked so, and placed as plain context.
    page.click("#mem-edit")
    page.fill("#mem-summary-text", "Ursula's code is 8812. She likes jazz.")
    page.click("#mem-save")
    expect(page.locator("#mem-summary-state")).to_contain_text("unsigned")
    page.click("#mem-preview")
    expect(page.locator("#mem-plan")).to_contain_text("unsigned, placed as plain context")
    # Export, wipe, import: the summary comes back with the conversation.
    exported = json.loads(downloaded(page, "#export-json"))
    assert exported["id"] == conv_id and exported["summary"]["text"].endswith("likes jazz.")
    page.evaluate("localStorage.clear()")
    page.set_input_files("#import-file", files=[{
        "name": "one.json", "mimeType": "application/json", "buffer": json.dumps(exported).encode()}])
    expect(page.locator("#banner")).to_contain_text("Imported 1 conversation")
    assert stored(page)[0]["summary"] == exported["summary"]
    assert page.evaluate("window.mnemoPersisted !== undefined")  # persistence was asked for
    assert page.errors == []


def test_recall_shows_the_recalled_text_and_the_message_it_came_from(context, live):
    page = open_page(context, live.url)
    seeded(page, 14, recall=True)
    page.reload()
    wait_loaded(page)
    page.click("#toggle-memory")
    expect(page.locator("#mem-recall")).to_be_checked()
    page.fill("#input", "What is my code?")
    page.click("#mem-preview")
    plan = page.locator("#mem-plan")
    expect(plan).to_contain_text("recalled: #1, #2")
    recalled = plan.locator(".seen li.part-recalled")
    expect(recalled.first).to_contain_text("My name is Ursula and my code is 8812.")
    expect(recalled.first).to_contain_text("user · recalled")
    recalled.first.get_by_role("button", name="#1").click()
    first = page.locator(".msg").nth(0)
    expect(first).to_have_class("msg user flash")
    expect(first).to_be_in_viewport()
    assert page.errors == []


def test_an_older_conversation_gets_recall_until_it_is_switched_off(context, live):
    page = open_page(context, live.url)
    seeded(page, 3, recall=False, chosen=False)  # stored when recall: false was the default
    page.reload()
    wait_loaded(page)
    bodies = []
    record_chat_bodies(page, bodies)
    send(page, "What is my code?")
    wait_reply(page, 8)
    assert bodies[-1]["recall"] is True
    page.click("#toggle-memory")
    expect(page.locator("#mem-recall")).to_be_checked()
    page.uncheck("#mem-recall")
    send(page, "And my name?")
    wait_reply(page, 10)
    assert bodies[-1]["recall"] is False
    assert stored(page)[0]["settings"]["recall_chosen"] is True
    assert page.errors == []


def test_clearing_the_summary_and_turning_auto_summary_off(context, live):
    page = open_page(context, live.url)
    seeded(page, 14)
    page.reload()
    wait_loaded(page)
    page.click("#toggle-memory")
    page.uncheck("#mem-compact")
    bodies = []
    record_chat_bodies(page, bodies)
    send(page, "Hello again")
    wait_reply(page, 32)
    assert bodies[-1]["compact"] is False and "summary" not in stored(page)[0]
    expect(page.locator(".msg.assistant .lost").last).to_contain_text("not seen by the model")
