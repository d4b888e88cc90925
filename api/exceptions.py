"""The domain's exception tree. Pure: raised deep (trimming, engine), translated to HTTP in errors.py.

    MnemoError                      status, code, message (JSON error body)
    ├── ValidationFailed            400 validation_error, with field paths
    ├── ContextLengthExceeded       400 context_length_exceeded
    ├── PresetLocked                400 preset_locked (a locked preset's prompt or setting)
    ├── InvalidSummary              400 invalid_summary (unsigned or altered, where it must be signed)
    ├── UnknownAdapter              400 unknown_adapter (404 model_not_found on /v1)
    ├── UnsupportedByEngine         400 unsupported_by_engine (an option the remote engine lacks)
    ├── EngineRefused               400 engine_refused (the remote engine refused the request)
    ├── Unauthorized                401 unauthorized
    ├── AdapterNotFound             404 adapter_not_found (admin API)
    ├── AdapterConflict             409 adapter_exists (admin API: load without replace)
    ├── AdapterInvalid              422 adapter_invalid (admin API: path, weights, shapes)
    ├── Overloaded                  429 overloaded, with Retry-After
    ├── RateLimited                 429 rate_limited, with Retry-After
    ├── NotReady                    503 not_ready
    ├── GenerationFailed            503 generation_failed (the model raised, e.g. out of memory)
    ├── EngineUnavailable           503 engine_unavailable (the remote engine is down), Retry-After
    ├── SummaryFailed               503 summary_failed (no summary made; nothing replaced)
    └── ShuttingDown                503 shutting_down (draining after SIGTERM), with Retry-After

"""

from __future__ import annotations


class MnemoError(Exception):
    status = 500
    code = "internal_error"
    openai_type = "server_error"

    def __init__(self, message: str, *, fields: dict | None = None, param: str | None = None,
                 headers: dict | None = None):
        super().__init__(message)
        self.message = message
        self.fields = fields
        self.param = param
        self.headers = headers or {}


class ValidationFailed(MnemoError):
    status, code, openai_type = 400, "validation_error", "invalid_request_error"


class ContextLengthExceeded(MnemoError):
    status, code, openai_type = 400, "context_length_exceeded", "invalid_request_error"


class UnknownAdapter(MnemoError):
    status, code, openai_type = 400, "unknown_adapter", "invalid_request_error"


class UnsupportedByEngine(MnemoError):
    """An option that would change the reply, which the remote engine cannot honour."""
    status, code, openai_type = 400, "unsupported_by_engine", "invalid_request_error"


class EngineRefused(MnemoError):
    """The remote engine answered the request with a 4xx of its own (not 429)."""
    status, code, openai_type = 400, "engine_refused", "invalid_request_error"


class AdapterNotFound(MnemoError):
    status, code, openai_type = 404, "adapter_not_found", "invalid_request_error"


class AdapterConflict(MnemoError):
    status, code, openai_type = 409, "adapter_exists", "invalid_request_error"


class AdapterInvalid(MnemoError):
    status, code, openai_type = 422, "adapter_invalid", "invalid_request_error"


class Unauthorized(MnemoError):
    status, code, openai_type = 401, "unauthorized", "authentication_error"


class Overloaded(MnemoError):
    status, code, openai_type = 429, "overloaded", "rate_limit_error"


class RateLimited(MnemoError):
    status, code, openai_type = 429, "rate_limited", "rate_limit_error"


class NotReady(MnemoError):
    status, code, openai_type = 503, "not_ready", "server_error"


class GenerationFailed(MnemoError):
    status, code, openai_type = 503, "generation_failed", "server_error"


class EngineUnavailable(MnemoError):
    """The remote engine cannot be reached, or failed mid-reply."""
    status, code, openai_type = 503, "engine_unavailable", "server_error"


class ShuttingDown(MnemoError):
    status, code, openai_type = 503, "shutting_down", "server_error"


class PresetLocked(MnemoError):
    """A client tried to change what a locked preset fixes (its system prompt or a setting)."""
    status, code, openai_type = 400, "preset_locked", "invalid_request_error"


class InvalidSummary(MnemoError):
    """A summary that must carry this server's signature does not (altered, or written elsewhere)."""
    status, code, openai_type = 400, "invalid_summary", "invalid_request_error"


class SummaryFailed(MnemoError):
    """The model could not make a summary (it failed, or returned nothing); nothing is replaced."""
    status, code, openai_type = 503, "summary_failed", "server_error"
