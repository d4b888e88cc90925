"""The OpenAI-compatible API: ``POST /v1/chat/completions`` and ``GET /v1/models``.

An adapter is chosen by naming it as ``model`` (as in vLLM). History that does not fit the
context is trimmed as on ``/api/chat`` and reported in the ``X-Mnemo-History-Dropped`` header
and a ``mnemo`` response field; ``truncation: "disabled"`` turns that into OpenAI's 400
``context_length_exceeded`` instead.
"""

from __future__ import annotations

import time
import uuid

from flask import Blueprint, Response, current_app, jsonify, stream_with_context

from ..errors import error_body
from ..exceptions import ContextLengthExceeded, MnemoError, UnknownAdapter
from ..service import Generation, engine, prepare, read_json, sampling_for, sse

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
    data = [_model_entry(eng.model_id)] + [_model_entry(a, eng.model_id) for a in eng.adapters]
    return jsonify({"object": "list", "data": data})


def _adapter_for(model: str) -> str | None:
    eng = engine()
    if model == eng.model_id:
        return None
    if model in eng.adapters:
        return model
    known = ", ".join([eng.model_id, *eng.adapters])
    raise UnknownAdapter(f"The model {model!r} does not exist; available: {known}.", param="model")


def _params(data: dict):
    given = {}
    if "max_completion_tokens" in data or "max_tokens" in data:
        given["max_new_tokens"] = data.get("max_completion_tokens", data.get("max_tokens"))
    temperature = data.get("temperature", 1.0)  # OpenAI's default: sampling at temperature 1
    if temperature > 0:
        given.update(do_sample=True, temperature=temperature)
        for key in ("top_p", "seed"):
            if key in data:
                given[key] = data[key]
    if "stop" in data:
        given["stop"] = data["stop"]
    return sampling_for(given, {})


@bp.post("/chat/completions")
def chat_completions():
    data = current_app.extensions["openai_schemas"].load_chat(read_json())
    eng = engine()
    eng.require_ready()
    adapter = _adapter_for(data["model"])
    params = _params(data)
    system = "\n\n".join(m["content"] for m in data["messages"] if m["role"] in ("system", "developer"))
    chat = [{"role": m["role"], "content": m["content"]} for m in data["messages"]
            if m["role"] not in ("system", "developer")]
    prompt = prepare(chat, system=system or None, params=params, max_turns=None)
    if data.get("truncation") == "disabled" and prompt.report.dropped:
        raise ContextLengthExceeded(
            f"This model's maximum context length is {prompt.context_window} tokens, and "
            f"{params.max_new_tokens} are reserved for the completion; your messages do not fit "
            f"({prompt.report.dropped} of {prompt.report.received} would have to be dropped). "
            "Shorten the messages or send truncation: \"auto\".", param="messages")
    gen = Generation(prompt, params, adapter)
    ident = f"chatcmpl-{uuid.uuid4().hex}"
    head = {"id": ident, "created": int(time.time()), "model": data["model"]}
    headers = {"X-Mnemo-History-Dropped": str(prompt.report.dropped)}
    mnemo = {"history": prompt.report.as_dict()}

    if not data.get("stream"):
        gen.join()
        body = {**head, "object": "chat.completion", "choices": [{
            "index": 0, "message": {"role": "assistant", "content": gen.text},
            "logprobs": None, "finish_reason": gen.finish_reason}],
            "usage": gen.usage.as_dict(), "mnemo": mnemo}
        return jsonify(body), 200, headers

    include_usage = bool((data.get("stream_options") or {}).get("include_usage"))

    def chunk(delta: dict, finish_reason: str | None = None, **extra) -> str:
        return sse({**head, "object": "chat.completion.chunk", "choices": [{
            "index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}],
            **extra})

    def events():
        try:
            yield chunk({"role": "assistant", "content": ""})
            for piece in gen.chunks():
                if piece.text:
                    yield chunk({"content": piece.text})
            yield chunk({}, gen.finish_reason, mnemo=mnemo)
            if include_usage:
                yield sse({**head, "object": "chat.completion.chunk", "choices": [],
                           "usage": gen.usage.as_dict()})
        except MnemoError as err:  # after the headers went out, errors travel in the stream
            yield sse(error_body(err, openai=True))
        finally:  # also reached when the client disconnects before the first token
            gen.close()
        yield "data: [DONE]\n\n"

    return Response(stream_with_context(events()), mimetype="text/event-stream",
                    headers={**headers, "Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
