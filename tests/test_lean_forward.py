"""The lean forward (api/engine/lean.py) against transformers' forward on the same weights:
prefill from nothing and over a cached prefix, a batched prefill with padding, decode steps of
a left-padded batch, for float32 (plain, packed, packed joined) and int4/int8 weights; and the
packed layer and its joined parts against ``nn.Linear``, with a LoRA adapter wrapped around
them by peft."""

from __future__ import annotations

import re

import pytest
import torch
from torch import nn
from transformers import AutoModelForCausalLM

from api.config import Settings
from api.engine import batch as kvbatch
from api.engine import packing, prefill
from api.engine.kvbuffer import new_cache
from api.engine.lean import LeanForward, joins, unsupported
from api.engine.loader import lean_forward
from api.engine.quantize import dense_dtype, dequantized, quantize


def script(forward, vocab: int) -> list[torch.Tensor]:
    """Run the same forwards through ``forward`` (model-like) and return every logits tensor:
    two prompts prefilled alone, one continued over its cached prefix, the two joined into a
    left-padded batch, three decode steps of that batch, then a batched prefill of two new
    prompts over cached prefixes of different lengths."""
    g = torch.Generator().manual_seed(0)
    a_ids = torch.randint(10, vocab, (1, 23), generator=g)
    b_ids = torch.randint(10, vocab, (1, 9), generator=g)
    out = []
    ca = new_cache()
    out.append(forward(input_ids=a_ids[:, :15], position_ids=torch.arange(15)[None], cache=ca,
                       logits_to_keep=1).logits)
    out.append(forward(input_ids=a_ids[:, 15:], position_ids=torch.arange(15, 23)[None],
                       cache=ca, logits_to_keep=1).logits)
    cb = new_cache()
    out.append(forward(input_ids=b_ids, position_ids=torch.arange(9)[None], cache=cb).logits)
    batch = kvbatch.concat(ca, cb)
    fed = torch.tensor([23, 9])
    tokens = torch.tensor([[11], [12]])
    for _ in range(3):
        fed = fed + 1
        length = kvbatch.cache_length(batch) + 1
        mask = (torch.arange(length)[None] >= (length - fed)[:, None]).long()
        step = forward(input_ids=tokens, position_ids=(fed - 1)[:, None], attention_mask=mask,
                       cache=batch)
        out.append(step.logits)
        tokens = step.logits[:, -1].argmax(-1, keepdim=True)
    # a batched prefill: rows reuse 15 and 4 cached positions of prompt a, new lengths differ
    kv = kvbatch.row_kv(batch, 0, 26)  # prompt a's 23 positions and the 3 decoded
    seqs = [prefill.Pending(None, a_ids[0, :15].tolist() + [13, 14, 15], 15, kv, False),
            prefill.Pending(None, a_ids[0, :4].tolist() + [16] * 6, 4, kv, False)]
    out.append(forward(**prefill.batched(seqs, torch.device("cpu"), pad_id=2),
                       logits_to_keep=1).logits)
    return out


def hf(model):
    def forward(**inputs):
        with torch.inference_mode():
            return model(**inputs, use_cache=True)
    return forward


def compare(got: list[torch.Tensor], want: list[torch.Tensor], tolerance: float) -> None:
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        assert g.shape == w.shape, i
        error = ((g - w).norm() / w.norm()).item()
        assert error < tolerance, f"forward {i}: relative error {error:.2e}"


@pytest.mark.parametrize("mode, tolerance", [("plain", 1e-5), ("packed", 1e-5), ("joined", 1e-5),
                                              ("int4", 2e-2), ("int8", 2e-2)])
def test_lean_forward_matches_transformers(tiny_dir, mode, tolerance):
    model = AutoModelForCausalLM.from_pretrained(tiny_dir).eval()
    if mode in ("int4", "int8"):
        quantize(model, mode)
    vocab = model.config.vocab_size
    want = script(hf(model), vocab)
    if mode in ("packed", "joined"):
        # the output layer is tied: the lean forward packs a copy of its own
        assert packing.pack(model, joins(model) if mode == "joined" else ()) == 2 * 7
    lean = LeanForward(model, packed=mode in ("packed", "joined"))
    if mode in ("packed", "joined"):
        assert len(lean.layers[0].qkv.parts) == (3 if mode == "packed" else 1)
    compare(script(lean, vocab), want, tolerance)
    # transformers' forward (LoRA requests) still reads the joined or packed weights right
    compare(script(hf(model), vocab), want, tolerance)


