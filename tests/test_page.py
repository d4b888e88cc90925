"""The chat page in real headless Chromium (Debian's), against the real server on the tiny model."""

from __future__ import annotations

import json
import os
import signal

import pytest
from playwright.sync_api import expect

from api import create_app
from tests.conftest import LiveServer, free_port, run_gunicorn, tiny_config, wait_ready
from tests.pages import (
    downloaded,
    mid_reply,
    open_page,
    record_chat_bodies,
    send,
    set_max_new_tokens,
    stored,
    wait_loaded,
    wait_partial_reply,
    wait_reply,
)


def test_send_streams_and_shows_history_report(context, live):
    page = open_page(context, live.url)
    send(page, "Hello there")
    wait_reply(page, 2)
    assistant = page.locator(".msg.assistant").first
    expect(assistant.locator(".report")).to_have_text("history: 1/1 messages used")
    expect(assistant.locator(".usage")).to_contain_text("tokens:")
    assert assistant.locator(".body").inner_text().strip()
    send(page, "And again")
    wait_reply(page, 4)
    expect(page.locator(".msg.assistant").nth(1).locator(".report")).to_have_text(
        "history: 3/3 messages used")
    assert page.errors == []


def test_conversation_survives_reload(context, live):
    page = open_page(context, live.url)
    send(page, "Remember me")
    wait_reply(page, 2)
    before = page.locator(".msg .body").all_inner_texts()
    page.reload()
    page.wait_for_selector(".msg.assistant")
    assert page.locator(".msg .body").all_inner_texts() == before
    assert stored(page)[0]["messages"][0]["content"] == "Remember me"


def test_stop_keeps_the_partial_answer(context, live, app, hold):
    page = mid_reply(context, live, app, hold)
    page.click("#stop")
    wait_reply(page, 2)
    expect(page.locator(".msg.assistant .meta")).to_contain_text("stopped")
    partial = page.locator(".msg.assistant .body").inner_text()
    assert partial.strip()
    page.reload()
    page.wait_for_selector(".msg.assistant")
    assert page.locator(".msg.assistant .body").inner_text() == partial
    assert stored(page)[0]["messages"][1]["status"] == "stopped"


def test_two_tabs_keep_their_own_conversations(context, live):
    a = open_page(context, live.url)
    b = open_page(context, live.url)
    b.click("#new-conv")
    bodies = []
    record_chat_bodies(b, bodies)
    send(a, "Tab A speaking")
    send(b, "Tab B speaking")
    wait_reply(a, 2)
    wait_reply(b, 2)
    send(b, "Tab B again")
    wait_reply(b, 4)
    convs = {c["messages"][0]["content"]: c for c in stored(a)}
    assert len(convs["Tab A speaking"]["messages"]) == 2
    assert len(convs["Tab B speaking"]["messages"]) == 4
    # B's model saw only B's history.
    assert [m["content"] for m in bodies[-1]["messages"]][0::2] == ["Tab B speaking", "Tab B again"]
    # A's sidebar learned of B's conversation through the storage event.
    expect(a.locator("#conv-list li")).to_have_count(2)


def test_quota_exceeded_warns_and_keeps_input_and_data(context, live):
    page = open_page(context, live.url)
    send(page, "Saved before the disk filled")
    wait_reply(page, 2)
    before = stored(page)
    page.evaluate("""() => {
        let chunk = "x".repeat(1 << 20), i = 0;
        while (chunk.length > 8) {
            try { localStorage.setItem("filler." + i++, chunk); }
            catch (e) { chunk = chunk.slice(0, chunk.length >> 1); }
        }
    }""")
    send(page, "This will not fit " + "y" * 5000)
    expect(page.locator("#banner")).to_contain_text("storage is full")
    expect(page.locator("#banner button", has_text="Export")).to_be_visible()
    assert page.input_value("#input").startswith("This will not fit")
    assert stored(page) == before


