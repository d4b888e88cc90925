"""Memory benchmark, live: do facts told in passing survive a long chat in a small window?

    scripts/bench-memory --live [--turns 34] [--window 1024]

One Mnemo server (gunicorn, the default model, ``MNEMO_CONTEXT_WINDOW`` small so trimming starts
early) plays one scripted chat per mode: facts told the way people tell them (an introduction
without "my name is", an allergy, a pet, a spouse inside a gift question, a job in Chinese, a
city later corrected) in every other turn of the first third, small talk answered by the model
itself (replies of up to ``--max-new-tokens``), then one question per fact, phrased apart from
the telling. The client behaves as the page does: it keeps every message, sends the whole
history with ``max_turns`` out of the way, and stores the summary the server returns. Modes:

- truncation: no memory (compaction and recall off);
- pins: the fact messages pinned (the user decided they matter);
- summary: compaction only (the summary is the gist: the small model's prose);
- recall: recall only;
- default: what a client that names no memory setting gets (compaction and recall).

For each: the share of planted facts present in the rendered prompt when asked (model-independent,
from ``/api/chat/preview``), the share the default model's answer contains (reported, not a
target), the median first-token time over all turns, and the tokens spent on summaries.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
import urllib.request
from pathlib import Path

from bench.servers import mnemo

FACTS = [  # (message, question, what must appear): told as people tell them, several languages
    ("Hey there, Ilse speaking, I just found this chat thing.", "What do my friends call me?",
     "Ilse"),
    ("Shellfish makes my throat swell up, so paella is off the menu for me.",
     "Is there any food I must stay away from?", "Shellfish"),
    ("We got a kitten last week, a grey one, and named her Miso.",
     "What is the name of our new pet?", "Miso"),
    ("Any gift ideas for my husband Joaquin? He collects vinyl records.",
     "Who am I married to?", "Joaquin"),
    ("我在一家医院当护士，经常上夜班。", "我做什么工作？", "护士"),
    ("We live in Utrecht, close to the old canal.", "Which city is home for me?", "Rotterdam"),
    ("The dentist booked me for the 14th of March at 9.", "When is my dentist appointment?",
     "14th of March"),
    ("Big news: we just moved, we're in Rotterdam now.", None, None),  # corrects the city
]
TOPICS = ["volcanoes", "the history of bread", "how bicycles balance", "jazz", "penguins",
          "the Roman roads", "tides", "origami", "the water cycle", "honey bees", "chess openings",
          "glaciers", "lighthouses", "the printing press", "coral reefs", "sourdough", "comets",
          "paper money", "owls", "the Silk Road", "rainbows", "windmills", "octopuses",
          "the first telescopes", "deserts", "tea ceremonies", "trains in Japan", "maple syrup"]
MODES = {
    "truncation": {"compact": False, "recall": False},
    "pins": {"compact": False, "recall": False, "pin": True},
    "summary": {"compact": True, "recall": False},
    "recall": {"compact": False, "recall": True},
    "default": {},  # what a client that sends no memory setting gets: summaries and recall
}


def post(url: str, body: dict):
    req = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    return urllib.request.urlopen(req, timeout=900)


def chat_stream(base: str, body: dict) -> tuple[float, dict]:
    """Send a streamed chat; return the first-token time and the done event's body."""
    start, first, done, event = time.perf_counter(), None, None, None
    with post(base + "/api/chat", {**body, "stream": True}) as resp:
        for raw in resp:
            line = raw.decode().rstrip("\n")
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: "):
                if event == "delta" and first is None:
                    first = time.perf_counter() - start
                elif event == "done":
                    done = json.loads(line[6:])
                elif event == "error":
                    raise RuntimeError(line)
    return first if first is not None else time.perf_counter() - start, done


def script(turns: int) -> list[tuple[str, int | None]]:
    """The user's messages: facts spread over the first third, small talk, then one question
    per fact (the correction is asked through the fact it corrects)."""
    asked = [i for i, (_t, question, _k) in enumerate(FACTS) if question]
    chat = [f"Tell me one interesting thing about {TOPICS[i % len(TOPICS)]}."
            for i in range(max(0, turns - len(FACTS) - len(asked)))]
    out = [(text, None) for text in chat]
    for n, (text, _q, _k) in enumerate(FACTS):  # every other turn from the start
        out.insert(2 * n, (text, None))
    out += [(FACTS[i][1], i) for i in asked]
    return out


def run_mode(base: str, mode: dict, turns: int, max_new: int) -> dict:
    messages, summary = [], None
    in_prompt, in_answer, ttfts, summary_tokens, compactions, failures = [], [], [], 0, 0, 0
    for text, asks in script(turns):
        messages.append({"role": "user", "content": text})
        if mode.get("pin") and any(text == t for t, _q, _k in FACTS):
            messages[-1]["pinned"] = True
        body = {"messages": messages, "max_new_tokens": max_new, "max_turns": 1000}
        for key in ("compact", "recall"):
            if key in mode:
                body[key] = mode[key]
        if summary:
            body["summary"] = summary
        if asks is not None:
            with post(base + "/api/chat/preview", body) as resp:
                preview = json.load(resp)
            in_prompt.append(FACTS[asks][2].lower() in preview["prompt"].lower())
        ttft, done = chat_stream(base, body)
        ttfts.append(ttft)
        reply = done["message"]["content"]
        if asks is not None:
            in_answer.append(FACTS[asks][2].lower() in reply.lower())
        comp = done["compaction"]
        if comp["status"] == "ok":
            compactions += 1
            summary_tokens += comp["usage"]["total_tokens"]
            summary = done["summary"]
        elif comp["status"] == "failed":
            failures += 1
        messages.append({"role": "assistant", "content": reply or "(no answer)"})
    return {"facts_in_prompt": sum(in_prompt) / len(in_prompt),
            "facts_in_answer": sum(in_answer) / len(in_answer),
            "ttft_median_s": statistics.median(ttfts), "summary_tokens": summary_tokens,
            "compactions": compactions, "failed_compactions": failures,
            "turns": len(ttfts), "final_summary": summary["text"] if summary else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=34, help="user turns per conversation")
    parser.add_argument("--window", type=int, default=1024, help="MNEMO_CONTEXT_WINDOW")
    parser.add_argument("--max-new-tokens", type=int, default=48)
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated")
    parser.add_argument("--port", type=int, default=8791)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="mnemo-memory-bench-"))
    server = mnemo(args.port, "")
    server.env.update({"MNEMO_CONTEXT_WINDOW": str(args.window),
                       "MNEMO_SUMMARY_KEY": "memory-benchmark-key-0123456789"})
    server.start(work)
    try:
        server.wait_ready()
        results = {}
        for name in args.modes.split(","):
            results[name] = run_mode(server.base, MODES[name], args.turns, args.max_new_tokens)
            r = results[name]
            print(f"{name:26s} facts in prompt {r['facts_in_prompt']:6.0%}  in answer "
                  f"{r['facts_in_answer']:6.0%}  first token {r['ttft_median_s']:.3f} s  "
                  f"summaries {r['compactions']} ({r['failed_compactions']} failed), "
                  f"{r['summary_tokens']} tokens", flush=True)
        print(json.dumps({"window": args.window, "turns": args.turns, "results": results},
                         indent=2, ensure_ascii=False))
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
