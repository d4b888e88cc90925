"""Does loading or unloading an adapter stall the replies already streaming?

    .venv/bin/python -m bench.adapter_stall [--runs 5]

Mnemo under gunicorn with the default model and the admin API on (``adapters/`` as the adapter
directory). A greedy stream runs; while it does, the shipped ``legal-demo`` adapter is loaded
through ``POST /admin/adapters`` and then unloaded. Printed per run: the stream's median gap
between two deltas (one engine step), its longest gap while the admin call ran, and the call's
own time. The issue's bar: no longer than one engine step, beyond the noise of the median gap.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from bench.servers import ROOT, Server, mnemo, running

ADMIN = "bench-admin-key-0123456789"


def call(s: Server, method: str, path: str, body: dict | None = None) -> float:
    req = urllib.request.Request(s.base + path, json.dumps(body).encode() if body else None,
                                 {"Content-Type": "application/json",
                                  "Authorization": f"Bearer {ADMIN}"}, method=method)
    started = time.monotonic()
    with urllib.request.urlopen(req, timeout=300) as resp:
        resp.read()
    return time.monotonic() - started


def during_stream(s: Server, action) -> tuple[float, float, float]:
    """(median gap, longest gap while ``action`` ran, action's seconds) of one stream."""
    arrivals: list[float] = []
    window: dict[str, float] = {}
    body = {"messages": [{"role": "user", "content": "Tell me a long story about a harbour."}],
            "max_new_tokens": 400, "stream": True, "recall": False, "compact": False}
    req = urllib.request.Request(s.base + "/api/chat", json.dumps(body).encode(),
                                 {"Content-Type": "application/json"})

    def act():
        while len(arrivals) < 30:
            time.sleep(0.01)
        window["start"] = time.monotonic()
        window["took"] = action()
        window["end"] = time.monotonic()

    helper = threading.Thread(target=act)
    helper.start()
    with urllib.request.urlopen(req, timeout=600) as resp:
        for line in resp:
            if line.startswith(b"event: delta"):
                arrivals.append(time.monotonic())
    helper.join()
    gaps = [b - a for a, b in zip(arrivals, arrivals[1:], strict=False)]
    during = [b - a for a, b in zip(arrivals, arrivals[1:], strict=False)
              if b >= window["start"] and a <= window["end"]]
    return statistics.median(gaps), max(during or [0.0]), window["took"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--port", type=int, default=8160)
    args = parser.parse_args()
    s = mnemo(args.port, "SmolLM2-135M-Instruct")
    s.env.update(MNEMO_ADMIN_KEYS=ADMIN, MNEMO_ADAPTER_DIR=str(ROOT / "adapters"),
                 MNEMO_ADAPTERS="")
    logs = Path(tempfile.mkdtemp(prefix="mnemo-adapter-stall-"))
    print(f"{time.strftime('%Y-%m-%d')}; logs: {logs}\n")
    print("| run | action | median gap (ms) | longest gap during it (ms) | the call (ms) |")
    print("|---|---|---|---|---|")
    with running([s], logs):
        for run in range(1, args.runs + 1):
            for name, action in (
                    ("load", lambda: call(s, "POST", "/admin/adapters",
                                          {"name": "demo", "path": "legal-demo"})),
                    ("unload", lambda: call(s, "DELETE", "/admin/adapters/demo"))):
                median, longest, took = during_stream(s, action)
                print(f"| {run} | {name} | {median * 1000:.1f} | {longest * 1000:.1f} | "
                      f"{took * 1000:.0f} |", flush=True)


if __name__ == "__main__":
    main()
