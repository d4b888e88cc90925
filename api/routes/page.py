"""The bundled chat page: static files, served with a strict Content-Security-Policy."""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, send_from_directory

STATIC = Path(__file__).resolve().parents[2] / "static"

bp = Blueprint("page", __name__)


@bp.get("/")
def index():
    return send_from_directory(STATIC, "index.html")


@bp.get("/favicon.ico")
def favicon():
    """What a browser asks for by habit (the page names the SVG itself)."""
    return send_from_directory(STATIC, "favicon.svg", mimetype="image/svg+xml")


@bp.get("/static/<path:name>")
def asset(name: str):
    return send_from_directory(STATIC, name)
