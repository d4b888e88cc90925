"""One conversation's turns: what is sent, what is saved, and how failures are survived.

The user's message is on disk (``pending``) before anything is sent; a reply is saved as it
streams (``streaming``), and ends ``ok``, ``stopped`` (Ctrl-C) or ``failed`` with the reason.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

from . import transport
from .store import Store, new_conversation, new_id, now_ms
from .tree import lineage, path, subtree

DEFAULTS = {"system": "", "template": "default", "adapter": "", "max_turns": 10,
            "max_new_tokens": 256, "temperature": None, "compact": True, "recall": True}
SENDABLE = (None, "ok", "stopped")  # statuses of messages that are history
RETRIES = 4  # attempts for 429 / 503 with Retry-After
SAVE_EVERY = 0.5  # seconds between saves of a streaming reply


class Session:
    def __init__(self, store: Store, name: str, *, url: str, api_key: str | None,
                 openai: bool = False, model: str | None = None,
                 write: Callable[[str], None] | None = None,
                 note: Callable[[str], None] | None = None, overrides: dict | None = None):
        self.store, self.name = store, name
        self.overrides = dict(overrides or {})  # this run's flags: not saved in the file
        self._max_messages: int | None = None
        self.url, self.api_key, self.openai, self.model = url, api_key, openai, model
        self.write = write or (lambda s: (sys.stdout.write(s), sys.stdout.flush()))
        self.note = note or (lambda s: print(s, file=sys.stderr))

    # -- the conversation -------------------------------------------------------------
    def open(self) -> dict:
        """Create the conversation if needed (this run's flags become a new one's settings)."""
        def change(conv):
            conv.setdefault("settings", {})
            for key, value in DEFAULTS.items():
                conv["settings"].setdefault(key, value)

        return self.store.update(self.name, change, create=new_conversation(
            self.name, {**DEFAULTS, **self.overrides}))

    def settings(self, conv: dict) -> dict:
        return {**DEFAULTS, **conv.get("settings", {}), **self.overrides}

    def conv(self) -> dict:
        return self.store.load(self.name) or self.open()

    def set(self, **settings) -> None:
        """Save settings in the conversation (they outlast this run, unlike the flags)."""
        for key in settings:
            self.overrides.pop(key, None)
        self.store.update(self.name, lambda c: c["settings"].update(settings))

    # -- a turn -----------------------------------------------------------------------
    def ask(self, text: str) -> dict:
        """Save the user's message, then get the reply; return the reply message."""
        user = {"id": new_id(), "role": "user", "content": text, "status": "pending"}

        def add(conv):
            user["parent"] = conv["leaf"]  # the branch shown goes on
            conv["messages"].append(user)
            conv["leaf"] = user["id"]
            if conv.get("title") in (None, "", "New chat"):
                conv["title"] = text[:40]
        self.store.update(self.name, add, create=new_conversation(self.name, {**DEFAULTS}))
        return self.generate(user["id"])

    def generate(self, user_id: str) -> dict:
        conv = self.conv()
        ids, history = self._history(conv, user_id)
        reply = {"id": new_id(), "role": "assistant", "content": "", "status": "streaming"}
        last_save = 0.0
        try:
            body = self._body(conv, ids, history)
            for attempt in range(1, RETRIES + 1):
                try:
                    for kind, data in self._stream(body):
                        if kind == "delta":
                            reply["content"] += data
                            self.write(data)
                            if time.monotonic() - last_save > SAVE_EVERY:
                                self._save_reply(user_id, reply)
                                last_save = time.monotonic()
                        else:
                            return self._finish(user_id, reply, data, ids)
                except transport.ServerError as err:
                    if err.status not in (429, 503) or err.retry_after is None \
                            or attempt == RETRIES or reply["content"]:
                        raise
                    wait = min(30.0, max(err.retry_after, 0.5) * attempt)
                    self.note(f"server busy ({err.status}: {err.message}); retrying in "
                              f"{wait:g} s (attempt {attempt + 1}/{RETRIES})")
                    time.sleep(wait)
            raise transport.Unreachable("no reply")  # not reached
        except (KeyboardInterrupt, BrokenPipeError):  # Ctrl-C, or nobody reads the output
            if reply["content"]:
                reply["status"] = "stopped"
                self._save_reply(user_id, reply, user_status="ok")
            else:  # nothing arrived: it got no reply, so /retry resends it
                self._save_reply(user_id, None, user_status="failed",
                                 error="stopped before the reply began")
            raise
        except (transport.ServerError, transport.Unreachable) as err:
            reason = err.message if isinstance(err, transport.ServerError) else str(err)
            reply["status"], reply["error"] = "failed", reason
            self._save_reply(user_id, reply if reply["content"] else None,
                             user_status="failed", error=reason)
            raise

    def _stream(self, body: dict):
        if self.openai:
            return transport.openai_chat(self.url, body, self.api_key)
        return transport.native_chat(self.url, body, self.api_key)

    def _history(self, conv: dict, user_id: str) -> tuple[list[str], list[dict]]:
        """Every message of the branch up to ``user_id`` that is history (not failed, not another
        client's unfinished turn), and that message itself."""
        ids, out = [], []
        for m in lineage(conv, user_id):
            if m["id"] == user_id or (m.get("status") in SENDABLE and m["content"].strip()):
                ids.append(m["id"])
                msg = {"role": m["role"], "content": m["content"]}
                if m.get("pinned"):
                    msg["pinned"] = True
                out.append(msg)
            if m["id"] == user_id:
                break
        limit = self.max_messages()  # as the page does: the newest the server accepts
        return ids[-limit:], out[-limit:]

    def max_messages(self) -> int:
        if self._max_messages is None:
            self._max_messages = 2000
            if not self.openai:
                try:
                    self._max_messages = transport.config(self.url, self.api_key)["limits"][
                        "max_messages"]
                except (transport.ServerError, transport.Unreachable, KeyError, TypeError):
                    pass  # the server's default; a failing server says so on the chat itself
        return self._max_messages

    def _body(self, conv: dict, ids: list[str], history: list[dict]) -> dict:
        s = self.settings(conv)
        if self.openai:
            messages = ([{"role": "system", "content": s["system"]}] if s["system"].strip()
                        else []) + [{"role": m["role"], "content": m["content"]} for m in history]
            body = {"model": self.model or s["adapter"] or transport.first_model(
                self.url, self.api_key), "messages": messages,
                "max_tokens": s["max_new_tokens"]}
            if s["temperature"] is not None:  # else the server's (the model's) default
                body["temperature"] = s["temperature"]
            return body
        body = {"messages": history, "conversation_id": conv["id"], "max_turns": s["max_turns"],
                "max_new_tokens": s["max_new_tokens"], "compact": bool(s["compact"]),
                "recall": bool(s["recall"])}
        if s["system"].strip():
            body["system"] = s["system"]
        if s["template"] and s["template"] != "default":
            body["template"] = s["template"]
        if s["adapter"]:
            body["adapter"] = s["adapter"]
        if s["temperature"] == 0:  # None: the model's recommended decoding
            body["do_sample"] = False
        elif s["temperature"] is not None:
            body.update(do_sample=True, temperature=s["temperature"])
        summary = summary_for(conv, ids)
        if summary:
            body["summary"] = summary
        return body

    def _finish(self, user_id: str, reply: dict, done: dict, ids: list[str]) -> dict:
        reply.update(content=done["message"]["content"], status="ok", report=done.get("history"),
                     usage=done.get("usage"), finish_reason=done.get("finish_reason"))
        compaction = done.get("compaction") or {}
        if compaction.get("status") == "failed":
            reply["compaction"] = compaction
        summary = done.get("summary")
        if summary and summary["covers"] > len(ids):
            raise transport.BadReply(f"a summary covering {summary['covers']} messages; "
                                     f"{len(ids)} were sent")

        def change(conv):
            _place(conv, user_id, reply, "ok")
            if summary:
                conv["summary"] = {"text": summary["text"], "signature": summary.get("signature"),
                                   "next_id": ids[summary["covers"]] if summary["covers"] < len(ids)
                                   else None,
                                   "kept_ids": [ids[i] for i in summary.get("kept", [])],
                                   "updated": now_ms()}
        self.store.update(self.name, change)
        return reply

    def _save_reply(self, user_id: str, reply: dict | None, user_status: str | None = None,
                    error: str | None = None) -> None:
        def change(conv):
            _place(conv, user_id, reply, user_status, error)
        self.store.update(self.name, change)

    # -- commands ---------------------------------------------------------------------
    def retry(self) -> dict:
        """Resend the last user message of the branch that failed, or never got its reply."""
        shown = path(self.conv())
        for i in range(len(shown) - 1, -1, -1):
            m = shown[i]
            if m["role"] == "user":
                following = shown[i + 1:i + 2]
                if m.get("status") in ("failed", "pending") or not following:
                    def reset(c, uid=m["id"]):
                        for x in [x for x in c["messages"] if x.get("parent") == uid]:
                            if x["role"] == "assistant" and x.get("status") != "ok" \
                                    and not subtree(c, x["id"]) - {x["id"]}:
                                c["messages"].remove(x)
                        user = next(x for x in c["messages"] if x["id"] == uid)
                        user["status"] = "pending"
                        user.pop("error", None)
                        c["leaf"] = uid
                    self.store.update(self.name, reset)
                    return self.generate(m["id"])
                break
        raise LookupError("nothing to retry: the last message got its reply")

    def undo(self) -> int:
        """Remove the branch's last exchange (its last user message and what follows it)."""
        removed = []

        def change(conv):
            users = [m for m in path(conv) if m["role"] == "user"]
            if users:
                gone = subtree(conv, users[-1]["id"])
                removed.extend(m for m in conv["messages"] if m["id"] in gone)
                conv["messages"] = [m for m in conv["messages"] if m["id"] not in gone]
                conv["leaf"] = users[-1]["parent"]
        self.store.update(self.name, change)
        return len(removed)

    def pin(self, number: int, on: bool = True) -> dict:
        """Pin (or unpin) message ``number`` of the branch (1-based, as /history shows)."""
        def change(conv):
            shown = path(conv)
            if not 1 <= number <= len(shown):
                raise IndexError(f"there is no message {number}")
            if on:
                shown[number - 1]["pinned"] = True
            else:
                shown[number - 1].pop("pinned", None)
        return path(self.store.update(self.name, change))[number - 1]


