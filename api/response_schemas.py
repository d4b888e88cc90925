"""Response schemas (marshmallow), the source of the OpenAPI document's response bodies.

The routes build their replies as plain dicts; these schemas describe them, and schemathesis
checks every response of a live server against the document made from them (tests/test_openapi).
Every schema forbids unknown fields, so a reply that grows a field the contract lacks fails there.
"""

from __future__ import annotations

from marshmallow import Schema, fields, validate

FINISH_REASONS = ["stop", "length", "cancelled", "tool_calls"]  # tool_calls: /v1 only


def _req(field: fields.Field, description: str | None = None) -> fields.Field:
    field.required = True
    if description:
        field.metadata = {**field.metadata, "description": description}
    return field


class Usage(Schema):
    prompt_tokens = _req(fields.Integer(), "Tokens of the rendered prompt after trimming.")
    completion_tokens = _req(fields.Integer(), "Tokens generated.")
    total_tokens = _req(fields.Integer())


class SummaryPlacement(Schema):
    covers = _req(fields.Integer())
    signed = _req(fields.Boolean(), "Signed by this server for these messages.")
    placement = _req(fields.String(validate=validate.OneOf(["system", "context"])),
                     "system: with system authority (signed); context: as plain user context.")


class HistoryReport(Schema):
    """What part of the client's history reached the model, and why the rest did not."""
    received = _req(fields.Integer(), "Messages the client sent (system prompt not counted).")
    used = _req(fields.Integer(), "Messages rendered into the prompt.")
    dropped = _req(fields.Integer(), "Oldest messages left out: received - used.")
    dropped_by_max_turns = _req(fields.Integer(), "Of those, left out because of max_turns.")
    dropped_by_context = _req(fields.Integer(), "Of those, left out to fit the context window.")
    first_used = _req(fields.Integer(), "Index of the first message of the kept recent window.")
    pinned = _req(fields.List(fields.Integer()), "Pinned messages (all kept).")
    recalled = _req(fields.List(fields.Integer()), "Messages of exchanges recalled for their "
                                                   "relevance to the new message.")
    shortened = _req(fields.List(fields.Integer()), "Recalled replies sent cut short (their "
                                                    "first tokens and a […] mark).")
    summarised = _req(fields.Integer(), "Of the dropped, covered by the summary.")
    lost = _req(fields.Integer(), "Of the dropped, covered by no summary: lost to the model.")
    dropped_ranges = _req(fields.List(fields.List(fields.Integer())),
                          "[start, end) ranges of the messages not sent to the model.")
    summary = _req(fields.Nested(SummaryPlacement, allow_none=True),
                   "How the client's summary was placed; null without one.")


class Summary(Schema):
    """A rolling summary as returned: send it back as the request's summary, unchanged."""
    text = _req(fields.String())
    covers = _req(fields.Integer(), "How many leading messages it replaces.")
    kept = _req(fields.List(fields.Integer()), "Messages within covers it does not stand in "
                                               "for (pinned when it was made): kept verbatim.")
    signature = _req(fields.String(allow_none=True), "This server's HMAC signature; null when "
                                                     "it was built on an unsigned summary.")


class Compaction(Schema):
    """Whether the history was compacted after the reply (and why not)."""
    status = _req(fields.String(validate=validate.OneOf(["off", "not_needed", "ok", "failed"])))
    reason = fields.String(metadata={"description": "Why it failed or was not needed."})
    covers = fields.Integer(metadata={"description": "What the new summary covers."})
    folded = fields.Integer(metadata={"description": "Messages folded into it."})
    cause = fields.String(validate=validate.OneOf(["too_long", "generation"]), metadata={
        "description": "When it failed: too_long (a message longer than the summariser can read "
                       "in one prompt: shorten or drop it) or generation (the model made none)."})
    read = fields.Nested(Schema.from_dict({
        "messages": _req(fields.Integer()), "tokens": _req(fields.Integer())}, name="SummaryRead"),
        metadata={"description": "What the summariser read: every folded message, whole, in a "
                                 "prompt of this many tokens."})
    input_dropped = fields.Integer(metadata={"description": "Always 0: a compaction whose "
                                                            "summariser could not read every "
                                                            "folded message fails instead."})
    usage = fields.Nested(Usage, metadata={"description": "Tokens spent on it."})
    signed = fields.Boolean(metadata={"description": "False when built on an unsigned summary."})
    pending = fields.Integer(metadata={"description": "Messages still to fold, over the next "
                                                      "turns (more than one prompt could read)."})


