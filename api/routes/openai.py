"""The OpenAI-compatible API: ``POST /v1/chat/completions``, ``GET /v1/models`` and
``GET /v1/models/{model}``.

An adapter is chosen by naming it as ``model`` (as in vLLM). History that does not fit the
context is trimmed as on ``/api/chat`` and reported in the ``X-Mnemo-History-Dropped`` header
(messages that reached neither the model nor a summary) and a ``mnemo`` response field;
``truncation: "disabled"`` turns that into OpenAI's 400
``context_length_exceeded`` instead. Memory (pins, summary, compaction, recall, preset) comes
through the ``mnemo`` extension object, which the official SDKs send with ``extra_body``.
"""

from __future__ import annotations

import functools
import time
import uuid
from collections.abc import Callable
from types import SimpleNamespace

from flask import Blueprint, current_app, jsonify

from ..errors import error_body
from ..exceptions import ContextLengthExceeded, UnknownAdapter
from ..openai_schema import tool_choice
from ..service import (
    Generation,
    after_reply,
    engine,
    event_stream,
    generations,
    merged,
    prepare,
    read_json,
    sse,
    tokenizer,
)
from ..tools import CallRepeats, calls_so_far, could_be_call, parse_calls
from ..types import TokenLogprob, Usage

bp = Blueprint("openai", __name__, url_prefix="/v1")

CREATED = int(time.time())


def _model_entry(model_id: str, parent: str | None = None) -> dict:
    entry = {"id": model_id, "object": "model", "created": CREATED, "owned_by": "mnemo"}
    if parent:
        entry["parent"] = parent
    return entry


def _served() -> dict[str, dict]:
    """The model and its adapters, by id, as OpenAI lists them."""
    eng = engine()
    eng.require_ready()
    # max_model_len as vLLM lists it: what a front (MNEMO_ENGINE_URL) budgets prompts by
    served = {eng.model_id: {**_model_entry(eng.model_id), "max_model_len": eng.context_window}}
    return served | {a: _model_entry(a, eng.model_id) for a in eng.adapters}


@bp.get("/models")
def models():
    return jsonify({"object": "list", "data": list(_served().values())})


@bp.get("/models/<path:model>")  # a hub id holds a slash ("org/name")
def model_entry(model: str):
    """One of them (the SDKs' ``models.retrieve``); an unknown id is OpenAI's 404."""
    served = _served()
    if model not in served:
        raise UnknownAdapter(f"The model {model!r} does not exist; available: "
                             f"{', '.join(served)}.")
    return jsonify(served[model])


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
    gens = generations(prepared, req.params, data.get("n", 1))
    logprobs = functools.partial(_logprobs, asked=req.params.logprobs is not None)
    head = {"id": f"chatcmpl-{uuid.uuid4().hex}", "created": int(time.time()), "model": req.model}
    headers = {"X-Mnemo-History-Dropped": str(history["lost"])}

    def extension() -> dict:  # the conversation's next turn builds on the first choice
        return {"history": prepared.history(), **after_reply(req, prepared, gens[0])}

    def usage() -> dict:  # the prompt once, every choice's tokens
        return Usage(gens[0].usage.prompt_tokens,
                     sum(g.usage.completion_tokens for g in gens)).as_dict()

    tools = data.get("tools") if tool_choice(data) != "none" else None
    parallel, required = data.get("parallel_tool_calls", True), tool_choice(data) != "auto"

    def repeats() -> Callable[[str], bool]:  # valid calls written again: the reply ends there
        repeated = CallRepeats()
        return lambda text: repeated(text) and parse_calls(
            repeated.array(), tools, parallel, required) is not None

    if tools:
        for gen in gens:
            gen.ends_at = repeats()

    def calls(gen: Generation, text: str) -> list[dict] | None:
        """The reply's tool calls: a whole call of the tools offered; one that ended where it
        repeated a call; or, shaped by a required call's grammar, the calls it wrote whole
        before the token limit cut it (its finish_reason stays "length")."""
        if not tools or gen.finish_reason not in ("stop", "length"):
            return None
        cut = gen.ended_early or (required and gen.finish_reason == "length")
        return parse_calls(calls_so_far(text) if cut else text, tools, parallel, required)

    if not req.stream:
        choices = []
        for i, gen in enumerate(gens):
            gen.join()
            called = calls(gen, gen.text)
            message = {"role": "assistant", "content": None, "tool_calls": called} if called \
                else {"role": "assistant", "content": gen.text}
            choices.append({"index": i, "message": message, "logprobs": logprobs(gen.logprobs),
                            "finish_reason": "tool_calls" if called and gen.finish_reason == "stop"
                            else gen.finish_reason})
        body = {**head, "object": "chat.completion", "choices": choices, "usage": usage(),
                "mnemo": extension()}
        return jsonify(body), 200, headers

    include_usage = bool((data.get("stream_options") or {}).get("include_usage"))

    def chunk(i: int, delta: dict, finish_reason: str | None = None, tokens=(), **extra) -> str:
        return sse({**head, "object": "chat.completion.chunk", "choices": [{
            "index": i, "delta": delta, "logprobs": logprobs(tokens) if tokens else None,
            "finish_reason": finish_reason}], **extra})

    def events():
        for i in range(len(gens)):
            yield chunk(i, {"role": "assistant", "content": ""})
        left = len(gens)
        # With tools, a reply that may still be a call is held back until it is known
        held = {i: ("", []) for i in range(len(gens))} if tools else {}
        for i, piece in merged(gens):
            text, tokens, finish = piece.text, piece.logprobs, piece.finish_reason
            if i in held:
                text, tokens = held[i][0] + text, held[i][1] + tokens
                if could_be_call(text) and finish is None:
                    held[i] = (text, tokens)
                    yield ": held\n\n"  # a comment: writing finds a client that has gone
                    continue
                del held[i]
                called = calls(gens[i], text)
                if called:
                    yield chunk(i, {"tool_calls": [
                        {"index": k, **call} for k, call in enumerate(called)]}, tokens=tokens)
                    text, tokens = "", []
                    finish = "tool_calls" if finish == "stop" else finish
            if text or tokens:
                yield chunk(i, {"content": text}, tokens=tokens)
            if finish is not None:
                left -= 1
                if left:  # the last choice to end carries the memory report
                    yield chunk(i, {}, finish)
                else:
                    yield chunk(i, {}, finish, mnemo=extension())
        if include_usage:
            yield sse({**head, "object": "chat.completion.chunk", "choices": [], "usage": usage()})

    every = SimpleNamespace(close=lambda: [gen.close() for gen in gens])
    return event_stream(events(), every, lambda err: sse(error_body(err, openai=True)),
                        trailer="data: [DONE]\n\n", headers=headers)


def _logprobs(tokens: list[TokenLogprob], asked: bool) -> dict | None:
    """OpenAI's ``logprobs`` of a choice: each token's text, bytes and log-probability, and its
    most likely alternatives (``top_logprobs``)."""
    if not asked:
        return None
    ids = sorted({t.token for t in tokens} | {i for t in tokens for i, _ in t.top})
    raw = dict(zip(ids, tokenizer().token_bytes(ids), strict=True))

    def entry(token: int, logprob: float) -> dict:
        return {"token": raw[token].decode("utf-8", "backslashreplace"), "logprob": logprob,
                "bytes": list(raw[token])}

    return {"content": [{**entry(t.token, t.logprob),
                         "top_logprobs": [entry(i, lp) for i, lp in t.top]} for t in tokens],
            "refusal": None}
