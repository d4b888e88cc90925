"""WSGI entry point: ``gunicorn -c gunicorn.conf.py wsgi:app``."""

from api import create_app

app = create_app()
