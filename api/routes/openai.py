"""The OpenAI-compatible API: ``POST /v1/chat/completions`` and ``GET /v1/models``.

An adapter is chosen by naming it as ``model`` (as in vLLM). History that does not fit the
context is trimmed as on ``/api/chat`` and reported in the ``X-Mnemo-History-Dropped`` header
(messages that reached neither the model nor a summary) and a ``mnemo`` response field;
``truncation: "disabled"`` turns that into OpenAI's 400
``context_length_exceeded`` instead. Memory (pins, summary, compaction, recall, preset) comes
through the ``mnemo`` extension object, which the official SDKs send with ``extra_body``.
"""

from __future__ import annotations

import time
import uuid

from flask import Blueprint, current_app, jsonify

from ..errors import error_body
from ..exceptions import ContextLengthExceeded
from ..service import after_reply, engine, event_stream, generation, prepare, read_json, sse

bp = Blueprint("openai", __name__, url_prefix="/v1")

CREATED = int(time.time())


def _model_entry(model_id: str, parent: str | None = None) -> dict:
    entry = {"id": model_id, "object": "model", "created": CREATED, "owned_by": "mnemo"}
    if parent:
        entry["parent"] = parent
    return entry


@bp.get("/models")
def models():
    eng = engine()
    eng.require_ready()
    # max_model_len as vLLM lists it: what a front (MNEMO_ENGINE_URL) budgets prompts by
    data = [{**_model_entry(eng.model_id), "max_model_len": eng.context_window}] + [
        _model_entry(a, eng.model_id) for a in eng.adapters]
    return jsonify({"object": "list", "data": data})


@bp.post("/chat/completions")
def chat_completions():
    req, data = current_app.extensions["openai_schemas"].load_chat(read_json())
    prepared = prepare(req)
    history = prepared.prompt.report.as_dict()
    if data.get("truncation") == "disabled" and history["lost"]:  # a summary's cover is no loss
        raise ContextLengthExceeded(
            f"This model's maximum context length is {prepared.prompt.context_window} tokens, "
            f"and {req.params.max_new_tokens} are reserved for the completion; your messages do "
            f"not fit ({history['lost']} of {history['received']} would have to be dropped). "
            "Shorten the messages or send truncation: \"auto\".", param="messages")
    gen = generation(prepared, req.params)
    head = {"id": f"chatcmpl-{uuid.uuid4().hex}", "created": int(time.time()), "model": req.model}
    headers = {"X-Mnemo-History-Dropped": str(history["lost"])}

    def extension() -> dict:
        return {"history": prepared.history(), **after_reply(req, prepared, gen)}

    if not req.stream:
        gen.join()
        body = {**head, "object": "chat.completion", "choices": [{
            "index": 0, "message": {"role": "assistant", "content": gen.text},
            "logprobs": None, "finish_reason": gen.finish_reason}],
            "usage": gen.usage.as_dict(), "mnemo": extension()}
        return jsonify(body), 200, headers

    include_usage = bool((data.get("stream_options") or {}).get("include_usage"))

    def chunk(delta: dict, finish_reason: str | None = None, **extra) -> str:
        return sse({**head, "object": "chat.completion.chunk", "choices": [{
            "index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}],
            **extra})

    def events():
        yield chunk({"role": "assistant", "content": ""})
        for piece in gen.chunks():
            if piece.text:
                yield chunk({"content": piece.text})
        yield chunk({}, gen.finish_reason, mnemo=extension())
        if include_usage:
            yield sse({**head, "object": "chat.completion.chunk", "choices": [],
                       "usage": gen.usage.as_dict()})

    return event_stream(events(), gen, lambda err: sse(error_body(err, openai=True)),
                        trailer="data: [DONE]\n\n", headers=headers)
