"""Aggregate decode speed of concurrent requests in-process: the engine without HTTP.

    .venv/bin/python -m bench.concurrent [--quantize int4] [--users 16] [--runs 5] [--tokens 64]

Starts the app's engine as a server would (the default model, every other setting from the
``MNEMO_*`` environment), then, each run, submits one essay prompt per user from as many
threads at once (greedy, ``--tokens`` new tokens each, the prefix cache cleared first, so every
prompt is prefilled) and prints the tokens per second of the whole batch from the first submit
to the last reply's end. A first, unreported run warms up. What it leaves out against
``bench.bench`` (b) is HTTP and the server's threads, so a change to the engine's steps shows
here with less noise.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import threading
import time
from collections.abc import Callable, Iterable

from api import create_app
from api.tokenizer import Tokenizer
from api.types import SamplingParams
from bench.bench import TOPICS, essay


def rate_of(streams: list[Callable[[], Iterable]]) -> float:
    """Tokens per second of all ``streams`` (each a call giving a request's Chunks) run at
    once, each on a thread of its own, from the first start to the last end."""
    counts = [0] * len(streams)

    def run(i: int) -> None:
        for chunk in streams[i]():
            if chunk.finish_reason is not None:
                counts[i] = chunk.usage.completion_tokens

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(streams))]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(counts) / (time.perf_counter() - start)


def run_once(engine, prompts: list[list[int]], tokens: int) -> float:
    """Tokens per second of all ``prompts`` decoded at once, none of them cached."""
    engine.scheduler.prefix.clear()
    params = SamplingParams(max_new_tokens=tokens)
    return rate_of([functools.partial(engine.submit, ids, params, None) for ids in prompts])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quantize", default="none")
    parser.add_argument("--users", type=int, default=16)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--tokens", type=int, default=64)
    args = parser.parse_args()
    app = create_app({"quantize": args.quantize})
    engine = app.extensions["engine"]
    if not engine.ready.wait(600) or engine.load_error:
        raise SystemExit(f"the model did not load: {engine.load_error}")
    tokenizer = Tokenizer.of(engine)
    prompts = [tokenizer.build_prompt(essay(TOPICS[i % len(TOPICS)]), system=None,
                                      max_new_tokens=args.tokens, max_turns=None).ids
               for i in range(args.users)]
    run_once(engine, prompts, args.tokens)
    rates = [run_once(engine, prompts, args.tokens) for _ in range(args.runs)]
    print(f"{args.quantize}, {args.users} users, {args.tokens} tokens: median "
          f"{statistics.median(rates):.1f} tok/s (runs: {', '.join(f'{r:.1f}' for r in rates)})")
    engine.stop()


if __name__ == "__main__":
    main()
