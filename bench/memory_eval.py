"""Memory evaluation: how much of the evidence for a question reaches the prompt.

    scripts/bench-memory --eval [--data bench/data/memory_eval.json] [--only facts|long]

Conversations written for this evaluation (``bench/data/memory_eval.json``, made by
``bench/data/make_memory_eval.py``): "facts" chats where a user tells things about themselves
the way people do (introductions without "my name is", facts inside questions, negations,
numbers, dates, corrections, distractors about other people) in English, Chinese, Spanish,
German and mixed, and "long" multi-session chats between two people with hundreds of turns.
Each question names its evidence messages; a correction also names the stale statement.

Each question is appended to its conversation and sent to the real app's
``/api/chat/preview`` in-process (the default model's tokenizer and template; nothing is
generated), at ``MNEMO_CONTEXT_WINDOW`` 1,024 for "facts" and 4,096 for "long", with the
defaults otherwise (``max_new_tokens`` 256, ``max_turns`` out of the way). Reported per
category, language and kind: the share of evidence messages in the prompt (``history.used``),
the share of questions with all their evidence, and how often a stale statement reached the
model without its correction. Mechanisms:

- recency: ``recall: false``, the newest whole exchanges that fit;
- ledger (simulated): recency plus the former cue-word fact ledger over everything older,
  under its caps (24 lines, three quarters of a 25 % summary share), as if every compaction
  had kept its lines: an upper bound for that mechanism;
- dense, lexical: recall with one retriever only;
- hybrid: the default (both, fused).

Costs (``--costs``): one "long" conversation at 600 messages, the first request with an empty
embedding cache, then warm requests, each against the same request with recall off.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import time
from collections import defaultdict
from pathlib import Path

from bench.servers import ROOT

DATA = ROOT / "bench" / "data" / "memory_eval.json"
WINDOWS = {"facts": 1024, "long": 4096}
MECHANISMS = ("recency", "ledger", "dense", "lexical", "hybrid")

# The cue-word ledger this evaluation measured against retrieval (removed from the server).
_SENTENCES = re.compile(r"[^.!?。！？\n]+[.!?。！？]*")
_CUES = re.compile(
    r"\b(my|mine|i am|i'm|i've|i have|i prefer|i like|i love|i hate|i don't|i do not|i want|"
    r"i need|i live|i work|i was born|call me|we decided|we agreed|we chose|let's|decided|"
    r"decision|remember|always|never|favou?rite|prefer|birthday|deadline|budget|appointment|"
    r"meeting|allergic|named?)\b|我叫|我的|我是|我们|喜欢|不喜欢|决定|记住|生日|预算", re.I)
_DATE = re.compile(r"\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b|"
                   r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b|年|月|日", re.I)
_NAME = re.compile(r"(?<=[a-z,;:] )[A-Z][a-z]+")


def _fact_score(sentence: str) -> int:
    return (2 * bool(_CUES.search(sentence)) + bool(re.search(r"\d", sentence))
            + bool(_DATE.search(sentence)) + bool(_NAME.search(sentence)))


def ledger_lines(messages: list[dict], count_tokens, window: int) -> list[str]:
    """The former ledger over ``messages``: fact-like user sentences, the weakest dropped first
    past 24 lines and past three quarters of a quarter of the window."""
    lines = []
    for m in messages:
        if m["role"] == "user":
            for match in _SENTENCES.finditer(m["content"]):
                s = " ".join(match.group().split())
                if len(s) > 3 and _fact_score(s) >= 2:
                    lines.append(s[:300])
    lines = list(dict.fromkeys(lines))

    def drop_weakest(ls):
        weakest = min(range(len(ls)), key=lambda i: (_fact_score(ls[i]), i))
        return ls[:weakest] + ls[weakest + 1:]

    while len(lines) > 24:
        lines = drop_weakest(lines)
    while lines and count_tokens("\n".join(f"- {x}" for x in lines)) > 0.75 * 0.25 * window:
        lines = drop_weakest(lines)
    return lines


class App:
    """The real app in-process, one per context window (its own recall cache)."""

    def __init__(self, window: int):
        from api import create_app

        self.app = create_app({"context_window": window, "warmup": False})
        self.client = self.app.test_client()
        deadline = time.monotonic() + 300
        while self.client.get("/readyz").status_code != 200:
            if time.monotonic() > deadline:
                raise RuntimeError("the app did not get ready")
            time.sleep(0.2)
        self.recall = self.app.extensions["memory"].recall
        self.window = window

    def preview(self, messages: list[dict], **extra) -> dict:
        resp = self.client.post("/api/chat/preview", json={"messages": messages,
                                                           "max_turns": 2000, **extra})
        if resp.status_code != 200:
            raise RuntimeError(resp.get_json())
        return resp.get_json()

    def count_tokens(self, text: str) -> int:
        return self.app.extensions["engine"].count_tokens(text)[0]


def run(apps: dict, data: list[dict], mechanisms: tuple[str, ...]) -> dict:
    rows = []  # one per (question, mechanism)
    original = type(apps["facts"].recall).relevance
    for conv in data:
        app = apps[conv["kind"]]
        for q in conv["questions"]:
            messages = [*conv["messages"], {"role": "user", "content": q["question"]}]
            for mech in mechanisms:
                flags = {"dense": {"lexical_on": False}, "lexical": {"dense": False}}.get(mech, {})

                def relevance(self, *a, _flags=flags, **k):
                    return original(self, *a, **{**k, **_flags})

                type(app.recall).relevance = relevance
                try:
                    body = app.preview(messages, recall=mech not in ("recency", "ledger"))
                finally:
                    type(app.recall).relevance = original
                dropped = {i for a, b in body["history"]["dropped_ranges"] for i in range(a, b)}
                used = set(range(len(messages))) - dropped
                found = [i in used for i in q["evidence"]]
                if mech == "ledger":
                    older = [m for i, m in enumerate(conv["messages"]) if i not in used]
                    ledger = ledger_lines(older, app.count_tokens, app.window).__str__().lower()
                    found = [f or any(a.lower() in ledger for a in q["answer"])
                             and any(a.lower() in conv["messages"][i]["content"].lower()
                                     for a in q["answer"])
                             for f, i in zip(found, q["evidence"], strict=True)]
                stale_alone = bool(q.get("stale")) and any(i in used for i in q["stale"]) \
                    and not all(found)
                lang = "+".join(conv["languages"])
                rows.append({"conv": conv["id"], "kind": conv["kind"], "lang": lang,
                             "kind, lang": f"{conv['kind']}, {lang}", "category": q["category"],
                             "mech": mech, "found": sum(found), "evidence": len(found),
                             "all": all(found), "stale_alone": stale_alone})
    return summarise(rows, mechanisms)


def summarise(rows: list[dict], mechanisms: tuple[str, ...]) -> dict:
    out = {}
    for axis in ("kind", "category", "lang", "kind, lang"):
        table = defaultdict(dict)
        for key in sorted({r[axis] for r in rows}):
            for mech in mechanisms:
                sel = [r for r in rows if r[axis] == key and r["mech"] == mech]
                table[key][mech] = {
                    "evidence": sum(r["found"] for r in sel) / max(1, sum(r["evidence"] for r in sel)),
                    "questions_whole": sum(r["all"] for r in sel) / max(1, len(sel)),
                    "stale_alone": sum(r["stale_alone"] for r in sel), "questions": len(sel)}
        out[axis] = dict(table)
    return out


def print_table(result: dict, mechanisms: tuple[str, ...]) -> None:
    for axis, table in result.items():
        print(f"\n| {axis} | questions | " + " | ".join(mechanisms) + " |")
        print("| --- | --- | " + " | ".join("---" for _ in mechanisms) + " |")
        for key, cells in table.items():
            n = next(iter(cells.values()))["questions"]
            print(f"| {key} | {n} | " + " | ".join(
                f"{c['evidence']:.0%} ({c['questions_whole']:.0%}"
                + (f", {c['stale_alone']} stale" if c["stale_alone"] else "") + ")"
                for c in cells.values()) + " |")


def costs(app: App, convs: list[dict], size: int, runs: int) -> dict:
    """The first request's and warm requests' time with recall, against recall off, on the
    "long" conversations one after the other, cut to ``size`` messages."""
    messages = [m for conv in convs for m in conv["messages"]][:size - 1]
    if messages[-1]["role"] != "assistant":
        messages = messages[:-1]
    messages.append({"role": "user", "content": convs[0]["questions"][0]["question"]})

    def timed(**extra) -> float:
        start = time.perf_counter()
        app.preview(messages, **extra)
        return time.perf_counter() - start

    app.recall.embed(["the model loaded, once a process"])  # not a conversation's cost
    app.recall._caches.clear()
    app.recall._terms.clear()
    app.recall._terms_bytes.clear()
    first = timed(recall=True)
    timed(recall=False)
    warm = [timed(recall=True) for _ in range(runs)]
    off = [timed(recall=False) for _ in range(runs)]
    return {"messages": len(messages), "first_s": first, "warm_median_s": statistics.median(warm),
            "recall_off_median_s": statistics.median(off),
            "added_warm_ms": 1000 * (statistics.median(warm) - statistics.median(off))}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--only", choices=["facts", "long"])
    parser.add_argument("--mechanisms", default=",".join(MECHANISMS))
    parser.add_argument("--costs", action="store_true", help="time recall at 600 messages")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args(argv)
    data = json.loads(args.data.read_text(encoding="utf-8"))
    if args.only:
        data = [c for c in data if c["kind"] == args.only]
    apps = {"facts": App(WINDOWS["facts"])}
    apps["long"] = App(WINDOWS["long"])
    if args.costs:
        long = [c for c in data if c["kind"] == "long"]
        for _attempt in range(3):
            print(json.dumps(costs(apps["long"], long, 600, args.runs)), flush=True)
        return
    mechanisms = tuple(args.mechanisms.split(","))
    result = run(apps, data, mechanisms)
    print_table(result, mechanisms)
    print(json.dumps(result, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
