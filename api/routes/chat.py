"""The native API: ``POST /api/chat`` (optionally streamed as SSE) and ``/api/chat/preview``."""

from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify, stream_with_context

from ..chat_defaults import DEFAULT_MAX_TURNS
from ..errors import error_body
from ..exceptions import MnemoError
from ..presets import PRESETS
from ..service import Generation, engine, prepare, read_json, sampling_for, sse, system_prompt

bp = Blueprint("chat", __name__, url_prefix="/api")

_GENERATION_KEYS = frozenset({
    "max_new_tokens", "do_sample", "temperature", "top_p", "top_k", "seed", "num_beams",
    "length_penalty", "early_stopping", "repetition_penalty", "no_repeat_ngram_size", "stop"})


def _parse(with_text: bool = False):
    data = current_app.extensions["schemas"].load_chat(read_json())
    eng = engine()
    eng.require_ready()
    eng.check_adapter(data.get("adapter"))
    template = data.get("template")
    given = {k: data[k] for k in data if k in _GENERATION_KEYS}
    params = sampling_for(given, PRESETS[template or "default"].generation)
    prompt = prepare(data["messages"], system=system_prompt(template, data.get("system")),
                     params=params, max_turns=data.get("max_turns", DEFAULT_MAX_TURNS),
                     with_text=with_text)
    return data, params, prompt


def _summary(data: dict, gen: Generation) -> dict:
    body = {
        "model": data.get("adapter") or engine().model_id,
        "message": {"role": "assistant", "content": gen.text},
        "finish_reason": gen.finish_reason,
        "usage": gen.usage.as_dict(),
        "history": gen.prompt.report.as_dict(),
    }
    if "conversation_id" in data:
        body["conversation_id"] = data["conversation_id"]
    return body


@bp.post("/chat")
def chat():
    data, params, prompt = _parse()
    gen = Generation(prompt, params, data.get("adapter"))
    if not data.get("stream"):
        return jsonify(_summary(data, gen.join()))

    def events():
        try:
            for chunk in gen.chunks():
                if chunk.text:
                    yield sse({"content": chunk.text}, event="delta")
            yield sse(_summary(data, gen), event="done")
        except MnemoError as err:  # after the headers went out, errors travel as an event
            yield sse(error_body(err, openai=False), event="error")
        finally:  # also reached when the client disconnects before the first token
            gen.close()

    return Response(stream_with_context(events()), mimetype="text/event-stream",
                    headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


@bp.post("/chat/preview")
def preview():
    data, params, prompt = _parse(with_text=True)
    body = {
        "prompt": prompt.text,
        "prompt_tokens": len(prompt.ids),
        "max_new_tokens": params.max_new_tokens,
        "context_window": prompt.context_window,
        "history": prompt.report.as_dict(),
    }
    if "conversation_id" in data:
        body["conversation_id"] = data["conversation_id"]
    return jsonify(body)
