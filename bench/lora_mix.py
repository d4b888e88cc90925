"""What mixing LoRA adapters in one batch costs: aggregate tok/s at 8 concurrent requests.

    scripts/bench-lora [--runs 3]

In-process, on the default model, greedy, 64 new tokens, every prompt new. Two engines, one after
the other: the model alone (no adapter loaded), and the model with four adapters loaded (the
demo adapter's weights under four names, so each is computed separately). On the second, the
8 requests use no adapter, one adapter, two or four (round robin). Modes are interleaved run by
run; each figure is the median of --runs.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import threading
import time

from api import create_app
from api.config import SHIPPED_ADAPTERS
from api.tokenizer import Tokenizer
from api.types import SamplingParams

TOPICS = ["harbours", "bread", "rivers", "clocks", "gardens", "trains", "winter", "birds",
          "copper", "lanterns", "orchards", "meadows", "violins", "canyons", "marble", "saddles"]


def engine(adapters: dict) -> object:
    app = create_app({"adapters": adapters, "warmup": True, "max_batch_size": 8})
    eng = app.extensions["engine"]
    if not eng.ready.wait(600):
        raise RuntimeError(f"engine not ready: {eng.load_error}")
    return eng


def rate(eng, names: list[str | None], run: int, tokens: int = 64) -> tuple[float, int]:
    """8 concurrent requests on adapters ``names`` (round robin); (tok/s, tokens)."""
    params = SamplingParams(max_new_tokens=tokens)
    tokenizer = Tokenizer.of(eng)
    done: list[int] = []

    def one(i: int) -> None:
        topic = TOPICS[(i + 3 * run) % len(TOPICS)]
        messages = [{"role": "user", "content": f"Run {run}, part {i}: a long essay about {topic}."}]
        ids = tokenizer.build_prompt(messages, system=None, max_new_tokens=tokens, max_turns=None).ids
        chunks = list(eng.submit(ids, params, names[i % len(names)]))
        done.append(chunks[-1].usage.completion_tokens)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(8)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(done) / (time.perf_counter() - start), sum(done)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    demo = str(SHIPPED_ADAPTERS / "legal-demo")
    plain = engine({})
    mixed = engine({f"a{i}": demo for i in range(1, 5)})
    modes = {
        "model alone (no adapter loaded)": (plain, [None]),
        "4 adapters loaded, base only": (mixed, [None]),
        "1 adapter": (mixed, ["a1"]),
        "2 adapters": (mixed, ["a1", "a2"]),
        "4 adapters": (mixed, ["a1", "a2", "a3", "a4"]),
    }
    results = {m: [] for m in modes}
    for run in range(args.runs):
        for mode, (eng, names) in modes.items():
            results[mode].append(rate(eng, names, run))
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs; runs: {args.runs}")
    print("\n8 concurrent, 64 new tokens | aggregate tok/s (median) | each run | vs model alone")
    base = statistics.median(r for r, _ in results["model alone (no adapter loaded)"])
    for mode, runs in results.items():
        med = statistics.median(r for r, _ in runs)
        print(f"{mode} | {med:.1f} | " + ", ".join(f"{r:.1f}" for r, _ in runs)
              + f" | {med / base:.2f}x")
    plain.scheduler.stop()
    mixed.scheduler.stop()


if __name__ == "__main__":
    main()
