"""Request schemas (marshmallow) and the checks that span fields.

Limits come from the settings, so schemas are built per app by ``Schemas(settings)``. Unknown
fields are rejected, never ignored. Every failure becomes a ValidationFailed whose ``fields``
map dotted paths (``messages.2.role``) to messages a person can act on.
"""

from __future__ import annotations

import functools

from marshmallow import RAISE, Schema, ValidationError, fields, validate, validates_schema

from .chat_defaults import DEFAULT_MAX_TURNS
from .config import Settings
from .exceptions import ValidationFailed
from .types import SamplingParams

GENERATION_KEYS = frozenset({
    "max_new_tokens", "do_sample", "temperature", "top_p", "top_k", "seed", "num_beams",
    "length_penalty", "early_stopping", "repetition_penalty", "no_repeat_ngram_size", "stop"})
SAMPLING_ONLY = ("temperature", "top_p", "top_k", "seed")
BEAM_ONLY = ("length_penalty", "early_stopping")


class StopField(fields.Field):
    """A stop sequence: one string or a list of up to four."""

    def _deserialize(self, value, attr, data, **kwargs):
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list) or not all(isinstance(s, str) for s in items):
            raise ValidationError("Must be a string or a list of strings.")
        if len(items) > 4:
            raise ValidationError("At most 4 stop sequences are allowed.")
        if any(not s or len(s) > 100 for s in items):
            raise ValidationError("Each stop sequence must be 1 to 100 characters long.")
        return tuple(items)


class StrictBoolean(fields.Boolean):
    """JSON true or false only: marshmallow's Boolean would also take 1, "yes" or "on"."""

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, bool):
            raise self.make_error("invalid")
        return value


class StrictInteger(fields.Integer):
    """A JSON integer; not a boolean, a string or a float."""

    def __init__(self, **kwargs):
        super().__init__(strict=True, **kwargs)

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, bool):
            raise self.make_error("invalid")
        return super()._deserialize(value, attr, data, **kwargs)


class StrictFloat(fields.Float):
    """A JSON number; not a boolean or a numeric string."""

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.make_error("invalid")
        return super()._deserialize(value, attr, data, **kwargs)


NOT_BLANK = r"\S"  # documented as a pattern; enforced by not_blank


def not_blank(value: str) -> None:
    if not value.strip():
        raise ValidationError("Must not be empty or only whitespace.")


def generation_fields(settings: Settings) -> dict:
    """Fields for the generation parameters, shared by the native schema."""
    def d(text: str) -> dict:
        return {"description": text}

    return {
        "max_new_tokens": StrictInteger(
            validate=validate.Range(1, settings.max_new_tokens_limit),
            metadata=d("Most tokens to generate; reserved before any history is kept. "
                       f"Default {settings.default_max_new_tokens}.")),
        "do_sample": StrictBoolean(metadata=d("Sample instead of greedy decoding.")),
        "temperature": StrictFloat(validate=validate.Range(0, 5, min_inclusive=False),
                                   metadata=d("Sampling only; below 1e-5 it decodes greedily.")),
        "top_p": StrictFloat(validate=validate.Range(0, 1, min_inclusive=False),
                             metadata=d("Sampling only: nucleus mass.")),
        "top_k": StrictInteger(validate=validate.Range(0, 1_000_000),
                               metadata=d("Sampling only; 0 turns it off.")),
        "seed": StrictInteger(validate=validate.Range(0, 2**63 - 1),
                              metadata=d("Sampling only: makes the reply reproducible.")),
        "num_beams": StrictInteger(validate=validate.Range(1, 8),
                                   metadata=d("Beam search when above 1 (not with sampling).")),
        "length_penalty": StrictFloat(validate=validate.Range(-10, 10),
                                      metadata=d("Beam search only: above 0 favours longer "
                                                 "answers.")),
        "early_stopping": StrictBoolean(metadata=d("Beam search only.")),
        "repetition_penalty": StrictFloat(validate=validate.Range(0, 10, min_inclusive=False)),
        "no_repeat_ngram_size": StrictInteger(validate=validate.Range(0, 20)),
        "stop": StopField(metadata=d("Up to 4 strings; generation ends before the first match.")),
    }


def sampling_params(given: dict, defaults: dict, default_max_new_tokens: int) -> SamplingParams:
    """Merge request parameters over preset defaults and reject contradictions."""
    merged = dict(defaults)
    if given.get("do_sample") and "num_beams" not in given:
        for key in ("num_beams", *BEAM_ONLY):  # a preset's beam search gives way to sampling
            merged.pop(key, None)
    merged.update(given)
    errors: dict[str, list[str]] = {}
    sampling = merged.get("do_sample", False)
    beams = merged.get("num_beams", 1)
    if not sampling:
        for key in SAMPLING_ONLY:
            if key in given:
                errors[key] = [f"{key} only applies when sampling; set do_sample to true "
                               f"or leave {key} out."]
    if sampling and beams > 1:
        errors["num_beams"] = ["Beam search cannot be combined with sampling (do_sample)."]
    if beams == 1:
        for key in BEAM_ONLY:
            if key in given:
                errors[key] = [f"{key} only applies to beam search; set num_beams above 1 "
                               f"or leave {key} out."]
    if errors:
        raise ValidationFailed(_sentence(errors), fields=errors, param=next(iter(errors)))
    merged.setdefault("max_new_tokens", default_max_new_tokens)
    return SamplingParams(**merged)


