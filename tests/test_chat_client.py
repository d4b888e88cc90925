"""The terminal client (``client/``, ``scripts/chat``) against a live Mnemo over real HTTP:
files that survive restarts, kills and a second client, failures, piped use and Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from client.cli import Printable
from client.session import Session
from client.store import Store
from tests.conftest import ROOT, LiveServer, free_port, run_gunicorn, tiny_live
from tests.helpers import post_json, user, wait_for, wrap_forward


def chat(url, directory, *args, text="Hello there", timeout=120):
    """Run ``scripts/chat`` piped, as a script would; return the finished process."""
    return subprocess.run([str(ROOT / "scripts" / "chat"), "--url", url, "--dir", str(directory),
                           *args], input=text, capture_output=True, text=True, timeout=timeout)


def start(url, directory, *args, text="Hello there"):
    # As in a terminal, Ctrl-C reaches the client with its default action, even when the tests
    # themselves run as a background job (whose children inherit an ignored SIGINT).
    proc = subprocess.Popen([sys.executable, "-m", "client", "--url", url, "--dir",
                             str(directory), *args], cwd=ROOT, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    proc.stdin.write(text)
    proc.stdin.close()
    return proc


def saved(directory, name="demo") -> dict:
    return json.loads((directory / f"{name}.json").read_text(encoding="utf-8"))


def settled(predicate, timeout: float = 60) -> None:
    """``wait_for`` on what the client writes: a file read mid-write is not yet an answer."""
    def quiet():
        try:
            return predicate()
        except (FileNotFoundError, json.JSONDecodeError, KeyError, IndexError):
            return False
    assert wait_for(quiet, timeout), "condition not met in time"


def shown(text: str) -> str:
    """``text`` as the terminal shows it: the tiny model's noise holds control characters now
    and then (a carriage return, an escape), which the client prints as U+FFFD (Printable)."""
    return Printable.CONTROL.sub("\ufffd", text)


def generating(server) -> None:
    """Until the server's engine is generating (its only batch row taken)."""
    settled(lambda: server.app.extensions["engine"].scheduler.active == 1)


def test_piped_use_prints_only_the_reply_and_resumes_across_restarts(live, tmp_path):
    first = chat(live.url, tmp_path, "-c", "demo", "--max-tokens", "8", text="My name is Ada.")
    assert first.returncode == 0, first.stderr
    conv = saved(tmp_path)
    reply = conv["messages"][1]
    assert first.stdout == shown(reply["content"]) + "\n"  # only the reply
    assert [m["status"] for m in conv["messages"]] == ["ok", "ok"]
    assert reply["report"]["received"] == 1 and reply["usage"]["completion_tokens"] >= 1
    # a reply cut by the 8-token limit says so on stderr, stdout holding the reply alone
    assert reply["finish_reason"] in ("length", "stop")
    assert ("cut at the token limit" in first.stderr) == (reply["finish_reason"] == "length")
    second = chat(live.url, tmp_path, "-c", "demo", "--max-tokens", "8", text="What is my name?")
    assert second.returncode == 0, second.stderr
    conv = saved(tmp_path)
    assert [m["role"] for m in conv["messages"]] == ["user", "assistant"] * 2
    assert conv["messages"][3]["report"]["received"] == 3  # the first exchange was sent again
    assert conv["settings"]["max_new_tokens"] == 8  # a new conversation takes the flags
    third = chat(live.url, tmp_path, "-c", "demo", "--max-tokens", "4", text="Once more")
    assert third.returncode == 0 and saved(tmp_path)["messages"][5]["usage"][
        "completion_tokens"] <= 4
    assert saved(tmp_path)["settings"]["max_new_tokens"] == 8  # flags are for that run only


