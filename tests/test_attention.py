"""Attention over a long history in bfloat16 (api/engine/attention.py): against float32 SDPA on
random tensors and on the default model's int8/int4 layers, its causal mask, when it applies,
and that float32 models never use it."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from torch.nn import functional as F

from api.config import Settings
from api.engine import attention, native
from api.engine.kvbuffer import new_cache
from api.engine.loader import lean_forward

from .conftest import CACHE_DIR
from .test_native import lean_of

LONG_TEXT = Path(__file__).parents[1] / "bench" / "data" / "heldout-long.txt"


def sdpa(q, keys, values, scaling):
    new, length = q.shape[2], keys.shape[2]
    visible = torch.arange(length)[None, :] <= (length - new + torch.arange(new))[:, None]
    return F.scaled_dot_product_attention(q, keys, values, attn_mask=visible, scale=scaling,
                                          enable_gqa=True)


def random_attention(heads=9, kv=3, new=40, past=300, dim=64, seed=0):
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(1, heads, new, dim, generator=g)
    keys = torch.randn(1, kv, past + new, dim, generator=g)
    values = torch.randn(1, kv, past + new, dim, generator=g)
    return q, keys, values


@pytest.mark.parametrize("heads,kv", [(9, 3), (4, 4), (8, 2)])
def test_bf16_attention_is_sdpa_within_bfloat16_rounding(heads, kv):
    q, keys, values = random_attention(heads, kv)
    want = sdpa(q, keys, values, 0.125)
    got = attention.attend(q, keys, values, 0.125, attention.future_mask(q.shape[2], "cpu"))
    assert got.dtype == torch.bfloat16 and got.shape == want.shape
    error = ((got.float() - want).norm(dim=-1) / want.norm(dim=-1))
    # bfloat16 keeps 8 bits: scores of a few units round by ~1 %, and the output by 0.4 %.
    assert error.max() < 3e-2, error.max()
    # a head that read another key/value head's history would be off by far more
    assert error.median() < 1e-2, error.median()


def test_bf16_attention_is_causal():
    """A new position sees itself and the history, never a later new position: changing the
    keys and values of the last new positions leaves every earlier output as it was."""
    q, keys, values = random_attention(new=12, past=260)
    future = attention.future_mask(12, "cpu")
    before = attention.attend(q, keys, values, 0.125, future)
    keys[:, :, -4:] += 5.0
    values[:, :, -4:] -= 3.0
    after = attention.attend(q, keys, values, 0.125, future)
    assert torch.equal(after[:, :, :8], before[:, :, :8])
    assert not torch.equal(after[:, :, 8:], before[:, :, 8:])
    # and the history is visible: changing its first position moves every output
    keys[:, :, 0] += 5.0
    moved = attention.attend(q, keys, values, 0.125, future)
    assert ((moved[:, :, :8].float() - after[:, :, :8].float()).abs().amax(-1) > 0).all()


@pytest.fixture(scope="module")
def softmax():
    module = native.load(CACHE_DIR)
    assert module is not None, "the native module must build on this machine"
    return attention.Softmax(module)


def masked_softmax(scores: torch.Tensor, new: int) -> torch.Tensor:
    """What attention.attend does without the native module."""
    kv, rows, length = scores.shape
    masked = scores.clone()
    masked.view(kv, rows // new, new, length)[..., length - new:].masked_fill_(
        attention.future_mask(new, "cpu"), float("-inf"))
    return torch.softmax(masked, dim=-1)


@pytest.mark.parametrize("kv,group,new,past,spread", [
    (3, 3, 59, 2250, 3.0),  # turn 20 of the benchmark
    (1, 1, 1, 5, 1.0),  # one new position (never sent here by attention.applies; still right)
    (2, 4, 7, 300, 40.0),  # most scores far below the top: exp underflows to 0
    (4, 1, 33, 257, 0.01),  # nearly flat rows
])
def test_native_softmax_is_torchs_softmax_of_the_masked_scores(softmax, kv, group, new, past, spread):
    g = torch.Generator().manual_seed(kv * 1000 + new)
    scores = (torch.randn(kv, group * new, past + new, generator=g) * spread).to(torch.bfloat16)
    want = masked_softmax(scores, new)
    assert softmax(scores, new)  # in place
    assert scores.dtype == torch.bfloat16
    # within one bfloat16 step of probabilities <= 1, and nothing torch keeps lost (below
    # e^-87 of the row's top the kernel gives 0, torch a subnormal)
    assert (scores.float() - want.float()).abs().max() <= 2 ** -8
    assert (scores[want.float() > 1e-30] > 0).all()
    rows = scores.view(kv, group, new, past + new)
    for i in range(new):
        assert (rows[:, :, i, past + i + 1:] == 0).all()
        assert (rows[:, :, i, :past + i + 1].float().sum(-1) - 1).abs().max() < 2e-2


def test_native_softmax_checks_before_it_writes(softmax):
    scores = torch.randn(2, 6, 40)  # float32: refused
    before = scores.clone()
    with pytest.raises(RuntimeError, match="bfloat16"):
        softmax.kernel(scores, 3)
    assert torch.equal(scores, before)
    bf = torch.randn(2, 6, 40).to(torch.bfloat16)
    with pytest.raises(RuntimeError, match="multiple"):  # 6 rows are not a multiple of 4 new
        softmax.kernel(bf, 4)


def test_a_native_softmax_that_fails_hands_over_to_torchs_for_good(caplog):
    class Broken:
        calls = 0

        def causal_softmax_(self, scores, new):  # a failure as decode.cpp's checks raise one
            Broken.calls += 1
            raise RuntimeError("scores: contiguous [kv_heads, rows, length] bfloat16")

    q, keys, values = random_attention(new=20, past=300)
    future = attention.future_mask(20, "cpu")
    want = attention.attend(q, keys, values, 0.125, future)
    broken = attention.Softmax(Broken())
    with caplog.at_level("ERROR", logger="mnemo.attention"):
        assert torch.equal(attention.attend(q, keys, values, 0.125, future, broken), want)
        assert torch.equal(attention.attend(q, keys, values, 0.125, future, broken), want)
    assert Broken.calls == 1 and broken.kernel is None
    assert sum("native softmax failed" in r.message for r in caplog.records) == 1


def test_when_it_applies():
    assert attention.applies(rows=1, new=60, past=attention.HISTORY_MIN, heads=9)
    assert not attention.applies(rows=1, new=60, past=attention.HISTORY_MIN - 1, heads=9)
    assert not attention.applies(rows=2, new=60, past=2000, heads=9)  # batches: padding masks
    assert not attention.applies(rows=1, new=1, past=2000, heads=9)  # decode steps
    assert attention.applies(rows=1, new=attention.MAX_NEW, past=2000, heads=9)
    assert not attention.applies(rows=1, new=attention.MAX_NEW + 1, past=2000, heads=9)  # slower
    too_many = attention.MAX_SCORES // (9 * 2100) + 1  # scores held at once past the bound
    assert not attention.applies(rows=1, new=100, past=too_many * 2100 // 100, heads=9)


def turn_logits(lean, ids: torch.Tensor, past: int, turn: int, use: bool) -> torch.Tensor:
    """Prefill ``past`` tokens, then the next ``turn`` in one forward; the turn's logits."""
    lean.bf16_attention = use
    with torch.inference_mode():
        cache = new_cache()
        lean(input_ids=ids[None, :past], position_ids=torch.arange(past)[None], cache=cache)
        return lean(input_ids=ids[None, past:past + turn], cache=cache,
                    position_ids=torch.arange(past, past + turn)[None]).logits[0].float()