def errors(got: list[torch.Tensor], want: list[torch.Tensor]) -> list[float]:
    return [((g - w).norm() / w.norm()).item() for g, w in zip(got, want, strict=True)]


@pytest.mark.parametrize("mode", ["int4", "int8"])
def test_bf16_prefill_weights_are_as_accurate_as_the_kernels(tiny_dir, mode):
    """Products of 8 or more rows (the script's prefills) run each layer's dequantized weights
    in bfloat16, fewer (its decode steps) torch's kernels. Against float32 layers holding the
    very weights the integers stand for, the lean forward with them errs as little as with the
    kernels alone (on this random model bfloat16 activations cost 1-3 % of the logits)."""
    reference = AutoModelForCausalLM.from_pretrained(tiny_dir).eval()
    head = reference.get_output_embeddings()
    with torch.no_grad():
        for m in reference.modules():
            if type(m) is nn.Linear:  # the output layer is int8 under int4 too; untied here
                m.weight = nn.Parameter(dequantized(m, "int8" if m is head else mode).float())
    vocab = reference.config.vocab_size
    want = script(hf(reference), vocab)
    found = {}
    for dense in (False, True):
        model = AutoModelForCausalLM.from_pretrained(tiny_dir).eval()
        quantize(model, mode, dense=dense)
        lean = LeanForward(model)
        packed = [p.dense is not None for layer in lean.layers
                  for proj in (layer.qkv, layer.o, layer.gate_up, layer.down) for p in proj.parts]
        assert all(packed) if dense else not any(packed)
        # the output layer too, where its copy is bfloat16 (a batch's steps run it per row)
        assert (lean.head.parts[0].dense is not None) == (dense and dense_dtype() == torch.bfloat16)
        found[dense] = errors(script(lean, vocab), want)
        assert max(found[dense]) < 3e-2, found[dense]
    assert sum(found[True]) <= 1.2 * sum(found[False]), found


@pytest.mark.parametrize("quantize_mode, pack", [("none", True), ("none", False), ("int4", True)])
def test_lean_forward_of_the_default_model(smol_dir, quantize_mode, pack, monkeypatch):
    """The default model's sizes join (int4 rows in blocks of 64), and the loader packs float32
    layers where ``packing.declined`` says to (patched: this CPU decides it otherwise)."""
    monkeypatch.setattr(packing, "declined", lambda: None if pack else "a reason")
    model = AutoModelForCausalLM.from_pretrained(smol_dir).eval()
    quantize(model, quantize_mode)
    vocab = model.config.vocab_size
    want = script(hf(model), vocab)
    # transformers' attention: float32 keys and values (int4's bfloat16 ones are measured
    # against this in tests/test_attention.py)
    settings = Settings.load(overrides={"quantize": quantize_mode, "adapters": {},
                                        "bf16_attention": False})
    lean = lean_forward(model, settings, torch.device("cpu"))
    assert lean is not None and lean.kv_dtype is None
    layer = lean.layers[0]
    assert len(layer.qkv.parts) == 1 and len(layer.gate_up.parts) == 1  # joined
    attn = model.model.layers[0].self_attn
    if quantize_mode == "none" and pack:  # the model's own layers are parts of the packed one
        assert all(isinstance(m, packing.PackedPart) for m in (attn.q_proj, attn.k_proj, attn.v_proj))
        assert layer.qkv.parts[0] is attn.q_proj.whole
    elif quantize_mode == "none":  # plain layers: the model's own are views of the joined one
        joined = layer.qkv.parts[0]
        assert type(joined) is nn.Linear and not any(
            isinstance(m, packing.PackedLinear) for m in model.modules())
        assert attn.q_proj.weight.untyped_storage().data_ptr() == \
            joined.weight.untyped_storage().data_ptr()
        assert lean.head.parts[0] is model.get_output_embeddings()  # no packed copy of its own
    compare(script(lean, vocab), want, 1e-5 if quantize_mode == "none" else 2e-2)


