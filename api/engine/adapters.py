"""LoRA adapters: those named at start and those an operator loads or unloads at run time.

Clients name an adapter (``adapter`` natively, ``model`` on /v1); the model knows it by a
versioned key (``name#2``), which is also what the prefix cache keys KV by, so an adapter loaded
again under the same name never meets the old one's KV. Loading checks everything it can before
the model is touched:
- the path is resolved and must stay inside ``MNEMO_ADAPTER_DIR`` (``..``, absolute paths
  elsewhere and symlinks that leave it are refused), and so must each file it reads;
- only ``adapter_model.safetensors`` weights (a pickle can run code when loaded);
- plain LoRA on linear layers: each setting is checked against an allow-list of values Mnemo
  honours (``HONOURED``), so keys that would change the base model or need another forward
  (modules_to_save, layer_replication, DoRA, rank patterns, PiSSA/OLoRA initialisations, ...)
  are refused, and the weights file may hold only the targeted layers' A and B matrices, each
  of the shape the loaded model needs at the config's rank (a different base model fails here);
- the adapter is built from the honoured settings alone, with no initialisation, and its
  weights are copied in from the file (``attach``): the same path at start and at run time.
The running model is never changed in place. A load or unload builds its model on a copy of
the module tree (``clone``) that shares every tensor with the running model: the worker takes
the copy between two steps (about 15 ms), the admin call's thread attaches the adapter to it or
removes it, and the worker swaps it in between two later steps (``Runner.install``), a pointer
swap, so streams stall by no more than one step; the running model's modules are untouched,
and a failed load changes nothing. A checksum of the base weights, taken before and after the
build, must be equal (``base_digest``); otherwise the load is refused, and since the base's
tensors are shared a base it changed stops the engine serving (``/readyz`` says to restart). An
unloaded adapter's name is refused at once; its weights leave the model when the requests
already using it have finished.
"""

from __future__ import annotations

import collections
import copy
import json
import re
import threading
from dataclasses import dataclass
from pathlib import Path

import torch

from ..exceptions import AdapterConflict, AdapterInvalid, AdapterNotFound
from .quantize import QuantLinear

CONFIG, WEIGHTS = "adapter_config.json", "adapter_model.safetensors"


@dataclass(frozen=True)
class Adapter:
    name: str  # what clients send
    key: str  # the adapter's name inside the model (versioned): the prefix cache's key too
    path: str
    rank: int
    targets: tuple[str, ...]
    source: str  # "settings" (named at start) or "admin" (loaded at run time)

    def as_dict(self) -> dict:
        return {"name": self.name, "path": self.path, "rank": self.rank,
                "target_modules": list(self.targets), "source": self.source}


def confine(root: Path, relative: str) -> Path:
    """``root / relative``, resolved; refused unless it and its files stay inside ``root``.
    Whatever the file system says about the path (a name too long, a symlink loop, no
    permission) is the client's 422 naming it, never a 500."""
    if not relative or "\x00" in relative:
        raise AdapterInvalid("path must be a directory name inside the adapter directory.")
    try:
        return _confine(root.resolve(), relative)
    except (OSError, RuntimeError) as exc:  # RuntimeError: pathlib's "Symlink loop from ..."
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise AdapterInvalid(f"path {relative[:80]!r}{'...' if len(relative) > 80 else ''} "
                             f"cannot be used: {reason}.") from None


def _confine(base: Path, relative: str) -> Path:
    target = (base / relative).resolve()
    if target != base and base not in target.parents:
        raise AdapterInvalid(f"path {relative!r} leaves the adapter directory.")
    if not target.is_dir():
        raise AdapterInvalid(f"path {relative!r} is not an adapter directory.")
    for name in (CONFIG, WEIGHTS):
        f = target / name
        if f.is_symlink() and base not in f.resolve().parents:
            raise AdapterInvalid(f"{name} links outside the adapter directory.")
    return target


# The settings Mnemo honours, each with the values it accepts; every other key must be empty
# (None, False, {}, [] or ""): those change the base model (modules_to_save, layer_replication,
# trainable tokens, biases), need a forward Mnemo does not run (DoRA, aLoRA), or give layers
# ranks the weights check does not cover (rank_pattern). The adapter is built from these
# settings alone (``lora_config``): whatever else the file says never reaches peft.
MAX_ALPHA = 65536.0  # far above any trained adapter's; beyond it a layer's output overflows
MAX_WEIGHT = 1e4  # the largest magnitude a LoRA matrix may hold (trained ones stay near 1)


