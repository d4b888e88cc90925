"""The protocols remote engines speak, one class each: what to send for a prompt of token ids,
how to read the stream back, how to tokenize a probe and what the remote serves.

- ``OpenAIWire``: ``POST /v1/completions`` with ``prompt`` as token ids, streamed with usage,
  ``POST /tokenize``, ``GET /v1/models`` (vLLM, SGLang, another Mnemo). An adapter is named
  as the model, as vLLM serves LoRA adapters (``--lora-modules name=path``).
- ``LlamaCppWire``: llama.cpp's ``llama-server`` (``POST /completion``, ``/tokenize``,
  ``/props``, ``/lora-adapters``). An adapter is chosen per request by its scale; every other
  adapter the server loaded gets scale 0, the base model all of them at 0.

Sampling is sent whole, never left to the remote's defaults (llama.cpp samples with top-k 40,
top-p 0.95 and min-p 0.05 unless told otherwise): greedy is temperature 0 on both.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import PurePath

from ..types import SamplingParams, TokenLogprob


@dataclass(frozen=True)
class Served:
    """What a remote engine serves: its model's name, context window and adapters."""

    model: str
    context_window: int | None
    adapters: dict[str, object]  # the name a client uses -> what the protocol sends
    detail: str = ""  # how its model is described (a path), for messages


@dataclass
class Piece:
    """One event of a remote stream."""

    text: str = ""
    finish_reason: str | None = None
    completion_tokens: int | None = None
    error: str | None = None
    logprobs: list[TokenLogprob] = field(default_factory=list)


def _token_id(name: str) -> int:
    if not name.startswith("token_id:"):
        raise ValueError(f"a token not named by its id: {name[:40]!r}")
    return int(name[9:])


def _token_logprobs(legacy: object) -> list[TokenLogprob]:
    """OpenAI's completions ``logprobs`` with ``return_tokens_as_token_ids`` (vLLM) as
    TokenLogprobs; nothing when the engine sent none."""
    if not legacy:
        return []
    tops = legacy.get("top_logprobs") or [None] * len(legacy["tokens"])
    out = []
    for name, lp, top in zip(legacy["tokens"], legacy["token_logprobs"], tops, strict=True):
        ranked = sorted(((_token_id(k), float(v)) for k, v in (top or {}).items()),
                        key=lambda kv: -kv[1])
        out.append(TokenLogprob(_token_id(name), float(lp), tuple(ranked)))
    return out


def _data_lines(lines: Iterable[str]) -> Iterator[dict | str]:
    """Server-sent events' payloads: a dict, or "[DONE]"; an ``error:`` event as an error."""
    for line in lines:
        if line.startswith("data:"):
            data = line[5:].strip()
            if data == "[DONE]":
                yield data
                return
            if data:
                event = json.loads(data)
                if not isinstance(event, dict):
                    raise ValueError(f"a stream event is not a JSON object: {data[:80]!r}")
                yield event
        elif line.startswith("error:"):  # llama.cpp's event for a failure mid-stream
            yield {"error": json.loads(line[6:].strip() or "{}")}


def _error_text(error: object) -> str:
    if isinstance(error, dict):
        return str(error.get("message") or error)
    return str(error)


class _Wire:
    name = ""
    health_path = "/health"

    def pieces(self, lines: Iterable[str]) -> Iterator[Piece]:
        """The stream's events as Pieces; an error event ends it."""
        for event in _data_lines(lines):
            if event == "[DONE]":
                return
            if "error" in event:
                yield Piece(error=_error_text(event["error"]))
                return
            yield self._piece(event)

    def _piece(self, event: dict) -> Piece:
        raise NotImplementedError


