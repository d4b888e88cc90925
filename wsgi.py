"""WSGI entry point: ``gunicorn -c gunicorn.conf.py wsgi:app``."""

import gc

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
