"""Fixtures: the real default model's files and tokenizer, a tiny random model built here with
that tokenizer (so token counts and templates are real), a LoRA adapter made with peft, apps
built with ``create_app``, and live servers on loopback for tests that need real HTTP."""

from __future__ import annotations

import contextlib
import inspect
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

if os.environ.get("PYTEST_XDIST_WORKER"):
    # Two test processes share the machine's cores: each, and every server it starts, runs
    # torch on one thread rather than both fighting over all of them.
    os.environ["OMP_NUM_THREADS"] = "1"

import torch
from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM
from werkzeug.serving import make_server

from api import create_app
from api.config import Settings
from api.engine.loader import dequantized_dir, embedded_gguf, embedded_tag

ROOT = Path(__file__).resolve().parents[1]
CACHE_DIR = Path(os.environ.get("MNEMO_CACHE_DIR", Path.home() / ".cache" / "mnemo"))


# Slow tests (``-m "not slow"`` leaves them out for everyday work): those that use Chromium or
# a server on the real default model, and those that load the default model themselves (the
# tiny model's fixtures read its tokenizer only). Modules that start server processes or a
# compiler mark themselves.
SLOW_FIXTURES = {"browser", "default_live", "legal_live"}


# The modules that take longest (worker seconds in a full run, docs/testing.md), started first:
# scripts/test runs the modules on two processes in this order (``--no-loadscope-reorder``:
# else pytest-xdist starts the modules with the most tests first), and the run ends with short
# ones, not with one process finishing a long module while the other waits.
LONGEST_FIRST = ["test_structured", "test_legal_demo", "test_hardening", "test_native",
                 "test_speculative", "test_attention", "test_page_robustness", "test_remote",
                 "test_gunicorn", "test_admin", "test_openapi", "test_start", "test_page",
                 "test_affinity", "test_quantize", "test_page_markdown", "test_chat_client"]


def pytest_collection_modifyitems(items):
    for item in items:
        direct = inspect.signature(item.function).parameters if hasattr(item, "function") else {}
        if SLOW_FIXTURES & set(item.fixturenames) or "smol_dir" in direct:
            item.add_marker(pytest.mark.slow)
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.module.__name__.rsplit(".", 1)[-1], len(rank))
               if hasattr(item, "module") else len(rank))


@pytest.fixture(scope="session", autouse=True)
def native_step():
    """The native decode step, built once per machine into the shared cache directory (as
    scripts/setup does) and loaded into this process, where every later load finds it (apps
    on a temporary cache directory included): one compile per machine, not one per session."""
    from api.engine import native

    native.build(CACHE_DIR)


def as_on_a_bfloat16_cpu(monkeypatch) -> None:
    """As on a CPU whose oneDNN multiplies bfloat16 (AVX-512 BW/VL/DQ or AVX-NE-CONVERT), where
    a quantized model keeps its keys and values in bfloat16 (``loader.bf16_attention``): the
    tests of that path run it on any CPU (an AVX2 one computes the same through torch's slower
    bfloat16 loops)."""
    from api.engine import loader

    monkeypatch.setattr(loader, "dense_unsupported", lambda: None)


@pytest.fixture()
def bf16_cpu(monkeypatch):
    as_on_a_bfloat16_cpu(monkeypatch)


@pytest.fixture(scope="session")
def smol_dir() -> Path:
    """The embedded default model, converted once into the shared cache directory."""
    return dequantized_dir(embedded_gguf(), CACHE_DIR, embedded_tag())


@pytest.fixture(scope="session")
def tokenizer(smol_dir):
    return AutoTokenizer.from_pretrained(smol_dir)


@pytest.fixture(scope="session")
def tiny_dir(tmp_path_factory, tokenizer) -> Path:
    """A randomly initialised 2-layer Llama with the default model's tokenizer."""
    path = tmp_path_factory.mktemp("tiny")
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=len(tokenizer), hidden_size=64, intermediate_size=128,
                         num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                         max_position_embeddings=1024, tie_word_embeddings=True,
                         bos_token_id=1, eos_token_id=2, pad_token_id=2,
                         initializer_range=0.2)  # wide enough that output depends on input
    model = LlamaForCausalLM(config)
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


@pytest.fixture(scope="session")
def lora_dir(tmp_path_factory, tiny_dir) -> Path:
    """A LoRA adapter with non-zero weights, so it really changes the tiny model's output."""
    from peft import LoraConfig, get_peft_model

    path = tmp_path_factory.mktemp("lora")
    torch.manual_seed(1)
    base = LlamaForCausalLM.from_pretrained(tiny_dir)
    config = LoraConfig(r=8, lora_alpha=64, target_modules=["q_proj", "v_proj", "down_proj"],
                        init_lora_weights=False)
    get_peft_model(base, config).save_pretrained(path)
    return path


def wait_ready(app, timeout: float = 120) -> None:
    engine = app.extensions["engine"]
    if not engine.ready.wait(timeout):
        raise RuntimeError(f"model did not load: {engine.load_error!r}")


def tiny_config(tiny_dir, lora_dir, tmp_path_factory, **extra) -> dict:
    return {"model": str(tiny_dir), "adapters": {"shouty": str(lora_dir)}, "warmup": False,
            "cache_dir": str(tmp_path_factory.getbasetemp() / "cache"), **extra}