def _place(conv: dict, user_id: str, reply: dict | None, user_status: str | None,
           error: str | None = None) -> None:
    """Save ``reply`` as a reply to its user message (replacing an earlier save of it); the
    branch shown moves on to it when it was showing that message."""
    messages = conv["messages"]
    user = next((m for m in messages if m["id"] == user_id), None)
    if user is not None and user_status:
        user["status"] = user_status
        if error:
            user["error"] = error
        else:
            user.pop("error", None)
    if not reply:
        return
    reply = dict(reply, parent=user_id)  # kept even if another client's /undo removed the user
    existing = [i for i, m in enumerate(messages) if m["id"] == reply["id"]]
    if existing:
        messages[existing[0]] = reply
    else:  # after its question and any earlier version of itself
        at = max((i for i, m in enumerate(messages) if m["id"] == user_id or (
            m.get("parent") == user_id and m["role"] == "assistant")), default=len(messages) - 1)
        messages.insert(at + 1, reply)
        for m in messages:  # another client's question, sent meanwhile, follows this reply
            if m.get("parent") == user_id and m["role"] == "user":
                m["parent"] = reply["id"]
    if conv.get("leaf") == user_id:
        conv["leaf"] = reply["id"]


def summary_for(conv: dict, ids: list[str]) -> dict | None:
    """The stored summary with ``covers`` and ``kept`` counted in this request's list, as the
    page does; None when the messages it covered are no longer the leading ones."""
    summary = conv.get("summary")
    if not summary or not summary.get("text", "").strip():
        return None
    covers = ids.index(summary["next_id"]) if summary.get("next_id") in ids else (
        0 if not summary.get("next_id") else -1)
    if covers < 0:
        return None
    kept = [ids.index(i) for i in summary.get("kept_ids", []) if i in ids[:covers]]
    return {"text": summary["text"], "covers": covers, "kept": kept,
            "signature": summary.get("signature")}
