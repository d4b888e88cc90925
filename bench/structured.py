"""Structured output on the default model: how often replies validate, and what the grammar
costs the rows beside it and the row itself.

    .venv/bin/python -m bench.structured [--runs 5]

In-process, on the default model (float32, greedy unless said). Three figures:
1. validity: the 53 cases of tests/structured_cases.py, each greedy and sampled (temperature
   0.8), strict and not: how many replies validate, how many end with finish_reason length,
   and how many are invalid (must be 0);
2. cost to others: 8 plain requests of 64 tokens beside a 9th that is plain or constrained,
   side by side, run by run; the 8's aggregate tok/s (median of --runs);
3. the constrained row's own speed: alone, 96 tokens of a JSON string against 96 plain tokens.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import threading
import time

import jsonschema

from api import create_app
from api.structured import ResponseFormatField
from api.tokenizer import Tokenizer
from api.types import SamplingParams
from tests.structured_cases import CASES

TOPICS = ["harbours", "bread", "rivers", "clocks", "gardens", "trains", "winter", "birds",
          "copper", "lanterns", "orchards", "meadows", "violins", "canyons", "marble", "saddles"]
LONG = {"type": "object", "properties": {"essay": {"type": "string"}}, "required": ["essay"]}


def schema_text(schema: dict, strict: bool) -> str:
    return ResponseFormatField().deserialize({"type": "json_schema", "json_schema": {
        "name": "reply", "schema": schema, "strict": strict}})


def generate(eng, prompt: str, params: SamplingParams) -> tuple[str, str, int, float]:
    ids = Tokenizer.of(eng).build_prompt([{"role": "user", "content": prompt}], system=None,
                                         max_new_tokens=params.max_new_tokens, max_turns=None).ids
    start = time.perf_counter()
    chunks = list(eng.submit(ids, params, None))
    return ("".join(c.text for c in chunks), chunks[-1].finish_reason,
            chunks[-1].usage.completion_tokens, time.perf_counter() - start)


def validity(eng) -> dict:
    counts = {"valid": 0, "length": 0, "invalid": 0}
    jobs = [(schema, prompt, strict, sampled) for _, schema, prompt in CASES
            for strict in (True, False) for sampled in (False, True)]
    lock = threading.Lock()

    def worker(part: list) -> None:
        for schema, prompt, strict, sampled in part:
            params = SamplingParams(max_new_tokens=160, json_schema=schema_text(schema, strict),
                                    do_sample=sampled, temperature=0.8 if sampled else 1.0,
                                    seed=1 if sampled else None)
            text, finish, _, _ = generate(eng, prompt, params)
            try:
                jsonschema.validate(json.loads(text), schema)
                kind = "valid"
            except (ValueError, jsonschema.ValidationError):
                kind = "length" if finish == "length" else "invalid"
            with lock:
                counts[kind] += 1
    threads = [threading.Thread(target=worker, args=(jobs[i::8],)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return counts


def beside(eng, ninth: SamplingParams, run: int) -> float:
    """The aggregate tok/s of 8 plain requests while ``ninth`` runs with them."""
    done: list[int] = []
    ends: list[float] = []

    def plain(i: int) -> None:
        topic = TOPICS[(i + 3 * run) % len(TOPICS)]
        _, _, n, _ = generate(eng, f"Run {run}, part {i}: a long essay about {topic}.",
                              SamplingParams(max_new_tokens=64))
        done.append(n)
        ends.append(time.perf_counter())

    threads = [threading.Thread(target=plain, args=(i,)) for i in range(8)]
    threads.append(threading.Thread(target=generate, args=(
        eng, f"Run {run}: describe {TOPICS[run % len(TOPICS)]} at length.", ninth)))
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(done) / (max(ends) - start)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    app = create_app({"warmup": True, "max_batch_size": 9})
    eng = app.extensions["engine"]
    if not eng.ready.wait(600):
        raise RuntimeError(f"engine not ready: {eng.load_error}")
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs; runs: {args.runs}; "
          f"{time.strftime('%Y-%m-%d')}")
    counts = validity(eng)
    total = sum(counts.values())
    print(f"\nvalidity, {len(CASES)} cases x greedy/sampled x strict/not = {total} replies "
          f"(160-token budget): {counts['valid']} valid, {counts['length']} ran out of tokens "
          f"(finish_reason length), {counts['invalid']} invalid")

    constrained = SamplingParams(max_new_tokens=64, json_schema=schema_text(LONG, True))
    modes = {"9th plain": SamplingParams(max_new_tokens=64), "9th constrained": constrained}
    rates = {m: [] for m in modes}
    solo = {"plain": [], "constrained": []}
    for run in range(args.runs):
        for mode, ninth in modes.items():
            rates[mode].append(beside(eng, ninth, run))
        for mode, params in (("plain", SamplingParams(max_new_tokens=96)),
                             ("constrained", SamplingParams(max_new_tokens=96,
                                                            json_schema=schema_text(LONG, True)))):
            _, _, n, seconds = generate(eng, f"Run {run}: a long essay about winter.", params)
            solo[mode].append(n / seconds)
    base = statistics.median(rates["9th plain"])
    print("\n8 plain requests, 64 tokens each, beside a 9th | their aggregate tok/s (median) "
          "| each run | vs a plain 9th")
    for mode, runs in rates.items():
        med = statistics.median(runs)
        print(f"{mode} | {med:.1f} | {', '.join(f'{r:.1f}' for r in runs)} | {med / base:.3f}")
    plain = statistics.median(solo["plain"])
    print("\nalone, 96 tokens | tok/s (median) | each run | vs plain")
    for mode, runs in solo.items():
        med = statistics.median(runs)
        print(f"{mode} | {med:.1f} | {', '.join(f'{r:.1f}' for r in runs)} | {med / plain:.3f}")
    eng.stop()


if __name__ == "__main__":
    main()
