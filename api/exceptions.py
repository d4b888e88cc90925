"""The domain's exception tree. Pure: raised deep (trimming, engine, memory), with no HTTP in
them; ``errors.py`` maps each class to its status, code and headers in one table.

    MnemoError                  anything that went wrong, said for the client
    ├── ValidationFailed        the request is malformed, with field paths
    │   └── OutputUnsatisfiable the required output format leaves the model no token
    ├── UnsupportedMediaType    the body is not JSON
    ├── ContextLengthExceeded   what must be sent does not fit the context window
    ├── PresetLocked            a locked preset's prompt or setting was changed
    ├── InvalidSummary          a summary that must carry this server's signature does not
    ├── UnknownAdapter          a request names an adapter (model) that is not served
    ├── UnsupportedByEngine     an option the remote engine cannot honour
    ├── EngineRefused           the remote engine refused the request
    ├── Unauthorized            no valid key
    ├── AdapterNotFound         the admin API names no loaded adapter
    ├── AdapterConflict         an adapter of that name is loaded (or in use)
    ├── AdapterInvalid          an adapter's path, weights or shapes do not fit
    ├── Overloaded              too many requests wait already (retry_after)
    ├── RateLimited             this client asked too often (retry_after)
    ├── NotReady                the model is not loaded yet (retry_after)
    ├── GenerationFailed        the model raised, e.g. out of memory
    ├── EngineUnavailable       the remote engine is down (retry_after)
    ├── SummaryFailed           no summary was made; nothing was replaced
    └── ShuttingDown            draining after SIGTERM (retry_after)

Every error carries a message for the client; ``fields`` (a field path -> messages) and
``param`` name the input at fault (where the raiser knows the API's field; else the class's
row in ``errors.SHAPES`` names it), ``retry_after`` (seconds) says when trying again may work.
"""

from __future__ import annotations


class MnemoError(Exception):
    def __init__(self, message: str, *, fields: dict | None = None, param: str | None = None,
                 retry_after: float | None = None):
        super().__init__(message)
        self.message = message
        self.fields = fields
        self.param = param
        self.retry_after = retry_after


class ValidationFailed(MnemoError):
    pass


class OutputUnsatisfiable(ValidationFailed):
    """The output format (a schema or grammar) left no token the model could continue with."""


class UnsupportedMediaType(MnemoError):
    pass


class ContextLengthExceeded(MnemoError):
    pass


class PresetLocked(MnemoError):
    """A client tried to change what a locked preset fixes (its system prompt or a setting)."""


class InvalidSummary(MnemoError):
    """A summary that must carry this server's signature does not (altered, or written elsewhere)."""


class UnknownAdapter(MnemoError):
    pass


class UnsupportedByEngine(MnemoError):
    """An option that would change the reply, which the remote engine cannot honour."""


class EngineRefused(MnemoError):
    """The remote engine answered the request with a 4xx of its own (not 429)."""


class Unauthorized(MnemoError):
    pass


class AdapterNotFound(MnemoError):
    pass


class AdapterConflict(MnemoError):
    pass


class AdapterInvalid(MnemoError):
    pass


class Overloaded(MnemoError):
    pass


class RateLimited(MnemoError):
    pass


class NotReady(MnemoError):
    pass


class GenerationFailed(MnemoError):
    pass


class EngineUnavailable(MnemoError):
    """The remote engine cannot be reached, or failed mid-reply."""


class SummaryFailed(MnemoError):
    """The model could not make a summary (it failed, or returned nothing); nothing is replaced."""


class ShuttingDown(MnemoError):
    pass
