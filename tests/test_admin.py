"""The admin API for run-time LoRA adapters on the tiny model: keys, path confinement, checks
against the loaded model, load / replace / unload, with requests in flight."""

from __future__ import annotations

import json
import os
import threading
import time

import pytest
import torch
from peft import LoraConfig, get_peft_model
from safetensors.torch import load_file, save_file
from transformers import LlamaConfig, LlamaForCausalLM

from api import create_app
from api.engine.adapters import base_digest
from tests.conftest import tiny_config, wait_ready
from tests.helpers import user, wait_for, wrap_forward

ADMIN = "admin-key-0123456789abcdef"
CLIENT = "client-key-0123456789abcdef"


def make_adapter(model_dir, out, seed: int, rank: int = 4, targets=("q_proj", "v_proj"), **extra):
    torch.manual_seed(seed)
    base = LlamaForCausalLM.from_pretrained(model_dir)
    config = LoraConfig(r=rank, lora_alpha=64, target_modules=list(targets),
                        **{"init_lora_weights": False, **extra})
    get_peft_model(base, config).save_pretrained(out)
    return out


def edit_config(path, **changes):
    cfg = json.loads((path / "adapter_config.json").read_text())
    (path / "adapter_config.json").write_text(json.dumps({**cfg, **changes}))


@pytest.fixture(scope="module")
def adapter_root(tmp_path_factory, tiny_dir):
    root = tmp_path_factory.mktemp("adapters")
    make_adapter(tiny_dir, root / "one", seed=11)
    make_adapter(tiny_dir, root / "two", seed=12, rank=8, targets=("k_proj", "o_proj"))
    # Another base model (wider layers): same module names, other shapes.
    other = tmp_path_factory.mktemp("other-base")
    LlamaForCausalLM(LlamaConfig(vocab_size=300, hidden_size=96, intermediate_size=128,
                                 num_hidden_layers=2, num_attention_heads=4,
                                 num_key_value_heads=2)).save_pretrained(other)
    make_adapter(other, root / "other-base", seed=13)
    # Config says rank 8, weights are rank 4.
    make_adapter(tiny_dir, root / "wrong-rank", seed=14)
    cfg = (root / "wrong-rank" / "adapter_config.json")
    cfg.write_text(cfg.read_text().replace('"r": 4', '"r": 8'))
    # Adapters that would change the base model, or need a forward Mnemo does not run.
    make_adapter(tiny_dir, root / "dora", seed=17, use_dora=True)
    make_adapter(tiny_dir, root / "saves-head", seed=18, modules_to_save=["lm_head"])
    make_adapter(tiny_dir, root / "embedding", seed=19, targets=("embed_tokens",))
    make_adapter(tiny_dir, root / "replicates", seed=20)
    edit_config(root / "replicates", layer_replication=[[0, 2]])
    # Saved after an initialisation that rewrote the base weights: meant for another base.
    make_adapter(tiny_dir, root / "pissa", seed=24, init_lora_weights="pissa")
    make_adapter(tiny_dir, root / "olora", seed=25, init_lora_weights="olora")
    make_adapter(tiny_dir, root / "odd-alpha", seed=26)
    edit_config(root / "odd-alpha", lora_alpha="64")
    # Weights for only some targeted layers: the others would keep a random initialisation.
    make_adapter(tiny_dir, root / "missing-layers", seed=27)
    weights = load_file(root / "missing-layers" / "adapter_model.safetensors")
    save_file({k: v for k, v in weights.items() if ".layers.0." in k},
              root / "missing-layers" / "adapter_model.safetensors")
    make_adapter(tiny_dir, root / "alpha-inf", seed=28)
    edit_config(root / "alpha-inf", lora_alpha=float("inf"))
    make_adapter(tiny_dir, root / "nan-weights", seed=29)
    weights = load_file(root / "nan-weights" / "adapter_model.safetensors")
    save_file({k: torch.full_like(v, float("nan")) for k, v in weights.items()},
              root / "nan-weights" / "adapter_model.safetensors")
    make_adapter(tiny_dir, root / "one-layer", seed=30)
    edit_config(root / "one-layer", layers_to_transform=0)  # "layer 0 only": not honoured
    make_adapter(tiny_dir, root / "regex", seed=21)
    edit_config(root / "regex", target_modules=".*proj")
    make_adapter(tiny_dir, root / "extra-tensor", seed=22)
    weights = load_file(root / "extra-tensor" / "adapter_model.safetensors")
    weights["base_model.model.model.norm.weight"] = torch.zeros(64)
    save_file(weights, root / "extra-tensor" / "adapter_model.safetensors")
    make_adapter(tiny_dir, root / "half", seed=23)
    weights = load_file(root / "half" / "adapter_model.safetensors")
    save_file({k: v for k, v in weights.items() if "lora_B" not in k},
              root / "half" / "adapter_model.safetensors")
    # Pickled weights only.
    pickled = root / "pickled"
    make_adapter(tiny_dir, pickled, seed=15)
    (pickled / "adapter_model.safetensors").rename(pickled / "adapter_model.bin")
    # Outside the root, and links that lead there.
    outside = tmp_path_factory.mktemp("outside")
    make_adapter(tiny_dir, outside / "secret", seed=16)
    os.symlink(outside / "secret", root / "link-out")
    os.symlink(root / "loop-b", root / "loop-a")  # a symlink loop
    os.symlink(root / "loop-a", root / "loop-b")
    (root / "file-link").mkdir()
    os.symlink(root / "one" / "adapter_config.json", root / "file-link" / "adapter_config.json")
    os.symlink(outside / "secret" / "adapter_model.safetensors",
               root / "file-link" / "adapter_model.safetensors")
    return root


