"""Weight-only quantization of the linear layers, for decoding on a CPU (``MNEMO_QUANTIZE``).

Decoding one sequence reads every weight once per token, so on a CPU its speed is the speed of
reading the weights: 540 MB a token for the 135M model in float32. Two layouts, both run by
torch's own CPU kernels:

- ``int4``: 4-bit integers in groups of 32 input columns, each group with its own scale and
  offset (asymmetric). This is the layout of llama.cpp's Q4_1, the format the default model
  ships in, so its layers come back on the same grid; what changes is bfloat16 rounding (of the
  activations, which the kernel takes in bfloat16, and of each group's scale and offset). The
  output layer is kept at int8.
- ``int8``: 8-bit integers with one scale per output channel (symmetric).

Every linear layer is replaced, the output layer included (a tied output layer gets its own
quantized copy; the embedding lookup keeps the float table). LoRA adapters keep their float
weights: inside a peft LoRA layer only the base layer is replaced, so adapters loaded at start
work unchanged. Loading a new adapter at run time (the admin API) is refused with int4/int8,
because peft wraps only float ``nn.Linear`` layers.
"""

from __future__ import annotations

import functools
import logging

import torch
from torch import nn

from .store import Store

log = logging.getLogger("mnemo.engine")

GROUP = 32  # int4: input columns per scale/offset, as in llama.cpp's Q4_0/Q4_1
MODES = ("none", "int8", "int4")
# Rows of activations from which a layer's dequantized weights (``QuantLinear.dense``) multiply
# faster than torch's int4/int8 kernels, by their dtype: in bfloat16 1.4-2 x at 8 rows, 2.2-2.7 x
# at 57 on an AVX-512 CPU, slower at 1; in float32 on an AVX2 CPU (``dense_dtype``) slower at 8
# rows (0.40 against 0.33 ms for 1536 x 576 at int4), faster at 16 (0.56 against 0.80).
DENSE_ROWS = {torch.bfloat16: 8, torch.float32: 16}


def _grid(w: torch.Tensor, mode: str) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
    """Quantize float32 weights [out, in]: (integers, bfloat16 scales, bfloat16 zeros or None).
    int8: q in [-127, 127], one scale per row, w ~ q * scale. int4: q in [0, 15] per group of
    GROUP inputs with its scale and zero, w ~ (q - 8) * scale + zero (as the kernel computes)."""
    out = w.shape[0]
    if mode == "int8":
        scale = (w.abs().amax(dim=1) / 127).clamp(min=1e-12)
        return torch.round(w / scale[:, None]).clamp(-127, 127), scale.to(torch.bfloat16), None
    if mode != "int4":
        raise ValueError(f"unknown quantization {mode!r}")
    if w.shape[1] % GROUP:
        raise ValueError(f"int4 needs input sizes divisible by {GROUP}; a layer has {w.shape[1]}")
    groups = w.view(out, -1, GROUP)
    low, high = groups.amin(-1), groups.amax(-1)
    scale = ((high - low) / 15).clamp(min=1e-12)
    q = torch.round((groups - low[..., None]) / scale[..., None]).clamp(0, 15).view(out, -1)
    # the zero is the group's value at q = 8
    return q, scale.to(torch.bfloat16), (low + 8 * scale).to(torch.bfloat16)


@functools.cache
def dense_unsupported() -> str | None:
    """Why this CPU cannot run bfloat16 products through oneDNN (None: it can); probed once.
    oneDNN's bfloat16 path needs AVX-512 (BW, VL, DQ) or AVX-NE-CONVERT; elsewhere packing
    bfloat16 weights raises, and ``dense_dtype`` gives float32."""
    try:
        w = torch.ops.mkldnn._reorder_linear_weight(torch.ones(16, 16, dtype=torch.bfloat16), 1)
        torch.ops.mkldnn._linear_pointwise(torch.ones(8, 16, dtype=torch.bfloat16),
                                           w, None, "none", [], "")
    except RuntimeError as exc:
        return str(exc).splitlines()[0]
    return None


