"""The native decode step: one decode step at one row of an int8/int4 model, in C++.

At one row a decode step of the 135M model is about 120 quantized matrix products and some
600 small tensor operations around them (norms, rotary embedding, casts, cache writes,
attention over the cached positions); from Python, each small operation costs more in
dispatch than in arithmetic. ``decode.cpp`` runs the decoder layers of such a step in C++:
the matrix products are still torch's own int4/int8 kernels, what lies between them is loops
over a few hundred floats. The lean forward (``lean``) calls it for every forward of one row
and one new token whose projections are quantized, and keeps its own Python for the rest
(prefill, batches of several rows, float32 layers). tests/test_native.py holds the two to the
same logits and greedy tokens.

The module is compiled at install, not at serve time: ``scripts/setup`` runs ``python -m
api.engine.native`` (``build``: about 30 s, with the C++ compiler torch's extensions use) into
``MNEMO_CACHE_DIR``, named after its source, torch's version and the CPU (it is built for the
CPU it runs on). A serving start only loads it (``load``); where it was not built (no
compiler, another CPU, a cache emptied since), the start says so in one line and the Python
lean forward serves.
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import os
import platform
import shlex
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import torch

from ..quantize import GROUP, QuantLinear
from ..store import staging

log = logging.getLogger("mnemo.native")

SOURCE = Path(__file__).with_name("decode.cpp")
# -ffast-math lets the compiler vectorise the attention's dot products and exponentials
# (summing in another order); the loops never see infinities or NaNs of their own making.
FLAGS = ("-O3", "-march=native", "-ffast-math")
# at::parallel_for splits its loops over torch's threads only where the extension is compiled
# with OpenMP, as torch is (``ATen/ParallelOpenMP.h`` is a header): without it every loop ran
# on one core. The module then shares torch's OpenMP runtime (libgomp.so.1, loaded already).
if torch.backends.openmp.is_available():
    FLAGS += ("-fopenmp",)

_loaded: dict[str, ModuleType] = {}


def _cpu() -> str:
    """What the build depends on in this CPU (-march=native): its model and flags."""
    try:
        info = Path("/proc/cpuinfo").read_text()
    except OSError:
        return platform.processor()
    keys = ("model name", "flags", "Features", "CPU implementer", "CPU part")  # x86, ARM
    lines = [line for line in info.splitlines() if line.startswith(keys)]
    return "\n".join(sorted(set(lines))) or platform.processor()


def _name() -> str:
    """The module's name: this source, built by this torch and Python for this CPU."""
    digest = hashlib.sha256()
    for part in (SOURCE.read_bytes(), torch.__version__.encode(), " ".join(FLAGS).encode(),
                 sys.version.encode(), _cpu().encode()):
        digest.update(part)
        digest.update(b"\0")
    return f"mnemo_decode_{digest.hexdigest()[:16]}"


def build_dir(cache_dir: Path, name: str | None = None) -> Path:
    """Where the module (named ``name``, by default this one's) lives in the cache."""
    return cache_dir / f"native-{(name or _name()).rsplit('_', 1)[1]}"


def load(cache_dir: Path) -> ModuleType | None:
    """The module built into ``cache_dir`` (by ``build``), loaded; never compiled here, in a
    serving start. None, said in one line, when it is not built for this machine."""
    name = _name()
    if name in _loaded:  # loaded already (from this or another cache directory)
        return _loaded[name]
    library = build_dir(cache_dir, name) / f"{name}.so"
    if not _whole(library):
        damaged = "damaged" if library.parent.exists() else "not built"
        log.warning("the native decode step is %s for this machine and torch (scripts/setup "
                    "builds it, or: python -m api.engine.native %s); one-row int8/int4 decode "
                    "steps run in Python, about 0.6x the speed (docs/engine.md)", damaged,
                    shlex.quote(str(cache_dir)))
        return None
    module = _import(name, library)
    if module is not None:
        log.debug("one-row decode steps run natively (%s)", library)  # the ready line says so
    return module


def build(cache_dir: Path) -> ModuleType | None:
    """Build the module into ``cache_dir`` unless it is built there already (a damaged build is
    built again), and load it. None, logged, when it cannot be built or loaded here."""
    name = _name()
    target = build_dir(cache_dir, name)
    if not _whole(target / f"{name}.so"):
        if target.exists():
            log.warning("the native decode step in %s is damaged; building it again", target)
        try:
            _build(name, cache_dir, target)
        except Exception as exc:  # no compiler, a compile error: the Python step serves
            log.warning("the native decode step could not be built (%s); the Python lean "
                        "forward runs every step", str(exc).strip() or type(exc).__name__)
            return None
    return _loaded.get(name) or _import(name, target / f"{name}.so")


def _import(name: str, library: Path) -> ModuleType | None:
    try:
        spec = importlib.util.spec_from_file_location(name, library)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except Exception as exc:  # e.g. a library built against another torch's symbols
        log.warning("the native decode step could not be loaded (%s); the Python lean forward "
                    "runs every step", str(exc).strip() or type(exc).__name__)
        return None
    _loaded[name] = module
    return module


def _digest(library: Path) -> str:
    return hashlib.sha256(library.read_bytes()).hexdigest()


def _whole(library: Path) -> bool:
    """Whether ``library`` is the file its build wrote: loading a truncated shared library
    kills the process (SIGBUS), so its digest, written once the build finished, is checked
    first."""
    marker = library.with_suffix(".sha256")
    try:
        return library.is_file() and marker.read_text().strip() == _digest(library)
    except OSError:
        return False