def summary_schema(settings: Settings) -> type[Schema]:
    """A rolling summary as the client sends it back: text, how many leading messages it
    replaces, and the server's signature (absent or null when the client wrote or edited it)."""
    return _summary_schema(settings.max_message_chars, settings.max_messages)


@functools.lru_cache(maxsize=8)  # one class per limits: both APIs document the same schema
def _summary_schema(max_chars: int, max_messages: int) -> type[Schema]:
    return Schema.from_dict({
        "text": fields.String(required=True, validate=[validate.Length(max=max_chars), not_blank],
                              metadata={"pattern": NOT_BLANK}),
        "covers": StrictInteger(required=True, validate=validate.Range(0, max_messages),
                                metadata={"description": "How many leading messages it "
                                                         "replaces."}),
        "signature": fields.String(allow_none=True, validate=validate.Length(max=200),
                                   metadata={"description": "As the server returned it."}),
        "kept": fields.List(StrictInteger(validate=validate.Range(0, max_messages)),
                            validate=validate.Length(max=max_messages), metadata={
                                "description": "Messages within covers it does not stand in for "
                                               "(pinned when it was made); kept verbatim."}),
    }, name="SummaryInput")


def check_covers(summary: dict | None, messages: list[dict]) -> None:
    """A summary leaves the latest message and covers whole exchanges only."""
    if not summary or not messages:
        return
    covers = summary["covers"]
    if covers >= len(messages):
        raise ValidationError({"covers": ["A summary cannot cover the latest message: covers "
                                          f"must be below {len(messages)}."]}, "summary")
    if covers and messages[covers]["role"] != "user":
        raise ValidationError({"covers": [f"A summary covers whole exchanges: message {covers} "
                                          "(the first one it leaves) must be a user message."]},
                              "summary")


class _ChatBase(Schema):
    class Meta:
        unknown = RAISE

    @validates_schema
    def _last_is_user(self, data, **kwargs):
        messages = data.get("messages") or []
        if messages and messages[-1]["role"] != "user":
            raise ValidationError(
                "The last message must come from the user: it is what the model answers.",
                field_name="messages")
        check_covers(data.get("summary"), messages)