def _admin_app(tiny_dir, lora_dir, tmp_path_factory, adapter_root):
    app = create_app(tiny_config(tiny_dir, lora_dir, tmp_path_factory, admin_keys=(ADMIN,),
                                 api_keys=(CLIENT,), adapter_dir=str(adapter_root),
                                 max_batch_size=4, max_queue=8))
    wait_ready(app)
    return app


@pytest.fixture()
def admin_app(tiny_dir, lora_dir, tmp_path_factory, adapter_root):
    app = _admin_app(tiny_dir, lora_dir, tmp_path_factory, adapter_root)
    yield app
    app.extensions["engine"].scheduler.stop()


@pytest.fixture(scope="module")
def refusing_app(tiny_dir, lora_dir, tmp_path_factory, adapter_root):
    """One app for every load that must be refused: each test checks that its refusal left
    the adapters and the replies as they were, which is what makes sharing it sound."""
    app = _admin_app(tiny_dir, lora_dir, tmp_path_factory, adapter_root)
    yield app
    app.extensions["engine"].scheduler.stop()


def call(client, method, url, key=ADMIN, **body):
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    resp = client.open(url, method=method, headers=headers, json=body if body else None)
    assert resp.mimetype == "application/json", resp.get_data(as_text=True)
    return resp.status_code, resp.get_json()


def chat(client, adapter=None, **extra):
    body = {"messages": [user("Tell me about owls.")], "max_new_tokens": 12, **extra}
    if adapter:
        body["adapter"] = adapter
    resp = client.post("/api/chat", json=body, headers={"Authorization": f"Bearer {CLIENT}"})
    return resp.status_code, resp.get_json()


def test_admin_api_is_off_without_admin_keys(client):
    resp = client.get("/admin/adapters")
    assert resp.status_code == 404 and resp.get_json()["error"]["code"] == "not_found"


def test_admin_calls_need_an_admin_key_not_a_client_key(admin_app):
    c = admin_app.test_client()
    assert call(c, "GET", "/admin/adapters", key=None)[0] == 401
    assert call(c, "GET", "/admin/adapters", key=CLIENT)[0] == 401
    status, body = call(c, "GET", "/admin/adapters")
    assert status == 200 and [a["name"] for a in body["adapters"]] == ["shouty"]
    # ...and the admin key is no client key.
    resp = c.post("/api/chat", json={"messages": [user("hi")]},
                  headers={"Authorization": f"Bearer {ADMIN}"})
    assert resp.status_code == 401


