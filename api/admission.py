"""CPU work outside generation: admitted, bounded, and second to the engine.

A request's own CPU work (validating, tokenizing a long history, recall's embeddings and BM25,
rendering a preview, a summary's prompt) runs in its request thread, beside the engine's
generation thread. Two rules keep it from slowing the replies already streaming:

- **It waits its turn.** At most ``SLOTS`` requests do such work at once (``CpuGate``); the
  others wait while the engine has room for them: those preparing and waiting, with the
  requests the engine runs or queues, are at most ``max_batch_size`` + ``max_queue``. Past
  that a request is a 429 ``overloaded`` with ``Retry-After``, as a full generation queue is,
  so a burst the engine has room for is never refused before it reaches it, and waiting
  requests never take the request threads that answer the others' 429s and probes.
- **It gives way while replies stream.** Long work calls ``pace()`` between slices (recall's
  embedding batches and term lists, the prompt's tokenizing blocks); while the engine has
  replies running, every slice is followed by a pause ``REST`` times as long, shared by all
  requests at work, so such work takes at most a ``1 / (1 + REST)`` share of the time and the
  engine has the cores (and Python's GIL) the rest of it. With nothing streaming it runs at
  full speed.
- **It yields to the engine.** Each request thread (never the main thread, which starts the
  engine) lowers its own scheduling priority once
  (``yield_to_engine``: Linux nice ``REQUEST_NICENESS`` for that thread alone, inherited by the
  thread pools torch starts from it), so when the cores are short the engine's threads, at
  normal priority, get about nine tenths of them (the kernel weighs nice 0 against nice 10 as
  1024 to 110). Relaying tokens costs a request thread almost nothing, so streams do not wait.

What one request may cost is bounded by the request limits (``MNEMO_MAX_MESSAGES``,
``MNEMO_MAX_MESSAGE_CHARS``) and by recall's embedding budget per request
(``recall.EMBED_BUDGET``). bench/cpu_work.py measures a stream beside concurrent previews.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterator

from .exceptions import Overloaded

REQUEST_NICENESS = 10  # request threads' nice value; the engine's threads keep 0
SLOTS = 2  # requests doing CPU work at once
REST = 4.0  # while replies stream, each slice of CPU work is followed by a pause this much longer
MAX_PAUSE = 1.0  # seconds: one pause at most

_local = threading.local()


def yield_to_engine() -> None:
    """Lower this request thread's priority, once (a thread serves many requests), and note
    when the request began: the work before its admission (reading and validating the body)
    is the first slice it pays a pause for. Where the platform has no per-thread priority,
    nothing changes. The main thread is never lowered: it is the thread that builds apps and
    so starts their engines, and where it also serves requests (Flask's test client, a
    server run without threads) an engine built after the first request would inherit the
    lower priority and lose the cores it is meant to have first. A server so run does not
    yield to its engine; gunicorn's workers and werkzeug's threaded server serve on threads
    of their own, which do."""
    _local.request_began = time.monotonic()
    if getattr(_local, "lowered", False) or threading.current_thread() is threading.main_thread():
        return
    _local.lowered = True
    with contextlib.suppress(OSError, AttributeError):
        tid = threading.get_native_id()
        if os.getpriority(os.PRIO_PROCESS, tid) < REQUEST_NICENESS:
            os.setpriority(os.PRIO_PROCESS, tid, REQUEST_NICENESS)


def pace() -> None:
    """Between two slices of CPU work: give way to the engine (``CpuGate.pace``); a no-op
    outside an admitted request (tests, benchmarks, the engine's own thread)."""
    gate = getattr(_local, "gate", None)
    if gate is not None:
        gate.pace()


class CpuGate:
    """At most ``slots`` requests do CPU work at once; ``max_waiting`` less what the engine
    holds (``held()``) may wait for a slot, at most ``wait`` seconds; beyond either, a 429.
    ``busy`` says whether replies are streaming."""

    def __init__(self, slots: int = SLOTS, max_waiting: int = 64, wait: float = 60.0,
                 busy: Callable[[], bool] = lambda: False, rest: float = REST,
                 held: Callable[[], int] = lambda: 0):
        self._slots = threading.BoundedSemaphore(slots)
        self._lock = threading.Lock()
        self.max_waiting, self.wait, self.busy, self.rest = max_waiting, wait, busy, rest
        self.held = held
        self.waiting = self.active = 0
        self._resume_at = 0.0  # shared: no admitted request works before this time
        self.paused_s = 0.0  # seconds of pauses, for /metrics

    def pace(self) -> None:
        now = time.monotonic()
        began = getattr(_local, "slice_began", now)
        if self.busy():
            with self._lock:
                self._resume_at = max(self._resume_at, now) + min(MAX_PAUSE,
                                                                  (now - began) * self.rest)
                until = self._resume_at
                self.paused_s += max(0.0, until - now)
            if until > now:
                time.sleep(until - now)
        _local.slice_began = time.monotonic()

    @contextlib.contextmanager
    def admit(self) -> Iterator[None]:
        if getattr(_local, "admitted", False):  # already inside (a summary after a prompt)
            yield
            return
        got = self._slots.acquire(blocking=False)  # a free slot: no wait, no queue
        if not got:
            with self._lock:
                if self.waiting >= self.max_waiting - self.held():
                    many = f"{self.waiting} requests are" if self.waiting != 1 else "1 request is"
                    raise Overloaded(f"{many} waiting to prepare their prompts; retry shortly.",
                                     retry_after=1)
                self.waiting += 1
            try:
                got = self._slots.acquire(timeout=self.wait)
            finally:
                with self._lock:
                    self.waiting -= 1
        if not got:
            raise Overloaded(f"No room to prepare the prompt within {self.wait:g} s; retry "
                             "shortly.", retry_after=1)
        with self._lock:
            self.active += 1
        _local.admitted, _local.gate = True, self
        _local.slice_began = getattr(_local, "request_began", None) or time.monotonic()
        _local.request_began = None  # paid for once
        try:
            self.pace()  # the body's reading and validation, before admission
            yield
            self.pace()  # the last slice, before the slot is given back
        finally:
            _local.admitted, _local.gate = False, None
            with self._lock:
                self.active -= 1
            self._slots.release()

    def metric_lines(self) -> list[str]:
        return ["# TYPE mnemo_cpu_work_active gauge", f"mnemo_cpu_work_active {self.active}",
                "# TYPE mnemo_cpu_work_waiting gauge", f"mnemo_cpu_work_waiting {self.waiting}",
                "# HELP mnemo_cpu_work_paused_seconds_total Pauses of CPU work for streams.",
                "# TYPE mnemo_cpu_work_paused_seconds_total counter",
                f"mnemo_cpu_work_paused_seconds_total {self.paused_s:.3f}"]
