"""Float32 linear layers in oneDNN's blocked weight layout, for decoding on a CPU.

Decoding one sequence multiplies one row of activations by every weight matrix, so its speed
is how fast a matrix-vector product reads the weights. torch's float32 ``F.linear`` calls
MKL, which on this AMD CPU reads them at about 10 GB/s on one thread; oneDNN, given the same
weights reordered once into its blocked layout, reads them about twice as fast
(docs/benchmarks.md#decode-speed). ``PackedLinear`` keeps only the reordered weights.

It is still an ``nn.Linear`` to peft and to the rest of the engine: same ``in_features`` and
``out_features``, a ``weight`` that reads back as a plain tensor (a copy; only inspection and
adapter loading read it), so LoRA adapters wrap it at start or at run time (the admin API) as
they wrap any linear layer. Outputs equal ``F.linear``'s up to float32 rounding (the sums run
in another order). CPU only, and for serving only: the packed weights are not in
``state_dict()`` and ``.to()`` does not move them.
"""

from __future__ import annotations

import torch
from torch import nn

from .quantize import is_lora_part


def available() -> bool:
    return torch.backends.mkldnn.is_available()


class PackedLinear(nn.Linear):
    """``y = x @ W.T + b`` with W held in oneDNN's layout."""

    def __init__(self, linear: nn.Linear):
        nn.Module.__init__(self)
        self.in_features, self.out_features = linear.in_features, linear.out_features
        self.packed = torch.ops.mkldnn._reorder_linear_weight(linear.weight.detach(), 1)
        self.bias = linear.bias

    @property
    def weight(self) -> torch.Tensor:
        """The weights as a plain [out, in] tensor: a copy, for whoever inspects them."""
        return self.packed.to_dense()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.ops.mkldnn._linear_pointwise(x, self.packed, self.bias, "none", [], "")

    def extra_repr(self) -> str:
        return f"{self.in_features}, {self.out_features}, packed"


def pack(model: nn.Module) -> int:
    """Replace the float32 linear layers of ``model`` (inside LoRA layers, their base layer
    only) in place; return how many. An output layer tied to the embedding table stays: the
    embedding lookup reads that table plain (the lean forward packs its own copy)."""
    output = model.get_output_embeddings()
    tied = getattr(output, "weight", None) is model.get_input_embeddings().weight
    targets = []
    for name, module in model.named_modules():
        for child_name, child in module.named_children():
            if (type(child) is nn.Linear and not (tied and child is output)
                    and child.weight.dtype == torch.float32 and not is_lora_part(name, child_name)):
                targets.append((module, child_name, child))
    for parent, child_name, child in targets:
        setattr(parent, child_name, PackedLinear(child))
    return len(targets)
