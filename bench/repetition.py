"""Do the default model's replies repeat themselves or one another? (issue 40's page target)

Plays conversations of eight user turns against a running Mnemo's ``/api/chat``, each turn
sending the whole history as the page does, under several decoding settings, and counts:

- a *loop*: a reply in which one run of 4 words occurs 3 times or more;
- an *echo*: a reply sharing a run of 8 words with an earlier reply of its conversation; of
  those, how many share only runs the user's own messages hold (both replies quote the user).

The conversations are written to be ordinary (small talk, a plan, a question about the last
answer), in English, French and Chinese; nothing is tuned to them. Usage:

    python -m bench.repetition --url http://127.0.0.1:8000 --seeds 3
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import urllib.request

CONVERSATIONS = [
    ["Hi! I just moved to a new city and I don't know anyone yet.",
     "What are some good ways to meet people?",
     "I like hiking and board games. Which of your ideas fits me best?",
     "How do I find a hiking group?",
     "What should I bring on my first group hike?",
     "Thanks. Any tips for being less nervous around strangers?",
     "Can you give me a short opening line to use?",
     "Great, and what if the conversation dies down?"],
    ["I want to start cooking at home more often.",
     "What are three easy dinners for a beginner?",
     "Tell me more about the second one.",
     "What ingredients do I need for it?",
     "Can I make it without an oven?",
     "How long does it keep in the fridge?",
     "What side dish goes well with it?",
     "Give me a shopping list for the whole week, briefly."],
    ["Explain what a computer network is, in simple words.",
     "What is the difference between a router and a switch?",
     "Why does my Wi-Fi get slow in the evening?",
     "Should I buy a new router?",
     "What does 'dual band' mean?",
     "How can I see which devices are connected?",
     "Is it safe to leave my network without a password?",
     "Summarise your advice in two sentences."],
    ["Bonjour ! Je prépare un voyage à Lyon le mois prochain.",
     "Que faut-il visiter en priorité ?",
     "Et pour manger, tu as des conseils ?",
     "Combien de jours faut-il prévoir ?",
     "Comment aller de la gare au centre ?",
     "Quel temps fait-il en avril ?",
     "Merci ! Une idée pour une soirée ?",
     "Résume mon programme en trois points."],
    ["你好！我最近想开始跑步。", "每周跑几次比较合适？", "我应该买什么样的鞋？",
     "跑步前要热身吗？怎么做？", "如果膝盖疼怎么办？", "早上跑还是晚上跑更好？",
     "跑完以后吃什么？", "请用两句话总结你的建议。"],
]

# Each setting is complete on its own: Mnemo's default for the embedded model is {} (the card's
# temperature 0.2 and top-p 0.9, and echo_penalty 1.2); echo_penalty 1 turns the guard off.
OFF = {"echo_penalty": 1.0}
SETTINGS = {
    "greedy": {"do_sample": False, **OFF},
    "the card's sampling alone": OFF,
    "+ repetition_penalty 1.1": {"repetition_penalty": 1.1, **OFF},
    "+ repetition_penalty 1.2": {"repetition_penalty": 1.2, **OFF},
    "+ frequency_penalty 0.5": {"frequency_penalty": 0.5, **OFF},
    "+ presence_penalty 0.5, frequency_penalty 0.3": {"presence_penalty": 0.5,
                                                      "frequency_penalty": 0.3, **OFF},
    "+ echo_penalty 1.1": {"echo_penalty": 1.1},
    "+ echo_penalty 1.2 (Mnemo's default)": {},
    "+ echo_penalty 1.3": {"echo_penalty": 1.3},
}

# Facts told earlier in the conversation (or by the system), asked for again: a guard that
# weighs the prompt's words (repetition_penalty) keeps the model from quoting them.
FACTS = [
    (["My name is Alice.", "Nice to meet you, Alice!", "What is my name?"], None, "Alice"),
    (["I live in Lisbon and I have a dog called Pepper.", "That sounds lovely!",
      "What is my dog's name?"], None, "Pepper"),
    (["My favourite number is 47. Remember it.", "Got it, 47.", "What is my favourite number?"],
     None, "47"),
    (["Je m'appelle Camille et je suis infirmière.", "Enchanté, Camille !",
      "Quel est mon métier ?"], None, "infirmi"),
    (["What is your name?"], "Your name is Zorblax, a robot from Mars.", "Zorblax"),
]

def words(text: str) -> list[str]:
    # CJK characters count as words: runs of them are split one by one
    return re.findall(r"[\u4e00-\u9fff]|[^\s\u4e00-\u9fff]+", text.lower())


def runs(seq: list[str], n: int) -> list[tuple]:
    return [tuple(seq[i:i + n]) for i in range(len(seq) - n + 1)]


def loops(text: str) -> bool:
    grams = runs(words(text), 4)
    return any(grams.count(g) >= 3 for g in set(grams))


def echoes(text: str, earlier: list[str], told: list[str]) -> tuple[bool, bool]:
    """Whether ``text`` echoes one of ``earlier``, and whether it does so only in the user's
    words: every shared run is the user's (``told``) but for one word (a comma between two
    quoted phrases), a word being the user's where a run of 4 words of ``told`` covers it."""
    mine = words(text)
    before = set().union(*(set(runs(words(e), 8)) for e in earlier))
    shared = [i for i, run in enumerate(runs(mine, 8)) if run in before]
    user4 = set().union(*(set(runs(words(t), 4)) for t in told))
    users = [False] * len(mine)
    for i, run in enumerate(runs(mine, 4)):
        if run in user4:
            users[i:i + 4] = [True] * 4
    quoted = all(users[i:i + 8].count(False) <= 1 for i in shared)
    return bool(shared), bool(shared) and quoted


