"""The output processor: turn sampled tokens into Chunks, check stops, end requests.

Everything a caller receives passes through here: text deltas (decoded incrementally, held back
around stop strings), the final Chunk with its finish reason and usage, or the error that ended
the request. ``release`` is called exactly once per request, whatever ended it, so its place in
the engine is freed once.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import torch

from ..exceptions import GenerationFailed, OutputUnsatisfiable
from ..types import Chunk, Usage
from .decoding import whole_text
from .grammar import GrammarViolation
from .request import Handle, Sequence


class Output:
    def __init__(self, tokenizer, eos_ids: frozenset[int], context_window: int,
                 release: Callable[[Handle], None]):
        self.tokenizer = tokenizer
        self.eos_ids = eos_ids
        self.context_window = context_window
        self.release = release

    def accept(self, seq: Sequence, token: int) -> bool:
        """Record one sampled token of a single-row sequence; return whether it is finished."""
        handle = seq.handle
        if handle.first_token_at is None:
            handle.first_token_at = time.monotonic()
            handle.started.set()
        seq.usage.completion_tokens += 1
        if token in self.eos_ids:
            self.finish(seq, "stop")
            return True
        seq.history.append(token)
        decoded = seq.decoder.push(token)
        if seq.sampler.last is not None:  # asked for: it travels with the first text it spells
            seq.logprobs.append((seq.sampler.last, seq.decoded))
        seq.decoded += len(decoded)
        text, hit_stop = seq.stopper.push(decoded)
        seq.sent += len(text)
        sent = self._logprobs(seq, upto=seq.sent) if seq.logprobs else []
        if text or sent:
            handle.put(Chunk(text=text, logprobs=sent))
        if hit_stop:  # what is still pending spelled the stop string, not the reply
            seq.logprobs = []
            self.finish(seq, "stop", flush=False)
            return True
        if (seq.usage.completion_tokens >= seq.params.max_new_tokens
                or len(seq.history) >= self.context_window
                or time.monotonic() >= handle.deadline):
            self.finish(seq, "length")
            return True
        seq.next_tokens = [token]
        return False

    def beams_done(self, seq: Sequence) -> None:
        """Send a finished beam search's best hypothesis as one delta, then its end."""
        best = seq.beams.best()
        ended = bool(best) and best[-1] in self.eos_ids
        text = whole_text(self.tokenizer, [t for t in best if t not in self.eos_ids])
        text, hit = seq.stopper.push(text)
        text += "" if hit else seq.stopper.flush()
        seq.handle.first_token_at = time.monotonic()
        seq.usage.completion_tokens = len(best)
        if text:
            seq.handle.put(Chunk(text=text))
        self.finish(seq, "stop" if ended or hit else "length", flush=False)

    def finish(self, seq: Sequence, reason: str, flush: bool = True) -> None:
        tail = seq.stopper.flush() if flush else ""
        seq.handle.put(Chunk(text=tail, finish_reason=reason, logprobs=self._logprobs(seq),
                             usage=Usage(seq.usage.prompt_tokens, seq.usage.completion_tokens)))
        self._release(seq.handle)

    @staticmethod
    def _logprobs(seq: Sequence, upto: float = float("inf")) -> list:
        """The pending TokenLogprobs whose text starts before character ``upto`` of the reply."""
        out = [entry for entry, start in seq.logprobs if start < upto]
        seq.logprobs = [(entry, start) for entry, start in seq.logprobs if start >= upto]
        return out

    def cancelled(self, handle: Handle, usage: Usage) -> None:
        """End a cancelled request with what it had made by then (a caller that stopped it at
        a point of its own still counts the tokens)."""
        handle.put(Chunk(finish_reason="cancelled",
                         usage=Usage(usage.prompt_tokens, usage.completion_tokens)))
        self._release(handle)

    def fail(self, seq_or_handle: Sequence | Handle, exc: BaseException) -> None:
        """Send a request its error, unless it already has its whole reply."""
        handle = seq_or_handle.handle if isinstance(seq_or_handle, Sequence) else seq_or_handle
        if handle.done:
            return
        if isinstance(exc, GenerationFailed):
            error = exc
        elif isinstance(exc, GrammarViolation):  # the schema, not the server: no retry
            error = OutputUnsatisfiable(f"{exc}; simplify the schema.")
        else:
            oom = isinstance(exc, torch.OutOfMemoryError)
            error = GenerationFailed(
                "The model ran out of memory on this request; retry with a shorter history or "
                "fewer new tokens." if oom else "The model failed while generating; retry.",
                retry_after=1)
        handle.put(error)
        self._release(handle)

    def _release(self, handle: Handle) -> None:
        if not handle.done:
            handle.done = True
            handle.started.set()
            self.release(handle)
