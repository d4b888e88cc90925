"""Rolling summaries that the client carries: signatures, and when to compact.

Pure: no Flask, no torch. The server never keeps a summary. It returns one after a reply, signed
with an HMAC over its text, how many leading messages it covers and a digest of those messages,
so the client can send it back and the server can tell its own summary from one a client wrote
or altered. The key comes from ``MNEMO_SUMMARY_KEY`` and must be shared by every worker and host.

A summary is the gist only. Facts are not copied into it: the client sends every message,
summarised or not, so recall (``recall``) finds the verbatim sentence that answers a question,
in any language and phrasing; a cue-word ledger of "fact-like" sentences, tried before, kept
a third of the facts at best, half of what recall finds (docs/memory.md).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Sequence
from dataclasses import dataclass

from .selection import HistoryPlan

COMPACT_AT = 0.75  # compact once the prompt passes this share of its budget (or history is lost)
KEEP_AFTER = 0.5  # ...keeping verbatim the newest exchanges that fit in this share of it
LEDGER_HEADING = "Facts the user stated (verbatim):"


@dataclass(frozen=True)
class Summary:
    text: str
    covers: int  # how many leading messages of the client's list it stands in for
    signature: str | None = None
    kept: tuple[int, ...] = ()  # messages within ``covers`` it does not stand in for (pinned
    # when it was made): they are kept verbatim whatever their pin says now

    def as_dict(self) -> dict:
        return {"text": self.text, "covers": self.covers, "kept": list(self.kept),
                "signature": self.signature}

    @classmethod
    def from_request(cls, data: dict | None) -> Summary | None:
        if not data:
            return None
        return cls(text=data["text"], covers=data["covers"], signature=data.get("signature"),
                   kept=tuple(sorted({i for i in data.get("kept", ()) if i < data["covers"]})))


class Signer:
    """HMAC-SHA256 over a summary's text, ``covers``, ``kept``, the preset it was made under,
    the caller it was made for (``holder``: a digest of the API key) and a digest of the
    messages it covers: valid for exactly those messages, under that preset, for that key.

    A signature proves integrity and origin only: this server wrote this text for these
    messages. It grants the text no authority: the summary is made of the client's words
    (the model wrote it from them), so it is always placed as context, never as system text."""

    def __init__(self, key: bytes):
        self._key = key

    def sign(self, summary: Summary, messages: Sequence[dict], preset: str,
             holder: str = "") -> str:
        """Sign ``summary`` for the first ``summary.covers`` of ``messages``."""
        payload = json.dumps(["mnemo-summary-v3", preset, holder, summary.covers,
                              list(summary.kept), summary.text,
                              _digest(messages[:summary.covers])], separators=(",", ":"))
        return "v3." + hmac.new(self._key, payload.encode(), hashlib.sha256).hexdigest()

    def verify(self, summary: Summary, messages: Sequence[dict], preset: str,
               holder: str = "") -> bool:
        if not summary.signature or len(messages) < summary.covers:
            return False
        expected = self.sign(summary, messages, preset, holder)
        return hmac.compare_digest(expected.encode(), summary.signature.encode("utf-8", "replace"))


def _digest(messages: Sequence[dict]) -> str:
    canonical = json.dumps([[m["role"], m["content"]] for m in messages], separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


# -- the former fact ledger ---------------------------------------------------------------
# Summaries made before recall replaced the cue-word ledger may still carry one after the prose;
# ``split`` separates it so that the user's sentences never get the prose's system authority.
def split(text: str) -> tuple[str, list[str]]:
    """A summary's prose and its ledger lines."""
    prose, _, ledger = text.partition("\n\n" + LEDGER_HEADING)
    lines = [line[2:].strip() for line in ledger.splitlines() if line.startswith("- ")]
    return prose.strip(), lines


def clean_prose(text: str) -> str:
    """The model's summary, without a ledger heading of its own or runs of blank lines."""
    text = text.split(LEDGER_HEADING)[0]
    return "\n".join(line.rstrip() for line in text.strip().splitlines() if line.strip())


# -- when and how far to compact ----------------------------------------------------------
def fold_until(roles: Sequence[str], costs: Sequence[int | None], plan: HistoryPlan,
               prompt_tokens: int, budget: int, max_turns: int | None = None) -> int | None:
    """The ``covers`` of the next summary, or None when no compaction is needed.

    Compaction is due when the prompt passed ``COMPACT_AT`` of its budget, or when history was
    dropped without a summary covering it. It then folds everything older than the newest
    exchanges that fit, with what every prompt carries (system prompt, summary, pins), in
    ``KEEP_AFTER`` of the budget, and in half of ``max_turns``; the latest exchange always
    stays. Counting the summary in, and leaving room under ``max_turns``, keeps the next turns
    from compacting again at once.
    """
    lost = plan.as_dict()["lost"] > 0
    if prompt_tokens <= COMPACT_AT * budget and not lost:
        return None
    last = len(roles) - 1
    window = range(plan.first_used, last + 1)
    carried = prompt_tokens - sum(costs[i] or 0 for i in window)  # system, summary, pins, recall
    starts = [i for i in range(max(plan.first_used, plan.covers + 1), last + 1)
              if roles[i] == "user"]
    if max_turns is not None:  # the kept exchanges, the latest one included
        starts = starts[-max(1, max_turns // 2):]
    until = last
    for start in starts:
        tail = costs[start:]
        if None not in tail and carried + sum(tail) <= KEEP_AFTER * budget:
            until = start
            break
    return until if until > plan.covers else None
