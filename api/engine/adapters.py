"""LoRA adapters: those named at start and those an operator loads or unloads at run time.

Clients name an adapter (``adapter`` natively, ``model`` on /v1); the model knows it by a
versioned key (``name#2``), which is also what the prefix cache keys KV by, so an adapter loaded
again under the same name never meets the old one's KV. Loading checks everything it can before
the model is touched:
- the path is resolved and must stay inside ``MNEMO_ADAPTER_DIR`` (``..``, absolute paths
  elsewhere and symlinks that leave it are refused), and so must each file it reads;
- only ``adapter_model.safetensors`` weights (a pickle can run code when loaded);
- a LoRA config whose target modules exist in the loaded model, whose rank is the weights' rank,
  and whose every weight fits the layer it adapts (a different base model fails here).
The model itself changes only in the worker thread, between steps (``Scheduler.call``); a load
that fails there is undone, so the server is as it was. An unloaded adapter's name is refused
at once; its weights leave the model when the requests already using it have finished.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from pathlib import Path

from ..exceptions import AdapterConflict, AdapterInvalid, AdapterNotFound

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
    """``root / relative``, resolved; refused unless it and its files stay inside ``root``."""
    base = root.resolve()
    path = Path(relative)
    if not relative or "\x00" in relative:
        raise AdapterInvalid("path must be a directory name inside the adapter directory.",
                             param="path")
    target = (base / path).resolve()
    if target != base and base not in target.parents:
        raise AdapterInvalid(f"path {relative!r} leaves the adapter directory.", param="path")
    if not target.is_dir():
        raise AdapterInvalid(f"path {relative!r} is not an adapter directory.", param="path")
    for name in (CONFIG, WEIGHTS):
        f = target / name
        if f.is_symlink() and base not in f.resolve().parents:
            raise AdapterInvalid(f"{name} links outside the adapter directory.", param="path")
    return target


def inspect(path: Path, model) -> tuple[int, tuple[str, ...]]:
    """Check an adapter directory against the loaded model; return (rank, target modules)."""
    if not (path / WEIGHTS).is_file():
        raise AdapterInvalid(f"{path.name} has no {WEIGHTS} (only safetensors weights are loaded).",
                             param="path")
    try:
        config = json.loads((path / CONFIG).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise AdapterInvalid(f"{path.name}/{CONFIG} cannot be read: {exc}", param="path") from None
    if not isinstance(config, dict) or config.get("peft_type") != "LORA":
        raise AdapterInvalid(f"{path.name} is not a LoRA adapter (peft_type must be LORA).")
    rank = config.get("r")
    targets = config.get("target_modules")
    if isinstance(targets, str):
        targets = [targets]
    if not isinstance(rank, int) or rank < 1 or not isinstance(targets, list) or not targets:
        raise AdapterInvalid(f"{path.name}/{CONFIG} needs a rank r and target_modules.")
    modules = dict(_base(model).named_modules())
    suffixes = {name.rsplit(".", 1)[-1] for name in modules}
    missing = sorted(t for t in targets if t not in suffixes)
    if missing:
        raise AdapterInvalid(f"target modules {missing} do not exist in the loaded model.")
    _check_weights(path, modules, rank)
    return rank, tuple(sorted(targets))


def _base(model):
    """The transformers model under a PeftModel (or the model itself)."""
    return model.get_base_model() if hasattr(model, "get_base_model") else model


def _check_weights(path: Path, modules: dict, rank: int) -> None:
    from safetensors import safe_open

    try:
        with safe_open(str(path / WEIGHTS), framework="pt") as f:
            shapes = {key: tuple(f.get_slice(key).get_shape()) for key in f.keys()}
    except Exception as exc:  # safetensors raises its own error types for a bad file
        raise AdapterInvalid(f"{path.name}/{WEIGHTS} cannot be read: {exc}") from None
    if not shapes:
        raise AdapterInvalid(f"{path.name}/{WEIGHTS} holds no weights.")
    for key, shape in shapes.items():
        module_name = key.removeprefix("base_model.model.")
        for part in (".lora_A.weight", ".lora_B.weight"):
            if module_name.endswith(part):
                module_name = module_name[:-len(part)]
                break
        else:
            continue
        layer = modules.get(module_name) or modules.get(f"model.{module_name}")
        if layer is None or not hasattr(layer, "in_features"):
            raise AdapterInvalid(f"weight {key} adapts {module_name}, which the loaded model does "
                                 "not have: was it trained for another base model?")
        want = ((rank, layer.in_features) if key.endswith("lora_A.weight")
                else (layer.out_features, rank))
        if shape != want:
            raise AdapterInvalid(f"weight {key} has shape {list(shape)}, the loaded model needs "
                                 f"{list(want)} (rank {rank}): wrong rank, or another base model.")


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
                                      '"replace": true to replace it.', param="name")
            self._active[adapter.name] = adapter
            return old

    def next_key(self, name: str) -> str:
        with self._lock:
            self._versions[name] = self._versions.get(name, 0) + 1
            return f"{name}#{self._versions[name]}"

    def remove(self, name: str) -> Adapter:
        with self._lock:
            if name not in self._active:
                raise AdapterNotFound(f"No adapter named {name!r} is loaded.", param="name")
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
