"""Mnemo as an engine: OpenAI's ``POST /v1/completions`` (a prompt as text or token ids, no
chat template, no memory), and vLLM's ``POST /tokenize`` and ``/detokenize``.

This is what one Mnemo fronting another calls (``MNEMO_ENGINE_URL``), and what clients of the
completions API use. A text prompt is tokenized as is, control-token text included, as vLLM
does: this is the raw surface, so it is the chat APIs that keep user text from becoming a
control token. Parameters that would change the reply and are not offered are a 400;
``top_p``, ``top_k`` and ``seed`` are a 400 with greedy decoding (``temperature: 0``), where
they would change nothing.
"""

from __future__ import annotations

import functools
import time
import uuid

from flask import Blueprint, current_app, jsonify
from marshmallow import Schema, ValidationError, fields, validate

from ..errors import error_body
from ..exceptions import ContextLengthExceeded, UnknownAdapter, ValidationFailed
from ..fields import StopField, StrictBoolean, StrictFloat, StrictInteger, load
from ..openai_schema import MAX_TOP_LOGPROBS, rejected
from ..service import Generation, engine, event_stream, read_json, sse, tokenizer
from ..structured import ResponseFormatField
from ..types import SamplingParams, TokenLogprob

bp = Blueprint("completions", __name__)

DEFAULT_MAX_TOKENS = 16  # OpenAI's and vLLM's default for this endpoint


class PromptField(fields.Field):
    """A string, a list of token ids, or a list holding one of either (one prompt only)."""

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, list) and len(value) == 1 and isinstance(value[0], (str, list)):
            value = value[0]
        if isinstance(value, str):
            if not value:
                raise ValidationError("Must not be empty.")
            return value
        if isinstance(value, list) and value and all(
                isinstance(t, int) and not isinstance(t, bool) for t in value):
            return value
        raise ValidationError("Must be a non-empty string or list of token ids (one prompt: "
                              "n and batched prompts are not offered).")


@functools.lru_cache(maxsize=4)
def completion_schema(limit: int) -> Schema:
    """The request, refusing what would change the reply and is not offered (``limit``: the
    server's max_new_tokens_limit)."""
    def only(value, name: str):
        return validate.Equal(value, error=f"{name} is not supported by this server; send "
                                           f"{value!r} or leave it out.")

    return Schema.from_dict({
        "model": fields.String(required=True),
        "prompt": PromptField(required=True),
        "max_tokens": StrictInteger(allow_none=True, validate=validate.Range(1, limit)),
        "temperature": StrictFloat(allow_none=True, validate=validate.Range(0, 2)),
        "top_p": StrictFloat(allow_none=True, validate=validate.Range(0, 1, min_inclusive=False)),
        "top_k": StrictInteger(allow_none=True, validate=validate.Range(-1, 1_000_000)),
        "seed": StrictInteger(allow_none=True, validate=validate.Range(0, 2**63 - 1)),
        "repetition_penalty": StrictFloat(allow_none=True,
                                          validate=validate.Range(0, 10, min_inclusive=False)),
        "stop": StopField(allow_none=True),
        "stream": StrictBoolean(allow_none=True),
        "stream_options": fields.Dict(allow_none=True),
        "n": StrictInteger(allow_none=True, validate=only(1, "n")),
        "best_of": StrictInteger(allow_none=True, validate=only(1, "best_of")),
        "echo": StrictBoolean(allow_none=True, validate=only(False, "echo")),
        # OpenAI's legacy form: each token's log-probability and its k best alternatives
        "logprobs": StrictInteger(allow_none=True, validate=validate.Range(0, MAX_TOP_LOGPROBS)),
        # vLLM's: tokens named "token_id:<id>" (what a Mnemo front asks of a remote)
        "return_tokens_as_token_ids": StrictBoolean(allow_none=True),
        "suffix": rejected("suffix", "insertion is not implemented."),
        "presence_penalty": StrictFloat(allow_none=True, validate=validate.Range(-2, 2)),
        "frequency_penalty": StrictFloat(allow_none=True, validate=validate.Range(-2, 2)),
        "logit_bias": fields.Dict(allow_none=True, validate=validate.Length(
            max=0, error="logit_bias is not supported; send {{}} or leave it out.")),
        "response_format": ResponseFormatField(allow_none=True),
        "user": fields.String(allow_none=True),  # accepted, changes nothing
    }, name="CompletionRequest")()