@pytest.mark.parametrize(("path", "reason"), [
    ("../outside", "leaves the adapter directory"),
    ("/etc", "leaves the adapter directory"),
    ("one/../../x", "leaves the adapter directory"),
    ("link-out", "leaves the adapter directory"),
    ("file-link", "links outside"),
    ("missing", "not an adapter directory"),
    ("pickled", "only safetensors"),
    ("other-base", "another base model"),
    ("wrong-rank", "wrong rank"),
    ("dora", "use_dora"),
    ("saves-head", "modules_to_save"),
    ("embedding", "not linear layers"),
    ("replicates", "layer_replication"),
    ("regex", "regular expression"),
    ("x" * 300, "File name too long"),
    ("one/" + "y" * 1000, "File name too long"),
    ("loop-a", "ymlink loop"),
    ("loop-a/adapter", "ymlink loop"),
    ("missing-layers", "has no weights for"),
    ("alpha-inf", "lora_alpha must be a positive number"),
    ("nan-weights", "not finite"),
    ("one-layer", "layers_to_transform = 0"),
    ("pissa", "init_lora_weights = 'pissa'"),
    ("olora", "init_lora_weights = 'olora'"),
    ("odd-alpha", "lora_alpha must be a positive number"),
    ("extra-tensor", "would replace the model's own"),
    ("half", "only one of its A and B"),
])
def test_loads_that_must_be_refused_leave_everything_as_it_was(refusing_app, path, reason):
    c = refusing_app.test_client()
    before = call(c, "GET", "/admin/adapters")[1]
    base = chat(c)[1]["message"]["content"]
    status, body = call(c, "POST", "/admin/adapters", name="evil", path=path)
    assert status == 422 and reason in body["error"]["message"], body
    assert call(c, "GET", "/admin/adapters")[1] == before
    assert chat(c)[1]["message"]["content"] == base
    assert chat(c, adapter="evil")[0] == 400


def test_load_use_replace_and_unload(admin_app, adapter_root):
    c = admin_app.test_client()
    base = chat(c)[1]["message"]["content"]
    digest = base_digest(admin_app.extensions["engine"].scheduler.model)
    status, body = call(c, "POST", "/admin/adapters", name="demo", path="one")
    assert status == 201 and body["loaded"]["rank"] == 4 and not body["replaced"]
    models = c.get("/v1/models", headers={"Authorization": f"Bearer {CLIENT}"}).get_json()
    assert "demo" in [m["id"] for m in models["data"]]
    config = c.get("/api/config", headers={"Authorization": f"Bearer {CLIENT}"}).get_json()
    assert "demo" in config["adapters"]
    one = chat(c, adapter="demo")[1]["message"]["content"]
    assert one != base
    assert call(c, "POST", "/admin/adapters", name="demo", path="two")[0] == 409
    # Replaced under the same name: the old adapter's cached KV must not serve the new one.
    status, body = call(c, "POST", "/admin/adapters", name="demo", path="two", replace=True)
    assert status == 200 and body["replaced"] and body["loaded"]["rank"] == 8
    two_warm = chat(c, adapter="demo")[1]["message"]["content"]
    admin_app.extensions["engine"].scheduler.prefix.clear()
    two_cold = chat(c, adapter="demo")[1]["message"]["content"]
    assert two_warm == two_cold != one
    status, body = call(c, "DELETE", "/admin/adapters/demo")
    assert status == 200 and body["unloaded"]["name"] == "demo"
    assert chat(c, adapter="demo")[0] == 400
    assert call(c, "DELETE", "/admin/adapters/demo")[0] == 404
    assert chat(c)[1]["message"]["content"] == base
    assert base_digest(admin_app.extensions["engine"].scheduler.model) == digest
    keys = set(admin_app.extensions["engine"].scheduler.model.peft_config)
    assert keys == {"shouty"}  # both versions left the model


def test_unloading_every_adapter_leaves_the_plain_model_working(admin_app):
    c = admin_app.test_client()
    base, shouty = chat(c)[1]["message"], chat(c, adapter="shouty")[1]["message"]
    assert call(c, "DELETE", "/admin/adapters/shouty")[0] == 200
    assert chat(c)[1]["message"] == base
    assert call(c, "POST", "/admin/adapters", name="again", path="one")[0] == 201
    assert chat(c)[1]["message"] == base and chat(c, adapter="again")[0] == 200
    assert call(c, "DELETE", "/admin/adapters/again")[0] == 200
    assert chat(c)[1]["message"] == base != shouty


def test_names_must_be_plain_and_not_the_base_model(admin_app):
    c = admin_app.test_client()
    assert call(c, "POST", "/admin/adapters", name="n\n", path="one")[0] == 400
    assert call(c, "POST", "/admin/adapters", name="a/b", path="one")[0] == 400
    model_id = admin_app.extensions["engine"].model_id
    assert call(c, "POST", "/admin/adapters", name=model_id, path="one")[0] == 409


