"""``continue: true`` on the native API: the model continues a reply cut short at its token
limit, and the prompt it sees is the conversation followed by that reply's text."""

from __future__ import annotations

from tests.helpers import assistant, parse_sse, user

HELLO = [user("Hello, how are you?")]


def post(client, **body):
    return client.post("/api/chat", json=body)


def test_preview_ends_with_the_reply_to_continue(client):
    plain = post(client, messages=HELLO, max_new_tokens=8).get_json()
    assert plain["finish_reason"] == "length"
    partial = plain["message"]["content"]
    base = client.post("/api/chat/preview", json={"messages": HELLO, "max_new_tokens": 8}).get_json()
    cont = client.post("/api/chat/preview", json={
        "messages": [*HELLO, assistant(partial)], "continue": True, "max_new_tokens": 8}).get_json()
    assert cont["prompt"] == base["prompt"] + partial
    assert cont["prompt_tokens"] > base["prompt_tokens"]
    # The reply cut short is part of the prompt, not of the history report.
    assert cont["history"]["received"] == 1 and cont["history"]["used"] == 1


def test_continuation_is_new_text_only_and_streams(client):
    whole = post(client, messages=HELLO, max_new_tokens=24).get_json()["message"]["content"]
    first = post(client, messages=HELLO, max_new_tokens=12).get_json()
    assert first["finish_reason"] == "length"
    body = {"messages": [*HELLO, assistant(first["message"]["content"])], "continue": True,
            "max_new_tokens": 12}
    more = post(client, **body).get_json()
    assert more["usage"]["completion_tokens"] >= 1
    assert more["compaction"]["status"] == "not_needed"
    # Greedy: the cut reply and its continuation read as the uncut reply (the prefix goes
    # back through the tokenizer, so compare where the token boundary is stable).
    joined = first["message"]["content"] + more["message"]["content"]
    assert joined[:len(first["message"]["content"]) + 4] == whole[:len(first["message"]["content"]) + 4]
    events = parse_sse(client.post("/api/chat", json={**body, "stream": True}).get_data(as_text=True))
    deltas = "".join(d["content"] for name, d in events if name == "delta")
    assert deltas == more["message"]["content"]


def test_continue_needs_a_reply_to_continue(client):
    for messages in (HELLO, [assistant("Hi")], [*HELLO, assistant("Hi"), user("More")]):
        resp = post(client, messages=messages, **{"continue": True})
        assert resp.status_code == 400
        assert "continue" in resp.get_json()["error"]["message"]
    resp = post(client, messages=[*HELLO, assistant("Hi")])
    assert resp.status_code == 400 and "continue: true" in resp.get_json()["error"]["message"]
    resp = post(client, messages=[*HELLO, assistant("Hi")], **{"continue": "yes"})
    assert resp.status_code == 400
