"""The native API: ``POST /api/chat`` (optionally streamed as SSE), ``/api/chat/preview`` and
``/api/summarize``. Each handler validates into a ChatRequest and only encodes the result."""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify

from ..errors import error_body
from ..exceptions import ContextLengthExceeded, SummaryFailed, ValidationFailed
from ..memory import compaction
from ..service import (
    after_reply,
    check_summary,
    engine,
    event_stream,
    prepare,
    read_json,
    sse,
    start,
    summariser,
)

bp = Blueprint("chat", __name__, url_prefix="/api")


def _body(req, prepared, gen, memory: dict) -> dict:
    body = {
        "model": prepared.adapter or engine().model_id,
        "message": {"role": "assistant", "content": gen.text},
        "finish_reason": gen.finish_reason,
        "usage": gen.usage.as_dict(),
        "history": prepared.history(),
        **memory,
    }
    if req.conversation_id is not None:
        body["conversation_id"] = req.conversation_id
    return body


@bp.post("/chat")
def chat():
    req = current_app.extensions["schemas"].load_chat(read_json())
    prepared, gen = start(req)
    if not req.stream:
        gen.join()
        return jsonify(_body(req, prepared, gen, after_reply(req, prepared, gen)))

    def events():
        for chunk in gen.chunks():
            if chunk.text:
                yield sse({"content": chunk.text}, event="delta")
        # The reply is whole: compaction runs now, and its result rides on the done event.
        yield sse(_body(req, prepared, gen, after_reply(req, prepared, gen)), event="done")

    return event_stream(events(), gen, lambda err: sse(error_body(err, openai=False), "error"))


@bp.post("/chat/preview")
def preview():
    req = current_app.extensions["schemas"].load_chat(read_json())
    prepared = prepare(req, with_text=True)
    prompt = prepared.prompt
    body = {
        "prompt": prompt.text,
        "prompt_tokens": len(prompt.ids),
        "max_new_tokens": req.params.max_new_tokens,
        "context_window": prompt.context_window,
        "history": prepared.history(),
        "parts": prepared.parts(),
    }
    if req.conversation_id is not None:
        body["conversation_id"] = req.conversation_id
    return jsonify(body)


@bp.post("/summarize")
def summarize():
    """Compact on the client's schedule: fold ``messages[summary.covers:covers]`` into a new
    signed summary (pinned messages are never folded)."""
    req = current_app.extensions["schemas"].load_summarize(read_json())
    engine().require_ready()
    previous, preset = req["summary"], req["preset"]
    signed = previous is not None and check_summary(previous, req["messages"], preset)
    result = compaction.summarize(req["messages"], req["covers"], previous, preset,
                                  summariser(), previous_signed=signed)
    if result["compaction"].get("cause") == "too_long":
        raise ContextLengthExceeded("No summary was made: " + result["compaction"]["reason"],
                                    param="messages")
    if result["compaction"]["status"] == "failed":
        raise SummaryFailed("No summary was made: " + result["compaction"]["reason"],
                            retry_after=1)
    if result["compaction"]["status"] == "not_needed":
        raise ValidationFailed("Nothing to summarise: the range holds only pinned messages or "
                               "what the summary already covers.", param="covers")
    return jsonify(result)
