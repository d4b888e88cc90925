"""The generation worker: one thread owns the model, requests queue for it and decode together.

Iteration-level batching: a request that arrives while others decode is prefilled (from the
longest cached prefix of its prompt, together with others that wait, see ``prefill``) and joins
the batch at the next step.
Each row keeps its own sampler, so greedy, seeded sampling, penalties and LoRA adapters mix in
one batch. Beam search cannot share a step with other rows and runs as one ``generate`` call.
Every request gets a Handle: an iterator of Chunks whose joined text is the whole reply.
"""

from __future__ import annotations

import copy
import logging
import queue
import threading
import time
from dataclasses import dataclass, field

import torch
from transformers import StoppingCriteria, StoppingCriteriaList

from ..exceptions import GenerationFailed, Overloaded
from ..types import Chunk, SamplingParams, Usage
from . import batch as kvbatch
from . import prefill
from .decoding import IncrementalDecoder, Sampler, StopMatcher
from .kvcache import PrefixCache
from .loader import Loaded

log = logging.getLogger("mnemo.engine")


class _Interrupt(StoppingCriteria):
    """Ends a ``generate`` call (every beam) once ``interrupted()`` says so."""

    def __init__(self, interrupted):
        self.interrupted = interrupted

    def __call__(self, input_ids, scores, **kwargs):
        return torch.full((input_ids.shape[0],), self.interrupted(), dtype=torch.bool,
                          device=input_ids.device)


@dataclass
class GenRequest:
    prompt_ids: list[int]
    params: SamplingParams
    adapter: str | None = None
    tenant: str | None = None  # whose prefix cache entries it may use (an API key's id)


class Handle:
    """A submitted request: iterate for Chunks; ``cancel()`` stops it at the next step."""

    def __init__(self, request: GenRequest, timeout: float):
        self.request = request
        self.deadline = time.monotonic() + timeout
        self.cancelled = threading.Event()
        self.first_token_at: float | None = None
        self.submitted_at = time.monotonic()
        self.done = False  # its last Chunk (or its error) has been put; set by the worker only
        self._out: queue.SimpleQueue = queue.SimpleQueue()

    def cancel(self) -> None:
        self.cancelled.set()

    def put(self, item: Chunk | BaseException) -> None:
        self._out.put(item)

    def __iter__(self):
        while True:
            item = self._out.get()
            if isinstance(item, BaseException):
                raise item
            yield item
            if item.finish_reason is not None:
                return


@dataclass
class _Row:
    handle: Handle
    sampler: Sampler
    decoder: IncrementalDecoder
    stopper: StopMatcher
    history: list[int]  # prompt and generated ids
    fed: int  # ids of history already in the KV cache
    usage: Usage = field(default_factory=Usage)
    next_token: int = -1

    @property
    def adapter(self) -> str | None:
        return self.handle.request.adapter

    @property
    def cache_owner(self) -> tuple[str | None, str | None]:
        return self.handle.request.tenant, self.handle.request.adapter


