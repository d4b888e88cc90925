"""Which engine settings combine: the one place that says so.

``refusal`` is asked twice with the same rules: by ``Settings.validate`` with the values as
configured (an ``auto`` combines with anything: its choice adapts to the rest), and by the
loader with the values as resolved (device ``auto`` found a GPU, quantize ``auto`` chose int4
or none). What a model or a machine cannot run (the lean forward only runs Llama models, the
native step needs a compiler) is found at load, where it is known.
"""

from __future__ import annotations


def refusal(*, quantize: str = "none", speculative: str = "none", executor: str = "auto",
            dtype: str = "auto", device: str = "auto", admin: bool = False
            ) -> tuple[str, str] | None:
    """The first setting (its name) that cannot combine with the others, and why; None when
    they all combine. ``admin``: the admin API is on (adapters loaded at run time)."""
    cuda = device.startswith("cuda")
    float32 = dtype in ("auto", "float32")
    quantized = quantize in ("int8", "int4")
    if executor == "native" and (quantize == "none" or cuda):
        return "executor", ("native runs the one-row decode steps of an int8/int4 model on a "
                            "CPU: leave MNEMO_QUANTIZE at auto (or int8, int4) and MNEMO_DEVICE "
                            "at auto or cpu, or choose auto")
    if quantized and cuda:
        return "quantize", ("int8 and int4 use torch's CPU kernels; on a GPU use "
                            "MNEMO_DTYPE=bfloat16 instead")
    if quantized and not float32:
        return "quantize", "keeps the rest of the model in float32: leave MNEMO_DTYPE at auto or float32"
    if quantized and admin:
        return "quantize", ("cannot be combined with the admin API (MNEMO_ADMIN_KEYS): adapters "
                            "loaded at run time need float linear layers; list adapters in "
                            "MNEMO_ADAPTERS instead, they are loaded before quantization")
    if speculative != "none":
        if quantized:
            return "speculative", (f"needs a float32 model to draft for; MNEMO_QUANTIZE={quantize} "
                                   "quantizes it already (leave it at none)")
        if not float32 or cuda:
            return "speculative", ("drafts for a float32 model on a CPU: leave MNEMO_DTYPE at auto "
                                   "or float32 and MNEMO_DEVICE at auto or cpu")
        if executor not in ("auto", "native"):
            return "speculative", ("the draft runs in the lean forward's native decode step: "
                                   "leave MNEMO_EXECUTOR at auto or native")
    return None
