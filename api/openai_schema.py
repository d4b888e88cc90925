"""The OpenAI chat-completions request: validated strictly, mapped onto Mnemo's own terms.

Parameters Mnemo cannot honour are rejected with a 400 naming them, never silently ignored:
``logit_bias`` and the deprecated ``functions``.
"""

from __future__ import annotations

from marshmallow import Schema, ValidationError, fields, pre_load, validate

from .chat_request import resolve
from .config import Settings
from .exceptions import ValidationFailed
from .fields import StopField, StrictBoolean, StrictFloat, StrictInteger, generation_fields, load, not_blank
from .memory.summary import Summary
from .schemas import check_covers, summary_schema
from .structured import NAME, ResponseFormatField
from .tools import ToolChoiceField, ToolsField, call_schema, call_text, result_text, tool_prompt

ROLES = ("system", "developer", "user", "assistant", "tool")


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


def rejected(name: str, why: str) -> fields.Raw:
    """A field whose every non-null value is refused with a reason."""
    def check(value):
        raise ValidationError(f"{name} is not supported by this server: {why}")
    return fields.Raw(allow_none=True, validate=check, metadata={
        "enum": [None], "description": f"Not supported: {why} Only null is accepted."})


def _ignored(field: fields.Field, why: str) -> fields.Field:
    field.metadata["description"] = f"Accepted and ignored: {why}"
    return field


_IGNORED = {
    "store": _ignored(StrictBoolean(allow_none=True), "completions are never stored here."),
    "metadata": _ignored(fields.Dict(
        keys=fields.String(validate=validate.Length(max=64)),
        values=fields.String(validate=validate.Length(max=512)), allow_none=True,
        validate=validate.Length(max=16)), "nothing is stored to attach it to."),
    "service_tier": _ignored(fields.String(allow_none=True, validate=validate.OneOf(
        ["auto", "default", "flex", "scale", "priority"])), "this server has one tier."),
    "reasoning_effort": _ignored(fields.String(allow_none=True, validate=validate.OneOf(
        ["none", "minimal", "low", "medium", "high"])), "the model does not reason first."),
}


class _Message(Schema):
    @pre_load
    def _blank_content_is_none(self, data, **_kwargs):
        """A tool's empty result, or an assistant call's empty text, loads as no content (the
        SDK's streamed message and LangChain's ToolMessage("") send "")."""
        if isinstance(data, dict) and data.get("content") == "" and (
                data.get("role") == "tool" or (data.get("role") == "assistant"
                                               and data.get("tool_calls"))):
            data = {**data, "content": None}
        return data


