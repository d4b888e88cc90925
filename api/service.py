"""What every chat surface does between parsing a request and shaping a reply.

Both the native API and the OpenAI-compatible one come through here: read the JSON body, build
the prompt (trim + render), submit it to the engine, and stream the Chunks back, cancelling the
generation when the client goes away.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

from flask import current_app, request

from .engine import Engine, Handle
from .exceptions import MnemoError, ValidationFailed
from .presets import PRESETS
from .schemas import sampling_params
from .types import Chunk, Prompt, SamplingParams, Usage


def engine() -> Engine:
    return current_app.extensions["engine"]


def read_json() -> object:
    """Parse the body as JSON with messages a client can act on (415, 400)."""
    if not request.is_json:
        err = MnemoError("Send the body as JSON with 'Content-Type: application/json'.")
        err.status, err.code, err.openai_type = 415, "unsupported_media_type", "invalid_request_error"
        raise err
    raw = request.get_data(cache=True)
    try:
        return json.loads(raw)
    except RecursionError:
        raise ValidationFailed("The JSON body is nested too deeply.") from None
    except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError
        raise ValidationFailed(f"The body is not valid JSON: {exc}.") from None


def system_prompt(template: str | None, system: str | None) -> str | None:
    """Combine a preset's instruction with the request's own system prompt."""
    preset = PRESETS[template or "default"]
    parts = [p for p in (preset.system, system) if p]
    return "\n\n".join(parts) or None


def sampling_for(given: dict, preset_defaults: dict) -> SamplingParams:
    """Resolve a request's generation parameters over its preset and the server default."""
    settings = current_app.config["MNEMO"]
    defaults = dict(preset_defaults)
    if "max_new_tokens" in defaults:  # a preset never asks for more than this server allows
        defaults["max_new_tokens"] = min(defaults["max_new_tokens"], settings.max_new_tokens_limit)
    return sampling_params(given, defaults, settings.default_max_new_tokens)


def prepare(messages: list[dict], *, system: str | None, params: SamplingParams,
            max_turns: int | None, with_text: bool = False) -> Prompt:
    """Trim and render; the output budget is reserved before any history is kept."""
    return engine().build_prompt(messages, system=system, max_new_tokens=params.max_new_tokens,
                                 max_turns=max_turns, with_text=with_text)


class Generation:
    """One submitted generation, consumed once as a stream or joined into a whole reply."""

    def __init__(self, prompt: Prompt, params: SamplingParams, adapter: str | None):
        self.prompt = prompt
        self.handle: Handle = engine().submit(prompt.ids, params, adapter)
        self.text = ""
        self.finish_reason: str | None = None
        self.usage = Usage(prompt_tokens=len(prompt.ids))
        self._metrics = current_app.extensions["metrics"]
        self._recorded = False

    def chunks(self) -> Iterator[Chunk]:
        """Yield the Chunks; closing this generator early cancels the generation."""
        try:
            for chunk in self.handle:
                self.text += chunk.text
                if chunk.finish_reason is not None:
                    self.finish_reason, self.usage = chunk.finish_reason, chunk.usage
                yield chunk
        finally:
            self.close()

    def close(self) -> None:
        """Stop the generation unless it already finished (the client went away); record it."""
        if self.finish_reason is None:
            self.handle.cancel()
        if self._recorded:
            return
        self._recorded = True
        h = self.handle
        now = time.monotonic()
        self._metrics.observe_generation(
            len(self.prompt.ids), self.usage.completion_tokens, self.prompt.report.dropped,
            None if h.first_token_at is None else h.first_token_at - h.submitted_at,
            now - h.submitted_at)

    def join(self) -> Generation:
        """Run the stream to its end: the non-streaming reply is the joined stream."""
        for _chunk in self.chunks():
            pass
        return self


def sse(data: object, event: str | None = None) -> str:
    """Format one server-sent event."""
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data, ensure_ascii=False)}\n\n"
