"""Field types and generation parameters shared by every request schema (and preset files).

Strict JSON types (``0`` is not ``false``, ``"0.5"`` is not a number), a documented range for
every number, and ``sampling_params``, which merges a request's parameters over a preset's and
refuses contradictions. ``load`` validates a body against a schema, cheap limits first, and turns
marshmallow's errors into ``ValidationFailed`` with dotted field paths.
"""

from __future__ import annotations

import re

from marshmallow import RAISE, Schema, ValidationError, fields, validate

from .config import Settings
from .exceptions import ValidationFailed
from .structured import ResponseFormatField
from .types import SamplingParams

GENERATION_KEYS = frozenset({
    "max_new_tokens", "do_sample", "temperature", "top_p", "top_k", "seed", "num_beams",
    "length_penalty", "early_stopping", "repetition_penalty", "no_repeat_ngram_size",
    "presence_penalty", "frequency_penalty", "echo_penalty", "stop", "response_format"})
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
# What the pattern's \S skips in JSON Schema's (ECMA-262) reading: Python's whitespace, and the
# byte-order mark U+FEFF, which ECMA counts as whitespace and Python does not.
_VISIBLE = re.compile(r"[^\s\ufeff]")


def not_blank(value: str) -> None:
    if not _VISIBLE.search(value):
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
        "presence_penalty": StrictFloat(validate=validate.Range(-2, 2), metadata=d(
            "OpenAI's: subtracted from the logit of each token the reply already holds.")),
        "frequency_penalty": StrictFloat(validate=validate.Range(-2, 2), metadata=d(
            "OpenAI's: subtracted once per time the reply already holds the token.")),
        "echo_penalty": StrictFloat(validate=validate.Range(0, 10, min_inclusive=False), metadata=d(
            "Mnemo's repetition guard: repetition_penalty's rule over the reply's own tokens, "
            "never over the prompt's (whose facts a reply may need to quote), and never over "
            "the next token of a passage the reply is copying from the prompt (an identifier "
            "quoted). 1 turns it off; "
            "below 1 it rewards repeats. Default: the "
            "preset's or the model's (the embedded model samples with 1.2), applied to sampled "
            "replies only unless the request names it.")),
        "stop": StopField(metadata=d("Up to 4 strings; generation ends before the first match.")),
        "response_format": ResponseFormatField(allow_none=True),
    }


def sampling_params(given: dict, defaults: dict, default_max_new_tokens: int) -> SamplingParams:
    """Merge request parameters over preset defaults and reject contradictions."""
    merged = dict(defaults)
    if (given.get("do_sample") or given.get("response_format")
            or given.get("logprobs") is not None) and "num_beams" not in given:
        # a preset's beam search gives way to sampling, to a reply constrained to JSON, and
        # to one whose log-probabilities are asked for
        for key in ("num_beams", *BEAM_ONLY):
            merged.pop(key, None)
    if given.get("num_beams", 1) > 1 and "do_sample" not in given:
        merged.pop("do_sample", None)  # asking for beams is asking not to sample
    merged.update(given)
    errors: dict[str, list[str]] = {}
    sampling = merged.get("do_sample", False)
    if not sampling and "echo_penalty" not in given:
        # a default echo guard belongs to the sampling recipe: greedy and beam replies asked
        # for (temperature 0, a beam preset) are the model's plain ones unless it is named
        merged.pop("echo_penalty", None)
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
        raise ValidationFailed(sentence(errors), fields=errors, param=next(iter(errors)))
    if merged.get("logprobs") is not None and beams > 1:
        errors["logprobs"] = ["Log-probabilities are reported for greedy or sampled replies, not "
                              "for beam search: leave out num_beams or logprobs."]
    if merged.get("response_format") and merged.get("stop"):
        if "stop" in given:
            errors["stop"] = ["A stop string would cut a reply constrained to JSON (a "
                              "response_format, or a required tool call) short of valid: "
                              "leave out stop."]
        else:  # the preset's stop strings give way to the schema, which ends the reply itself
            merged.pop("stop")
    if merged.get("response_format") and beams > 1:
        errors["response_format"] = ["A reply constrained to JSON is decoded greedily or sampled, "
                                     "not by beam search: leave out num_beams or response_format."]
    if errors:
        raise ValidationFailed(sentence(errors), fields=errors, param=next(iter(errors)))
    merged.setdefault("max_new_tokens", default_max_new_tokens)
    merged["json_schema"] = merged.pop("response_format", None)
    return SamplingParams(**merged)


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
        raise ValidationFailed(sentence(flat), fields=shown, param=next(iter(flat), None)) from None


def flatten(messages, prefix: str = "") -> dict[str, list[str]]:
    """Turn marshmallow's nested error dict into ``{"messages.2.role": [...]}``."""
    out: dict[str, list[str]] = {}
    if isinstance(messages, dict):
        for key, value in messages.items():
            name = str(key) if len(str(key)) <= 64 else str(key)[:61] + "..."  # bounded echo
            path = f"{prefix}.{name}" if prefix else name
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


def sentence(errors: dict[str, list[str]]) -> str:
    parts = [f"{path}: {' '.join(msgs).rstrip('.')}" for path, msgs in list(errors.items())[:5]]
    more = len(errors) - 5
    return "Invalid request. " + "; ".join(parts) + (f"; and {more} more" if more > 0 else "") + "."