class OpenAISchemas:
    def __init__(self, settings: Settings, presets: dict):
        self.settings = settings
        self.presets = presets
        limit = settings.max_message_chars
        # Mnemo's extension object; the official SDKs send it with ``extra_body={"mnemo": ...}``.
        # Message indices (pinned, summary.covers) count user, assistant and tool messages.
        extension = Schema.from_dict({
            "template": fields.String(validate=validate.OneOf(list(presets))),
            "max_turns": StrictInteger(validate=validate.Range(1, settings.max_messages)),
            "pinned": fields.List(StrictInteger(validate=validate.Range(0, settings.max_messages)),
                                  validate=validate.Length(max=settings.max_messages)),
            "summary": fields.Nested(summary_schema(settings), allow_none=True),
            "compact": StrictBoolean(),
            "recall": StrictBoolean(),
            # the native API's repetition guard, so a program can turn it off (1) or tune it
            "echo_penalty": generation_fields(settings)["echo_penalty"],
        }, name="MnemoExtension")
        call = Schema.from_dict({
            "id": fields.String(required=True, validate=validate.Length(1, 200)),
            "type": fields.String(required=True, validate=validate.Equal("function")),
            "index": StrictInteger(allow_none=True),  # a streamed call's, as the SDK keeps it
            "function": fields.Nested(Schema.from_dict({
                "name": fields.String(required=True, validate=validate.Regexp(
                    NAME, error="1 to 64 letters, digits, _ or -.")),
                "arguments": fields.String(required=True, validate=validate.Length(max=limit)),
                # what the SDK's parse() adds to a message it returns; ignored
                "parsed_arguments": fields.Raw(allow_none=True),
            }, name="ToolCallFunction"), required=True),
        }, name="ToolCall")
        message = _Message.from_dict({
            "role": fields.String(required=True, validate=validate.OneOf(ROLES)),
            # null only on an assistant message that calls tools
            "content": ContentField(allow_none=True,
                                    validate=[validate.Length(max=limit), not_blank]),
            "name": fields.String(),
            "tool_calls": fields.List(fields.Nested(call), validate=validate.Length(1, 64)),
            "tool_call_id": fields.String(validate=validate.Length(1, 200)),
            "refusal": fields.String(allow_none=True),
            "parsed": fields.Raw(allow_none=True),  # the SDK's parse(); ignored
            # what an SDK's message object dumps: accepted when null
            **{k: rejected(k, "not on this server.") for k in ("function_call", "audio",
                                                                  "annotations")},
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
            "seed": StrictInteger(allow_none=True, validate=validate.Range(0, 2**63 - 1)),
            "stop": StopField(allow_none=True),
            "n": StrictInteger(allow_none=True, validate=validate.Range(
                1, min(MAX_CHOICES, settings.max_batch_size), error=(
                    "n is the number of choices: 1 to {max} here (MNEMO_MAX_BATCH_SIZE, at "
                    f"most {MAX_CHOICES})."))),
            "presence_penalty": StrictFloat(allow_none=True, validate=validate.Range(-2, 2)),
            "frequency_penalty": StrictFloat(allow_none=True, validate=validate.Range(-2, 2)),
            "logprobs": StrictBoolean(allow_none=True),
            "top_logprobs": StrictInteger(allow_none=True, validate=validate.Range(0, MAX_TOP_LOGPROBS)),
            "tools": ToolsField(allow_none=True),
            "tool_choice": ToolChoiceField(allow_none=True),
            "parallel_tool_calls": StrictBoolean(allow_none=True),
            "functions": rejected("functions", "the deprecated functions; send tools instead."),
            "function_call": rejected("function_call", "the deprecated functions; send "
                                                       "tool_choice instead."),
            "logit_bias": fields.Dict(allow_none=True, validate=validate.Length(
                max=0, error="logit_bias is not supported; send {{}} or leave it out.")),
            "response_format": ResponseFormatField(allow_none=True),
            "stream": StrictBoolean(allow_none=True),
            "stream_options": fields.Dict(allow_none=True),
            "user": fields.String(allow_none=True),
            # Accepted and ignored: they change nothing on this server (nothing is stored, there
            # is one service tier, the model does not reason, no tools are called), and
            # off-the-shelf clients send them.
            **_IGNORED,
            "truncation": fields.String(validate=validate.OneOf(["auto", "disabled"])),
            "mnemo": fields.Nested(extension, allow_none=True, metadata={
                "description": "Mnemo's extension (pins, summary, compaction, recall, preset, "
                               "echo_penalty); message indices count user, assistant and tool "
                               "messages (not system ones)."}),
        }, name="ChatCompletionRequest")()

    def load_chat(self, body: object):
        """Validate a chat-completions request into a ChatRequest (``model`` kept as named)."""

        data = self._validate(body)
        ext = data.get("mnemo") or {}
        preset = self.presets[ext.get("template") or "default"]
        chat = _as_text([m for m in data["messages"] if m["role"] not in ("system", "developer")])
        for i in ext.get("pinned", []):
            for j in _call_and_results(chat, i):  # a pin never parts a call from its results
                chat[j]["pinned"] = True
        if chat[-1]["role"] == "tool":  # the exchange being answered stays whole, call and results
            start = max((i for i, m in enumerate(chat) if m["role"] == "user"), default=0)
            for m in chat[start:]:
                m["pinned"] = True
        system = "\n\n".join(m["content"] for m in data["messages"]
                              if m["role"] in ("system", "developer"))
        choice = tool_choice(data)
        if choice != "none":
            system = "\n\n".join(filter(None, [system, tool_prompt(data["tools"], choice)]))
            if choice != "auto":  # a call is required: the reply is constrained to one
                data["response_format"] = call_schema(data["tools"], choice,
                                                      data.get("parallel_tool_calls", True))
        sent = (set(ext) - {"template", "pinned"}) | {
            _OPENAI_NAMES.get(k, k) for k in data
            if k in _OPENAI_NAMES or k in ("temperature", "top_p", "seed", "stop",
                                           "response_format", "logprobs", *PENALTIES)}
        if "temperature" in data:  # it chooses between greedy and sampling
            sent.add("do_sample")
        summary = ext.get("summary")
        request = resolve(
            preset, sent=sent, generation=_generation(data, preset.generation),
            max_new_tokens_limit=self.settings.max_new_tokens_limit,
            default_max_new_tokens=self.settings.default_max_new_tokens,
            system=system or None, compact=ext.get("compact", False), recall=ext.get("recall"),
            messages=chat, max_turns=ext.get("max_turns"), adapter=None,
            stream=bool(data.get("stream")), model=data["model"],
            summary=Summary.from_request(summary))
        if data.get("n", 1) > 1 and request.params.needs_beam_search:
            raise ValidationFailed("n: the preset decodes by beam search, whose choices would all "
                                   "be the same; send n 1, or a temperature to sample.",
                                   fields={"n": ["Not with beam search."]}, param="n")
        return request, data

    def _validate(self, body: object) -> dict:
        data = load(self.chat, body, self.settings.max_messages)
        data = {k: v for k, v in data.items() if v is not None}
        errors = {}
        opts = data.get("stream_options") or {}
        if set(opts) - {"include_usage"}:
            errors["stream_options"] = ["Only include_usage is supported."]
        if opts and not data.get("stream"):
            errors["stream_options"] = ["stream_options requires stream: true."]
        if "top_logprobs" in data and not data.get("logprobs"):
            errors["top_logprobs"] = ["top_logprobs requires logprobs: true."]
        if ("max_tokens" in data and "max_completion_tokens" in data
                and data["max_tokens"] != data["max_completion_tokens"]):
            errors["max_tokens"] = ["max_tokens and max_completion_tokens disagree; send one."]
        chat = [m for m in data["messages"] if m["role"] not in ("system", "developer")]
        if not chat or chat[-1]["role"] not in ("user", "tool"):
            errors["messages"] = ["The last non-system message must come from the user (or be "
                                  "a tool's result)."]
        errors.update(_tool_errors(data))
        ext = data.get("mnemo") or {}
        if any(i >= len(chat) for i in ext.get("pinned", [])):
            errors["mnemo.pinned"] = [f"Pins index the {len(chat)} user and assistant messages "
                                      f"(system messages are not counted): 0 to {len(chat) - 1}."]
        try:
            check_covers(ext.get("summary"), chat)
        except ValidationError as err:
            errors["mnemo.summary.covers"] = err.messages["covers"]
        if errors:
            first = next(iter(errors))
            raise ValidationFailed(f"{first}: {errors[first][0]}", fields=errors, param=first)
        return data