class Schemas:
    """The request schemas for one app, with its configured limits and presets."""

    def __init__(self, settings: Settings, presets: dict):
        self.settings = settings
        self.presets = presets
        limit = settings.max_message_chars
        message = Schema.from_dict({
            "role": fields.String(required=True, validate=validate.OneOf(["user", "assistant"])),
            "content": fields.String(required=True, validate=[validate.Length(max=limit), not_blank],
                                     metadata={"pattern": NOT_BLANK}),
            "pinned": StrictBoolean(metadata={"description": "Kept whatever the trim; never "
                                                             "folded into a summary."}),
        }, name="Message")
        self.summary = summary_schema(settings)
        self.chat = _ChatBase.from_dict({
            "messages": fields.List(
                fields.Nested(message), required=True,
                validate=validate.Length(1, settings.max_messages),
                metadata={"description": "The whole conversation, oldest first, ending with the "
                                         "user's new message. The server keeps nothing."}),
            "system": fields.String(validate=validate.Length(max=limit), allow_none=True,
                                    metadata={"description": "System prompt; never trimmed."}),
            "template": fields.String(validate=validate.OneOf(list(presets)),
                                      metadata={"description": "A preset: instruction and "
                                                               "generation defaults."}),
            "max_turns": StrictInteger(
                validate=validate.Range(1, settings.max_messages),
                metadata={"description": "Keep at most this many recent exchanges. Default "
                                         f"{DEFAULT_MAX_TURNS}."}),
            "adapter": fields.String(allow_none=True,
                                     metadata={"description": "A configured LoRA adapter."}),
            "conversation_id": fields.String(validate=validate.Length(max=200),
                                             metadata={"description": "Echoed back; not stored."}),
            "stream": StrictBoolean(metadata={"description": "Stream the reply as server-sent "
                                                              "events."}),
            "summary": fields.Nested(self.summary, allow_none=True, metadata={
                "description": "The rolling summary the server returned last (or one the client "
                               "wrote: unsigned, it is placed as plain context)."}),
            "compact": StrictBoolean(metadata={"description": "Summarise the oldest exchanges "
                                                              "after the reply when the history "
                                                              "nears its budget. Default: the "
                                                              "preset's (on)."}),
            "recall": StrictBoolean(metadata={"description": "Fill part of the budget with the "
                                                             "older exchanges most relevant to the "
                                                             "new message. Default: the preset's "
                                                             "(off)."}),
            **generation_fields(settings),
        }, name="ChatRequest")()

        self.summarize = Schema.from_dict({
            "messages": fields.List(fields.Nested(message), required=True,
                                    validate=validate.Length(1, settings.max_messages)),
            "summary": fields.Nested(self.summary, allow_none=True,
                                     metadata={"description": "The summary to extend."}),
            "covers": StrictInteger(validate=validate.Range(1, settings.max_messages), metadata={
                "description": "Fold the messages before this index (default: all of them)."}),
            "template": fields.String(validate=validate.OneOf(list(presets)),
                                      metadata={"description": "Whose summary instruction."}),
        }, name="SummarizeRequest")()

    def load_summarize(self, body: object) -> dict:
        """Validate a summarize request: the range to fold is whole exchanges past the summary."""
        from .memory.summary import Summary

        data = load(self.summarize, body, self.settings.max_messages)
        messages, summary = data["messages"], data.get("summary")
        covers = data.get("covers", len(messages))
        errors = {}
        start = summary["covers"] if summary else 0
        if covers > len(messages):
            errors["covers"] = [f"There are only {len(messages)} messages."]
        elif covers <= start:
            errors["covers"] = [f"Must be above what the summary already covers ({start})."]
        elif covers < len(messages) and messages[covers]["role"] != "user":
            errors["covers"] = [f"A summary covers whole exchanges: message {covers} must be a "
                                "user message."]
        if start and (start >= len(messages) or messages[start]["role"] != "user"):
            errors["summary.covers"] = ["Must end on a whole exchange within the messages."]
        if errors:
            raise ValidationFailed(_sentence(errors), fields=errors, param=next(iter(errors)))
        return {"messages": messages, "covers": covers, "preset": self.presets[
            data.get("template") or "default"], "summary": Summary.from_request(summary)}

    def load_chat(self, body: object):
        """Validate a native chat request into a ChatRequest; raise ValidationFailed naming
        each bad field, or PresetLocked."""
        from .chat_request import resolve
        from .memory.summary import Summary

        data = load(self.chat, body, self.settings.max_messages)
        preset = self.presets[data.get("template") or "default"]
        summary = data.get("summary")
        return resolve(
            preset, sent=data, generation={k: v for k, v in data.items() if k in GENERATION_KEYS},
            max_new_tokens_limit=self.settings.max_new_tokens_limit,
            default_max_new_tokens=self.settings.default_max_new_tokens,
            system=data.get("system"), compact=data.get("compact"), recall=data.get("recall"),
            messages=data["messages"], max_turns=data.get("max_turns", DEFAULT_MAX_TURNS),
            adapter=data.get("adapter"), stream=data.get("stream", False),
            conversation_id=data.get("conversation_id"),
            summary=Summary.from_request(summary))


MAX_ERRORS = 20  # field errors listed in one answer; the message says how many more


def load(schema: Schema, body: object, max_messages: int | None = None) -> dict:
    """Validate ``body``; cheap limits first, so a huge body costs what its size check costs."""
    if not isinstance(body, dict):
        raise ValidationFailed("The request body must be a JSON object.")
    messages = body.get("messages")
    if max_messages is not None and isinstance(messages, list) and len(messages) > max_messages:
        why = f"At most {max_messages} messages are accepted; this request has {len(messages)}."
        raise ValidationFailed(f"Invalid request. messages: {why}", fields={"messages": [why]},
                               param="messages")
    try:
        return schema.load(body, unknown=RAISE)
    except ValidationError as err:
        flat = flatten(err.messages)
        shown = dict(list(flat.items())[:MAX_ERRORS])
        if len(flat) > MAX_ERRORS:
            shown["body"] = [f"... and {len(flat) - MAX_ERRORS} more invalid fields."]
        raise ValidationFailed(_sentence(flat), fields=shown, param=next(iter(flat), None)) from None


def flatten(messages, prefix: str = "") -> dict[str, list[str]]:
    """Turn marshmallow's nested error dict into ``{"messages.2.role": [...]}``."""
    out: dict[str, list[str]] = {}
    if isinstance(messages, dict):
        for key, value in messages.items():
            path = f"{prefix}.{key}" if prefix else str(key)
            if key == "_schema":
                path = prefix or "body"
            for sub, msgs in flatten(value, path).items():
                out.setdefault(sub, []).extend(msgs)
    elif isinstance(messages, list) and all(isinstance(m, str) for m in messages):
        out[prefix or "body"] = [_humanise(m) for m in messages]
    else:
        out[prefix or "body"] = [str(messages)]
    return out


def _humanise(message: str) -> str:
    if message == "Unknown field.":
        return "Unknown field: this server does not support it."
    return message


def _sentence(errors: dict[str, list[str]]) -> str:
    parts = [f"{path}: {' '.join(msgs).rstrip('.')}" for path, msgs in list(errors.items())[:5]]
    more = len(errors) - 5
    return "Invalid request. " + "; ".join(parts) + (f"; and {more} more" if more > 0 else "") + "."

