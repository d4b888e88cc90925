"""llama.cpp as a benchmark peer: llama-cpp-python's OpenAI-compatible server, on the very GGUF
file Mnemo ships (SmolLM2-135M-Instruct, Q4_1), with as many threads as the machine has CPUs.

llama-cpp-python has no binary wheel for this platform on PyPI, so the first run builds it from
source (about 13 minutes on 2 cores) into ``~/.cache/mnemo/llama-cpp/wheels`` and installs it,
with the pinned server dependencies (bench/llama-cpp-requirements.txt), into a virtual
environment of its own beside it; later runs reuse both. Only the benchmark uses it; CI never
does.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from bench.servers import ROOT, Server

VERSION = "0.3.36"
HOME = Path.home() / ".cache" / "mnemo" / "llama-cpp"


def ensure() -> Path:
    """The peer's Python, built and installed on first use."""
    venv = HOME / f"venv-{VERSION}"
    python = venv / "bin" / "python"
    if python.exists() and subprocess.run([str(python), "-c", "import llama_cpp.server"],
                                          capture_output=True).returncode == 0:
        return python
    wheels = HOME / "wheels"
    wheel = next(wheels.glob(f"llama_cpp_python-{VERSION}-*.whl"), None)
    if wheel is None:
        print(f"building llama-cpp-python {VERSION} once (about 13 minutes on 2 cores)...",
              flush=True)
        subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels),
                        f"llama-cpp-python=={VERSION}"], check=True)
        wheel = next(wheels.glob(f"llama_cpp_python-{VERSION}-*.whl"))
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                    "-r", str(ROOT / "bench" / "llama-cpp-requirements.txt"), str(wheel)], check=True)
    return python


def llama_cpp_server(port: int, gguf: Path) -> Server:
    python = ensure()
    return Server("llama.cpp", port, "smollm2",
                  [str(python), "-m", "llama_cpp.server", "--model", str(gguf), "--model_alias",
                   "smollm2", "--host", "127.0.0.1", "--port", str(port), "--n_threads",
                   str(os.cpu_count()), "--n_ctx", "8192"],
                  ready_path="/v1/models")