def test_export_import_round_trip(context, live):
    page = open_page(context, live.url)
    send(page, "Export me **bold** 你好")
    wait_reply(page, 2)
    exported = json.loads(downloaded(page, "#export-all"))
    markdown = downloaded(page, "#export-md")
    assert "Export me **bold** 你好" in markdown
    page.evaluate("localStorage.clear()")
    page.set_input_files("#import-file", files=[{
        "name": "all.json", "mimeType": "application/json", "buffer": json.dumps(exported).encode()}])
    expect(page.locator("#banner")).to_contain_text("Imported 1 conversation")
    assert stored(page) == exported["conversations"]


def test_failure_then_retry_loses_nothing(context, app):
    port = free_port()
    server = LiveServer(app, port=port)
    page = open_page(context, server.url)
    server.close()
    send(page, "Are you there?")
    page.wait_for_selector(".msg.user.failed")
    expect(page.locator(".msg.user .meta")).to_contain_text("Failed")
    assert page.locator(".msg.assistant").count() == 0
    saved = stored(page)[0]["messages"][0]
    assert saved["status"] == "failed" and saved["content"] == "Are you there?"
    server = LiveServer(app, port=port)
    try:
        page.click("text=Retry")
        wait_reply(page, 2)
        expect(page.locator(".msg.assistant .report")).to_have_text("history: 1/1 messages used")
        assert stored(page)[0]["messages"][0]["status"] == "ok"
    finally:
        server.close()


def test_server_error_is_shown_and_failed_exchange_not_sent(context, live):
    page = open_page(context, live.url)
    page.click("#toggle-settings")
    page.select_option("#set-adapter", "shouty")
    send(page, "first")
    wait_reply(page, 2)
    # A 4xx from the server: the message is kept, marked failed, with the server's words.
    page.evaluate("""() => { const c = window.MnemoStore.list()[0];
        c.settings.max_new_tokens = 100000; window.MnemoStore.write(c); }""")
    page.reload()
    page.wait_for_selector(".msg.assistant")
    bodies = []
    record_chat_bodies(page, bodies)
    send(page, "second")
    page.wait_for_selector(".msg.user.failed")
    expect(page.locator(".msg.user.failed .error")).to_contain_text("max_new_tokens")
    page.evaluate("""() => { const c = window.MnemoStore.list()[0];
        c.settings.max_new_tokens = 8; window.MnemoStore.write(c); }""")
    page.reload()
    page.wait_for_selector(".msg.user.failed")
    send(page, "third")
    wait_reply(page, 5)
    sent = [m["content"] for m in bodies[-1]["messages"]]
    assert "second" not in sent and sent[0] == "first" and sent[-1] == "third"
    assert bodies[-1]["adapter"] == "shouty"


def test_a_server_serving_no_adapter_offers_no_adapter_select(context, default_live):
    """The default start serves no adapter: the settings offer no select with only "(base
    model)" in it, until a conversation names an adapter (then it shows, as not served)."""
    page = open_page(context, default_live.url, loaded="#set-template")
    set_max_new_tokens(page, 4)  # opens the settings
    expect(page.locator("#set-template")).to_be_visible()
    expect(page.locator("#set-adapter")).to_be_hidden()
    send(page, "Hi")
    wait_reply(page, 2)
    page.evaluate("""() => { const c = window.MnemoStore.list()[0];
        c.settings.adapter = "legal-demo"; window.MnemoStore.write(c); }""")
    page.reload()
    wait_loaded(page, "#set-template")
    page.click("#toggle-settings")
    expect(page.locator("#set-adapter option:checked")).to_have_text("legal-demo (not served here)")
    assert page.errors == []


def test_an_adapter_no_longer_served_is_named_not_blank_and_the_server_says_why(context, live):
    """A conversation saved while another adapter was served (legal-demo before it became
    opt-in): its settings name the choice as not served, and sending shows the server's 400."""
    page = open_page(context, live.url)
    send(page, "first")
    wait_reply(page, 2)
    page.evaluate("""() => { const c = window.MnemoStore.list()[0];
        c.settings.adapter = "legal-demo"; window.MnemoStore.write(c); }""")
    page.reload()
    wait_loaded(page)
    page.click("#toggle-settings")
    expect(page.locator("#set-adapter option:checked")).to_have_text("legal-demo (not served here)")
    send(page, "second")
    page.wait_for_selector(".msg.user.failed")
    expect(page.locator(".msg.user.failed .error")).to_contain_text("legal-demo")
    page.select_option("#set-adapter", "")  # the base model: the next message goes through
    send(page, "third")
    wait_reply(page, 5)