def _params(data: dict) -> SamplingParams:
    if data.get("stop") and data.get("response_format"):
        raise ValidationFailed("stop: a stop string would cut a completion constrained to JSON "
                               "short of valid; leave out stop or response_format.", param="stop")
    temperature = data.get("temperature", 1.0)
    sampling = temperature > 0
    if not sampling:  # greedy: what would only change a sampled reply is a contradiction
        bad = [k for k in ("top_p", "top_k", "seed") if k in data
               and not (k == "top_p" and data[k] == 1) and not (k == "top_k" and data[k] in (0, -1))]
        if bad:
            errors = {k: [f"{k} only applies when sampling (temperature > 0)."] for k in bad}
            raise ValidationFailed(f"{bad[0]}: only applies when sampling (temperature > 0); "
                                   "leave it out or raise temperature.", fields=errors, param=bad[0])
    return SamplingParams(
        max_new_tokens=data.get("max_tokens", DEFAULT_MAX_TOKENS), do_sample=sampling,
        temperature=temperature if sampling else 1.0,
        top_p=data.get("top_p", 1.0) if sampling else 1.0,
        top_k=max(0, data.get("top_k", 0)) if sampling else 0,
        seed=data.get("seed") if sampling else None,
        repetition_penalty=data.get("repetition_penalty", 1.0), stop=data.get("stop") or (),
        presence_penalty=data.get("presence_penalty", 0.0),
        frequency_penalty=data.get("frequency_penalty", 0.0),
        json_schema=data.get("response_format"), logprobs=data.get("logprobs"))


def _adapter(model: str) -> str | None:
    eng = engine()
    if model == eng.model_id:
        return None
    if model in eng.adapters:
        return model
    known = ", ".join([eng.model_id, *eng.adapters])
    raise UnknownAdapter(f"The model {model!r} does not exist; available: {known}.", param="model")


def _prompt_ids(prompt, context_window: int, max_tokens: int) -> list[int]:
    ids = tokenizer().tokenize(prompt) if isinstance(prompt, str) else prompt
    vocab = tokenizer().vocab_size
    bad = next((t for t in ids if not 0 <= t < vocab), None)
    if bad is not None:
        raise ValidationFailed(f"prompt: token id {bad} is outside the vocabulary (0 to "
                               f"{vocab - 1}).", fields={"prompt": ["Token id out of range."]},
                               param="prompt")
    if len(ids) + max_tokens > context_window:
        raise ContextLengthExceeded(
            f"This model's maximum context length is {context_window} tokens; the prompt has "
            f"{len(ids)} and {max_tokens} are asked for the completion.", param="prompt")
    return ids


