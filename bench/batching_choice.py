"""How Mnemo's engine batches, chosen by measurement: in-process, no HTTP, same model and prompts.

    .venv/bin/python -m bench.batching_choice [--runs 3] [--prompts 8] [--tokens 64]

Compares, in tokens per second of greedy decoding:
  one prompt at a time with ``generate``;
  one ``generate`` call on all prompts, left-padded (static batching: no one may join);
  ``generate_batch``: transformers' continuous batching with paged attention;
  Mnemo's scheduler: iteration-level batching over growing KV buffers (requests join at any step).

Each method runs in a process of its own: after ``generate_batch`` has run, the same model
decodes about a quarter slower in this process (measured: the scheduler fell from 110 to
84 tok/s), which skewed an earlier version of this script that ran them one after another.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import subprocess
import sys
import time

import torch

from api.config import Settings
from api.engine.loader import load
from api.engine.scheduler import GenRequest, Scheduler
from api.types import SamplingParams
from bench.concurrent import rate_of

TOPICS = ["the ocean", "mountains", "bread", "trains", "music", "gardens", "rivers", "cities",
          "the moon", "forests", "coffee", "bicycles", "winter", "libraries", "birds", "clocks"]


def prompts(tokenizer, n: int) -> list[list[int]]:
    out = []
    for i in range(n):
        messages = [{"role": "user", "content": f"Write a long, detailed essay about {TOPICS[i % 16]}."}]
        out.append(tokenizer.apply_chat_template(messages, add_generation_prompt=True,
                                                 tokenize=True)["input_ids"])
    return out


def one_at_a_time(model, ids, tokens):
    t = time.perf_counter()
    for p in ids[:2]:  # two are enough for a per-sequence rate
        x = torch.tensor([p])
        model.generate(x, attention_mask=torch.ones_like(x), max_new_tokens=tokens,
                       min_new_tokens=tokens, do_sample=False)
    return 2 * tokens / (time.perf_counter() - t)


def static_batch(model, tokenizer, ids, tokens):
    width = max(map(len, ids))
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    x = torch.tensor([[pad] * (width - len(p)) + p for p in ids])
    mask = torch.tensor([[0] * (width - len(p)) + [1] * len(p) for p in ids])
    t = time.perf_counter()
    model.generate(x, attention_mask=mask, max_new_tokens=tokens, min_new_tokens=tokens,
                   do_sample=False, pad_token_id=pad)
    return len(ids) * tokens / (time.perf_counter() - t)


def continuous_batch(model, ids, tokens):
    from transformers import GenerationConfig

    config = GenerationConfig(max_new_tokens=tokens, do_sample=False)
    t = time.perf_counter()
    out = model.generate_batch(ids, generation_config=config, max_new_tokens=tokens)
    produced = sum(len(r.generated_tokens) for r in out.values())
    return produced / (time.perf_counter() - t)


def mnemo_scheduler(loaded, ids, tokens):
    sched = Scheduler(loaded, max_batch_size=len(ids), max_queue=0, generation_timeout=600,
                      prefix_cache_bytes=0)
    sched.start()
    params = SamplingParams(max_new_tokens=tokens)
    rate = rate_of([functools.partial(sched.submit, GenRequest(row, params)) for row in ids])
    sched.stop()
    return rate


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--prompts", type=int, default=8)
    parser.add_argument("--tokens", type=int, default=64)
    parser.add_argument("--method", type=int, help="run only this method, in this process")
    args = parser.parse_args()
    if args.method is None:
        for i in range(4):
            subprocess.run([sys.executable, "-m", "bench.batching_choice", "--method", str(i),
                            *sys.argv[1:]], check=True)
        return
    loaded = load(Settings.load(overrides={"warmup": False}))
    model, tokenizer = loaded.model, loaded.tokenizer
    ids = prompts(tokenizer, args.prompts)
    methods = {
        "generate, one prompt at a time": lambda: one_at_a_time(model, ids, args.tokens),
        f"generate, {args.prompts} prompts left-padded": lambda: static_batch(
            model, tokenizer, ids, args.tokens),
        f"generate_batch (continuous batching), {args.prompts} prompts": lambda: continuous_batch(
            model, ids, args.tokens),
        f"Mnemo scheduler, {args.prompts} concurrent requests": lambda: mnemo_scheduler(
            loaded, ids, args.tokens),
    }
    with torch.inference_mode():
        for name, fn in list(methods.items())[args.method:args.method + 1]:
            fn()  # warm-up
            rates = [fn() for _ in range(args.runs)]
            print(f"{name}: {statistics.median(rates):.1f} tok/s "
                  f"(runs: {', '.join(f'{r:.1f}' for r in rates)})")


if __name__ == "__main__":
    main()