XSS = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>[x](javascript:window.__xss=3)'


def test_xss_in_user_input_and_model_output_never_runs(context, live):
    page = open_page(context, live.url)
    send(page, XSS)
    wait_reply(page, 2)
    assert page.locator(".msg.user .body").inner_text() == XSS
    # Model output is whatever the server streams: serve the payload as the model's reply.
    events = "".join(f"event: delta\ndata: {json.dumps({'content': part})}\n\n" for part in XSS.split(" "))
    done = {"message": {"role": "assistant", "content": XSS.replace(" ", "")}, "finish_reason": "stop",
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            "history": {"received": 1, "used": 1, "dropped": 0}}
    body = events + f"event: done\ndata: {json.dumps(done)}\n\n"
    page.route("**/api/chat", lambda route: route.fulfill(
        status=200, content_type="text/event-stream", body=body))
    send(page, "again")
    wait_reply(page, 4)
    page.wait_for_timeout(300)
    assert page.evaluate("window.__xss") is None
    assert page.locator(".msg img, .msg script").count() == 0
    assert page.locator(".msg a[href^='javascript']").count() == 0
    assert page.locator(".msg.assistant").nth(1).inner_text().startswith("<img")


def test_enter_shift_enter_and_ime(context, live):
    page = open_page(context, live.url)
    page.fill("#input", "line one")
    page.press("#input", "Shift+Enter")
    page.type("#input", "line two")
    assert page.input_value("#input") == "line one\nline two"
    page.evaluate("""() => document.querySelector('#input').dispatchEvent(new KeyboardEvent('keydown',
        {key: 'Enter', isComposing: true, bubbles: true, cancelable: true}))""")
    assert page.locator(".msg").count() == 0
    page.press("#input", "Enter")
    wait_reply(page, 2)
    assert page.locator(".msg.user .body").inner_text() == "line one\nline two"


def test_page_has_csp_and_works_at_phone_width(browser, live):
    ctx = browser.new_context(viewport={"width": 375, "height": 740})
    try:
        page = ctx.new_page()
        resp = page.goto(live.url)
        assert "script-src 'self'" in resp.headers["content-security-policy"]
        send(page, "Hi from a phone")
        wait_reply(page, 2)
        assert page.evaluate("document.documentElement.scrollWidth") <= 375
        page.click("#show-sidebar")
        expect(page.locator("#conv-list li")).to_have_count(1)
    finally:
        ctx.close()


def test_a_message_sent_before_the_page_finished_loading_is_sent_once_it_has(context, live):
    page = context.new_page()
    bodies = []
    record_chat_bodies(page, bodies)
    # The server's config is held, as over a slow link, until the test lets it through.
    page.add_init_script("""{
      const fetch0 = window.fetch;
      const held = new Promise((ok) => { window.releaseConfig = ok; });
      window.fetch = (url, opts) => String(url).includes("/api/config")
        ? held.then(() => fetch0(url, opts)) : fetch0(url, opts);
    }""")
    page.goto(live.url)
    send(page, "Typed at once")
    page.press("#input", "Enter")  # a second Enter while the first waits sends nothing
    assert page.locator(".msg").count() == 0  # still loading
    page.evaluate("() => window.releaseConfig()")
    wait_reply(page, 2)
    expect(page.locator(".msg.user .body")).to_have_text("Typed at once")
    assert [b["messages"] for b in bodies] == [[{"role": "user", "content": "Typed at once"}]]
    expect(page.locator("#input")).to_have_value("")


@pytest.fixture(scope="module")
def keyed_live(tiny_dir, lora_dir, tmp_path_factory):
    app = create_app(tiny_config(tiny_dir, lora_dir, tmp_path_factory, api_keys=("page-key",)))
    wait_ready(app)
    server = LiveServer(app)
    yield server
    server.close()