class Scheduler:
    """Own the model; accept requests from any thread; decode them in one worker thread."""

    def __init__(self, loaded: Loaded, *, max_batch_size: int, max_queue: int,
                 generation_timeout: float, prefix_cache_bytes: int):
        self.m = loaded
        self.model = loaded.model
        # The Rust tokenizer is not safe to share with threads that encode prompts.
        self.tokenizer = copy.deepcopy(loaded.tokenizer)
        self.max_batch_size = max_batch_size
        self.max_queue = max_queue
        self.timeout = generation_timeout
        self.prefix = PrefixCache(prefix_cache_bytes)
        self._queue: queue.Queue[Handle] = queue.Queue()
        self._inflight = 0
        self._lock = threading.Lock()
        self._rows: list[_Row] = []
        self._cache = None  # the running batch's KV (a Cache of GrowingLayers)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._is_peft = bool(loaded.adapters)
        self.steps = 0

    # -- public, any thread -------------------------------------------------------------
    @property
    def queue_depth(self) -> int:
        return self._queue.qsize()

    @property
    def active(self) -> int:
        return len(self._rows)

    def submit(self, request: GenRequest) -> Handle:
        """Queue a request, or raise Overloaded when too many are already waiting."""
        with self._lock:
            if self._inflight >= self.max_batch_size + self.max_queue:
                raise Overloaded(
                    f"The server is busy: {self._inflight} requests are running or waiting. "
                    "Retry shortly.", headers={"Retry-After": "1"})
            self._inflight += 1
        handle = Handle(request, self.timeout)
        self._queue.put(handle)
        return handle

    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, name="mnemo-generate", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=10)

    # -- the worker ---------------------------------------------------------------------
    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                self._admit()
                if self._rows:
                    self._step()
            except Exception as exc:  # the worker must outlive any failure; every row learns of it
                log.exception("generation failed; failing the running batch")
                for row in self._rows:
                    self._fail(row.handle, exc)
                self._rows, self._cache = [], None

    def _admit(self) -> None:
        """Take waiting requests while the batch has room; prefill them, grouped."""
        block = not self._rows
        pending: list[prefill.Pending] = []
        while len(self._rows) + len(pending) < self.max_batch_size:
            try:
                handle = self._queue.get(timeout=0.2) if block else self._queue.get_nowait()
            except queue.Empty:
                break
            block = False
            if handle.cancelled.is_set():
                handle.put(Chunk(finish_reason="cancelled"))
                self._done(handle)
            elif handle.request.params.needs_beam_search:
                self._guarded([handle], self._beam_search, handle)
            else:
                req = handle.request
                pending.append(prefill.Pending(handle, req.prompt_ids,
                                               *self.prefix.lookup((req.tenant, req.adapter),
                                                                   req.prompt_ids)))
        for group in prefill.groups(pending):
            self._guarded([p.handle for p in group], self._prefill, group)

    def _guarded(self, handles: list[Handle], fn, *args) -> None:
        """Run one admission step; if it fails, only its own requests fail, not the batch."""
        try:
            with torch.inference_mode():
                fn(*args)
        except Exception as exc:
            log.exception("%s failed for %d request(s)", fn.__name__.strip("_"), len(handles))
            for handle in handles:
                self._fail(handle, exc)

    def _adapter_kwargs(self, adapters: list[str | None]) -> dict:
        if not self._is_peft:
            return {}
        return {"adapter_names": [a or "__base__" for a in adapters]}

    def _prefill(self, group: list[prefill.Pending]) -> None:
        device = self.m.device
        inputs = (prefill.single(group[0], device) if len(group) == 1
                  else prefill.batched(group, device, pad_id=min(self.m.eos_ids)))
        out = self.model(**inputs, use_cache=True, logits_to_keep=1,
                         **self._adapter_kwargs([p.handle.request.adapter for p in group]))
        rows, finished = [], []
        for i, p in enumerate(group):
            params = p.handle.request.params
            row = _Row(handle=p.handle, sampler=Sampler(params, device),
                       decoder=IncrementalDecoder(self.tokenizer), stopper=StopMatcher(params.stop),
                       history=list(p.ids), fed=len(p.ids), usage=Usage(prompt_tokens=len(p.ids)))
            token = row.sampler(out.logits[i, -1], row.history)
            if self._accept(row, token):
                finished.append(i)
            else:
                row.next_token = token
            rows.append(row)
        cache, rows = self._drop(out.cache, rows, finished)
        if not rows:
            return
        if self._cache is None:
            self._cache, self._rows = cache, rows
        else:
            self._cache = kvbatch.concat(self._cache, cache)
            self._rows += rows

    @torch.inference_mode()
    def _step(self) -> None:
        rows = self._rows
        cancelled = [i for i, r in enumerate(rows) if r.handle.cancelled.is_set()]
        if cancelled:
            for i in cancelled:
                self._finish(rows[i], "cancelled")
            self._remove(cancelled)
            if not self._rows:
                return
            rows = self._rows
        length = kvbatch.cache_length(self._cache) + 1
        device = self.m.device
        fed = torch.tensor([r.fed + 1 for r in rows], device=device)
        positions = torch.arange(length, device=device).unsqueeze(0)
        mask = (positions >= (length - fed).unsqueeze(1)).long()
        out = self.model(
            input_ids=torch.tensor([[r.next_token] for r in rows], device=device),
            attention_mask=mask, position_ids=(fed - 1).unsqueeze(1),
            cache=self._cache, use_cache=True,
            **self._adapter_kwargs([r.adapter for r in rows]),
        )
        self._cache = out.cache
        self.steps += 1
        logits = out.logits[:, -1]
        finished = []
        for i, row in enumerate(rows):
            row.fed += 1
            token = row.sampler(logits[i], row.history)
            if self._accept(row, token):
                finished.append(i)
            else:
                row.next_token = token
        if finished:
            self._remove(finished)

    def _remove(self, indices: list[int]) -> None:
        """Take finished rows out of the running batch."""
        self._cache, self._rows = self._drop(self._cache, self._rows, indices)

    def _drop(self, cache, rows: list[_Row], indices: list[int]):
        """Store rows ``indices``' KV in the prefix cache and take them out of ``cache``.

        A cancelled row's KV is kept too: it is valid for what was fed, and a client that
        stopped a reply usually sends the next turn on top of it.
        """
        if not indices:
            return cache, rows
        for i in indices:
            row = rows[i]
            self.prefix.store(row.cache_owner, row.history[:row.fed],
                              kvbatch.row_kv(cache, i, row.fed))
        gone = set(indices)
        keep = [i for i in range(len(rows)) if i not in gone]
        if not keep:
            return None, []
        length = kvbatch.cache_length(cache)
        kvbatch.select(cache, keep, min(length - rows[i].fed for i in keep))
        return cache, [rows[i] for i in keep]

    # -- one token at a time ------------------------------------------------------------
    def _accept(self, row: _Row, token: int) -> bool:
        """Record a sampled token; emit its text; return whether the row is finished."""
        handle = row.handle
        if handle.first_token_at is None:
            handle.first_token_at = time.monotonic()
        row.usage.completion_tokens += 1
        if token in self.m.eos_ids:
            self._finish(row, "stop")
            return True
        row.history.append(token)
        text, hit_stop = row.stopper.push(row.decoder.push(token))
        if text:
            handle.put(Chunk(text=text))
        if hit_stop:
            self._finish(row, "stop", flush=False)
            return True
        if (row.usage.completion_tokens >= handle.request.params.max_new_tokens
                or len(row.history) >= self.m.context_window
                or time.monotonic() >= handle.deadline):
            self._finish(row, "length")
            return True
        return False

    def _finish(self, row: _Row, reason: str, flush: bool = True) -> None:
        tail = row.stopper.flush() if flush else ""
        row.handle.put(Chunk(text=tail, finish_reason=reason, usage=row.usage))
        self._done(row.handle)

    def _done(self, handle: Handle) -> None:
        if handle.done:
            return
        handle.done = True
        with self._lock:
            self._inflight -= 1

    def _fail(self, handle: Handle, exc: Exception) -> None:
        """Send a request its error, unless it already has its whole reply (a failure after
        a row finished, while its KV was being stored, concerns only the rows still running)."""
        if handle.done:
            return
        oom = isinstance(exc, torch.OutOfMemoryError)
        message = ("The model ran out of memory on this request; retry with a shorter history or "
                   "fewer new tokens." if oom else "The model failed while generating; retry.")
        handle.put(GenerationFailed(message, headers={"Retry-After": "1"}))
        self._done(handle)

    def _beam_search(self, handle: Handle) -> None:
        """Run beam search as one generate call; its reply arrives as a single chunk.

        It still holds the worker while it runs (beams inside the batch are the engine issue's
        work), but it ends at the generation deadline, when its client leaves, and when the
        worker stops, like any other request.
        """
        req, p = handle.request, handle.request.params
        ids = torch.tensor([req.prompt_ids], device=self.m.device)

        def interrupted() -> bool:
            return (handle.cancelled.is_set() or time.monotonic() >= handle.deadline
                    or self._stop.is_set())

        out = self.model.generate(
            input_ids=ids, attention_mask=torch.ones_like(ids), num_beams=p.num_beams,
            length_penalty=p.length_penalty, early_stopping=p.early_stopping,
            repetition_penalty=p.repetition_penalty, no_repeat_ngram_size=p.no_repeat_ngram_size,
            max_new_tokens=p.max_new_tokens, do_sample=False,
            eos_token_id=sorted(self.m.eos_ids), pad_token_id=min(self.m.eos_ids),
            stopping_criteria=StoppingCriteriaList([_Interrupt(interrupted)]),
            **self._adapter_kwargs([req.adapter]),
        )
        if handle.cancelled.is_set():
            handle.put(Chunk(finish_reason="cancelled"))
            self._done(handle)
            return
        new = out[0, ids.shape[1]:].tolist()
        usage = Usage(prompt_tokens=len(req.prompt_ids), completion_tokens=len(new))
        ended = bool(new) and new[-1] in self.m.eos_ids
        text = self.tokenizer.decode([t for t in new if t not in self.m.eos_ids], skip_special_tokens=True)
        stopper = StopMatcher(p.stop)
        text, hit = stopper.push(text)
        text += "" if hit else stopper.flush()
        handle.first_token_at = time.monotonic()
        handle.put(Chunk(text=text))
        handle.put(Chunk(finish_reason="stop" if ended or hit else "length", usage=usage))
        self._done(handle)
