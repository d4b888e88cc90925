"""Request schemas (marshmallow) and the checks that span fields.

Limits come from the settings, so schemas are built per app by ``Schemas(settings)``. Unknown
fields are rejected, never ignored. Every failure becomes a ValidationFailed whose ``fields``
map dotted paths (``messages.2.role``) to messages a person can act on.
"""

from __future__ import annotations

import functools

from marshmallow import RAISE, Schema, ValidationError, fields, validate, validates_schema

from .chat_defaults import DEFAULT_MAX_TURNS
from .chat_request import resolve
from .config import Settings
from .exceptions import ValidationFailed
from .fields import (
    GENERATION_KEYS,
    NOT_BLANK,
    StrictBoolean,
    StrictInteger,
    generation_fields,
    load,
    not_blank,
    sentence,
)
from .memory.summary import Summary


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
        if data.get("continue"):  # the reply cut short is the last message; it is not covered
            if len(messages) < 2 or messages[-1]["role"] != "assistant" \
                    or messages[-2]["role"] != "user":
                raise ValidationError(
                    "With continue, the last message must be the assistant's reply to continue, "
                    "after the user's message it answers.", field_name="messages")
            if data.get("response_format"):
                raise ValidationError(
                    "A reply constrained to JSON cannot be continued: ask again with a larger "
                    "max_new_tokens.", field_name="response_format")
            messages = messages[:-1]
        elif messages and messages[-1]["role"] != "user":
            raise ValidationError(
                "The last message must come from the user: it is what the model answers "
                "(or send continue: true to continue a reply).", field_name="messages")
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
            "recall": StrictBoolean(metadata={"description": "When history is dropped, bring back "
                                                             "the older exchanges most relevant to "
                                                             "the new message first. Default: the "
                                                             "preset's (on)."}),
            "continue": StrictBoolean(metadata={"description": "The last message is an assistant "
                                                               "reply cut short (finish_reason "
                                                               "length): the model continues it, "
                                                               "and the reply is only the new "
                                                               "text."}),
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
            raise ValidationFailed(sentence(errors), fields=errors, param=next(iter(errors)))
        return {"messages": messages, "covers": covers, "preset": self.presets[
            data.get("template") or "default"], "summary": Summary.from_request(summary)}

    def load_chat(self, body: object):
        """Validate a native chat request into a ChatRequest; raise ValidationFailed naming
        each bad field, or PresetLocked."""

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
            continue_reply=data.get("continue", False), conversation_id=data.get("conversation_id"),
            summary=Summary.from_request(summary))


