"""A lean forward pass for Llama-architecture models, used for every forward without a LoRA
adapter on a CPU.

A decode step of the 135M model does little arithmetic per module: at one row, most of the
time of transformers' forward is Python around it (30 layers of module calls, hooks, mask and
cache bookkeeping, and under ``MNEMO_QUANTIZE`` a dtype cast on each side of every linear
layer). This forward is the same computation in a few tensor operations per layer:

- the query, key and value projections are one matrix, and so are the gate and up projections
  (four matrix products a layer instead of seven). Under int8/int4 (and for plain float
  weights, as the loader leaves float32 ones on an Intel CPU) the model's own layers keep
  working on views of the joined weights (each layer keeps its own small scales); where the
  loader packs float32 weights for oneDNN (``packing``) they are packed already joined, and
  the model's own layers become parts of the joined layers. Either way the weights are not
  stored twice;
- the attention mask is built once per forward, not per layer;
- under int8/int4, activations enter each joined projection in bfloat16 once, and the residual
  stream stays in float32 as in transformers' forward; a one-row prefill over a long history
  attends in bfloat16 too (``attention``).

It takes the inputs the runner gives transformers' forward (ids, positions, a 2-D or 4-D
attention mask, the cache of ``kvbuffer`` layers) and returns the same two things (logits and
cache), so the runner chooses per forward: a forward that routes rows to LoRA adapters runs
transformers' (peft's) forward, every other this one. tests/test_lean_forward.py checks that the
two give the same logits.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import torch
from torch import nn
from torch.nn import functional as F

from . import attention, native
from .kvbuffer import GrowingLayer
from .packing import PackedLinear, PackedPart, concatenated
from .quantize import QuantLinear

log = logging.getLogger("mnemo.lean")


@dataclass
class Output:
    logits: torch.Tensor
    cache: object


def unsupported(model: nn.Module, device: torch.device) -> str | None:
    """Why this forward cannot run ``model`` (None: it can)."""
    base = _base(model)
    config = base.config
    if device.type != "cpu":
        return "the lean forward is measured on CPU only; GPUs use transformers' forward"
    if getattr(config, "model_type", None) not in ("llama",):
        return f"model type {getattr(config, 'model_type', None)!r} is not a Llama model"
    if getattr(config, "hidden_act", "silu") != "silu":
        return f"activation {config.hidden_act!r} is not silu"
    if getattr(config, "pretraining_tp", 1) != 1:
        return "pretraining_tp is not 1"
    for layer in base.model.layers:
        kinds = {PackedLinear if isinstance(p, PackedLinear) else type(p)
                 for p in map(_plain, _projections(layer))}
        if len(kinds) != 1 or not kinds <= {nn.Linear, QuantLinear, PackedLinear}:
            return f"projection layers of types {sorted(k.__name__ for k in kinds)}"
    return None


def _base(model: nn.Module) -> nn.Module:
    return model.get_base_model() if hasattr(model, "get_base_model") else model


def _plain(module: nn.Module) -> nn.Module:
    """A peft LoRA layer's base layer, or the layer itself."""
    return getattr(module, "base_layer", module)


def _projections(layer) -> list[nn.Module]:
    a, m = layer.self_attn, layer.mlp
    return [a.q_proj, a.k_proj, a.v_proj, a.o_proj, m.gate_proj, m.up_proj, m.down_proj]


def joins(model: nn.Module) -> list[list[nn.Module]]:
    """The layers this forward calls as one (``packing.pack`` packs them joined): per decoder
    layer, the query, key and value projections, and the gate and up projections."""
    out = []
    for layer in _base(model).model.layers:
        q, k, v, _o, gate, up, _down = (_plain(m) for m in _projections(layer))
        out += [[q, k, v], [gate, up]]
    return out


def _whole(layers: list[nn.Module]) -> nn.Module | None:
    """The joined packed layer whose parts ``layers`` are, in order and all of it, or None."""
    if not all(isinstance(m, PackedPart) for m in layers):
        return None
    whole = layers[0].whole
    if len(layers) == whole.shares and all(m.whole is whole and m.index == i
                                           for i, m in enumerate(layers)):
        return whole
    return None


class _Proj:
    """Projections the lean forward calls as one: 2-D input, 2-D output (their outputs side by
    side), in its dtype. Plain and quantized layers are joined into one matrix here; packed
    ones were joined when packed (``packing.pack``), or else (oneDNN's opaque layout cannot be
    viewed) run one by one."""

    def __init__(self, layers: list[nn.Module]):
        self.quant = isinstance(layers[0], QuantLinear)
        if self.quant:  # torch's int4/int8 kernels take and give bfloat16
            self.dtype = torch.bfloat16
        elif isinstance(layers[0], PackedLinear):  # packed only from float32
            self.dtype = torch.float32
        else:
            self.dtype = layers[0].weight.dtype
        self.parts = layers
        whole = _whole(layers)
        if whole is not None:
            self.parts = [whole]
        elif len(layers) > 1 and not isinstance(layers[0], PackedLinear):
            try:
                self.parts = [_joined(layers)]
            except ValueError:  # int4 sizes that do not join (not multiples of 64)
                pass
        if self.quant:  # the bfloat16 weights of what this forward calls, for many rows
            for m in self.parts:
                m.pack_dense()

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        if len(self.parts) == 1:
            return self._one(self.parts[0], x)
        return torch.cat([self._one(m, x) for m in self.parts], dim=-1)

    def _one(self, m: nn.Module, x: torch.Tensor) -> torch.Tensor:
        if not self.quant:
            return m(x) if isinstance(m, PackedLinear) else F.linear(x, m.weight, m.bias)
        y = m.matmul(x)
        return y if m.bias is None else y + m.bias


