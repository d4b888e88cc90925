"""Tool calling in OpenAI's shapes, on any model: ``tools``, ``tool_choice``,
``parallel_tool_calls``, assistant ``tool_calls`` and ``tool`` results.

Mnemo renders tools with one documented prompt for every model (docs/tools.md), never with a
chat template's own tool markup: a template writes tool definitions and call arguments into its
scaffolding, where control-token text is read as control tokens, and these come from the
client. Here they are message text, tokenized as text like everything a client sends.

- the tool list and how to call goes at the end of the system prompt (``tool_prompt``);
- a past call is the assistant's text ``{"tool_calls": [{"name": ..., "arguments": {...}}]}``
  (``call_text``); a result is a ``tool`` message ``<tool_response name="...">...``
  (``result_text``), part of the exchange of the call it answers;
- a reply is a call when it is exactly such an object naming known tools with arguments that
  validate (``parse_calls``); with ``tool_choice`` ``required`` or a named function the reply is
  constrained to that object (``call_schema``, through ``api/structured.py``), so it always is.
"""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass

import jsonschema
from marshmallow import ValidationError, fields

from .structured import NAME, check_enforceable, closed_objects

MAX_TOOLS = 64
MAX_PARALLEL_CALLS = 8


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    parameters: dict  # a JSON Schema for the arguments object, its objects closed


class ToolsField(fields.Field):
    """OpenAI's ``tools``: a list of ``{"type": "function", "function": {...}}``."""

    def __init__(self, **kwargs):
        kwargs.setdefault("metadata", {"type": "array", "description": (
            "OpenAI's function tools: {'type': 'function', 'function': {'name', 'description', "
            "'parameters', 'strict'}}. Rendered with Mnemo's tool prompt (docs/tools.md).")})
        super().__init__(**kwargs)

    def _deserialize(self, value, attr, data, **kwargs) -> list[Tool]:
        if not isinstance(value, list) or not 1 <= len(value) <= MAX_TOOLS:
            raise ValidationError(f"Must be a list of 1 to {MAX_TOOLS} tools.")
        tools: list[Tool] = []
        for i, item in enumerate(value):
            where = f"tools[{i}]"
            if not isinstance(item, dict) or item.get("type") != "function" or not isinstance(
                    item.get("function"), dict) or set(item) - {"type", "function"}:
                raise ValidationError(f"{where} must be {{'type': 'function', 'function': {{...}}}}.")
            fn = item["function"]
            unknown = sorted(set(fn) - {"name", "description", "parameters", "strict"})
            if unknown:
                raise ValidationError(f"{where}.function takes no {unknown[0][:40]!r}.")
            name = fn.get("name")
            if not isinstance(name, str) or not NAME.match(name):
                raise ValidationError(f"{where}.function.name: 1 to 64 letters, digits, _ or -.")
            if name in {t.name for t in tools}:
                raise ValidationError(f"{where}: two tools are named {name!r}.")
            description = fn.get("description") or ""
            if not isinstance(description, str):
                raise ValidationError(f"{where}.function.description must be a string.")
            params = fn.get("parameters")
            if params is None:
                params = {"type": "object", "properties": {}}
            if not isinstance(params, dict) or params.get("type", "object") != "object":
                raise ValidationError(f"{where}.function.parameters must be a JSON Schema of "
                                      "type object.")
            if fn.get("strict") not in (None, True, False):
                raise ValidationError(f"{where}.function.strict must be true, false or null.")
            # A function takes the parameters it declares: strict or not, its arguments never
            # carry keys they do not list (a small model would add them until out of tokens).
            if not {"properties", "additionalProperties", "patternProperties", "anyOf", "oneOf",
                    "allOf", "$ref"} & set(params):  # {} or {"type": "object"}: none
                params = {**params, "properties": {}}
            params = closed_objects(params)
            try:
                check_enforceable(json.dumps(params, ensure_ascii=False))
                jsonschema.validators.validator_for(params).check_schema(params)
            except ValidationError as exc:
                raise ValidationError(f"{where}.function.parameters: {exc.messages[0]}") from None
            except jsonschema.SchemaError as exc:
                raise ValidationError(f"{where}.function.parameters is not a valid JSON Schema: "
                                      f"{exc.message[:200]}") from None
            tools.append(Tool(name, description, params))
        return tools