def tool_choice(data: dict) -> str:
    """What the request asks of tools: none, auto, required or ``function:<name>``."""
    return data.get("tool_choice", "auto") if data.get("tools") else "none"


def _tool_errors(data: dict) -> dict[str, list[str]]:
    """Tool messages answer calls of the assistant message before them; tools and the
    choice agree; a required call and a response_format cannot both shape the reply. A
    message is named by its place in the request (``messages.3.content``, as marshmallow's
    own errors name it), system messages counted."""
    errors: dict[str, list[str]] = {}
    calls: dict[str, str] = {}  # the open calls: id -> tool name
    for i, m in enumerate(data["messages"]):
        if m["role"] in ("system", "developer"):
            continue
        where = f"messages.{i}"
        if m.get("tool_calls") and m["role"] != "assistant":
            errors[where + ".tool_calls"] = ["Only an assistant message calls tools."]
        if (m.get("tool_call_id") is None) != (m["role"] != "tool"):
            errors[where + ".tool_call_id"] = ["A tool message, and only one, names the call it "
                                               "answers (tool_call_id)."]
        if m.get("content") is None and m["role"] != "tool" and not (
                m["role"] == "assistant" and m.get("tool_calls")):
            errors[where + ".content"] = ["Required, unless an assistant message calls tools."]
        if m["role"] != "tool" and calls:  # as OpenAI: every call is answered before what follows
            errors[where] = [f"The call(s) {', '.join(sorted(calls))} of the assistant message "
                             "before have no tool result."]
        if m["role"] == "assistant":
            calls = {c["id"]: c["function"]["name"] for c in m.get("tool_calls") or ()}
            if len(calls) < len(m.get("tool_calls") or ()):
                errors[where + ".tool_calls"] = ["Two calls share an id."]
        elif m["role"] == "tool" and calls.pop(m.get("tool_call_id"), None) is None:
            errors[where + ".tool_call_id"] = ["It answers no call of the assistant message "
                                               "before it (or one already answered)."]
    if calls:
        errors["messages"] = [f"The call(s) {', '.join(sorted(calls))} have no tool result."]
    names = [t.name for t in data.get("tools") or ()]
    choice = data.get("tool_choice")
    if choice not in (None, "none") and not names:
        errors["tool_choice"] = ["A tool choice needs tools."]
    elif choice and choice.startswith("function:") and choice[9:] not in names:
        errors["tool_choice"] = [f"No tool is named {choice[9:]!r}."]
    if tool_choice(data) not in ("none", "auto") and data.get("response_format"):
        errors["response_format"] = ["A required tool call decides the reply's format: leave out "
                                     "response_format, or send tool_choice auto."]
    return errors