def _joined(layers: list[nn.Module]) -> nn.Module:
    """One layer computing ``layers``' outputs side by side; each of ``layers`` then works on
    a view of the joined weights, so the joined layer costs no memory."""
    if isinstance(layers[0], QuantLinear):
        return QuantLinear.joined(layers)
    joined = concatenated(layers)
    at = 0
    for m in layers:
        n = m.out_features
        m.weight = nn.Parameter(joined.weight[at:at + n], requires_grad=False)
        if m.bias is not None:
            m.bias = nn.Parameter(joined.bias[at:at + n], requires_grad=False)
        at += n
    return joined


class _Layer:
    def __init__(self, layer):
        attn = layer.self_attn
        q, k, v, o, gate, up, down = (_plain(m) for m in _projections(layer))
        self.qkv = _Proj([q, k, v])
        self.o = _Proj([o])
        self.gate_up = _Proj([gate, up])
        self.down = _Proj([down])
        self.norm1, self.eps1 = layer.input_layernorm.weight, layer.input_layernorm.variance_epsilon
        self.norm2 = layer.post_attention_layernorm.weight
        self.eps2 = layer.post_attention_layernorm.variance_epsilon
        self.heads = q.out_features // attn.head_dim
        self.kv_heads = k.out_features // attn.head_dim
        self.head_dim, self.scaling = attn.head_dim, attn.scaling
        self.intermediate = gate.out_features


