"""WSGI entry point: ``gunicorn -c gunicorn.conf.py wsgi:app``."""

import gc

# The cyclic garbage collector stays off from here, through the imports of torch, transformers
# and Mnemo, until the engine has loaded the model; the engine then freezes what the start made
# and turns it back on (``Engine._start`` says why).
gc.disable()

from api import create_app  # noqa: E402

app = create_app()