# -- native API --------------------------------------------------------------------------
class AssistantMessage(Schema):
    role = _req(fields.String(validate=validate.OneOf(["assistant"])))
    content = _req(fields.String())


class ChatResponse(Schema):
    model = _req(fields.String(), "The model, or the adapter that answered.")
    message = _req(fields.Nested(AssistantMessage))
    finish_reason = _req(fields.String(validate=validate.OneOf(FINISH_REASONS)))
    usage = _req(fields.Nested(Usage))
    history = _req(fields.Nested(HistoryReport))
    compaction = _req(fields.Nested(Compaction))
    summary = fields.Nested(Summary, metadata={"description": "The new summary, after a "
                                                              "compaction: keep it and send it "
                                                              "back with the next request."})
    conversation_id = fields.String(metadata={"description": "Echoed when the request sent one."})


class Delta(Schema):
    """Native stream: one ``delta`` event, the next piece of the reply."""
    content = _req(fields.String())


class PromptPart(Schema):
    kind = _req(fields.String(validate=validate.OneOf(
        ["system", "context", "pinned", "recalled", "recent", "latest"])),
        "Why it is there: the system prompt (with a signed summary), client context (an "
        "unsigned summary), or a message kept because it is pinned, recalled as relevant, "
        "among the recent ones, or the new message.")
    role = _req(fields.String())
    content = _req(fields.String())
    index = fields.Integer(metadata={"description": "The message's index in the list sent."})
    shortened = fields.Boolean(metadata={"description": "A recalled reply, sent cut short (its "
                                                        "first tokens and a […] mark)."})


class PreviewResponse(Schema):
    prompt = _req(fields.String(), "The exact prompt text the model would see.")
    parts = _req(fields.List(fields.Nested(PromptPart)),
                 "The prompt's parts in order, each with why it is there.")
    prompt_tokens = _req(fields.Integer())
    max_new_tokens = _req(fields.Integer(), "The output budget reserved for the reply.")
    context_window = _req(fields.Integer())
    history = _req(fields.Nested(HistoryReport))
    conversation_id = fields.String()


class PresetMemory(Schema):
    compact = _req(fields.Boolean())
    recall = _req(fields.Boolean())
    summary_instruction = _req(fields.String())
    summary_max_tokens = _req(fields.Integer())


class Preset(Schema):
    description = _req(fields.String())
    system = _req(fields.String(allow_none=True))
    generation = _req(fields.Dict(keys=fields.String()))
    locked = _req(fields.Boolean(), "Clients cannot replace or extend the system prompt.")
    locked_settings = _req(fields.List(fields.String()), "Settings clients may not send.")
    memory = _req(fields.Nested(PresetMemory))


class SummarizeResponse(Schema):
    compaction = _req(fields.Nested(Compaction))
    summary = _req(fields.Nested(Summary))


class Defaults(Schema):
    max_new_tokens = _req(fields.Integer())
    max_turns = _req(fields.Integer())


class Limits(Schema):
    max_new_tokens = _req(fields.Integer())
    max_request_bytes = _req(fields.Integer())
    max_messages = _req(fields.Integer())
    max_message_chars = _req(fields.Integer())
    max_batch_size = _req(fields.Integer())
    max_queue = _req(fields.Integer())
    generation_timeout_s = _req(fields.Float())


class ConfigResponse(Schema):
    model = _req(fields.String())
    context_window = _req(fields.Integer(), "Prompt plus reply, in tokens.")
    adapters = _req(fields.List(fields.String()), "LoRA adapters, selectable per request.")
    presets = _req(fields.Dict(keys=fields.String(), values=fields.Nested(Preset)))
    defaults = _req(fields.Nested(Defaults))
    limits = _req(fields.Nested(Limits))


class Health(Schema):
    status = _req(fields.String(validate=validate.OneOf(["ok"])))


class Ready(Schema):
    status = _req(fields.String(validate=validate.OneOf(["ready"])))
    model = _req(fields.String())
    engine = _req(fields.String(), "What generates: embedded, or the remote engine's address.")


class ErrorDetail(Schema):
    code = _req(fields.String(), "A stable machine-readable code, e.g. validation_error.")
    message = _req(fields.String(), "What went wrong and what to do about it.")
    status = _req(fields.Integer())
    fields_ = fields.Dict(keys=fields.String(), values=fields.List(fields.String()),
                          data_key="fields",
                          metadata={"description": "Per-field messages by dotted path."})


class Error(Schema):
    error = _req(fields.Nested(ErrorDetail))


