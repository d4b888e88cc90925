"""Compaction: fold the oldest exchanges into a new signed summary, after the reply.

It runs on the engine like any generation (so it waits its turn, and never before the reply's
last token), with the preset's summary instruction. A failed or empty summary replaces nothing:
the reply says so, and the client keeps its old summary and its messages.
"""

from __future__ import annotations

from flask import current_app

from ..exceptions import ContextLengthExceeded, MnemoError
from ..types import SamplingParams
from . import summary as sm

ASK = ("Summarise the conversation above as instructed: the people, names, numbers, dates, "
       "decisions and preferences it mentions.")
SUMMARY_SHARE = 0.25  # a summary may take at most this share of the context window, in tokens


def compact_if_due(req, prepared) -> dict:
    """Compact when the history nears its budget or lost content; see ``summary.fold_until``."""
    prompt = prepared.prompt
    covers = sm.fold_until([m["role"] for m in req.messages], prompt.costs, prompt.report,
                           len(prompt.ids), prompt.context_window - prompt.max_new_tokens)
    if covers is None:
        return {"compaction": {"status": "not_needed"}}
    return summarize(req.messages, covers, prepared.summary, req.preset)


def summarize(messages: list[dict], covers: int, previous: sm.Summary | None, preset) -> dict:
    """Fold ``messages[previous.covers:covers]`` (pins excepted) into ``previous``; return
    ``{"compaction": {...}, "summary": {...}}``, or a failed compaction and no summary."""
    from ..service import Generation, engine

    eng = engine()
    start = previous.covers if previous else 0
    folded = [{"role": m["role"], "content": m["content"]} for m in messages[start:covers]
              if not m.get("pinned")]
    if not folded:
        return {"compaction": {"status": "not_needed", "reason": "nothing to fold but pins"}}
    prose_before, ledger_before = sm.split(previous.text) if previous else ("", [])
    ledger = sm.merge_ledger(ledger_before, sm.extract_facts(folded)) if preset.ledger else []
    system = preset.summary_instruction
    if prose_before:
        system += "\n\nThe summary so far:\n" + prose_before
    params = SamplingParams(max_new_tokens=preset.summary_max_tokens, repetition_penalty=1.1)
    try:
        prompt = eng.build_prompt(folded + [{"role": "user", "content": ASK}], system=system,
                                  max_new_tokens=params.max_new_tokens, max_turns=None)
        gen = Generation(prompt, params, None, summary=True).join()
    except ContextLengthExceeded as err:
        return _failed(f"the summary prompt does not fit: {err.message}")
    except MnemoError as err:
        return _failed(f"the summary generation failed: {err.message}")
    prose = sm.clean_prose(gen.text)
    if not prose:
        return _failed("the model returned an empty summary")
    text = _fit(prose, ledger, eng)
    covered = [{"role": m["role"], "content": m["content"]} for m in messages[:covers]]
    signature = current_app.extensions["memory"].signer.sign(text, covers, covered)
    return {"compaction": {"status": "ok", "covers": covers, "folded": len(folded),
                           "input_dropped": prompt.report.dropped, "usage": gen.usage.as_dict()},
            "summary": sm.Summary(text, covers, signature).as_dict()}


def _fit(prose: str, ledger: list[str], eng) -> str:
    """The summary text within ``SUMMARY_SHARE`` of the window and the message length limit.

    The ledger is the reliable part, so it keeps up to three quarters of that room (its weakest
    lines go first beyond it) and the prose is cut, on token boundaries, to what is left.
    """
    settings = current_app.config["MNEMO"]
    limit = int(SUMMARY_SHARE * eng.context_window)
    ledger = list(ledger)
    while ledger and (eng.count_tokens(sm.compose("", ledger)) > 0.75 * limit
                      or len(sm.compose("", ledger)) > 0.75 * settings.max_message_chars):
        ledger = sm.drop_weakest(ledger)
    room = max(1, limit - (eng.count_tokens(sm.compose(".", ledger)) if ledger else 0))
    while True:
        cut = eng.truncate_tokens(prose, room).strip() or prose.split()[0]
        text = sm.compose(cut, ledger)
        if len(text) <= settings.max_message_chars or room == 1:
            return text
        room = room * 3 // 4 or 1


def _failed(reason: str) -> dict:
    return {"compaction": {"status": "failed", "reason": reason + "; nothing was replaced: "
                           "keep the previous summary and the messages."}}