def _number(v) -> bool:
    return type(v) in (int, float) and 0 < v <= MAX_ALPHA  # NaN and infinity fail both


def _empty(v) -> bool:
    """None, False or an empty container: not 0, which JSON writes for numbers."""
    return v is None or v is False or (type(v) in (dict, list, str) and not v)


HONOURED = {
    "peft_type": (lambda v: v == "LORA", '"LORA"'),
    "r": (lambda v: type(v) is int and v >= 1, "a positive integer"),
    "lora_alpha": (_number, f"a positive number up to {MAX_ALPHA:g}"),
    "target_modules": (lambda v: isinstance(v, list) and bool(v)
                       and all(isinstance(t, str) for t in v),
                       "a list of module names (a regular expression is not accepted here)"),
    "use_rslora": (lambda v: type(v) is bool, "true or false"),
    "bias": (lambda v: v == "none", '"none"'),
    # An initialisation runs only when training starts; a saved adapter's weights come from its
    # file. PiSSA, OLoRA, CorDA, LoftQ, EVA and orthogonal initialisations rewrite the base
    # model's weights, so an adapter saved with one is meant for another base: refused.
    "init_lora_weights": (lambda v: v is True or v is False or v == "gaussian",
                          'true, false or "gaussian"'),
    "lora_dropout": (lambda v: type(v) in (int, float) and 0 <= v < 1, "a number in [0, 1)"),
}
# Keys that describe the file and change nothing at inference.
METADATA = {"task_type", "base_model_name_or_path", "revision", "inference_mode", "peft_version",
            "auto_mapping", "megatron_core", "qalora_group_size", "layers_pattern"}
WEIGHT = re.compile(r"base_model\.model\.(?P<module>.+)\.lora_(?P<part>[AB])\.weight")
DTYPES = {"F32", "F16", "BF16"}


@dataclass(frozen=True)
class Spec:
    """What an adapter directory holds, checked against the loaded model."""
    path: Path
    rank: int
    alpha: float
    targets: tuple[str, ...]
    rslora: bool


