"""Mnemo benchmark: starts gunicorn on the default model and prints a table of figures.

    .venv/bin/python bench/bench.py [--runs 3]

(a) HTTP latency against in-process decoding of the same prompt and token count;
(b) aggregate tokens/s at 1, 4, 8 and 16 concurrent conversations (OpenAI API, streaming off);
(c) first-token time at turns 1, 5, 10 and 20 of a conversation that re-sends its own replies;
(d) trim-and-render time for histories of 10, 100 and 1,000 messages.
Each figure is the median of --runs runs.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TOPICS = ["the ocean", "mountains", "bread", "trains", "music", "gardens", "rivers", "cities",
          "the moon", "forests", "coffee", "bicycles", "winter", "libraries", "birds", "clocks"]


def post(url, body, stream=False):
    req = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    return urllib.request.urlopen(req, timeout=600)


def completion(base, messages, max_tokens, stream=False):
    body = {"model": "SmolLM2-135M-Instruct", "messages": messages, "max_tokens": max_tokens,
            "temperature": 0, "stream": stream}
    if stream:
        body["stream_options"] = {"include_usage": True}
    return post(base + "/v1/chat/completions", body)


def ignore_eos_prompt(topic):
    return [{"role": "user", "content": f"Write a long, detailed essay about {topic}."}]


def bench_overhead(base, engine_dir, tokens=64):
    """(a) one request over HTTP vs the same prompt decoded in-process by transformers."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    messages = ignore_eos_prompt("the ocean")
    t = time.perf_counter()
    body = json.load(completion(base, messages, tokens))
    http_s = time.perf_counter() - t
    n = body["usage"]["completion_tokens"]
    tok = AutoTokenizer.from_pretrained(engine_dir)
    model = AutoModelForCausalLM.from_pretrained(engine_dir).eval()
    torch.set_num_threads(os.cpu_count())
    ids = tok.apply_chat_template(messages, add_generation_prompt=True, return_tensors="pt")["input_ids"]
    with torch.inference_mode():
        model.generate(ids, max_new_tokens=4, do_sample=False)
        t = time.perf_counter()
        out = model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=n,
                             min_new_tokens=n, do_sample=False)
        local_s = time.perf_counter() - t
    assert out.shape[1] - ids.shape[1] == n
    return http_s, local_s, n


def bench_concurrency(base, users, tokens=64):
    """(b) aggregate completion tokens per second with `users` conversations at once."""
    counts = [0] * users

    def one(i):
        body = json.load(completion(base, ignore_eos_prompt(TOPICS[i % len(TOPICS)] + f" ({i})"), tokens))
        counts[i] = body["usage"]["completion_tokens"]

    threads = [threading.Thread(target=one, args=(i,)) for i in range(users)]
    t = time.perf_counter()
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return sum(counts) / (time.perf_counter() - t)


def first_token_time(base, messages):
    t = time.perf_counter()
    resp = completion(base, messages, 48, stream=True)
    first, text = None, ""
    for line in resp:
        line = line.decode().strip()
        if not line.startswith("data: ") or line == "data: [DONE]":
            continue
        chunk = json.loads(line[6:])
        if chunk["choices"] and chunk["choices"][0]["delta"].get("content"):
            first = first or time.perf_counter() - t
            text += chunk["choices"][0]["delta"]["content"]
    return first, text


def bench_turns(base, marks=(1, 5, 10, 20)):
    """(c) first-token time as a conversation grows, re-sending its own replies."""
    messages, out = [], {}
    for turn in range(1, max(marks) + 1):
        messages.append({"role": "user", "content": f"Tell me something new about {TOPICS[turn % 16]}, "
                                                    f"in detail, as part {turn} of our talk."})
        ttft, reply = first_token_time(base, messages)
        messages.append({"role": "assistant", "content": reply or "..."})
        if turn in marks:
            out[turn] = ttft
    return out, messages


def bench_trim(engine_dir, sizes=(10, 100, 1000)):
    """(d) trim + render time for long histories, default max_turns and unlimited."""
    from transformers import AutoTokenizer

    from api.prompt import PromptBuilder

    builder = PromptBuilder(AutoTokenizer.from_pretrained(engine_dir))
    out = {}
    for n in sizes:
        msgs = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"message {i} " * 12}
                for i in range(n - 1 if n % 2 == 0 else n)]
        for max_turns in (10, None):
            times = []
            for _ in range(5):
                t = time.perf_counter()
                builder.build(msgs, system="You are helpful.", max_new_tokens=256,
                              context_window=8192, max_turns=max_turns)
                times.append(time.perf_counter() - t)
            out[(n, max_turns)] = statistics.median(times) * 1000
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--port", type=int, default=8123)
    args = parser.parse_args()
    from api.config import Settings
    from api.engine.loader import resolve_source

    engine_dir = resolve_source(Settings.load())[0]
    base = f"http://127.0.0.1:{args.port}"
    env = {**os.environ, "MNEMO_BIND": f"127.0.0.1:{args.port}", "MNEMO_MAX_QUEUE": "64"}
    server = subprocess.Popen([sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "wsgi:app"],
                              cwd=ROOT, env=env, stderr=subprocess.DEVNULL)
    try:
        for _ in range(300):
            try:
                if urllib.request.urlopen(base + "/readyz", timeout=2).status == 200:
                    break
            except OSError:
                time.sleep(0.5)
        med = statistics.median
        over = [bench_overhead(base, engine_dir) for _ in range(args.runs)]
        http_s, local_s = med(o[0] for o in over), med(o[1] for o in over)
        print(f"(a) {over[0][2]} tokens: HTTP {http_s:.2f} s, in-process generate {local_s:.2f} s, "
              f"overhead {100 * (http_s / local_s - 1):+.1f} %")
        for users in (1, 4, 8, 16):
            rate = med(bench_concurrency(base, users) for _ in range(args.runs))
            print(f"(b) {users:2d} concurrent: {rate:6.1f} tok/s aggregate")
        runs = [bench_turns(base) for _ in range(args.runs)]
        for turn in (1, 5, 10, 20):
            print(f"(c) turn {turn:2d}: first token {med(r[0][turn] for r in runs):.3f} s")
        from transformers import AutoTokenizer


        tok = AutoTokenizer.from_pretrained(engine_dir)
        history_tokens = len(tok.apply_chat_template(runs[0][1], tokenize=True)["input_ids"])
        print(f"(c) history at turn 20: {history_tokens} tokens")
        for (n, max_turns), ms in bench_trim(engine_dir).items():
            print(f"(d) {n:4d} messages, max_turns={max_turns}: {ms:.2f} ms")
    finally:
        server.terminate()
        server.wait(timeout=60)


if __name__ == "__main__":
    main()