def test_unload_waits_for_requests_in_flight_and_refuses_new_ones(admin_app, monkeypatch):
    c = admin_app.test_client()
    assert call(c, "POST", "/admin/adapters", name="slow", path="one")[0] == 201
    expected = chat(c, adapter="slow", max_new_tokens=40)[1]["message"]["content"]
    go_on = threading.Event()  # the stream is held after its first steps until the checks
    wrap_forward(monkeypatch, admin_app, lambda n: n > 3 and go_on.wait(60))
    result = {}
    streaming = threading.Thread(target=lambda: result.update(
        chat(admin_app.test_client(), adapter="slow", max_new_tokens=40)[1]))
    streaming.start()
    scheduler = admin_app.extensions["engine"].scheduler
    assert wait_for(lambda: scheduler.active)
    unloaded = {}
    unloading = threading.Thread(target=lambda: unloaded.update(
        status=call(admin_app.test_client(), "DELETE", "/admin/adapters/slow")[0]))
    unloading.start()
    registry = admin_app.extensions["engine"].registry
    assert wait_for(lambda: registry.get("slow") is None)  # the unload has begun
    assert unloading.is_alive()  # and waits for the stream
    assert chat(c, adapter="slow")[0] == 400  # refused at once...
    assert "slow#1" in scheduler.model.peft_config  # ...but still in the model for the stream
    go_on.set()
    streaming.join(60)
    unloading.join(60)
    assert result["message"]["content"] == expected and unloaded["status"] == 200
    assert "slow#1" not in scheduler.model.peft_config


def test_a_load_is_built_off_the_worker_and_leaves_the_running_model_as_it_was(admin_app,
                                                                            monkeypatch):
    """The worker's part of a load or unload is a pointer swap, so a stream waits at most one
    step: the adapter is attached to (and removed from) a clone built on the admin call's
    thread, and the model that was running keeps its modules and shares its tensors."""
    from api.engine import runner as runner_module

    engine = admin_app.extensions["engine"]
    worker = engine.scheduler._thread
    threads = []
    for name in ("attach", "detach"):
        real = getattr(runner_module, name)
        monkeypatch.setattr(runner_module, name, lambda *a, _real=real, **k: (
            threads.append(threading.current_thread()), _real(*a, **k))[1])
    c = admin_app.test_client()
    running = engine.scheduler.model
    modules = {name: id(m) for name, m in running.named_modules()}
    keys = set(running.peft_config)
    base = chat(c)[1]["message"]["content"]
    assert call(c, "POST", "/admin/adapters", name="built", path="one")[0] == 201
    loaded = engine.scheduler.model
    assert loaded is not running and "built#1" in loaded.peft_config
    assert {name: id(m) for name, m in running.named_modules()} == modules
    assert set(running.peft_config) == keys
    shared = dict(running.get_base_model().named_parameters())
    for name, weight in loaded.get_base_model().named_parameters():
        if ".lora_" not in name:
            assert weight.data_ptr() == shared[name].data_ptr(), name
    assert chat(c, adapter="built")[0] == 200 and chat(c)[1]["message"]["content"] == base
    assert call(c, "DELETE", "/admin/adapters/built")[0] == 200
    assert set(engine.scheduler.model.peft_config) == keys
    assert len(threads) == 2 and worker not in threads


@pytest.mark.parametrize("meanwhile", ["unload", "replace"])
def test_a_request_whose_adapter_leaves_while_it_is_queued_never_runs_without_it(admin_app,
                                                                                monkeypatch,
                                                                                meanwhile):
    """The route found the adapter; an unload (or a replace) lands before the request counts
    as in flight, so the unload waits for nothing and the model loses the adapter. The request
    gets a 400 (or the new version), never the base model's reply or a failed generation."""
    engine = admin_app.extensions["engine"]
    c = admin_app.test_client()
    assert call(c, "POST", "/admin/adapters", name="going", path="one")[0] == 201
    base = chat(c)[1]["message"]["content"]
    real = engine.scheduler.submit
    landed = []

    def submit(request, *args, **kwargs):
        if request.adapter == "going#1" and not landed:
            landed.append(meanwhile)
            if meanwhile == "unload":
                engine.unload_adapter("going")
            else:
                engine.load_adapter("going", "two", replace=True)
        return real(request, *args, **kwargs)

    monkeypatch.setattr(engine.scheduler, "submit", submit)
    status, body = chat(c, adapter="going")
    monkeypatch.setattr(engine.scheduler, "submit", real)
    assert landed == [meanwhile]
    if meanwhile == "unload":
        assert status == 400 and body["error"]["code"] == "unknown_adapter", body
        assert "going#1" not in engine.scheduler.model.peft_config
    else:
        assert status == 200 and body["message"]["content"] == chat(c, adapter="going")[1][
            "message"]["content"]
        assert call(c, "DELETE", "/admin/adapters/going")[0] == 200
    assert chat(c)[1]["message"]["content"] == base


