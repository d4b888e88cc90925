"""The HTTP boundary for errors: every failure answers with the JSON shape of its surface.

Native routes answer ``{"error": {"code", "message", "status", "fields"?}}``; ``/v1`` routes
answer OpenAI's ``{"error": {"message", "type", "param", "code"}}`` so each SDK raises its own
exception class. Werkzeug's HTTP errors (404, 405, 413, 415, ...) and anything unexpected (500,
no traceback in the body) go through the same two shapes.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass

from flask import Flask, Response, jsonify, request
from werkzeug.exceptions import HTTPException

from . import exceptions as ex
from .exceptions import MnemoError

log = logging.getLogger("mnemo")

INVALID, SERVER = "invalid_request_error", "server_error"


@dataclass(frozen=True)
class Shape:
    """How one kind of error answers: its status, machine code and OpenAI error type;
    ``openai_status`` and ``openai_code`` where ``/v1`` answers otherwise; ``param``, the
    request field at fault when the error itself names none (raised below the API, which
    knows no field names), as ``/v1`` spells it; ``field``, the same as the native API spells
    it (its ``fields``)."""

    status: int
    code: str
    openai_type: str = INVALID
    openai_status: int | None = None
    openai_code: str | None = None
    headers: tuple[tuple[str, str], ...] = ()
    param: str | None = None
    field: str | None = None


# The one table from the domain's errors to HTTP. A class not here answers as its nearest
# listed base: MnemoError itself as a 500.
SHAPES: dict[type[MnemoError], Shape] = {
    MnemoError: Shape(500, "internal_error", SERVER),
    ex.ValidationFailed: Shape(400, "validation_error"),
    ex.OutputUnsatisfiable: Shape(400, "validation_error", param="response_format",
                                  field="response_format"),
    ex.UnsupportedMediaType: Shape(415, "unsupported_media_type"),
    ex.ContextLengthExceeded: Shape(400, "context_length_exceeded"),
    ex.PresetLocked: Shape(400, "preset_locked"),
    ex.InvalidSummary: Shape(400, "invalid_summary"),
    # OpenAI answers an unknown model with 404 model_not_found
    ex.UnknownAdapter: Shape(400, "unknown_adapter", openai_status=404, openai_code="model_not_found",
                             param="model", field="adapter"),
    ex.UnsupportedByEngine: Shape(400, "unsupported_by_engine"),
    ex.EngineRefused: Shape(400, "engine_refused"),
    ex.Unauthorized: Shape(401, "unauthorized", "authentication_error",
                           headers=(("WWW-Authenticate", "Bearer"),)),
    ex.AdapterNotFound: Shape(404, "adapter_not_found"),
    ex.AdapterConflict: Shape(409, "adapter_exists"),
    ex.AdapterInvalid: Shape(422, "adapter_invalid"),
    ex.Overloaded: Shape(429, "overloaded", "rate_limit_error"),
    ex.RateLimited: Shape(429, "rate_limited", "rate_limit_error"),
    ex.NotReady: Shape(503, "not_ready", SERVER),
    ex.GenerationFailed: Shape(503, "generation_failed", SERVER),
    ex.EngineUnavailable: Shape(503, "engine_unavailable", SERVER),
    ex.SummaryFailed: Shape(503, "summary_failed", SERVER),
    ex.ShuttingDown: Shape(503, "shutting_down", SERVER),
}

# Werkzeug's errors by status: stable machine codes for the native shape.
_HTTP_CODES = {
    400: "bad_request", 401: "unauthorized", 404: "not_found", 405: "method_not_allowed",
    413: "request_too_large", 415: "unsupported_media_type", 429: "too_many_requests",
    503: "unavailable",
}


class HTTPFailure(MnemoError):
    """One of Werkzeug's HTTP errors (404, 405, 413, ...), carrying its own shape."""

    def __init__(self, message: str, shape: Shape):
        super().__init__(message)
        self.shape = shape


def shape_of(err: MnemoError) -> Shape:
    """The table's row for ``err``: its class's, or its nearest listed base's."""
    if isinstance(err, HTTPFailure):
        return err.shape
    return next(SHAPES[cls] for cls in type(err).__mro__ if cls in SHAPES)


def is_openai_path(path: str) -> bool:
    """Tell whether a path belongs to the OpenAI-compatible surface."""
    return path == "/v1" or path.startswith("/v1/")


def error_body(err: MnemoError, openai: bool) -> dict:
    """Shape one error for the native or the OpenAI surface."""
    shape = shape_of(err)
    if openai:
        return {"error": {"message": err.message, "type": shape.openai_type,
                          "param": err.param or shape.param, "code": shape.openai_code or shape.code}}
    body = {"code": shape.code, "message": err.message, "status": shape.status}
    field = err.param or shape.field  # where the error names none, the field it is about
    fields = err.fields or ({field: [err.message]} if field else None)
    if fields:
        body["fields"] = fields
    return {"error": body}


def error_headers(err: MnemoError) -> dict[str, str]:
    """The headers an error answers with: its row's, and ``Retry-After`` in whole seconds."""
    headers = dict(shape_of(err).headers)
    if err.retry_after is not None:
        headers["Retry-After"] = str(max(1, math.ceil(err.retry_after)))
    return headers


def error_response(err: MnemoError, openai: bool | None = None) -> Response:
    """Turn a domain error into a JSON response for the current request's surface."""
    if openai is None:
        openai = is_openai_path(request.path)
    shape = shape_of(err)
    resp = jsonify(error_body(err, openai))
    resp.status_code = (shape.openai_status if openai else None) or shape.status
    resp.headers.update(error_headers(err))
    return resp


def _from_http(exc: HTTPException) -> MnemoError:
    status = exc.code or 500
    message = exc.description or exc.name
    if status == 413:
        message = "The request body is larger than this server accepts (MNEMO_MAX_REQUEST_BYTES)."
    elif status == 404:
        message = f"No route matches {request.path!r}."
    elif status == 405:
        message = f"{request.method} is not allowed on {request.path!r}."
    allow = (("Allow", ", ".join(exc.valid_methods)),) if status == 405 and exc.valid_methods else ()
    return HTTPFailure(message, Shape(status, _HTTP_CODES.get(status, "http_error"),
                                      INVALID if status < 500 else SERVER, headers=allow))


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