def test_api_key_entered_in_settings_unlocks_a_keyed_server(context, keyed_live):
    page = context.new_page()
    page.goto(keyed_live.url)
    expect(page.locator("#banner")).to_contain_text("needs an API key")
    page.click("#toggle-settings")
    page.fill("#set-apikey", "page-key")
    page.dispatch_event("#set-apikey", "change")
    wait_loaded(page)
    expect(page.locator("#banner")).to_be_hidden()
    send(page, "Hello with a key")
    wait_reply(page, 2)
    expect(page.locator(".msg.assistant .report")).to_have_text("history: 1/1 messages used")
    page.reload()  # the key stays in this browser
    wait_loaded(page)
    expect(page.locator("#banner")).to_be_hidden()


def test_rename_regenerate_edit_and_delete_with_undo(context, live):
    page = open_page(context, live.url)
    bodies = []
    record_chat_bodies(page, bodies)
    page.on("dialog", lambda d: d.accept("Trip plans"))  # the rename prompt
    send(page, "Hello")
    wait_reply(page, 2)
    page.click("#rename-conv")
    expect(page.locator("#conv-title")).to_have_text("Trip plans")
    assert stored(page)[0]["title"] == "Trip plans"

    page.click("text=Regenerate")
    wait_reply(page, 2)
    assert bodies[-1]["messages"] == [{"role": "user", "content": "Hello"}]
    assert page.locator(".msg").count() == 2  # the new reply is shown, the old one kept
    expect(page.locator(".msg.assistant .versions")).to_contain_text("2/2")

    page.locator(".msg.user").first.get_by_role("button", name="Edit").click()
    page.fill(".msg.user .edit-box", "Hi again")
    page.click("text=Save and send")
    wait_reply(page, 2)
    assert bodies[-1]["messages"] == [{"role": "user", "content": "Hi again"}]
    conv = stored(page)[0]
    assert [m["content"] for m in conv["messages"] if m["role"] == "user"] == ["Hello", "Hi again"]
    expect(page.locator(".msg.user .versions")).to_contain_text("2/2")

    doomed = conv["id"]
    page.click("#delete-conv")
    page.wait_for_function(f"() => !window.MnemoStore.read({json.dumps(doomed)})")
    expect(page.locator("#conv-title")).not_to_have_text("Trip plans")
    page.locator("#banner").get_by_role("button", name="Undo").click()
    expect(page.locator("#conv-title")).to_have_text("Trip plans")
    assert next(c for c in stored(page) if c["id"] == doomed)["messages"] == conv["messages"]
    assert page.errors == []


def test_server_killed_mid_answer_keeps_the_partial_reply(context, smol_dir, tmp_path, app):
    with run_gunicorn(smol_dir, tmp_path) as (proc, url):
        page = open_page(context, url, loaded="#set-template")  # the default model: no adapters
        set_max_new_tokens(page, 400)
        send(page, "Write a very long story about a lighthouse keeper.")
        wait_partial_reply(page, 20)
        os.killpg(proc.pid, signal.SIGKILL)  # master and worker: the connection just dies
        page.wait_for_selector(".msg.assistant.failed")
    assert page.locator(".msg.assistant .body").inner_text().strip()
    expect(page.locator(".msg.user .meta")).to_contain_text("Failed")
    # A server is back on the same address (same origin, same localStorage): nothing the user
    # typed or saw was lost.
    server = LiveServer(app, port=int(url.rsplit(":", 1)[1]))
    try:
        page.reload()
        page.wait_for_selector(".msg.assistant")
        saved = stored(page)[0]["messages"]
        assert saved[0]["content"] == "Write a very long story about a lighthouse keeper."
        assert saved[0]["status"] == "failed" and saved[1]["status"] == "failed"
        # The partial reply itself was saved (the page showed over 20 characters, a newline
        # from the renderer included).
        assert len(saved[1]["content"]) >= 20
        expect(page.locator(".msg.user .meta")).to_contain_text("Failed")
    finally:
        server.close()
