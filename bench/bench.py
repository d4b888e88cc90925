"""Mnemo benchmark: starts the servers, measures them side by side, prints tables of figures.

    scripts/bench [--runs 3] [--peers serve,serve-cb,llama-cpp] [--no-peer]
                  [--quantize none,int4] [--sections abcdfg]

(a) HTTP latency against in-process ``generate`` on the same prompt and token count;
(b) aggregate tokens/s at 1, 4, 8 and 16 concurrent conversations (OpenAI API, greedy, 64 tokens);
(c) first-token time at turns 1, 5, 10 and 20 of a conversation that re-sends its own replies
    and grows to about 2,000 tokens;
(d) trim-and-render time for histories of 10, 100 and 1,000 messages;
(e) (b) and (c) for ``transformers serve`` with and without ``--continuous-batching`` on the same
    weights, and for llama.cpp (llama-cpp-python's server) on the same GGUF file, interleaved run
    by run with Mnemo's (float32, and each --quantize setting) so that all share the machine's
    state; (b) also gives each server's peak resident memory at 1 and 16 concurrent;
(f) a short load test under gunicorn: requests/s and p50/p95 latency, native and OpenAI API;
(g) start to ready: each Mnemo server (gunicorn, model cache present) restarted and timed from
    its launch to its first 200 from /readyz, polled every 50 ms.
Each figure is the median of --runs runs.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from bench.servers import Server, mnemo, resident_mb, transformers_serve

TOPICS = ["the ocean", "mountains", "bread", "trains", "music", "gardens", "rivers", "cities",
          "the moon", "forests", "coffee", "bicycles", "winter", "libraries", "birds", "clocks"]
TURNS = (1, 5, 10, 20)
USERS = (1, 4, 8, 16)
med = statistics.median


def post(url: str, body: dict):
    req = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    return urllib.request.urlopen(req, timeout=900)


def completion(server: Server, messages: list[dict], max_tokens: int, stream: bool = False):
    return post(server.base + "/v1/chat/completions", {
        "model": server.model, "messages": messages, "max_tokens": max_tokens, "temperature": 0,
        "stream": stream})


def essay(topic: str) -> list[dict]:
    return [{"role": "user", "content": f"Write a long, detailed essay about {topic}."}]


def bench_overhead(server: Server, engine_dir: Path, tokens: int = 64):
    """(a) one request over HTTP vs the same prompt decoded in-process by transformers."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    messages = essay("the ocean")
    t = time.perf_counter()
    body = json.load(completion(server, messages, tokens))
    http_s = time.perf_counter() - t
    n = body["usage"]["completion_tokens"]
    tok = AutoTokenizer.from_pretrained(engine_dir)
    model = AutoModelForCausalLM.from_pretrained(engine_dir).eval()
    ids = tok.apply_chat_template(messages, add_generation_prompt=True, return_tensors="pt")["input_ids"]
    with torch.inference_mode():
        model.generate(ids, max_new_tokens=4, do_sample=False)
        t = time.perf_counter()
        out = model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=n,
                             min_new_tokens=n, do_sample=False)
        local_s = time.perf_counter() - t
    assert out.shape[1] - ids.shape[1] == n
    return http_s, local_s, n


def bench_concurrency(server: Server, users: int, run: int, tokens: int = 64) -> float:
    """(b) aggregate completion tokens per second with ``users`` conversations at once.

    Every prompt is new to the server (no prefix cache hit beyond the chat template's start).
    """
    counts = [0] * users

    def one(i):
        topic = f"{TOPICS[i % len(TOPICS)]} (essay {i} of run {run})"
        body = json.load(completion(server, essay(topic), tokens))
        counts[i] = body["usage"]["completion_tokens"]

    threads = [threading.Thread(target=one, args=(i,)) for i in range(users)]
    peak, done = [resident_mb(server.proc.pid)], threading.Event()

    def watch():
        while not done.wait(0.25):
            peak.append(resident_mb(server.proc.pid))

    watcher = threading.Thread(target=watch)
    watcher.start()
    t = time.perf_counter()
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    rate = sum(counts) / (time.perf_counter() - t)
    done.set()
    watcher.join()
    return rate, max(peak)


def first_token_time(server: Server, messages: list[dict], tokens: int = 64):
    t = time.perf_counter()
    first, text = None, ""
    with completion(server, messages, tokens, stream=True) as resp:
        for line in resp:
            line = line.decode().strip()
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            chunk = json.loads(line[6:])
            delta = chunk["choices"][0]["delta"].get("content") if chunk.get("choices") else None
            if delta:
                first = first or time.perf_counter() - t
                text += delta
    return first, text


