"""Does a request's own CPU work slow the replies already streaming? Side by side with a baseline.

    .venv/bin/python -m bench.cpu_work [--runs 3] [--baseline HEAD~1] [--previews 2]

Both run under gunicorn with the default model. A greedy stream of 300 tokens is timed alone,
then again while ``--previews`` clients keep asking ``/api/chat/preview`` for 600-message
histories with recall (every history new, so no cache helps: tokenizing, BM25 and recall's
embeddings each time). The figure is the stream's decode rate (tokens/s after its 10th token)
alone divided by the rate under that load: 1.0 is untouched; the target is at most 1.3.
Medians of --runs, the two servers interleaved.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

from bench.servers import ROOT, running
from bench.stalls import WORDS, server

med = statistics.median


def post(url: str, body: dict, timeout: float = 900):
    req = urllib.request.Request(url, json.dumps(body).encode(),
                                 {"Content-Type": "application/json"})
    return urllib.request.urlopen(req, timeout=timeout)


def stream_rate(base: str) -> float:
    """Tokens per second of one greedy stream, from its 10th delta to its last."""
    body = {"messages": [{"role": "user", "content": "Tell me a long story about a lighthouse."}],
            "max_new_tokens": 300, "stream": True, "recall": False, "compact": False}
    arrivals = []
    with post(base + "/api/chat", body) as resp:
        for line in resp:
            if line.startswith(b"event: delta"):
                arrivals.append(time.monotonic())
    return (len(arrivals) - 10) / (arrivals[-1] - arrivals[9])


def history(seed: int, n: int = 600) -> list[dict]:
    rng = random.Random(seed)
    out = []
    for i in range(n // 2):
        out.append({"role": "user", "content": f"Note {seed}-{i}: " + " ".join(
            rng.choice(WORDS) for _ in range(30))})
        out.append({"role": "assistant", "content": "Noted: " + " ".join(
            rng.choice(WORDS) for _ in range(20))})
    return out + [{"role": "user", "content": "What did I note about the copper lantern?"}]


def previews(base: str, stop: threading.Event, seed: int, done: list[float]) -> None:
    while not stop.is_set():
        seed += 1000
        started = time.monotonic()
        try:
            with post(base + "/api/chat/preview", {"messages": history(seed), "max_turns": 1000,
                                                   "max_new_tokens": 64}) as resp:
                resp.read()
            done.append(time.monotonic() - started)
        except urllib.error.HTTPError as err:  # a 429 when the gate's queue is full
            err.read()
            time.sleep(0.2)


def loaded_rate(base: str, clients: int, seed: int) -> tuple[float, float]:
    stop, done = threading.Event(), []
    threads = [threading.Thread(target=previews, args=(base, stop, seed + c, done))
               for c in range(clients)]
    for t in threads:
        t.start()
    time.sleep(1.0)  # the previews are under way
    rate = stream_rate(base)
    stop.set()
    for t in threads:
        t.join()
    return rate, med(done) if done else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--port", type=int, default=8150)
    parser.add_argument("--baseline", default="HEAD~1", help="git ref to compare")
    parser.add_argument("--previews", type=int, default=2, help="concurrent preview clients")
    args = parser.parse_args()
    logs = Path(tempfile.mkdtemp(prefix="mnemo-cpu-work-"))
    old = logs / "baseline"
    servers = [server("this checkout", args.port, ROOT),
               server(f"baseline {args.baseline}", args.port + 1, old)]
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs; {time.strftime('%Y-%m-%d')}; "
          f"runs: {args.runs}; preview clients: {args.previews}; logs: {logs}\n")
    with running(servers, logs, args.baseline, old):
        for s in servers:
            stream_rate(s.base)  # warm
        got = {s.name: [] for s in servers}
        for run in range(args.runs):
            for s in servers:
                alone = stream_rate(s.base)
                loaded, preview_s = loaded_rate(s.base, args.previews, seed=run * 10)
                got[s.name].append((alone, loaded, preview_s))
                print(f"run {run + 1} | {s.name} | alone {alone:.1f} tok/s | beside previews "
                      f"{loaded:.1f} tok/s | slowdown {alone / loaded:.2f}x | preview "
                      f"{preview_s:.1f} s", flush=True)
        print("\n| server | stream alone (tok/s) | beside previews (tok/s) | slowdown "
              "(median, each run) | one preview (s) |\n|---|---|---|---|---|")
        for s in servers:
            rows = got[s.name]
            ratios = [a / b for a, b, _ in rows]
            print(f"| {s.name} | {med(a for a, _, _ in rows):.1f} | "
                  f"{med(b for _, b, _ in rows):.1f} | {med(ratios):.2f}x ("
                  + ", ".join(f"{r:.2f}" for r in ratios)
                  + f") | {med(p for _, _, p in rows):.1f} |")


if __name__ == "__main__":
    main()
