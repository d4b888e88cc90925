"""The generation worker: one thread owns the model; requests queue for it and decode together.

Each step of the loop:
1. **arrivals**: queued requests become ``Sequence`` records (their parameters are checked
   here) and look up the prefix cache;
2. **plan**: the policy (``policy.plan_step``) decides what to preempt and how many prompt
   tokens of which requests to prefill, under the step's token budget and the KV budget;
3. **prefill**: short prompts together (``prefill``), long ones one chunk at a time;
   a request whose prompt is all fed samples its first token and joins the batch;
4. **decode**: one forward for every running row, then sampling, beam steps and output.

Every stage is guarded for the requests it touches: a failure ends those requests with a JSON
error and frees their places, and every other request goes on unchanged. A group prefill that
fails is retried one request at a time, so one bad request cannot fail its group. Out of
memory in a decode step preempts the newest request (it is recomputed later) instead of failing
the batch. Storing into the prefix cache can only lose a cache entry.
"""

from __future__ import annotations

import copy
import logging
import queue
import threading
import time

import torch

from ..exceptions import GenerationFailed, Overloaded
from . import batch as kvbatch
from . import prefill
from .budget import default_kv_tokens
from .kvbuffer import new_cache
from .kvcache import PrefixCache
from .loader import Loaded
from .output import Output
from .policy import MIN_CHUNK, Budget, plan_step
from .request import GenRequest, Handle, Sequence, State
from .runner import Runner
from .sampling import sample

__all__ = ["GenRequest", "Handle", "Scheduler"]

log = logging.getLogger("mnemo.engine")

STEP_SECONDS = 0.25  # the prefill work one step may add while others stream (auto chunk size)
MAX_STEP_TOKENS = prefill.MAX_GROUP_TOKENS