def test_a_kill_during_a_reply_loses_nothing_already_typed(app, live, tmp_path, hold):
    held = hold(app)  # the reply is still running when the client is killed
    proc = start(live.url, tmp_path, "-c", "demo", "--max-tokens", "64",
                 text="Please remember: my locker is 4417.")
    settled(lambda: len(saved(tmp_path)["messages"][1]["content"]) > 0)
    proc.kill()
    proc.wait(timeout=10)
    held.release()
    conv = saved(tmp_path)  # whole, valid JSON
    assert conv["messages"][0]["content"] == "Please remember: my locker is 4417."
    assert conv["messages"][1]["status"] == "streaming" and conv["messages"][1]["content"]
    # /retry resends the message and replaces the cut reply.
    session = Session(Store(tmp_path), "demo", url=live.url, api_key=None, write=lambda s: None)
    reply = session.retry()
    conv = saved(tmp_path)
    assert [m["status"] for m in conv["messages"]] == ["ok", "ok"]
    assert conv["messages"][1]["id"] == reply["id"]


def test_ctrl_c_stops_the_reply_and_keeps_it_marked_stopped(app, live, tmp_path, hold):
    hold(app)  # the reply is still running when Ctrl-C comes
    proc = start(live.url, tmp_path, "-c", "demo", "--max-tokens", "64", text="Tell me a story.")
    settled(lambda: len(saved(tmp_path)["messages"][1]["content"]) > 0)
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=10) == 130
    conv = saved(tmp_path)
    assert conv["messages"][0]["status"] == "ok"
    assert conv["messages"][1]["status"] == "stopped" and conv["messages"][1]["content"]
    assert "stopped" in proc.stderr.read()


def test_two_clients_on_one_conversation_keep_both_turns(app, live, tmp_path, hold):
    held = hold(app, after=0)  # no reply starts before all four questions have been sent
    procs = [start(live.url, tmp_path, "-c", "demo", "--max-tokens", "24", text=f"Question {i}")
             for i in range(4)]
    scheduler = app.extensions["engine"].scheduler
    all_in = wait_for(lambda: scheduler.held >= 4)  # (a request another test left may count)
    held.release()
    assert all_in, (scheduler.held, [p.poll() for p in procs])
    for proc in procs:
        assert proc.wait(timeout=60) == 0, proc.stderr.read()
    messages = saved(tmp_path)["messages"]
    assert sorted(m["content"] for m in messages if m["role"] == "user") == [
        f"Question {i}" for i in range(4)]
    assert len(messages) == 8 and all(m["status"] == "ok" for m in messages)
    for i in range(0, 8, 2):  # each reply right after its own question
        assert messages[i]["role"] == "user" and messages[i + 1]["role"] == "assistant"


def test_server_down_then_retry(app, tmp_path):
    port = free_port()
    down = chat(f"http://127.0.0.1:{port}", tmp_path, "-c", "demo", "--max-tokens", "8",
                text="Are you there?")
    assert down.returncode == 1 and down.stdout.strip() == ""
    assert "cannot reach" in down.stderr and len(down.stderr.strip().splitlines()) == 1
    conv = saved(tmp_path)
    assert conv["messages"][0]["content"] == "Are you there?"
    assert conv["messages"][0]["status"] == "failed"
    server = LiveServer(app, port=port)
    try:
        session = Session(Store(tmp_path), "demo", url=server.url, api_key=None,
                          write=lambda s: None)
        session.retry()
    finally:
        server.close()
    assert [m["status"] for m in saved(tmp_path)["messages"]] == ["ok", "ok"]


@pytest.fixture(scope="module")
def busy_live(tiny_dir, lora_dir, tmp_path_factory):
    with tiny_live(tiny_dir, lora_dir, tmp_path_factory, max_batch_size=1, max_queue=0,
                   default_max_new_tokens=8, max_new_tokens_limit=64) as server:
        yield server


