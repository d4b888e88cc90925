"""Float32 linear layers in oneDNN's blocked weight layout, for decoding on a CPU.

Decoding one sequence multiplies one row of activations by every weight matrix, so its speed
is how fast a matrix-vector product reads the weights. torch's float32 ``F.linear`` calls
MKL, which on an AMD CPU reads them at about 10 GB/s on one thread; oneDNN, given the same
weights reordered once into its blocked layout, reads them about twice as fast
(docs/benchmarks.md#decode-speed). ``PackedLinear`` keeps only the reordered weights. MKL is
Intel's, and on an Intel CPU the order is the other way round (``declined``): there the loader
leaves float32 layers as they are.

It is still an ``nn.Linear`` to peft and to the rest of the engine: same ``in_features`` and
``out_features``, a ``weight`` that reads back as a plain tensor (a copy; only inspection and
adapter loading read it), so LoRA adapters wrap it at start or at run time (the admin API) as
they wrap any linear layer. Outputs equal ``F.linear``'s up to float32 rounding (the sums run
in another order). CPU only, and for serving only: the packed weights are not in
``state_dict()`` and ``.to()`` does not move them.

Layers that read the same input (a Llama layer's query, key and value projections; its gate
and up projections) can be packed as one matrix (``pack``'s ``joins``): one product of the
joined matrix instead of three or two cost 12-16 % less per decode step in float32 (in situ,
docs/benchmarks.md#decode-speed). The lean forward calls the joined layer; each of the model's
own layers becomes a ``PackedPart`` of it, for transformers' forward (requests routed to an
adapter): the first part called with an input computes the joined product, and the other
parts called with the same input take their columns of it, so nothing is stored or computed
twice.
"""

from __future__ import annotations

import torch
from torch import nn

from .quantize import is_lora_part


def declined() -> str | None:
    """Why the loader leaves float32 layers in torch's layout (None: it packs them).

    MKL takes its fast paths on Intel's CPUs only. On an Intel Xeon (Sapphire Rapids,
    2026-12-03) its one-row products beat oneDNN's packed ones in every layer of the default
    model (the whole model's products 8.0 against 12.2 ms from cache), and a lean forward
    with packed weights decoded slower than transformers' own (27.0 against 32.0 tok/s
    in-process; 36.4 unpacked): docs/benchmarks.md. On the AMD CPUs measured before, oneDNN
    read the weights twice as fast as MKL.
    """
    if not torch.backends.mkldnn.is_available():
        return "torch was built without oneDNN"
    if torch.backends.mkl.is_available() and cpu_vendor() == "GenuineIntel":
        return "on an Intel CPU torch's MKL multiplies them faster than oneDNN's packed layout"
    return None


