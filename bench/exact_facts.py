"""Does a reply copy exactly what an earlier turn holds, under each decoding setting? (issue
40's reviews)

Two sets of short conversations: an earlier reply states something, and the last message asks
for it again. ``CASES``, identifiers in four languages (a URL, a reference, an e-mail, a phone
number, a call; the user gave some of them); ``PROSE``, words only the earlier reply said (a
name, a title, a motto, an address in words, a list; six languages; written by a reviewer who
attacked the repetition guard's earlier-replies rule). Counts replies holding the expected
text exactly, over 4 seeds. Usage:

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

PROSE = [
    (["Give me a motto.", "Here is a motto: \"Stay hungry, stay foolish, and never stop learning "
      "new things.\""], "Repeat the motto exactly, word for word.",
     "stay foolish, and never stop learning new things"),
    (["Tell me a fact about the Eiffel Tower.",
      "The Eiffel Tower was completed for the World's Fair held in Paris."],
     "Repeat your previous answer exactly.",
     "The Eiffel Tower was completed for the World's Fair held in Paris"),
    (["Suggest a name for my bakery.", "How about The Golden Crust Artisan Bread Company?"],
     "What name did you suggest? Just the name.", "The Golden Crust Artisan Bread Company"),
    (["Recipe idea for dinner?", "Try Grandma's Slow Roasted Lemon and Garlic Chicken."],
     "What was the recipe called? Just the name.", "Slow Roasted Lemon and Garlic Chicken"),
    (["Where is the office?", "The office is at Twelve Old Mill Lane, Upper Bickering."],
     "Say the address again exactly.", "Twelve Old Mill Lane, Upper Bickering"),
    (["List three health tips.", "- Drink plenty of water every day\n- Get enough sleep every "
      "night\n- Go for a walk every morning"], "Repeat the list exactly.",
     "Get enough sleep every night"),
    (["Quel livre me conseilles-tu ?", "Je te conseille Le Petit Prince d'Antoine de "
      "Saint-Exupéry."], "Répète exactement ta réponse précédente.",
     "Le Petit Prince d'Antoine de Saint-Exupéry"),
    (["Welches Buch empfiehlst du?", "Ich empfehle Die unendliche Geschichte von Michael Ende."],
     "Wiederhole deine Antwort genau.", "Die unendliche Geschichte von Michael Ende"),
    (["推荐一本书。", "我推荐《三体》，作者是刘慈欣，这是一本非常好的科幻小说。"],
     "请把你上一个回答一字不差地再说一遍。", "作者是刘慈欣"),
    (["本をすすめてください。", "村上春樹の『ノルウェイの森』をおすすめします。"],
     "前の答えをそのままもう一度言ってください。", "『ノルウェイの森』"),
    (["Какую книгу посоветуешь?", "Я рекомендую роман Мастер и Маргарита Михаила Булгакова."],
     "Повтори свой ответ слово в слово.", "Мастер и Маргарита Михаила Булгакова"),
]

SETTINGS = {"Mnemo's default (echo_penalty 1.2)": {}, "echo_penalty 1 (guard off)": {"echo_penalty": 1.0},
            "greedy": {"do_sample": False}}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", default="http://127.0.0.1:8000")
    ap.add_argument("--seeds", type=int, default=4)
    args = ap.parse_args()
    print("| setting | replies holding the identifier exactly | replies holding the earlier "
          "reply's words exactly |\n|---|---|---|")
    for name, params in SETTINGS.items():
        seeds = range(1) if params.get("do_sample") is False else range(args.seeds)
        counts = []
        for cases in (CASES, PROSE):
            hits = n = 0
            for earlier, question, fact in cases:
                messages = [{"role": "user" if i % 2 == 0 else "assistant", "content": t}
                            for i, t in enumerate(earlier)] + [{"role": "user", "content": question}]
                for seed in seeds:
                    extra = {} if params.get("do_sample") is False else {"seed": seed}
                    hits += fact in chat(args.url, messages, {**params, **extra}, max_new_tokens=60)
                    n += 1
            counts.append(f"{hits} / {n}")
        print(f"| {name} | {' | '.join(counts)} |", flush=True)

if __name__ == "__main__":
    main()