def test_overloaded_server_is_retried_as_it_asks(busy_live, tmp_path, monkeypatch):
    from api.exceptions import Overloaded

    scheduler = busy_live.app.extensions["engine"].scheduler
    refused, submit = threading.Event(), scheduler.submit

    def watched(*args, **kwargs):
        try:
            return submit(*args, **kwargs)
        except Overloaded:
            refused.set()
            raise

    monkeypatch.setattr(scheduler, "submit", watched)
    # The holder keeps the only row until the client has been refused once, however long the
    # client takes to start and ask; then it goes on, and the client's retry gets in.
    wrap_forward(monkeypatch, busy_live.app,
                 lambda n: refused.wait(60) if n == 2 else time.sleep(0.03))
    holder = threading.Thread(target=lambda: post_json(
        busy_live.url + "/api/chat", {"messages": [user("hold")], "max_new_tokens": 64}).read())
    holder.start()
    generating(busy_live)  # the only batch row is taken, and there is no queue: 429
    done = chat(busy_live.url, tmp_path, "-c", "demo", "--max-tokens", "4", text="Hello")
    holder.join()
    assert done.returncode == 0, done.stderr
    assert "server busy (429" in done.stderr and "retrying in" in done.stderr
    assert [m["status"] for m in saved(tmp_path)["messages"]] == ["ok", "ok"]


def test_a_connection_dropped_mid_reply_keeps_the_partial_reply(smol_dir, tmp_path):
    with run_gunicorn(smol_dir, tmp_path) as (proc, url):
        client = start(url, tmp_path, "-c", "demo", "--max-tokens", "400",
                       text="Write a very long story about a lighthouse keeper.")
        settled(lambda: len(saved(tmp_path)["messages"][1]["content"]) > 20)
        os.killpg(proc.pid, signal.SIGKILL)
        assert client.wait(timeout=30) == 1
    err = client.stderr.read()
    assert "dropped" in err or "closed" in err
    messages = saved(tmp_path)["messages"]
    assert messages[0]["status"] == "failed" and messages[1]["status"] == "failed"
    assert len(messages[1]["content"]) > 20


def test_openai_mode_talks_to_v1_with_the_same_files(live, tmp_path):
    done = chat(live.url, tmp_path, "-c", "demo", "--openai", "--max-tokens", "6", text="Hi")
    assert done.returncode == 0, done.stderr
    messages = saved(tmp_path)["messages"]
    assert [m["status"] for m in messages] == ["ok", "ok"]
    assert done.stdout == shown(messages[1]["content"]) + "\n"
    assert messages[1]["report"]["received"] == 1  # Mnemo's /v1 extension, when it is there


def test_page_export_and_terminal_files_move_both_ways(live, context, tmp_path):
    """Import a page export in the terminal, continue there, and import the result in the page
    (real Chromium)."""
    from playwright.sync_api import expect

    from tests.pages import open_page, send, stored, wait_reply

    page = open_page(context, live.url)
    send(page, "Started in the browser")
    wait_reply(page, 2)
    with page.expect_download() as info:
        page.click("#export-all")
    export = tmp_path / "from-page.json"
    export.write_bytes(open(info.value.path(), "rb").read())
    files = tmp_path / "convs"
    imported = subprocess.run([str(ROOT / "scripts" / "chat"), "--dir", str(files),
                               "--import", str(export)], capture_output=True, text=True)
    assert imported.returncode == 0, imported.stderr
    name = imported.stdout.split("imported ", 1)[1].strip()
    cont = chat(live.url, files, "-c", name, "--max-tokens", "6", text="Continued in a terminal")
    assert cont.returncode == 0, cont.stderr
    conv = json.loads((files / f"{name}.json").read_text(encoding="utf-8"))
    assert conv["id"] == stored(page)[0]["id"] and len(conv["messages"]) == 4
    page.evaluate("localStorage.clear()")
    page.set_input_files("#import-file", files=[str(files / f"{name}.json")])
    expect(page.locator("#banner")).to_contain_text("Imported 1 conversation")
    page.reload()
    page.wait_for_selector(".msg.assistant")
    assert page.locator(".msg").count() == 4
    expect(page.locator(".msg.user").nth(1)).to_contain_text("Continued in a terminal")
    assert page.errors == []