class LeanForward:
    """The lean forward of a Llama model whose layers it joins (see the module docstring).

    ``packed``: the loader packed the float32 layers; an output layer left plain is then tied
    to the embedding table (``packing.pack`` packs an untied one in place), which the lookup
    must read plain, so the lean forward packs a copy of its own.
    """

    def __init__(self, model: nn.Module, packed: bool = False, bf16_attention: bool = False):
        base = _base(model)
        self.embed = base.model.embed_tokens
        self.rotary = base.model.rotary_emb
        self.norm, self.eps = base.model.norm.weight, base.model.norm.variance_epsilon
        head = _plain(base.get_output_embeddings())
        if packed and type(head) is nn.Linear:
            head = PackedLinear(head)
        self.head = _Proj([head])
        self.layers = [_Layer(layer) for layer in base.model.layers]
        # int8/int4 layers (bfloat16 in and out) attend over a long history in bfloat16
        # (``attention``); float32 layers never do, whatever was asked
        self.bf16_attention = bf16_attention and self.layers[0].qkv.quant
        # and keep their keys and values in bfloat16 (the runner's new caches hold them): no
        # conversion of the history at each forward, and half the memory
        self.kv_dtype = torch.bfloat16 if self.bf16_attention else None
        self.native = None  # a native.NativeDecode for one-row decode steps (``use_native``)

    def use_native(self, module) -> str | None:
        """Run one-row decode steps through the native step built as ``module``
        (``native.load``); return why it cannot run this model's layers (None: it does)."""
        why = native.unsupported(self.layers)
        if why is None:
            self.native = native.NativeDecode(module, self.layers, self.head, self.norm, self.eps)
        return why

    @torch.inference_mode()
    def __call__(self, input_ids: torch.Tensor, position_ids: torch.Tensor, cache,
                 attention_mask: torch.Tensor | None = None, logits_to_keep: int = 0) -> Output:
        rows, new = input_ids.shape
        h = self.embed(input_ids).reshape(rows * new, -1)
        cos, sin = self.rotary(h, position_ids)  # [rows, new, head_dim]
        # rotate_half(x) * sin == roll(x, half) * sin with its first half negated
        half = sin.shape[-1] // 2
        sin = torch.cat((-sin[..., :half], sin[..., half:]), dim=-1)
        cos, sin = cos.unsqueeze(2), sin.unsqueeze(2)
        past = cache.get_seq_length() if cache.layers else 0
        visible = mask = None  # visible: int8/int4 layers attend over the history in bfloat16
        group = self.layers[0].heads // self.layers[0].kv_heads
        if self.bf16_attention and attention.applies(rows, new, past, group) and (
                attention_mask is None or (attention_mask.dim() == 2 and bool(attention_mask.all()))):
            visible = attention.visible(new, past, group, h.device)
        else:
            mask = _mask(attention_mask, rows, new, past, h.device)
        if self.native is not None and rows == 1 and new == 1 and mask is None and past \
                and all(isinstance(layer, GrowingLayer) for layer in cache.layers):
            logits = self._native(h, cos, sin, cache, past)
            if logits is not None:
                return Output(logits=logits, cache=cache)
        for i, layer in enumerate(self.layers):
            h = self._layer(layer, i, h, rows, new, cos, sin, mask, cache, visible, self.kv_dtype)
        keep = new if logits_to_keep == 0 else min(logits_to_keep, new)
        return Output(logits=self._logits(h, rows, new, keep), cache=cache)

    def _logits(self, h: torch.Tensor, rows: int, new: int, keep: int) -> torch.Tensor:
        """[rows, keep, vocab] logits of the last ``keep`` of each row's ``new`` positions."""
        last = h.view(rows, new, -1)[:, new - keep:].reshape(rows * keep, -1)
        x = F.rms_norm(last, last.shape[-1:], self.norm, self.eps)
        return self.head(x.to(self.head.dtype)).float().view(rows, keep, -1)

    def _native(self, h, cos, sin, cache, past: int) -> torch.Tensor | None:
        """The step's [1, 1, vocab] logits through the native step, or None: Python runs it.
        A failure of the native step turns it off for good (logged): it writes the new
        position into room the cache does not count yet, so Python can redo the step."""
        step = self.native
        try:
            h = step.layers(h, cos, sin, cache, past)
        except Exception:
            self._native_failed()
            return None
        if step.head is not None:
            try:
                return step.logits(h).view(1, 1, -1)
            except Exception:  # the layers ran (the cache counts the position): Python's head
                self._native_failed()
        return self._logits(h, 1, 1, 1)

    def _native_failed(self) -> None:
        log.exception("the native decode step failed; decode steps run in Python from now on")
        self.native = None

    @staticmethod
    def _layer(layer: _Layer, index: int, h, rows, new, cos, sin, mask, cache, visible=None,
               kv_dtype=None):
        heads, kv, dim = layer.heads, layer.kv_heads, layer.head_dim
        x = F.rms_norm(h, h.shape[-1:], layer.norm1, layer.eps1).to(layer.qkv.dtype)
        qkv = layer.qkv(x).to(h.dtype).view(rows, new, heads + 2 * kv, dim)
        qk = qkv[:, :, :heads + kv]
        qk = torch.addcmul(qk * cos, qk.roll(dim // 2, -1), sin)
        q = qk[:, :, :heads].transpose(1, 2)
        k, v = qk[:, :, heads:].transpose(1, 2), qkv[:, :, heads + kv:].transpose(1, 2)
        if kv_dtype is not None:
            k, v = k.to(kv_dtype), v.to(kv_dtype)
        keys, values = cache.update(k, v, index)
        if visible is not None:
            a = attention.attend(q, keys, values, layer.scaling, visible)
        elif new == 1 and (mask is None or mask.shape[1] == 1):
            # One new position: the heads that share a key/value head become that head's
            # queries, so SDPA reads the cache as it is. ``enable_gqa`` copies the keys and
            # values out once per head: at 16 rows 2 x the time of this (docs/benchmarks.md).
            a = F.scaled_dot_product_attention(q.reshape(rows, kv, heads // kv, dim).to(keys.dtype),
                                               keys, values, attn_mask=mask, scale=layer.scaling)
            a = a.reshape(rows, heads, 1, dim)
        else:
            a = F.scaled_dot_product_attention(q.to(keys.dtype), keys, values, attn_mask=mask,
                                               scale=layer.scaling, enable_gqa=kv != heads)
        a = a.transpose(1, 2).reshape(rows * new, heads * dim)
        h = h + layer.o(a.to(layer.o.dtype))
        x = F.rms_norm(h, h.shape[-1:], layer.norm2, layer.eps2).to(layer.gate_up.dtype)
        gate, up = layer.gate_up(x).to(h.dtype).split(layer.intermediate, dim=-1)
        return h + layer.down((F.silu(gate) * up).to(layer.down.dtype))


def _mask(attention_mask, rows: int, new: int, past: int, device) -> torch.Tensor | None:
    """A boolean [rows, 1, new, past + new] mask (True: may attend), or None for all."""
    if attention_mask is not None and attention_mask.dim() == 4:
        if attention_mask.dtype != torch.bool:  # an additive float mask means the opposite
            raise TypeError(f"a 4-D attention mask must be boolean, not {attention_mask.dtype}")
        return attention_mask
    causal = None
    if new > 1:
        keys = torch.arange(past + new, device=device)
        causal = (keys[None, :] <= past + torch.arange(new, device=device)[:, None])[None, None]
    if attention_mask is None or bool(attention_mask.all()):
        return causal
    padding = attention_mask.bool()[:, None, None, :]
    return padding if causal is None else padding & causal
