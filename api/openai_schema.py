"""The OpenAI chat-completions request: validated strictly, mapped onto Mnemo's own terms.

Parameters Mnemo cannot honour are rejected with a 400 naming them, never silently ignored:
``n`` above 1, non-zero presence/frequency penalties, ``logprobs``, ``tools``, ``logit_bias``
and non-text ``response_format``.
"""

from __future__ import annotations

from marshmallow import Schema, ValidationError, fields, validate

from .config import Settings
from .exceptions import ValidationFailed
from .schemas import StopField, StrictBoolean, StrictFloat, StrictInteger, load, not_blank

ROLES = ("system", "developer", "user", "assistant")


class ContentField(fields.Field):
    """Message content: a string, or a list of ``{"type": "text", "text": ...}`` parts."""

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, str):
            return value
        if isinstance(value, list):
            texts = []
            for part in value:
                if not isinstance(part, dict) or part.get("type") != "text" or not isinstance(
                        part.get("text"), str):
                    raise ValidationError("Only text content parts ({'type': 'text', 'text': ...}) "
                                          "are supported.")
                texts.append(part["text"])
            return "".join(texts)
        raise ValidationError("Must be a string or a list of text parts.")


def _rejected(name: str, why: str) -> fields.Raw:
    """A field whose every non-null value is refused with a reason."""
    def check(value):
        raise ValidationError(f"{name} is not supported by this server: {why}")
    return fields.Raw(allow_none=True, validate=check, metadata={
        "enum": [None], "description": f"Not supported: {why} Only null is accepted."})


def _text_format(value: dict) -> None:
    if value.get("type") != "text":
        raise ValidationError("Only response_format {'type': 'text'} is supported.")


class OpenAISchemas:
    def __init__(self, settings: Settings):
        limit = settings.max_message_chars
        message = Schema.from_dict({
            "role": fields.String(required=True, validate=validate.OneOf(ROLES)),
            "content": ContentField(required=True, validate=[validate.Length(max=limit), not_blank]),
            "name": fields.String(),
        }, name="ChatCompletionMessage")
        self.chat = Schema.from_dict({
            "model": fields.String(required=True),
            "messages": fields.List(fields.Nested(message), required=True,
                                    validate=validate.Length(1, settings.max_messages)),
            "max_tokens": StrictInteger(
                allow_none=True, validate=validate.Range(1, settings.max_new_tokens_limit)),
            "max_completion_tokens": StrictInteger(
                allow_none=True, validate=validate.Range(1, settings.max_new_tokens_limit)),
            "temperature": StrictFloat(allow_none=True, validate=validate.Range(0, 2)),
            "top_p": StrictFloat(allow_none=True, validate=validate.Range(0, 1, min_inclusive=False)),
            "seed": StrictInteger(allow_none=True),
            "stop": StopField(allow_none=True),
            "n": StrictInteger(allow_none=True, validate=validate.Equal(
                1, error="Only n=1 is supported: one completion per request.")),
            "presence_penalty": StrictFloat(allow_none=True, validate=validate.Equal(
                0, error="presence_penalty is not supported; send 0 or leave it out.")),
            "frequency_penalty": StrictFloat(allow_none=True, validate=validate.Equal(
                0, error="frequency_penalty is not supported; send 0 or leave it out.")),
            "logprobs": StrictBoolean(allow_none=True, validate=validate.Equal(
                False, error="logprobs is not supported; send false or leave it out.")),
            "top_logprobs": _rejected("top_logprobs", "logprobs are not returned."),
            "tools": _rejected("tools", "tool calling is not implemented."),
            "tool_choice": _rejected("tool_choice", "tool calling is not implemented."),
            "functions": _rejected("functions", "function calling is not implemented."),
            "function_call": _rejected("function_call", "function calling is not implemented."),
            "logit_bias": fields.Dict(allow_none=True, validate=validate.Length(
                max=0, error="logit_bias is not supported; send {{}} or leave it out.")),
            "response_format": fields.Dict(allow_none=True, validate=_text_format),
            "stream": StrictBoolean(allow_none=True),
            "stream_options": fields.Dict(allow_none=True),
            "user": fields.String(allow_none=True),
            "truncation": fields.String(validate=validate.OneOf(["auto", "disabled"])),
        }, name="ChatCompletionRequest")()

    def load_chat(self, body: object) -> dict:
        data = load(self.chat, body)
        data = {k: v for k, v in data.items() if v is not None}
        errors = {}
        opts = data.get("stream_options") or {}
        if set(opts) - {"include_usage"}:
            errors["stream_options"] = ["Only include_usage is supported."]
        if opts and not data.get("stream"):
            errors["stream_options"] = ["stream_options requires stream: true."]
        if ("max_tokens" in data and "max_completion_tokens" in data
                and data["max_tokens"] != data["max_completion_tokens"]):
            errors["max_tokens"] = ["max_tokens and max_completion_tokens disagree; send one."]
        chat = [m for m in data["messages"] if m["role"] not in ("system", "developer")]
        if not chat or chat[-1]["role"] != "user":
            errors["messages"] = ["The last non-system message must come from the user."]
        if errors:
            first = next(iter(errors))
            raise ValidationFailed(f"{first}: {errors[first][0]}", fields=errors, param=first)
        return data