@pytest.mark.parametrize("vendor, mkl, packs", [("GenuineIntel", True, False),
                                                ("AuthenticAMD", True, True),
                                                ("GenuineIntel", False, True), ("", True, True)])
def test_float32_layers_are_packed_except_where_mkl_is_faster(monkeypatch, vendor, mkl, packs):
    """MKL takes its fast paths on Intel's CPUs only: there float32 layers stay in torch's
    layout; elsewhere (or without MKL) oneDNN's packed layout reads them faster."""
    monkeypatch.setattr(packing, "cpu_vendor", lambda: vendor)
    monkeypatch.setattr(torch.backends.mkl, "is_available", lambda: mkl)
    monkeypatch.setattr(torch.backends.mkldnn, "is_available", lambda: True)
    assert (packing.declined() is None) == packs
    monkeypatch.setattr(torch.backends.mkldnn, "is_available", lambda: False)
    assert packing.declined() is not None


def test_cpu_vendor_is_the_kernels_vendor_id():
    """The vendor_id line of /proc/cpuinfo where the kernel writes one (x86), else ''."""
    with open("/proc/cpuinfo") as info:
        found = re.search(r"^vendor_id\s*:\s*(\S+)\s*$", info.read(), re.M)
    assert packing.cpu_vendor() == (found.group(1) if found else "")


def test_an_untied_output_layer_is_packed_once(tiny_dir):
    model = AutoModelForCausalLM.from_pretrained(tiny_dir, tie_word_embeddings=False).eval()
    with torch.no_grad():  # an output layer of its own, unlike the embedding table
        model.lm_head.weight.copy_(torch.randn_like(model.lm_head.weight) * 0.2)
    want = script(hf(model), model.config.vocab_size)
    assert packing.pack(model) == 2 * 7 + 1
    lean = LeanForward(model, packed=True)
    assert lean.head.parts == [model.lm_head]  # no second copy
    compare(script(lean, model.config.vocab_size), want, 1e-5)
    compare(script(hf(model), model.config.vocab_size), want, 1e-5)


def test_lean_forward_is_off_where_it_does_not_run(tiny_dir):
    model = AutoModelForCausalLM.from_pretrained(tiny_dir).eval()
    assert lean_forward(model, Settings.load(overrides={"executor": "transformers", "adapters": {}}),
                        torch.device("cpu")) is None
    assert "CPU only" in unsupported(model, torch.device("cuda"))
    model.config.hidden_act = "gelu"
    assert "activation" in unsupported(model, torch.device("cpu"))


def test_packed_layer_is_a_linear_layer_peft_can_wrap():
    from peft import LoraConfig, get_peft_model

    torch.manual_seed(0)
    plain = nn.Sequential(nn.Linear(48, 80), nn.ReLU(), nn.Linear(80, 16, bias=False))
    x = torch.randn(3, 5, 48)
    want = plain(x)
    packed = nn.Sequential(packing.PackedLinear(plain[0]), nn.ReLU(), packing.PackedLinear(plain[2]))
    base = packed(x)
    assert torch.allclose(base, want, atol=1e-5)
    assert torch.equal(packed[0].weight, plain[0].weight)  # reads back as the plain weights
    config = LoraConfig(r=4, target_modules=["0"], init_lora_weights=False)
    torch.manual_seed(1)
    wrapped_plain = get_peft_model(plain, config)
    torch.manual_seed(1)
    wrapped_packed = get_peft_model(packed, config)
    with torch.no_grad():
        got, want = wrapped_packed(x), wrapped_plain(x)
    assert not torch.allclose(got, base, atol=1e-3)  # the adapter changes the output...
    assert torch.allclose(got, want, atol=1e-5)  # ...as it changes the plain layers' output


