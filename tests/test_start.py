"""A server process starts without Python's cyclic garbage collector: wsgi.py pauses it before
the first import, and the engine freezes what the start made and turns it back on, whether the
model loaded or not. An app built in-process (tests, a program embedding Mnemo) pauses it
only while the model loads, ends with one collection and leaves the collector as it found it:
nothing of such a process is frozen, so what it drops (an app, a model) can still be collected.
Whatever built the app, its generation thread is stopped before the interpreter shuts down."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys

import pytest

from api import create_app

from .conftest import ROOT, tiny_config, wait_ready

pytestmark = pytest.mark.slow  # fresh Python processes that start the server

# Optionally (LITTER=1) the model's load leaves a tensor in a reference cycle, as a first
# start's GGUF conversion does with a whole float32 model. After the start, the probe unfreezes
# and collects with DEBUG_SAVEALL: what it finds is what the freeze had kept although it was
# garbage.
PROBE = r"""
import gc, json, os, time
import torch
import api.engine.loader as loader

if os.environ.get("LITTER"):
    real_load = loader.load
    def load(settings):
        cycle = {"weights": torch.zeros(1000)}
        cycle["self"] = cycle
        del cycle
        return real_load(settings)
    loader.load = load
    import api.engine
    api.engine.load = load
import wsgi
paused = not gc.isenabled()
engine = wsgi.app.extensions["engine"]
deadline = time.monotonic() + 120
while not gc.isenabled() and time.monotonic() < deadline:
    time.sleep(0.02)
got = {"paused_while_loading": paused, "enabled": gc.isenabled(),
       "frozen": gc.get_freeze_count(), "ready": engine.ready.is_set(),
       "failed": engine.load_error is not None}