def inspect(path: Path, model) -> Spec:
    """Check an adapter directory against the loaded model.

    Only plain LoRA on linear layers is accepted, and the weights file may hold nothing but
    those layers' A and B matrices: nothing it contains can overwrite a base model weight.
    """
    if not (path / WEIGHTS).is_file():
        raise AdapterInvalid(f"{path.name} has no {WEIGHTS} (only safetensors weights are loaded).")
    try:
        config = json.loads((path / CONFIG).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise AdapterInvalid(f"{path.name}/{CONFIG} cannot be read: {exc}") from None
    if not isinstance(config, dict) or config.get("peft_type") != "LORA":
        raise AdapterInvalid(f"{path.name} is not a LoRA adapter (peft_type must be LORA).")
    for key, value in config.items():
        if key in HONOURED:
            ok, wanted = HONOURED[key]
            if not ok(value):
                raise AdapterInvalid(f"{path.name}/{CONFIG}: {key} = {value!r} is not supported "
                                     f"({key} must be {wanted}).")
        elif key not in METADATA and not _empty(value):
            raise AdapterInvalid(f"{path.name}/{CONFIG}: {key} = {value!r} is not supported "
                                 "(only plain LoRA on linear layers is loaded at run time).")
    if "r" not in config or "target_modules" not in config:
        raise AdapterInvalid(f"{path.name}/{CONFIG}: r and target_modules are required.")
    rank, targets = config["r"], config["target_modules"]
    linears = _linear_layers(model)
    suffixes = {name.rsplit(".", 1)[-1] for name in linears}
    missing = sorted(t for t in targets if t not in suffixes)
    if missing:
        raise AdapterInvalid(f"target modules {missing} are not linear layers of the loaded model.")
    _check_weights(path, {n: m for n, m in linears.items() if n.rsplit(".", 1)[-1] in targets},
                   rank)
    return Spec(path, rank, float(config.get("lora_alpha", 8)), tuple(sorted(set(targets))),
                bool(config.get("use_rslora", False)))


def read_weights(spec: Spec) -> dict[str, torch.Tensor]:
    """The adapter's A and B matrices (already checked by ``inspect``), read on the caller's
    thread so the worker only copies them in."""
    import peft.utils  # noqa: F401  (imported here, not in the worker: 0.2 s on first use)
    from safetensors.torch import load_file

    weights = load_file(str(spec.path / WEIGHTS))
    for key, tensor in weights.items():
        if not torch.isfinite(tensor).all() or tensor.abs().max() > MAX_WEIGHT:
            raise AdapterInvalid(f"{spec.path.name}/{WEIGHTS}: {key} holds values that are not "
                                 f"finite or beyond {MAX_WEIGHT:g} in magnitude.")
    return weights


def lora_config(spec: Spec):
    """The peft config the adapter is built from: the honoured settings, no initialisation."""
    from peft import LoraConfig

    return LoraConfig(r=spec.rank, lora_alpha=spec.alpha, target_modules=list(spec.targets),
                      use_rslora=spec.rslora, lora_dropout=0.0, bias="none",
                      init_lora_weights=False, inference_mode=True)


def attach(model, key: str, spec: Spec, weights: dict[str, torch.Tensor]):
    """Add the adapter under ``key`` and copy its weights in; returns the (peft) model. Nothing
    here runs an initialisation or writes a base weight. On failure the model is as it was.
    At run time ``model`` is a ``clone`` of the running one, never the running one itself."""
    from peft import PeftModel
    from peft.utils import set_peft_model_state_dict

    wrapped = model if isinstance(model, PeftModel) else None
    if wrapped is None:
        wrapped = PeftModel(model, lora_config(spec), adapter_name=key)
    else:
        wrapped.add_adapter(key, lora_config(spec))
    try:
        result = set_peft_model_state_dict(wrapped, weights, adapter_name=key)
        if result.unexpected_keys:  # inspect() allows none; a second guard costs nothing
            raise AdapterInvalid(f"{spec.path.name}/{WEIGHTS} holds {result.unexpected_keys[0]}, "
                                 "which the adapter does not have.")
    except BaseException:
        if wrapped is model:
            wrapped.delete_adapter(key)
        else:
            wrapped.unload()
        raise
    return wrapped



def detach(model, key: str):
    """``model`` without the adapter ``key``: the plain model once it was the last one (peft
    keeps naming a deleted last adapter as active, and every forward fails). At run time
    ``model`` is a ``clone`` of the running one."""
    if set(model.peft_config) == {key}:
        return model.unload()
    model.delete_adapter(key)
    return model

def base_digest(model) -> dict[str, int]:
    """A cheap checksum of every base weight and buffer (LoRA layers left out), by name: equal
    before and after an adapter load or unload, or the load touched the shared model. The raw
    bits are summed as 64-bit words, wrapping around: any one changed value changes the sum, in
    any dtype, and a 135M-parameter model takes some 20 ms (as 32-bit words widened to 64,
    half a second)."""
    base = model.get_base_model() if hasattr(model, "get_base_model") else model
    out = {}
    for name, t in [*base.named_parameters(), *base.named_buffers()]:
        if ".lora_" in name:
            continue
        raw = t.detach().contiguous().view(-1).view(torch.uint8)
        try:
            total = raw.view(torch.int64).sum()
        except RuntimeError:  # a length or offset that is not a whole number of words
            total = raw.sum(dtype=torch.int64)
        out[name.replace(".base_layer", "")] = int(total)
    return out


def clone(model):
    """A copy of ``model``'s module tree that shares every parameter and buffer with it: each
    module is copied with its own containers (children, parameters, hooks, peft's per-adapter
    dicts), so attaching or removing an adapter on the copy leaves ``model`` as it was, at the
    cost of the tree's Python objects (about 15 ms for the default model with LoRA), not its
    weights. Take it where no forward runs (the worker, between steps): during an
    adapter-routed forward peft registers hooks on every LoRA layer and removes them after,
    so a copy taken then could fail or keep them."""
    memo: dict[int, torch.nn.Module] = {}

    def copy_module(module):
        new = memo.get(id(module))
        if new is not None:  # a module reachable twice stays one module
            return new
        cls = type(module)
        new = memo[id(module)] = cls.__new__(cls)
        state = dict(vars(module))
        for key, value in state.items():
            if key == "_modules":
                state[key] = {n: None if c is None else copy_module(c) for n, c in value.items()}
            elif type(value) in _PLAIN:
                state[key] = type(value)(value)
            elif isinstance(value, (dict, list, set)):
                state[key] = copy.copy(value)
        object.__setattr__(new, "__dict__", state)
        return new

    return copy_module(model)


_PLAIN = (dict, list, set, collections.OrderedDict)  # copied by their constructor: 5x faster


def _linear_layers(model) -> dict:
    """The model's linear layers by name (inside a LoRA wrapper, the layer it wraps; a
    quantized layer counts: adapters loaded at start wrap it)."""
    base = model.get_base_model() if hasattr(model, "get_base_model") else model
    out = {}
    for name, module in base.named_modules():
        if ".lora_" in name or name.endswith("base_layer"):
            continue
        layer = getattr(module, "base_layer", module)
        if isinstance(layer, (torch.nn.Linear, QuantLinear)):
            out[name] = layer
    return out


def _check_weights(path: Path, targeted: dict, rank: int) -> None:
    """Every tensor is a targeted linear layer's A or B, of the right shape and a float type."""
    from safetensors import safe_open

    try:
        with safe_open(str(path / WEIGHTS), framework="pt") as f:
            tensors = {key: (tuple(f.get_slice(key).get_shape()), f.get_slice(key).get_dtype())
                       for key in f.keys()}
    except Exception as exc:  # safetensors raises its own error types for a bad file
        raise AdapterInvalid(f"{path.name}/{WEIGHTS} cannot be read: {exc}") from None
    parts: dict[str, set[str]] = {}
    for key, (shape, dtype) in tensors.items():
        match = WEIGHT.fullmatch(key)
        layer = targeted.get(match["module"]) if match else None
        if layer is None:
            raise AdapterInvalid(f"{path.name}/{WEIGHTS} holds {key}, which is not the A or B "
                                 "matrix of a targeted linear layer of the loaded model (another "
                                 "base model, or weights that would replace the model's own).")
        if dtype not in DTYPES:
            raise AdapterInvalid(f"weight {key} is {dtype}; float32, float16 or bfloat16 only.")
        want = (rank, layer.in_features) if match["part"] == "A" else (layer.out_features, rank)
        if shape != want:
            raise AdapterInvalid(f"weight {key} has shape {list(shape)}, the loaded model needs "
                                 f"{list(want)} (rank {rank}): wrong rank, or another base model.")
        parts.setdefault(match["module"], set()).add(match["part"])
    if not parts:
        raise AdapterInvalid(f"{path.name}/{WEIGHTS} holds no LoRA weights.")
    half = sorted(m for m, p in parts.items() if p != {"A", "B"})
    if half:
        raise AdapterInvalid(f"{path.name}/{WEIGHTS}: {half[0]} has only one of its A and B "
                             "matrices.")
    # Every targeted layer needs its weights: one left out would keep a random initialisation.
    missing = sorted(set(targeted) - set(parts))
    if missing:
        raise AdapterInvalid(f"{path.name}/{WEIGHTS} has no weights for {missing[0]}"
                             f"{f' and {len(missing) - 1} more targeted layers' if len(missing) > 1 else ''}"
                             ": the config targets it (target_modules).")


class Registry:
    """The adapters clients may name now, and the keys the model holds."""

    def __init__(self):
        self._active: dict[str, Adapter] = {}
        self._versions: dict[str, int] = {}
        self._lock = threading.Lock()

    def add(self, adapter: Adapter, *, replace: bool = False) -> Adapter | None:
        """Make ``adapter`` the one its name means; return the one it replaced."""
        with self._lock:
            old = self._active.get(adapter.name)
            if old is not None and not replace:
                raise AdapterConflict(f"An adapter named {adapter.name!r} is loaded; send "
                                      '"replace": true to replace it.')
            self._active[adapter.name] = adapter
            return old

    def next_key(self, name: str) -> str:
        with self._lock:
            self._versions[name] = self._versions.get(name, 0) + 1
            return f"{name}#{self._versions[name]}"

    def remove(self, name: str) -> Adapter:
        with self._lock:
            if name not in self._active:
                raise AdapterNotFound(f"No adapter named {name!r} is loaded.")
            return self._active.pop(name)

    def get(self, name: str) -> Adapter | None:
        with self._lock:
            return self._active.get(name)

    def names(self) -> tuple[str, ...]:
        with self._lock:
            return tuple(self._active)

    def all(self) -> list[Adapter]:
        with self._lock:
            return list(self._active.values())
