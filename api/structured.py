"""``response_format``: OpenAI's shape, checked here and turned into the JSON Schema the engine
enforces token by token (``api/engine/grammar.py``).

``{"type": "text"}`` is plain text; ``{"type": "json_object"}`` is any JSON object;
``{"type": "json_schema", "json_schema": {"name", "schema", "strict"?, "description"?}}`` is JSON
that validates against ``schema``. With ``strict: true`` (what the official SDK's ``parse``
sends) an object that names its ``properties`` and says nothing of ``additionalProperties``
takes no other keys, as OpenAI's strict mode requires of every object; without it the schema
means what JSON Schema says. Either way every keyword must be one the grammar engine enforces:
a schema using one it would ignore (``uniqueItems``, ``if``, an unknown ``format``, a regex
look-around, a ``$ref`` that points nowhere) is a 400 naming it, never a reply that silently
breaks it.
"""

from __future__ import annotations

import json
import re

import llguidance
from marshmallow import ValidationError, fields

from .engine.grammar import JSON_OPTIONS

MAX_SCHEMA_CHARS = 100_000
NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
ANY_OBJECT = '{"type":"object"}'
_SUBSCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties", "dependentSchemas")
_SUBSCHEMA_LISTS = ("anyOf", "oneOf", "prefixItems")
_SUBSCHEMAS = ("items", "additionalProperties", "contains", "not", "propertyNames")