def user_turn(turn: int, conversation: int = 0) -> dict:
    topic = TOPICS[(turn + conversation) % len(TOPICS)]
    return {"role": "user", "content": (
        f"Talk {conversation}, part {turn}: tell me something new about {topic}, in detail. Mention one "
        f"fact you have not mentioned before, and explain why it matters to people who live "
        f"near {topic} or care about {topic}.")}


def bench_turns(server: Server, conversation: int):
    """(c) first-token time as a conversation grows, re-sending its own replies.

    Each run is a new conversation: a repeat of an earlier one would find its turns cached.
    """
    messages, out = [], {}
    for turn in range(1, max(TURNS) + 1):
        messages.append(user_turn(turn, conversation))
        ttft, reply = first_token_time(server, messages)
        messages.append({"role": "assistant", "content": reply or "..."})
        if turn in TURNS:
            out[turn] = ttft
    return out, messages[:-1]  # the history the turn-20 request sent


def bench_trim(engine_dir: Path, sizes=(10, 100, 1000)):
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
            out[(n, max_turns)] = med(times) * 1000
    return out


def bench_load(server: Server, api: str, requests: int = 48, concurrency: int = 8, tokens: int = 16):
    """(f) ``requests`` requests, ``concurrency`` at a time: requests/s and latency percentiles."""
    latencies, lock, next_i = [], threading.Lock(), [0]

    def body(i):
        messages = [{"role": "user", "content": f"Give me one tip about {TOPICS[i % len(TOPICS)]}."}]
        if api == "native":
            return "/api/chat", {"messages": messages, "max_new_tokens": tokens}
        return "/v1/chat/completions", {"model": server.model, "messages": messages,
                                        "max_tokens": tokens, "temperature": 0}

    def worker():
        while True:
            with lock:
                i, next_i[0] = next_i[0], next_i[0] + 1
            if i >= requests:
                return
            path, payload = body(i)
            t = time.perf_counter()
            with post(server.base + path, payload) as resp:
                resp.read()
            with lock:
                latencies.append(time.perf_counter() - t)

    threads = [threading.Thread(target=worker) for _ in range(concurrency)]
    t = time.perf_counter()
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    wall = time.perf_counter() - t
    q = statistics.quantiles(latencies, n=20)
    return requests / wall, med(latencies), q[18]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--port", type=int, default=8123)
    parser.add_argument("--peers", default="serve,serve-cb,llama-cpp",
                        help="peers to run beside Mnemo: serve (transformers serve), serve-cb "
                             "(with --continuous-batching), llama-cpp; empty: none")
    parser.add_argument("--no-peer", action="store_true", help="measure Mnemo only")
    parser.add_argument("--quantize", default="none,int4",
                        help="Mnemo servers to run, by MNEMO_QUANTIZE (comma-separated); "
                             "SETTING:transformers runs transformers' forward, not the lean one; "
                             "SETTING:python the lean forward without the native decode step; "
                             "SETTING:fp32attn float32 keys, values and attention; "
                             "SETTING:kernels torch's int kernels for prefills too; "
                             "SETTING:speculative the int4 draft (MNEMO_SPECULATIVE=int4)")
    parser.add_argument("--baseline", default="",
                        help="a git ref whose Mnemo (float32) runs beside, from a worktree: "
                             "5553221 is the code of the day the decode-speed issue was filed")
    parser.add_argument("--users", default="1,4,8,16", help="concurrency levels of (b)")
    parser.add_argument("--sections", default="abcdfg", help="which of (a)-(g) to run")
    args = parser.parse_args()
    from api.config import Settings
    from api.engine.loader import embedded_gguf, resolve_source
    from bench.llama_cpp import llama_cpp_server

    engine_dir = Path(resolve_source(Settings.load())[0])
    servers = [mnemo(args.port + 10 + i, "SmolLM2-135M-Instruct", q)
               for i, q in enumerate(args.quantize.split(","))]
    peers = set() if args.no_peer else set(filter(None, args.peers.split(",")))
    if "serve" in peers:
        servers.append(transformers_serve(args.port + 1, engine_dir, continuous_batching=False))
    if "serve-cb" in peers:
        servers.append(transformers_serve(args.port + 2, engine_dir, continuous_batching=True))
    if "llama-cpp" in peers:
        servers.append(llama_cpp_server(args.port + 3, embedded_gguf()))
    logs = Path(tempfile.mkdtemp(prefix="mnemo-bench-"))
    if args.baseline:
        old = logs / "baseline"
        subprocess.run(["git", "worktree", "add", "--detach", str(old), args.baseline],
                       cwd=servers[0].cwd, check=True, capture_output=True)
        baseline = mnemo(args.port + 9, "SmolLM2-135M-Instruct")
        baseline.name, baseline.cwd = f"mnemo {args.baseline}", old
        servers.insert(len(args.quantize.split(",")), baseline)
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, {platform.platform()}, "
          f"python {platform.python_version()}; runs: {args.runs}; server logs: {logs}")
    try:
        for s in servers:
            s.start(logs)
        for s in servers:
            s.wait_ready()
            json.load(completion(s, essay("warm-up"), 8))
        ours = servers[0]
        if "a" in args.sections:
            over = [bench_overhead(ours, engine_dir) for _ in range(args.runs)]
            http_s, local_s = med(o[0] for o in over), med(o[1] for o in over)
            print(f"(a) {over[0][2]} tokens: HTTP {http_s:.2f} s, in-process generate {local_s:.2f} s, "
                  f"overhead {100 * (http_s / local_s - 1):+.1f} %")
        if "b" in args.sections:
            bench_rates(servers, args.runs, tuple(int(u) for u in args.users.split(",")))
        if "c" in args.sections:
            bench_growth(servers, args.runs, engine_dir)
        if "d" in args.sections:
            print("\n(d) trim + render")
            for (n, max_turns), ms in bench_trim(engine_dir).items():
                print(f"{n:4d} messages, max_turns={max_turns}: {ms:.2f} ms")
        if "f" in args.sections:
            print("\n(f) load, 48 requests x 16 tokens, 8 at a time | requests/s | p50 s | p95 s")
            for api in ("native", "openai"):
                runs = [bench_load(ours, api) for _ in range(args.runs)]
                print(f"{api} | {med(r[0] for r in runs):.2f} | {med(r[1] for r in runs):.2f} | "
                      f"{med(r[2] for r in runs):.2f}")
        if "g" in args.sections:
            bench_start([s for s in servers if s.name.startswith("mnemo")], args.runs, logs)
    finally:
        for s in servers:
            s.stop()
        if args.baseline:
            subprocess.run(["git", "worktree", "remove", "--force", str(logs / "baseline")],
                           cwd=servers[0].cwd, capture_output=True)


