"""The admin API: list, load and unload LoRA adapters at run time.

Registered only when ``MNEMO_ADMIN_KEYS`` is set (otherwise every /admin path is a 404), and
every call needs one of those keys (``security``), never a client API key. Adapters are loaded
only from ``MNEMO_ADAPTER_DIR``; what is checked before one goes live is in
``api/engine/adapters.py``.
"""

from __future__ import annotations

from flask import Blueprint, jsonify
from marshmallow import Schema, fields, validate

from ..fields import StrictBoolean, load
from ..service import engine, read_json

bp = Blueprint("admin", __name__, url_prefix="/admin")

NAME = validate.Regexp(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}\Z",
                       error="Use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter "
                             "or digit.")


class LoadAdapter(Schema):
    name = fields.String(required=True, validate=NAME)
    path = fields.String(required=True, validate=validate.Length(1, 1024),
                         metadata={"description": "A directory inside MNEMO_ADAPTER_DIR."})
    replace = StrictBoolean(load_default=False)


def _listing() -> dict:
    eng = engine()
    return {"adapters": [{**a.as_dict(), "in_flight": eng.scheduler.in_flight(a.key)}
                         for a in eng.registry.all()]}


@bp.get("/adapters")
def list_adapters():
    engine().require_ready()
    return jsonify(_listing())


@bp.post("/adapters")
def load_adapter():
    eng = engine()
    eng.require_ready()
    body = load(LoadAdapter(), read_json())
    existed = eng.registry.get(body["name"]) is not None
    adapter = eng.load_adapter(body["name"], body["path"], replace=body["replace"])
    return jsonify({"loaded": adapter.as_dict(), "replaced": existed}), 200 if existed else 201


@bp.delete("/adapters/<name>")
def unload_adapter(name: str):
    eng = engine()
    eng.require_ready()
    adapter = eng.unload_adapter(name)
    return jsonify({"unloaded": adapter.as_dict()})

