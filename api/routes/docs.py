"""The API contract: ``/openapi.json`` (generated from the schemas) and ``/docs`` (for people)."""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify, render_template

from ..openapi import build_spec

bp = Blueprint("docs", __name__)


def spec() -> dict:
    """Built per request (a few ms): its examples name the model once it has loaded."""
    return build_spec(current_app._get_current_object())


@bp.get("/openapi.json")
def openapi_json():
    return jsonify(spec())


@bp.get("/docs")
def docs():
    doc = spec()
    schemas = doc["components"]["schemas"]
    operations = []
    for path, item in doc["paths"].items():
        for method, op in item.items():
            body = op.get("requestBody", {}).get("content", {}).get("application/json", {})
            operations.append({
                "method": method.upper(), "path": path, "op": op,
                "fields": _fields(schemas, body.get("schema")) if body else [],
                "responses": [(status, r["description"], _media(r)) for status, r in
                              op["responses"].items()],
            })
    return render_template("docs.html", info=doc["info"], operations=operations)


def _media(response: dict) -> str:
    out = []
    for mime, media in response.get("content", {}).items():
        ref = media.get("schema", {}).get("$ref", "")
        out.append(f"{mime} {ref.rsplit('/', 1)[-1]}".strip())
    return ", ".join(out)


def _fields(schemas: dict, schema: dict | None) -> list[dict]:
    """One row per request field: name, type, required, constraints, description."""
    schema = _resolve(schemas, schema or {})
    required = set(schema.get("required", ()))
    rows = []
    for name, prop in schema.get("properties", {}).items():
        prop = _resolve(schemas, prop)
        rows.append({"name": name, "type": _type(schemas, prop), "required": name in required,
                     "constraints": _constraints(prop), "description": prop.get("description", "")})
    return rows


def _resolve(schemas: dict, schema: dict) -> dict:
    ref = schema.get("$ref")
    return schemas[ref.rsplit("/", 1)[-1]] if ref else schema


def _type(schemas: dict, prop: dict) -> str:
    if "oneOf" in prop:
        return " or ".join(_type(schemas, p) for p in prop["oneOf"])
    kind = prop.get("type", "any")
    if isinstance(kind, list):  # OpenAPI 3.1: ["string", "null"]
        return " or ".join(_type(schemas, {**prop, "type": k}) for k in kind)
    if kind == "array":
        items = _resolve(schemas, prop.get("items", {}))
        inner = "object" if "properties" in items else _type(schemas, items)
        kind = f"array of {inner}"
    return kind


def _constraints(prop: dict) -> str:
    keys = ("enum", "minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems",
            "pattern")
    return ", ".join(f"{k}: {prop[k]}" for k in keys if k in prop)
