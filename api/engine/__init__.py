"""The model engine as a Flask extension: ``app.extensions["engine"]``, one per process.

The model loads in a background thread started by ``init_app`` (so under gunicorn it loads in
each worker after the fork, never in the master), and ``/readyz`` answers 503 until it has
loaded and warmed up. Requests reach the model only through ``submit``.
"""

from __future__ import annotations

import atexit
import gc
import logging
import threading
import weakref
from pathlib import Path

from flask import Flask

from ..config import Settings
from ..exceptions import AdapterConflict, NotReady, UnknownAdapter
from ..prompt import PromptBuilder
from .adapters import Adapter, Registry, confine, inspect
from .loader import Loaded, load
from .request import GenRequest, Handle
from .scheduler import Scheduler

__all__ = ["Engine", "GenRequest", "Handle"]

log = logging.getLogger("mnemo.engine")


class Engine:
    def __init__(self, settings: Settings, *, freeze_start: bool = False):
        self.settings = settings
        self.freeze_start = freeze_start
        self.ready = threading.Event()
        self.load_error: BaseException | None = None
        self.loaded: Loaded | None = None
        self.scheduler: Scheduler | None = None
        self.prompts: PromptBuilder | None = None
        self.registry = Registry()
        self._prompt_lock = threading.Lock()
        self._admin_lock = threading.Lock()  # one load or unload at a time

    def init_app(self, app: Flask) -> None:
        app.extensions["engine"] = self
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
        # Otherwise the collection is a full one and the collector is left as it was found.
        was_on = gc.isenabled()
        gc.disable()
        if self.freeze_start:
            gc.freeze()
        try:
            self._load()
        except BaseException as exc:  # recorded and shown by /readyz; the process stays up
            log.exception("model failed to load")
            self.load_error = exc
        finally:
            gc.collect()
            if self.freeze_start:
                gc.freeze()
            if was_on or self.freeze_start:
                gc.enable()
        if self.load_error is None:
            log.info("model %s ready on %s (%s)", self.loaded.model_id, self.loaded.device,
                     self.loaded.dtype)
            self.ready.set()

    def _load(self) -> None:
        self.loaded = load(self.settings)
        for name, path in self.settings.adapters.items():
            rank, targets = inspect(Path(path), self.loaded.model)
            self.registry.next_key(name)
            self.registry.add(Adapter(name, name, path, rank, targets, "settings"))
        self.prompts = PromptBuilder(self.loaded.tokenizer)
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
        from ..types import SamplingParams

        ids = self.loaded.tokenizer("Hello", add_special_tokens=False)["input_ids"]
        for _chunk in self.scheduler.submit(GenRequest(ids, SamplingParams(max_new_tokens=2))):
            pass
        self.scheduler.prefix.clear()

    # -- what routes use ----------------------------------------------------------------
    def require_ready(self) -> None:
        if not self.ready.is_set():
            why = "failed to load; see the server log" if self.load_error else "is still loading"
            raise NotReady(f"The model {why}.", headers={"Retry-After": "5"})

    @property
    def model_id(self) -> str:
        return self.loaded.model_id if self.loaded else "(loading)"

    @property
    def context_window(self) -> int:
        return self.loaded.context_window

    @property
    def adapters(self) -> tuple[str, ...]:
        return self.registry.names()

    def check_adapter(self, name: str | None) -> None:
        if name is not None and self.registry.get(name) is None:
            known = ", ".join(sorted(self.adapters)) or "none are configured"
            raise UnknownAdapter(f"Unknown adapter {name!r}; known adapters: {known}.",
                                 param="adapter")

    # -- the admin API's operations -------------------------------------------------------
    def load_adapter(self, name: str, relative: str, *, replace: bool = False) -> Adapter:
        """Check, load (in the worker, between steps) and publish an adapter; the old one of
        that name, when replaced, leaves the model once its requests have finished."""
        root = Path(self.settings.adapter_dir)
        if name == self.model_id:
            raise AdapterConflict(f"{name!r} is the base model's name.", param="name")
        with self._admin_lock:
            if self.registry.get(name) is not None and not replace:
                raise AdapterConflict(f"An adapter named {name!r} is loaded; send "
                                      '"replace": true to replace it.', param="name")
            path = confine(root, relative)
            rank, targets = inspect(path, self.scheduler.model)
            key = self.registry.next_key(name)
            self.scheduler.call(lambda: self.scheduler.runner.add_adapter(key, str(path))).result()
            adapter = Adapter(name, key, relative, rank, targets, "admin")
            old = self.registry.add(adapter, replace=True)
        if old is not None:
            self._retire(old)
        log.info("adapter %s loaded from %s (rank %d)", name, path, rank)
        return adapter

    def unload_adapter(self, name: str, timeout: float | None = None) -> Adapter:
        """Refuse the name at once; wait until its requests have finished and it has left the
        model (at most ``timeout`` seconds: the generation time limit by default)."""
        with self._admin_lock:
            adapter = self.registry.remove(name)
        self._retire(adapter).result(timeout or self.settings.generation_timeout + 10)
        log.info("adapter %s unloaded", name)
        return adapter

    def _retire(self, adapter: Adapter):
        sched = self.scheduler

        def drop():
            sched.runner.delete_adapter(adapter.key)
            sched.prefix.drop_adapter(adapter.key)

        return sched.call(drop, ready=lambda: sched.in_flight(adapter.key) == 0)

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
            return text if len(ids) <= limit else self.loaded.tokenizer.decode(ids[:limit])

    def submit(self, prompt_ids: list[int], params, adapter: str | None,
               tenant: str | None = None, keep_kv: bool = True) -> Handle:
        """Queue a generation; the caller has checked readiness and the adapter. ``tenant``
        (an API key's id) scopes the prefix cache entries it may use; ``keep_kv=False``: its
        KV is not kept for a later prompt (a one-off prompt, such as a summary's)."""
        key = None
        if adapter is not None:
            found = self.registry.get(adapter)
            if found is None:  # unloaded since the route checked it
                raise UnknownAdapter(f"The adapter {adapter!r} was just unloaded.", param="adapter")
            key = found.key
        return self.scheduler.submit(GenRequest(prompt_ids, params, key, tenant, keep_kv))


def _stop_at_exit(ref: weakref.ref) -> None:
    engine = ref()
    if engine is not None:
        engine.stop()