def _as_text(messages: list[dict]) -> list[dict]:
    """The chat as Mnemo's messages: a call becomes the assistant's text, a result a ``tool``
    message naming its tool, both text the model reads (``api/tools.py``)."""
    out, names = [], {}
    for m in messages:
        content = m.get("content") or ""
        if m.get("tool_calls"):
            names.update((c["id"], c["function"]["name"]) for c in m["tool_calls"])
            content = "\n".join(filter(None, [content, call_text(m["tool_calls"])]))
        elif m["role"] == "tool":
            content = result_text(names[m["tool_call_id"]], content)
        out.append({"role": m["role"], "content": content, **(
            {"calls": True} if m.get("tool_calls") else {})})
    return out


def _call_and_results(chat: list[dict], i: int) -> list[int]:
    """Message ``i`` with the call or results it belongs with: an assistant call and every
    tool message after it (a pin of either keeps them all)."""
    start = i
    while chat[start]["role"] == "tool" and start > 0:
        start -= 1
    if not chat[start].get("calls"):
        return [i]
    end = start + 1
    while end < len(chat) and chat[end]["role"] == "tool":
        end += 1
    return list(range(start, end))


MAX_TOP_LOGPROBS = 20  # OpenAI's limit
MAX_CHOICES = 8  # n
_OPENAI_NAMES = {"max_tokens": "max_new_tokens", "max_completion_tokens": "max_new_tokens"}
_DECODING = ("do_sample", "temperature", "num_beams")
PENALTIES = ("presence_penalty", "frequency_penalty")


def _generation(data: dict, preset_generation: dict) -> dict:
    """OpenAI's parameters in Mnemo's terms: temperature 0 is greedy, otherwise sampling.

    Without a ``temperature``, OpenAI's default (sampling at 1) applies unless the preset sets
    how to decode: then the preset's decoding stands, as on the native API.
    """
    given = {}
    if "max_completion_tokens" in data or "max_tokens" in data:
        given["max_new_tokens"] = data.get("max_completion_tokens", data.get("max_tokens"))
    if "temperature" in data or not any(k in preset_generation for k in _DECODING):
        temperature = data.get("temperature", 1.0)
        if temperature > 0:
            given.update(do_sample=True, temperature=temperature)
        else:  # greedy, whatever the preset or the model would sample with
            given["do_sample"] = False
    sampling = given.get("do_sample") or (
        "temperature" not in data and preset_generation.get("do_sample", False))
    for key in ("top_p", "seed"):
        if key not in data:
            continue
        if not sampling:  # greedy decoding: the parameter would silently do nothing
            if key == "top_p" and data[key] == 1:  # nor does top_p 1, which is no filter
                continue
            why = ("temperature 0 decodes greedily" if "temperature" in data
                   else "the preset searches with beams" if preset_generation.get("num_beams", 1) > 1
                   else "the preset decodes greedily")
            raise ValidationFailed(f"{key}: {why}, so {key} would change nothing; send a "
                                   f"temperature above 0 to sample, or leave {key} out.",
                                   fields={key: ["Only used when sampling."]}, param=key)
        given[key] = data[key]
    if "stop" in data:
        given["stop"] = data["stop"]
    if data.get("logprobs"):
        given["logprobs"] = data.get("top_logprobs", 0)
    if data.get("response_format"):  # the schema to enforce (None: plain text)
        given["response_format"] = data["response_format"]
    for key in PENALTIES:  # greedy or sampled, as vLLM applies them
        if data.get(key):
            given[key] = data[key]
    if "echo_penalty" in (data.get("mnemo") or {}):
        given["echo_penalty"] = data["mnemo"]["echo_penalty"]
    return given