@pytest.mark.parametrize("mode", ["int4", "int8"])
def test_a_turn_over_a_long_history_on_the_default_model(smol_dir, tokenizer, mode, monkeypatch):
    """A 64-token turn over 700 positions of real text: every layer attends in bfloat16, and
    the logits move about as much as any change of summation order already moves them under
    int8/int4 (each layer rounds its activations to bfloat16, so a difference in the last
    float32 bit can cross a rounding boundary and grow through 30 layers)."""
    lean = lean_of(smol_dir, mode)
    ids = tokenizer(LONG_TEXT.read_text(encoding="utf-8"), return_tensors="pt")["input_ids"][0]
    calls = []
    attend = attention.attend
    monkeypatch.setattr(attention, "attend", lambda *a: calls.append(1) or attend(*a))
    got = turn_logits(lean, ids, 700, 64, use=True)
    assert len(calls) == len(lean.layers)  # the turn's forward, not the prefill (no history)
    want = turn_logits(lean, ids, 700, 64, use=False)
    assert len(calls) == len(lean.layers)
    error = (got - want).norm(dim=-1) / want.norm(dim=-1)
    # Measured (int4): median 0.010, max 0.056. The same products in float32 by bmm instead
    # of SDPA (only the summation order differs): median 0.009, max 0.035. A wrong head
    # grouping or mask moves them by tens of percent.
    assert error.median() < 2e-2 and error.max() < 0.1, (error.median(), error.max())
    assert (got.argmax(-1) == want.argmax(-1)).float().mean() >= 0.95