@pytest.fixture()
def hooked_app(tiny_dir, lora_dir, tmp_path_factory, adapter_root):
    """transformers' forward for every request (as on a GPU): peft routes adapter rows through
    hooks it registers on each LoRA layer for the forward's length."""
    app = create_app(tiny_config(tiny_dir, lora_dir, tmp_path_factory, admin_keys=(ADMIN,),
                                 api_keys=(CLIENT,), adapter_dir=str(adapter_root),
                                 max_batch_size=4, executor="transformers"))
    wait_ready(app)
    yield app
    app.extensions["engine"].scheduler.stop()


def test_a_load_while_an_adapter_forward_runs_copies_no_hook_of_it(hooked_app, monkeypatch):
    """The tree a load builds on is copied between two steps, never during a forward: one
    copied while peft's per-forward hooks were on the LoRA layers kept them, and every later
    base request ran with that forward's adapter routing (or failed on its row count)."""
    from peft.tuners.lora import layer as lora_layer

    c = hooked_app.test_client()
    scheduler = hooked_app.extensions["engine"].scheduler
    base = chat(c, max_new_tokens=8)[1]["message"]["content"]
    inside, release = threading.Event(), threading.Event()
    real = lora_layer.Linear.forward

    def held(self, *args, **kwargs):  # the first LoRA layer of an adapter forward waits
        if not inside.is_set():
            inside.set()
            release.wait(30)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(lora_layer.Linear, "forward", held)
    result = {}
    streams = [threading.Thread(target=lambda i=i: result.update(
        {i: chat(hooked_app.test_client(), adapter="shouty", max_new_tokens=8)}))
        for i in range(2)]
    for t in streams:
        t.start()
    assert inside.wait(30)
    loading = threading.Thread(target=lambda: result.update(
        load=call(hooked_app.test_client(), "POST", "/admin/adapters", name="mid", path="one")))
    loading.start()
    while not scheduler._calls:  # the load asked the worker for something (a copy, or a swap)
        assert loading.is_alive()
        loading.join(0.01)
    release.set()
    loading.join(60)
    for t in streams:
        t.join(60)
    assert result["load"][0] == 201 and "mid#1" in scheduler.model.peft_config
    assert [result[i][0] for i in range(2)] == [200, 200]
    for module in scheduler.model.modules():
        assert not module._forward_pre_hooks, type(module).__name__
    status, body = chat(c, max_new_tokens=8)
    assert status == 200 and body["message"]["content"] == base
    assert chat(c, adapter="mid", max_new_tokens=8)[0] == 200


