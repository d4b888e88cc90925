"""The generation seam: what the service needs from whatever generates the reply.

Two backends stand behind it: the embedded engine (``api.engine.Engine``, the default) and a
remote engine over HTTP (``api.remote.RemoteEngine``, chosen by ``MNEMO_ENGINE_URL``). Both
hold the model's tokenizer here, in the front, so validation, trimming, memory and rendering
are the same on either; a backend receives a rendered prompt as token ids with its
``SamplingParams`` and answers with a ``Handle``: a stream of Chunks (text, then a finish
reason and usage on the last), cancelled by ``cancel()``.
"""

from __future__ import annotations

import threading

from .engine.decoding import byte_tokenizer
from .engine.grammar import schema_problem
from .exceptions import NotReady, UnknownAdapter, ValidationFailed
from .prompt import PromptBuilder
from .types import SamplingParams


class Backend:
    """Readiness, the tokenizer's prompt operations and the adapter check, shared by every
    backend; a subclass loads (``_start``), names itself and submits."""

    kind = "embedded"  # how /readyz and errors name it

    def __init__(self):
        self.ready = threading.Event()
        self.load_error: BaseException | None = None
        self.prompts: PromptBuilder | None = None
        self._prompt_lock = threading.Lock()

    def use_tokenizer(self, tokenizer) -> None:
        """The model's tokenizer, once loaded: prompts are rendered here, in the front."""
        self.prompts = PromptBuilder(tokenizer)

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
        """Raise ``UnsupportedByEngine`` for an option this backend cannot honour, and
        ``ValidationFailed`` for a JSON schema this model's tokens cannot follow."""
        if params.json_schema:
            with self._prompt_lock:
                tokenizer = self.prompts.tokenizer
                problem = schema_problem(params.json_schema, tokenizer, {tokenizer.eos_token_id})
            if problem:
                raise ValidationFailed(f"response_format: this JSON schema cannot be followed: "
                                       f"{problem}.", param="response_format")

    def busy(self) -> bool:
        """Whether this process is generating replies now (a request's CPU work then gives way:
        ``admission``). A remote engine's replies run elsewhere."""
        return False

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

    def build_prompt(self, messages, *, system, max_new_tokens, max_turns, with_text=False,
                     tenant: str | None = None, **memory):
        """Measure, plan and render under a lock: the Rust tokenizer is not re-entrant across
        threads. ``memory``: ``context``, ``covers``, ``relevance`` (see ``PromptBuilder.build``).
        ``tenant`` (an API key's id) scopes the cache of tokenized contents it may use."""
        with self._prompt_lock:
            return self.prompts.build(messages, system=system, max_new_tokens=max_new_tokens,
                                      context_window=self.context_window, max_turns=max_turns,
                                      with_text=with_text, scope=tenant, **memory)

    def count_tokens(self, *texts: str) -> list[int]:
        """Tokens of each text, tokenized together (in one call) as user text."""
        with self._prompt_lock:
            return [len(ids) for ids in self.prompts.tokenize_text(list(texts))]

    def truncate_tokens(self, text: str, limit: int) -> str:
        """The longest prefix of ``text`` within ``limit`` tokens (sliced as ids, then decoded)."""
        with self._prompt_lock:
            ids = self.prompts.tokenize_text([text])[0]
            return text if len(ids) <= limit else self.prompts.tokenizer.decode(ids[:limit])

    def tokenize(self, text: str, *, add_special: bool = True) -> list[int]:
        """``text`` as a completion prompt (``/v1/completions``, ``/tokenize``): control-token
        text is read as the control token, as vLLM reads it; ``add_special``: the tokenizer's
        own additions (a BOS, for models that have one)."""
        with self._prompt_lock:
            return self.prompts.tokenizer(text, add_special_tokens=add_special)["input_ids"]

    def detokenize(self, ids: list[int]) -> str:
        with self._prompt_lock:
            return self.prompts.tokenizer.decode(ids)

    def token_bytes(self, ids: list[int]) -> list[bytes]:
        """Each id's own bytes (a token may hold part of a character)."""
        with self._prompt_lock:
            table = byte_tokenizer(self.prompts.tokenizer)
        return [table.decode_bytes([i]) for i in ids]

    @property
    def vocab_size(self) -> int:
        return len(self.prompts.tokenizer)
