"""Memory benchmark: do planted facts survive a long conversation in a small window?

    scripts/bench-memory [--turns 30] [--window 1024]

One Mnemo server (gunicorn, the default model, ``MNEMO_CONTEXT_WINDOW`` small so trimming starts
early) plays scripted conversations that plant facts in the first turns (a name, a number, a
preference, a decision with a date), chat about other things, and ask for each fact at the end.
The client behaves as the page does: it keeps every message, sends the whole history with
``max_turns`` out of the way, and stores the summary the server returns. Modes:

- truncation: no memory (compaction off);
- pins: the four fact messages pinned;
- summary (prose): compaction with a preset whose summaries are prose only;
- summary (prose + ledger): compaction with the default preset (verbatim fact ledger);
- recall: relevant older exchanges recalled, no compaction;
- all: pins, summaries with the ledger, and recall.

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

from bench.servers import ROOT, mnemo

FACTS = [  # (planting message, question, what must appear)
    ("Hi! My name is Marguerite Okafor, nice to meet you.", "What is my name?", "Marguerite"),
    ("Please note that my apartment number is 4172.", "What is my apartment number?", "4172"),
    ("I prefer green tea to coffee, always.", "Which drink do I prefer?", "green tea"),
    ("We decided the team offsite will be in Lisbon on May 14.",
     "Where and when is the team offsite?", "Lisbon"),
]
TOPICS = ["volcanoes", "the history of bread", "how bicycles balance", "jazz", "penguins",
          "the Roman roads", "tides", "origami", "the water cycle", "honey bees", "chess openings",
          "glaciers", "lighthouses", "the printing press", "coral reefs", "sourdough", "comets",
          "paper money", "owls", "the Silk Road", "rainbows", "windmills", "octopuses",
          "the first telescopes", "deserts", "tea ceremonies", "trains in Japan", "maple syrup"]
MODES = {
    "truncation": {"compact": False},
    "pins": {"compact": False, "pin": True},
    "summary (prose)": {"compact": True, "template": "prose"},
    "summary (prose + ledger)": {"compact": True},
    "recall": {"compact": False, "recall": True},
    "all": {"compact": True, "recall": True, "pin": True},
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
    """The user's messages: facts, then small talk, then one question per fact."""
    out = [(text, None) for text, _q, _k in FACTS]
    out += [(f"Tell me one interesting thing about {TOPICS[i % len(TOPICS)]}.", None)
            for i in range(max(0, turns - 2 * len(FACTS)))]
    out += [(question, i) for i, (_t, question, _k) in enumerate(FACTS)]
    return out


def run_mode(base: str, mode: dict, turns: int, max_new: int) -> dict:
    messages, summary = [], None
    in_prompt, in_answer, ttfts, summary_tokens, compactions, failures = [], [], [], 0, 0, 0
    for n, (text, asks) in enumerate(script(turns)):
        messages.append({"role": "user", "content": text})
        if mode.get("pin") and n < len(FACTS):
            messages[-1]["pinned"] = True
        body = {"messages": messages, "max_new_tokens": max_new, "max_turns": 1000,
                "compact": mode["compact"]}
        for key in ("template", "recall"):
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
    parser.add_argument("--turns", type=int, default=30, help="user turns per conversation")
    parser.add_argument("--window", type=int, default=1024, help="MNEMO_CONTEXT_WINDOW")
    parser.add_argument("--max-new-tokens", type=int, default=48)
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated")
    parser.add_argument("--port", type=int, default=8791)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="mnemo-memory-bench-"))
    presets = work / "presets"
    shutil.copytree(ROOT / "presets", presets)
    text = (presets / "default.toml").read_text(encoding="utf-8")
    (presets / "prose.toml").write_text(text.replace("ledger = true", "ledger = false")
                                        .replace("The built-in default preset", "Prose only"),
                                        encoding="utf-8")
    server = mnemo(args.port, "")
    server.env.update({"MNEMO_CONTEXT_WINDOW": str(args.window), "MNEMO_PRESETS_DIR": str(presets),
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
