"""The GPU script can only be run for real on a CUDA machine; here it must refuse, clearly."""

from __future__ import annotations

import subprocess

from tests.conftest import ROOT


def test_gpu_script_refuses_without_cuda():
    proc = subprocess.run([str(ROOT / "scripts" / "gpu-bench")], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    assert proc.returncode == 2
    assert "no CUDA device" in proc.stderr and "scripts/bench" in proc.stderr
