"""CPU work outside generation: admitted, bounded, and second to the engine.

A request's own CPU work (validating, tokenizing a long history, recall's embeddings and BM25,
rendering a preview, a summary's prompt) runs in its request thread, beside the engine's
generation thread. Two rules keep it from slowing the replies already streaming:

- **It waits its turn.** At most ``SLOTS`` requests do such work at once (``CpuGate``); the
  others wait, and past ``max_queue`` waiting (the engine's own queue limit) a request is a 429
  ``overloaded`` with ``Retry-After``, as a full generation queue is.
- **It yields to the engine.** Each request thread lowers its own scheduling priority once
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
from collections.abc import Iterator

from .exceptions import Overloaded

REQUEST_NICENESS = 10  # request threads' nice value; the engine's threads keep 0
SLOTS = 2  # requests doing CPU work at once

_local = threading.local()


def yield_to_engine() -> None:
    """Lower this request thread's priority, once (a thread serves many requests). Where the
    platform has no per-thread priority, nothing changes."""
    if getattr(_local, "lowered", False):
        return
    _local.lowered = True
    with contextlib.suppress(OSError, AttributeError):
        tid = threading.get_native_id()
        if os.getpriority(os.PRIO_PROCESS, tid) < REQUEST_NICENESS:
            os.setpriority(os.PRIO_PROCESS, tid, REQUEST_NICENESS)


class CpuGate:
    """At most ``slots`` requests do CPU work at once; ``max_waiting`` may wait for a slot, at
    most ``wait`` seconds; beyond either, a 429."""

    def __init__(self, slots: int = SLOTS, max_waiting: int = 64, wait: float = 60.0):
        self._slots = threading.BoundedSemaphore(slots)
        self._lock = threading.Lock()
        self.max_waiting, self.wait = max_waiting, wait
        self.waiting = self.active = 0

    @contextlib.contextmanager
    def admit(self) -> Iterator[None]:
        if getattr(_local, "admitted", False):  # already inside (a summary after a prompt)
            yield
            return
        got = self._slots.acquire(blocking=False)  # a free slot: no wait, no queue
        if not got:
            with self._lock:
                if self.waiting >= self.max_waiting:
                    raise Overloaded(f"{self.waiting} requests are waiting to prepare their "
                                     "prompts; retry shortly.", headers={"Retry-After": "1"})
                self.waiting += 1
            try:
                got = self._slots.acquire(timeout=self.wait)
            finally:
                with self._lock:
                    self.waiting -= 1
        if not got:
            raise Overloaded(f"No room to prepare the prompt within {self.wait:g} s; retry "
                             "shortly.", headers={"Retry-After": "1"})
        with self._lock:
            self.active += 1
        _local.admitted = True
        try:
            yield
        finally:
            _local.admitted = False
            with self._lock:
                self.active -= 1
            self._slots.release()

    def metric_lines(self) -> list[str]:
        return ["# TYPE mnemo_cpu_work_active gauge", f"mnemo_cpu_work_active {self.active}",
                "# TYPE mnemo_cpu_work_waiting gauge", f"mnemo_cpu_work_waiting {self.waiting}"]
