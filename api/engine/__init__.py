"""The embedded engine: the model in this process, one per process; it knows nothing of HTTP.

The model loads in a background thread started by ``start`` (the app factory calls it, so under
gunicorn it loads in each worker after the fork, never in the master), and ``ready`` is set
once it has loaded and warmed up. Requests reach the model only through ``submit``.
"""

from __future__ import annotations

import atexit
import gc
import logging
import os
import threading
import weakref
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path

from ..backend import Backend
from ..config import Settings
from ..exceptions import AdapterConflict, AdapterInvalid, UnknownAdapter
from ..types import SamplingParams
from .adapters import Adapter, Registry, base_digest, confine, inspect, read_weights
from .loader import Loaded, load
from .request import GenRequest, Handle
from .scheduler import Scheduler

__all__ = ["Engine", "GenRequest", "Handle"]

log = logging.getLogger("mnemo.engine")


class _CollectorPause:
    """The cyclic garbage collector paused while any start runs and restored as the last one
    ends. Each start reading and restoring the state itself left it off for good when one
    start began while another was ending: it found the collector off, the other turned it on,
    it turned it off and, having found it off, left it so."""

    def __init__(self):
        self._lock, self._starts, self._was_on = threading.Lock(), 0, False

    def enter(self) -> tuple[int, int]:
        """Pause; returns what ``collect`` compares against (collections run, objects frozen)."""
        with self._lock:
            if self._starts == 0:
                self._was_on = gc.isenabled()
                gc.disable()
            self._starts += 1
            return _collections()

    @staticmethod
    def collect(since: tuple[int, int], full: bool) -> None:
        """A start's one collection. While the collector is paused everything made stays in
        the youngest generation, so collecting that one finds what the load left in cycles
        without walking the rest of the process, unless a collection ran meanwhile (another
        start ending, the host's own ``gc.collect``) or a freeze: that moved some of it on, and
        a cycle there would stay (for the process's life if the host keeps the collector off),
        so the collection is then a full one."""
        gc.collect(2 if full or _collections() != since else 0)

    def exit(self, turn_on: bool) -> None:
        with self._lock:
            self._starts -= 1
            self._was_on = self._was_on or turn_on
            if self._starts == 0 and self._was_on:
                gc.enable()

    def after_fork(self) -> None:
        """In a child forked during a start: that start's thread is not there to end it."""
        self._lock = threading.Lock()
        if self._starts and self._was_on:
            gc.enable()
        self._starts = 0


def _collections() -> tuple[int, int]:
    return sum(g["collections"] for g in gc.get_stats()), gc.get_freeze_count()


_collector = _CollectorPause()
os.register_at_fork(after_in_child=_collector.after_fork)