def dense_dtype() -> torch.dtype:
    """The dtype of ``QuantLinear.dense``: bfloat16 where oneDNN multiplies it, else float32.
    Without bfloat16 instructions (an AVX2 CPU) torch's int4 kernel is faster than oneDNN's
    float32 product up to 8 rows (0.100 against 0.122 ms for 1536 x 576 at one, 0.33 against
    0.40 at 8) and slower from 16 (0.80 against 0.56; 2.98 against 1.73 ms at 59 rows, 22.6
    against 8.3 at 512; docs/benchmarks.md): the stored bfloat16 weights, widened exactly to
    float32, serve 16 rows or more there (``DENSE_ROWS``), at 4 bytes a weight in memory."""
    return torch.bfloat16 if dense_unsupported() is None else torch.float32


def dequantized(linear: nn.Linear, mode: str) -> torch.Tensor:
    """The weights a ``QuantLinear(linear, mode)`` multiplies by, as bfloat16 [out, in]: its
    integers times its scales (plus its zeros) in float32, rounded once (``QuantLinear.bf16``)."""
    q, scale, zero = _grid(linear.weight.detach().float(), mode)
    if zero is None:
        return (q * scale.float()[:, None]).to(torch.bfloat16)
    groups = (q.view(q.shape[0], -1, GROUP) - 8) * scale.float()[..., None] + zero.float()[..., None]
    return groups.view(q.shape).to(torch.bfloat16)


