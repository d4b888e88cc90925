"""The generation seam: what the service needs from whatever generates the reply.

Two backends stand behind it: the embedded engine (``api.engine.Engine``, the default) and a
remote engine over HTTP (``api.remote.RemoteEngine``, chosen by ``MNEMO_ENGINE_URL``). Each
loads the model's tokenizer (``tokenizer``), which the front uses (``api.tokenizer``) so that
validation, trimming, memory and rendering are the same on either; a backend receives a
rendered prompt as token ids with its ``SamplingParams`` and answers with a ``Handle``: a
stream of Chunks (text, then a finish reason and usage on the last), cancelled by ``cancel()``.
It knows nothing of prompts or HTTP.
"""

from __future__ import annotations

import threading

from .exceptions import NotReady, UnknownAdapter
from .types import SamplingParams


class Backend:
    """Readiness and the adapter check, shared by every backend; a subclass loads
    (``start``), names itself and submits."""

    kind = "embedded"  # how /readyz and errors name it

    def __init__(self):
        self.ready = threading.Event()
        self.load_error: BaseException | None = None
        self.tokenizer = None  # the model's, once loaded

    # -- what a subclass provides ---------------------------------------------------------
    @property
    def model_id(self) -> str:
        raise NotImplementedError

    @property
    def context_window(self) -> int:
        raise NotImplementedError

    @property
    def adapters(self) -> tuple[str, ...]:
        raise NotImplementedError

    def submit(self, prompt_ids: list[int], params: SamplingParams, adapter: str | None,
               tenant: str | None = None, keep_kv: bool = True, affinity: str | None = None,
               share_prompt: bool = False):
        """Queue a generation and return its Handle; the caller checked readiness, the
        adapter and the parameters. ``tenant``: whose cached prefixes it may use;
        ``keep_kv=False``: a one-off prompt (a summary's) whose KV is not worth keeping;
        ``affinity``: the conversation's routing key (``remote`` sends it on);
        ``share_prompt``: other choices of this prompt follow once its ``started`` is set."""
        raise NotImplementedError

    def check_params(self, params: SamplingParams, adapter: str | None) -> None:
        """Raise ``UnsupportedByEngine`` for an option this backend cannot honour."""

    def busy(self) -> bool:
        """Whether this process is generating replies now (a request's CPU work then gives way:
        ``admission``). A remote engine's replies run elsewhere."""
        return False

    def held(self) -> int:
        """Requests this backend runs or queues now (each holds a request thread)."""
        return 0

    def readiness(self) -> dict:
        """For ``/readyz``: raises NotReady unless requests can be served now."""
        self.require_ready()
        return {"status": "ready", "model": self.model_id, "engine": self.kind}

    def metric_lines(self) -> list[str]:
        """Prometheus lines of the backend's own (queue, batch, remote latency)."""
        return []

    def stop(self) -> None:
        """Stop what the backend runs (the generation thread, the connection pool)."""

    # -- shared ----------------------------------------------------------------------------
    def require_ready(self) -> None:
        if not self.ready.is_set():
            raise NotReady(f"The model {self.not_ready_reason()}.", retry_after=5)

    def not_ready_reason(self) -> str:
        return "failed to load; see the server log" if self.load_error else "is still loading"

    def check_adapter(self, name: str | None) -> None:
        if name is not None and name not in self.adapters:
            known = ", ".join(sorted(self.adapters)) or "none are configured"
            raise UnknownAdapter(f"Unknown adapter {name!r}; known adapters: {known}.",
                                 param="adapter")
