"""WSGI entry point: ``gunicorn -c gunicorn.conf.py wsgi:app``."""

import gc
import os

# torch's OpenMP threads sleep while they wait instead of spinning (unless the environment says
# otherwise): a spinning thread that shares its core with any other busy process stalls the
# step it waits in. One user on 2 cores here: 70 instead of 80 tok/s idle, 44 instead of 27
# with one other busy process (docs/performance.md). Set before torch is imported.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

# The cyclic garbage collector stays off from here, through the imports of torch, transformers
# and Mnemo, until the engine has loaded the model; the engine then freezes what the start made
# and turns it back on (``Engine._start`` says why).
gc.disable()
try:
    from api import create_app

    app = create_app(freeze_start=True)
except BaseException:  # no app, no engine to turn it back on
    gc.enable()
    raise
