"""Start and stop the servers the benchmark compares, all on loopback and on the same weights.

Mnemo runs as in production (gunicorn with gunicorn.conf.py); the peer is ``transformers
serve`` (HuggingFace's own OpenAI-compatible server), with and without continuous batching,
loading the same converted safetensors directory in fp32.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Server:
    name: str
    port: int
    model: str  # the name the OpenAI API expects in "model"
    cmd: list[str]
    env: dict = field(default_factory=dict)
    ready_path: str = "/readyz"
    cwd: Path = ROOT  # where it runs (a baseline commit's worktree, for bench.stalls)
    proc: subprocess.Popen | None = None
    log: BinaryIO | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, log_dir: Path) -> None:
        self.log = open(log_dir / f"{self.name.replace(' ', '_')}.log", "ab")
        self.proc = subprocess.Popen(self.cmd, cwd=self.cwd, env={**os.environ, **self.env},
                                     stdout=self.log, stderr=subprocess.STDOUT)

    def wait_ready(self, timeout: float = 600, poll: float = 0.5) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.proc.returncode}; see its log")
            try:
                with urllib.request.urlopen(self.base + self.ready_path, timeout=2) as resp:
                    if resp.status == 200:
                        return
            except OSError:
                time.sleep(poll)
        raise RuntimeError(f"{self.name} was not ready after {timeout} s")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        if self.log:
            self.log.close()


def mnemo(port: int, model_id: str, setting: str = "none") -> Server:
    """Mnemo under gunicorn with MNEMO_QUANTIZE=``setting``; ``setting:transformers`` runs
    transformers' forward instead of the lean one (MNEMO_EXECUTOR=transformers), ``setting:python``
    the lean forward without its native decode step (MNEMO_EXECUTOR=lean), ``setting:fp32attn``
    with float32 keys, values and attention (MNEMO_BF16_ATTENTION=0), ``setting:kernels``
    with torch's int kernels for prefills too (MNEMO_BF16_PREFILL=0), ``setting:speculative``
    with the int4 draft of speculative decoding (MNEMO_SPECULATIVE=int4), to compare."""
    quantize, _, forward = setting.partition(":")
    name = "mnemo" if quantize == "none" else f"mnemo {quantize}"
    env = {"MNEMO_BIND": f"127.0.0.1:{port}", "MNEMO_MAX_QUEUE": "64", "MNEMO_QUANTIZE": quantize}
    if forward == "transformers":
        name += ", transformers' forward"
        env["MNEMO_EXECUTOR"] = "transformers"
    elif forward == "python":
        name += ", Python decode step"
        env["MNEMO_EXECUTOR"] = "lean"
    elif forward == "fp32attn":
        name += ", float32 cache and attention"
        env["MNEMO_BF16_ATTENTION"] = "0"
    elif forward == "kernels":
        name += ", int kernels for every product"
        env["MNEMO_BF16_PREFILL"] = "0"
    elif forward == "speculative":
        name += ", speculative (int4 draft)"
        env["MNEMO_SPECULATIVE"] = "int4"
    elif forward:
        raise ValueError(f"unknown forward {forward!r} in {setting!r}")
    return Server(name, port, model_id,
                  [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "wsgi:app"], env=env)


def resident_mb(pid: int) -> float:
    """Resident memory of a process and all its descendants (gunicorn: master and worker)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
        except (OSError, IndexError, ValueError):
            continue
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        todo.extend(children.get(p, []))
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


def transformers_serve(port: int, model_dir: Path, continuous_batching: bool) -> Server:
    cmd = [str(Path(sys.executable).parent / "transformers"), "serve", str(model_dir),
           "--host", "127.0.0.1", "--port", str(port), "--dtype", "float32"]
    name = "transformers serve"
    if continuous_batching:
        cmd.append("--continuous-batching")
        name += " --continuous-batching"
    return Server(name, port, str(model_dir), cmd, env={"HF_HUB_OFFLINE": "1"},
                  ready_path="/v1/models")


@contextlib.contextmanager
def running(servers: list[Server], log_dir: Path, ref: str | None = None,
            baseline: Path | None = None) -> Iterator[None]:
    """Check out ``ref`` at ``baseline`` (a detached git worktree) if given, start ``servers``
    and wait until each is ready; stop them all and remove the worktree on the way out."""
    if ref is not None:
        subprocess.run(["git", "worktree", "add", "--detach", str(baseline), ref], cwd=ROOT,
                       check=True, capture_output=True)
    try:
        for s in servers:
            s.start(log_dir)
        for s in servers:
            s.wait_ready()
        yield
    finally:
        for s in servers:
            s.stop()
        if ref is not None:
            subprocess.run(["git", "worktree", "remove", "--force", str(baseline)], cwd=ROOT,
                           capture_output=True)