class Engine(Backend):
    """The embedded engine: the model in this process, batched by the ``Scheduler``."""

    def __init__(self, settings: Settings, *, freeze_start: bool = False):
        super().__init__()
        self.settings = settings
        self.freeze_start = freeze_start
        self.loaded: Loaded | None = None
        self.scheduler: Scheduler | None = None
        self.registry = Registry()
        self._admin_lock = threading.Lock()  # one load or unload at a time
        self.fault: str | None = None  # why a ready engine stopped serving (``_check_base``)

    def start(self) -> None:
        """Load the model in the background; ``ready`` is set when it can serve."""
        threading.Thread(target=self._start, name="mnemo-load", daemon=True).start()
        # A generation thread still inside torch when the interpreter shuts down aborts the
        # process (SIGABRT, "terminate called without an active exception"), so it is stopped
        # and joined at exit, whatever built the app (gunicorn's worker_exit does it earlier).
        # A weak reference: an app the process drops can still be collected.
        atexit.register(_stop_at_exit, weakref.ref(self))

    def stop(self) -> None:
        """Stop and join the generation thread (the model stays loaded)."""
        if self.scheduler is not None:
            self.scheduler.stop()

    def _start(self) -> None:
        # A start creates some two million objects (torch's, transformers', the model's
        # modules). With the cyclic garbage collector on, it walked all of them seven times
        # while they were being created: 0.8-1.0 s of a 6 s start here. So the start runs with
        # it paused and ends, before /readyz says ready, with one collection: a first start's
        # GGUF conversion leaves a whole float32 model, 538 MB, in a reference cycle, which
        # must be collected, never frozen. A server process (``freeze_start``, from wsgi.py,
        # which paused the collector before its first import) serves this app for life: what
        # the imports made is frozen (``gc.freeze``: collections skip it) as the load begins,
        # uncollected (some 7,500 small objects of it are import-time garbage, 0.7 MB), so the
        # final collection walks only what the load made (0.13-0.2 s instead of 0.45-0.5 s
        # over everything), and what survives that is frozen too; then the collector is on.
        # Otherwise (an app built in-process: tests, a program embedding Mnemo) nothing is
        # frozen, the collection is of what the load made where that can be told
        # (``_CollectorPause.collect``: it spares the walk over what the process held before,
        # 0.18 s per app in the test process) and the collector is then as found.
        since = _collector.enter()
        try:
            if self.freeze_start:
                gc.freeze()
            try:
                self._load()
            except BaseException as exc:  # recorded and shown by /readyz; the process stays up
                log.exception("model failed to load")
                self.load_error = exc
            finally:
                _collector.collect(since, full=self.freeze_start)
                if self.freeze_start:
                    gc.freeze()
        finally:
            _collector.exit(turn_on=self.freeze_start)
        if self.load_error is None:
            self.ready.set()

    def describe(self) -> str:
        m = self.loaded
        return (f"model {m.model_id} on {m.device}, {str(m.dtype).removeprefix('torch.')}, "
                f"quantize {m.quantize}, executor {m.executor}, context {m.context_window}, adapters "
                f"{', '.join(m.adapters) or 'none'}")

    def _load(self) -> None:
        self.loaded = load(self.settings)
        for name, spec in self.loaded.adapters.items():
            self.registry.next_key(name)
            self.registry.add(Adapter(name, name, self.settings.adapters[name], spec.rank,
                                      spec.targets, "settings"))
        self.tokenizer = self.loaded.tokenizer
        self.scheduler = Scheduler(
            self.loaded, max_batch_size=self.settings.max_batch_size,
            max_queue=self.settings.max_queue,
            generation_timeout=self.settings.generation_timeout,
            prefix_cache_bytes=self.settings.prefix_cache_mb * 1024 * 1024,
            kv_budget_tokens=self.settings.kv_budget_tokens,
            prefill_chunk_tokens=self.settings.prefill_chunk_tokens)
        self.scheduler.start()
        if self.settings.warmup:
            self._warm_up()

    def _warm_up(self) -> None:
        ids = self.loaded.tokenizer("Hello", add_special_tokens=False)["input_ids"]
        for _chunk in self.scheduler.submit(GenRequest(ids, SamplingParams(max_new_tokens=2))):
            pass
        self.scheduler.prefix.clear()

    # -- what routes use ----------------------------------------------------------------
    @property
    def model_id(self) -> str:
        return self.loaded.model_id if self.loaded else "(loading)"

    @property
    def context_window(self) -> int:
        return self.loaded.context_window

    @property
    def adapters(self) -> tuple[str, ...]:
        return self.registry.names()

    def metric_lines(self) -> list[str]:
        sched = self.scheduler
        lines = ["# TYPE mnemo_queue_depth gauge", f"mnemo_queue_depth {sched.queue_depth if sched else 0}",
                 "# TYPE mnemo_active_sequences gauge",
                 f"mnemo_active_sequences {sched.active if sched else 0}"]
        if sched is not None:  # prompt tokens looked up in the prefix cache, and found there
            lines += ["# TYPE mnemo_prefix_cache_query_tokens_total counter",
                      f"mnemo_prefix_cache_query_tokens_total {sched.prefix.query_tokens}",
                      "# TYPE mnemo_prefix_cache_hit_tokens_total counter",
                      f"mnemo_prefix_cache_hit_tokens_total {sched.prefix.hit_tokens}",
                      # running rows put back in the queue when the KV budget ran out
                      "# TYPE mnemo_preemptions_total counter",
                      f"mnemo_preemptions_total {sched.preemptions}",
                      # forward passes of the running batch (one token for each of its rows)
                      "# TYPE mnemo_decode_steps_total counter",
                      f"mnemo_decode_steps_total {sched.steps}"]
        draft = self.loaded.draft if self.loaded else None
        if draft is not None:  # read without the worker's lock: counters only grow
            lines += [
                "# TYPE mnemo_speculative_steps_total counter",
                f"mnemo_speculative_steps_total {draft.steps}",
                "# TYPE mnemo_speculative_drafted_tokens_total counter",
                f"mnemo_speculative_drafted_tokens_total {draft.drafted}",
                "# TYPE mnemo_speculative_accepted_tokens_total counter",
                f"mnemo_speculative_accepted_tokens_total {draft.kept}",
            ]
        return lines

    # -- the admin API's operations -------------------------------------------------------
    def load_adapter(self, name: str, relative: str, *, replace: bool = False) -> Adapter:
        """Check and load an adapter (built here, swapped in by the worker between two steps)
        and publish it; the old one of that name, when replaced, leaves the model once its
        requests have finished."""
        root = Path(self.settings.adapter_dir)
        if name == self.model_id:
            raise AdapterConflict(f"{name!r} is the base model's name.")
        with self._admin_lock:
            if self.registry.get(name) is not None and not replace:
                raise AdapterConflict(f"An adapter named {name!r} is loaded; send "
                                      '"replace": true to replace it.')
            spec = inspect(confine(root, relative), self.scheduler.model)
            weights = read_weights(spec)  # read here: the worker only copies them in
            key = self.registry.next_key(name)
            runner = self.scheduler.runner
            before = base_digest(runner.model)
            tree = self.scheduler.call(runner.tree).result()  # a clone, taken between steps
            variant = runner.with_adapter(tree, key, spec, weights)  # built here, on it
            self._check_base(before, variant.model, f"loading adapter {name!r}")
            self.scheduler.call(lambda: runner.install(variant)).result()
            adapter = Adapter(name, key, relative, spec.rank, spec.targets, "admin")
            old = self.registry.add(adapter, replace=True)
            if old is not None:
                self._retire(old)  # built now, under the lock, from the model just installed
        log.info("adapter %s loaded from %s (rank %d)", name, spec.path, spec.rank)
        return adapter

    def busy(self) -> bool:
        return self.scheduler is not None and self.scheduler.active > 0

    def held(self) -> int:
        return self.scheduler.held if self.scheduler is not None else 0

    def not_ready_reason(self) -> str:
        return self.fault or super().not_ready_reason()

    def _check_base(self, before: dict[str, int], model, what: str) -> None:
        """``model``'s base weights must be bit for bit what they were. If ``what`` changed
        them, it is refused; the base tensors are shared with the running model, so if that one
        changed too the engine stops serving rather than answer everyone from a corrupted model
        (``/readyz`` says why; a restart restores it)."""
        after = base_digest(model)
        if after == before:
            return
        changed = sorted(k for k in before if after.get(k) != before[k])
        if base_digest(self.scheduler.model) != before:
            self.fault = (f"{what} changed the base model's weights ({changed[0]}, ...); "
                          "restart the server")
            self.ready.clear()
            log.error("%s", self.fault)
        raise AdapterInvalid(f"{what} would change the base model's weights ({changed[0]}"
                             f"{' and others' if len(changed) > 1 else ''}); refused.")

    def unload_adapter(self, name: str, timeout: float | None = None) -> Adapter:
        """Refuse the name at once; wait until its requests have finished and it has left the
        model (at most ``timeout`` seconds: the generation time limit by default)."""
        with self._admin_lock:
            adapter = self.registry.remove(name)
            before = base_digest(self.scheduler.model)
            wait = timeout or self.settings.generation_timeout + 10
            try:
                self._retire(adapter).result(wait)
            except FutureTimeout:  # still in use: it leaves the model once they finish
                raise AdapterConflict(f"{name!r} is unloaded for new requests, but requests "
                                      f"still used it after {wait:g} s; its weights leave the "
                                      "model when they finish.") from None
            self._check_base(before, self.scheduler.model, f"unloading adapter {name!r}")
        log.info("adapter %s unloaded", name)
        return adapter

    def _retire(self, adapter: Adapter):
        """Take ``adapter`` out of the model once no request uses it: the model without it is
        built here, the worker swaps it in (the caller holds the admin lock)."""
        sched = self.scheduler
        variant = sched.runner.without_adapter(adapter.key,
                                               lambda: sched.call(sched.runner.tree).result())

        def drop():
            sched.runner.install(variant)
            sched.prefix.drop_adapter(adapter.key)

        return sched.call(drop, ready=lambda: sched.in_flight(adapter.key) == 0)

    def submit(self, prompt_ids: list[int], params, adapter: str | None,
               tenant: str | None = None, keep_kv: bool = True, affinity: str | None = None,
               share_prompt: bool = False) -> Handle:
        """``Backend.submit``: one process holds every prefix, so ``affinity`` is not needed."""
        if adapter is None:
            return self.scheduler.submit(GenRequest(prompt_ids, params, None, tenant, keep_kv,
                                                    share_prompt))
        for _ in range(3):  # a replace that lands meanwhile: the new version serves it
            found = self.registry.get(adapter)
            if found is None:  # unloaded since the route checked it
                break
            handle = self.scheduler.submit(
                GenRequest(prompt_ids, params, found.key, tenant, keep_kv, share_prompt),
                still=lambda key=found.key: getattr(self.registry.get(adapter), "key", None) == key)
            if handle is not None:
                return handle
        raise UnknownAdapter(f"The adapter {adapter!r} was just unloaded.")


def _stop_at_exit(ref: weakref.ref) -> None:
    engine = ref()
    if engine is not None:
        engine.stop()
