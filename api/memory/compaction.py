"""Compaction: fold the oldest exchanges into a new signed summary, after the reply.

It runs on the engine like any generation (so it waits its turn, and never before the reply's
last token), with the preset's summary instruction. It folds only what the summariser can read
in one prompt, oldest first (a longer backlog is folded over the next turns), and never a pinned
message: those are listed in the summary's ``kept`` and stay verbatim. It covers only what the
summariser read: a message too long to read in one prompt, or a prompt that had to be trimmed
after all, fails the compaction rather than produce a summary claiming what it never saw. A
summary built on one the server did not sign comes back unsigned. A failed or empty summary
replaces nothing: the reply says so, and the client keeps its old summary and its messages."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from ..exceptions import ContextLengthExceeded, MnemoError
from ..tokenizer import Tokenizer
from ..types import SamplingParams
from . import summary as sm

ASK = ("Write the summary of the conversation above now, as instructed. Do not repeat the "
       "instruction.")
SUMMARY_SHARE = 0.25  # a summary may take at most this share of the context window, in tokens
_OVERHEAD = 8  # template tokens per message, an upper bound for chat templates like ChatML


@dataclass(frozen=True)
class Summariser:
    """What compaction needs from the request it runs in (``service.summariser`` builds it):
    no Flask request is needed here."""
    tokenizer: Tokenizer  # counts, renders and truncates tokens
    generate: Callable[[list[int], SamplingParams], Any]  # the joined generation (text, usage)
    cpu_work: Callable[[], AbstractContextManager]  # admission for this request's CPU work
    sign: Callable[[sm.Summary, list[dict], str], str]  # the signature, bound to the caller
    tenant: str | None  # whose cached prefixes the summary prompt may use
    max_message_chars: int


def compact_if_due(req, prepared, tools: Summariser) -> dict:
    """Compact when the history nears its budget or lost content; see ``summary.fold_until``.
    Judged on the prompt recency alone makes: recall fills the budget with older exchanges
    every turn, and those stay reachable whatever the summary covers."""
    prompt = prepared.recent or prepared.prompt
    messages = prepared.messages
    covers = sm.fold_until([m["role"] for m in messages], prompt.costs, prompt.report,
                           len(prompt.ids), prompt.context_window - prompt.max_new_tokens,
                           req.max_turns)
    if covers is None:
        return {"compaction": {"status": "not_needed"}}
    signed = bool(prepared.summary_report and prepared.summary_report["signed"])
    return summarize(messages, covers, prepared.summary, req.preset, tools, previous_signed=signed)


def summarize(messages: list[dict], until: int, previous: sm.Summary | None, preset,
              tools: Summariser, *, previous_signed: bool) -> dict:
    """Fold ``messages[previous.covers:until]`` (pins excepted), oldest first and as far as the
    summariser can read at once, into ``previous``; return ``{"compaction", "summary"}``, or a
    failed compaction and no summary."""
    tokenizer = tools.tokenizer
    start = previous.covers if previous else 0
    prose_before = sm.split(previous.text)[0] if previous else ""
    system = preset.summary_instruction
    if prose_before:
        system += "\n\nThe summary so far:\n" + prose_before
    try:
        with tools.cpu_work():
            covers, blocker = _readable_until(messages, start, until, tokenizer, system,
                                              preset.summary_max_tokens)
    except MnemoError as err:  # no room to work now (a full queue): a later turn folds it
        return _failed(f"the summary could not start: {err.message}")
    if blocker is not None:
        index, size, room = blocker
        return _failed(f"message {index} alone is about {size} tokens, more than the summariser "
                       f"can read in one prompt ({room}), so it cannot be summarised",
                       cause="too_long")
    span = range(start, covers)
    folded = [{"role": messages[i]["role"], "content": messages[i]["content"]} for i in span
              if not messages[i].get("pinned")]
    kept = tuple(sorted(set(previous.kept if previous else ())
                        | {i for i in span if messages[i].get("pinned")}))
    if not folded:
        return {"compaction": {"status": "not_needed", "reason": "nothing to fold but pins"}}
    params = SamplingParams(max_new_tokens=preset.summary_max_tokens, repetition_penalty=1.1)
    try:
        with tools.cpu_work():
            prompt = tokenizer.build_prompt(folded + [{"role": "user", "content": ASK}],
                                            system=system, max_new_tokens=params.max_new_tokens,
                                            max_turns=None, tenant=tools.tenant)
        gen = tools.generate(prompt.ids, params)
    except ContextLengthExceeded as err:
        return _failed(f"the summary prompt does not fit: {err.message}")
    except MnemoError as err:
        return _failed(f"the summary generation failed: {err.message}")
    if gen.finish_reason == "cancelled":  # its client left (``Generation.join``)
        return _failed("the client left while the summary was being written")
    if prompt.report.dropped:  # trimmed after all: it would claim messages it never read
        return _failed(f"the summariser could read only {len(folded) - prompt.report.dropped} "
                       f"of the {len(folded)} messages to fold")
    prose = sm.clean_prose(gen.text)
    if not prose:
        return _failed("the model returned an empty summary")
    text = _fit(prose, tokenizer, tools.max_message_chars)
    made = sm.Summary(text, covers, None, kept)
    compaction = {"status": "ok", "covers": covers, "folded": len(folded),
                  "read": {"messages": len(folded), "tokens": len(prompt.ids)},
                  "input_dropped": 0, "usage": gen.usage.as_dict(),
                  "signed": previous is None or previous_signed}
    if compaction["signed"]:
        made = sm.Summary(text, covers, tools.sign(made, messages, preset.name), kept)
    else:
        compaction["reason"] = ("built on a summary this server did not sign, so it is not "
                                "signed either (it is placed as plain context)")
    if covers < until:
        compaction["pending"] = until - covers  # folded over the next turns
    return {"compaction": compaction, "summary": made.as_dict()}


def _readable_until(messages: list[dict], start: int, until: int, tokenizer, system: str,
                    max_new: int) -> tuple[int, tuple[int, int, int] | None]:
    """The end of the longest run of whole exchanges from ``start`` that the summariser can read
    in one prompt; when not even the first exchange fits, ``start`` and what blocks it
    (message index, its tokens, the room)."""
    fixed, *sizes = tokenizer.count_tokens(system + "\n" + ASK,
                                     *(m["content"] for m in messages[start:until]))
    room = tokenizer.context_window - max_new - fixed - 4 * _OVERHEAD
    spent, end = 0, start
    for i, size in zip(range(start, until), sizes, strict=True):
        if messages[i]["role"] == "user" and i > start:
            end = i  # a whole exchange ends here
        if not messages[i].get("pinned"):
            spent += size + _OVERHEAD
        if spent > room:
            return end, None if end > start else (i, size, room)
    return until, None


def _fit(prose: str, tokenizer, max_chars: int) -> str:
    """The summary within ``SUMMARY_SHARE`` of the window and the message length limit, cut on
    token boundaries."""
    room = max(1, int(SUMMARY_SHARE * tokenizer.context_window))
    while True:
        text = tokenizer.truncate_tokens(prose, room).strip() or prose.split()[0]
        if len(text) <= max_chars or room == 1:
            return text
        room = room * 3 // 4 or 1


def _failed(reason: str, cause: str = "generation") -> dict:
    """``cause``: ``too_long`` when the messages themselves cannot be summarised (the client's
    to fix), ``generation`` when the model made none (worth retrying)."""
    return {"compaction": {"status": "failed", "cause": cause,
                           "reason": reason + "; nothing was replaced: keep the previous "
                                              "summary and the messages."}}