class ToolChoiceField(fields.Field):
    """``"none"``, ``"auto"``, ``"required"`` or ``{"type": "function", "function": {"name"}}``;
    loads as that string, or the function's name."""

    def __init__(self, **kwargs):
        kwargs.setdefault("metadata", {"description": "none, auto (default with tools), required, "
                                                      "or {'type': 'function', 'function': "
                                                      "{'name': ...}}."})
        super().__init__(**kwargs)

    def _deserialize(self, value, attr, data, **kwargs) -> str:
        if value in ("none", "auto", "required"):
            return value
        if (isinstance(value, dict) and value.get("type") == "function"
                and isinstance(value.get("function"), dict)
                and isinstance(value["function"].get("name"), str) and set(value) <= {
                    "type", "function"} and set(value["function"]) == {"name"}):
            return "function:" + value["function"]["name"]
        raise ValidationError("Must be 'none', 'auto', 'required' or {'type': 'function', "
                              "'function': {'name': ...}}.")


def tool_prompt(tools: list[Tool], choice: str) -> str:
    """The system prompt's tool section."""
    lines = ["You can call tools. To call tools, reply with only this JSON object and nothing "
             'else: {"tool_calls": [{"name": "<tool name>", "arguments": {<arguments>}}]}. '
             "Tool results come back in <tool_response> messages; then answer the user.",
             "", "Tools:"]
    for t in tools:
        lines.append(f"- {t.name}: {t.description or '(no description)'}")
        lines.append(f"  arguments (JSON Schema): {json.dumps(t.parameters, ensure_ascii=False)}")
    if choice == "required":
        lines += ["", "Call at least one tool now."]
    elif choice.startswith("function:"):
        lines += ["", f"Call the tool {choice.split(':', 1)[1]} now."]
    else:
        lines += ["", "If no tool is needed, answer in plain text."]
    return "\n".join(lines)


def call_schema(tools: list[Tool], choice: str, parallel: bool) -> str:
    """The JSON Schema a reply is constrained to when a call is required. Each tool's
    parameters move under ``$defs`` of the whole, their own ``$defs`` and ``$ref``s renamed to
    match, so references inside them still resolve."""
    named = choice.split(":", 1)[1] if choice.startswith("function:") else None
    chosen = [t for t in tools if named in (None, t.name)]
    defs: dict = {}
    for t in chosen:
        for key in ("$defs", "definitions"):
            for name, sub in (t.parameters.get(key) or {}).items():
                defs[f"{t.name}.{name}"] = _rebased(sub, t.name)
        defs[f"{t.name}."] = _rebased({k: v for k, v in t.parameters.items()
                                       if k not in ("$defs", "definitions")}, t.name)
    options = [{"type": "object", "properties": {
        "name": {"const": t.name}, "arguments": {"$ref": f"#/$defs/{t.name}."}},
        "required": ["name", "arguments"], "additionalProperties": False} for t in chosen]
    calls = {"type": "array", "items": options[0] if len(options) == 1 else {"anyOf": options},
             "minItems": 1, "maxItems": MAX_PARALLEL_CALLS if parallel and not named else 1}
    return json.dumps({"$defs": defs, "type": "object", "properties": {"tool_calls": calls},
                       "required": ["tool_calls"], "additionalProperties": False},
                      ensure_ascii=False, separators=(",", ":"))


def _rebased(schema: object, tool: str) -> object:
    """``schema`` with its local ``$ref``s pointing where ``call_schema`` moved them."""
    if isinstance(schema, list):
        return [_rebased(s, tool) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _rebased(v, tool) for k, v in schema.items()}
    ref = schema.get("$ref")
    if isinstance(ref, str):
        if ref == "#":
            out["$ref"] = f"#/$defs/{tool}."
        for key in ("#/$defs/", "#/definitions/"):
            if ref.startswith(key):
                out["$ref"] = f"#/$defs/{tool}.{ref[len(key):]}"
    return out


def call_text(calls: list[dict]) -> str:
    """A past assistant call (OpenAI's ``tool_calls``) as the text the model would have written."""
    return json.dumps({"tool_calls": [
        {"name": c["function"]["name"], "arguments": _arguments(c["function"]["arguments"])}
        for c in calls]}, ensure_ascii=False, separators=(",", ":"))


def _arguments(raw: str) -> object:
    try:
        return json.loads(raw)
    except (TypeError, ValueError):
        return raw  # sent as it was: what the model wrote, even if it was not JSON


def _not_json(name: str):
    raise ValueError(f"{name} is not JSON")


def result_text(name: str, content: str) -> str:
    return f'<tool_response name="{name}">\n{content}\n</tool_response>'


