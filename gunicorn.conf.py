"""gunicorn settings for Mnemo: ``gunicorn -c gunicorn.conf.py wsgi:app``.

Each worker process loads its own copy of the model after the fork (no preload_app: CUDA cannot
be initialised before a fork; the master imports torch and transformers only, ``on_starting``),
so run one worker per model copy: one per GPU, or one on a CPU
host. Threads carry concurrent requests into that worker's batching engine; a streaming request
holds its thread for as long as it streams, so threads bound the concurrent streams.
Every value can be overridden with the MNEMO_GUNICORN_* variables below or on the command line.
"""

import os

# Before the master imports torch (on_starting) and its workers inherit it: OpenMP threads that
# sleep, not spin, while they wait (wsgi.py says why; OMP_WAIT_POLICY=ACTIVE spins).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

bind = os.environ.get("MNEMO_BIND", "127.0.0.1:8000")
workers = int(os.environ.get("MNEMO_WORKERS", "1"))
worker_class = "gthread"  # the sync worker would kill long streams at `timeout`
# Every request holds a thread while it waits or streams, and the engine admits at most
# MNEMO_MAX_BATCH_SIZE + MNEMO_MAX_QUEUE of them; past that it answers 429 at once. That answer,
# and the probes, need free threads: so threads default to that sum plus spare ones, and fewer
# than that plus 2 is refused (the 429 could never trigger: excess load would wait instead).
def _int_env(name: str, default: int) -> int:
    raw = os.environ.get(name, str(default))
    try:
        return int(raw)
    except ValueError:
        raise SystemExit(f"{name}: must be an integer, got {raw!r}") from None


_in_flight = _int_env("MNEMO_MAX_BATCH_SIZE", 16) + _int_env("MNEMO_MAX_QUEUE", 64)
threads = _int_env("MNEMO_THREADS", _in_flight + 16)


def _check_threads(count: int) -> None:
    if count < _in_flight + 2:
        raise SystemExit(f"{count} threads (MNEMO_THREADS or --threads) must be at least "
                         f"MNEMO_MAX_BATCH_SIZE + MNEMO_MAX_QUEUE + 2 = {_in_flight + 2}: with "
                         "fewer, excess requests wait for a thread instead of getting 429, and "
                         "probes can time out.")


_check_threads(threads)


def _check_admin(worker_count: int) -> None:
    # Each worker holds its own model: an adapter loaded through one worker's admin API would be
    # missing in the others, and clients would see it come and go between requests.
    if os.environ.get("MNEMO_ADMIN_KEYS") and worker_count > 1:
        raise SystemExit("MNEMO_ADMIN_KEYS (the admin API) needs a single worker "
                         f"(MNEMO_WORKERS=1), got {worker_count}: run-time adapters would "
                         "differ between workers.")


def on_starting(server):
    """The thread and worker counts as finally set (the command line counts too); then the
    master imports torch and transformers (no model, no CUDA, no thread of theirs left
    running), so a worker forked from it, a respawned one included, skips those seconds of
    imports and shares their memory with the others. Mnemo's own code is not imported here: a
    reload (SIGHUP) after a deploy starts workers on the new code; upgrading torch or
    transformers needs a full restart."""
    _check_threads(server.cfg.threads)
    _check_admin(server.cfg.workers)
    import gc

    gc.disable()  # as in wsgi.py: the imports make millions of objects that all stay
    try:
        import torch  # noqa: F401
        import transformers.modeling_utils  # noqa: F401  (what loading any model imports)
    finally:
        gc.enable()
    gc.freeze()  # children start with these objects out of the collector's way (no copy-on-write)


def when_ready(server):
    """The ready line's address is where gunicorn really listens (set before the workers fork):
    a -b on the command line, a port 0 the system chose, a unix socket."""
    sock = server.LISTENERS[0].sock
    address = sock.getsockname()
    os.environ["MNEMO_BIND"] = (f"unix:{address}" if isinstance(address, str)
                                else f"{address[0]}:{address[1]}" if sock.family == 2
                                else f"[{address[0]}]:{address[1]}")


# gthread workers heartbeat from their main thread, so `timeout` only catches a hung worker;
# generations themselves are capped by MNEMO_GENERATION_TIMEOUT.
timeout = int(os.environ.get("MNEMO_WORKER_TIMEOUT", "120"))
# On SIGTERM in-flight answers get this long to finish; meanwhile new requests get a JSON 503.
# By default that is the longest generation the server allows (MNEMO_GENERATION_TIMEOUT) + 5 s.
graceful_timeout = int(os.environ.get(
    "MNEMO_GRACEFUL_TIMEOUT", int(float(os.environ.get("MNEMO_GENERATION_TIMEOUT", "300"))) + 5))
keepalive = 5
limit_request_line = 8190
limit_request_fields = 100
limit_request_field_size = 8190
accesslog = None  # Mnemo writes its own structured access log without message content
# gunicorn's control socket (gunicornc, gunicorn 25.1 and later) is off: its default path is
# one per user, so a second Mnemo on the host took it over and removed it on exit, and its
# "worker add" would start workers that each load the model (and break the admin API's
# one-worker rule).
control_socket_disable = True
errorlog = "-"
loglevel = "info"


def worker_exit(server, worker):
    """Whatever ends the worker, its generation thread stops first (no SIGABRT at exit)."""
    from api.lifecycle import stop_engine

    stop_engine(worker)


def post_worker_init(worker):
    """SIGTERM drains: the worker keeps accepting so new requests get a JSON 503 (not a refused
    connection) while in-flight answers finish, then it exits (api/lifecycle.py). And what
    gunicorn itself refuses answers in Mnemo's JSON shape, not gunicorn's HTML page."""
    from gunicorn import util

    from api.lifecycle import drain_on_sigterm

    drain_on_sigterm(worker)
    util.write_error = write_json_error


# The machine codes of the errors gunicorn answers before the app sees a request (a request line
# or headers past the limits above, a malformed request line, header or chunk, an unsupported
# transfer coding, ...), as deploy/nginx-mnemo.conf names nginx's own.
_GUNICORN_CODES = {400: "bad_request", 403: "forbidden", 414: "uri_too_long",
                   417: "expectation_failed", 431: "headers_too_large", 500: "internal_error",
                   501: "not_implemented"}


def write_json_error(sock, status_int, reason, mesg):
    """gunicorn's ``util.write_error`` with a JSON body: ``{"error": {"code", "message",
    "status"}}``, the native shape. gunicorn's detail often quotes the request itself, so it is
    cut to 200 characters."""
    import contextlib
    import json
    from http import HTTPStatus

    from gunicorn import util

    # gunicorn passes "Bad Request" with its 501 and 500 too: the status's own phrase instead
    with contextlib.suppress(ValueError):
        reason = HTTPStatus(status_int).phrase
    detail = f"{reason}: {mesg}" if mesg else reason
    body = json.dumps({"error": {"code": _GUNICORN_CODES.get(status_int, "bad_request"),
                                 "message": detail[:200], "status": status_int}}) + "\n"
    head = (f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n")
    util.write_nonblock(sock, (head + body).encode("ascii", "replace"))