def test_joined_packed_parts_are_linear_layers_peft_can_wrap():
    """Parts of a joined packed layer give each layer's output, compute the joined product once
    for one input, and a LoRA adapter (peft, rows routed to two adapters and the base model,
    which adds into the base output in place) changes their output as it changes plain layers'."""
    from peft import LoraConfig, get_peft_model

    torch.manual_seed(0)

    class Split(nn.Module):  # three layers of one input, as a Llama layer's q/k/v
        def __init__(self):
            super().__init__()
            self.q, self.k, self.v = nn.Linear(64, 48), nn.Linear(64, 16), nn.Linear(64, 16)

        def forward(self, x):
            return torch.cat([self.q(x), self.k(x), self.v(x)], -1)

    plain = Split()
    x = torch.randn(3, 5, 64)
    base = plain(x)
    packed = Split()
    packed.load_state_dict(plain.state_dict())
    whole, parts = packing.PackedLinear.joined([packed.q, packed.k, packed.v])
    packed.q, packed.k, packed.v = parts
    calls = []
    whole.register_forward_hook(lambda *_: calls.append(1))
    assert torch.allclose(packed(x), base, atol=1e-5)
    assert len(calls) == 1  # one joined product for the three parts
    assert torch.equal(packed.k.weight, plain.k.weight) and torch.equal(packed.v.bias, plain.v.bias)
    assert torch.allclose(packed.k(x), plain.k(x), atol=1e-5)  # called alone: computed again
    assert len(calls) == 2
    z = x.clone()
    packed.k(z)
    z.add_(1)  # changed in place after a lone call: the next sequence starts afresh
    assert torch.allclose(packed.q(z), plain.q(z), atol=1e-5)
    assert torch.allclose(packed(z), plain(z), atol=1e-5)
    config = LoraConfig(r=4, target_modules=["q", "v"], init_lora_weights=False)
    wrapped = []
    for model in (plain, packed):
        torch.manual_seed(1)
        peft_model = get_peft_model(model, config, adapter_name="one")
        torch.manual_seed(2)
        peft_model.add_adapter("two", config)
        wrapped.append(peft_model.eval())
    names = ["one", "two", "__base__"]
    with torch.no_grad():
        got, want = (m(x, adapter_names=names) for m in reversed(wrapped))
    assert not torch.allclose(got, base, atol=1e-3)  # the adapters change the output...
    assert torch.allclose(got, want, atol=1e-5)  # ...as they change the plain layers' output


def test_joined_int4_layers_read_views_of_one_buffer(smol_dir):
    model = AutoModelForCausalLM.from_pretrained(smol_dir).eval()
    quantize(model, "int4")
    attn = model.model.layers[0].self_attn
    before = sum(m.qweight.untyped_storage().nbytes() for m in (attn.q_proj, attn.k_proj, attn.v_proj))
    LeanForward(model)
    storages = {m.qweight.untyped_storage().data_ptr() for m in (attn.q_proj, attn.k_proj, attn.v_proj)}
    assert len(storages) == 1  # one joined buffer, nothing stored twice
    assert attn.q_proj.qweight.untyped_storage().nbytes() == before



def file_mapped(tensor: torch.Tensor) -> bool:
    """Whether the tensor's memory lies in a mapping of a .safetensors file (/proc/self/maps)."""
    ptr = tensor.data_ptr()
    for line in open("/proc/self/maps", encoding="utf-8"):
        fields = line.split()
        if len(fields) >= 6 and fields[5].endswith(".safetensors"):
            start, end = (int(x, 16) for x in fields[0].split("-"))
            if start <= ptr < end:
                return True
    return False


@pytest.mark.parametrize("quantize_mode, pack", [("none", True), ("none", False), ("int4", True)])
def test_replaced_weights_release_the_files_memory_map(smol_dir, quantize_mode, pack, monkeypatch):
    """Once the linear layers are packed, joined or quantized, nothing reads the file's map any
    more: every page of it the replacement touched would otherwise stay resident (400 MB).
    Packed or not as ``packing.declined`` says (patched: this CPU decides it otherwise)."""
    monkeypatch.setattr(packing, "declined", lambda: None if pack else "a reason")
    model = AutoModelForCausalLM.from_pretrained(smol_dir).eval()
    assert file_mapped(model.get_input_embeddings().weight)  # what transformers gives: the file's pages
    replaced = quantize(model, quantize_mode)
    settings = Settings.load(overrides={"quantize": quantize_mode, "adapters": {}})
    lean_forward(model, settings, torch.device("cpu"), replaced)
    assert not any(file_mapped(p) for p in model.parameters())
    if quantize_mode == "none":  # the output layer is still tied to the (copied) table
        assert model.get_output_embeddings().weight is model.get_input_embeddings().weight
