"""Liveness, readiness and what a client needs to budget its history."""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify

from ..chat_defaults import DEFAULT_MAX_TURNS
from ..service import engine

bp = Blueprint("health", __name__)


@bp.get("/healthz")
def healthz():
    return jsonify({"status": "ok"})


@bp.get("/readyz")
@bp.get("/health")  # the name vLLM and llama.cpp's server use: a front checks one Mnemo so
def readyz():
    # NotReady: 503 with Retry-After, in the usual error shape; a remote engine's is asked
    return jsonify(engine().readiness())


@bp.get("/api/config")
def config():
    eng = engine()
    eng.require_ready()
    s = current_app.config["MNEMO"]
    return jsonify({
        "model": eng.model_id,
        "context_window": eng.context_window,
        "adapters": list(eng.adapters),
        "presets": {name: p.as_dict() for name, p in current_app.extensions["presets"].items()},
        "defaults": {"max_new_tokens": s.default_max_new_tokens, "max_turns": DEFAULT_MAX_TURNS},
        "limits": {
            "max_new_tokens": s.max_new_tokens_limit,
            "max_request_bytes": s.max_request_bytes,
            "max_messages": s.max_messages,
            "max_message_chars": s.max_message_chars,
            "max_batch_size": s.max_batch_size,
            "max_queue": s.max_queue,
            "generation_timeout_s": s.generation_timeout,
        },
    })
