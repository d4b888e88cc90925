"""The model's tokenizer in the front: every prompt is measured, planned and rendered here
(``prompt.PromptBuilder``), and text tokenized, whichever backend generates.

One ``Tokenizer`` per loaded tokenizer (``service.tokenizer()`` makes it once the backend has loaded
its tokenizer); its operations hold the lock of that tokenizer (one per tokenizer object,
whichever wrapper uses it), as the Rust tokenizer is not re-entrant across threads. The
backend receives what comes out of here: token ids.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable

from .engine.decoding import byte_tokenizer
from .engine.grammar import schema_problem
from .exceptions import ValidationFailed
from .prompt import PromptBuilder
from .types import SamplingParams

_locks: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_locks_guard = threading.Lock()


def _lock_of(tokenizer) -> threading.Lock:
    with _locks_guard:
        lock = _locks.get(tokenizer)
        if lock is None:
            lock = _locks[tokenizer] = threading.Lock()
        return lock


class Tokenizer:
    def __init__(self, tokenizer, context_window: Callable[[], int]):
        self.tokenizer = tokenizer
        self._window = context_window  # the backend's, asked each time
        self.prompts = PromptBuilder(tokenizer)
        self._lock = _lock_of(tokenizer)

    @classmethod
    def of(cls, backend) -> Tokenizer:
        """Over ``backend``'s loaded tokenizer, with its context window."""
        return cls(backend.tokenizer, lambda: backend.context_window)

    def build_prompt(self, messages, *, system, max_new_tokens, max_turns, with_text=False,
                     tenant: str | None = None, **memory):
        """Measure, plan and render. ``memory``: ``context``, ``covers``, ``relevance`` (see
        ``PromptBuilder.build``). ``tenant`` (an API key's id) scopes the cache of tokenized
        contents it may use."""
        with self._lock:
            return self.prompts.build(messages, system=system, max_new_tokens=max_new_tokens,
                                      context_window=self.context_window, max_turns=max_turns,
                                      with_text=with_text, scope=tenant, **memory)

    def check_schema(self, params: SamplingParams) -> None:
        """Raise ``ValidationFailed`` for a JSON schema this model's tokens cannot follow."""
        if params.json_schema:
            with self._lock:
                problem = schema_problem(params.json_schema, self.tokenizer,
                                         {self.tokenizer.eos_token_id})
            if problem:
                raise ValidationFailed(f"response_format: this JSON schema cannot be followed: "
                                       f"{problem}.", param="response_format")

    def count_tokens(self, *texts: str) -> list[int]:
        """Tokens of each text, tokenized together (in one call) as user text."""
        with self._lock:
            return [len(ids) for ids in self.prompts.tokenize_text(list(texts))]

    def truncate_tokens(self, text: str, limit: int) -> str:
        """The longest prefix of ``text`` within ``limit`` tokens (sliced as ids, then decoded)."""
        with self._lock:
            ids = self.prompts.tokenize_text([text])[0]
            return text if len(ids) <= limit else self.tokenizer.decode(ids[:limit])

    def tokenize(self, text: str, *, add_special: bool = True) -> list[int]:
        """``text`` as a completion prompt (``/v1/completions``, ``/tokenize``): control-token
        text is read as the control token, as vLLM reads it; ``add_special``: the tokenizer's
        own additions (a BOS, for models that have one)."""
        with self._lock:
            return self.tokenizer(text, add_special_tokens=add_special)["input_ids"]

    def detokenize(self, ids: list[int]) -> str:
        with self._lock:
            return self.tokenizer.decode(ids)

    def token_bytes(self, ids: list[int]) -> list[bytes]:
        """Each id's own bytes (a token may hold part of a character)."""
        with self._lock:
            table = byte_tokenizer(self.tokenizer)
        return [table.decode_bytes([i]) for i in ids]

    @property
    def context_window(self) -> int:
        return self._window()

    @property
    def vocab_size(self) -> int:
        with self._lock:
            return len(self.tokenizer)
