"""Mnemo: a stateless chat server. ``create_app`` builds the Flask app; no model loads at import."""

from __future__ import annotations

import logging
from typing import Any

from flask import Flask

from .admission import SLOTS, CpuGate, yield_to_engine
from .config import Settings
from .engine import Engine
from .errors import register_error_handlers
from .lifecycle import announce_ready, init_drain
from .memory import Memory
from .metrics import init_metrics
from .openai_schema import OpenAISchemas
from .presets import load_presets
from .schemas import Schemas
from .security import register_security


def create_app(test_config: dict[str, Any] | None = None, *, freeze_start: bool = False) -> Flask:
    """Build the app: defaults, then MNEMO_* environment variables, then ``test_config``.

    ``freeze_start``: this process serves this app for life (wsgi.py), so what its start made
    is frozen out of later garbage collections (``Engine._start``)."""
    settings = Settings.load(overrides=test_config)
    app = Flask(__name__, static_folder=None)
    # No redirects: "/api//config" is a JSON 404 and "/api/config/" is served as "/api/config",
    # never a 308 with an HTML body.
    app.url_map.merge_slashes = False
    app.url_map.strict_slashes = False
    app.config["MNEMO"] = settings
    app.config["MAX_CONTENT_LENGTH"] = settings.max_request_bytes
    app.config["DEBUG"] = False  # never on: tracebacks must not reach clients
    app.json.ensure_ascii = False
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    # Access lines are for deployments (MNEMO_ACCESS_LOG=1); a local start shows Mnemo's own.
    logging.getLogger("mnemo.access").setLevel(logging.INFO if settings.access_log
                                               else logging.WARNING)
    presets = load_presets(settings)  # a bad preset file stops the start, naming file and field
    app.extensions["presets"] = presets
    app.extensions["schemas"] = Schemas(settings, presets)
    app.extensions["openai_schemas"] = OpenAISchemas(settings, presets)
    app.extensions["memory"] = Memory.from_settings(settings)
    # A request's own CPU work waits its turn and yields to the engine (api/admission.py):
    # those preparing and waiting, with what the engine holds, fit its batch and queue.
    room = settings.max_batch_size + settings.max_queue
    app.extensions["cpu_gate"] = CpuGate(max_waiting=max(0, room - SLOTS),
                                         wait=settings.generation_timeout,
                                         busy=lambda: app.extensions["engine"].busy(),
                                         held=lambda: app.extensions["engine"].held())
    app.before_request(yield_to_engine)

    if settings.proxy_hops:  # client addresses from X-Forwarded-For, as many hops as trusted
        from werkzeug.middleware.proxy_fix import ProxyFix

        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=settings.proxy_hops)
    register_error_handlers(app)
    init_drain(app)
    register_security(app, settings)
    init_metrics(app)
    from .routes import admin, chat, completions, docs, health, openai, page

    for module in (health, chat, openai, completions, docs, page):
        app.register_blueprint(module.bp)
    if settings.admin_keys:  # off unless configured: /admin/... is a 404
        app.register_blueprint(admin.bp)
    if settings.engine_url:  # a remote engine generates; this process is its front
        from .remote import RemoteEngine

        RemoteEngine.check_presets(presets.values())
        backend = RemoteEngine(settings)
    else:
        backend = Engine(settings, freeze_start=freeze_start)
    app.extensions["engine"] = backend
    backend.start()
    announce_ready(backend)
    return app