# The build runs in a process of its own, so that a compiler that hangs cannot hold the start
# forever (it is stopped, with everything it started, after this long) and the server never
# imports setuptools.
BUILD_TIMEOUT = 300.0
_BUILD = """
import sys
from torch.utils import cpp_extension
name, source, out, *flags = sys.argv[1:]
cpp_extension.load(name=name, sources=[source], extra_cflags=flags, build_directory=out,
                   extra_ldflags=[f for f in flags if f == "-fopenmp"])
"""


def _build(name: str, cache_dir: Path, target: Path) -> None:
    """Compile beside ``target`` and rename into place: several workers may build at once."""
    log.info("building the native decode step into %s (once, about 30 s)", target)
    # the ninja that pip installed sits beside this interpreter, which may not be on PATH
    env = {**os.environ, "PATH": os.pathsep.join([os.path.dirname(sys.executable),
                                                  os.environ.get("PATH", "")])}
    with staging(cache_dir, ".native-") as tmp:
        child = subprocess.Popen([sys.executable, "-c", _BUILD, name, str(SOURCE), str(tmp), *FLAGS],
                                 env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 start_new_session=True, text=True, errors="replace")
        try:
            output, _ = child.communicate(timeout=BUILD_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            child.communicate()
            raise RuntimeError(f"the build took more than {BUILD_TIMEOUT:.0f} s and was stopped") from None
        library = tmp / f"{name}.so"
        if child.returncode != 0 or not library.is_file():
            errors = [line for line in output.splitlines() if "error" in line.lower()]
            raise RuntimeError((errors or output.splitlines() or ["no output"])[0].strip()[:300])
        _write_synced(library.with_suffix(".sha256"), _digest(library))
        with open(library, "rb") as f:
            os.fsync(f.fileno())
        os.chmod(tmp, 0o755)  # a staging directory is private; the server may run as another user
        try:
            os.rename(tmp, target)
        except OSError:  # another process won the race (its build is as good as ours)...
            if not _whole(target / library.name):  # ...or a damaged leftover is in the way
                shutil.rmtree(target, ignore_errors=True)
                os.rename(tmp, target)


def _write_synced(path: Path, text: str) -> None:
    with open(path, "w") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())


def unsupported(layers) -> str | None:
    """Why the native step cannot run these lean-forward layers (None: it can)."""
    for layer in layers:
        for proj in (layer.qkv, layer.o, layer.gate_up, layer.down):
            if len(proj.parts) != 1 or not isinstance(proj.parts[0], QuantLinear):
                return "its layers are not quantized (int8/int4) and joined"
            if proj.parts[0].bias is not None:
                return "its layers have biases"
    first = layers[0]
    shape = (first.heads, first.kv_heads, first.head_dim, first.intermediate, first.scaling)
    for layer in layers:  # decode.cpp takes one shape and one epsilon for every norm
        if (layer.heads, layer.kv_heads, layer.head_dim, layer.intermediate,
                layer.scaling) != shape or not layer.eps1 == layer.eps2 == first.eps1:
            return "its layers differ in shape or normalisation"
    return None


class NativeDecode:
    """The native step over a lean forward's layers (``lean._Layer``s that ``unsupported``
    accepts): the weights are gathered once, in the order decode.cpp reads them. With an
    int8 output layer (``head``, a ``lean._Proj``), the step's logits are native too."""

    def __init__(self, module: ModuleType, layers, head=None, norm=None, eps: float = 0.0):
        self.module = module
        out = head.parts[0] if head is not None and len(head.parts) == 1 else None
        self.head = None
        if isinstance(out, QuantLinear) and out.mode == "int8" and out.bias is None:
            self.head = (norm.detach().contiguous(), float(eps), out.qweight, out.scales)
        self.norms, self.qweights, self.scales, self.groups = [], [], [], []
        for layer in layers:
            self.norms += [layer.norm1.detach().contiguous(), layer.norm2.detach().contiguous()]
            for proj in (layer.qkv, layer.o, layer.gate_up, layer.down):
                q = proj.parts[0]
                self.qweights.append(q.qweight)
                self.scales.append(q.scales)
                self.groups.append(0 if q.mode == "int8" else GROUP)
        first = layers[0]
        self.shape = (first.heads, first.kv_heads, first.head_dim, first.intermediate,
                      float(first.eps1), float(first.scaling))

    def layers(self, h: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, cache,
               past: int) -> torch.Tensor:
        """The residual stream after every layer, for one row's one new token ``h`` [1,
        hidden] at position ``past``; its keys and values are written into ``cache``."""
        keys, values = [], []
        for layer in cache.layers:
            layer.make_room(1)
            k, v = layer.buffers()
            keys.append(k)
            values.append(v)
        out = self.module.decode_layers(h.contiguous(), cos.reshape(-1), sin.reshape(-1),
                                        self.norms, self.qweights, self.scales, self.groups,
                                        keys, values, past, *self.shape)
        for layer in cache.layers:
            layer.advance(1)
        return out

    def logits(self, h: torch.Tensor) -> torch.Tensor:
        """[1, vocab] float32 logits of the residual stream ``h`` [1, hidden] (``self.head``)."""
        return self.module.logits_int8(h, *self.head)
