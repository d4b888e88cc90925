"""Build the native decode step for this machine: ``python -m api.engine.native [cache_dir]``.

``scripts/setup`` runs it at install, so no serving start compiles; ``cache_dir`` defaults to
the ``MNEMO_CACHE_DIR`` in effect (``~/.cache/mnemo``). Prints where the build lives; exits 1
where it cannot be built (the server then runs the Python step and says so).
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

from ...config import Settings
from . import build, build_dir

logging.basicConfig(level=logging.INFO, format="mnemo: %(message)s")
cache_dir = Path(sys.argv[1] if len(sys.argv) > 1
                 else os.environ.get("MNEMO_CACHE_DIR") or Settings().cache_dir)
module = build(cache_dir)
if module is not None:
    print(f"mnemo: the native decode step is built for this machine ({build_dir(cache_dir)})",
          file=sys.stderr)
    print(build_dir(cache_dir))  # for scripts/setup: where it lives
sys.exit(0 if module is not None else 1)