class QuantLinear(nn.Module):
    """``y = x @ W.T + b`` with W stored as int8 (per channel) or packed int4 (per group).

    A layer may also hold its dequantized weights in bfloat16 (``bf16``, then packed for
    oneDNN as ``dense`` by ``pack_dense``): torch's int4/int8 kernels unpack the weights for
    every row of activations, so a product of many rows (a prefill, a batch of 8 or more)
    runs 1.4-2.7 x faster as a bfloat16 product, while one row (a lone decode step) reads the
    small integers faster (docs/benchmarks.md#decode-speed)."""

    def __init__(self, linear: nn.Linear, mode: str):
        super().__init__()
        self.in_features, self.out_features, self.mode = linear.in_features, linear.out_features, mode
        self.out_dtype = linear.weight.dtype
        q, scale, zero = _grid(linear.weight.detach().float(), mode)
        if mode == "int8":
            self.register_buffer("qweight", q.to(torch.int8).contiguous())
            self.register_buffer("scales", scale)
        else:
            self.register_buffer("qweight", torch.ops.aten._convert_weight_to_int4pack_for_cpu(
                q.to(torch.int32), 1))
            self.register_buffer("scales", torch.stack([scale.t(), zero.t()], -1).contiguous())
        self.bias = None if linear.bias is None else nn.Parameter(linear.bias.detach().clone(),
                                                                    requires_grad=False)
        self._no_dense()

    def _no_dense(self) -> None:
        self.bf16: torch.Tensor | None = None  # dequantized weights, plain, until packed
        self.dense: torch.Tensor | None = None  # the same in oneDNN's layout (``pack_dense``)
        self.dense_rows = 1 << 62  # rows from which ``dense`` serves (set by ``pack_dense``)

    def pack_dense(self) -> None:
        """Reorder ``bf16`` for oneDNN into ``dense`` (products of ``dense_rows`` rows or
        more), in ``dense_dtype()``: the same numbers either way (bfloat16 widens exactly)."""
        if self.bf16 is not None:
            dtype = dense_dtype()
            self.dense = torch.ops.mkldnn._reorder_linear_weight(self.bf16.to(dtype), 1)
            self.dense_rows = DENSE_ROWS[dtype]
            self.bf16 = None

    @classmethod
    def stored(cls, linear: nn.Linear, mode: str, qweight: torch.Tensor,
               scales: torch.Tensor) -> QuantLinear:
        """The layer ``QuantLinear(linear, mode)`` made before, from its stored buffers; the
        float weights are not read. ValueError if their shapes do not fit ``linear``."""
        out, inp = linear.out_features, linear.in_features
        if mode == "int8":
            want = ((torch.int8, (out, inp)), (torch.bfloat16, (out,)))
        else:  # torch's int4 layout: two values a byte
            want = ((torch.uint8, (out, inp // 2)), (torch.bfloat16, (inp // GROUP, out, 2)))
        got = ((qweight.dtype, tuple(qweight.shape)), (scales.dtype, tuple(scales.shape)))
        if got != want:
            raise ValueError(f"stored buffers {got} do not fit a {inp} x {out} {mode} layer")
        layer = cls.__new__(cls)
        nn.Module.__init__(layer)
        layer.in_features, layer.out_features, layer.mode = inp, out, mode
        layer.out_dtype = linear.weight.dtype
        # Copies: a file's tensors may start anywhere in its buffer, and the int4 kernel
        # reads aligned vectors (an unaligned stored layer crashed it).
        layer.register_buffer("qweight", qweight.clone())
        layer.register_buffer("scales", scales.clone())
        layer.bias = None if linear.bias is None else nn.Parameter(linear.bias.detach().clone(),
                                                                     requires_grad=False)
        layer._no_dense()
        return layer

    @classmethod
    def joined(cls, layers: list[QuantLinear]) -> QuantLinear:
        """One layer computing ``layers``' outputs side by side (the lean forward's joined
        projections). Scales and offsets are per output row, so joining changes no number;
        each of ``layers`` then reads a view of the joined weights, so nothing is stored twice."""
        first = layers[0]
        if any(m.mode != first.mode or m.in_features != first.in_features for m in layers):
            raise ValueError("only layers of one mode and input size can be joined")
        if first.mode == "int4" and any(m.out_features % 64 for m in layers[:-1]):
            # torch packs int4 rows in blocks of 64: other sizes do not join by concatenation
            raise ValueError("int4 layers join only at multiples of 64 outputs")
        joined = cls.__new__(cls)
        nn.Module.__init__(joined)
        joined.in_features, joined.mode, joined.out_dtype = first.in_features, first.mode, first.out_dtype
        joined.out_features = sum(m.out_features for m in layers)
        joined.register_buffer("qweight", torch.cat([m.qweight for m in layers]))
        # int4 scales are [groups, out, 2], int8 scales [out]: the output axis differs.
        joined.register_buffer("scales", torch.cat([m.scales for m in layers],
                                                   dim=1 if first.mode == "int4" else 0))
        joined.bias = None
        joined._no_dense()
        if all(m.bf16 is not None for m in layers):  # parts keep none: only the joined one runs
            joined.bf16 = torch.cat([m.bf16 for m in layers])
            for m in layers:
                m.bf16 = None
        if any(m.bias is not None for m in layers):
            joined.bias = nn.Parameter(torch.cat(
                [m.bias.detach() if m.bias is not None else m.qweight.new_zeros(
                    m.out_features, dtype=m.out_dtype) for m in layers]), requires_grad=False)
        at = 0
        for m in layers:  # rows of the packed int4 layout are whole 64-row blocks of outputs
            m.qweight = joined.qweight[at:at + m.out_features]
            at += m.out_features
        return joined

    def matmul(self, flat: torch.Tensor) -> torch.Tensor:
        """[rows, in] bfloat16 -> [rows, out] bfloat16, bias not included."""
        if self.dense is not None and flat.shape[0] >= self.dense_rows:
            x = flat.to(self.dense.dtype)  # bfloat16, or float32 (exact) on an AVX2 CPU
            return torch.ops.mkldnn._linear_pointwise(x, self.dense, None, "none", [], "").to(
                torch.bfloat16)
        if self.mode == "int8":
            return torch.ops.aten._weight_int8pack_mm(flat, self.qweight, self.scales)
        return torch.ops.aten._weight_int4pack_mm_for_cpu(flat, self.qweight, GROUP, self.scales)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        flat = x.reshape(-1, self.in_features).to(torch.bfloat16).contiguous()
        y = self.matmul(flat).to(self.out_dtype).reshape(*x.shape[:-1], self.out_features)
        return y if self.bias is None else y + self.bias

    def extra_repr(self) -> str:
        return f"{self.in_features}, {self.out_features}, mode={self.mode}"


def quantize(model: nn.Module, mode: str, store: Store | None = None, *, dense: bool = False,
             dense_store: Store | None = None) -> int:
    """Replace the model's linear layers in place (inside LoRA layers, their base layer only);
    return how many.

    ``dense``: every layer also gets its dequantized bfloat16 weights (``QuantLinear.bf16``),
    read from ``dense_store`` where an earlier start kept them, else computed from the float
    weights and kept there. The output layer gets them only where they are multiplied in
    bfloat16 (``dense_dtype``): a prefill runs it for one row per prompt, but a decode step
    runs it for every row of the batch, and torch's int8 kernel takes time in proportion to
    the rows (on an AMX CPU 5.9 against 1.2 ms for bfloat16 at 16 rows, 3.0 against 1.1 at 8;
    docs/benchmarks.md). Widened to float32 (no bfloat16 path) its copy would take 113 MB
    and its gain there is not measured, so it keeps the int8 kernel alone.

    ``store``: where the quantized buffers of an earlier start with the same weights and mode
    are kept (``store.Store``). Layers found there are rebuilt without reading their float
    weights (the file's pages stay untouched: about 0.5 s of a start, and the memory they would
    occupy until the map is dropped); the rest are quantized, and then the store is written
    with every layer for the next start. Layers an adapter owns (peft's ``modules_to_save``)
    are never stored: they change with the adapter, which the store's name does not follow."""
    if mode == "none":
        return 0
    output = model.get_output_embeddings()
    stored = store.read() if store else {}
    kept_dense = dense_store.read() if dense and dense_store else {}
    fresh = fresh_dense = 0
    targets = []
    for name, module in model.named_modules():
        for child_name, child in module.named_children():
            if type(child) is nn.Linear and not is_lora_part(name, child_name):
                key = _key(f"{name}.{child_name}" if name else child_name)
                targets.append((module, child_name, child, None if ".modules_to_save." in key else key))
    dense_output = dense and dense_dtype() == torch.bfloat16
    for parent, child_name, child, key in targets:
        # The output layer stays at 8 bits under int4, as llama.cpp keeps it above 4: the
        # default model ships it as Q8_0, and at 4 bits perplexity rose 7 % instead of 1 %.
        layer_mode = "int8" if child is output else mode
        layer = None
        if key is not None and f"{key}.qweight" in stored and f"{key}.scales" in stored:
            try:
                layer = QuantLinear.stored(child, layer_mode, stored[f"{key}.qweight"],
                                           stored[f"{key}.scales"])
            except ValueError as exc:
                log.warning("quantized layer %s in %s not used: %s", key, store.path, exc)
        if layer is None:
            layer = QuantLinear(child, layer_mode)
            fresh += key is not None
        if dense_output if child is output else dense:
            layer.bf16 = _kept(kept_dense, key, child, dense_store)
            if layer.bf16 is None:
                layer.bf16 = dequantized(child, layer_mode)
                fresh_dense += key is not None
        setattr(parent, child_name, layer)
    if store and fresh:
        tensors = {}
        for parent, child_name, _child, key in targets:
            if key is not None:
                layer = getattr(parent, child_name)
                tensors[f"{key}.qweight"], tensors[f"{key}.scales"] = layer.qweight, layer.scales
        store.write(tensors)
    if dense_store and fresh_dense:
        dense_store.write({f"{key}.bf16": getattr(parent, name).bf16
                           for parent, name, _child, key in targets
                           if key is not None and getattr(parent, name).bf16 is not None})
    return len(targets)


def _kept(kept: dict[str, torch.Tensor], key: str | None, child: nn.Linear,
          store: Store | None) -> torch.Tensor | None:
    """A layer's stored bfloat16 weights if they fit it and are all finite (a damaged store
    with a valid header would otherwise serve empty replies), else None (logged)."""
    w = kept.get(f"{key}.bf16") if key is not None else None
    if w is None:
        return None
    if w.dtype != torch.bfloat16 or tuple(w.shape) != (child.out_features, child.in_features):
        log.warning("bfloat16 weights of %s in %s not used: %s %s for a %d x %d layer", key,
                    store.path, w.dtype, tuple(w.shape), child.out_features, child.in_features)
        return None
    if not bool(torch.isfinite(w).all()):
        log.warning("bfloat16 weights of %s in %s not used: not all finite", key, store.path)
        return None
    return w


def _key(name: str) -> str:
    """A layer's name without peft's wrapping, so the store fits with or without adapters."""
    name = name.removeprefix("base_model.model.")
    return name.replace(".base_layer", "").replace(".original_module", "")


def is_lora_part(parent: str, child: str) -> bool:
    """peft's own small matrices (lora_A, lora_B, ...) stay in float."""
    return any(part.startswith("lora_") for part in (*parent.split("."), child))