def cpu_vendor() -> str:
    """The CPU's vendor as the kernel names it (``GenuineIntel``, ``AuthenticAMD``), or ''."""
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("vendor_id"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


class PackedLinear(nn.Linear):
    """``y = x @ W.T + b`` with W held in oneDNN's layout."""

    def __init__(self, linear: nn.Linear):
        nn.Module.__init__(self)
        self.in_features, self.out_features = linear.in_features, linear.out_features
        self.packed = torch.ops.mkldnn._reorder_linear_weight(linear.weight.detach(), 1)
        self.bias = linear.bias
        self.shares = 1  # parts that take this layer's output (``joined``)
        self._pending: tuple | None = None  # (input, output, parts yet to take it)

    @property
    def weight(self) -> torch.Tensor:
        """The weights as a plain [out, in] tensor: a copy, for whoever inspects them."""
        return self.packed.to_dense()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.ops.mkldnn._linear_pointwise(x, self.packed, self.bias, "none", [], "")

    def extra_repr(self) -> str:
        return f"{self.in_features}, {self.out_features}, packed"

    @classmethod
    def joined(cls, layers: list[nn.Linear]) -> tuple[PackedLinear, list[PackedPart]]:
        """One packed layer computing ``layers``' outputs side by side, and a part of it to
        stand in for each of ``layers``."""
        whole = cls(concatenated(layers))
        parts, at = [], 0
        for i, m in enumerate(layers):
            parts.append(PackedPart(whole, i, at, at + m.out_features))
            at += m.out_features
        whole.shares = len(parts)
        return whole, parts

    def share(self, x: torch.Tensor, part: int) -> torch.Tensor:
        """This layer's output for ``x``, computed once for all of its parts: transformers and
        peft call the parts in order (query, key, value; gate, up) on one input, so the first
        part computes the product and the others, called with that same input, take it. The
        input is known by identity (tensors made under ``torch.inference_mode`` keep no
        version counter); the first part always computes afresh, so a product is only ever
        reused within one such sequence of calls."""
        pending = self._pending
        if part and pending is not None and pending[0] is x and part in pending[2]:
            pending[2].discard(part)
            if not pending[2]:
                self._pending = None
            return pending[1]
        out = self(x)
        rest = set(range(self.shares)) - {part}
        self._pending = (x, out, rest) if rest else None
        return out


class PackedPart(PackedLinear):
    """Output columns [start, end) of a joined ``PackedLinear``: a model's own layer after
    ``pack`` joined it with others (its weights live in the joined layer only)."""

    def __init__(self, whole: PackedLinear, index: int, start: int, end: int):
        nn.Module.__init__(self)
        self.__dict__["whole"] = whole  # not a submodule: named once, by whoever joined it
        self.index, self.start, self.end = index, start, end
        self.in_features, self.out_features = whole.in_features, end - start
        self.bias = None if whole.bias is None else nn.Parameter(whole.bias[start:end],
                                                                 requires_grad=False)

    @property
    def weight(self) -> torch.Tensor:
        return self.whole.weight[self.start:self.end]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # A copy, contiguous like any layer's output and the caller's own (peft adds into it).
        return self.whole.share(x, self.index)[..., self.start:self.end].clone()

    def extra_repr(self) -> str:
        return f"{self.in_features}, {self.out_features}, packed, part {self.index} of a joined layer"


def concatenated(layers: list[nn.Linear]) -> nn.Linear:
    """A plain layer computing ``layers``' outputs side by side (new memory; a missing bias
    is zeros)."""
    weight = torch.cat([m.weight.detach() for m in layers])
    bias = None
    if any(m.bias is not None for m in layers):
        bias = torch.cat([m.bias.detach() if m.bias is not None
                          else m.weight.new_zeros(m.out_features) for m in layers])
    joined = nn.Linear(weight.shape[1], weight.shape[0], bias=bias is not None, device="meta",
                       dtype=weight.dtype)
    joined.weight = nn.Parameter(weight, requires_grad=False)
    if bias is not None:
        joined.bias = nn.Parameter(bias, requires_grad=False)
    return joined


def pack(model: nn.Module, joins: list[list[nn.Linear]] = ()) -> int:
    """Replace the float32 linear layers of ``model`` (inside LoRA layers, their base layer
    only) in place; return how many. Each list of layers in ``joins`` (plain layers of one
    input size) is packed as one joined layer, and each of them replaced by its part. An
    output layer tied to the embedding table stays: the embedding lookup reads that table
    plain (the lean forward packs its own copy)."""
    output = model.get_output_embeddings()
    tied = getattr(output, "weight", None) is model.get_input_embeddings().weight
    targets = {}
    for name, module in model.named_modules():
        for child_name, child in module.named_children():
            if (type(child) is nn.Linear and not (tied and child is output)
                    and child.weight.dtype == torch.float32 and not is_lora_part(name, child_name)):
                targets[id(child)] = (module, child_name, child)
    replacement = {}
    for layers in joins:
        if len(layers) > 1 and all(id(m) in targets for m in layers) \
                and len({m.in_features for m in layers}) == 1:
            _whole, parts = PackedLinear.joined(layers)
            replacement.update((id(m), part) for m, part in zip(layers, parts, strict=True))
    for key, (parent, child_name, child) in targets.items():
        setattr(parent, child_name, replacement.get(key) or PackedLinear(child))
    return len(targets)
