"""Conversations on disk: one JSON file each, in the page's export format, never half-written.

Every change is a transaction: take the conversation's lock, read the file afresh, apply the
change, write a temporary file, fsync it, and rename it over the old one. A killed process leaves
either the old file or the new one; two clients on one conversation each apply their own change
to the other's latest, so neither overwrites the other's turns.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import random
import re
import string
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from .tree import VERSION, upgrade
from .tree import path as branch

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._ -]{0,99}$")


def default_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "mnemo" / "conversations"


def now_ms() -> int:
    return int(time.time() * 1000)


def new_id() -> str:
    """The page's id shape: base-36 milliseconds, a dash, 8 random base-36 characters."""
    digits, n, out = string.digits + string.ascii_lowercase, now_ms(), ""
    while n:
        n, r = divmod(n, 36)
        out = digits[r] + out
    return out + "-" + "".join(random.choice(digits) for _ in range(8))


def new_conversation(title: str, settings: dict) -> dict:
    t = now_ms()
    return {"version": VERSION, "id": new_id(), "title": title, "created": t, "updated": t,
            "settings": dict(settings), "messages": [], "leaf": None}


class Store:
    def __init__(self, directory: Path):
        self.dir = Path(directory)
        self.dir.mkdir(parents=True, exist_ok=True)

    def path(self, name: str) -> Path:
        if not NAME.match(name) or name.endswith((".tmp", ".lock")):
            raise ValueError(f"{name!r} is not a conversation name: use letters, digits, "
                             "spaces, '.', '_' or '-' (at most 100)")
        return self.dir / f"{name}.json"

    @contextlib.contextmanager
    def _locked(self, name: str) -> Iterator[None]:
        self.path(name)  # validates the name
        with open(self.dir / f".{name}.lock", "a+") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def load(self, name: str) -> dict | None:
        try:
            data = json.loads(self.path(name).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (ValueError, UnicodeDecodeError) as err:
            raise ValueError(f"{self.path(name)} is not a readable conversation: {err}") from None
        return check_conversation(data)

    def update(self, name: str, change: Callable[[dict], None], *,
               create: dict | None = None) -> dict:
        """Apply ``change`` to the latest version on disk, atomically; return the result."""
        with self._locked(name):
            conv = self.load(name)
            if conv is None:
                if create is None:
                    raise FileNotFoundError(f"no conversation named {name!r}")
                conv = create
            change(conv)
            conv["updated"] = now_ms()
            self._write(self.path(name), conv)
            return conv

    def _write(self, path: Path, conv: dict) -> None:
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            with open(tmp, "w", encoding="utf-8") as f:
                json.dump(conv, f, ensure_ascii=False, indent=1)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise
        dir_fd = os.open(self.dir, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)

    def names(self) -> list[tuple[str, dict]]:
        """Every conversation, most recently used first."""
        out = []
        for path in self.dir.glob("*.json"):
            with contextlib.suppress(ValueError, OSError):
                conv = self.load(path.stem)
                if conv:
                    out.append((path.stem, conv))
        return sorted(out, key=lambda item: -item[1].get("updated", 0))

    def import_file(self, source: Path) -> list[str]:
        """Import a page export (one conversation, or "Export all"); return the names used."""
        try:
            data = json.loads(Path(source).read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError) as err:
            raise ValueError(f"{source} is not JSON: {err}") from None
        convs = data["conversations"] if isinstance(data, dict) and "conversations" in data \
            else data if isinstance(data, list) else [data]
        if not isinstance(convs, list):
            raise ValueError(f"{source} is not a Mnemo export")
        convs = [check_conversation(conv) for conv in convs]
        by_id = {conv["id"]: name for name, conv in self.names()}
        names = []
        for conv in convs:  # the page matches on id: the same conversation replaces its file
            name = by_id.get(conv["id"]) or self._free_name(conv.get("title") or conv["id"])
            with self._locked(name):
                self._write(self.path(name), conv)
            names.append(name)
        return names

    def _free_name(self, title: str) -> str:
        base = re.sub(r"[^A-Za-z0-9._ -]+", "-", str(title))[:80]
        base = re.sub(r"^[^A-Za-z0-9]+|[ .-]+$", "", base)
        base = re.sub(r"\.(lock|tmp)$", r"-\1", base) or "imported"
        name, n = base, 2
        while self.path(name).exists():
            name, n = f"{base}-{n}", n + 1
        return name


CONVERSATION_TYPES = {"title": str, "settings": (dict, type(None)), "leaf": (str, type(None)),
                      "summary": (dict, type(None)), "created": (int, float),
                      "updated": (int, float)}
SETTING_TYPES = {"system": str, "template": str, "adapter": str, "max_turns": int,
                 "max_new_tokens": int, "temperature": (int, float, type(None)),
                 "compact": bool,
                 "recall": bool}
SUMMARY_TYPES = {"text": str, "signature": (str, type(None)), "next_id": (str, type(None)),
                 "kept_ids": (list, type(None))}
MESSAGE_TYPES = {"id": str, "role": str, "content": str, "parent": (str, type(None)),
                 "pinned": bool, "status": str, "title": str}


def check_conversation(data: object) -> dict:
    """A conversation as the page exports it, checked before anything is written or used: the
    types of what the client reads, unique ids, parents that exist, and no parent cycle."""
    if not isinstance(data, dict) or not isinstance(data.get("id"), str) or not isinstance(
            data.get("messages"), list):
        raise ValueError("not a Mnemo conversation (the page's export format)")
    for key, kinds in CONVERSATION_TYPES.items():
        if key in data and not isinstance(data[key], kinds):
            raise ValueError(f"not a Mnemo conversation: its {key} has the wrong type "
                             f"({type(data[key]).__name__})")
    summary = data.get("summary") or {}
    for key, kinds in SUMMARY_TYPES.items():
        if key in summary and not isinstance(summary[key], kinds):
            raise ValueError(f"not a Mnemo conversation: its summary's {key} has the wrong type")
    if not all(isinstance(i, str) for i in summary.get("kept_ids") or []):
        raise ValueError("not a Mnemo conversation: its summary's kept_ids are not ids")
    for key, value in (data.get("settings") or {}).items():
        wanted = SETTING_TYPES.get(key)
        if wanted and (not isinstance(value, wanted) or (wanted is not bool
                                                          and isinstance(value, bool))):
            raise ValueError(f"not a Mnemo conversation: setting {key} = {value!r} has the "
                             "wrong type")
    ids = set()
    for n, m in enumerate(data["messages"], 1):
        if not isinstance(m, dict):
            raise ValueError(f"not a Mnemo conversation: message {n} is not an object")
        for key, kinds in MESSAGE_TYPES.items():
            if key in m and not isinstance(m[key], kinds):
                raise ValueError(f"not a Mnemo conversation: message {n}'s {key} has the wrong "
                                 f"type ({type(m[key]).__name__})")
        if not isinstance(m.get("id"), str) or m["id"] in ids:
            raise ValueError(f"not a Mnemo conversation: message {n} needs an id of its own")
        if m.get("role") not in ("user", "assistant") or not isinstance(m.get("content"), str):
            raise ValueError(f"not a Mnemo conversation: message {n} needs a role (user or "
                             "assistant) and text content")
        ids.add(m["id"])
    parents = {m["id"]: m.get("parent") for m in data["messages"]}
    if any(p is not None and p not in ids for p in parents.values()):
        raise ValueError("not a Mnemo conversation: a message's parent is not in it")
    rooted: set[str] = set()  # messages whose chain of parents is known to end
    for start in parents:  # follow each chain of parents: it must end, never come back
        seen, current = set(), start
        while current is not None and current not in rooted:
            if current in seen:
                raise ValueError("not a Mnemo conversation: its messages' parents form a cycle")
            seen.add(current)
            current = parents.get(current)
        rooted |= seen
    return upgrade(data)


def to_markdown(conv: dict) -> str:
    """The page's Markdown export: the branch shown."""
    body = "\n".join(f"**{m['role']}:**\n\n{m['content']}\n" for m in branch(conv))
    return f"# {conv.get('title', '')}\n\n" + body