gc.unfreeze()
gc.set_debug(gc.DEBUG_SAVEALL)
gc.collect()
got["frozen_tensors"] = sum(isinstance(o, torch.Tensor) for o in gc.garbage)
print(json.dumps(got))
"""


def probe(env: dict) -> dict:
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True,
                         timeout=180, env={**env, "MNEMO_ADAPTERS": "", "MNEMO_WARMUP": "false"})
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_server_process_starts_without_the_collector_and_freezes_its_start(tiny_dir, tmp_path):
    env = {**os.environ, "MNEMO_MODEL": str(tiny_dir), "MNEMO_CACHE_DIR": str(tmp_path)}
    got = probe(env)
    assert got["paused_while_loading"] and got["ready"] and not got["failed"]
    assert got["enabled"]  # on again once the start ended
    assert got["frozen"] > 100_000  # torch's, transformers' and the model's objects
    # a start that fails ends the pause too: the process stays up and keeps collecting
    empty = tmp_path / "no-model"
    empty.mkdir()
    got = probe({**env, "MNEMO_MODEL": str(empty)})
    assert got["paused_while_loading"] and got["failed"] and not got["ready"]
    assert got["enabled"] and got["frozen"] > 100_000


def test_what_the_start_dropped_is_collected_not_frozen(tiny_dir, tmp_path):
    got = probe({**os.environ, "MNEMO_MODEL": str(tiny_dir), "MNEMO_CACHE_DIR": str(tmp_path),
                 "LITTER": "1"})
    assert got["ready"] and got["frozen"] > 100_000
    assert got["frozen_tensors"] == 0


def test_a_server_process_whose_app_fails_to_build_collects_again(tmp_path):
    code = ("import gc\ntry:\n    import wsgi\nexcept Exception as exc:\n"
            "    print(type(exc).__name__, gc.isenabled())\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         timeout=120, env={**os.environ, "MNEMO_MAX_QUEUE": "not a number"})
    assert out.stdout.split() == ["ConfigError", "True"], out.stderr[-2000:]


def test_an_app_built_in_process_collects_instead_of_freezing(tiny_dir, lora_dir, tmp_path_factory):
    frozen = gc.get_freeze_count()
    app = create_app(tiny_config(tiny_dir, lora_dir, tmp_path_factory))
    wait_ready(app)
    assert gc.isenabled()
    assert gc.get_freeze_count() == frozen == 0


def test_an_app_built_in_process_leaves_a_paused_collector_paused(tiny_dir, lora_dir,
                                                                  tmp_path_factory):
    gc.disable()  # the host program's choice
    try:
        app = create_app(tiny_config(tiny_dir, lora_dir, tmp_path_factory))
        wait_ready(app)
        assert not gc.isenabled()
        assert gc.get_freeze_count() == 0
    finally:
        gc.enable()


@pytest.mark.parametrize("collected_meanwhile", [False, True], ids=["alone", "collected-meanwhile"])
def test_an_app_built_in_process_collects_what_its_load_dropped(tiny_dir, lora_dir,
                                                              tmp_path_factory, monkeypatch,
                                                              collected_meanwhile):
    """What a load leaves in a reference cycle (a first start's GGUF conversion leaves a whole
    float32 model so) is collected by the start's own collection: here the host keeps the
    collector off, so nothing else could. A collection while the cycle is still held (another
    start ending, or the host's own) moves it out of the youngest generation: a review found
    the start's young-only collection then left it for the process's life."""
    import weakref

    import torch

    import api.engine as engine_package

    dropped, load = [], engine_package.load

    def littering(settings):
        cycle = {"weights": torch.zeros(1000)}
        cycle["self"] = cycle
        dropped.append(weakref.ref(cycle["weights"]))
        loaded = load(settings)
        if collected_meanwhile:
            gc.collect(0)  # as another start's end would, while this one still holds the cycle
        return loaded  # the cycle is garbage from here

    monkeypatch.setattr(engine_package, "load", littering)
    gc.disable()
    try:
        app = create_app(tiny_config(tiny_dir, lora_dir, tmp_path_factory))
        wait_ready(app)
        assert dropped and dropped[0]() is None
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_overlapping_starts_leave_the_collector_as_the_first_found_it():
    """Two apps loading at once in one process (tests do; so may a program embedding Mnemo):
    the collector stays paused until the last load ends, then is as the first found it. Each
    start restoring what it had found itself left it off for good when one began while
    another was ending."""
    from api.engine import _CollectorPause

    pause = _CollectorPause()
    try:
        assert gc.isenabled()
        pause.enter()
        pause.enter()  # a second start while the first runs: it finds the collector paused
        pause.exit(turn_on=False)  # the first ends
        assert not gc.isenabled()  # the second is still loading
        pause.exit(turn_on=False)
        assert gc.isenabled()  # as the first found it
        gc.disable()  # a host program's choice is kept...
        pause.enter()
        pause.exit(turn_on=False)
        assert not gc.isenabled()
        pause.enter()
        pause.exit(turn_on=True)  # ...unless a server start turns it on (wsgi.py paused it)
        assert gc.isenabled()
    finally:
        gc.enable()


def test_a_child_forked_during_a_start_gets_its_collector_back():
    """The start's thread does not survive a fork, so nothing in the child would end its
    pause: the child restores the collector itself (os.register_at_fork)."""
    from api.engine import _collector

    assert gc.isenabled()
    _collector.enter()
    try:
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: report and leave at once
            os.write(write, b"1" if gc.isenabled() else b"0")
            os._exit(0)
        os.close(write)
        assert os.read(read, 1) == b"1"
        os.close(read)
        os.waitpid(pid, 0)
        assert not gc.isenabled()  # the parent's start is still running
    finally:
        _collector.exit(turn_on=False)
    assert gc.isenabled()


EXIT_PROBE = r"""
import atexit, json, threading
def report():  # registered first, so it runs after the engine's hook (last in, first out)
    print(json.dumps(sorted(t.name for t in threading.enumerate() if t.name == "mnemo-generate")))
atexit.register(report)
from api import create_app
app = create_app({"warmup": True, "adapters": {}})
assert app.extensions["engine"].ready.wait(120)
"""


def test_a_process_that_built_an_app_stops_its_generation_thread_at_exit(tiny_dir, tmp_path):
    """A generation thread left running into the interpreter's shutdown can abort the process
    (SIGABRT) while it is inside torch: whatever built the app, it is stopped and joined."""
    out = subprocess.run([sys.executable, "-c", EXIT_PROBE], cwd=ROOT, capture_output=True,
                         text=True, timeout=180,
                         env={**os.environ, "MNEMO_MODEL": str(tiny_dir),
                              "MNEMO_CACHE_DIR": str(tmp_path)})
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


def test_the_ready_line_is_a_url_to_open_or_the_socket_behind_a_proxy():
    from api.lifecycle import ready_line

    assert ready_line("127.0.0.1:8000", "model m") == "ready: open http://127.0.0.1:8000/ (model m)"
    assert ready_line("[::1]:8000", "m").startswith("ready: open http://[::1]:8000/ ")
    line = ready_line("unix:/run/mnemo.sock", "m")
    assert "http://" not in line and "unix:/run/mnemo.sock" in line and "proxy" in line
