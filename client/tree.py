"""Branches, as the page stores them (conversation format 2): each message names its ``parent``
(None for a first message), the page keeps every version of an edited message or a regenerated
reply as siblings, and ``leaf`` is the last message of the branch shown. The client works on that
branch: it is what it sends, shows, pins and undoes. Format 1 (a plain list) is upgraded."""

from __future__ import annotations

VERSION = 2


def upgrade(conv: dict) -> dict:
    """Give every message a parent (format 1: the message before it) and the conversation a
    leaf; in place, and a no-op on format 2."""
    prev, ids = None, set()
    for m in conv["messages"]:
        if "parent" not in m:
            m["parent"] = prev
        prev = m["id"]
        ids.add(m["id"])
    if conv.get("leaf") not in ids:
        conv["leaf"] = prev
    conv["version"] = VERSION
    return conv


def lineage(conv: dict, message_id: str | None) -> list[dict]:
    """The messages from the first one down to ``message_id``, oldest first."""
    index = {m["id"]: m for m in conv["messages"]}
    out: list[dict] = []
    m = index.get(message_id)
    while m is not None and len(out) <= len(index):
        out.append(m)
        m = index.get(m.get("parent"))
    return out[::-1]


def path(conv: dict) -> list[dict]:
    """The branch shown."""
    return lineage(conv, conv.get("leaf"))


def subtree(conv: dict, message_id: str) -> set[str]:
    """The ids of a message and of everything that follows it, on every branch."""
    out, todo = set(), [message_id]
    while todo:
        current = todo.pop()
        if current in out:  # a cycle (imports are checked for them; this never loops anyway)
            continue
        out.add(current)
        todo.extend(m["id"] for m in conv["messages"] if m.get("parent") == current)
    return out