def test_an_unload_that_waited_while_another_load_landed_removes_only_its_adapter(admin_app,
                                                                                 monkeypatch):
    """An unload whose requests outlast its wait leaves the model later, when they finish; a
    load that lands in between replaced the model it was built from, so it is built again
    from the running one and the new adapter stays."""
    engine = admin_app.extensions["engine"]
    c = admin_app.test_client()
    assert call(c, "POST", "/admin/adapters", name="held", path="one")[0] == 201
    # 400 tokens: the stream must outlast the steps given while the unload waits and while the
    # load builds off the worker (CPU-bound, slow on a loaded machine).
    expected = chat(c, adapter="held", max_new_tokens=400)[1]["message"]["content"]
    arrived, tokens, free = [], threading.Semaphore(0), threading.Event()

    def gate(n):  # from its 2nd forward on, the stream runs one forward per token from the test
        if n >= 2 and not free.is_set():
            arrived.append(n)
            tokens.acquire(timeout=30)

    def until(condition):
        while not condition():
            assert stream.is_alive()
            stream.join(0.01)

    def step():  # one forward, then the worker's calls, up to the next forward
        k = len(arrived)
        tokens.release()
        until(lambda: len(arrived) > k)

    restore = wrap_forward(monkeypatch, admin_app, gate)
    result = {}
    stream = threading.Thread(target=lambda: result.update(
        chat(admin_app.test_client(), adapter="held", max_new_tokens=400)[1]))
    stream.start()
    def unload():
        with pytest.raises(Exception, match="still used it") as refused:
            engine.unload_adapter("held", timeout=0.2)
        result["unload"] = refused.value

    def run(target):  # the worker copies, and later swaps in, between two forwards
        thread = threading.Thread(target=target)
        thread.start()
        while thread.is_alive():
            step()
            thread.join(0.05)

    until(lambda: arrived)
    run(unload)
    assert "unload" in result
    run(lambda: result.update(load=call(admin_app.test_client(), "POST", "/admin/adapters",
                                        name="later", path="two")))
    assert result["load"][0] == 201
    assert {"held#1", "later#1"} <= set(engine.scheduler.model.peft_config)
    free.set()
    tokens.release()
    stream.join(60)
    restore()
    assert result["message"]["content"] == expected
    deadline = time.monotonic() + 30
    while "held#1" in engine.scheduler.model.peft_config and time.monotonic() < deadline:
        stream.join(0.01)
    assert set(engine.scheduler.model.peft_config) == {"shouty", "later#1"}
    assert chat(c, adapter="later")[0] == 200
    assert call(c, "DELETE", "/admin/adapters/later")[0] == 200


def test_a_load_that_fails_inside_the_model_changes_nothing(admin_app, monkeypatch):
    import peft.utils

    c = admin_app.test_client()
    runner = admin_app.extensions["engine"].scheduler.runner
    real = peft.utils.set_peft_model_state_dict

    def half_load(model, weights, adapter_name, **kw):
        real(model, weights, adapter_name=adapter_name, **kw)  # layers filled, then it fails
        raise RuntimeError("disk error (injected)")

    monkeypatch.setattr(peft.utils, "set_peft_model_state_dict", half_load)
    base, shouty = chat(c)[1], chat(c, adapter="shouty")[1]
    status, body = call(c, "POST", "/admin/adapters", name="broken", path="one")
    assert status == 500 and body["error"]["code"] == "internal_error"
    assert set(runner.model.peft_config) == {"shouty"}
    assert [a["name"] for a in call(c, "GET", "/admin/adapters")[1]["adapters"]] == ["shouty"]
    assert chat(c)[1]["message"] == base["message"]
    assert chat(c, adapter="shouty")[1]["message"] == shouty["message"]


def test_a_load_that_changes_base_weights_is_refused_and_stops_serving(admin_app, monkeypatch):
    """The checksum guard behind the allow-list: were a load ever to write a base weight again
    (a peft change, a setting let through), it is refused, and a base it cannot put back
    stops the server from answering everyone with a corrupted model."""
    from api.engine import runner

    c = admin_app.test_client()
    real = runner.attach

    def attach_and_touch_the_base(model, key, spec, weights):
        model = real(model, key, spec, weights)
        model.get_base_model().model.norm.weight.data.add_(1.0)  # as an initialisation would
        return model

    monkeypatch.setattr(runner, "attach", attach_and_touch_the_base)
    status, body = call(c, "POST", "/admin/adapters", name="rewrites", path="one")
    assert status == 422 and "would change the base model's weights" in body["error"]["message"]
    engine = admin_app.extensions["engine"]
    assert engine.registry.get("rewrites") is None
    assert not any(k.startswith("rewrites") for k in engine.scheduler.model.peft_config)
    ready = c.get("/readyz")
    assert ready.status_code == 503 and "restart" in ready.get_json()["error"]["message"]
    assert chat(c)[0] == 503


def test_gunicorn_refuses_the_admin_api_with_several_workers(tmp_path):
    import subprocess
    import sys

    from tests.conftest import ROOT

    env = {**os.environ, "MNEMO_ADMIN_KEYS": ADMIN, "MNEMO_ADAPTER_DIR": str(tmp_path),
           "MNEMO_WORKERS": "2", "MNEMO_BIND": "127.0.0.1:0"}
    out = subprocess.run([sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "wsgi:app"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode != 0 and "MNEMO_WORKERS=1" in out.stderr + out.stdout
