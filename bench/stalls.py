"""Does one request stall the others? Side by side: this checkout's engine and a baseline commit.

    scripts/bench-stalls [--runs 3] [--baseline 7f29e20] [--no-throughput] [--scenarios beams,cold]

Both run under gunicorn with the default model. A greedy stream is started; once it flows, an
interfering request is sent, and the stream's longest gap between two deltas while that request
runs is recorded:
- **beams**: the ``legal`` preset's beam search (4 beams, up to 200 new tokens);
- **cold prompt**: a 4,000-token prompt never seen before (8 new tokens).
Then, unless --no-throughput, aggregate tok/s at 1, 8 and 16 concurrent and the turn-20 / turn-1
first-token ratio (``bench.bench``'s measurements) for both. Medians of --runs, interleaved.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from bench.bench import TURNS, bench_concurrency, bench_turns, completion, essay
from bench.servers import ROOT, Server

med = statistics.median
WORDS = ("harbour river bread lantern orchard meadow copper signal garden thunder violet "
         "canyon marble pepper saddle whistle").split()


def server(name: str, port: int, cwd: Path) -> Server:
    return Server(name, port, "SmolLM2-135M-Instruct",
                  [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "wsgi:app"],
                  env={"MNEMO_BIND": f"127.0.0.1:{port}", "MNEMO_MAX_QUEUE": "64",
                       "PYTHONPATH": str(cwd)}, cwd=cwd)


def stream_gaps(s: Server, stop: threading.Event, out: list[float]) -> None:
    """Stream a long greedy reply; append each delta's arrival time until ``stop``."""
    body = {"messages": essay("the history of ships"), "max_new_tokens": 1024, "stream": True}
    req = urllib.request.Request(s.base + "/api/chat", json.dumps(body).encode(),
                                 {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=900) as resp:
        for line in resp:
            if line.startswith(b"event: delta"):
                out.append(time.monotonic())
            if stop.is_set() or line.startswith(b"event: done"):
                return


def interfere(s: Server, kind: str, run: int) -> tuple[float, float]:
    """Run ``kind`` beside a stream; return (longest stream gap during it, its own seconds)."""
    arrivals: list[float] = []
    stop = threading.Event()
    streamer = threading.Thread(target=stream_gaps, args=(s, stop, arrivals), daemon=True)
    streamer.start()
    deadline = time.monotonic() + 120
    while len(arrivals) < 5 and time.monotonic() < deadline:
        time.sleep(0.05)
    if kind == "beams":
        body = {"messages": [{"role": "user", "content": "租房合同到期房东不退押金怎么办？"}],
                "template": "legal"}
    else:  # a prompt nobody sent before: new words each run
        words = [WORDS[(i * 7 + run * 13 + i // 5) % len(WORDS)] for i in range(4000)]
        body = {"messages": [{"role": "user", "content": f"Run {run}: " + " ".join(words)}],
                "max_new_tokens": 8}
    started = time.monotonic()
    req = urllib.request.Request(s.base + "/api/chat", json.dumps(body).encode(),
                                 {"Content-Type": "application/json"})
    reply = json.load(urllib.request.urlopen(req, timeout=900))
    ended = time.monotonic()
    time.sleep(0.5)  # the first delta after it ends closes the last gap
    stop.set()
    streamer.join(60)
    if kind == "cold":
        assert reply["usage"]["prompt_tokens"] > 3900, reply["usage"]
    during = [t for t in arrivals if started <= t]
    times = [max(t for t in arrivals if t < started)] + during
    gaps = [b - a for a, b in zip(times, times[1:], strict=False) if a <= ended]
    if not during or arrivals[-1] < ended:
        raise RuntimeError(f"{s.name}: the stream ended before the {kind} request did")
    return max(gaps), ended - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--port", type=int, default=8140)
    parser.add_argument("--baseline", default="7f29e20", help="git ref of the engine to compare")
    parser.add_argument("--no-throughput", action="store_true")
    parser.add_argument("--scenarios", default="beams,cold", help="beams, cold or both")
    args = parser.parse_args()
    logs = Path(tempfile.mkdtemp(prefix="mnemo-stalls-"))
    old = logs / "baseline"
    subprocess.run(["git", "worktree", "add", "--detach", str(old), args.baseline], cwd=ROOT,
                   check=True, capture_output=True)
    servers = [server("this checkout", args.port, ROOT),
               server(f"baseline {args.baseline}", args.port + 1, old)]
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs; runs: {args.runs}; logs: {logs}")
    try:
        for s in servers:
            s.start(logs)
        for s in servers:
            s.wait_ready()
            json.load(completion(s, essay("warm-up"), 8))
        print("\nlongest gap in a running stream while another request runs | median s | "
              "each run | the other request's median s")
        for kind in args.scenarios.split(","):
            results = {s.name: [] for s in servers}
            for run in range(args.runs):
                for s in servers:
                    results[s.name].append(interfere(s, kind, run))
            for s in servers:
                gaps = [g for g, _ in results[s.name]]
                print(f"{kind} | {s.name} | {med(gaps):.2f} | "
                      + ", ".join(f"{g:.2f}" for g in gaps)
                      + f" | {med(d for _, d in results[s.name]):.1f}")
        if args.no_throughput:
            return
        users = (1, 8, 16)
        rates = {s.name: {u: [] for u in users} for s in servers}
        turns = {s.name: [] for s in servers}
        for run in range(args.runs):
            for u in users:
                for s in servers:
                    rates[s.name][u].append(bench_concurrency(s, u, run))
            for s in servers:
                turns[s.name].append(bench_turns(s, conversation=100 + run)[0])
        print("\naggregate tok/s | " + " | ".join(f"{u} concurrent" for u in users)
              + " | turn 20 / turn 1 first token")
        for s in servers:
            ratio = med(t[TURNS[-1]] / t[TURNS[0]] for t in turns[s.name])
            print(f"{s.name} | " + " | ".join(f"{med(rates[s.name][u]):.1f}" for u in users)
                  + f" | {ratio:.2f}x")
    finally:
        for s in servers:
            s.stop()
        subprocess.run(["git", "worktree", "remove", "--force", str(old)], cwd=ROOT,
                       capture_output=True)


if __name__ == "__main__":
    main()