class Scheduler:
    """Own the model; accept requests from any thread; decode them in one worker thread."""

    def __init__(self, loaded: Loaded, *, max_batch_size: int, max_queue: int,
                 generation_timeout: float, prefix_cache_bytes: int, kv_budget_tokens: int = 0,
                 prefill_chunk_tokens: int = 0):
        self.m = loaded
        self.model = loaded.model
        # The Rust tokenizer is not safe to share with threads that encode prompts.
        self.tokenizer = copy.deepcopy(loaded.tokenizer)
        self.max_batch_size = max_batch_size
        self.max_queue = max_queue
        self.timeout = generation_timeout
        self.prefix = PrefixCache(prefix_cache_bytes)
        self.runner = Runner(loaded)
        self.output = Output(self.tokenizer, loaded.eos_ids, loaded.context_window, self._release)
        self.kv_tokens = kv_budget_tokens or default_kv_tokens(loaded)
        self.fixed_chunk = prefill_chunk_tokens
        self.step_tokens = prefill_chunk_tokens or 128  # re-measured after each chunk
        self.waiting: list[Sequence] = []
        self.prefilling: list[Sequence] = []
        self.preemptions = 0
        self._queue: queue.Queue[Handle] = queue.Queue()
        self._inflight = 0
        self._arrivals = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- public, any thread -------------------------------------------------------------
    @property
    def queue_depth(self) -> int:
        return self._queue.qsize() + len(self.waiting)

    @property
    def active(self) -> int:
        return len(self.runner.seqs) + len(self.prefilling)

    @property
    def steps(self) -> int:
        return self.runner.steps

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

    def _release(self, handle: Handle) -> None:
        with self._lock:
            self._inflight -= 1

    # -- the worker ---------------------------------------------------------------------
    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                with torch.inference_mode():
                    self._take_arrivals()
                    self._end_abandoned()
                    self._prefill(self._plan())
                    if self.runner.seqs:
                        self._decode()
            except Exception as exc:  # a fault of the worker itself: end all it held, go on
                log.exception("generation worker failed; ending every request it held")
                self._fail_all(exc)
        self._fail_all(GenerationFailed("The server is shutting down; retry.",
                                        headers={"Retry-After": "1"}))

    def _all(self) -> list[Sequence]:
        return self.waiting + self.prefilling + self.runner.seqs

    def _fail_all(self, exc: BaseException) -> None:
        for seq in self._all():
            self.output.fail(seq, exc)
        self.waiting, self.prefilling = [], []
        self.runner.clear()
        while True:
            try:
                self.output.fail(self._queue.get_nowait(), exc)
            except queue.Empty:
                return

    def _take_arrivals(self) -> None:
        """Turn queued requests into sequences (admission) and look up their cached prefix."""
        block = not self._all()
        while True:
            try:
                handle = self._queue.get(timeout=0.2) if block else self._queue.get_nowait()
            except queue.Empty:
                return
            block = False
            if handle.cancelled.is_set():
                self.output.cancelled(handle)
                continue
            try:
                self._arrivals += 1
                seq = Sequence.of(handle, self._arrivals, self.tokenizer, self.m.device,
                                  self.m.eos_ids, self.m.context_window)
            except Exception as exc:
                log.exception("admission failed for one request")
                self.output.fail(handle, exc)
                continue
            self._wait(seq)

    def _wait(self, seq: Sequence) -> None:
        """Queue a sequence for prefill, from the longest prefix of its history in the cache."""
        try:
            seq.reuse, seq.kv, seq.handed_over = self.prefix.lookup(seq.cache_owner, seq.history)
        except Exception as exc:
            log.exception("prefix cache lookup failed for one request")
            self.output.fail(seq, exc)
            return
        self.waiting.append(seq)
        self.waiting.sort(key=lambda s: s.order)

    def _end_abandoned(self) -> None:
        """End requests whose client left, and waiting ones past their deadline."""
        now, gone = time.monotonic(), []
        for seq in self._all():
            if seq.handle.cancelled.is_set():
                gone.append(seq)
                if seq.state is State.RUNNING and not seq.beams:
                    self._store(seq)  # its KV is valid: a stopped reply's next turn builds on it
                self.output.cancelled(seq.handle)
            elif seq.state is not State.RUNNING and now >= seq.handle.deadline:
                gone.append(seq)
                self.output.finish(seq, "length")
        if gone:
            self.waiting = [s for s in self.waiting if s not in gone]
            self.prefilling = [s for s in self.prefilling if s not in gone]
            self.runner.remove([s for s in gone if s in self.runner.seqs])

    def _plan(self):
        budget = Budget(max_batch=self.max_batch_size, kv_tokens=self.kv_tokens,
                        step_tokens=self.step_tokens, idle_step_tokens=MAX_STEP_TOKENS)
        try:
            plan = plan_step(self.waiting, self.prefilling, self.runner.seqs, self.runner.length,
                             budget)
        except Exception as exc:  # nothing was admitted: only the requests not yet running
            log.exception("scheduling failed; ending the requests not yet running")
            for seq in self.waiting + self.prefilling:
                self.output.fail(seq, exc)
            self.waiting, self.prefilling = [], []
            return None
        for seq in plan.preempt:
            self._preempt(seq)
        return plan

    def _preempt(self, seq: Sequence) -> None:
        log.warning("preempting request %d (%d tokens): the batch is over its KV budget",
                    seq.order, seq.length)
        self.runner.remove([seq])
        seq.preempt()
        self.preemptions += 1
        self._wait(seq)

    # -- prefill ------------------------------------------------------------------------
    def _prefill(self, plan) -> None:
        if plan is None:
            return
        whole, chunks = [], []
        for seq, n in plan.prefill:
            if seq.state is State.WAITING and n == seq.to_prefill and not seq.solo:
                whole.append(prefill.Pending(seq, seq.history, seq.reuse, seq.kv, seq.handed_over))
            else:
                chunks.append((seq, n))
        started = {id(p.seq) for p in whole}
        self.waiting = [s for s in self.waiting if id(s) not in started]
        for group in prefill.groups(whole):
            self._prefill_group(group)
        for seq, n in chunks:
            self._prefill_chunk(seq, n)

    def _prefill_group(self, group: list[prefill.Pending]) -> None:
        seqs = [p.seq for p in group]
        try:
            logits, cache = self.runner.prefill_group(group)
        except Exception as exc:
            if len(group) > 1:  # find the culprit: each is retried alone at the next step
                log.exception("group prefill of %d requests failed; retrying each alone", len(group))
                for seq in seqs:
                    seq.solo = True
                    self.waiting.append(seq)
                self.waiting.sort(key=lambda s: s.order)
            else:
                log.exception("prefill failed for one request")
                self.output.fail(seqs[0], exc)
            return
        for seq in seqs:
            seq.fed, seq.kv = len(seq.history), None
        self._started(seqs, logits, cache)

    def _prefill_chunk(self, seq: Sequence, n: int) -> None:
        if seq.state is State.WAITING:
            self.waiting.remove(seq)
            seq.state, seq.fed = State.PREFILLING, seq.reuse
            seq.cache = new_cache(seq.kv, seq.reuse, owned=seq.handed_over)
            seq.kv = None
            self.prefilling.append(seq)
        started = time.perf_counter()
        try:
            logits = self.runner.prefill_chunk(seq, n)
        except Exception as exc:
            log.exception("prefill failed for one request")
            self.prefilling.remove(seq)
            self.output.fail(seq, exc)
            return
        self._measure(n, time.perf_counter() - started)
        if logits is not None:
            self.prefilling.remove(seq)
            cache, seq.cache = seq.cache, None
            self._started([seq], logits, cache)

    def _measure(self, tokens: int, seconds: float) -> None:
        """Size the next chunk so a step's prefill stays near STEP_SECONDS at this speed."""
        if not self.fixed_chunk and tokens >= MIN_CHUNK and seconds > 0:
            self.step_tokens = max(MIN_CHUNK, min(MAX_STEP_TOKENS, int(STEP_SECONDS * tokens / seconds)))

    def _started(self, seqs: list[Sequence], logits: torch.Tensor, cache) -> None:
        """Prefilled sequences (row i of ``logits``/``cache``): first token, then join the batch."""
        for seq in seqs:
            seq.state = State.RUNNING
        singles = [i for i, s in enumerate(seqs) if not s.beams]
        tokens = self._sample([seqs[i] for i in singles], logits[singles] if singles else None)
        rows, joining = [], []
        for i, seq in enumerate(seqs):
            if seq.beams:
                if self._beam_step(seq, logits[i:i + 1]) is None:
                    continue
                rows += [i] * seq.rows  # every beam starts from the prompt's row
            else:
                token = tokens.get(seq)
                if token is None:
                    continue
                if self.output.accept(seq, token):
                    self._store_row(seq, cache, i)
                    continue
                rows.append(i)
            joining.append(seq)
        if not joining:
            return
        drop_left = kvbatch.cache_length(cache) - max(s.fed for s in joining)
        if rows != list(range(len(seqs))) or drop_left:
            kvbatch.select(cache, rows, drop_left)  # one indexed copy; none for a lone prompt
        self.runner.join(joining, cache)

    # -- decode -------------------------------------------------------------------------
    def _decode(self) -> None:
        length = self.runner.length
        try:
            logits = self.runner.decode()
        except torch.OutOfMemoryError:
            self.runner.rollback(length)
            victim = next((s for s in reversed(self.runner.seqs[1:]) if s.preemptible), None)
            if victim is not None:
                log.warning("out of memory in a decode step; preempting the newest request")
                self._preempt(victim)
                return
            log.exception("out of memory in a decode step with nothing to preempt")
            self._fail_running(torch.OutOfMemoryError("out of memory"))
            return
        except Exception as exc:
            log.exception("decode step failed; ending the %d running requests", len(self.runner.seqs))
            self._fail_running(exc)
            return
        self._advance(logits)

    def _fail_running(self, exc: BaseException) -> None:
        for seq in self.runner.seqs:
            self.output.fail(seq, exc)
        self.runner.clear()

    def _advance(self, logits: torch.Tensor) -> None:
        """Sample every single row, step every beam group, emit, and drop finished rows."""
        seqs, offsets = self.runner.seqs, self.runner.offsets()
        singles = [(s, at) for s, at in zip(seqs, offsets, strict=True) if not s.beams]
        index = torch.tensor([at for _, at in singles], device=logits.device)
        tokens = self._sample([s for s, _ in singles], logits.index_select(0, index) if singles else None)
        gone = []
        for seq, at in zip(seqs, offsets, strict=True):
            if seq.beams:
                sources = self._beam_step(seq, logits[at:at + seq.rows])
                if sources is None:
                    gone.append(seq)
                else:
                    self.runner.reorder(seq, sources)
            elif seq not in tokens or self.output.accept(seq, tokens[seq]):
                gone.append(seq)
                if seq in tokens:
                    self._store(seq)
        self.runner.remove(gone)

    def _sample(self, seqs: list[Sequence], logits) -> dict[Sequence, int]:
        """Sample all rows at once; if that fails, row by row, failing only rows that fail."""
        if not seqs:
            return {}
        try:
            drawn = sample(logits, [s.sampler for s in seqs], [s.history for s in seqs])
            return dict(zip(seqs, drawn, strict=True))
        except Exception:
            log.exception("batched sampling failed; sampling row by row")
        out = {}
        for i, seq in enumerate(seqs):
            try:
                out[seq] = sample(logits[i:i + 1], [seq.sampler], [seq.history])[0]
            except Exception as exc:
                log.exception("sampling failed for one request")
                self.output.fail(seq, exc)
        return out

    def _beam_step(self, seq: Sequence, logits: torch.Tensor) -> list[int] | None:
        """One beam step; None when the search ended (its reply sent) or failed."""
        interrupted = time.monotonic() >= seq.handle.deadline or self._stop.is_set()
        try:
            sources = seq.beams.step(logits, seq.history, interrupted)
        except Exception as exc:
            log.exception("beam step failed for one request")
            self.output.fail(seq, exc)
            return None
        seq.usage.completion_tokens = len(seq.beams.running[0])
        if seq.beams.done:
            self.output.beams_done(seq)
            return None
        seq.next_tokens = [r[-1] for r in seq.beams.running]
        return sources

    # -- the prefix cache ---------------------------------------------------------------
    def _store(self, seq: Sequence) -> None:
        self._store_row(seq, None, None)

    def _store_row(self, seq: Sequence, cache, row: int | None) -> None:
        """Keep a finished single-row sequence's KV; a failure only loses the cache entry."""
        try:
            if cache is None:
                kv = self.runner.row_kv(seq)
            else:
                kv = kvbatch.row_kv(cache, row, seq.fed)
            self.prefix.store(seq.cache_owner, seq.history[:seq.fed], kv)
        except Exception:
            log.exception("storing a finished request's KV failed; the cache entry is lost")
