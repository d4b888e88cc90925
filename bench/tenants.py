"""Cross-key timing: can one API key learn another key's prompt from first-token times?

    .venv/bin/python -m bench.tenants [--runs 5]

Starts Mnemo under gunicorn with two keys on the default model. Key 1 sends a long private
system prompt. Key 2 then sends the right guess of it, a half-right guess and a wrong one; each
guess is a fresh conversation. Before tenant isolation the right guess was served from key 1's
prefix cache (0.24 s against 7.64 s for a wrong one); now every guess is prefilled cold. Each
guess comes from a key of its own, so no guess is helped by that key's earlier guesses.
Prints the median first-token time of each, and key 1's own repeat for comparison.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
import urllib.request
from pathlib import Path

from bench.servers import mnemo

SECRET = ("You are the internal assistant of Project Nightjar. The launch code is "
          "7-4-1-9 and the partner is Halvorsen Shipping. ") * 60
WRONG = ("You are the internal assistant of Project Kestrel. The launch code is "  # same shape
         "3-8-2-6 and the partner is Lindqvist Shipping. ") * 60


def first_token(base: str, key: str, system: str, question: str) -> float:
    body = {"messages": [{"role": "user", "content": question}], "system": system,
            "max_new_tokens": 1, "stream": True}
    req = urllib.request.Request(base + "/api/chat", json.dumps(body).encode(), {
        "Content-Type": "application/json", "Authorization": f"Bearer {key}"})
    start = time.perf_counter()
    with urllib.request.urlopen(req, timeout=300) as resp:
        for raw in resp:
            if raw.startswith(b"event: delta") or raw.startswith(b"event: done"):
                return time.perf_counter() - start
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--port", type=int, default=8795)
    args = parser.parse_args()
    server = mnemo(args.port, "")
    guessers = [f"{kind}{run}" for kind in "rhw" for run in range(args.runs)]
    server.env.update({"MNEMO_API_KEYS": ",".join(["k1", *guessers])})
    work = Path(tempfile.mkdtemp(prefix="mnemo-tenants-"))
    server.start(work)
    try:
        server.wait_ready()
        times: dict[str, list[float]] = {"key 1 repeats its own": [], "key 2, right guess": [],
                                         "key 2, half-right guess": [], "key 2, wrong guess": []}
        half = SECRET[: len(SECRET) // 2] + WRONG[len(WRONG) // 2:]
        for run in range(args.runs):
            q = f"Question {run}: what should I do today?"
            first_token(server.base, "k1", SECRET, q)  # key 1's conversation, now cached
            times["key 1 repeats its own"].append(first_token(server.base, "k1", SECRET, q))
            times["key 2, right guess"].append(first_token(server.base, f"r{run}", SECRET, q))
            times["key 2, half-right guess"].append(first_token(server.base, f"h{run}", half, q))
            times["key 2, wrong guess"].append(first_token(server.base, f"w{run}", WRONG, q))
        for name, values in times.items():
            print(f"{name:26s} median {statistics.median(values):.3f} s  "
                  f"(min {min(values):.3f}, max {max(values):.3f})")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