@bp.post("/v1/completions")
def completions():
    settings = current_app.config["MNEMO"]
    data = load(completion_schema(settings.max_new_tokens_limit), read_json())
    data = {k: v for k, v in data.items() if v is not None}
    opts = data.get("stream_options") or {}
    if set(opts) - {"include_usage"} or (opts and not data.get("stream")) or not isinstance(
            opts.get("include_usage", False), bool):
        raise ValidationFailed("stream_options: only include_usage, and only with stream: true.",
                               param="stream_options")
    eng = engine()
    eng.require_ready()
    adapter = _adapter(data["model"])
    params = _params(data)
    eng.check_params(params, adapter)
    tokenizer().check_schema(params)
    ids = _prompt_ids(data["prompt"], eng.context_window, params.max_new_tokens)
    gen = Generation(ids, params, adapter)
    head = {"id": f"cmpl-{uuid.uuid4().hex}", "object": "text_completion",
            "created": int(time.time()), "model": data["model"]}

    as_ids = data.get("return_tokens_as_token_ids", False)

    def logprobs(tokens: list, offset: int) -> dict | None:
        return None if params.logprobs is None else _legacy_logprobs(tokens, offset, as_ids)

    if not data.get("stream"):
        gen.join()
        return jsonify({**head, "choices": [{"index": 0, "text": gen.text,
                                              "logprobs": logprobs(gen.logprobs, 0),
                                              "finish_reason": gen.finish_reason}],
                        "usage": gen.usage.as_dict()})

    def chunk(text: str, finish_reason: str | None = None, tokens=(), offset=0) -> str:
        return sse({**head, "choices": [{"index": 0, "text": text,
                                          "logprobs": logprobs(tokens, offset) if tokens else None,
                                          "finish_reason": finish_reason}]})

    def events():
        offset = 0
        for piece in gen.chunks():
            if piece.text or piece.logprobs:
                yield chunk(piece.text, tokens=piece.logprobs, offset=offset)
                offset += len(piece.text)
        yield chunk("", gen.finish_reason)
        if opts.get("include_usage"):
            yield sse({**head, "choices": [], "usage": gen.usage.as_dict()})

    return event_stream(events(), gen, lambda err: sse(error_body(err, openai=True)),
                        trailer="data: [DONE]\n\n")


TOKENIZE = Schema.from_dict({
    "prompt": fields.String(required=True),  # bounded by MNEMO_MAX_REQUEST_BYTES
    "add_special_tokens": StrictBoolean(load_default=True),
    "model": fields.String(),
}, name="TokenizeRequest")()
DETOKENIZE = Schema.from_dict({
    "tokens": fields.List(StrictInteger(validate=validate.Range(min=0)), required=True),
    "model": fields.String(),
}, name="DetokenizeRequest")()


@bp.post("/tokenize")
def tokenize():
    """vLLM's shape: ``{"prompt", "add_special_tokens"?, "model"?}`` -> ``{"tokens", "count",
    "max_model_len"}``; control-token text is read as the control token."""
    body = load(TOKENIZE, read_json())
    eng = engine()
    eng.require_ready()
    if "model" in body:
        _adapter(body["model"])
    ids = tokenizer().tokenize(body["prompt"], add_special=body["add_special_tokens"])
    return jsonify({"tokens": ids, "count": len(ids), "max_model_len": eng.context_window})


@bp.post("/detokenize")
def detokenize():
    body = load(DETOKENIZE, read_json())
    eng = engine()
    eng.require_ready()
    if "model" in body:
        _adapter(body["model"])
    vocab = tokenizer().vocab_size
    if any(t >= vocab for t in body["tokens"]):
        raise ValidationFailed(f"tokens: ids must be below the vocabulary's size, {vocab}.",
                               param="tokens")
    return jsonify({"prompt": tokenizer().detokenize(body["tokens"])})


def _legacy_logprobs(tokens: list[TokenLogprob], offset: int, as_ids: bool) -> dict:
    """OpenAI's completions ``logprobs``: tokens, their log-probabilities, each one's best
    alternatives by token, and where each token's text starts in the completion."""
    ids = sorted({t.token for t in tokens} | {i for t in tokens for i, _ in t.top})
    raw = dict(zip(ids, tokenizer().token_bytes(ids), strict=True))

    def name(i: int) -> str:
        return f"token_id:{i}" if as_ids else raw[i].decode("utf-8", "backslashreplace")

    starts, at = [], offset
    for t in tokens:
        starts.append(at)
        at += len(raw[t.token].decode("utf-8", "ignore"))
    return {"tokens": [name(t.token) for t in tokens],
            "token_logprobs": [t.logprob for t in tokens],
            "top_logprobs": [{name(i): lp for i, lp in t.top} for t in tokens],
            "text_offset": starts}