@pytest.fixture(scope="session")
def app(tiny_dir, lora_dir, tmp_path_factory):
    app = create_app(tiny_config(tiny_dir, lora_dir, tmp_path_factory,
                                 max_queue=4, max_batch_size=4, max_messages=50,
                                 max_message_chars=2000, max_request_bytes=64_000,
                                 default_max_new_tokens=16, max_new_tokens_limit=64))
    wait_ready(app)
    return app


@pytest.fixture()
def client(app):
    return app.test_client()


class LiveServer:
    """A real HTTP server on loopback around an app, in a thread."""

    def __init__(self, app, port: int = 0):
        self.app = app
        if port:  # a given port may be a server's that a test just killed
            wait_port_free(port)
        self.server = make_server("127.0.0.1", port, app, threaded=True)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@contextlib.contextmanager
def tiny_live(tiny_dir, lora_dir, tmp_path_factory, **extra):
    """A LiveServer around a fresh tiny-model app with ``extra`` settings (``server.app``)."""
    app = create_app(tiny_config(tiny_dir, lora_dir, tmp_path_factory, **extra))
    wait_ready(app)
    server = LiveServer(app)
    try:
        yield server
    finally:
        server.close()


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium, headless, launched once for the session."""
    from playwright.sync_api import sync_playwright

    from tests.pages import ARGS

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        yield b
        b.close()


@pytest.fixture()
def context(browser):
    """A fresh browser profile (its own localStorage) for one test."""
    ctx = browser.new_context(accept_downloads=True)
    yield ctx
    ctx.close()


@pytest.fixture()
def hold(monkeypatch):
    """``hold(app, after)``: the app's forwards after the first ``after`` wait until the test
    releases them (``helpers.Held``); released at teardown, before the forward is restored."""
    from tests.helpers import Held, wrap_forward

    made = []

    def start(app, after: int = 8) -> Held:
        made.append(Held(after))
        wrap_forward(monkeypatch, app, made[-1])
        return made[-1]

    yield start
    for held in made:
        held.release()


@pytest.fixture(scope="session")
def live(app):
    server = LiveServer(app)
    yield server
    server.close()


@pytest.fixture(scope="module")
def sdk(live):
    """The official openai client on ``live`` (a module may redefine ``live``: a front)."""
    import openai

    return openai.OpenAI(base_url=live.url + "/v1", api_key="unused", max_retries=0, timeout=60)


@pytest.fixture(scope="module")
def model_id(sdk):
    return sdk.models.list().data[0].id


@pytest.fixture(scope="session")
def default_live(smol_dir):
    """The real default model behind real HTTP, with the default settings (int4, as the
    embedded model ships)."""
    app = create_app({"cache_dir": str(CACHE_DIR), "warmup": True})
    wait_ready(app, timeout=300)
    assert app.extensions["engine"].loaded.quantize == "int4"
    server = LiveServer(app)
    yield server
    server.close()


@pytest.fixture(scope="session")
def legal_live(smol_dir):
    """The default model serving the shipped demo adapter (MNEMO_ADAPTERS=legal-demo), which
    keeps it in float32, as the adapter was trained. Its batch holds all 40 held-out answers
    (20 questions, with and without the adapter) at once."""
    app = create_app({"cache_dir": str(CACHE_DIR), "warmup": True, "max_batch_size": 40,
                      "adapters": Settings.load({"MNEMO_ADAPTERS": "legal-demo"}).adapters})
    wait_ready(app, timeout=300)
    assert app.extensions["engine"].loaded.quantize == "none"
    server = LiveServer(app)
    yield server
    server.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(url: str, timeout: float = 120, proc=None, log: Path | None = None) -> None:
    """Until ``url`` answers 200; a server ``proc`` that exits meanwhile fails it at once, with
    the end of its ``log``."""
    import urllib.request

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            tail = log.read_text(errors="replace")[-3000:] if log else ""
            raise RuntimeError(f"the server exited ({proc.returncode}) before {url} answered:\n"
                               f"{tail}")
        try:
            with urllib.request.urlopen(url, timeout=2) as resp:
                if resp.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"{url} never answered 200")


def wait_port_free(port: int, timeout: float = 30) -> None:
    """Until a listener could bind ``port`` again: a server killed with SIGKILL is gone from
    ``wait()`` before its many-threaded worker has let go of the socket."""
    deadline = time.monotonic() + timeout
    while True:
        with socket.socket() as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind(("127.0.0.1", port))
                return
            except OSError:
                if time.monotonic() > deadline:
                    raise
        time.sleep(0.1)


@contextlib.contextmanager
def run_gunicorn(model_dir, tmp_path, *, port: int | None = None, ready: str = "/readyz",
                 **env_extra):
    """gunicorn started for real with gunicorn.conf.py on ``model_dir``; yields (process, url)
    once ``ready`` answers 200."""
    port = port or free_port()
    env = {**os.environ, "MNEMO_MODEL": str(model_dir), "MNEMO_BIND": f"127.0.0.1:{port}",
           "MNEMO_CACHE_DIR": str(tmp_path), "MNEMO_WARMUP": "true", "MNEMO_GRACEFUL_TIMEOUT": "30",
           "MNEMO_ADAPTERS": "", **env_extra}
    log = open(tmp_path / "gunicorn.log", "ab")
    # Its own process group, so that killing the group takes the workers down with the master.
    proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "wsgi:app"],
                            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_http(url + ready, timeout=120, proc=proc, log=tmp_path / "gunicorn.log")
        yield proc, url
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        log.close()
        wait_port_free(port)  # a test may start the next server on the same address