def parse_calls(text: str, tools: list[Tool], parallel: bool,
                required: bool = False) -> list[dict] | None:
    """OpenAI ``tool_calls`` if ``text`` is a call of known tools with valid arguments, the
    same call twice once. ``required``: the grammar shaped the reply, so it is the call (a
    validator may still disagree with the grammar at an edge: docs/structured-output.md)."""
    try:
        data = json.loads(text, parse_constant=_not_json)
    except ValueError:
        return None
    by_name = {t.name: t for t in tools}
    if not isinstance(data, dict) or set(data) != {"tool_calls"} or not isinstance(
            data["tool_calls"], list) or not data["tool_calls"]:
        return None
    calls, seen = [], []
    for call in data["tool_calls"][:None if parallel else 1]:
        if not isinstance(call, dict) or set(call) != {"name", "arguments"} \
                or call["name"] not in by_name:
            return None
        try:
            jsonschema.validate(call["arguments"], by_name[call["name"]].parameters)
        except jsonschema.ValidationError:
            if not required:
                return None
        if call in seen:  # a small model repeats a call it has made: it is run once
            continue
        seen.append(call)
        calls.append({"id": f"call_{uuid.uuid4().hex[:24]}", "type": "function", "function": {
            "name": call["name"], "arguments": json.dumps(call["arguments"], ensure_ascii=False)}})
    return calls


_OPENING = re.compile(r'\s*\{\s*"tool_calls"\s*:\s*\[\s*')


class WrittenCalls:
    """The whole call objects a reply that opens a call array has written so far, read as the
    reply grows: each ``read`` of the longer text scans only the characters that came since the
    last (strings and nesting tracked), and parses an object once, when it closes. Parsing the
    reply, or even the call being written, again at every chunk was quadratic in its length.
    Reading stops at anything but an object, or one that does not parse: no call array holds
    one."""

    def __init__(self) -> None:
        self.items: list[dict] = []
        self._scanned: int | None = None  # how far the text is read; None: no opening seen yet
        self._start = 0  # where the object being written began
        self._depth = 0  # its open brackets
        self._in_string = self._escaped = self._stopped = False

    def read(self, text: str) -> list[dict] | None:
        """The objects written so far (None: ``text`` does not open a call array); ``text``
        must extend the text of the previous call."""
        if self._scanned is None:
            opening = _OPENING.match(text)
            if opening is None:
                return None
            self._scanned = opening.end()
        at, self._scanned = self._scanned, len(text)
        while at < len(text) and not self._stopped:
            c = text[at]
            if self._depth == 0:
                if c == "{":
                    self._start, self._depth = at, 1
                elif c not in " \t\r\n,":
                    self._stopped = True  # the array's end, or an item that is no call
            elif self._in_string:
                if self._escaped:
                    self._escaped = False
                elif c == "\\":
                    self._escaped = True
                elif c == '"':
                    self._in_string = False
            elif c == '"':
                self._in_string = True
            elif c in "{[":
                self._depth += 1
            elif c in "}]":
                self._depth -= 1
                if self._depth == 0:
                    try:
                        self.items.append(json.loads(text[self._start:at + 1]))
                    except (ValueError, RecursionError):  # mismatched brackets, bad values
                        self._stopped = True
            at += 1
        return self.items


class CallRepeats:
    """Whether a reply writing calls has just written one it wrote before: a small model,
    once it has made its call, tends to write it again until the array's limit or the token
    budget is spent (eight times, or cut short with no call at all), so the reply ends there.
    Called with the reply at every chunk (``Generation.ends_at``); one per reply."""

    def __init__(self) -> None:
        self._calls = WrittenCalls()
        self._seen = 0

    def __call__(self, text: str) -> bool:
        items = self._calls.read(text) or []
        new, self._seen = items[self._seen:], len(items)
        at = len(items) - len(new)
        return any(item in items[:at + i] for i, item in enumerate(new))

    def array(self) -> str:
        """The calls read so far as a whole call array (what ``calls_so_far`` would make of
        the text, without reading it again)."""
        return json.dumps({"tool_calls": self._calls.items}, ensure_ascii=False)


def calls_so_far(text: str) -> str:
    """``text`` as a whole call array: itself if it parses, else the calls it wrote whole
    (a reply ended where it repeated one)."""
    try:
        json.loads(text)
        return text
    except ValueError:
        items = WrittenCalls().read(text)
        return json.dumps({"tool_calls": items}, ensure_ascii=False) if items else text


def could_be_call(text: str) -> bool:
    """Whether a reply that starts with ``text`` may still turn out to be a call (streaming
    holds it back until it is known)."""
    return text.lstrip()[:1] in ("", "{")