class OpenAIWire(_Wire):
    name = "openai"
    completion_path = "/v1/completions"

    def body(self, ids: list[int], params: SamplingParams, served: Served,
             adapter: str | None) -> dict:
        body = {"model": served.adapters[adapter] if adapter else served.model, "prompt": ids,
                "max_tokens": params.max_new_tokens, "stream": True,
                "stream_options": {"include_usage": True},
                "temperature": params.temperature if params.do_sample else 0}
        if params.do_sample:
            if params.top_p < 1:
                body["top_p"] = params.top_p
            if params.top_k > 0:
                body["top_k"] = params.top_k
            if params.seed is not None:
                body["seed"] = params.seed
        if params.stop:
            body["stop"] = list(params.stop)
        if params.repetition_penalty != 1:
            body["repetition_penalty"] = params.repetition_penalty
        for name in ("presence_penalty", "frequency_penalty"):  # over the reply, as here
            if getattr(params, name):
                body[name] = getattr(params, name)
        if params.logprobs is not None:  # each token named by its id, as this front needs
            body.update(logprobs=params.logprobs, return_tokens_as_token_ids=True)
        if params.json_schema:  # vLLM and SGLang constrain a completion as a chat reply
            body["response_format"] = {"type": "json_schema", "json_schema": {
                "name": "reply", "schema": json.loads(params.json_schema), "strict": True}}
        return body

    def _piece(self, event: dict) -> Piece:
        piece = Piece()
        for choice in event.get("choices") or ():
            text = choice.get("text") or "" if isinstance(choice, dict) else None
            if not isinstance(text, str):
                raise ValueError(f"a choice is not a completion choice: {str(choice)[:80]!r}")
            piece.text += text
            piece.finish_reason = choice.get("finish_reason") or piece.finish_reason
            piece.logprobs += _token_logprobs(choice.get("logprobs"))
        if event.get("usage"):
            piece.completion_tokens = event["usage"].get("completion_tokens")
        return piece

    def tokenize_request(self, text: str, served: Served | None) -> tuple[str, dict]:
        body = {"prompt": text, "add_special_tokens": False}
        if served is not None:
            body["model"] = served.model
        return "/tokenize", body

    def describe(self, get) -> Served:
        models = get("/v1/models").get("data") or []
        if not models:
            raise ValueError("its /v1/models lists no model")
        base = next((m for m in models if not m.get("parent")), models[0])
        adapters = {m["id"]: m["id"] for m in models
                    if m is not base and m.get("parent") in (base["id"], base.get("root"))}
        return Served(base["id"], base.get("max_model_len"), adapters,
                      str(base.get("root") or base["id"]))


class LlamaCppWire(_Wire):
    name = "llama.cpp"
    completion_path = "/completion"

    def body(self, ids: list[int], params: SamplingParams, served: Served,
             adapter: str | None) -> dict:
        sampling = params.do_sample
        body = {"prompt": ids, "n_predict": params.max_new_tokens, "stream": True,
                "cache_prompt": True,
                "temperature": params.temperature if sampling else 0,
                "top_k": params.top_k if sampling else 0,
                "top_p": params.top_p if sampling else 1, "min_p": 0,
                # llama.cpp keeps a seed's low 32 bits, and 0xFFFFFFFF means "random": a seed
                # is folded below that, so every seed reproduces
                "seed": params.seed % 0xFFFFFFFF if sampling and params.seed is not None else -1,
                "stop": list(params.stop)}
        if params.repetition_penalty != 1:  # over the whole context, as transformers does
            # (this llama-server refuses -1, "the context size": the request's own length is it)
            body.update(repeat_penalty=params.repetition_penalty,
                        repeat_last_n=len(ids) + params.max_new_tokens)
        if params.json_schema:  # llama-server turns it into a GBNF grammar
            body["json_schema"] = json.loads(params.json_schema)
        if served.adapters:
            chosen = served.adapters.get(adapter) if adapter else None
            body["lora"] = [{"id": i, "scale": 1.0 if i == chosen else 0.0}
                            for i in served.adapters.values()]
        return body

    def _piece(self, event: dict) -> Piece:
        text = event.get("content") or ""
        if not isinstance(text, str):
            raise ValueError(f"content is not text: {str(text)[:80]!r}")
        piece = Piece(text=text)
        if event.get("stop"):
            piece.finish_reason = "length" if event.get("stop_type") == "limit" else "stop"
            piece.completion_tokens = event.get("tokens_predicted")
        return piece

    def tokenize_request(self, text: str, served: Served | None) -> tuple[str, dict]:
        return "/tokenize", {"content": text, "add_special": False, "parse_special": True}

    def describe(self, get) -> Served:
        props = get("/props")
        settings = props.get("default_generation_settings") or {}
        path = str(props.get("model_path") or "")
        try:
            models = get("/v1/models").get("data") or []
        except ValueError:
            models = []
        name = models[0]["id"] if models else PurePath(path).stem or "llama.cpp"
        try:
            loras = get("/lora-adapters")
        except ValueError:
            loras = []
        adapters = {PurePath(a["path"]).stem: a["id"] for a in loras if isinstance(a, dict)}
        return Served(name, settings.get("n_ctx"), adapters, path)


WIRES = {"openai": OpenAIWire, "llama.cpp": LlamaCppWire}