def closed_objects(schema: object) -> object:
    """``schema`` with ``additionalProperties: false`` on every object schema that lists its
    ``properties`` and leaves extra keys unsaid (strict mode). Subschemas of ``allOf`` are
    left as they are: closing each part would refuse the keys the other parts add."""
    if isinstance(schema, list):
        return [closed_objects(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    for key in _SUBSCHEMA_MAPS:
        if isinstance(out.get(key), dict):
            out[key] = {k: closed_objects(v) for k, v in out[key].items()}
    for key in _SUBSCHEMA_LISTS:
        if isinstance(out.get(key), list):
            out[key] = [closed_objects(s) for s in out[key]]
    for key in _SUBSCHEMAS:
        if isinstance(out.get(key), dict):
            out[key] = closed_objects(out[key])
    if ("properties" in out and not {"additionalProperties", "patternProperties",
                                     "unevaluatedProperties"} & set(out)):
        out["additionalProperties"] = False
    return out


MAX_DEPTH = 256  # JSON levels of a schema, its local references followed


class _TooDeep(Exception):
    pass


def _check_depth(root: object) -> None:
    """Raise _TooDeep where ``root`` nests past MAX_DEPTH levels, each local ``$ref`` followed
    where it stands (a reference back into one being followed counts once). The grammar
    engine's own stack overflowed on a chain of 1,100 references: the worker died (SIGSEGV),
    where a schema nested that deep inline gets its error."""
    heights: dict[str, int] = {}  # a reference's target: how deep it nests below it
    following: set[str] = set()

    def target(ref: str) -> object:
        node = root
        for part in ref[2:].split("/") if ref.startswith("#/") else []:
            part = part.replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                return None
        return node if ref.startswith("#") else None

    def height(node: object, level: int) -> int:
        if level > MAX_DEPTH:
            raise _TooDeep
        below = 0
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref not in following:
                if ref not in heights and (found := target(ref)) is not None:
                    following.add(ref)
                    heights[ref] = height(found, level + 1)
                    following.discard(ref)
                below = heights.get(ref, 0)
                if level + below > MAX_DEPTH:
                    raise _TooDeep
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
        for child in children:
            if isinstance(child, (dict, list)):
                below = max(below, height(child, level + 1))
        return below + 1

    height(root, 0)


def check_enforceable(schema_json: str) -> None:
    """Raise ValidationError naming what the grammar engine could not enforce in the schema."""
    schema = json.loads(schema_json)
    try:
        _check_depth(schema)
    except _TooDeep:
        raise ValidationError(f"This JSON schema cannot be enforced: it nests deeper than "
                              f"{MAX_DEPTH} levels (its $ref references followed). Flatten it."
                              ) from None
    fraction = _fractional_multiple(schema)
    if fraction is not None:  # the engine fails on some of these mid-reply (NoExtensionBias)
        raise ValidationError(f"This JSON schema cannot be enforced: multipleOf {fraction} is "
                              "not a whole number. Leave it out, or scale the value to one.")
    try:
        grammar = llguidance.LLMatcher.grammar_from_json_schema(schema_json, defaults=JSON_OPTIONS)
        _is_error, problems = llguidance.LLMatcher.validate_grammar_with_warnings(grammar)
    except (ValueError, RuntimeError, RecursionError) as exc:  # e.g. nested past its limit
        problems = [str(exc) or type(exc).__name__]
    if problems:  # an error, or a warning: a keyword it would ignore
        first = problems[0].strip().splitlines()
        raise ValidationError("This JSON schema cannot be enforced: "
                              f"{' '.join(line.strip() for line in first)[:300]}. "
                              "Leave the feature out of the schema.")


class ResponseFormatField(fields.Field):
    """``response_format`` in OpenAI's shape; loads as the JSON Schema to enforce (canonical
    JSON text), or None for plain text."""

    def __init__(self, **kwargs):
        kwargs.setdefault("metadata", {"description": (
            "{'type': 'text'} (default), {'type': 'json_object'}, or {'type': 'json_schema', "
            "'json_schema': {'name', 'schema', 'strict'}}: the reply is constrained token by "
            "token to JSON that parses (and validates against the schema), unless max tokens "
            "run out first (finish_reason 'length')."), "type": "object"})
        super().__init__(**kwargs)

    def _deserialize(self, value, attr, data, **kwargs) -> str | None:
        if not isinstance(value, dict):
            raise ValidationError("Must be an object such as {'type': 'json_object'}.")
        kind = value.get("type")
        allowed = {"text": {"type"}, "json_object": {"type"}, "json_schema": {"type", "json_schema"}}
        if not isinstance(kind, str) or kind not in allowed:
            raise ValidationError("type must be 'text', 'json_object' or 'json_schema'.")
        extra = sorted(k for k, v in value.items() if k not in allowed[kind] and v is not None)
        if extra:  # e.g. a json_schema sent with type text: it would do nothing
            raise ValidationError(f"response_format of type {kind} takes no {extra[0][:40]!r}.")
        if kind == "text":
            return None
        if kind == "json_object":
            return ANY_OBJECT
        return _schema_of(value.get("json_schema"))


def _schema_of(spec: object) -> str:
    if not isinstance(spec, dict):
        raise ValidationError("json_schema must be an object: {'name': ..., 'schema': {...}}.")
    unknown = sorted(set(spec) - {"name", "schema", "strict", "description"})
    if unknown:
        raise ValidationError(f"json_schema takes no {unknown[0][:40]!r}.")
    name = spec.get("name")
    if not isinstance(name, str) or not NAME.match(name):
        raise ValidationError("json_schema.name is required: 1 to 64 letters, digits, _ or -.")
    if not isinstance(spec.get("description", ""), str):
        raise ValidationError("json_schema.description must be a string.")
    strict = spec.get("strict")
    if strict is not None and not isinstance(strict, bool):
        raise ValidationError("json_schema.strict must be true, false or null.")
    schema = spec.get("schema", {})
    if not isinstance(schema, dict):
        raise ValidationError("json_schema.schema must be a JSON Schema object.")
    if strict:
        schema = closed_objects(schema)
    try:
        text = json.dumps(schema, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except ValueError:
        raise ValidationError("json_schema.schema holds NaN or an infinite number.") from None
    if len(text) > MAX_SCHEMA_CHARS:
        raise ValidationError(f"json_schema.schema is over {MAX_SCHEMA_CHARS} characters.")
    check_enforceable(text)
    return text


def _fractional_multiple(schema: object) -> object:
    """The first ``multipleOf`` that is not a whole number in ``schema``, if any."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            value = node.get("multipleOf")
            if isinstance(value, int | float) and not isinstance(value, bool) and (
                    value <= 0 or value != int(value)):
                return value
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return None
