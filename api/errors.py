"""The HTTP boundary for errors: every failure answers with the JSON shape of its surface.

Native routes answer ``{"error": {"code", "message", "status", "fields"?}}``; ``/v1`` routes
answer OpenAI's ``{"error": {"message", "type", "param", "code"}}`` so each SDK raises its own
exception class. Werkzeug's HTTP errors (404, 405, 413, 415, ...) and anything unexpected (500,
no traceback in the body) go through the same two shapes.
"""

from __future__ import annotations

import logging

from flask import Flask, Response, jsonify, request
from werkzeug.exceptions import HTTPException

from .exceptions import MnemoError, UnknownAdapter

log = logging.getLogger("mnemo")


# Werkzeug's errors by status: stable machine codes for the native shape.
_HTTP_CODES = {
    400: "bad_request", 401: "unauthorized", 404: "not_found", 405: "method_not_allowed",
    413: "request_too_large", 415: "unsupported_media_type", 429: "too_many_requests",
    503: "unavailable",
}


def is_openai_path(path: str) -> bool:
    """Tell whether a path belongs to the OpenAI-compatible surface."""
    return path == "/v1" or path.startswith("/v1/")


def error_body(err: MnemoError, openai: bool) -> dict:
    """Shape one error for the native or the OpenAI surface."""
    if openai:
        code = err.code
        if isinstance(err, UnknownAdapter):
            code = "model_not_found"
        return {"error": {"message": err.message, "type": err.openai_type,
                          "param": err.param, "code": code}}
    body = {"code": err.code, "message": err.message, "status": err.status}
    if err.fields:
        body["fields"] = err.fields
    return {"error": body}


def error_response(err: MnemoError, openai: bool | None = None) -> Response:
    """Turn a domain error into a JSON response for the current request's surface."""
    if openai is None:
        openai = is_openai_path(request.path)
    status = err.status
    if openai and isinstance(err, UnknownAdapter):
        status = 404  # OpenAI answers an unknown model with 404 model_not_found
    resp = jsonify(error_body(err, openai))
    resp.status_code = status
    resp.headers.update(err.headers)
    return resp


def _from_http(exc: HTTPException) -> MnemoError:
    err = MnemoError(exc.description or exc.name)
    err.status = exc.code or 500
    err.code = _HTTP_CODES.get(err.status, "http_error")
    err.openai_type = "invalid_request_error" if err.status < 500 else "server_error"
    if exc.code == 413:
        err.message = "The request body is larger than this server accepts (MNEMO_MAX_REQUEST_BYTES)."
    elif exc.code == 404:
        err.message = f"No route matches {request.path!r}."
    elif exc.code == 405:
        err.message = f"{request.method} is not allowed on {request.path!r}."
    if exc.code == 405 and exc.valid_methods:
        err.headers["Allow"] = ", ".join(exc.valid_methods)
    return err


def register_error_handlers(app: Flask) -> None:
    """Answer every error, expected or not, with the JSON shape of its surface."""

    @app.errorhandler(MnemoError)
    def _domain(err: MnemoError):
        return error_response(err)

    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException):
        return error_response(_from_http(exc))

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception):
        log.exception("unhandled error on %s %s", request.method, request.path)
        return error_response(MnemoError("Internal server error; the server logged the details."))
