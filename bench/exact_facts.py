"""Does a reply copy an exact identifier an earlier turn holds (a URL, a reference, an e-mail,
a phone number, a call), under each decoding setting? (issue 40's review)

Eight short conversations in four languages: the user gives the identifier or asks for it, an
earlier reply states it, and the last message asks for it again. Counts replies holding it
exactly, over 4 seeds. Usage:

    python -m bench.exact_facts --url http://127.0.0.1:8000
"""

from __future__ import annotations

import argparse

from bench.repetition import chat

CASES = [  # (earlier turns, user then assistant; the question; the identifier)
    (["Where are the docs?", "The docs are at https://example.com/docs/v2/getting-started.html"],
     "What was the docs URL again?", "https://example.com/docs/v2/getting-started.html"),
    (["My booking reference is XK-4471-QP-9902.", "Thanks! Your booking reference is XK-4471-QP-9902."],
     "What is my booking reference?", "XK-4471-QP-9902"),
    (["Write my email down: jan.kowalski+news@poczta.example.pl",
      "Noted: jan.kowalski+news@poczta.example.pl"],
     "What's my email address?", "jan.kowalski+news@poczta.example.pl"),
    (["Quel est le code wifi ?", "Le code wifi est 7731-BLEU-ORANGE-42."],
     "Rappelle-moi le code wifi, s'il te plaît.", "7731-BLEU-ORANGE-42"),
    (["我的快递单号是多少？", "您的快递单号是 SF1408837726651。"], "再告诉我一次快递单号。",
     "SF1408837726651"),
    (["Which command installs it?",
      "Run: pip install mnemo-server==2.4.1 --index-url https://pypi.example.org/simple"],
     "Give me that install command again.", "pip install mnemo-server==2.4.1"),
    (["How do I call the function?",
      "Call compute_weighted_average(values, weights=None, normalize=True)."],
     "What was the function call again?", "compute_weighted_average(values, weights=None, normalize=True)"),
    (["My phone number is +44 20 7946 0958, please remember it.", "Got it, +44 20 7946 0958."],
     "What is my phone number?", "+44 20 7946 0958"),
]

SETTINGS = {"Mnemo's default (echo_penalty 1.2)": {}, "echo_penalty 1 (guard off)": {"echo_penalty": 1.0},
            "greedy": {"do_sample": False}}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", default="http://127.0.0.1:8000")
    ap.add_argument("--seeds", type=int, default=4)
    args = ap.parse_args()
    print("| setting | replies holding the identifier exactly |\n|---|---|")
    for name, params in SETTINGS.items():
        seeds = range(1) if params.get("do_sample") is False else range(args.seeds)
        hits = n = 0
        for earlier, question, fact in CASES:
            messages = [{"role": "user" if i % 2 == 0 else "assistant", "content": t}
                        for i, t in enumerate(earlier)] + [{"role": "user", "content": question}]
            for seed in seeds:
                extra = {} if params.get("do_sample") is False else {"seed": seed}
                hits += fact in chat(args.url, messages, {**params, **extra}, max_new_tokens=60)
                n += 1
        print(f"| {name} | {hits} / {n} |", flush=True)


if __name__ == "__main__":
    main()