def fact_then_filler(fact: str, question: str, answer: str):
    """A store update: the fact and its acknowledgement, then 12 filler exchanges, more than
    max_turns (10) keeps."""
    def seed(conv):
        conv["messages"] += [{"id": "fact", "role": "user", "status": "ok", "content": fact},
                             {"id": "ack", "role": "assistant", "status": "ok",
                              "content": "Noted."}]
        for i in range(12):
            conv["messages"] += [
                {"id": f"q{i}", "role": "user", "status": "ok", "content": question.format(i=i)},
                {"id": f"a{i}", "role": "assistant", "status": "ok",
                 "content": answer.format(i=i)}]
    return seed


def test_memory_pins_and_the_servers_summary_travel_with_the_file(live, tmp_path):
    store = Store(tmp_path)
    session = Session(store, "long", url=live.url, api_key=None, write=lambda s: None,
                      overrides={"max_new_tokens": 8})
    session.open()

    store.update("long", fact_then_filler("My name is Ursula and my code is 8812.",
                                          "Filler {i}", "Ok {i}"))
    session.pin(1)
    reply = session.ask("What is my code?")
    assert reply["report"]["pinned"] == [0]
    summary = store.load("long")["summary"]  # compacted after the reply, saved by the client
    assert summary["signature"] and summary["kept_ids"] == ["fact"]
    assert summary["next_id"] in {m["id"] for m in store.load("long")["messages"]}
    again = session.ask("And my name?")
    assert again["report"]["summary"]["signed"] is True
    assert again["report"]["pinned"] == [0] and again["report"]["lost"] == 0


def test_a_history_longer_than_the_server_accepts_still_works(live, tmp_path):
    store = Store(tmp_path)

    def seed(conv):
        for i in range(40):
            conv["messages"] += [{"id": f"u{i}", "role": "user", "content": f"q{i}", "status": "ok"},
                                 {"id": f"a{i}", "role": "assistant", "content": f"a{i}",
                                  "status": "ok"}]
    Session(store, "long", url=live.url, api_key=None, overrides={"max_new_tokens": 4}).open()
    store.update("long", seed)
    done = chat(live.url, tmp_path, "-c", "long", text="one more")
    assert done.returncode == 0, done.stderr
    assert saved(tmp_path, "long")["messages"][-1]["report"]["received"] == 50  # the server's max