def bench_start(servers: list[Server], runs: int, logs: Path) -> None:
    """(g) seconds from launching each server to its first ready answer, interleaved."""
    times = {s.name: [] for s in servers}
    for _ in range(runs):
        for s in servers:
            s.stop()
            t = time.perf_counter()
            s.start(logs)
            s.wait_ready(poll=0.05)
            times[s.name].append(time.perf_counter() - t)
    print("\n(g) start to ready, s | median | min | max")
    for s in servers:
        print(f"{s.name} | {med(times[s.name]):.2f} | {min(times[s.name]):.2f} | {max(times[s.name]):.2f}")


def bench_rates(servers: list[Server], runs: int, levels: tuple[int, ...] = USERS) -> None:
    rates = {s.name: {u: [] for u in levels} for s in servers}
    memory = {s.name: {u: [] for u in levels} for s in servers}
    for users in levels:
        for run in range(runs):
            for s in servers:  # interleaved: every server sees the same machine state
                rate, rss = bench_concurrency(s, users, run)
                rates[s.name][users].append(rate)
                memory[s.name][users].append(rss)
    print("\n(b) aggregate tok/s | " + " | ".join(f"{u} concurrent" for u in levels)
          + " | " + " | ".join(f"peak RSS MB at {u}" for u in (levels[0], levels[-1])))
    for s in servers:
        print(f"{s.name} | " + " | ".join(f"{med(rates[s.name][u]):.1f}" for u in levels)
              + " | " + " | ".join(f"{max(memory[s.name][u]):.0f}" for u in (levels[0], levels[-1])))


def bench_growth(servers: list[Server], runs: int, engine_dir: Path) -> None:
    from transformers import AutoTokenizer

    turns = {s.name: [] for s in servers}
    for run in range(runs):
        for s in servers:
            turns[s.name].append(bench_turns(s, conversation=run + 1))
    tok = AutoTokenizer.from_pretrained(engine_dir)
    print("\n(c) first token, s | " + " | ".join(f"turn {t}" for t in TURNS)
          + " | turn 20 / turn 1 | history at turn 20")
    for s in servers:
        ttft = {t: med(r[0][t] for r in turns[s.name]) for t in TURNS}
        history = len(tok.apply_chat_template(turns[s.name][0][1], tokenize=True,
                                              add_generation_prompt=True)["input_ids"])
        print(f"{s.name} | " + " | ".join(f"{ttft[t]:.3f}" for t in TURNS)
              + f" | {ttft[20] / ttft[1]:.2f}x | {history} tokens")


if __name__ == "__main__":
    main()