# -- OpenAI-compatible API ---------------------------------------------------------------
class OpenAIMessage(Schema):
    role = _req(fields.String(validate=validate.OneOf(["assistant"])))
    content = _req(fields.String(allow_none=True), "Null when the reply is tool calls.")
    tool_calls = fields.List(fields.Dict(), metadata={
        "description": "OpenAI's {id, type: function, function: {name, arguments}} (docs/tools.md)."})


LOGPROBS = {"description": "Null unless logprobs were asked for (docs/structured-output.md).",
            "type": ["object", "null"]}


class Choice(Schema):
    index = _req(fields.Integer())
    message = _req(fields.Nested(OpenAIMessage))
    logprobs = _req(fields.Raw(allow_none=True, metadata=LOGPROBS))
    finish_reason = _req(fields.String(validate=validate.OneOf(FINISH_REASONS)))


class MnemoExtra(Schema):
    history = _req(fields.Nested(HistoryReport))
    compaction = _req(fields.Nested(Compaction), "Off unless the request's mnemo.compact is true.")
    summary = fields.Nested(Summary, metadata={"description": "The new summary, after a "
                                                              "compaction."})


class ChatCompletion(Schema):
    id = _req(fields.String())
    object = _req(fields.String(validate=validate.OneOf(["chat.completion"])))
    created = _req(fields.Integer())
    model = _req(fields.String())
    choices = _req(fields.List(fields.Nested(Choice)))
    usage = _req(fields.Nested(Usage))
    mnemo = _req(fields.Nested(MnemoExtra), "Mnemo's extension: what history was dropped.")


class ChunkDelta(Schema):
    role = fields.String(validate=validate.OneOf(["assistant"]))
    content = fields.String()
    tool_calls = fields.List(fields.Dict(), metadata={"description": "A call, whole, with its index."})


class ChunkChoice(Schema):
    index = _req(fields.Integer())
    delta = _req(fields.Nested(ChunkDelta))
    logprobs = _req(fields.Raw(allow_none=True, metadata=LOGPROBS))
    finish_reason = _req(fields.String(allow_none=True, validate=validate.OneOf(FINISH_REASONS)))


class ChatCompletionChunk(Schema):
    """OpenAI stream: one event; the last has a finish_reason, then usage if asked for."""
    id = _req(fields.String())
    object = _req(fields.String(validate=validate.OneOf(["chat.completion.chunk"])))
    created = _req(fields.Integer())
    model = _req(fields.String())
    choices = _req(fields.List(fields.Nested(ChunkChoice)))
    usage = fields.Nested(Usage, metadata={"description": "Only with stream_options.include_usage, "
                                                          "in a final chunk with no choices."})
    mnemo = fields.Nested(MnemoExtra, metadata={"description": "On the chunk that finishes."})


class CompletionChoice(Schema):
    index = _req(fields.Integer())
    text = _req(fields.String())
    logprobs = _req(fields.Raw(allow_none=True, metadata=LOGPROBS))
    finish_reason = _req(fields.String(allow_none=True, validate=validate.OneOf(FINISH_REASONS)),
                         "Null on a stream's pieces before the last.")


class Completion(Schema):
    """``/v1/completions``: the whole reply, or one streamed event (then ``data: [DONE]``)."""
    id = _req(fields.String())
    object = _req(fields.String(validate=validate.OneOf(["text_completion"])))
    created = _req(fields.Integer())
    model = _req(fields.String())
    choices = _req(fields.List(fields.Nested(CompletionChoice)))
    usage = fields.Nested(Usage, metadata={"description": "On the whole reply; streamed, only "
                                                          "with stream_options.include_usage."})


class Tokens(Schema):
    tokens = _req(fields.List(fields.Integer()))
    count = _req(fields.Integer())
    max_model_len = _req(fields.Integer(), "The context window.")


class Detokenized(Schema):
    prompt = _req(fields.String())


class Model(Schema):
    id = _req(fields.String())
    object = _req(fields.String(validate=validate.OneOf(["model"])))
    created = _req(fields.Integer())
    owned_by = _req(fields.String())
    parent = fields.String(metadata={"description": "For an adapter: the base model."})
    max_model_len = fields.Integer(metadata={"description": "The base model's context window."})


class ModelList(Schema):
    object = _req(fields.String(validate=validate.OneOf(["list"])))
    data = _req(fields.List(fields.Nested(Model)))


class OpenAIErrorDetail(Schema):
    message = _req(fields.String())
    type = _req(fields.String())
    param = _req(fields.String(allow_none=True))
    code = _req(fields.String(allow_none=True))


class OpenAIError(Schema):
    error = _req(fields.Nested(OpenAIErrorDetail))
