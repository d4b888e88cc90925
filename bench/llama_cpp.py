"""llama.cpp as a benchmark peer: llama-cpp-python's OpenAI-compatible server, on the very GGUF
file Mnemo ships (SmolLM2-135M-Instruct, Q4_1), with as many threads as the machine has CPUs.

llama-cpp-python has no binary wheel for this platform on PyPI, so the first run builds it from
source (about 13 minutes on 2 cores) into ``~/.cache/mnemo/llama-cpp/wheels-<build>`` and installs it,
with the pinned server dependencies (bench/llama-cpp-requirements.txt), into a virtual
environment of its own beside it; later runs reuse both. Only the benchmark uses it; CI never
does.

On x86 it is built without ggml's AMX matrix path (``BUILD_FLAGS``): built natively on a CPU
with AMX (an Intel Xeon of the Sapphire Rapids kind, 2026-12-03), every prompt crashed the server
with a segmentation fault in ``ggml_backend_amx_mul_mat``, so it could not be measured at all.
Without it, ggml runs its AVX-512 VNNI kernels, as on any CPU without AMX. ``BUILD`` names the
wheel and the environment, so a wheel built with the AMX path is never reused.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path

from bench.servers import ROOT, Server

VERSION = "0.3.36"
HOME = Path.home() / ".cache" / "mnemo" / "llama-cpp"
X86 = platform.machine() in ("x86_64", "AMD64")
# -mno-* flags hold against the -march=native that ggml adds after them (GCC keeps explicit ones)
BUILD_FLAGS = "-mno-amx-tile -mno-amx-int8 -mno-amx-bf16" if X86 else ""
BUILD = "no-amx" if X86 else "native"


def ensure() -> Path:
    """The peer's Python, built and installed on first use."""
    venv = HOME / f"venv-{VERSION}-{BUILD}"
    python = venv / "bin" / "python"
    if python.exists() and subprocess.run([str(python), "-c", "import llama_cpp.server"],
                                          capture_output=True).returncode == 0:
        return python
    wheels = HOME / f"wheels-{BUILD}"
    wheel = next(wheels.glob(f"llama_cpp_python-{VERSION}-*.whl"), None)
    if wheel is None:
        print(f"building llama-cpp-python {VERSION} ({BUILD}) once (about 13 minutes on 2 cores)...",
              flush=True)
        flags = f"-DCMAKE_C_FLAGS='{BUILD_FLAGS}' -DCMAKE_CXX_FLAGS='{BUILD_FLAGS}'" if BUILD_FLAGS else ""
        cmake_args = f"{os.environ.get('CMAKE_ARGS', '')} {flags}".strip()
        subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-cache-dir", "-q",
                        "-w", str(wheels), f"llama-cpp-python=={VERSION}"], check=True,
                       env={**os.environ, "CMAKE_ARGS": cmake_args})
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


def ensure_server() -> Path:
    """llama.cpp's own ``llama-server`` binary, from the same sdist's vendored llama.cpp (the
    remote-engine check talks to it as users deploy it), built once on first use (about 12
    minutes on 2 cores, the AMX path off as above)."""
    src = HOME / "src" / f"llama_cpp_python-{VERSION}"
    tree = src / "vendor" / "llama.cpp"
    binary = tree / f"build-{BUILD}" / "bin" / "llama-server"
    if binary.exists():
        return binary
    if not tree.is_dir():
        (HOME / "src").mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary",
                        ":all:", "-q", "-d", str(HOME / "src"), f"llama-cpp-python=={VERSION}"],
                       check=True)
        subprocess.run(["tar", "xzf", f"llama_cpp_python-{VERSION}.tar.gz"], cwd=HOME / "src",
                       check=True)
    print(f"building llama-server {VERSION} ({BUILD}) once (about 12 minutes on 2 cores)...",
          flush=True)
    flags = [f"-DCMAKE_C_FLAGS={BUILD_FLAGS}", f"-DCMAKE_CXX_FLAGS={BUILD_FLAGS}"] if BUILD_FLAGS \
        else []
    subprocess.run(["cmake", "-B", f"build-{BUILD}", "-DCMAKE_BUILD_TYPE=Release",
                    "-DLLAMA_BUILD_TESTS=OFF", "-DLLAMA_BUILD_EXAMPLES=OFF", "-DLLAMA_BUILD_APP=OFF",
                    "-DLLAMA_BUILD_UI=OFF", "-DLLAMA_USE_PREBUILT_UI=OFF", "-DLLAMA_CURL=OFF",
                    "-DLLAMA_OPENSSL=OFF", *flags], cwd=tree, check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", f"build-{BUILD}", "--target", "llama-server", "-j",
                    str(os.cpu_count())], cwd=tree, check=True, stdout=subprocess.DEVNULL)
    return binary


def llama_server(port: int, gguf: Path, alias: str, slots: int = 8) -> Server:
    """``llama-server`` on ``gguf``: ``slots`` requests decode at once, 1,024 tokens each."""
    return Server("llama-server", port, alias,
                  [str(ensure_server()), "-m", str(gguf), "--alias", alias, "--host", "127.0.0.1",
                   "--port", str(port), "-t", str(os.cpu_count()), "-c", str(1024 * slots),
                   "--parallel", str(slots), "--no-webui"],
                  ready_path="/health")

