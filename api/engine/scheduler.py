"""The generation worker: one thread owns the model; requests queue for it and decode together.

Each step of the loop:
1. **arrivals**: queued requests become ``Sequence`` records (their parameters are checked
   here) and look up the prefix cache;
2. **plan**: the policy (``policy.plan_step``) decides what to preempt and how many prompt
   tokens of which requests to prefill, under the step's token budget and the KV budget;
3. **prefill**: short prompts together (``prefill``), long ones one chunk at a time;
   a request whose prompt is all fed samples its first token and joins the batch;
4. **decode**: one forward for every running row, then sampling, beam steps and output.
The scheduler decides (steps 1 and 2, preemption, requests that end unstarted); ``Stages``
(``stages``) carries out steps 3 and 4; what they run is in ``runner``, what they emit in
``output``.

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
from concurrent.futures import Future

import torch

from ..exceptions import GenerationFailed, Overloaded
from ..types import Usage
from .budget import default_kv_tokens
from .loader import Loaded
from .output import Output
from .policy import Budget, plan_step
from .prefix_cache import PrefixCache
from .request import GenRequest, Handle, Sequence, State
from .runner import Runner
from .stages import MAX_STEP_TOKENS, Stages

__all__ = ["GenRequest", "Handle", "Scheduler"]

log = logging.getLogger("mnemo.engine")


def stopping() -> GenerationFailed:
    return GenerationFailed("The server is shutting down; retry.", retry_after=1)


class Scheduler:
    """Own the model; accept requests from any thread; decode them in one worker thread."""

    def __init__(self, loaded: Loaded, *, max_batch_size: int, max_queue: int,
                 generation_timeout: float, prefix_cache_bytes: int, kv_budget_tokens: int = 0,
                 prefill_chunk_tokens: int = 0):
        self.m = loaded
        # The Rust tokenizer is not safe to share with threads that encode prompts.
        self.tokenizer = copy.deepcopy(loaded.tokenizer)
        self.max_batch_size = max_batch_size
        self.max_queue = max_queue
        self.timeout = generation_timeout
        self.prefix = PrefixCache(prefix_cache_bytes)
        self.runner = Runner(loaded)
        self.output = Output(self.tokenizer, loaded.eos_ids, loaded.context_window, self._release)
        self.kv_budget = kv_budget_tokens or default_kv_tokens(loaded)  # as configured
        self.kv_tokens = self.kv_budget  # in force (lowered after out of memory, until idle)
        # The one record of every request the worker holds, by arrival: its ``state`` says
        # where it is (``waiting``, ``prefilling`` and running are views of it; the runner holds
        # the running batch's KV); it leaves once its handle is done.
        self.requests: dict[int, Sequence] = {}
        self.preemptions = 0
        self._queue: queue.Queue[Handle] = queue.Queue()
        self._inflight = 0
        self._arrivals = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._calls: list[tuple] = []  # (fn, future, ready): run between steps
        self._closed = False  # the worker has stopped
        self._by_adapter: dict[str | None, int] = {}  # requests in flight per adapter key
        self.stages = Stages(self.runner, self.output, self.prefix, self._stop,
                             prefill_chunk_tokens)

    # -- public, any thread -------------------------------------------------------------
    @property
    def model(self):
        return self.runner.model

    @property
    def waiting(self) -> list[Sequence]:
        """Requests waiting for their prefill (or preempted), oldest first."""
        return self._in(State.WAITING)

    @property
    def prefilling(self) -> list[Sequence]:
        """Long prompts part-way through their chunked prefill, oldest first."""
        return self._in(State.PREFILLING)

    def _in(self, state: State) -> list[Sequence]:
        # a copy taken at once (a metrics thread may ask while the worker adds a request)
        return [s for s in tuple(self.requests.values()) if s.state is state and not s.handle.done]

    @property
    def queue_depth(self) -> int:
        return self._queue.qsize() + len(self.waiting)

    @property
    def active(self) -> int:
        return len(self.runner.seqs) + len(self.prefilling)

    @property
    def steps(self) -> int:
        return self.runner.steps

    @property
    def held(self) -> int:
        """Requests running or waiting here (what ``submit`` bounds by batch and queue)."""
        return self._inflight

    def submit(self, request: GenRequest, still=None) -> Handle | None:
        """Queue a request, or raise Overloaded when too many are already waiting. ``still()``,
        asked once the request counts as in flight for its adapter and before it is queued:
        whether that adapter is still the one to use (None, and nothing queued, if not). An
        unload waits for no request counted after its check, so one whose adapter left the
        registry meanwhile must not run: the model it needs may be gone."""
        with self._lock:
            if self._closed:
                raise stopping()
            if self._inflight >= self.max_batch_size + self.max_queue:
                raise Overloaded(
                    f"The server is busy: {self._inflight} requests are running or waiting. "
                    "Retry shortly.", retry_after=1)
            self._inflight += 1
            self._by_adapter[request.adapter] = self._by_adapter.get(request.adapter, 0) + 1
        handle = Handle(request, self.timeout)
        if still is not None and not still():
            self._release(handle)
            return None
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
            self._by_adapter[handle.request.adapter] -= 1

    def in_flight(self, adapter: str | None) -> int:
        with self._lock:
            return self._by_adapter.get(adapter, 0)

    def call(self, fn, ready=None) -> Future:
        """Run ``fn()`` in the worker between two steps (once ``ready()``, if given); the model
        may change there. The returned future holds its result or its exception."""
        future: Future = Future()
        with self._lock:
            if self._closed:
                future.set_exception(stopping())
            else:
                self._calls.append((fn, future, ready))
        return future

    def _run_calls(self) -> None:
        with self._lock:
            calls, self._calls = self._calls, []
        later = []
        for fn, future, ready in calls:
            if ready is not None and not ready():
                later.append((fn, future, ready))
                continue
            try:
                future.set_result(fn())
            except Exception as exc:
                future.set_exception(exc)
        if later:
            with self._lock:
                self._calls = later + self._calls

    # -- the worker ---------------------------------------------------------------------
    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                self._run_calls()
                with torch.inference_mode():
                    self._take_arrivals()
                    self._end_abandoned()
                    self.stages.prefill(self._plan(), self.prefilling)
                    if self.runner.seqs:
                        self._decode()
            except Exception as exc:  # a fault of the worker itself: end all it held, go on
                log.exception("generation worker failed; ending every request it held")
                self._fail_all(exc)
        with self._lock:
            self._closed = True  # submit and call refuse from now on
            calls, self._calls = self._calls, []
        self._fail_all(stopping())
        for _fn, future, _ready in calls:
            future.set_exception(stopping())

    def _all(self) -> list[Sequence]:
        """Every request not yet ended, whatever its state (the ended ones leave the record)."""
        for order in [k for k, s in self.requests.items() if s.handle.done]:
            del self.requests[order]
        return list(self.requests.values())

    def _fail_all(self, exc: BaseException) -> None:
        for seq in self._all():
            self.output.fail(seq, exc)
        self.requests.clear()
        self.runner.clear()
        while True:
            try:
                self.output.fail(self._queue.get_nowait(), exc)
            except queue.Empty:
                return

    def _take_arrivals(self) -> None:
        """Turn queued requests into sequences (admission) and look up their cached prefix."""
        block = not self._all()  # a pending call waits at most this 0.2 s
        if block:
            self.kv_tokens = self.kv_budget  # idle: a budget lowered by out of memory recovers
        while True:
            try:
                handle = self._queue.get(timeout=0.2) if block else self._queue.get_nowait()
            except queue.Empty:
                return
            block = False
            if handle.cancelled.is_set():
                self.output.cancelled(handle, Usage(len(handle.request.prompt_ids)))
                continue
            try:
                self._arrivals += 1
                seq = Sequence.of(handle, self._arrivals, self.tokenizer, self.m.device,
                                  self.m.eos_ids, self.m.context_window)
            except Exception as exc:
                log.exception("admission failed for one request")
                self.output.fail(handle, exc)
                continue
            self.requests[seq.order] = seq
            self._wait(seq)

    def _wait(self, seq: Sequence) -> None:
        """Let a sequence wait for prefill, from the longest prefix of its history in the cache."""
        try:
            seq.reuse, seq.kv, seq.handed_over = self.prefix.lookup(seq.cache_owner, seq.history,
                                                                    take=seq.keeps_kv)
        except Exception as exc:
            log.exception("prefix cache lookup failed for one request")
            self.output.fail(seq, exc)

    def _end_abandoned(self) -> None:
        """End requests whose client left, and waiting ones past their deadline."""
        now, gone = time.monotonic(), []
        for seq in self._all():
            if seq.handle.cancelled.is_set():
                gone.append(seq)
                if seq.state is State.RUNNING and not seq.beams:
                    self.stages.store(seq)  # its KV is valid: its next turn builds on it
                elif seq.state is not State.RUNNING:
                    self.stages.store_unstarted(seq)
                self.output.cancelled(seq.handle, seq.usage)
            elif seq.state is not State.RUNNING and now >= seq.handle.deadline:
                gone.append(seq)
                self.stages.store_unstarted(seq)
                self.output.finish(seq, "length")
        if gone:  # ended, so out of the waiting and prefilling views; out of the batch here
            self.stages.remove([s for s in gone if s in self.runner.seqs])

    def _plan(self):
        budget = Budget(max_batch=self.max_batch_size, kv_tokens=self.kv_tokens,
                        step_tokens=self.stages.step_tokens, idle_step_tokens=MAX_STEP_TOKENS)
        try:
            plan = plan_step(self.waiting, self.prefilling, self.runner.seqs, self.runner.length,
                             budget)
        except Exception as exc:  # nothing was admitted: only the requests not yet running
            log.exception("scheduling failed; ending the requests not yet running")
            for seq in self.waiting + self.prefilling:
                self.stages.store_unstarted(seq)  # their conversations' cache entries go back
                self.output.fail(seq, exc)
            return None
        for seq in plan.preempt:
            self._preempt(seq)
        return plan

    def _decode(self) -> None:
        victim = self.stages.decode(others_wait=bool(self.waiting or self.prefilling))
        if victim is not None:
            # What ran out is what the KV budget allowed: lower it to what is left, so the
            # victim waits for room instead of being readmitted into the same failure (it is
            # back to the configured budget once the engine is idle).
            left = self.runner.rows - victim.rows
            self.kv_tokens = min(self.kv_tokens, left * (self.runner.length + 1))
            log.warning("out of memory in a decode step; preempting the newest request, "
                        "KV budget now %d positions", self.kv_tokens)
            self._preempt(victim)

    def _preempt(self, seq: Sequence) -> None:
        log.warning("preempting request %d (%d tokens): the batch is over its KV budget",
                    seq.order, seq.length)
        self.stages.remove([seq])
        if seq.handle.done:  # the removal failed and ended it
            return
        seq.preempt()
        self.preemptions += 1
        self._wait(seq)
