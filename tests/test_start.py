"""A server process starts without Python's cyclic garbage collector: wsgi.py pauses it before
the first import, and the engine freezes what the start made and turns it back on, whether the
model loaded or not. An app built in-process (tests, a program embedding Mnemo) pauses it
only while the model loads and ends with one collection: nothing of such a process is frozen,
so what it drops (an app, a model) can still be collected."""

from __future__ import annotations

import gc
import json
import subprocess
import sys

from api import create_app

from .conftest import ROOT, tiny_config, wait_ready

PROBE = r"""
import gc, json, time
import wsgi
paused = not gc.isenabled()
engine = wsgi.app.extensions["engine"]
deadline = time.monotonic() + 120
while not gc.isenabled() and time.monotonic() < deadline:
    time.sleep(0.02)
print(json.dumps({"paused_while_loading": paused, "enabled": gc.isenabled(),
                  "frozen": gc.get_freeze_count(), "ready": engine.ready.is_set(),
                  "failed": engine.load_error is not None}))
"""


def probe(env: dict) -> dict:
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True,
                         timeout=180, env={**env, "MNEMO_ADAPTERS": "", "MNEMO_WARMUP": "false"})
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_server_process_starts_without_the_collector_and_freezes_its_start(tiny_dir, tmp_path):
    import os

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


def test_an_app_built_in_process_collects_instead_of_freezing(tiny_dir, lora_dir, tmp_path_factory):
    frozen = gc.get_freeze_count()
    app = create_app(tiny_config(tiny_dir, lora_dir, tmp_path_factory))
    wait_ready(app)
    assert gc.isenabled()
    assert gc.get_freeze_count() == frozen == 0