def chat(url: str, messages: list[dict], params: dict, max_new_tokens: int = 120) -> str:
    body = {"messages": messages, "max_new_tokens": max_new_tokens, **params}
    req = urllib.request.Request(url + "/api/chat", json.dumps(body).encode(),
                                 {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=300) as resp:
        return json.loads(resp.read())["message"]["content"]


def facts(url: str, params: dict, seeds: range) -> tuple[int, int, int]:
    """How many replies quote the fact asked for, and how many ran out of tokens."""
    quoted = cut = n = 0
    for turns, system, fact in FACTS:
        messages = [{"role": "user" if i % 2 == 0 else "assistant", "content": t}
                    for i, t in enumerate(turns)]
        for seed in seeds:
            body = {"messages": messages, "max_new_tokens": 60, **params}
            if params.get("do_sample") is not False:
                body["seed"] = seed
            if system:
                body["system"] = system
            req = urllib.request.Request(url + "/api/chat", json.dumps(body).encode(),
                                         {"Content-Type": "application/json"})
            with urllib.request.urlopen(req, timeout=300) as resp:
                reply = json.loads(resp.read())
            quoted += fact in reply["message"]["content"]
            cut += reply["finish_reason"] == "length"
            n += 1
    return quoted, cut, n


def play(url: str, turns: list[str], params: dict) -> tuple[int, int, int]:
    messages, replies, looped, echoed, quoting = [], [], 0, 0, 0
    for n, text in enumerate(turns):
        messages.append({"role": "user", "content": text})
        reply = chat(url, messages, params)
        looped += loops(reply)
        echo, quote = echoes(reply, replies, turns[:n + 1])
        echoed, quoting = echoed + echo, quoting + quote
        replies.append(reply)
        messages.append({"role": "assistant", "content": reply})
    return looped, echoed, quoting


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", default="http://127.0.0.1:8000")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--only", nargs="*", help="setting names to run")
    args = ap.parse_args()
    total = len(CONVERSATIONS) * len(CONVERSATIONS[0])
    print(f"{len(CONVERSATIONS)} conversations x 8 turns = {total} replies a run; "
          f"median over {args.seeds} seeds (greedy: one run)")
    print("| setting | replies that loop | replies echoing an earlier one (of which quoting the "
          "user) | facts quoted | replies cut at 60 tokens |")
    print("|---|---|---|---|---|")
    for name, params in SETTINGS.items():
        if args.only and name not in args.only:
            continue
        greedy = params.get("do_sample") is False
        per_seed = []
        for seed in range(args.first_seed, args.first_seed + (1 if greedy else args.seeds)):
            p = dict(params) if greedy else {**params, "seed": seed}
            outcome = [play(args.url, turns, p) for turns in CONVERSATIONS]
            per_seed.append(tuple(sum(o[i] for o in outcome) for i in range(3)))
            print(f"  {name} seed {seed}: {per_seed[-1]}", flush=True)
        lo = statistics.median(s[0] for s in per_seed)
        ec = statistics.median(s[1] for s in per_seed)
        qu = statistics.median(s[2] for s in per_seed)
        quoted, cut, n = facts(args.url, params, range(args.first_seed,
                                                       args.first_seed + (1 if greedy else 4)))
        print(f"| {name} | {lo:g} / {total} | {ec:g} / {total} ({qu:g}) | {quoted} / {n} "
              f"| {cut} / {n} |",
              flush=True)


if __name__ == "__main__":
    main()