def test_float32_and_the_setting_off_keep_sdpa(smol_dir, tokenizer, monkeypatch):
    from transformers import AutoModelForCausalLM

    from api.engine import loader

    # as on a CPU whose oneDNN multiplies bfloat16: only the dtype and the setting keep SDPA
    monkeypatch.setattr(loader, "dense_unsupported", lambda: None)
    monkeypatch.setattr(attention, "attend", lambda *a: pytest.fail("bfloat16 attention ran"))
    model = AutoModelForCausalLM.from_pretrained(smol_dir).eval()
    settings = Settings.load(overrides={"adapters": {}})
    lean = lean_forward(model, settings, torch.device("cpu"))
    assert settings.bf16_attention and not lean.bf16_attention  # on by default, never for float32
    off = lean_of(smol_dir, "int4", bf16_attention=False)
    assert not off.bf16_attention
    ids = tokenizer(LONG_TEXT.read_text(encoding="utf-8"), return_tensors="pt")["input_ids"][0]
    for forward in (lean, off):  # a turn over 300 cached positions: SDPA in both
        with torch.inference_mode():
            cache = new_cache()
            forward(input_ids=ids[None, :300], position_ids=torch.arange(300)[None], cache=cache)
            forward(input_ids=ids[None, 300:316], position_ids=torch.arange(300, 316)[None], cache=cache)


def test_bf16_attention_only_where_onednn_multiplies_bfloat16(smol_dir, monkeypatch, caplog):
    """Without oneDNN's bfloat16 path (an AVX2 CPU) torch's bfloat16 products are plain loops:
    turn 20's attention took 111 against SDPA's 4.3 ms a layer there. The loader then keeps
    SDPA and says why; tests/test_quantize.py checks the real probe under ONEDNN_MAX_CPU_ISA."""
    from transformers import AutoModelForCausalLM

    from api.engine import loader
    from api.engine.quantize import quantize

    quantized = AutoModelForCausalLM.from_pretrained(smol_dir).eval()
    quantize(quantized, "int4")
    settings = Settings.load(overrides={"adapters": {}, "quantize": "int4"})
    monkeypatch.setattr(loader, "dense_unsupported", lambda: None)
    assert loader.bf16_attention(quantized, settings)
    assert lean_of(smol_dir, "int4").bf16_attention  # what the loader builds takes it
    assert not loader.bf16_attention(quantized, Settings.load(overrides={
        "adapters": {}, "quantize": "int4", "bf16_attention": False}))
    monkeypatch.setattr(loader, "dense_unsupported", lambda: "bf16 path needs avx512bw")
    with caplog.at_level("INFO", logger="mnemo.loader"):
        assert not loader.bf16_attention(quantized, settings)
    assert "attend in float32 (SDPA), not bfloat16: bf16 path needs avx512bw" in caplog.text
