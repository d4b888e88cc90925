"""The GPU script can only be run for real on a CUDA machine; without one it must refuse, clearly.
The GPU is hidden from it here, so on a CUDA machine (where the script itself runs this suite)
the test still checks the refusal instead of starting the script again."""

from __future__ import annotations

import os
import subprocess

from tests.conftest import ROOT


def test_gpu_script_refuses_without_cuda():
    proc = subprocess.run([str(ROOT / "scripts" / "gpu-bench")], capture_output=True, text=True,
                          timeout=120, cwd=ROOT, env={**os.environ, "CUDA_VISIBLE_DEVICES": ""})
    assert proc.returncode == 2
    assert "no CUDA device" in proc.stderr and "scripts/bench" in proc.stderr