def test_a_reader_that_goes_away_leaves_a_saved_turn_and_no_traceback(app, live, tmp_path, hold):
    held = hold(app)  # the reply is still coming when its reader has gone
    client = subprocess.Popen([str(ROOT / "scripts" / "chat"), "--url", live.url, "--dir",
                               str(tmp_path), "-c", "demo", "--max-tokens", "64"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    reader = subprocess.Popen(["head", "-c", "1"], stdin=client.stdout, stdout=subprocess.DEVNULL)
    client.stdout.close()  # the reader holds the pipe's only reading end
    client.stdin.write("Tell me a story\n")
    client.stdin.close()
    assert reader.wait(timeout=60) == 0
    held.release()
    client.wait(timeout=60)
    assert "Traceback" not in client.stderr.read()
    messages = saved(tmp_path)["messages"]
    assert messages[0]["status"] in ("ok", "failed") and "pending" not in [
        m["status"] for m in messages] and "streaming" not in [m["status"] for m in messages]


def test_ctrl_c_before_the_first_token_leaves_a_message_retry_resends(busy_live, tmp_path, hold):
    held = hold(busy_live.app, after=2)  # the holder keeps the only row until Ctrl-C has come
    holder = threading.Thread(target=lambda: post_json(
        busy_live.url + "/api/chat", {"messages": [user("hold")], "max_new_tokens": 64}).read())
    holder.start()
    generating(busy_live)
    proc = start(busy_live.url, tmp_path, "-c", "demo", "--max-tokens", "4", text="Say hello")
    settled(lambda: saved(tmp_path)["messages"][0]["status"] == "pending")
    time.sleep(0.5)  # waiting out the 429's Retry-After
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=10) == 130
    held.release()
    holder.join()
    messages = saved(tmp_path)["messages"]
    assert len(messages) == 1 and messages[0]["status"] == "failed"
    assert messages[0]["error"] == "stopped before the reply began"
    Session(Store(tmp_path), "demo", url=busy_live.url, api_key=None,
            write=lambda s: None).retry()
    assert [m["status"] for m in saved(tmp_path)["messages"]] == ["ok", "ok"]


@pytest.mark.parametrize("args", [["-c", "../x"], ["-c", "a/b"], ["-c", "junk"]])
def test_bad_names_and_unreadable_files_are_one_line_errors(live, tmp_path, args):
    (tmp_path / "junk.json").write_text("{not json")
    run = chat(live.url, tmp_path, *args, text="hi")
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert run.stderr.startswith("error: ") and len(run.stderr.strip().splitlines()) == 1


def test_text_that_is_not_utf8_is_replaced_and_saved(live, tmp_path):
    run = subprocess.run([str(ROOT / "scripts" / "chat"), "--url", live.url, "--dir",
                          str(tmp_path), "-c", "demo", "--max-tokens", "4"],
                         input=b"\xff\xfe hi", capture_output=True, timeout=60)
    assert run.returncode == 0 and b"not UTF-8" in run.stderr
    assert saved(tmp_path)["messages"][0]["content"] == "\ufffd\ufffd hi"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_repl_commands_refuse_bad_input_without_leaving(live, tmp_path, monkeypatch, capsys):
    from client.cli import Repl

    store = Store(tmp_path)
    session = Session(store, "one", url=live.url, api_key=None)
    session.open()
    repl = Repl(session, store)
    for line in ("/export md " + str(tmp_path), "/import", "/new ../bad", "/new one",
                 "/set temperature warm", "/set temperature 9", "/open"):
        with pytest.raises((ValueError, OSError, LookupError)):
            repl.command(line)
    assert session.name == "one"
    repl.command("/set temperature 0.7")
    assert store.load("one")["settings"]["temperature"] == 0.7
    repl.command("/set temperature default")  # the model's recommended decoding, as on the page
    assert store.load("one")["settings"]["temperature"] is None
    repl.command("/system Be brief.")
    repl.command("/system -")
    assert store.load("one")["settings"]["system"] == ""
    lines = iter(['"""', "first line", "second line", '"""', "go \\", "on"])
    monkeypatch.setattr("builtins.input", lambda _prompt="": next(lines))
    assert repl.read_message() == "first line\nsecond line"
    assert repl.read_message() == "go \non"


def test_openai_mode_with_the_server_down_marks_the_message_failed(tmp_path):
    run = chat(f"http://127.0.0.1:{free_port()}", tmp_path, "-c", "demo", "--openai", text="hi")
    assert run.returncode == 1 and "cannot reach" in run.stderr
    message = saved(tmp_path)["messages"][0]
    assert message["status"] == "failed" and "cannot reach" in message["error"]


def test_imports_take_any_title_and_the_same_conversation_keeps_one_file(tmp_path):
    store = Store(tmp_path)
    conv = {"id": "x1", "title": "_notes.lock", "messages": [], "settings": {}}
    (tmp_path / "export.json").write_text(json.dumps(
        {"format": "mnemo.conversations", "version": 1, "conversations": [conv]}))
    first = store.import_file(tmp_path / "export.json")
    again = store.import_file(tmp_path / "export.json")
    assert first == again == ["notes-lock"]
    assert [name for name, _conv in store.names()] == ["notes-lock"]


def test_a_page_export_with_branches_goes_on_from_the_branch_shown(live, tmp_path):
    """Format 2: the page keeps every version; the terminal sends, shows, pins and undoes the
    branch the page showed, and keeps the other versions in the file."""
    def msg(i, role, parent, text):
        return {"id": f"m{i}", "role": role, "content": text, "status": "ok", "parent": parent}
    conv = {"version": 2, "id": "b1", "title": "Branches", "settings": {"max_new_tokens": 8},
            "leaf": "m5",
            "messages": [msg(1, "user", None, "Old question"), msg(2, "assistant", "m1", "Old answer"),
                         msg(3, "user", None, "New question"), msg(4, "assistant", "m3", "First try"),
                         msg(5, "assistant", "m3", "Second try")]}
    (tmp_path / "export.json").write_text(json.dumps(
        {"format": "mnemo.conversations", "version": 2, "conversations": [conv]}))
    store = Store(tmp_path)
    [name] = store.import_file(tmp_path / "export.json")
    session = Session(store, name, url=live.url, api_key=None, write=lambda s: None)
    reply = session.ask("Follow-up")
    assert reply["report"]["received"] == 3  # New question, Second try, Follow-up
    saved_conv = store.load(name)
    shown = [m["content"] for m in branch_of(saved_conv)]
    assert shown[:3] == ["New question", "Second try", "Follow-up"] and len(shown) == 4
    assert len(saved_conv["messages"]) == 7  # the other versions stay
    session.pin(1)
    assert next(m for m in store.load(name)["messages"] if m["id"] == "m3")["pinned"] is True
    assert session.undo() == 2
    after = store.load(name)
    assert after["leaf"] == "m5" and len(after["messages"]) == 5


def branch_of(conv):
    from client.tree import path

    return path(conv)


def test_recall_is_on_by_default_and_no_recall_turns_it_off(live, tmp_path):
    from client.cli import parse_args, settings_from

    def ask(name: str, overrides: dict) -> dict:
        store = Store(tmp_path)
        session = Session(store, name, url=live.url, api_key=None, write=lambda s: None,
                          overrides={"max_new_tokens": 8, **overrides})
        session.open()

        store.update(name, fact_then_filler("My locker code is 5521, by the pool.",
                                            "Tell me a fact about planet number {i}.",
                                            "Planet {i} is far away."))
        return session.ask("What is my locker code?")["report"]

    assert ask("default", {})["recalled"] == [0, 1]
    off = settings_from(parse_args(["--no-recall"]))
    assert off == {"recall": False}
    assert ask("off", off)["recalled"] == []


def test_list_and_history_are_readable(tmp_path, capsys):
    from client.cli import Repl, shorten

    store = Store(tmp_path)
    long_word_text = "Lisbon trams climb the hills " * 20
    for name, title, text in (("trip", "trip", long_word_text),
                              ("notes", "Packing list for the Lisbon trip in May", "Socks.")):
        session = Session(store, name, url="http://127.0.0.1:9", api_key=None)
        session.open()
        store.update(name, lambda c, t=title, x=text: (c.update(title=t), c["messages"].append(
            {"id": "m1", "role": "user", "content": x, "status": "ok", "parent": None}),
            c.update(leaf="m1")))
    repl = Repl(session, store)
    capsys.readouterr()
    repl.command("/list")
    listing = capsys.readouterr().out.splitlines()
    assert len(listing) == 2 and listing[0].startswith("* notes")  # the current one, first
    trip = next(line for line in listing if "trip" in line)
    assert trip.count("trip") == 1  # a title that only repeats the name is not shown again
    assert "Packing list for the Lisbon trip in May" in listing[0]
    session.name = "trip"
    repl.command("/history")
    shown = capsys.readouterr().out.strip()
    assert shown.endswith("\u2026") and len(shown) < 220
    assert shown[:-1].rstrip().endswith(("Lisbon", "trams", "climb", "the", "hills"))  # whole words
    assert shorten("short text", 50) == "short text" and shorten("a\nb", 10) == "a b"
