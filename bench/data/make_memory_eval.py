#!/usr/bin/env python3
"""Build the conversation-memory evaluation set: bench/data/memory_eval.json (docs/memory.md).

    python3 bench/data/make_memory_eval.py           # writes memory_eval.json next to this script, then validates it
    python3 bench/data/make_memory_eval.py --check    # validate the existing JSON only

Standard library only, deterministic (every conversation has its own fixed seed).

All hand-written content lives below as small text blocks in a line-oriented format:

Facts conversations (kind "facts"; a user chatting with an AI assistant)::

    @conv facts-en-01
    lang: en                 # "languages" of the conversation, comma-separated
    pools: en                # which small-talk pools fill the gaps (comma-separated)
    turns: 36                # user turns in total (fact turns + small talk)
    seed: 101
    first: name              # optional: this item is the very first user turn
    >> name                  # a fact item (one user turn + one assistant reply), in order
    U: ...
    A: ...
    >> ~sister_dog           # a distractor item (~ only documents intent)
    U: ...
    A: ...
    ?? category | ev=key[,key] | question | answer[; answer...] | stale=key[,key]

Fact items keep their order; small talk is drawn without replacement from the pools and the
items are scattered among it (a corrected statement and its correction at least 8 user turns
apart; the first user turn is small talk unless an item is marked ``first``; the last three
user turns are always small talk).

Long conversations (kind "long"; two friends, "user" is one, "assistant" is the other)::

    @conv long-en-01
    lang: en
    pools: en
    names: Dan; Marisol      # user's name; assistant's name
    target: 340              # approximate number of messages
    seed: 201
    dates: 6 January 2024; 21 January 2024; ...
    == 3                     # the following blocks belong to session 3
    U#label: ...             # a labelled line can be used as evidence / stale
    A: ...
    --                       # block separator (small talk may be inserted between blocks)
    ?? category | ev=label[,label] | question | answers | stale=label

Each session is: an opener exchange from the opener pool (its first user message prefixed with
"[Session N · date]"), the session's blocks in order with pool exchanges inserted at random
gaps, and a closer exchange. Pools use {U} / {A} for the user's / assistant's name.
"""

from __future__ import annotations

import json
import random
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "memory_eval.json"

CATEGORIES = {"name", "number", "date", "preference", "negation", "correction", "embedded",
              "place", "relation", "time", "multi"}

FACTS_SRC: list[str] = []  # facts conversations
LONG_SRC: list[str] = []  # long conversations
SMALLTALK: dict[str, str] = {}  # facts small talk pools: lang -> blocks of "U:/A:" pairs
LONG_FILLER: dict[str, str] = {}  # long small talk pools: lang -> blocks of exchanges
LONG_OPENERS: dict[str, str] = {}
LONG_CLOSERS: dict[str, str] = {}


# ----------------------------------------------------------------------------- parsing

def _parse_line(line: str):
    """'U: text' / 'A#label: text' -> (role, label, text)."""
    m = re.match(r"^([UA])(?:#([\w-]+))?:\s?(.*)$", line)
    if not m:
        raise ValueError(f"bad message line: {line!r}")
    role = "user" if m.group(1) == "U" else "assistant"
    return role, m.group(2), m.group(3).strip()


def parse_blocks(src: str, with_seasons: bool = False):
    """Pool text: exchanges separated by blank lines. A comment line '# season: summer,autumn'
    (seasons or month names) inside an exchange restricts it to sessions dated then (long
    conversations)."""
    blocks, cur, seasons = [], [], None
    for raw in src.strip().splitlines() + [""]:
        line = raw.strip()
        if not line:
            if cur:
                blocks.append((cur, seasons))
            cur, seasons = [], None
            continue
        if line.startswith("#"):
            m = re.match(r"#\s*season:\s*(.+)$", line)
            if m:
                seasons = {x.strip() for x in m.group(1).split(",")}
            continue
        cur.append(_parse_line(line))
    for b, _s in blocks:
        _check_block(b, "pool")
    return blocks if with_seasons else [b for b, _s in blocks]


MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December"]
SEASON_OF = {m: s for s, ms in {"winter": (12, 1, 2), "spring": (3, 4, 5), "summer": (6, 7, 8),
                                 "autumn": (9, 10, 11)}.items() for m in ms}


def season(date: str) -> str:
    """'12 March 2024' -> 'spring' (northern hemisphere)."""
    return SEASON_OF[MONTHS.index(date.split()[1]) + 1]


def _check_block(block, where):
    if len(block) % 2 or any(r != ("user" if i % 2 == 0 else "assistant")
                             for i, (r, _l, _t) in enumerate(block)):
        raise ValueError(f"{where}: block must alternate U/A starting with U: {block[:1]}")


def _parse_question(line: str):
    parts = [p.strip() for p in line[2:].split("|")]
    if len(parts) not in (4, 5):
        raise ValueError(f"bad question line: {line!r}")
    cat, ev, question, answers = parts[:4]
    if not ev.startswith("ev="):
        raise ValueError(f"question without ev=: {line!r}")
    q = {"category": cat, "ev": [k.strip() for k in ev[3:].split(",")], "question": question,
         "answer": [a.strip() for a in answers.split(";") if a.strip()], "stale": []}
    if len(parts) == 5:
        if not parts[4].startswith("stale="):
            raise ValueError(f"bad stale field: {line!r}")
        q["stale"] = [k.strip() for k in parts[4][6:].split(",")]
    return q


def parse_conv(src: str) -> dict:
    conv = {"items": [], "questions": [], "sessions": defaultdict(list), "meta": {}}
    session, block = None, None
    for raw in src.strip().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("@conv "):
            conv["id"] = line[6:].strip()
        elif line.startswith("?? "):
            conv["questions"].append(_parse_question(line))
        elif line.startswith(">> "):
            key = line[3:].strip()
            conv["items"].append({"key": key.lstrip("~"), "distractor": key.startswith("~"),
                                  "lines": []})
        elif line.startswith("== "):
            session = int(line[3:].strip())
            block = []
            conv["sessions"][session].append(block)
        elif line == "--":
            block = []
            conv["sessions"][session].append(block)
        elif re.match(r"^[UA](#[\w-]+)?:", line):
            role, label, text = _parse_line(line)
            if session is not None:
                block.append((role, label, text))
            else:
                conv["items"][-1]["lines"].append((role, label, text))
        elif re.match(r"^[a-z_]+:", line):
            k, v = line.split(":", 1)
            conv["meta"][k.strip()] = v.strip()
        else:
            raise ValueError(f"{conv.get('id')}: cannot parse {line!r}")
    return conv


# ----------------------------------------------------------------------------- assembling

def build_facts(src: str) -> dict:
    c = parse_conv(src)
    meta, cid = c["meta"], c["id"]
    rng = random.Random(int(meta["seed"]))
    n_turns = int(meta["turns"])
    items = c["items"]
    keys = [it["key"] for it in items]
    if len(set(keys)) != len(keys):
        raise ValueError(f"{cid}: duplicate item keys")
    for it in items:
        if [r for r, _l, _t in it["lines"]] != ["user", "assistant"]:
            raise ValueError(f"{cid}/{it['key']}: an item is one U line and one A line")
    pool = []
    for p in meta["pools"].split(","):
        pool += [b for b in parse_blocks(SMALLTALK[p.strip()])]
    n_fill = n_turns - len(items)
    if n_fill > len(pool):
        raise ValueError(f"{cid}: needs {n_fill} small-talk turns, pool has {len(pool)}")
    fillers = rng.sample(pool, n_fill)
    first = meta.get("first")
    # pairs that must be far apart: (older statement, correction)
    pairs = [(s, e) for q in c["questions"] for s in q["stale"] for e in q["ev"]]
    last_slot = n_turns - 3
    for _attempt in range(100000):
        if first:
            if keys[0] != first:
                raise ValueError(f"{cid}: 'first' item must be listed first")
            pos = [0] + sorted(rng.sample(range(1, last_slot), len(items) - 1))
        else:
            pos = sorted(rng.sample(range(1, last_slot), len(items)))
        where = dict(zip(keys, pos, strict=True))
        if all(where[e] - where[s] >= 8 for s, e in pairs):
            break
    else:
        raise ValueError(f"{cid}: could not place corrections far enough apart")
    turns = [None] * n_turns
    for it, p in zip(items, pos, strict=True):
        turns[p] = it
    fi = iter(fillers)
    messages, index_of = [], {}
    for t in turns:
        if t is None:
            for role, _l, text in next(fi):
                messages.append({"role": role, "content": text})
        else:
            index_of[t["key"]] = len(messages)
            index_of[t["key"] + ":a"] = len(messages) + 1
            for role, _l, text in t["lines"]:
                messages.append({"role": role, "content": text})
    return _finish(c, "facts", messages, index_of)


def build_long(src: str) -> dict:
    c = parse_conv(src)
    meta, cid = c["meta"], c["id"]
    rng = random.Random(int(meta["seed"]))
    uname, aname = [s.strip() for s in meta["names"].split(";")]
    dates = [d.strip() for d in meta["dates"].split(";")]
    lang = meta["pools"].strip()

    def fill(text):
        return text.replace("{U}", uname).replace("{A}", aname)

    sessions = c["sessions"]
    if sorted(sessions) != list(range(1, len(dates) + 1)):
        raise ValueError(f"{cid}: sessions {sorted(sessions)} do not match {len(dates)} dates")
    for n, blocks in sessions.items():
        sessions[n] = [b for b in blocks if b]
        for b in sessions[n]:
            _check_block(b, f"{cid} session {n}")
    openers = rng.sample(parse_blocks(LONG_OPENERS[lang]), len(dates))
    closers = rng.sample(parse_blocks(LONG_CLOSERS[lang]), len(dates))
    pool = parse_blocks(LONG_FILLER[lang], with_seasons=True)
    rng.shuffle(pool)
    hand = sum(len(b) for bl in sessions.values() for b in bl)
    frame = sum(len(b) for b in openers + closers)
    budget = int(meta["target"]) - hand - frame
    seasons = {n: {season(d), d.split()[1]} for n, d in enumerate(dates, 1)}
    per_session = defaultdict(list)
    size = {n: sum(len(b) for b in sessions[n]) for n in seasons}
    while budget > 0:
        if not pool:
            raise ValueError(f"{cid}: long filler pool '{lang}' exhausted ({budget} short)")
        ex, allowed = pool.pop()
        fits = [n for n in seasons if allowed is None or seasons[n] & allowed]
        if not fits:
            continue
        least = min(size[n] for n in fits)
        target = rng.choice([n for n in fits if size[n] - least < 4])
        per_session[target].append(ex)
        size[target] += len(ex)
        budget -= len(ex)
    messages, index_of = [], {}

    def emit(block):
        for role, label, text in block:
            if label:
                if label in index_of:
                    raise ValueError(f"{cid}: duplicate label {label}")
                index_of[label] = len(messages)
            messages.append({"role": role, "content": fill(text)})

    for n in range(1, len(dates) + 1):
        opener = [list(x) for x in openers[n - 1]]
        opener[0][2] = f"[Session {n} · {dates[n - 1]}] " + opener[0][2]
        emit(opener)
        slots = ["B"] * len(sessions[n]) + ["F"] * len(per_session[n])
        rng.shuffle(slots)
        bi, fi = iter(sessions[n]), iter(per_session[n])
        for s in slots:
            emit(next(bi) if s == "B" else next(fi))
        emit(closers[n - 1])
    conv = _finish(c, "long", messages, index_of)
    conv["speakers"] = {"user": uname, "assistant": aname}
    conv["sessions"] = len(dates)
    return conv


def _finish(c, kind, messages, index_of):
    langs = [x.strip() for x in c["meta"]["lang"].split(",")]
    questions = []
    for q in c["questions"]:
        try:
            ev = sorted(index_of[k] for k in q["ev"])
            stale = sorted(index_of[k] for k in q["stale"])
        except KeyError as exc:
            raise ValueError(f"{c['id']}: unknown key {exc} in question {q['question']!r}") from None
        out = {"question": q["question"], "evidence": ev}
        if stale:
            out["stale"] = stale
        out["answer"] = q["answer"]
        out["category"] = q["category"]
        questions.append(out)
    return {"id": c["id"], "kind": kind, "languages": langs, "messages": messages,
            "questions": questions}


# ----------------------------------------------------------------------------- validation

CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
MARKER = re.compile(r"^\[Session (\d+) · (\d{1,2} [A-Z][a-z]+ \d{4})\] ")
STOP = set("""a an the and or but if of to in on at for with from by about as is are was were be
been being am do does did doing have has had having i me my mine we us our you your he she it its
they them their this that these those what which who whom whose when where why how can could
should would will shall may might must not no yes so than then there here just also again any
some all more most very really still even ever again into onto over under up down out off too
only own same both each few other such let's tell remind again do don't again know remember
de la el los las un una unos unas y o que en con por para del al se lo le les mi mis tu tus su
sus es son era fue ser estar está están como qué cuál cuándo dónde quién cómo me te nos yo
der die das ein eine einen einem einer und oder den dem des ist sind war bin hat habe haben
mit von zu im am auf für wie was wer wo wann welche welcher welches ich mich mir du dich dir
wir uns unser unsere noch schon nicht kein keine""".split())


def words(text: str) -> list[str]:
    return re.findall(r"[^\W\d_]+(?:['’-][^\W\d_]+)*|\d+", text.lower())


def length_units(text: str, lang_zh: bool) -> int:
    """Words, or for Chinese text CJK characters."""
    if lang_zh:
        return len(CJK.findall(text)) + len(re.findall(r"[A-Za-z]+|\d+", text))
    return len(words(text))


def is_zh(text: str) -> bool:
    return len(CJK.findall(text)) > 3


def tokens(text: str) -> set[str]:
    if is_zh(text):
        runs = re.findall(r"[\u3400-\u9fff]+", text)
        grams = {r[i:i + 2] for r in runs for i in range(len(r) - 1)}
        return grams | {w for w in words(re.sub(r"[\u3400-\u9fff]", " ", text)) if len(w) > 2}
    return {w[:5] for w in words(text) if w not in STOP and len(w) > 2}  # crude stemming


def overlap(question: str, evidence: list[str]) -> float:
    q = tokens(question)
    if not q:
        return 0.0
    e = set().union(*(tokens(t) for t in evidence))
    return len(q & e) / len(q)


def validate(data: list[dict]) -> list[str]:
    errors, warnings = [], []
    ids = Counter(c["id"] for c in data)
    errors += [f"duplicate id {i}" for i, n in ids.items() if n > 1]
    for c in data:
        cid, msgs, kind = c["id"], c["messages"], c["kind"]
        if kind not in ("facts", "long"):
            errors.append(f"{cid}: bad kind {kind}")
        for i, m in enumerate(msgs):
            if m["role"] != ("user" if i % 2 == 0 else "assistant"):
                errors.append(f"{cid}: role at {i} is {m['role']}")
            if not m["content"].strip():
                errors.append(f"{cid}: empty message {i}")
        if msgs[-1]["role"] != "assistant":
            errors.append(f"{cid}: does not end with an assistant message")
        nq = len(c["questions"])
        if kind == "facts":
            if not 60 <= len(msgs) <= 80:
                errors.append(f"{cid}: {len(msgs)} messages (want 60-80)")
            if not 8 <= nq <= 12:
                errors.append(f"{cid}: {nq} questions (want 8-12)")
            if not any(q["category"] == "correction" for q in c["questions"]):
                errors.append(f"{cid}: no correction question")
            for i, m in enumerate(msgs):
                if m["role"] == "assistant":
                    zh = is_zh(m["content"])
                    n = length_units(m["content"], zh)
                    lo, hi = (35, 200) if zh else (25, 90)
                    if not lo <= n <= hi:
                        errors.append(f"{cid}: assistant reply {i} has {n} units "
                                      f"(want {lo}-{hi}): {m['content'][:60]!r}")
        else:
            if not 300 <= len(msgs) <= 600:
                errors.append(f"{cid}: {len(msgs)} messages (want 300-600)")
            if not 12 <= nq <= 20:
                errors.append(f"{cid}: {nq} questions (want 12-20)")
            starts = [i for i, m in enumerate(msgs) if MARKER.match(m["content"])]
            if not 8 <= len(starts) <= 20 or starts[0] != 0:
                errors.append(f"{cid}: {len(starts)} sessions / first marker at {starts[:1]}")
            nums = [int(MARKER.match(msgs[i]["content"]).group(1)) for i in starts]
            if nums != list(range(1, len(starts) + 1)):
                errors.append(f"{cid}: session numbers {nums}")
            if any(msgs[i]["role"] != "user" for i in starts):
                errors.append(f"{cid}: a session starts with an assistant message")
            for i, m in enumerate(msgs):
                text = MARKER.sub("", m["content"])
                zh = is_zh(text)
                n = length_units(text, zh)
                lo, hi = (4, 70) if zh else (5, 40)
                if not lo <= n <= hi:
                    errors.append(f"{cid}: message {i} has {n} units (want {lo}-{hi}): "
                                  f"{text[:60]!r}")
        for qi, q in enumerate(c["questions"]):
            tag = f"{cid} q{qi} {q['question'][:50]!r}"
            if q["category"] not in CATEGORIES:
                errors.append(f"{tag}: bad category {q['category']}")
            ev, stale = q["evidence"], q.get("stale", [])
            if not ev or any(not 0 <= i < len(msgs) for i in ev + stale):
                errors.append(f"{tag}: index out of range")
                continue
            if not q["answer"]:
                errors.append(f"{tag}: no answer strings")
            texts = [msgs[i]["content"].lower() for i in ev]
            if not any(a.lower() in t for a in q["answer"] for t in texts):
                errors.append(f"{tag}: no answer string {q['answer']} in evidence")
            if stale and max(stale) >= min(ev):
                errors.append(f"{tag}: stale {stale} not before evidence {ev}")
            if q["category"] == "correction" and not stale:
                errors.append(f"{tag}: correction without stale")
            if set(ev) & set(stale):
                errors.append(f"{tag}: index both stale and evidence")
            if kind == "facts" and len(msgs) - 6 <= max(ev):
                warnings.append(f"{tag}: evidence inside the last three turns")
            for a in q["answer"]:
                if a.lower() in q["question"].lower():
                    warnings.append(f"{tag}: answer {a!r} appears in the question itself")
            # answers also present elsewhere (other than evidence / stale)
            for a in q["answer"]:
                long_enough = len(a) >= 4 or (is_zh(a + "xxxx") and len(a) >= 2)
                if not long_enough:
                    continue
                others = [i for i, m in enumerate(msgs) if i not in ev and i not in stale
                          and a.lower() in m["content"].lower()]
                if others:
                    warnings.append(f"{tag}: answer {a!r} also in messages {others[:6]}")
    for e in errors:
        print("ERROR  ", e)
    if "-v" in sys.argv:
        for w in warnings:
            print("warning", w)
    else:
        print(f"{len(warnings)} warnings (run with -v to list them)")
    return errors


def report(data: list[dict]) -> None:
    facts = [c for c in data if c["kind"] == "facts"]
    longs = [c for c in data if c["kind"] == "long"]
    qs = [(c, q) for c in data for q in c["questions"]]
    print(f"conversations: {len(data)} ({len(facts)} facts, {len(longs)} long)")
    print(f"messages: {sum(len(c['messages']) for c in data)} "
          f"(facts {sum(len(c['messages']) for c in facts)}, "
          f"long {sum(len(c['messages']) for c in longs)})")
    print(f"questions: {len(qs)} (facts {sum(len(c['questions']) for c in facts)}, "
          f"long {sum(len(c['questions']) for c in longs)})")
    print("by category:", dict(sorted(Counter(q["category"] for _c, q in qs).items())))
    print("conversations by languages:",
          dict(Counter("+".join(c["languages"]) for c in data)))
    print("questions by conversation languages:",
          dict(Counter("+".join(c["languages"]) for c, _q in qs)))
    def qlang(c, q):
        if len(c["languages"]) == 1:
            return c["languages"][0]
        return "zh" if is_zh(q["question"]) else "es" if "¿" in q["question"] else "en"
    print("questions by question language:", dict(Counter(qlang(c, q) for c, q in qs)))
    mixed = [(c, q) for c, q in qs if len(c["languages"]) > 1]
    cross = sum(qlang(c, q) != ("zh" if is_zh(c["messages"][q["evidence"][0]]["content"])
                                else "es" if re.search(r"[¿¡ñáéíóú]", c["messages"][
                                    q["evidence"][0]]["content"]) else "en") for c, q in mixed)
    print(f"mixed-language questions asked in another language than their evidence: "
          f"{cross}/{len(mixed)}")
    multi = sum(len(q["evidence"]) > 1 for _c, q in qs)
    print(f"questions with 2+ evidence turns: {multi}; "
          f"long: {sum(len(q['evidence']) > 1 for c in longs for q in c['questions'])}"
          f"/{sum(len(c['questions']) for c in longs)}")
    print(f"questions with stale statements: {sum('stale' in q for _c, q in qs)}")
    ov = [overlap(q["question"], [c["messages"][i]["content"] for i in q["evidence"]])
          for c, q in qs]
    low = sum(o <= 0.25 for o in ov)
    print(f"lexical overlap question->evidence (share of question tokens found): "
          f"median {sorted(ov)[len(ov) // 2]:.2f}; <=0.25 for {low}/{len(ov)} "
          f"({100 * low / len(ov):.0f}%)")
    for c in data:
        print(f"  {c['id']:<16} {c['kind']:<5} {'+'.join(c['languages']):<6} "
              f"{len(c['messages']):>4} msgs {len(c['questions']):>3} q"
              + (f" {c['sessions']:>3} sessions" if "sessions" in c else ""))


def main() -> int:
    if "--check" not in sys.argv:
        data = [build_facts(s) for s in FACTS_SRC] + [build_long(s) for s in LONG_SRC]
        OUT.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {OUT}")
    data = json.loads(OUT.read_text(encoding="utf-8"))
    errors = validate(data)
    report(data)
    total_q = sum(len(c["questions"]) for c in data)
    need = {"conversations >= 24": len(data) >= 24, "questions >= 240": total_q >= 240,
            "facts >= 16": sum(c["kind"] == "facts" for c in data) >= 16,
            "long >= 6": sum(c["kind"] == "long" for c in data) >= 6,
            "zh facts >= 4": sum(c["kind"] == "facts" and c["languages"] == ["zh"]
                                 for c in data) >= 4,
            "es facts >= 3": sum(c["kind"] == "facts" and c["languages"] == ["es"]
                                 for c in data) >= 3,
            "de facts >= 3": sum(c["kind"] == "facts" and c["languages"] == ["de"]
                                 for c in data) >= 3,
            "mixed facts >= 2": sum(c["kind"] == "facts" and len(c["languages"]) > 1
                                    for c in data) >= 2,
            "long languages >= 2": len({lang for c in data if c["kind"] == "long"
                                        for lang in c["languages"]}) >= 2}
    for k, ok in need.items():
        if not ok:
            print("ERROR   requirement not met:", k)
            errors.append(k)
    print("OK" if not errors else f"{len(errors)} errors")
    return 1 if errors else 0

SMALLTALK["en"] = """
U: What's the actual difference between baking soda and baking powder? I always mix them up.
A: Baking soda is pure sodium bicarbonate and needs an acid in the recipe, like buttermilk, yogurt or lemon, to react. Baking powder already contains its own acid, so it only needs moisture and heat. That's why recipes with no acidic ingredient usually call for powder rather than soda.

U: Why did the Western Roman Empire fall but the Eastern one kept going for another thousand years?
A: Historians point to several things: the East was richer, more urban and easier to defend, with Constantinople behind formidable walls and sea access. The West faced repeated invasions, a shrinking tax base and unstable leadership. The East could also pay off or redirect threats, something the West could no longer afford.

U: Can you explain recursion like I'm twelve?
A: Imagine you're in a queue and want to know your position. You ask the person in front, who asks the person in front of them, and so on until someone at the very front says 'I'm number one'. Then each answer travels back, plus one each time. A function calling itself works the same way.

U: Is it worth learning to touch type at this point or is hunt-and-peck fine?
A: If you type a lot every day, it's usually worth it. A few weeks of slow, slightly frustrating practice tends to pay back in speed and, more importantly, in not having to look down and lose your train of thought. Free sites with fifteen-minute daily drills are enough for most people.

U: What's a good book for someone who liked The Martian?
A: Project Hail Mary by the same author is the obvious pick, with the same humour and problem-solving. Beyond that, try Seveneves by Neal Stephenson for big engineering survival, or The Long Way to a Small, Angry Planet if you want something warmer. Red Rising works if you enjoy fast pacing above all.

U: How do I stop my sourdough from spreading flat in the oven?
A: Flat loaves usually mean weak shaping or overproofing. Build more surface tension when shaping, give the dough a cold overnight proof in the fridge, and bake from cold in a preheated Dutch oven. A slightly lower hydration while you learn also helps a lot. Check the dough springs back slowly when poked.

U: Why is the sky red at sunset?
A: At sunset sunlight travels through much more atmosphere to reach you. Air molecules scatter shorter blue wavelengths out of the beam along the way, leaving mostly the longer red and orange wavelengths. Dust, smoke and humidity can make the effect stronger, which is why some sunsets are far more dramatic than others.

U: What's the offside rule in football, in plain words?
A: A player is offside if, when a teammate passes the ball to them, they are in the opponent's half and nearer the goal line than both the ball and the second-last defender. Being in that position isn't an offence by itself; it only counts if they get involved in play.

U: Quick question: is a tomato a fruit or a vegetable?
A: Botanically it's a fruit, since it develops from the flower and contains seeds. In the kitchen, though, it's treated as a vegetable because it's savoury. There was even a US Supreme Court case in 1893 that classified it as a vegetable for tariff purposes, which is a fun fact for quizzes.

U: How do I write a for loop in Python that also gives me the index?
A: Use enumerate. For example: for i, item in enumerate(my_list): print(i, item). It yields pairs of index and value, starting at zero by default. If you want to count from one instead, pass start=1, like enumerate(my_list, start=1). It's cleaner than using range(len(my_list)).

U: What's the best way to learn chess openings without memorising a million lines?
A: Learn the ideas rather than the moves: control the centre, develop knights before bishops, castle early, don't move the same piece twice without reason. Pick one opening for white and one defence for black, play them repeatedly, and review your games. Understanding why a move is played beats memorising twenty moves deep.

U: Why do onions make you cry?
A: Cutting an onion breaks its cells and releases enzymes that turn sulphur compounds into a volatile gas. When that gas reaches your eyes it forms a mild irritant, and your tear glands respond. A very sharp knife, a chilled onion, or cutting near an extractor fan all reduce the effect noticeably.

U: Is it true that lightning never strikes the same place twice?
A: No, that's a myth. Lightning often strikes the same place repeatedly, especially tall, pointed or isolated structures. The Empire State Building is hit around twenty to twenty-five times a year. Lightning rods exist precisely because certain points are reliably the most attractive path to the ground.

U: How long should I rest a steak after cooking it?
A: For a typical steak, around five minutes is plenty, roughly half the cooking time for thicker cuts. Resting lets the juices redistribute so less runs out when you cut. Tent it loosely with foil if your kitchen is cold, but don't wrap it tightly or the crust will steam and soften.

U: What's the difference between a virus and a bacterium?
A: Bacteria are single-celled living organisms that can reproduce on their own, and many are harmless or even helpful. Viruses are much smaller, just genetic material in a protein coat, and can only reproduce by hijacking a host cell. That's why antibiotics work against bacteria but do nothing against viruses.

U: Can you recommend a podcast about history that isn't dry?
A: The Rest Is History is lively and conversational, with two hosts who clearly enjoy the material. Hardcore History by Dan Carlin is long but gripping. For shorter episodes, try You're Dead to Me, which mixes comedians with historians. Revolutions by Mike Duncan is excellent if you like a long series.

U: Why does my code work on my machine but not on the server?
A: Usually it's an environment difference: a different language version, a missing dependency, an environment variable that exists locally but not remotely, file paths, or permissions. Compare versions first, pin your dependencies, and read the full server logs carefully. Containers exist largely to make this problem go away.

U: How do you make a proper French omelette?
A: Beat three eggs well with a pinch of salt. Melt butter in a nonstick pan over medium heat, add the eggs and stir constantly with a fork or spatula while shaking the pan, so you get small soft curds. When barely set, stop stirring, roll it onto a plate, seam side down. It should be pale, not browned.

U: What happened at the Battle of Hastings, briefly?
A: In October 1066 William, Duke of Normandy, fought the English king Harold Godwinson near Hastings. Harold's army had just marched south after defeating a Norwegian invasion. After a long day of fighting, Harold was killed, possibly by an arrow, and William went on to be crowned king, changing English history.

U: Is it bad to run every single day?
A: Not necessarily, but the intensity matters. Many runners go daily by keeping most runs easy and conversational, with only one or two harder sessions a week. Running hard every day raises injury risk. If you notice lingering soreness, worse sleep or slowing times, that's a sign to add rest days.

U: How does compound interest work, simply?
A: You earn interest not only on the money you put in, but also on the interest that's already been added. So a balance grows a little faster each year. At seven percent, for example, money roughly doubles in about ten years. The earlier you start, the more those layers of interest stack up.

U: What's a good houseplant that's basically impossible to kill?
A: Snake plants and ZZ plants are famously tough: they tolerate low light and forgotten watering. Pothos is also forgiving and grows quickly, trailing nicely from a shelf. The most common way people kill these is actually overwatering, so let the soil dry out properly between drinks.

U: Why do we have leap years?
A: A year, meaning one trip around the sun, takes about 365.24 days. Without an extra day every four years, the calendar would drift against the seasons. The rule is refined further: century years are not leap years unless divisible by 400, which is why 2000 was a leap year but 1900 was not.

U: Can you suggest a simple stretching routine for after sitting all day?
A: Try this in ten minutes: neck rolls, shoulder shrugs, a doorway chest stretch, a standing hip flexor lunge on each side, a hamstring fold, and a gentle spinal twist while seated. Hold each for thirty seconds and breathe slowly. Doing it daily matters more than doing it long.

U: What's the difference between git merge and git rebase?
A: Both bring changes from one branch into another. Merge keeps the history as it happened and adds a merge commit joining the branches. Rebase replays your commits on top of the other branch, giving a straight, linear history. Rebasing is great for local cleanup but avoid rewriting branches others already use.

U: How do noise-cancelling headphones actually work?
A: Tiny microphones pick up the ambient sound, and the headphones generate a sound wave that is the exact inverse of it. When the two waves meet, they largely cancel out. It works best on steady, low-frequency noise like engines or air conditioning, and less well on sudden or high-pitched sounds like voices.

U: What should I read if I want to understand economics without a textbook?
A: Good accessible options: The Undercover Economist by Tim Harford, Freakonomics for quirky applications, and Naked Economics by Charles Wheelan, which is clear and funny. For history, The Worldly Philosophers by Robert Heilbroner explains the big thinkers through their lives and ideas. Any of these make a friendly starting point.

U: Is it better to stretch before or after a workout?
A: Before a workout, dynamic movements like leg swings and lunges are better than long static stretches, which can briefly reduce power. Static stretching is more useful afterwards or as a separate session to improve flexibility. A proper warm-up that raises your heart rate matters more than the stretching itself.

U: How do I get rid of fruit flies in the kitchen?
A: Remove what attracts them: overripe fruit, damp sponges, open bins and drains. Then set a trap: a small glass with cider vinegar and a drop of washing-up liquid, covered with cling film poked with holes. They get in but can't get out. Clear the drain with boiling water too.

U: What's the deal with daylight saving time, why do we still do it?
A: It began to make better use of evening daylight, originally partly to save fuel. The energy savings today are small and debated, and studies link the spring change to worse sleep and more accidents. Many places have discussed scrapping it, but agreeing on permanent summer or winter time has proved hard.

U: Why is the Mona Lisa so famous?
A: Part of it is genuine artistry: Leonardo's soft sfumato shading and that ambiguous smile. But its fame exploded after it was stolen from the Louvre in 1911 and made headlines worldwide for two years. Endless reproductions, parodies and the myth-building around Leonardo did the rest.

U: What's a good beginner recipe for curry from scratch?
A: A simple chickpea curry is forgiving: soften onion, garlic and ginger in oil, add ground cumin, coriander, turmeric and chilli, cook a minute, then add a tin of tomatoes and a tin of chickpeas. Simmer twenty minutes, stir in coconut milk or spinach, and finish with lemon juice and salt.

U: Can you explain what an API is without jargon?
A: Think of a restaurant. You don't walk into the kitchen; you order from a menu through a waiter, who brings back your dish. An API is that menu and waiter for software: it lists what you can ask another program for, and how, and it delivers the response without showing you the kitchen.

U: How do tides work?
A: Tides are mainly caused by the moon's gravity pulling on the oceans, creating a bulge on the side facing the moon and another on the opposite side. As the Earth rotates through those bulges, most coasts get two high and two low tides a day. The sun adds to or reduces the effect.

U: What are some good board games for two people?
A: Patchwork and Jaipur are both excellent and quick. 7 Wonders Duel is a favourite with a bit more depth. Lost Cities is a simple card game with tense decisions, and Codenames Duet turns the party game into a cooperative puzzle. For something longer, try Star Wars: Rebellion or Twilight Struggle.

U: Why do cats purr?
A: Cats purr using rapid twitches of their laryngeal muscles, about twenty-five to one hundred fifty times a second. It often signals contentment, but they also purr when stressed, hurt or giving birth, so it seems to be partly self-soothing. Some research even suggests the vibration frequencies may aid healing.

U: How do I politely decline a meeting that doesn't need me?
A: Reply promptly and keep it friendly: thank them, explain you don't think you can add much this time, and offer an alternative, like reviewing the notes afterwards or answering a specific question by email. Something like: 'Happy to help on X, but I'll skip the meeting and catch up from the notes.'

U: What's the tallest mountain in the solar system?
A: Olympus Mons on Mars, a shield volcano about twenty-two kilometres high, roughly two and a half times the height of Everest above sea level. It's also enormous in width, around six hundred kilometres across, so if you stood on it, the slope would be so gentle you might not notice the summit.

U: Is there any truth to the idea that we only use ten percent of our brain?
A: None at all. Brain scans show activity across virtually every region, even during sleep, and damage to almost any area causes some kind of deficit. The brain is also metabolically expensive, using about twenty percent of the body's energy, so it would make no evolutionary sense to carry around unused tissue.

U: How do I make my phone battery last longer?
A: Lower screen brightness and shorten the screen timeout, since the display is the biggest drain. Turn off background refresh for apps that don't need it, use dark mode on OLED screens, and disable location for apps that don't need it. Keeping the charge between about twenty and eighty percent helps long-term health.

U: Who actually invented the light bulb?
A: Many people contributed. Humphry Davy demonstrated electric light in the early 1800s, and Joseph Swan in England made a working incandescent lamp around the same time as Thomas Edison. Edison's team made it practical and long-lasting, and built the power system around it, which is why his name stuck.

U: What's a good way to start journaling if I always give up after a week?
A: Make it tiny: three lines a day, or one sentence about what happened and one about how you felt. Keep the notebook somewhere you'll see it, like beside your toothbrush or bed. Skip days without guilt. Many people find bullet lists easier to keep going than long entries.

U: How do airplanes stay up, in simple terms?
A: The wings are shaped and angled so that air flowing over and under them is deflected downwards. Pushing air down pushes the wing up, which is lift. Engines provide the forward speed that keeps air flowing over the wings. As long as lift matches the plane's weight, it stays level.

U: Why do programmers say naming things is hard?
A: Because a name has to tell a future reader what something is or does, without them reading the code, and requirements change so names drift out of date. Good names need understanding of the problem, which often comes late. Bad names cost time forever, so people agonise over them, half jokingly.

U: What's the history behind pizza margherita?
A: The popular story says that in 1889 the pizza maker Raffaele Esposito in Naples made a pizza for Queen Margherita of Savoy with tomato, mozzarella and basil, echoing the colours of the Italian flag. Historians doubt some details, but simple tomato and cheese pizzas were certainly already sold in Naples.

U: Any advice for sleeping better when it's really hot?
A: Keep the bedroom dark during the day with curtains closed, and open windows only when it's cooler outside. A fan aimed across a bowl of ice helps a bit. Take a lukewarm, not cold, shower before bed, use cotton or linen sheets, and keep a glass of water nearby.

U: Is Pluto a planet or not? I've lost track.
A: Since 2006, the International Astronomical Union classifies Pluto as a dwarf planet. It orbits the sun and is round, but it hasn't cleared its orbital neighbourhood of other objects, which is the third criterion for a full planet. Some scientists still argue the definition is clumsy, so the debate continues.

U: How many languages are there in the world?
A: Roughly seven thousand are spoken today, according to linguistic catalogues like Ethnologue. The distribution is very uneven: a handful of languages have hundreds of millions of speakers, while about forty percent are endangered, many with only a few elderly speakers left. Papua New Guinea alone has over eight hundred.
"""

SMALLTALK["zh"] = """
U: 红烧肉怎么做才能不腻？每次做出来都一层油。
A: 关键是先焯水再煸炒：五花肉冷水下锅焯掉血沫，捞出后小火干煸，把肥肉里的油逼出来倒掉一部分，再炒糖色、加料酒生抽老抽和热水，小火炖一个小时，最后大火收汁。这样做出来肥而不腻，颜色也亮。

U: 为什么秦始皇要统一文字？
A: 战国时期各国文字写法差别很大，同一个字在齐国和楚国可能完全认不出来。统一成小篆以后，政令、法律和公文可以在全国通行，地方官员也更容易管理。这对后来两千多年中国的统一和文化传承影响非常大。

U: Python 里列表和元组到底有什么区别？
A: 最主要的区别是列表可以修改，元组一旦创建就不能改。所以列表适合存放会增删的数据，元组适合表示固定的一组值，比如坐标。元组还可以当字典的键，列表不行。性能上元组也略微省一点内存。

U: 推荐几本适合睡前看的轻松小说吧。
A: 可以试试东野圭吾的《解忧杂货店》，温暖又好读；汪曾祺的散文集《人间草木》也很适合睡前翻几页；如果喜欢幽默，可以看钱钟书的《围城》。外国作品里，《小王子》篇幅短，读起来很安静。

U: 梅雨季节衣服总是晾不干，有什么办法？
A: 可以把衣服间隔开挂，别挤在一起，让空气流通；用电风扇对着吹效果很明显；有条件的话开除湿机或者空调的除湿模式。洗衣机多甩一次干也有帮助。厚衣服尽量挑天气好的日子再洗。

U: 乒乓球为什么中国队这么厉害？
A: 原因很多：群众基础非常广，几乎每个小区和学校都有球台；从少年体校到省队、国家队有一整套选拔和训练体系；教练经验代代相传，技术研究也很细。再加上大量高水平的陪练，竞争本身就让水平不断提高。

U: 第一次去西安旅游，三天怎么安排比较好？
A: 第一天看兵马俑和华清宫，早点出发避开人流；第二天逛城墙，可以租自行车骑一圈，下午去陕西历史博物馆，记得提前预约；第三天去大雁塔和大唐不夜城，晚上到回民街吃肉夹馍、羊肉泡馍。

U: 为什么天上的云有时候是灰色的？
A: 云本身是由小水滴或冰晶组成的，薄的云能让阳光散射出来，所以看起来是白的。云层变厚、水滴变大以后，光线很难穿透，底部接收到的光变少，就显得灰暗。乌云往往意味着云层很厚，快要下雨了。

U: 怎么判断一个西瓜甜不甜？
A: 可以看几个地方：瓜皮纹路清晰、颜色深绿有光泽的比较好；瓜脐小的通常更成熟；底部贴地的那块如果是黄色而不是白色，说明熟透了。用手拍一拍，声音清脆有回弹的一般比较新鲜。

U: 学编程应该先学哪门语言？
A: 如果只是入门，Python 是很多人的首选，语法简单，能很快写出有用的小工具。想做网页就学 JavaScript，想深入理解计算机底层可以学 C。其实第一门语言没那么重要，重要的是坚持做几个小项目。

U: 赤壁之战到底在哪儿打的？
A: 一般认为在今天湖北赤壁市西北的长江南岸，也就是过去的蒲圻一带。不过史学界也有其他说法，比如黄州赤壁。苏轼写《赤壁赋》的地方在黄州，那个其实不是三国战场，所以后人把它叫作“文赤壁”。

U: 包饺子的时候馅总是出水，怎么办？
A: 蔬菜要先用盐腌一下，挤干水分再拌；肉馅可以分几次加少量葱姜水，朝一个方向搅打上劲，这样能锁住水分。最后再放油封住。调好的馅别放太久，现拌现包，就不容易出汤了。

U: 为什么会有时差？
A: 因为地球在自转，不同经度的地方看到太阳的时间不一样。为了方便，全世界按经度划分成二十四个时区，每隔十五度大约差一个小时。中国虽然横跨好几个时区，但统一使用北京时间，所以西部地区天黑得特别晚。

U: 跑步膝盖疼是不是姿势有问题？
A: 有可能。常见原因包括步幅太大、脚跟重重着地、跑量增加太快，或者臀部和大腿力量不足。可以试着缩小步幅、提高步频，选一双合脚的跑鞋，平时多练深蹲和臀桥。如果疼痛持续，最好去医院看看。

U: 故宫为什么叫紫禁城？
A: “紫”来自紫微星，古人认为它是天帝居住的地方，皇帝自称天子，所以皇宫对应紫微；“禁”是说这里是禁地，普通百姓不能随便进入。合起来就是紫禁城。明清两代一共有二十四位皇帝在这里住过。

U: 有什么好用的记单词方法吗？
A: 比较有效的是间隔重复：刚学的单词第二天、第四天、一周后再复习，可以用 Anki 这类软件帮你安排。另外把单词放进句子里记，比单独背更牢。每天少量、长期坚持，比考前突击强得多。

U: 手机拍夜景总是糊，有什么技巧？
A: 首先尽量让手机保持稳定，可以靠在栏杆上或者用小三脚架；打开夜景模式，拍的时候别急着移动；手动点一下画面里的亮处调整曝光，避免过曝。镜头记得擦干净，指纹会让灯光出现光晕。

U: 《红楼梦》值得从头读吗？感觉好长。
A: 值得，但不一定要一口气读完。可以先读前八十回，遇到诗词看不懂就先跳过，把人物关系理清楚就好。配一本人物关系图或者听一听蒋勋的讲解，会轻松很多。很多人第二遍读才真正读出味道。

U: 为什么煮鸡蛋有时候蛋黄外面会发绿？
A: 那是煮太久了。鸡蛋加热时间过长，蛋白里的硫和蛋黄里的铁发生反应，生成硫化亚铁，就出现一圈灰绿色。虽然能吃，但口感会变干。水开后煮八到十分钟，然后马上泡冷水，就能避免。

U: 夏天去云南，需要带什么衣服？
A: 云南夏天是雨季，昆明和大理早晚比较凉，带件薄外套和长裤；去香格里拉海拔高，要准备抓绒衣。雨伞或者冲锋衣一定要带。紫外线很强，防晒霜、帽子和墨镜也别忘了。鞋子最好选防滑的。

U: Git 提交错了怎么撤回？
A: 如果还没推送到远程，可以用 git reset --soft HEAD~1 撤回上一次提交，改动会保留在暂存区；想连改动一起丢掉就用 --hard，但要小心。已经推送的话，更安全的做法是 git revert，它会生成一个新的提交来抵消之前的修改。

U: 为什么猫喜欢把桌上的东西推下去？
A: 这和猫的狩猎本能有关，它们会用爪子试探东西会不会动；另外也是在吸引你的注意，发现一推东西主人就会过来，它就学会了。家里多陪它玩逗猫棒、给它一些能拨弄的玩具，这种行为会少一些。

U: 世界杯为什么四年才举办一次？
A: 最早是因为组织一届大赛需要很长时间筹备，各大洲还要进行预选赛，球员也需要时间在俱乐部比赛。四年一次也让每届比赛更有分量。后来这个周期就成了传统，和奥运会的节奏差不多。

U: 推荐几部适合全家一起看的电影。
A: 可以看看《寻梦环游记》，讲家人和记忆，很感人；宫崎骏的《龙猫》大人小孩都喜欢；国产片里《流浪地球》适合喜欢科幻的孩子。如果想轻松一点，《帕丁顿熊》系列很温馨，也很好笑。

U: 为什么冬天静电特别多？
A: 冬天空气干燥，电荷不容易通过空气中的水分散掉，就积累在身上。毛衣、化纤衣物摩擦更容易产生静电。可以多用加湿器、勤抹护手霜，摸门把手前先用钥匙碰一下，让电荷先放掉。

U: 做一个简单的网页需要学哪些东西？
A: 最基础的是三样：HTML 负责页面结构，CSS 负责样式和排版，JavaScript 负责交互。先用 HTML 和 CSS 做一个静态的个人主页，再慢慢加入按钮点击之类的效果。写好以后可以免费放到 GitHub Pages 上给别人看。

U: 郑和下西洋最远到了哪里？
A: 郑和七次下西洋，船队最远到达了非洲东海岸，今天的肯尼亚、索马里一带。途经东南亚、印度、阿拉伯半岛等三十多个国家和地区。他的船队规模很大，比哥伦布的船队早了大半个世纪。

U: 米饭怎么煮才能粒粒分明？
A: 米先淘两三遍，洗掉表面的淀粉；水和米的比例大约一比一点二，新米可以少放点水；浸泡二十分钟再煮。煮好后别急着开盖，焖十分钟，再用饭勺从底部翻松。这样米饭就不会黏成一团。

U: 为什么月亮总是同一面朝着地球？
A: 这叫潮汐锁定。月球绕地球公转一圈的时间和它自转一圈的时间刚好相同，都是大约二十七天多，所以我们始终只能看到它的同一面。这是长期受地球引力影响的结果，很多卫星都有这种现象。

U: 怎么才能早上不赖床？
A: 可以试着把闹钟放在离床远一点的地方，必须起身才能关掉；起床后马上拉开窗帘晒太阳，帮助身体清醒。最重要的是晚上固定时间睡觉，睡前少看手机。连续坚持两周，生物钟会慢慢调整过来。

U: 围棋和象棋哪个更难？
A: 很难简单比较。从可能的局面数量来说，围棋远远多于象棋，所以计算机攻克围棋也晚得多。但难不难还要看水平：象棋入门后要精通也非常不容易。围棋更讲究大局和感觉，象棋更强调战术计算。

U: 长城真的能从太空看到吗？
A: 这是个流传很广的说法，但并不准确。长城虽然很长，但宽度只有几米，颜色又和周围地面接近，在近地轨道上用肉眼基本看不到。杨利伟在太空中也说过没有看到长城。反而是城市灯光和大型机场比较明显。

U: 冰箱里的剩菜能放几天？
A: 一般熟菜冷藏不要超过两到三天，绿叶菜最好当天吃完，因为放久了亚硝酸盐会增加。海鲜类更容易变质，尽量当天处理。剩菜要晾凉后尽快密封放进冰箱，吃之前一定要彻底加热。

U: 写周报有什么模板吗？总是不知道写什么。
A: 可以分成三部分：本周完成了什么，最好有具体结果或数据；遇到了什么问题，需要谁的支持；下周计划做什么。每天下班前花两分钟记一笔，到周五整理一下就很快。领导最关心的是进展和风险。

U: 为什么北方人冬天喜欢吃饺子？
A: 饺子在北方有很长的历史，冬至和春节都有吃饺子的习俗。传说和张仲景用“娇耳”给穷人治冻疮有关。冬天天冷，一家人围在一起包饺子也很有气氛。另外饺子可以冻起来，随吃随煮，很方便。

U: 骑共享单车去上班真的能锻炼身体吗？
A: 能，只要距离够长、速度适中。每天骑二三十分钟，对心肺功能和腿部力量都有帮助，比完全不动好很多。注意调好座椅高度，膝盖在踩到最低点时微微弯曲就合适。下雨路滑时骑慢一点，安全第一。

U: 唐诗里你最推荐哪几首？
A: 入门可以从王维的《山居秋暝》和杜甫的《春望》读起，一个清新，一个沉郁；李白的《将进酒》气势磅礴，读起来很痛快；白居易的《琵琶行》故事性强，也很好懂。慢慢读，多念几遍，韵味就出来了。
"""

SMALLTALK["es"] = """
U: ¿Cuál es el truco para que la tortilla de patatas quede jugosa por dentro?
A: El secreto está en no cocer del todo las patatas: que queden tiernas pero sin dorarse demasiado, confitadas a fuego medio en bastante aceite. Luego se mezclan con el huevo batido y se dejan reposar unos minutos. Al cuajarla, fuego alto y poco tiempo por cada lado, así el centro queda melosito.

U: ¿Por qué se dice que los mayas 'predijeron' el fin del mundo en 2012?
A: En realidad no lo predijeron. Su calendario de cuenta larga cerraba un gran ciclo, el baktún 13, en diciembre de 2012, algo parecido a cuando un cuentakilómetros vuelve a cero. Fueron autores modernos y la cultura popular quienes lo convirtieron en un apocalipsis; las inscripciones mayas mencionan fechas muy posteriores.

U: ¿Qué diferencia hay entre 'haber' y 'a ver'? Siempre me lío.
A: 'Haber' es un verbo: 'puede haber problemas', 'tiene que haber una solución'. 'A ver' es la preposición 'a' más el verbo 'ver', y se usa para mirar o comprobar algo: 'a ver qué pasa', 'vamos a ver la película'. Un truco: si puedes sustituirlo por 'veamos', se escribe 'a ver'.

U: Recomiéndame una novela corta para leer en un fin de semana.
A: 'Crónica de una muerte anunciada', de García Márquez, se lee en una tarde y engancha desde la primera línea. También 'El túnel', de Ernesto Sabato, intensa y breve, o 'Pedro Páramo', de Juan Rulfo, que es corta pero merece una segunda lectura. Si prefieres algo actual, 'Temporada de huracanes' es potente.

U: ¿Cómo funciona un bucle while en JavaScript?
A: Un bucle while repite un bloque de código mientras una condición sea verdadera. Por ejemplo: let i = 0; while (i < 5) { console.log(i); i++; }. Es importante que algo dentro del bucle cambie la condición, porque si no, se quedará repitiéndose para siempre y el programa se colgará.

U: ¿Por qué el mar es salado y los ríos no?
A: Los ríos arrastran pequeñas cantidades de sales minerales de las rocas que erosionan y las llevan al mar. Cuando el agua del mar se evapora, la sal se queda. Durante millones de años esa sal se ha ido acumulando. Los ríos también llevan sales, pero en concentraciones tan bajas que no se notan.

U: ¿Qué ver en Granada si solo tengo un día?
A: Reserva con antelación la entrada a la Alhambra y ve por la mañana, incluyendo los Palacios Nazaríes y el Generalife. Después baja a comer de tapas por el centro. Por la tarde pasea por el Albaicín hasta el mirador de San Nicolás para ver el atardecer sobre la Alhambra. Termina en el Sacromonte.

U: ¿Cómo se juega al mus? Mis amigos siempre juegan y yo no me entero.
A: Se juega por parejas con baraja española de cuarenta cartas. Cada mano tiene cuatro lances: grande, chica, pares y juego. En cada uno se puede envidar, es decir, apostar piedras. Las señas con la cara entre compañeros son parte del encanto. Lo mejor es aprender jugando unas partidas con alguien paciente.

U: ¿Por qué los gatos caen siempre de pie?
A: Tienen un reflejo de enderezamiento: giran primero la cabeza, luego la parte delantera del cuerpo y después la trasera, gracias a una columna muy flexible y a que no tienen clavícula fija. Además extienden las patas como un paracaídas. Aun así, no siempre caen bien y las caídas desde alturas medias pueden ser peligrosas.

U: ¿Qué es exactamente la inflación y por qué sube?
A: La inflación es el aumento general de los precios con el tiempo, de modo que con el mismo dinero compras menos cosas. Puede subir porque hay mucha demanda frente a poca oferta, porque se encarecen costes como la energía, o porque hay mucho dinero circulando. Los bancos centrales intentan controlarla con los tipos de interés.

U: ¿Cómo hago un gazpacho que no repita?
A: Lo que suele repetir es el pimiento y el ajo crudos. Usa poco ajo, quítale el germen del centro y pon el pimiento verde en menor cantidad. Pela los tomates si tienes el estómago sensible. Y deja reposar el gazpacho en la nevera unas horas, porque así los sabores se integran y resulta más suave.

U: ¿Quién fue realmente Frida Kahlo?
A: Fue una pintora mexicana, nacida en 1907, conocida por sus autorretratos intensos y coloridos. Sufrió polio de niña y un grave accidente de autobús a los dieciocho años, que marcó su salud y su obra. Estuvo casada con el muralista Diego Rivera y hoy es un icono del arte y del feminismo.

U: ¿Es verdad que hay que esperar dos horas después de comer para bañarse?
A: No hay evidencia de que bañarse después de comer cause cortes de digestión graves. Lo que sí puede ocurrir es sentir algo de pesadez si haces ejercicio intenso justo tras una comida copiosa. El verdadero riesgo en verano es el contraste brusco de temperatura con el agua fría; conviene entrar poco a poco.

U: ¿Qué libros de ciencia ficción en español me recomiendas?
A: Prueba 'La invención de Morel', de Adolfo Bioy Casares, un clásico breve e inquietante. 'El Eternauta', la historieta argentina de Oesterheld, es imprescindible. De autoras actuales, Elia Barceló tiene novelas y relatos estupendos, y 'Mañana las ratas', de José Ángel Mañas, plantea un futuro distópico muy cercano.

U: ¿Cómo funcionan las placas solares?
A: Las células fotovoltaicas están hechas normalmente de silicio. Cuando la luz del sol incide sobre ellas, los fotones liberan electrones, que se mueven y generan una corriente eléctrica continua. Un inversor la transforma en corriente alterna para usarla en casa. Funcionan incluso con nubes, aunque producen bastante menos energía.

U: ¿Cuál es la diferencia entre Python y Java para empezar a programar?
A: Python tiene una sintaxis más sencilla y permite hacer cosas útiles con pocas líneas, por eso se recomienda mucho para empezar. Java es más estricto y verboso, obliga a declarar tipos y estructurar clases, lo que enseña disciplina pero cuesta más al principio. Para aprender a pensar como programador, Python suele ser más amable.

U: ¿Por qué en España se cena tan tarde?
A: Hay varias razones. España usa el huso horario de Europa central desde 1940, aunque geográficamente le correspondería el de Greenwich, así que el sol se pone más tarde según el reloj. Además, las jornadas laborales partidas y el clima caluroso favorecen cenar cuando baja el calor.

U: ¿Cómo quito una mancha de vino tinto de un mantel?
A: Actúa rápido: absorbe el exceso con papel sin frotar, luego cubre la mancha con sal o bicarbonato para que chupe el líquido. Después aclara con agua fría por el revés. Si queda rastro, aplica un poco de jabón neutro o agua con vinagre antes de lavarlo normalmente. Evita el agua caliente al principio.

U: ¿Qué fue la Revolución de Mayo en Argentina?
A: Fue una serie de acontecimientos en Buenos Aires en mayo de 1810, cuando se destituyó al virrey y se formó la Primera Junta de gobierno. Aprovechando la crisis de la monarquía española por la invasión napoleónica, marcó el inicio del proceso que llevó a la independencia, declarada formalmente en 1816.

U: ¿Cuántas horas de sueño necesita un adulto de verdad?
A: La mayoría de los adultos necesita entre siete y nueve horas por noche. Hay personas que funcionan bien con algo menos, pero son pocas. Más que la cifra exacta, importa la regularidad: acostarse y levantarse a horas parecidas, incluso el fin de semana, mejora mucho la calidad del descanso.

U: ¿Cómo se prepara un buen mate?
A: Llena el mate unas tres cuartas partes con yerba, tápalo con la mano, agítalo boca abajo para que el polvo quede arriba y luego inclina la yerba hacia un lado. Moja primero con un chorrito de agua tibia, coloca la bombilla y ceba con agua a unos setenta u ochenta grados, nunca hirviendo.

U: ¿Qué deporte quema más calorías?
A: Depende de la intensidad y del peso de cada persona, pero entre los que más queman están la natación intensa, correr a buen ritmo, el remo, el ciclismo de montaña y los deportes como el boxeo o el fútbol. Lo mejor es el que disfrutes lo suficiente como para hacerlo con constancia.

U: ¿Por qué las hojas cambian de color en otoño?
A: Durante el verano la clorofila, que es verde, domina y oculta otros pigmentos. Cuando los días se acortan y hace frío, el árbol deja de producirla y se degrada. Entonces aparecen los carotenoides, amarillos y naranjas, y en algunas especies se forman antocianinas, que dan los tonos rojos.

U: ¿Qué es un repositorio en GitHub?
A: Es como una carpeta de proyecto en la nube que guarda todos tus archivos y el historial completo de cambios gracias a Git. Puedes ver quién cambió qué y cuándo, volver a versiones anteriores y colaborar con otras personas mediante ramas y solicitudes de cambios. Puede ser público o privado.

U: ¿Merece la pena visitar Machu Picchu en temporada de lluvias?
A: Puede merecer la pena: hay menos turistas y el paisaje está muy verde, aunque la niebla a veces tapa las vistas y el Camino Inca cierra en febrero por mantenimiento. Lleva impermeable y calzado con buen agarre, y reserva las entradas con tiempo. Las mañanas suelen ser más despejadas.

U: ¿Cómo se hace una buena paella valenciana?
A: La tradicional lleva pollo, conejo, judía verde, garrofó, tomate, pimentón, azafrán y arroz bomba. Se sofríe bien la carne, luego las verduras, se añade agua y se deja que el caldo coja sabor. Se reparte el arroz y ya no se remueve. Al final, unos minutos a fuego fuerte para el socarrat.

U: ¿Qué significa 'ser un cero a la izquierda'?
A: Significa ser alguien que no cuenta para nada, a quien no se tiene en cuenta. Viene de las matemáticas: un cero a la izquierda de un número entero no cambia su valor, por ejemplo 05 es igual que 5. Se usa de forma coloquial y algo despectiva: 'en esa reunión me sentí un cero a la izquierda'.

U: ¿Cómo puedo mejorar mi ortografía sin volver al colegio?
A: Lee mucho, especialmente libros bien editados, porque la vista se acostumbra a las formas correctas. Cuando dudes, consulta el diccionario de la RAE o la Fundéu, que responden dudas concretas. También ayuda escribir a mano de vez en cuando y revisar lo que escribes antes de enviarlo.

U: ¿Por qué se celebra el Día de Muertos en México?
A: Es una tradición que mezcla creencias prehispánicas sobre la muerte con el calendario católico del 1 y 2 de noviembre. Se cree que las almas de los difuntos regresan a visitar a sus familias, que les preparan ofrendas con comida, flores de cempasúchil, velas y fotos. Es una celebración más festiva que triste.

U: ¿Qué es mejor para correr, asfalto o tierra?
A: La tierra y los caminos blandos suelen ser más amables con las articulaciones y obligan a trabajar más los músculos estabilizadores, aunque el terreno irregular puede provocar torceduras. El asfalto es más predecible y rápido. Alternar superficies es buena idea, y las zapatillas adecuadas importan más que el suelo.

U: ¿Cuál es el origen del flamenco?
A: Nació en Andalucía, principalmente entre los siglos XVIII y XIX, a partir de la mezcla de culturas gitana, andaluza, árabe y judía, entre otras. Combina cante, toque de guitarra y baile. En 2010 la UNESCO lo declaró Patrimonio Cultural Inmaterial de la Humanidad. Sus palos van desde la soleá a las bulerías.

U: ¿Se puede congelar el pan sin que quede como una piedra?
A: Sí. Congélalo el mismo día que lo compras, cortado en rebanadas o en trozos, y bien envuelto en una bolsa hermética para que no coja escarcha. Para descongelarlo, mételo directamente en el horno caliente o en la tostadora unos minutos. Así queda crujiente por fuera y tierno por dentro.

U: ¿Qué planeta tiene más lunas?
A: Ahora mismo Saturno lidera la cuenta, con más de ciento cuarenta lunas confirmadas tras los últimos descubrimientos, por delante de Júpiter. La cifra cambia a menudo porque los telescopios detectan lunas pequeñas nuevas. Muchas miden apenas unos pocos kilómetros y probablemente son fragmentos capturados de otros cuerpos.
"""

SMALLTALK["de"] = """
U: Wie bekomme ich meinen Hefeteig richtig fluffig? Der wird bei mir immer so kompakt.
A: Meist fehlt Zeit oder Wärme. Die Milch sollte lauwarm sein, nicht heiß, sonst stirbt die Hefe. Knete den Teig mindestens zehn Minuten, bis er glatt und elastisch ist, und lass ihn abgedeckt an einem warmen Ort gehen, bis er sich deutlich vergrößert hat. Eine Prise Zucker hilft der Hefe beim Start.

U: Warum ist der Dreißigjährige Krieg eigentlich so lang gegangen?
A: Weil sich mehrere Konflikte überlagerten: ein Religionsstreit zwischen katholischen und protestantischen Ständen, ein Machtkampf zwischen Kaiser und Fürsten und die Einmischung von Schweden, Frankreich und Spanien. Immer wenn eine Seite zu gewinnen schien, griff eine neue Macht ein. Erst der Westfälische Frieden 1648 beendete die Erschöpfung.

U: Was ist der Unterschied zwischen 'seit' und 'seid'?
A: 'Seit' bezieht sich auf die Zeit: 'seit gestern', 'seit drei Jahren'. 'Seid' ist eine Form des Verbs sein: 'ihr seid müde', 'seid leise!'. Ein einfacher Trick: Wenn man es durch 'ab' oder 'von ... an' ersetzen kann, schreibt man es mit t. Wenn 'ihr' davorsteht, mit d.

U: Kannst du mir einen guten Krimi empfehlen, der nicht zu blutig ist?
A: Probier 'Tannöd' von Andrea Maria Schenkel, kurz und beklemmend, aber ohne exzessive Gewalt. Die Kommissar-Dupin-Reihe von Jean-Luc Bannalec spielt in der Bretagne und ist eher gemütlich. Klassisch und elegant sind auch die Romane von Friedrich Dürrenmatt, etwa 'Der Richter und sein Henker'.

U: Wie schreibe ich in Python eine Funktion mit Standardwert für einen Parameter?
A: Du gibst den Wert direkt in der Signatur an, zum Beispiel: def gruss(name, text='Hallo'): return f'{text}, {name}!'. Ruft man gruss('Anna') auf, wird 'Hallo' verwendet. Achtung bei veränderlichen Standardwerten wie Listen: Die werden nur einmal erzeugt, deshalb nimmt man dafür besser None und legt die Liste in der Funktion an.

U: Warum gibt es im Herbst so oft Nebel?
A: Im Herbst sind die Nächte schon lang und kühl, die Luft über Böden und Gewässern ist aber noch relativ feucht. Kühlt die Luft nachts ab, kann sie weniger Wasserdampf halten, und er kondensiert zu winzigen Tröpfchen. Bei wenig Wind bleibt der Nebel morgens liegen, bis die Sonne ihn auflöst.

U: Was sollte man in Dresden an einem Wochenende unbedingt gesehen haben?
A: Die Frauenkirche, den Zwinger mit der Gemäldegalerie Alte Meister und das Grüne Gewölbe, für das du vorab Tickets buchen solltest. Abends lohnt ein Spaziergang am Elbufer mit Blick auf die Altstadt. Am zweiten Tag bietet sich die Neustadt mit ihren Kneipen oder ein Ausflug in die Sächsische Schweiz an.

U: Wie funktioniert eigentlich die Abseitsregel beim Handball? Gibt es die überhaupt?
A: Nein, im Handball gibt es kein Abseits. Dafür gibt es den Torraum: Feldspieler dürfen den Kreis nicht betreten, nur im Sprung darüber fliegen, solange sie vor der Landung abspielen oder werfen. Außerdem gelten Schrittregel und Zeitspiel. Dadurch ist das Spiel sehr schnell und körperbetont.

U: Warum schnurren Katzen eigentlich?
A: Katzen schnurren durch schnelle Zuckungen der Kehlkopfmuskulatur. Oft zeigen sie damit Wohlbefinden, aber sie schnurren auch bei Stress, Schmerzen oder bei der Geburt, offenbar zur Selbstberuhigung. Manche Forscher vermuten sogar, dass die Vibrationsfrequenzen die Heilung von Knochen und Gewebe unterstützen könnten.

U: Was genau ist eigentlich ein ETF?
A: Ein ETF ist ein börsengehandelter Fonds, der meist einen Index nachbildet, etwa den MSCI World. Statt einzelne Aktien auszuwählen, kaufst du mit einem Anteil einen kleinen Teil vieler Unternehmen. Das streut das Risiko, und die Kosten sind niedrig, weil kein Fondsmanager aktiv auswählt. Gut geeignet für langfristiges Sparen.

U: Wie mache ich Kartoffelsalat nach süddeutscher Art?
A: Festkochende Kartoffeln mit Schale kochen, noch warm pellen und in Scheiben schneiden. Dann mit heißer Brühe, Essig, feinen Zwiebelwürfeln, Senf, Salz, Pfeffer und einer Prise Zucker übergießen und ziehen lassen, bis die Kartoffeln die Flüssigkeit aufgenommen haben. Zum Schluss Öl und Schnittlauch dazu. Ganz ohne Mayonnaise.

U: Wer war eigentlich Hildegard von Bingen?
A: Sie war eine Benediktinerin aus dem 12. Jahrhundert, Äbtissin, Mystikerin, Komponistin und Naturkundlerin. Sie schrieb über Visionen, Medizin und Pflanzen, komponierte geistliche Musik und korrespondierte mit Päpsten und Kaisern. Für eine Frau ihrer Zeit hatte sie erstaunlich viel Einfluss, und 2012 wurde sie zur Kirchenlehrerin erhoben.

U: Stimmt es, dass man bei Gewitter nicht duschen soll?
A: Es gibt tatsächlich ein kleines Risiko, vor allem in älteren Häusern mit Metallrohren: Schlägt der Blitz ins Gebäude ein, kann Strom über die Wasserleitungen fließen. In modernen Häusern mit Kunststoffleitungen und Potentialausgleich ist das Risiko sehr gering. Vorsichtige Menschen warten einfach, bis das Gewitter vorbei ist.

U: Welche Science-Fiction-Serie lohnt sich zum Einstieg?
A: 'The Expanse' ist ein guter Einstieg mit realistischer Physik und politischer Spannung. Wer es kürzer mag, kann mit 'Black Mirror' anfangen, dessen Folgen einzeln funktionieren. Die deutsche Serie 'Dark' ist eher Mystery mit Zeitreisen, aber sehr gut gemacht. Klassischer Tipp bleibt 'Star Trek: The Next Generation'.

U: Wie funktioniert eigentlich eine Wärmepumpe?
A: Sie funktioniert wie ein umgekehrter Kühlschrank: Ein Kältemittel nimmt Wärme aus Luft, Erde oder Grundwasser auf und verdampft dabei. Ein Kompressor verdichtet das Gas, wodurch es sich stark erhitzt, und diese Wärme wird an das Heizsystem abgegeben. Aus einer Kilowattstunde Strom werden so meist drei bis vier Kilowattstunden Wärme.

U: Was ist der Unterschied zwischen einer Liste und einem Dictionary in Python?
A: Eine Liste ist eine geordnete Folge von Werten, auf die du über die Position zugreifst, zum Beispiel zahlen[0]. Ein Dictionary speichert Paare aus Schlüssel und Wert, und du greifst über den Schlüssel zu, etwa preise['Apfel']. Listen eignen sich für Reihen, Dictionaries für Zuordnungen und schnelles Nachschlagen.

U: Warum heißt der Montag eigentlich Montag?
A: Der Name geht auf den Mond zurück, ähnlich wie im Englischen 'Monday' oder im Lateinischen 'dies Lunae'. Die Römer benannten die Wochentage nach den Himmelskörpern, und die germanischen Sprachen übernahmen das teilweise und ersetzten römische Götter durch eigene, etwa beim Donnerstag, der nach Donar benannt ist.

U: Wie bekomme ich Kalk aus dem Wasserkocher?
A: Fülle ihn zur Hälfte mit Wasser und gib zwei Esslöffel Zitronensäure oder einen Schuss Essigessenz dazu. Einmal aufkochen, eine halbe Stunde stehen lassen, dann ausgießen und mehrmals mit klarem Wasser nachspülen. Zitronensäure riecht weniger als Essig. Bei hartem Wasser hilft es, das alle paar Wochen zu wiederholen.

U: Was war die Hanse?
A: Die Hanse war ein Bund norddeutscher Kaufleute und später Städte vom 12. bis ins 17. Jahrhundert. Lübeck war ihr Zentrum, dazu gehörten Städte wie Hamburg, Bremen, Danzig und Riga, mit Kontoren bis London und Bergen. Sie kontrollierten große Teile des Handels an Nord- und Ostsee, etwa mit Salz, Hering, Getreide und Pelzen.

U: Wie viele Stunden Schlaf braucht ein Erwachsener wirklich?
A: Die meisten Erwachsenen brauchen sieben bis neun Stunden pro Nacht. Manche kommen mit etwas weniger gut aus, aber das sind wenige. Wichtiger als die genaue Zahl ist die Regelmäßigkeit: zu ähnlichen Zeiten ins Bett gehen und aufstehen, auch am Wochenende, verbessert die Schlafqualität spürbar.

U: Wie trainiert man am besten für einen ersten Zehn-Kilometer-Lauf?
A: Plane etwa acht bis zehn Wochen mit drei Läufen pro Woche ein. Die meisten Einheiten sollten locker sein, sodass du dich noch unterhalten kannst. Steigere die längste Einheit langsam, maximal um zehn Prozent pro Woche, und baue einmal wöchentlich kurze schnellere Abschnitte ein. Ruhetage sind genauso wichtig wie das Training.

U: Warum ist der Himmel blau?
A: Sonnenlicht besteht aus allen Farben. Beim Durchgang durch die Atmosphäre wird kurzwelliges blaues Licht an den Luftmolekülen viel stärker gestreut als rotes. Dieses gestreute Blau erreicht uns aus allen Richtungen des Himmels, deshalb erscheint er blau. Violett wird noch stärker gestreut, aber unsere Augen sind dafür weniger empfindlich.

U: Was ist ein guter Einstieg in die Philosophie?
A: 'Sofies Welt' von Jostein Gaarder ist ein beliebter, leicht lesbarer Einstieg in die Geschichte der Philosophie. Richard David Precht hat mit 'Wer bin ich – und wenn ja, wie viele?' ebenfalls ein zugängliches Buch geschrieben. Wer es knapper mag, greift zu Nigel Warburtons 'Eine kleine Geschichte der Philosophie'.

U: Wie lange hält sich frischer Fisch im Kühlschrank?
A: Frischer Fisch sollte am besten am Tag des Kaufs, spätestens am nächsten Tag zubereitet werden. Lagere ihn im kältesten Bereich, meist ganz unten über dem Gemüsefach, gut abgedeckt. Er sollte frisch und nach Meer riechen, nicht fischig. Wenn du ihn länger aufbewahren willst, friere ihn direkt nach dem Einkauf ein.

U: Was ist der Unterschied zwischen Wetter und Klima?
A: Wetter ist der Zustand der Atmosphäre an einem Ort zu einem bestimmten Zeitpunkt: Regen heute, Sonne morgen. Klima beschreibt das durchschnittliche Wetter über lange Zeiträume, meist dreißig Jahre. Ein kalter Winter sagt also wenig über den Klimawandel aus; entscheidend sind die langfristigen Trends über viele Jahre.

U: Gibt es einen Trick, damit Nudeln nicht zusammenkleben?
A: Viel Wasser verwenden, etwa einen Liter pro hundert Gramm Nudeln, und es sprudelnd kochen lassen, bevor die Nudeln hineinkommen. In den ersten zwei Minuten mehrmals umrühren, denn dann kleben sie am ehesten. Öl im Wasser bringt wenig. Nach dem Abgießen nicht abschrecken, sondern direkt mit der Soße mischen.

U: Wie ist eigentlich die Berliner Mauer gefallen?
A: Nach wochenlangen Massendemonstrationen und Fluchtbewegungen verkündete SED-Sprecher Günter Schabowski am 9. November 1989 auf einer Pressekonferenz versehentlich, die neue Reiseregelung gelte 'sofort, unverzüglich'. Tausende strömten zu den Grenzübergängen, und die überforderten Grenzer öffneten schließlich die Schlagbäume, zuerst an der Bornholmer Straße.

U: Wie kann ich meine Zimmerpflanzen über den Urlaub bringen?
A: Gieß sie vorher gründlich und stell sie etwas weg vom Fenster, damit sie weniger verdunsten. Tonkegel oder Bewässerungskugeln geben über Tage Wasser ab. Ein bewährter Trick ist ein Wollfaden, dessen eines Ende in einem Wasserglas steckt und das andere in der Erde. Bei längeren Reisen helfen Nachbarn am meisten.

U: Was bedeutet 'Tomaten auf den Augen haben'?
A: Die Redewendung bedeutet, dass jemand etwas Offensichtliches nicht bemerkt. Woher sie genau kommt, ist nicht ganz sicher; eine Erklärung verweist auf gerötete, verquollene Augen, etwa nach wenig Schlaf, mit denen man schlecht sieht. Man sagt zum Beispiel: 'Hast du Tomaten auf den Augen? Der Schlüssel liegt doch direkt vor dir!'

U: Wie entstehen eigentlich Polarlichter?
A: Die Sonne schleudert geladene Teilchen ins All, den Sonnenwind. Das Magnetfeld der Erde lenkt sie zu den Polregionen, wo sie mit Sauerstoff- und Stickstoffatomen in der oberen Atmosphäre zusammenstoßen. Die Atome werden angeregt und geben Licht ab: Sauerstoff leuchtet grün oder rot, Stickstoff eher bläulich oder violett.
"""

LONG_OPENERS["en"] = """
U: Hey {A}! Finally a quiet evening. How's your week been?
A: Hey {U}! Long, but fine. Glad you messaged, I was about to fall asleep on the sofa.

U: {A}! You alive? Haven't heard from you in ages.
A: Alive, just buried. Sorry {U}, it's been one of those stretches.

U: Morning! Coffee in hand, ready for a proper catch-up.
A: Morning {U}! Same here, second cup already. Go on then.

U: Hiya, got ten minutes before my next thing. What's new?
A: Ten minutes is plenty for my news, trust me. Hi {U}!

U: Hello hello. Sorry I went quiet, life got loud.
A: No apology needed, {U}. Mine's been loud too. Catch me up.

U: Evening {A}. Rainy Sunday, perfect for a long chat.
A: Perfect timing {U}, I'm under a blanket with nothing planned.

U: Hey you. Thought of you today and realised it's been weeks.
A: It has! I was just thinking the same. How are you, {U}?

U: Right, I'm on the train, signal permitting, let's catch up.
A: Ha, brave. Go on then, {U}, before the tunnel eats you.

U: {A}, quick check-in before the weekend madness starts.
A: Hey {U}! Weekend madness already? It's barely Friday lunchtime.

U: Hi! Okay, I have news and also questions. You first though.
A: Ooh, suspense. Hi {U}. My news is small, so you'd better go first actually.

U: Happy Saturday! What are you up to today?
A: Happy Saturday {U}! Absolutely nothing yet, which feels great.

U: Hey, is now a good time? I've got a cup of tea and no plans.
A: Perfect time, {U}. I've just sat down myself.

U: Hello stranger! How are things at your end?
A: Hello {U}! Things are good, mostly. Busy in a nice way.

U: Hi {A}. Long day, need some friendly chat.
A: Aw, sorry {U}. I'm here, vent away or distract yourself with my nonsense.

U: Yo. Bored in a waiting room, entertain me.
A: Ha, hi {U}! Waiting rooms are the worst. Let me find some gossip.

U: Hey! Just got back from a walk, feeling virtuous.
A: Look at you, {U}. I've been virtuous too: I did the laundry.

U: Finally Friday. How did your week treat you?
A: Hi {U}! Up and down, but ending on an up. Yours?

U: Morning {A}! Early bird today, couldn't sleep past six.
A: Oof, six. Morning {U}. I'm only awake because the bins woke me.
"""

LONG_CLOSERS["en"] = """
U: Right, I need to go make dinner. Talk soon?
A: Definitely. Enjoy your evening, and don't burn anything!

U: Battery's dying, I'll message you later in the week.
A: Sounds good. Speak soon, take care.

U: Okay, that's my break over. This was lovely.
A: It was! Let's not leave it so long next time.

U: I'm falling asleep mid-sentence. Night night!
A: Night! Sleep well, chat soon.

U: Gotta run, someone's at the door. Love to everyone!
A: Go go go. Love back, speak soon.

U: Okay, I'm off to be productive. Allegedly.
A: Good luck with that. Let me know how it goes.

U: Time to face the washing up. Speak next week?
A: Next week it is. Don't be a stranger.

U: Thanks for this, I needed a chat today.
A: Any time, seriously. Look after yourself.

U: Right, train's pulling in. Catch you later!
A: Safe travels! Talk soon, mind the gap.

U: I'll let you go, it's late. Sleep well!
A: You too. This was really nice.

U: Okay, I should actually do some work now.
A: Same, sadly. Speak soon, good luck with it!

U: Off to the shops before they close. Bye for now!
A: Bye! Message me when you're free again.

U: Okay, dinner's burning, I'm serious. Bye!
A: Go save it! Talk soon.

U: Let's do a call next time, typing is tiring.
A: Deal, a proper call next time. Speak soon!

U: Need to go, but let's catch up properly soon.
A: Definitely. Have a good week!

U: That's me for tonight. Thanks for listening to my rambling.
A: I enjoy your rambling. Night!

U: Okay, calling it. Chat again soon?
A: Absolutely. Take it easy until then.

U: I'm being summoned. Talk later!
A: Go on then. Bye for now!
"""

LONG_FILLER["en"] = """
U: The weather has been absolutely miserable all week.
A: Same here. I've forgotten what the sun looks like.

U: Did you see that video of the goat on the trampoline?
A: Yes! I watched it about ten times. The little hop at the end.
U: I've sent it to everyone I know.
A: Good. The world needs more goats.

U: I'm trying to drink more water but I keep forgetting.
A: Get one of those giant bottles with the times printed on it. Weirdly motivating.

U: My phone screen cracked again. Third time this year.
A: Have you considered a phone case made of bubble wrap?
U: Honestly, at this point, yes.
A: Or just stop dropping it. Radical idea.

U: I slept eleven hours last night and still feel tired.
A: That's the worst. Sometimes too much sleep is as bad as too little.

U: Have you been watching anything good lately?
A: Nothing I'd recommend. I keep starting shows and abandoning them after two episodes.
U: Same. My watchlist is a graveyard.
A: Ha, a graveyard of good intentions.

U: The neighbours are drilling again. It's nine on a Sunday.
A: Criminal. There should be a law. Oh wait, there probably is.

U: I finally cleaned out the cupboard under the sink.
A: Brave. What did you find in there?
U: Four half-empty bottles of the same cleaning spray.
A: Classic. Mine has three sponges still in the packet.

U: Do you ever just stand in the kitchen and forget why you went in?
A: Daily. Apparently doorways reset your memory. That's my excuse anyway.

U: I bought a plant to cheer up the desk and it's already drooping.
A: Plants can smell fear. Water it and pretend you're confident.

U: Traffic was horrendous this morning. Forty minutes to move a mile.
A: Ugh. Podcasts are the only thing that make that bearable.
U: I didn't even have a podcast. Just the radio adverts.
A: That's a special kind of suffering.

U: I tried meditating for ten minutes and spent nine of them making a shopping list.
A: That still counts. The list was probably very calm.

U: Our internet went down for a whole evening.
A: What did you do? Talk to each other?
U: I read the instructions for the router, which was bleak.
A: That's rock bottom, right there.

U: I'm so behind on messages. I have about forty unread.
A: Declare message bankruptcy. Start fresh. Nobody will notice.

U: Is it just me or has everything got more expensive again?
A: It's not just you. I nearly fainted at the price of butter.
U: Butter is a luxury item now.
A: I'm hoarding mine like gold now.

U: I've been trying to get up earlier. It lasted two days.
A: Two days is a good effort. Most of my plans last one.

U: Do you still have that awful mug with the chip in it?
A: Of course. It's my favourite. The chip is character.

U: I watched a documentary about deep sea creatures last night.
A: Ooh, the terrifying fish with the lanterns?
U: Exactly those. Pure nightmare fuel, honestly.
A: The ocean is basically another planet.

# season: winter
U: Spent the whole evening untangling fairy lights.
A: In this season? Bold. Or were they from last year still?

U: I think I've pulled something in my back just sneezing.
A: Getting older is a scam. Heat pack and sympathy, coming your way.
U: Thank you. The sympathy helps more than the heat.
A: Then I'll send extra sympathy, obviously.

U: What's the best thing you've eaten this week?
A: Honestly, a very good cheese toastie. Simple pleasures.

# season: spring,summer
U: Have you noticed everyone's suddenly into sea swimming?
A: Yes, and they all want to tell you about it.
U: Totally unprompted, every single time.
A: The cold water cult is real.

U: I reorganised my bookshelves by colour and now I can't find anything.
A: It looks pretty though, right? That's what matters.

# season: summer
U: The ice cream van plays its song at eight at night here.
A: That's a hostage situation. Who wants ice cream at eight?
U: Apparently half the street, judging by the queue.
A: Fair enough, I'd be in that queue.

U: I've started doing crosswords on my lunch break.
A: Very civilised. Are you any good?
U: Getting better. I managed half of one yesterday.
A: That's more than I've ever managed.

U: I've had a song stuck in my head for three days.
A: Which one? Actually, don't tell me. I'll catch it.

U: Tried a new shampoo and my hair has never been this fluffy.
A: Fluffy is a look. Embrace the cloud.

U: The self-checkout machine told me there was an unexpected item again.
A: It's always unexpected. Even when it's the item you scanned.
U: I just stared at it until someone came over.
A: That's the only correct approach, honestly.

U: I went to bed early and then scrolled until midnight.
A: The classic. Phone in another room, that's the only cure.

# season: winter,autumn
U: My hands are freezing all the time at the moment.
A: Fingerless gloves indoors. Very chic, very Victorian clerk.
U: I'll look like I'm about to count coins in a ledger.
A: Exactly. Commit to the look fully.

U: I've been procrastinating by cleaning, which is at least productive.
A: Productive procrastination is the best kind.

U: Do you remember the name of that quiz show we used to watch?
A: The one with the terrible buzzer? No idea, it's gone.
U: It's going to bother me all day now.
A: Sorry. It'll come to you in the shower.

U: Someone parked across my driveway this morning.
A: Did you leave a passive-aggressive note?
U: I wrote one and then chickened out.
A: That's very British of you.

# season: summer
U: It's so humid my windows are dripping.
A: Open them a crack and run the extractor fan. Or just move somewhere dry.

U: I accidentally sent a voice note that was just me sighing.
A: Oh no. Who did it go to?
U: The group chat. Nobody has mentioned it.
A: They're all just quietly relating.

U: Trying to cut down on sugar. Day three and I'd kill for a biscuit.
A: Have one biscuit. It's not a moral failure.

U: I keep seeing adverts for things I only thought about.
A: The phone is listening. Or we're all just very predictable.
U: Both, probably, if I'm honest.
A: Definitely both, no question about it.

U: How are you sleeping these days?
A: Badly, but I've accepted it. You?
U: Weirdly well. I don't trust it.
A: Enjoy it while it lasts.

U: I've got a dentist appointment I keep postponing.
A: Just go. The dread is worse than the chair.

U: I found twenty quid in an old coat pocket.
A: Best feeling in the world. Free money.
U: I spent it on snacks immediately.
A: As you should. No regrets allowed.

U: I think I need new glasses, everything's a bit blurry.
A: Or you need sleep. But probably glasses.

U: The washing machine has started making a noise like a jet engine.
A: That's not a good sign. Check for coins in the drum.
U: Found a hairclip and a button. Still noisy.
A: Might be the bearings. Time to call someone.

U: I've been trying to learn a few chords on the guitar.
A: Ooh. How are your poor fingertips?
U: Destroyed. Apparently that's completely normal.
A: Calluses are a badge of honour.

U: I did a big food shop and forgot the one thing I went for.
A: Milk, wasn't it? It's always milk.

U: Do you still do those jigsaw puzzles?
A: Only in winter. I've got a thousand-piece one half done on the table.
U: That sounds really cosy, actually.
A: It is, until the last piece is missing.

U: My knees clicked so loudly on the stairs today.
A: Mine sound like bubble wrap. It's fine. We're fine.

U: There's a pigeon that sits on my windowsill every morning.
A: You have a pet now. Name it.
U: I've been calling it Gregory in my head.
A: Perfect. Gregory it is, then.

U: I made soup and it tasted of absolutely nothing.
A: Salt and lemon. It's always salt and lemon.

U: Someone at the shop complimented my coat today.
A: That's a day-maker. Did you say thank you or explain where it came from?
U: I explained the entire history of the coat.
A: Of course you did. Naturally.

U: I can't stop buying notebooks I never use.
A: Same problem. They're just so full of potential.

U: I've been walking at lunch instead of eating at my desk.
A: That's a good habit. Do you feel better?
U: Much. Less like a potato.
A: That's high praise, coming from you.

U: Got caught in a downpour without an umbrella.
A: Soaked through? Hot shower and dry socks, immediately.

U: I think the smoke alarm is chirping but I can't find which one.
A: The eternal mystery. It's always the one you checked first.
U: I've stood under all three like an idiot.
A: Classic. Swap all the batteries.

U: Do you ever wish you'd learned an instrument as a kid?
A: All the time. Piano, ideally. I'd be insufferable.

U: I cooked too much rice again. Enough for a small village.
A: Fried rice tomorrow. Leftover rice is better anyway.

# season: October,November
U: The clocks going back messed me up completely.
A: I've been hungry at the wrong times all week.
U: Me too. Lunch at eleven feels normal now.
A: Let's just embrace it, then.

U: My laptop fan sounds like it's trying to take off.
A: Clean the dust out. Or put it on a tray so it can breathe.

U: Have you tried those fancy sparkling waters?
A: A few. Most taste like someone whispered the name of a fruit nearby.
U: That's exactly it, you've nailed it.
A: I still drink them, though.

U: I keep losing my keys in my own bag.
A: Get a bright keyring. Or a bag with fewer secret pockets.

U: I've been having the weirdest dreams lately.
A: Ooh, like what? Tell me.
U: Last night I was late for an exam in a supermarket.
A: Classic stress dream with a shopping twist.

U: It's so windy the bins went for a walk.
A: Ours ended up two doors down. Very adventurous bins.

U: I've finally booked the boiler service I've been avoiding.
A: Look at you adulting! Proud of you.

U: Do you still get those headaches?
A: Less often, thankfully. More water, less screen.
U: Good, that's a relief to hear.
A: Thanks for asking, really. It's sweet.

U: I watched the sunset from the bus today. Proper pink sky.
A: Lovely. Nice when the commute gives you something back.

U: My toaster only toasts one side now.
A: Flip the bread halfway. Character-building toast.
U: I refuse to be defeated by a toaster.
A: Then buy a new one, proudly.

U: Someone brought cake into the office and it was gone in four minutes.
A: As it should be. Cake has no shelf life in an office.

U: I've got that end-of-week tiredness where everything's funny.
A: The best tiredness. Enjoy the giggles.

U: Do you still keep a diary?
A: On and off. Mostly off lately.
U: I found my old one from school. Pure drama.
A: I'd pay to read it.

# season: October,November
U: I put the heating on for the first time and felt defeated.
A: Held out longer than me. Mine's been on for weeks.

U: Went to the post office and the queue was out the door.
A: The post office queue is a universal constant.

U: I keep forgetting to eat lunch until three.
A: Set an alarm. Or keep snacks in your drawer.
U: The snacks disappear by ten.
A: That's a different problem entirely.

U: I think I've finally found a comfortable pair of shoes.
A: Buy three more pairs immediately before they discontinue them.

U: There's a new bakery smell on my street every morning.
A: Is that torture or joy?
U: Both. Mostly torture around seven.
A: Just go in one morning. You've earned it.

U: I spent an hour choosing a birthday card for someone.
A: Cards are hard. Funny but not too funny.

U: The lift at work has been broken all week.
A: Stairs are good for you, they said. I hate them too.

U: Do you prefer summer or winter, honestly?
A: Autumn, which is cheating. You?
U: Spring. I love everything waking up.
A: Fair. That's a good answer.

U: I tried to fix a dripping tap and now it drips faster.
A: Turn off the water at the mains and call a plumber, hero.

U: Nothing to report really, just a quiet week.
A: Quiet weeks are underrated. Enjoy it.

U: I keep seeing the same cat on my walk. It judges me.
A: Cats judge everyone. It's their job.

U: I finally unsubscribed from about thirty emails.
A: The inbox is free! How does it feel?
U: Light. Spiritual, almost. Very calm.
A: Inbox zero is a religion.

U: The supermarket moved everything around again.
A: They do it on purpose so you walk past more stuff.

U: I got a parking ticket for being two minutes late.
A: Two minutes! That's daylight robbery.
U: I'm appealing it out of principle.
A: Good for you. Fight the power.

# season: spring,summer
U: It's finally warm enough to eat outside.
A: Best time of year. Everything tastes better outside.

U: I've been listening to old albums from when we were teenagers.
A: Nostalgia trip. Do they hold up?
U: Some do. Some are very embarrassing.
A: Those are the best ones.

U: Honestly, I just need a holiday from my own brain.
A: Same. Let's both switch off for a weekend.

U: My cooking experiment of the week was a disaster.
A: Oh no, what happened this time?
U: I confused the teaspoon and tablespoon of salt.
A: Oh no. Was it completely inedible?

U: I've been doing a bit of stretching every morning.
A: Does it actually help at all?
U: My back thinks so. My dignity doesn't.
A: That's worth the trade, I think.

U: Do you ever reread old messages and cringe?
A: Constantly. Past me was a lot.

U: I've started making a proper breakfast instead of grabbing a bar.
A: Look at you. Eggs, or something fancier?
U: Porridge, mostly. With too much honey.
A: There's no such thing as too much honey.

U: I've realised I haven't been to the cinema in a year.
A: Same. Everything goes straight to streaming now anyway.

U: My neighbour's wind chimes are driving me mad.
A: Oh no. Even all through the night?
U: All night. It's like living inside a music box.
A: Earplugs. And maybe a polite word.

U: I've been really into making lists lately.
A: Lists of what, exactly? Tell me.
U: Everything. Lists of lists, almost.
A: That's when you know it's serious.

U: Feeling a bit flat this week, nothing specific.
A: Those weeks happen. Be gentle with yourself, it'll lift.

U: The train was cancelled and nobody announced it.
A: Classic. Were you stuck for long?
U: Forty minutes on a cold platform.
A: Hope you got a hot drink after.

U: I finally fixed the wobbly chair with a folded napkin.
A: That's engineering at its finest.

# season: spring
U: The light in the evenings is getting nicer.
A: I know, I noticed yesterday. Makes everything feel possible.

U: I keep meaning to call my aunt and forgetting.
A: Do it now, before you forget again!
U: Okay, okay. I'll do it after this.
A: I'll check with you tomorrow.

U: My left earbud keeps dying before the right one.
A: They're never equal. Like socks.

U: I organised the fridge and now it looks like an advert.
A: Take a photo. It won't last.

U: I've got a cold coming, I can feel it in my throat.
A: Honey, lemon, early night. Don't be a hero.
U: Yes, doctor. Whatever you say.
A: I'll send you an invoice.

U: I laughed so hard at something silly today I cried.
A: Ha, what was it? Tell me.
U: A toddler on the bus announcing every colour of every car.
A: That's pure joy. I love toddlers.

U: I've been trying to read more news and it's mostly made me sad.
A: Limit it to once a day. Nobody needs it on drip.

U: Random question: tea or coffee first thing?
A: Tea first, coffee at eleven. It's a system.

U: I think I've finally got the hang of ironing shirts.
A: A skill for life. Or until we all wear jumpers.

# season: winter
U: It snowed for about five minutes and then turned to rain.
A: The most disappointing weather of all.

U: My houseplant has put out a new leaf!
A: Welcome to parenthood. Congratulations to you both!
U: I'm irrationally proud of it.
A: As you should be, plant parent.
"""

LONG_OPENERS["es"] = """
U: ¡{A}! ¿Qué tal andas? Hace siglos que no hablamos.
A: ¡Hola, {U}! Pues liado, como siempre, pero bien. ¿Y tú qué tal?

U: Buenas, ¿tienes un rato para ponernos al día?
A: Para ti siempre, {U}. Acabo de hacerme un café.

U: Hola, hola. Perdona que haya estado desaparecida estos días.
A: Nada que perdonar, {U}, yo también he estado a tope.

U: ¿Qué pasa, {A}? Domingo lluvioso, ideal para charlar.
A: ¡Hola, {U}! Aquí también llueve, estoy en el sofá con manta.

U: Oye, que tengo novedades. ¿Estás por ahí?
A: Aquí estoy, {U}. Cuéntamelo todo, que me pica la curiosidad.

U: ¡Buenos días! Desayunando y pensando en ti.
A: ¡Buenos días, {U}! Qué bonito. Yo todavía con legañas.

U: Hola, guapo. ¿Cómo ha ido la semana?
A: Hola, {U}. Larga, pero ya casi es viernes, que es lo importante.

U: ¿Sigues vivo? Que no me contestas los audios.
A: Vivo y culpable, {U}. Te juro que los escuché todos.

U: Hola, {A}. Estoy en el tren, a ver cuánto dura la cobertura.
A: ¡Hola, {U}! Aprovecha antes del túnel, que te conozco.

U: Por fin un rato libre. ¿Qué me cuentas?
A: Pues mira, {U}, un par de cosas, pero empieza tú.

U: ¡Feliz sábado! ¿Qué planes tienes hoy?
A: Feliz sábado, {U}. De momento ninguno, y pienso defenderlo.

U: Hola, ¿te pillo bien? Tengo media hora de descanso.
A: Me pillas perfecto, {U}. Estaba mirando el techo.

U: ¡Hombre, {A}! Cuánto tiempo. ¿Cómo estás?
A: ¡{U}! Bien, bien. Echaba de menos nuestras charlas.

U: Buenas noches. No puedo dormir, ¿hablamos un rato?
A: Claro, {U}. Yo tampoco tengo sueño todavía.

U: Hola. Día largo, necesito hablar con alguien normal.
A: Normal no sé, {U}, pero aquí me tienes. Cuéntame.
"""

LONG_CLOSERS["es"] = """
U: Me voy a hacer la cena, que se me hace tarde. ¡Hablamos!
A: Venga, que aproveche. Un abrazo fuerte.

U: Me quedo sin batería, te escribo esta semana.
A: Vale, cuídate mucho. Hablamos pronto.

U: Bueno, se acabó mi descanso. Qué bien hablar contigo.
A: Igualmente. A ver si no tardamos tanto la próxima vez.

U: Me caigo de sueño, me voy a dormir. ¡Buenas noches!
A: Buenas noches, descansa. Hablamos mañana o pasado.

U: Me llaman, tengo que irme corriendo. ¡Besos!
A: Corre, corre. Besos, ya me contarás.

U: Venga, que tengo que ponerme a trabajar de verdad.
A: Yo también, por desgracia. ¡Ánimo con todo!

U: Gracias por escucharme, lo necesitaba de verdad.
A: Para eso estamos, ya lo sabes. Cuídate mucho.

U: Llego a mi parada. ¡Hablamos pronto!
A: ¡Buen viaje! Escríbeme cuando llegues a casa.

U: La próxima vez llamada, que escribir me cansa.
A: Trato hecho. Te llamo la semana que viene.

U: Me voy al súper antes de que cierren. ¡Chao!
A: ¡Chao! No te olvides de lo que ibas a comprar.

U: Se me quema la comida, ¡te dejo!
A: ¡Corre a salvarla! Hablamos luego, un beso.

U: Bueno, me voy a ver si recojo un poco la casa.
A: Mucho ánimo con eso. Un abrazo grande.

U: Te dejo, que es tardísimo. ¡Un beso enorme!
A: Otro para ti. Me ha encantado hablar contigo.

U: Hablamos el finde con más calma, ¿vale?
A: Vale, el finde sin falta. ¡Que vaya bien la semana!

U: Me reclaman en casa. ¡Hasta pronto!
A: Hasta pronto. Saluda a todos de mi parte.
"""

LONG_FILLER["es"] = """
# season: summer
U: Qué calor ha hecho hoy, no se podía ni salir a la calle.
A: Aquí igual, he ido de sombra en sombra como una lagartija.

U: ¿Has visto el vídeo del perro que abre la nevera?
A: ¡Sí! Me lo han mandado cinco personas distintas. Es un genio.
U: Yo lo he visto como veinte veces ya.
A: Normal, es que es hipnótico el bicho.

U: Me he vuelto a quedar dormida en el sofá con la tele puesta.
A: Clásico. Luego a las tres de la mañana no hay quien duerma.

U: Se me ha roto otra vez la pantalla del móvil.
A: ¿Otra vez? Tú necesitas una funda de las de obra.
U: O dejar de tirarlo al suelo, que también.
A: Eso sería lo más sensato, pero aburrido.

U: Estoy intentando beber más agua, pero se me olvida todo el rato.
A: Ponte una alarma en el móvil cada dos horas, a mí me funciona.

U: Los vecinos de arriba llevan toda la mañana taladrando.
A: ¿Un domingo? Eso debería estar prohibido por ley.
U: Creo que lo está, pero les da igual.
A: Pues nada, a ponerse tapones y paciencia.

U: He ordenado por fin el armario y he encontrado ropa que ni recordaba.
A: Eso es como ir de compras gratis. ¿Algo que merezca la pena?
U: Un jersey precioso y tres calcetines sin pareja.
A: Los calcetines desparejados son un misterio universal.

U: ¿Tú también entras en la cocina y se te olvida a qué ibas?
A: Todos los días. Dicen que las puertas borran la memoria.

U: Me he comprado una planta y ya se está muriendo.
A: Las plantas huelen el miedo. Riégala y finge seguridad.

U: El tráfico esta mañana era un infierno, casi una hora de atasco.
A: Qué horror. Yo sin pódcast no sobreviviría a eso.
U: Ni pódcast llevaba. Solo anuncios en la radio.
A: Eso ya es un castigo divino.

U: Intenté meditar diez minutos y pasé nueve haciendo la lista de la compra.
A: Eso también cuenta como meditación, seguro que era una lista muy zen.

U: Se nos fue internet toda la tarde.
A: ¿Y qué hicisteis? ¿Hablar entre vosotros?
U: Leer las instrucciones del router, que es muy triste.
A: Has tocado fondo, definitivamente, amiga mía.

U: Tengo como cuarenta mensajes sin contestar.
A: Declara la bancarrota de mensajes y empieza de cero.

U: ¿A ti no te parece que todo está más caro otra vez?
A: Muchísimo. El aceite de oliva ya es artículo de lujo.
U: Lo voy a guardar en la caja fuerte.
A: Yo ya lo echo con cuentagotas, como si fuera perfume.

U: Quería madrugar más, pero duré dos días.
A: Dos días está muy bien. Mis planes duran uno como mucho.

U: ¿Sigues teniendo aquella taza horrible con el asa rota?
A: Por supuesto, es mi favorita. El asa rota le da personalidad.

U: Anoche vi un documental sobre pulpos y estoy fascinada.
A: Son listísimos. Tienen como nueve cerebros o algo así.
U: Y se disfrazan de otros animales. Me encantan.
A: Son básicamente extraterrestres del mar.

U: Me he hecho daño en la espalda estornudando.
A: Hacerse mayor es una estafa. Calor y mucho cariño.
U: Gracias, el cariño ayuda más que el calor.
A: Pues te mando el doble entonces.

U: ¿Qué es lo más rico que has comido esta semana?
A: Un bocadillo de tortilla en un bar cualquiera. Sencillo y perfecto.

U: He reorganizado los libros por colores y ahora no encuentro ninguno.
A: Pero queda bonito, ¿no? Eso es lo que importa.

U: Llevo tres días con la misma canción metida en la cabeza.
A: ¿Cuál? No, no me lo digas, que se me pega.

U: Me he comprado un champú nuevo y tengo el pelo como un algodón.
A: Pues abraza el volumen, estarás estupenda igualmente.

U: La máquina de autocobro del súper me volvió a decir que había un artículo inesperado.
A: Siempre es inesperado, aunque sea lo que acabas de pasar.
U: Me quedé mirándola hasta que vino alguien.
A: Es la única estrategia correcta, la verdad.

U: Me fui a la cama pronto y luego estuve con el móvil hasta la una.
A: Clásico. El móvil tiene que dormir en otra habitación.

# season: winter,autumn
U: Tengo las manos heladas todo el día.
A: Guantes sin dedos dentro de casa. Muy de escritor antiguo.
U: Voy a parecer un contable del siglo diecinueve.
A: Exacto. Compromiso total con el personaje.

U: He estado procrastinando limpiando, que al menos es productivo.
A: La procrastinación productiva es la mejor de todas.

U: Alguien aparcó delante de mi garaje esta mañana.
A: ¿Le dejaste una nota pasivo-agresiva?
U: La escribí y luego me dio vergüenza dejarla.
A: Qué educada eres, de verdad.

U: Mandé sin querer un audio que era solo yo suspirando.
A: ¿A quién se lo mandaste?
U: Al grupo de la familia. Nadie ha dicho nada.
A: Seguro que todos se sintieron identificados.

U: Estoy intentando comer menos azúcar. Día tres y mataría por una galleta.
A: Cómete una galleta. No es un fracaso moral, es una galleta.

U: ¿Cómo estás durmiendo estos días?
A: Fatal, pero ya lo he aceptado. ¿Y tú?
U: Raramente bien. No me fío nada.
A: Disfrútalo mientras dure, por si acaso.

U: Tengo una cita con el dentista que no paro de aplazar.
A: Ve ya. El miedo es peor que el sillón.

U: Encontré veinte euros en un abrigo viejo.
A: La mejor sensación del mundo. Dinero gratis.
U: Me los gasté en chucherías al momento.
A: Como debe ser, sin remordimientos.

U: La lavadora hace un ruido como de avión despegando.
A: Mala señal. Mira a ver si hay alguna moneda dentro.
U: He encontrado una horquilla y un botón. Sigue sonando.
A: Pues igual son los rodamientos. Toca llamar al técnico.

U: Estoy aprendiendo a tocar unos acordes con la guitarra.
A: ¿Qué tal tienes las yemas de los dedos?
U: Destrozadas. Dicen que es normal al principio.
A: Los callos son medallas de honor.

U: Hice una compra enorme y se me olvidó lo único que necesitaba.
A: La leche, ¿a que sí? Siempre es la leche.

U: Me crujen las rodillas al subir las escaleras.
A: Las mías parecen plástico de burbujas. Tranquila, es normal.

U: Hay una paloma que se posa en mi ventana todas las mañanas.
A: Ya tienes mascota. Ponle nombre.
U: La llamo Maruja en mi cabeza.
A: Perfecto, Maruja se queda entonces.

U: Hice sopa y no sabía absolutamente a nada.
A: Sal y un chorrito de limón. Siempre es sal y limón.

U: Una señora en el súper me dijo que le encantaba mi abrigo.
A: Eso te alegra el día entero. ¿Le diste las gracias?
U: Le conté la historia completa del abrigo.
A: Cómo no, te conozco demasiado.

U: No puedo dejar de comprar libretas que nunca uso.
A: A mí me pasa igual. Tienen tanto potencial.

U: Ahora salgo a caminar en la hora de comer.
A: Muy buen hábito. ¿Te sientes mejor?
U: Mucho. Menos como una patata.
A: Eso es un gran avance, sin duda.

U: Me pilló un chaparrón sin paraguas.
A: ¿Empapada? Ducha caliente y calcetines secos, ya mismo.

U: El detector de humo está pitando y no sé cuál es.
A: El eterno misterio. Siempre es el que miraste primero.
U: Me he puesto debajo de los tres como una tonta.
A: Cambia todas las pilas y listo.

U: Se me ha pasado otra vez el arroz.
A: Mañana arroz frito. El arroz de ayer es mejor.

# season: March,April,October,November
U: El cambio de hora me ha dejado fatal.
A: Yo llevo toda la semana con hambre a horas raras.
U: Igual. Comer a las doce ya me parece normal.
A: Pues nada, lo aceptamos y ya está.

U: El portátil hace un ruido como si fuera a despegar.
A: Límpiale el polvo del ventilador, que se está ahogando.

U: ¿Has probado esas aguas con gas de sabores?
A: Algunas. Saben como si alguien susurrara el nombre de una fruta.
U: Es exactamente eso, qué bien lo has dicho.
A: Y aun así me las sigo bebiendo.

U: Pierdo las llaves dentro de mi propio bolso.
A: Ponles un llavero enorme y de color chillón.

U: Últimamente tengo unos sueños rarísimos.
A: ¿Como cuáles? Cuéntame alguno, anda.
U: Anoche llegaba tarde a un examen dentro de un supermercado.
A: Sueño de estrés clásico con toque consumista.

U: Hacía tanto viento que los cubos de basura se fueron de paseo.
A: Los nuestros acabaron dos portales más allá. Muy aventureros.

U: Por fin he llamado para la revisión de la caldera.
A: ¡Mírala, qué adulta! Estoy orgullosísimo.

U: Vi el atardecer desde el autobús. Cielo rosa total.
A: Qué bonito. Al menos el trayecto te devuelve algo.

U: Mi tostadora ya solo tuesta por un lado.
A: Dale la vuelta a mitad. Tostadas con carácter.
U: Me niego a que me gane una tostadora.
A: Pues cómprate una nueva con orgullo.

U: Alguien trajo tarta a la oficina y duró cuatro minutos.
A: Como debe ser. En una oficina la tarta no tiene fecha de caducidad.

U: Tengo ese cansancio de viernes en el que todo me hace gracia.
A: El mejor tipo de cansancio. Disfruta de la risa tonta.

U: ¿Sigues escribiendo un diario como antes?
A: A ratos. Más bien poco últimamente.
U: Encontré el mío del instituto. Puro drama.
A: Pagaría por leerlo, te lo juro.

# season: October,November
U: Encendí la calefacción por primera vez y me sentí derrotada.
A: Aguantaste más que yo. La mía lleva semanas puesta.

U: La cola de Correos llegaba hasta la calle.
A: La cola de Correos es una constante universal.

U: Se me olvida comer hasta las cuatro.
A: Ponte una alarma o guarda algo en el cajón.
U: Lo del cajón desaparece a las diez de la mañana.
A: Ese ya es otro problema distinto.

U: Creo que por fin he encontrado unos zapatos cómodos.
A: Cómprate tres pares más antes de que dejen de fabricarlos.

U: Hay un horno nuevo en mi calle y huele a pan cada mañana.
A: ¿Y eso es tortura o felicidad?
U: Las dos cosas. Sobre todo tortura a las siete.
A: Entra una mañana, te lo has ganado.

U: Estuve una hora eligiendo una tarjeta de cumpleaños.
A: Las tarjetas son difíciles. Graciosa, pero no demasiado.

U: El ascensor del trabajo lleva roto toda la semana.
A: Las escaleras son sanas, dicen. Yo también las odio.

U: ¿Tú qué prefieres, el verano o el invierno?
A: El otoño, que es hacer trampa. ¿Y tú?
U: La primavera. Me encanta ver todo despertándose.
A: Buena respuesta, no te la discuto.

U: Intenté arreglar un grifo que goteaba y ahora gotea más.
A: Cierra la llave de paso y llama a un fontanero, valiente.

U: Esta semana nada que contar, todo tranquilo.
A: Las semanas tranquilas están infravaloradas. Disfrútala.

U: Veo al mismo gato en mi paseo y me juzga.
A: Los gatos juzgan a todo el mundo. Es su trabajo.

U: Por fin me he dado de baja de treinta newsletters.
A: ¡Bandeja de entrada libre! ¿Qué tal se siente?
U: Ligera. Casi espiritual, te lo juro.
A: El correo vacío es una religión.

U: El súper ha cambiado todo de sitio otra vez.
A: Lo hacen a propósito para que pases por delante de más cosas.

U: Me han puesto una multa por pasarme dos minutos.
A: ¡Dos minutos! Eso es un atraco.
U: Voy a recurrirla por principios.
A: Muy bien. Lucha contra el sistema.

# season: spring,summer
U: Por fin hace bueno para comer en la terraza.
A: La mejor época del año. Todo sabe mejor al aire libre.

U: Estoy escuchando discos de cuando éramos adolescentes.
A: Viaje nostálgico. ¿Y aguantan bien el paso del tiempo?
U: Algunos sí. Otros dan bastante vergüenza.
A: Esos son los mejores, sin duda.

U: Necesito vacaciones de mi propio cerebro.
A: Igual. Desconectemos los dos un fin de semana.

U: ¿Te acuerdas del concurso aquel que veíamos de pequeños?
A: ¿El del bote enorme? No me sale el nombre.
U: Me va a estar rondando todo el día.
A: Te vendrá en la ducha, como siempre.

U: Me ha salido una calentura en el labio justo hoy.
A: Siempre salen en el peor momento. Crema y paciencia.

U: Esta semana me he sentido un poco plof, sin motivo.
A: Esas semanas pasan. Trátate con cariño, que se va.

U: Cancelaron el tren y nadie avisó.
A: Qué clásico. ¿Estuviste mucho tiempo esperando?
U: Cuarenta minutos en el andén helado.
A: Espero que después te tomaras algo calentito.

U: Por fin he arreglado la silla que cojeaba con una servilleta doblada.
A: Ingeniería de primer nivel, sin duda.

# season: spring
U: Ya se nota que los días son más largos.
A: Sí, ayer me di cuenta. Da como energía, ¿verdad?

U: Tengo que llamar a mi tía y siempre se me olvida.
A: Llámala ahora, antes de que se te olvide otra vez.
U: Vale, vale. La llamo cuando acabemos.
A: Mañana te pregunto, que lo sepas.

U: Me ha salido una hoja nueva en la planta del salón.
A: ¡Enhorabuena! Ya eres madre de plantas.

U: Estoy incubando un resfriado, lo noto en la garganta.
A: Miel, limón y a dormir pronto. Nada de heroicidades.
U: Sí, doctor. Lo que usted diga.
A: Te mando la factura por correo.

U: Hoy me reí tanto con una tontería que lloré.
A: ¿Con qué? Cuéntamelo ahora mismo.
U: Un niño en el autobús diciendo el color de cada coche.
A: Eso es felicidad pura, qué bonito.

U: ¿Té o café nada más levantarte?
A: Café, siempre café. El té es para la tarde.

U: Creo que por fin he aprendido a planchar camisas.
A: Una habilidad para toda la vida. O hasta que volvamos a los jerséis.

# season: winter
U: Nevó cinco minutos y luego se convirtió en lluvia.
A: El tiempo más decepcionante que existe.
"""

LONG_OPENERS["zh"] = """
U: {A}！好久没聊了，最近怎么样？
A: {U}！还行还行，就是忙。你呢？

U: 在吗在吗？今天终于有空好好聊聊了。
A: 在呢{U}，刚泡了杯茶，你说。

U: 周末愉快！今天有什么安排吗？
A: 周末愉快{U}！啥安排都没有，打算躺一天。

U: 哈喽，我又来了，最近太忙都没顾上找你。
A: 理解理解，{U}，我这边也是忙得团团转。

U: 早啊！今天起得特别早，想找你说说话。
A: 早{U}！我刚醒，脑子还没开机。

U: {A}，在忙吗？我刚下班，累瘫了。
A: 不忙不忙，{U}，辛苦啦，快坐下歇会儿。

U: 下雨天，窝在家里，正好跟你聊聊。
A: 我这边也在下雨，{U}，最适合聊天了。

U: 我有好多事想跟你说，你先说你的吧。
A: 我这边没啥大事，{U}，你先说，我听着。

U: 晚上好呀，吃饭了没？
A: 刚吃完，{U}，撑死了。你呢？

U: 你还活着吗？消息都不回。
A: 活着活着，{U}，对不起，最近真是忙晕了。

U: 在地铁上，信号时有时无，先跟你说两句。
A: 哈哈好，{U}，趁没进隧道赶紧说。

U: 终于熬到周五了！这周你过得怎么样？
A: {U}！这周起起伏伏，总算结束了。

U: 睡不着，找你聊会儿天。
A: 我也还没睡，{U}，来吧。

U: 嘿，好久不见，想你了。
A: {U}！我也是，正想找你呢。
"""

LONG_CLOSERS["zh"] = """
U: 我去做饭了，回头再聊！
A: 去吧去吧，好好吃饭，拜拜！

U: 手机快没电了，改天再说。
A: 好的，注意休息，回头聊。

U: 午休结束了，跟你聊天真开心。
A: 我也是，下次别隔这么久了。

U: 困死了，我先睡了，晚安！
A: 晚安，做个好梦，明天再说。

U: 有人敲门，我先去看看，下次聊！
A: 快去吧，有空再找我。

U: 好了，我得去干活了，不然要加班了。
A: 我也是，加油加油，回头聊。

U: 谢谢你陪我聊天，心情好多了。
A: 随时找我，照顾好自己哈。

U: 到站了，先不说了！
A: 路上小心，到家说一声。

U: 下次打电话吧，打字太累了。
A: 好主意，周末给你打电话。

U: 锅里还炖着东西，我得去看看了！
A: 快去快去，别糊了，拜拜！

U: 不早了，你也早点休息。
A: 嗯，你也是，晚安啦。

U: 我先去超市了，再晚就关门了。
A: 去吧，别又忘了买最要紧的东西。

U: 行，那就先这样，改天细聊。
A: 好嘞，有事随时找我。

U: 被叫走了，回头再跟你说！
A: 去吧，等你消息。
"""

LONG_FILLER["zh"] = """
# season: summer
U: 今天热得要命，出门五分钟就湿透了。
A: 我这边也是，空调开一天，电费要哭了。

U: 你看到那个猫咪弹钢琴的视频没？
A: 看到了！笑死我了，我转给了好几个人。
U: 我循环看了二十遍。
A: 正常，那个表情太到位了。

U: 昨晚又在沙发上睡着了，醒来脖子好疼。
A: 赶紧回床上睡啊，沙发睡多了腰受不了。

U: 手机屏幕又摔碎了，今年第三次了。
A: 你需要一个防摔的壳，最厚的那种。
U: 或者我别老摔它。
A: 这个办法最省钱，但最难做到。

U: 我最近在努力多喝水，可总是忘。
A: 买个带刻度的大水壶，看着就有动力。

U: 楼上又在装修，周末早上八点就开始电钻。
A: 太过分了，周末应该禁止装修啊。
U: 说是禁止，可没人管。
A: 只能戴耳塞了，唉。

U: 终于把衣柜收拾了一遍，翻出好多忘了的衣服。
A: 相当于白捡了几件新衣服，挺好。
U: 还翻出三只不成对的袜子。
A: 袜子失踪之谜，永远解不开。

U: 你有没有走进厨房就忘了要干嘛？
A: 天天都这样，据说是门框会清空记忆。

U: 买了盆绿植放办公桌，已经开始蔫了。
A: 植物能感觉到你的紧张，浇点水，假装很自信。

U: 早上堵车堵了一个小时，气死了。
A: 太惨了，我要是没有播客肯定崩溃。
U: 我连播客都没带，只能听广告。
A: 这真是一种特别的折磨。

U: 试着冥想了十分钟，结果九分钟都在想晚上吃什么。
A: 也算冥想了，想得很专注嘛。

U: 家里断网了一整个晚上。
A: 那你们干嘛了？聊天吗？
U: 研究路由器说明书，特别凄凉。
A: 这已经是人生低谷了。

U: 我微信里有四十多条消息没回。
A: 干脆全部标为已读，重新开始。

U: 你有没有觉得最近什么都涨价了？
A: 太有感觉了，菜价高得吓人。
U: 我现在买菜都要算半天。
A: 我也是，水果都舍不得买了。

U: 想早起，结果只坚持了两天。
A: 两天已经不错了，我的计划一般只坚持一天。

U: 你还用着那个缺了口的马克杯吗？
A: 当然，那是我最喜欢的杯子，缺口是它的个性。

U: 昨晚看了个深海生物的纪录片。
A: 是不是那种头上带灯的鱼？
U: 对，就是那个，看得我起鸡皮疙瘩。
A: 深海简直就是另一个星球。

U: 打了个喷嚏，腰好像闪了。
A: 年纪大了真是什么都可能发生，热敷一下。
U: 谢谢关心，比热敷还管用。
A: 那我多关心你一点。

U: 这周吃到最好吃的东西是什么？
A: 楼下早餐店的一个煎饼果子，简单但满足。

U: 我把书架按颜色重新排了一遍，现在什么都找不到。
A: 但是好看啊，好看就够了。

U: 有首歌在我脑子里循环了三天。
A: 哪首？算了别告诉我，我怕被传染。

U: 换了个洗发水，头发蓬得像棉花糖。
A: 蓬松也挺好的，显得头发多。

U: 超市自助结账机又说我有未识别商品。
A: 它永远觉得你在偷东西。
U: 我就站在那儿盯着它，直到店员过来。
A: 这是唯一正确的处理方式。

U: 说好早睡，结果刷手机刷到一点。
A: 经典操作，手机得放到别的房间才行。

# season: winter,autumn
U: 最近手脚总是冰凉的。
A: 多泡泡脚，喝点姜茶，会好一些。
U: 我妈也是这么说的。
A: 听妈妈的话总没错。

U: 不想干活的时候我就打扫卫生，至少算有产出。
A: 这是最高级的拖延症，值得表扬。

U: 有人把车停在我家门口，挡住了出口。
A: 你给他留纸条了吗？
U: 写好了又不好意思贴。
A: 你也太客气了吧。

U: 不小心发了一条语音，全是我在叹气。
A: 发给谁了？
U: 家族群。到现在没人回。
A: 大家可能都感同身受吧。

U: 在戒糖，第三天了，特别想吃块饼干。
A: 吃一块吧，一块饼干不会毁掉你的人生。

U: 你最近睡得怎么样？
A: 很差，但已经习惯了。你呢？
U: 出奇地好，我都有点不敢相信。
A: 趁着好好享受吧。

U: 口袋里翻出一张五十块，开心死了。
A: 世界上最快乐的事之一，白捡的钱。
U: 马上买了一堆零食。
A: 就该这么花，不用犹豫。

U: 洗衣机最近响得像飞机起飞。
A: 看看滚筒里是不是有硬币。
U: 找到一个发夹和一颗纽扣，还是响。
A: 那可能是轴承坏了，得找师傅来看看。

U: 最近在学弹吉他，手指头疼死了。
A: 刚开始都这样，磨出茧子就好了。

U: 去超市买了一大堆，偏偏把最要紧的酱油忘了。
A: 每次都这样，最重要的永远会忘。

U: 上楼梯的时候膝盖咔咔响。
A: 我的也是，像在捏泡泡纸，没事的。

U: 窗台上每天早上都有只鸽子来。
A: 那你算是有宠物了，给它起个名字。
U: 我在心里叫它老王。
A: 老王这个名字很适合它。

U: 煮了一锅汤，一点味道都没有。
A: 加盐，再挤点柠檬，百试百灵。

U: 今天在电梯里有人夸我的外套好看。
A: 这种小事能开心一整天。你说谢谢了吗？
U: 我把这件外套的来历从头讲了一遍。
A: 哈哈，果然是你的风格。

U: 控制不住买本子，买了又不用。
A: 我也是，本子看起来总是充满希望。

U: 最近中午不在工位吃饭了，出去走一圈。
A: 这个习惯好，感觉怎么样？
U: 好多了，没那么像个土豆了。
A: 这个评价很高了。

U: 没带伞，被大雨浇了个透。
A: 赶紧洗个热水澡，换双干袜子。

U: 烟雾报警器一直在滴滴叫，找不到是哪个。
A: 永远是你第一个检查的那个。
U: 我在三个下面都站了半天。
A: 干脆把电池全换了吧。

U: 米饭又煮多了，够一个班吃的。
A: 明天做蛋炒饭，隔夜饭炒着更香。

U: 电脑风扇响得跟要起飞一样。
A: 清清灰吧，它快喘不过气来了。

U: 你喝过那种带水果味的气泡水吗？
A: 喝过几种，味道淡得像有人在旁边念了一下水果的名字。
U: 形容得太准确了。
A: 但我还是一直在喝。

U: 钥匙老是在自己包里找不到。
A: 挂个大一点的亮色挂件，一眼就能看见。

U: 最近老做奇怪的梦。
A: 什么梦？说来听听。
U: 梦见在超市里考试，还迟到了。
A: 标准的焦虑梦，还带购物元素。

U: 风大得把小区垃圾桶都吹跑了。
A: 我们这边的垃圾桶滚到隔壁楼去了。

U: 终于约了师傅来检修热水器。
A: 哇，好成熟，为你骄傲。

U: 今天在公交车上看到了特别好看的晚霞。
A: 真好，通勤路上也能有点小幸福。

U: 烤面包机现在只烤一面了。
A: 中间翻个面就行，将就用吧。
U: 我不能被一个烤面包机打败。
A: 那就理直气壮地买个新的。

U: 同事带了个蛋糕来办公室，四分钟就没了。
A: 办公室里的蛋糕从来活不过五分钟。

U: 周五那种累到看什么都想笑的状态又来了。
A: 这是最好的一种累，尽情傻笑吧。

U: 你还写日记吗？
A: 偶尔写，最近基本没写。
U: 我翻到了高中的日记本，全是戏。
A: 我愿意花钱看，真的。

# season: October,November
U: 今天第一次开暖气，感觉自己输了。
A: 你已经比我坚持得久了，我的早开了。

U: 去快递站取件，排队排到门外。
A: 快递站排队是宇宙定律。

U: 老是忘了吃午饭，一下就到三点了。
A: 定个闹钟，或者抽屉里放点零食。
U: 抽屉里的零食十点就吃完了。
A: 那就是另一个问题了。

U: 终于买到一双特别舒服的鞋。
A: 赶紧再买两双，免得以后停产。

U: 我家楼下新开了家面包店，每天早上都好香。
A: 这是折磨还是幸福？
U: 都有，早上七点主要是折磨。
A: 哪天进去买一个吧，你值得。

U: 为了挑一张生日贺卡，我选了一个小时。
A: 贺卡确实难选，要有趣但又不能太过。

U: 公司电梯坏了一整周。
A: 爬楼梯有益健康，话是这么说，我也讨厌。

U: 你更喜欢夏天还是冬天？
A: 秋天，算不算作弊？你呢？
U: 春天，万物复苏的感觉。
A: 这个答案很好，我服。

U: 想修一下滴水的水龙头，结果滴得更厉害了。
A: 先把总阀关了，然后叫师傅吧，勇士。

U: 这周没什么特别的，平平淡淡。
A: 平淡的一周被低估了，好好享受。

U: 散步时总能看到同一只猫，它好像在鄙视我。
A: 猫鄙视所有人，这是它们的工作。

U: 终于把三十多个订阅邮件都退订了。
A: 邮箱清净了！什么感觉？
U: 轻松，甚至有点神圣。
A: 清空收件箱就是一种信仰。

U: 超市又把货架全部重新摆了一遍。
A: 他们是故意的，好让你多逛几排。

U: 因为晚了两分钟被贴了罚单。
A: 两分钟！这也太狠了。
U: 我要申诉，为了原则。
A: 支持你，跟他们理论到底。

# season: spring
U: 终于暖和到可以在外面吃饭了。
A: 一年中最好的时候，在外面吃什么都香。

U: 最近在听我们上学时候听的老歌。
A: 回忆杀啊，还好听吗？
U: 有的还行，有的听着有点尴尬。
A: 尴尬的才是最好的回忆。

U: 真想从自己的脑子里放个假。
A: 我也是，咱俩一起找个周末彻底放空吧。

U: 最近每天早上做点拉伸。
A: 真的有用吗？
U: 我的腰说有用，我的尊严说没用。
A: 这个交换还是值得的。

U: 翻以前的聊天记录，尴尬得脚趾抠地。
A: 我也经常这样，以前的自己太能说了。

U: 最近开始好好吃早饭了，不再随便啃个面包。
A: 真不错，吃的什么？
U: 主要是燕麦粥，蜂蜜放得有点多。
A: 蜂蜜永远不嫌多。

U: 发现自己一年没进电影院了。
A: 我也是，现在什么都直接上网了。

U: 邻居家的风铃吵得我睡不着。
A: 一整晚都在响吗？
U: 一整晚，跟住在音乐盒里似的。
A: 戴耳塞吧，或者礼貌地跟他们说一下。

U: 这周莫名其妙有点丧，也说不上为什么。
A: 这种时候难免的，对自己好一点，会过去的。

U: 火车晚点了，广播都没通知。
A: 太常见了，等了很久吗？
U: 在站台上冻了四十分钟。
A: 希望你后来喝了杯热的。

U: 终于用一张折起来的纸巾把晃的椅子垫稳了。
A: 这是顶级的工程智慧。

# season: spring
U: 傍晚的天越来越长了。
A: 是啊，昨天我也发现了，感觉一切都有希望了。

U: 一直说要给姑姑打电话，总是忘。
A: 现在就打，趁还没忘。
U: 好好好，聊完就打。
A: 明天我要检查的哦。

U: 感觉要感冒了，嗓子有点疼。
A: 喝点蜂蜜柠檬水，早点睡，别硬撑。
U: 遵命，医生。
A: 诊费回头给你发过去。

U: 今天因为一件小事笑到流眼泪。
A: 什么事？快说。
U: 公交车上一个小朋友把每辆车的颜色都大声念了一遍。
A: 太可爱了，这就是纯粹的快乐。

U: 早上第一杯喝茶还是咖啡？
A: 我是先喝茶，十一点再来杯咖啡，有自己的节奏。

# season: winter
U: 下了五分钟雪，然后就变成雨了。
A: 这是最让人失望的天气了。

U: 阳台上那盆绿萝长出新叶子了！
A: 恭喜你，正式成为植物家长了。
"""

FACTS_SRC.append("""
@conv facts-en-01
lang: en
pools: en
turns: 36
seed: 101
first: name
>> name
U: Oskarine here, nice to meet you. A friend swore you're handy with spreadsheets, and mine is a disaster. Let's start small though: how do I make the top row stay put when I scroll down?
A: Happy to help with the spreadsheet rescue. To keep the header visible, open the View tab, click Freeze Panes and choose Freeze Top Row. If you later want the first column locked as well, select cell B2 first and pick Freeze Panes instead. Scrolling will then leave both in place.
>> job
U: Spent the whole morning welding a trailer hitch and my forearms are dotted with tiny burns again, occupational hazard of my trade. Does aloe actually do anything for little burns like that?
A: Aloe can soothe minor first-degree burns and keeps the skin moist, though the evidence is modest. Cool each spot under running water for ten minutes first, then apply aloe or a plain moisturiser. Anything blistering, weeping or with spreading redness deserves a proper look, and long leather sleeves are worth the heat.
>> home_old
U: Third week of rain here in Oslo. We've got a flat just off Grünerløkka and the courtyard is basically a pond. Any tips for keeping a damp entryway from smelling musty?
A: A damp entryway usually needs airflow more than perfume. Keep a boot tray with a rack so shoes can drain, put a small dehumidifier or moisture absorber by the door, and air the space briefly twice a day even when it's cold. Washing the doormat often helps more than people expect.
>> ~colleague
U: My colleague Siv just relocated to Stavanger and keeps sending me photos of the harbour at sunset. I'm a bit jealous, honestly. Is Stavanger worth a weekend trip?
A: It makes a lovely weekend. The old town with its white wooden houses is compact and walkable, the petroleum museum is better than it sounds, and if the weather holds you can take a boat up Lysefjord or hike to Preikestolen. Pack layers, because the wind off the water is sharp.
>> partner
U: Any gift ideas for Ingrid? She's obsessed with orchids, there are about thirty on every windowsill we own, and after eleven years together I've run out of ideas.
A: After eleven years the thoughtful route beats the expensive one. For an orchid lover: a humidity tray set, a good pair of sterile pruning snips, a rare species from a specialist grower, or tickets to an orchid show. A framed botanical print of her favourite variety also goes down well.
>> anniv
U: Our anniversary is on the 14th of June and this year I'd like to book somewhere with a view. What makes a restaurant good for that kind of dinner, in your opinion?
A: Quiet enough to talk, tables not crammed together, and staff who don't rush you between courses. A view is lovely, but the lighting matters more than people think. Mention the occasion when booking; many places will give you a better table or a small dessert surprise without being asked twice.
>> coffee
U: I don't drink coffee at all, it sends my heart racing, and I'm bored stiff of tea. What else could I drink in the morning that still feels like a ritual?
A: A few ideas with some ceremony to them: hot water with lemon and grated ginger, a rooibos latte with steamed milk, golden milk with turmeric and a pinch of pepper, or roasted barley tea, which is toasty and caffeine-free. Chicory blends give a roasted taste without the jitters.
>> pet
U: Pepper, our ginger tom, knocked an orchid off the shelf at five this morning and then sat there looking proud of himself. How do I cat-proof a room full of plants?
A: Cats treat shelves as a challenge, so offer a better one: a cat tree by the window. Put double-sided tape or foil on ledges he shouldn't use, weight the pots, and move anything toxic out of reach entirely. Many orchids are safe, but lilies are extremely dangerous for cats.
>> ~sister_dog
U: My sister is leaving her beagle Biscuit with us for the weekend while she's up in Tromsø. Any tips for introducing a dog to a cat who has never met one?
A: Go slowly and keep them apart at first: separate rooms, swap blankets so they learn each other's smell, then short supervised meetings with the dog on a lead. Make sure the cat has high escape routes, and keep the two food bowls well apart so nobody feels threatened at mealtimes.
>> code
U: The workshop finally got a keypad lock. The code is 4417, and I've already stood outside like an idiot twice this week because I typed 4471. Any tricks for remembering number codes?
A: Turn the digits into something meaningful: a date, a story, or a shape on the keypad. You can also chunk it into two pairs and attach an image to each. Saying it out loud a few times on your way in for a week usually locks it in better than writing it down somewhere.
>> allergy
U: Company dinner next Friday and the menu is a big seafood buffet. I'm allergic to shellfish, properly allergic, EpiPen and all. Is it rude to ask the organiser for a separate plate?
A: Not rude at all; it's a medical need, and organisers would much rather know in advance. Send a short message now, say it's a serious allergy, and ask whether the kitchen can prepare something separately to avoid cross-contamination. Keep your EpiPen with you regardless of what they promise.
>> dentist
U: Dentist on the 3rd of March at 8:15, which means I'll be late for work and grumpy. Is it okay to eat breakfast before a cleaning?
A: Yes, eating beforehand is fine; just brush and floss afterwards so you don't arrive with breakfast in your teeth. Skip anything that stains heavily right before, like berries. If they might use anaesthetic, having eaten is actually better, since you may not want to chew for a while afterwards.
>> ~friend_bday
U: My friend Kari turns forty on the 2nd of May and we're planning a surprise. What's a gift that feels special for a fortieth?
A: For a fortieth, experiences tend to land well: a hot-air balloon ride, a cooking class, a weekend in a cabin. Or something collective, like a book where each friend writes a memory. Pair it with a small personal object so there's still something to unwrap at the party itself.
>> bday
U: Funny thing, I'll be thirty-eight on the 9th of November and I still haven't figured out what I want. Is it weird to plan your own birthday party?
A: Not weird at all; plenty of people do, and it usually means the party is exactly what you want. Keep it simple: pick a place, invite the people you actually want there, and let someone else handle the cake so it still feels like a treat rather than another project.
>> home_new
U: Big news, we finally moved! We live in Bergen now, the new flat looks right over the fish market, which smells interesting in the mornings. How do I stop boxes from taking over the living room?
A: Congratulations on the move! Unpack by priority: kitchen and bedroom first, then bathroom. After that, aim for one box a day rather than a marathon weekend. Flatten empties immediately, and anything you haven't needed after a month can probably go straight to donation without much regret.
?? name | ev=name | What do people call me? | Oskarine
?? embedded | ev=job | What kind of work do I do with my hands all day? | welding
?? relation | ev=partner | Who's the person I've shared my life with for over a decade? | Ingrid
?? date | ev=anniv | Which date do my other half and I celebrate every year? | 14th of June; June 14
?? negation | ev=coffee | Would a bag of fancy espresso beans be a good present for me? | don't drink coffee
?? name | ev=pet | Which animal lives with us, and what's he called? | Pepper
?? number | ev=code | What do I punch in to get through the door where I work? | 4417
?? negation | ev=allergy | Is there anything on a menu I must keep well away from? | shellfish
?? time | ev=dentist | When do I have to sit in the chair to get my teeth cleaned? | 3rd of March; 8:15
?? date | ev=bday | When should my friends send me cards? | 9th of November
?? number | ev=bday | How old am I turning this year? | thirty-eight; 38
?? correction | ev=home_new | Which city is home for me these days? | Bergen | stale=home_old
""")

FACTS_SRC.append("""
@conv facts-en-02
lang: en
pools: en
turns: 36
seed: 102
first: name
>> name
U: Hi! Devendra, but please just go with Dev, nobody has said my full name since graduation. Could you help me plan meals for a chaotic week?
A: Of course, glad to help. For a chaotic week, batch cook two bases at the weekend, say a big tray of roasted vegetables and a pot of lentil or bean stew, then remix them into wraps, soups and pasta bakes. Tell me how many people you're feeding and I'll sketch a plan.
>> job
U: Three night shifts in a row on the cardiac ward and I've forgotten what daylight looks like. One of my patients asked if I was the doctor again. Nope, just the one who knows where the blankets are. How do people on nights get proper sleep?
A: Night-shift sleep is hard but can be improved: blackout blinds or an eye mask, earplugs or white noise, and wraparound sunglasses on the drive home so morning light doesn't wake your brain up. Try to sleep at the same time after each shift and protect that block fiercely from errands.
>> kids
U: The twins, Maya and Arjun, turn seven next month and want a joint party with a dinosaur theme. What games work for a room full of seven-year-olds?
A: Seven-year-olds love a dig: bury plastic dinosaurs in a sandpit or a tray of kinetic sand and hand out brushes for excavations. Add a dinosaur egg hunt, freeze dance with roaring, and pin the tail on the T. rex. Keep each game short and have one calm table with colouring for anyone overwhelmed.
>> ~neighbour_kid
U: The boy next door, Rohan, is nine and suddenly obsessed with coding. Is Scratch still the best starting point at that age?
A: Scratch is still a great starting point at nine: visual blocks, instant results and a huge community of shared projects. If he races through it, try Code.org courses or a micro:bit, which mixes code with real lights and sensors. Around eleven or twelve, Python with turtle graphics is a natural next step.
>> veg
U: I've been vegetarian since 2015, and my in-laws still try to sneak chicken stock into everything. How do I make a gravy with real depth without meat?
A: For deep flavour without meat: brown onions slowly, add mushrooms and let them colour hard, then a spoon of tomato paste, soy sauce or miso, and a splash of red wine. Thicken with a roux, simmer with vegetable stock and strain. A little Marmite adds a wonderfully savoury backbone.
>> swim
U: Never learned to swim, honestly, and now the school wants a parent volunteer at the pool. Can an adult actually learn from zero without feeling ridiculous?
A: Absolutely, and many adults do. Look for adult-only beginner classes, which are full of people in the same boat and usually held in shallow water. Start with breathing and floating rather than strokes. Most learners feel comfortable within eight to ten lessons, and nobody is watching you as closely as you fear.
>> home
U: Traffic this morning was unbelievable, forty minutes to go three miles from our place in Headingley into Leeds city centre. Is cycling in winter actually doable?
A: Winter cycling is very doable with the right kit: good lights front and back, mudguards, tyres with decent grip, and layers you can unzip. Gloves and a neck buff matter more than a heavy coat. Plan a route on quieter streets and leave a change of clothes at work for the wettest days.
>> ~brother_place
U: My brother keeps trying to convince me to move down to Bristol near him. Apparently the house prices are 'not that bad', which I doubt. What's Bristol like to live in?
A: Bristol is lively, creative and green, with a strong food scene, the harbourside, and easy access to Wales and the southwest coast. The downsides are traffic, steep hills if you cycle, and house prices that have climbed a lot, so your doubts are fair. Neighbourhoods vary enormously in price and feel.
>> wedding_old
U: My sister's wedding is on the 17th of August, in a barn somewhere in the Dales. What's a reasonable amount to spend on a gift for a sibling?
A: For a sibling there's no fixed rule, and thoughtfulness matters more than the figure. Many people give a bit more than they would for a friend, within what they can comfortably afford, and some contribute to a honeymoon fund. Something personal alongside it, like a framed photo, goes a long way.
>> blood
U: Gave blood yesterday, my twenty-third donation, and they said I'm close to getting a little badge. Why do they care so much about iron levels?
A: They check iron because donating removes haemoglobin, which carries oxygen, and your body needs iron to rebuild it. If your levels are low, giving could leave you anaemic and tired. Between donations, eat iron-rich foods like lentils, spinach and fortified cereals, with vitamin C to help absorption. Congratulations on the milestone.
>> parents
U: Parents' evening is on Tuesday at 6:40, straight after a long shift. What should I actually ask the teacher so it's not just 'are they behaving'?
A: Good questions: what are they finding hard right now, who do they play with, how do they handle frustration, and what could we practise at home. Ask for one concrete example of progress. If you only get ten minutes, pick two questions in advance and jot down the answers straight afterwards.
>> ~colleague
U: My colleague Bernadette is allergic to penicillin and nearly got given it on the ward last week, which scared everyone. How do hospitals usually flag allergies?
A: Most hospitals record allergies in the electronic record, which triggers alerts when someone prescribes, and patients wear a red wristband. Checking verbally before giving any medication remains the key safeguard, because records can be incomplete. Near misses like that are usually reported so the system can be tightened.
>> ibuprofen
U: Ibuprofen and I don't get along at all, it gave me a stomach bleed a couple of years ago. What can I take for a tension headache instead?
A: Paracetamol is usually the first choice for tension headaches when anti-inflammatories are off the table, at the standard dose and no more often than the label allows. Also try water, a break from screens, neck and shoulder stretches, and a short walk. See your GP if headaches become frequent.
>> wedding_new
U: Plot twist: the barn flooded, so my sister moved the wedding to the 5th of October. Now I need to rethink my outfit. Any ideas for an autumn guest outfit that isn't a suit?
A: Autumn weddings are great for texture: a tailored blazer in a rich colour like bottle green or rust over a fine-knit jumper or open-collar shirt, with chinos or wool trousers and leather boots. A patterned scarf or pocket square adds something festive without tipping into formal suit territory.
?? name | ev=name | What name do I actually like to go by? | Dev
?? embedded | ev=job | Where do I spend my working nights? | cardiac ward
?? relation | ev=kids | Who are my children? | Maya; Arjun
?? number | ev=kids | What age will the kids reach at their next birthday? | seven
?? preference | ev=veg | What kind of eater am I? | vegetarian
?? negation | ev=swim | Could I jump into a deep lake to fetch a lost paddle? | Never learned to swim
?? place | ev=home | Which neighbourhood is our house in? | Headingley
?? number | ev=blood | How many times have I let them take a bag from my arm so far? | twenty-third; 23
?? time | ev=parents | When am I supposed to sit down with the school about the kids? | Tuesday at 6:40; 6:40
?? negation | ev=ibuprofen | If my head hurts, which tablet must you never suggest to me? | Ibuprofen
?? correction | ev=wedding_new | When is my sibling's big day now? | 5th of October; October 5 | stale=wedding_old
""")

FACTS_SRC.append("""
@conv facts-en-03
lang: en
pools: en
turns: 34
seed: 103
first: name
>> name
U: Good morning. It's Peggy, well, Margaret on paper, but nobody has called me that since 1968. My grandson set this up for me, so please be patient. How do I make the writing bigger on this screen?
A: Good morning, and welcome. On most computers you can hold the Control key and press the plus key to make everything bigger, and Control with minus to shrink it again. On a tablet, open Settings, then Display or Accessibility, and look for Text Size. Take your time, there's no rush here.
>> job
U: Forty-one years of marking exercise books and I still can't stop correcting apostrophes on shop signs. Is 'greengrocer's apostrophe' a real term or did my old colleagues in the staffroom make it up?
A: It's a real term, and a well-loved one. It describes apostrophes wrongly added to plurals, like 'apple's' or 'tomato's', supposedly common on market stall signs. Linguists have written about it for decades. After forty years with a red pen, your eye for it is entirely understandable.
>> village
U: The wind off the sea here in St Just has been fierce all week, and my washing ended up in the neighbour's hedge twice. What's a good sturdy washing line?
A: For exposed, windy gardens, a rotary airer with a ground spike set in concrete is the most robust, and you can fold it down in storms. Retractable lines with a metal casing are a good alternative. Use windproof pegs with a strong spring and pin larger items at several points.
>> ~sister_place
U: My sister lives up in Whitby and says it's even windier there, but she always has to win. Is the east coast generally windier than Cornwall?
A: Both coasts are windy, but Cornwall generally takes the brunt of Atlantic storms because it faces the prevailing south-westerly winds head on. The Yorkshire coast can get bitter north-easterlies, especially in winter and spring, which feel colder even at lower speeds. So you can both claim a victory of sorts.
>> husband
U: My late husband Ron used to do the crossword with me every evening, and I've lost the knack without him. Are there easier cryptic crosswords to ease back in?
A: I'm sorry you've lost your crossword partner. The Times Quick Cryptic is designed for exactly this, and the Guardian's Quiptic is gentler than its main cryptic. There are also books of beginner cryptics with explanations for every clue. Working through the explanations rebuilds the knack surprisingly quickly.
>> birds
U: Saw a chough on the cliffs this morning, only my third ever. I'm out with my binoculars by half six most days. What should I look for in a better pair?
A: For this, 8x42 is the classic all-rounder: enough magnification without too much shake, and a wide field of view. Look for waterproof, nitrogen-filled bodies, good eye relief if you wear glasses, and a close focus distance. Try them in person if you can, because comfort in the hand really matters.
>> drive
U: I haven't driven since 2019, I sold the car after my cataract operation, so it's buses for me now. Is there a bus times app that isn't too fiddly?
A: Many people find the bus company's own app simplest, since it shows live departures for your stop. Google Maps also shows bus times and live tracking in many areas. Whichever you choose, save your usual stops as favourites so it's one tap, and turn on the larger text setting if it's small.
>> allergy
U: The doctor wanted to give me amoxicillin for my chest and I had to remind her I'm allergic to penicillin, it brought me out in hives all over once. Is it common for them to forget?
A: It happens more often than it should, which is why reminding every prescriber is wise. Amoxicillin belongs to that very family, so you were right to speak up. Ask that the allergy is clearly recorded on your notes, and consider a medical alert card in your purse. Pharmacists double-check too.
>> ~friend_allergy
U: My friend Doreen can't have anything with nuts, so I'm baking for our church coffee morning. Is a Victoria sponge safe if I'm careful?
A: A classic Victoria sponge is naturally nut-free: flour, butter, sugar, eggs, jam and cream. The risks are in the details, so check the jam and any shop-bought ingredients for 'may contain' warnings, and use clean tins and bowls. Keep it covered and labelled so nothing gets mixed up on the table.
>> hip
U: My hip replacement is booked for the 22nd of January at Treliske. I'm nervous. What should I get ready at home beforehand?
A: Preparation makes recovery much easier: raise your bed and chair if they're low, move everyday items to waist height, add a firm cushion to your usual chair, and remove trip hazards like loose rugs. A grabber, a long-handled shoehorn and a shower seat are worth having. Stock the freezer with ready meals.
>> grandkids
U: All five grandchildren are coming for Easter, and the youngest is only eighteen months. Any ideas for an egg hunt that works for toddlers and teenagers at once?
A: Run two hunts: a toddler one in a small, safe area with big bright eggs left in plain sight, and a harder one for the older ones with riddles leading from egg to egg. Teenagers surprisingly enjoy the challenge if there's a decent prize, especially if they're allowed to hide a few too.
>> club_old
U: Book club has moved to Wednesdays at the library, at two o'clock. We're reading 'The Remains of the Day' this month. Is it as sad as people say?
A: It's quietly devastating rather than openly tragic. The sadness builds through what the butler, Stevens, doesn't say and didn't do, and the restraint is the point. Many readers find the final scenes on the pier deeply moving. It's short and beautifully written, a very good one for discussion.
>> club_new
U: Change of plan from the librarian: book club is on Monday afternoons from now on, because the room was double booked. That clashes with my physio, so I'll have to move that.
A: Annoying when one change knocks over another. Ring the physio clinic early in the week, since afternoon slots go first, and ask whether a morning or a Friday appointment is available. If not, ask the librarian whether the group could start half an hour later so you can manage both.
?? name | ev=name | What do my friends call me? | Peggy
?? embedded | ev=job | What was my profession before I retired? | exercise books; staffroom
?? place | ev=village | Where is my house? | St Just
?? relation | ev=husband | Who was I married to? | Ron
?? preference | ev=birds | What gets me out on the cliffs at dawn? | binoculars; chough
?? negation | ev=drive | Could I give my friends a lift to the garden centre in my car? | haven't driven
?? negation | ev=allergy | Which antibiotics bring me out in a rash? | penicillin
?? date | ev=hip | When am I going in for my operation? | 22nd of January
?? number | ev=grandkids | How many little ones call me Granny? | five
?? correction | ev=club_new | On which day does my reading group get together now? | Monday | stale=club_old
""")

FACTS_SRC.append("""
@conv facts-en-04
lang: en
pools: en
turns: 33
seed: 104
>> name
U: Realised I never introduced myself: Kofi, thirty-four, professional overthinker. What's a good way to stop replaying conversations in my head at night?
A: Replaying conversations is very common, and a few things help: write the thought down with one line about what, if anything, you'll do about it, then close the notebook. Try a boring mental task, like naming a fruit for each letter. If it happens most nights, a short course of CBT techniques can help a lot.
>> job
U: Thirty covers booked tonight and the walk-in fridge died at two o'clock. I've got the braise on and my sous is close to tears. How long does food stay safe in a dead fridge with the door shut?
A: A closed fridge generally keeps food safe for about four hours. After that, perishable items like meat, fish, dairy and cooked dishes that have sat above five degrees should be thrown out. Move the most valuable and risky stock into any working fridge or onto ice now, and log temperatures for your records.
>> family
U: Leah wants to take our daughter Ama to see the sea for the first time. She's four and thinks the ocean is a big bath. Any good beaches within a couple of hours of Manchester?
A: Formby is lovely for a first visit: wide sand, dunes and pine woods with red squirrels, about an hour away. Lytham St Annes has a gentle beach and a windmill, and Llandudno has a proper pier. For a four-year-old, short drives and a sandy beach with toilets nearby matter most.
>> ~sister_kid
U: My sister's lad Kwame just turned six and only wants football things. What's a good present that isn't another shirt?
A: For a football-mad six-year-old: a pop-up goal for the garden, training cones with a simple skills chart, a sticker album with a stack of packs, or tickets to a women's or lower-league match, which are cheaper and more relaxed. A ball personalised with his name is a nice touch too.
>> coriander
U: Coriander tastes like soap to me, always has, which is a nightmare in my line of work. Is that genetic or am I just fussy?
A: It's partly genetic. A variant near olfactory receptor genes, including one called OR6A2, makes some people sensitive to the aldehydes in that herb, which are also found in soap. Estimates reach a fifth of people in some populations. You're not fussy; your nose is just tuned differently.
>> rent
U: The rent on the restaurant goes up to £2,150 a month from spring. Is that normal for a small place in the Northern Quarter?
A: It's within the range you'd expect for a small unit in a popular district, although it depends heavily on size, frontage and the state of the kitchen. Check your lease for rent review clauses and compare with nearby listings before you sign anything. Some business rates relief may help too.
>> starwars
U: I've never seen a single Star Wars film, and the kitchen lads are horrified. If I watch one, which should it be?
A: Start with A New Hope, the 1977 original, then The Empire Strikes Back, which many consider the best of the lot. That's the order most fans recommend for first-timers, because it keeps the big twist intact. If you enjoy those, Return of the Jedi completes the original trilogy nicely.
>> opening_old
U: We're opening the second site on the 1st of March, if the builders stop finding surprises behind the walls. How far ahead should I start hiring front-of-house staff?
A: Start recruiting about six to eight weeks before opening, so you have time to interview, check references and run a couple of training days plus a soft launch for friends and family. Good front-of-house people often need to give notice at their current jobs, so earlier is better than later.
>> ~colleague_bday
U: Our pastry chef Gemma turns thirty on the 19th of March. What's a fun way for a kitchen team to celebrate someone who makes desserts for a living?
A: Flip it round so she doesn't bake: get the team to make her a deliberately terrible cake and judge it Bake Off style, or order something spectacular from a bakery she admires. A card signed by everyone and an early finish on a quiet shift usually mean more than anything expensive.
>> bday
U: My own birthday falls on the 2nd of February, right in the dead month for restaurants. Do people ever throw their own party in the place they run, or is that sad?
A: Not sad at all; it's a great use of a quiet month. Close for a private evening, cook one thing you love and let someone else handle the rest, or invite friends for a relaxed tasting menu. It doubles as a thank-you to regulars if you want to make it semi-public.
>> opening_new
U: Builders found asbestos, of course. The new site won't open until the 12th of April now. Do I tell the people I've hired to start later or pay them to wait?
A: That depends on your cash flow and how much you want to keep them. Be honest and quick: explain the delay, offer a later start date and, if you can, a few paid shifts at your existing site so they earn something. Losing good hires to another job often costs more than a few weeks' wages.
?? name | ev=name | How should you address me? | Kofi
?? number | ev=name | What's my age? | thirty-four; 34
?? embedded | ev=job | What do I do for a living? | covers; sous
?? relation | ev=family | What's my partner's name? | Leah
?? relation | ev=family | Who is my little girl, and how old is she? | Ama
?? negation | ev=coriander | Which herb should you leave out of any recipe you give me? | Coriander
?? number | ev=rent | What will I be paying each month for the premises? | 2,150; 2150
?? place | ev=rent | In which part of town is my business? | Northern Quarter
?? negation | ev=starwars | Am I familiar with the films about Luke Skywalker and Darth Vader? | never seen a single Star Wars
?? date | ev=bday | When do I get a year older? | 2nd of February; February 2
?? correction | ev=opening_new | When will the second location finally welcome its first diners? | 12th of April; April 12 | stale=opening_old
""")

FACTS_SRC.append("""
@conv facts-en-05
lang: en
pools: en
turns: 34
seed: 105
first: name
>> name
U: hi!! ok so I'm Hana, second-year grad student, running on cold brew and panic. is it normal to feel like a fraud in your program?
A: Very normal, and it even has a name: impostor syndrome. It's especially common in graduate school, where everyone around you seems brilliant. It helps to talk about it with peers, keep a file of wins and kind feedback, and remember that the admissions committee chose you on purpose, not by accident.
>> field
U: my whole thesis is on kelp forests and the urchins that are munching through them, and my advisor wants another dive season of data. how do I ask for an extension without sounding lazy?
A: Frame it around the quality of the work rather than your own time: explain what an extra season of data would add, what the risks are of stopping now, and propose a concrete revised timeline with milestones. Advisors respond well to a plan. Raise it in a meeting with notes, not in a rushed email.
>> origin
U: grew up in Brisbane and had never seen snow before my first winter here in Halifax. what do I actually need to survive February?
A: For a Maritime February: a proper insulated, windproof parka, waterproof boots with good grip, thermal base layers, a warm hat that covers your ears, and mittens rather than gloves. Add ice cleats for slippery sidewalks. Vitamin D and getting outside in daylight help with the darkness, which can be harder than the cold.
>> ~roommate_bday
U: my roommate Jules turns 25 on the 8th of December and loves anything to do with astronomy. gift ideas under 50 dollars?
A: Under fifty dollars for an astronomy fan: a planisphere star wheel, a red-light headlamp for stargazing, a glow-in-the-dark constellation poster, a moon phase calendar, or a good pocket guide to the night sky. If there's an observatory or planetarium nearby, a ticket to a public viewing night could be even better.
>> own_bday
U: mine's on the 30th of December, which means it always gets swallowed by the holidays. how do I make it feel like its own thing?
A: Celebrate on a different day entirely, like a half-birthday in June, or claim a tradition that's only yours, such as a breakfast somewhere special or a winter hike with friends. Ask people to use non-festive wrapping paper. Small rituals like that make the day feel separate from the rest of the season.
>> lactose
U: I'm lactose intolerant and the department potlucks are 90% cheese. what's a crowd-pleasing dish I can bring that I can actually eat?
A: Good dairy-free crowd-pleasers: roasted vegetable and chickpea couscous, Vietnamese rice paper rolls with peanut sauce, a Thai-style noodle salad, or a bean chilli served with avocado instead of sour cream. Label it clearly; you'll probably find a few others with the same problem who are grateful.
>> lock
U: my bike lock combo is 2609 and I keep worrying someone will just guess it. are those four-digit locks actually secure?
A: Honestly, four-digit combination cable locks are mainly a deterrent. They can be cracked by feel or cut in seconds. On campus, a solid D-lock through the frame and rear wheel, plus a cable for the front wheel, is much safer. Register the frame number with campus security as well.
>> seasick
U: funny thing is I get horribly seasick, like green-in-the-face seasick, which is a problem for someone who studies the ocean. what actually works?
A: Ginger helps some people, and antihistamine tablets like dimenhydrinate or a scopolamine patch work for many, taken before boarding. On the boat, stay on deck, watch the horizon, keep hydrated and avoid reading or screens. Most people also adapt after a few days, which is encouraging for longer field seasons.
>> intern_old
U: I got the summer internship at the Vancouver Aquarium!! starting in May. what should I pack for a summer on the west coast?
A: Congratulations, that's a great placement! Summers on that coast are mild and can be damp, so pack layers: a rain jacket, a warm fleece, quick-dry trousers and comfortable waterproof shoes. Bring a few smarter outfits for public-facing days and a reusable water bottle. Evenings by the water get chilly.
>> ~advisor
U: my advisor is off to a conference in Lisbon next week and left me in charge of the lab tanks. any checklist for keeping saltwater tanks stable?
A: Daily: check temperature, salinity and that pumps and chillers are running, and look for animals behaving oddly. Every couple of days: test ammonia, nitrite and pH. Top up evaporation with fresh water, not saltwater. Keep a written log and emergency contacts by the tanks so anything odd can be flagged quickly.
>> intern_new
U: update on the summer: the aquarium reshuffled placements and I'm being sent to the Bamfield field station on Vancouver Island instead. much more remote. what do I need to know about living somewhere that isolated?
A: Remote stations are wonderful, but plan ahead: bring any medication and specific foods you rely on, since shops are far away, download offline entertainment and pack proper rain gear. Internet can be patchy, so set expectations with family. Communities at field stations tend to be tight-knit and welcoming.
>> cat
U: my cat Sardine, a very round tabby, has started screaming at 4am for breakfast. how do I make this stop?
A: Don't reward the yelling: if you get up and feed him when he screams, he learns it works. An automatic feeder set for early morning shifts the association away from you. Play energetically before bed, offer a late evening meal, and use earplugs for a week or two while the habit fades.
?? name | ev=name | Who am I? | Hana
?? embedded | ev=field | What is the subject of my research? | kelp
?? place | ev=origin | Which city was I raised in? | Brisbane
?? place | ev=origin | In which city am I doing my degree? | Halifax
?? date | ev=own_bday | When should people wish me many happy returns? | 30th of December; December 30
?? negation | ev=lactose | What kind of food doesn't agree with me? | lactose
?? number | ev=lock | What numbers open the thing that secures my bicycle? | 2609
?? negation | ev=seasick | Do I cope well on a rocking boat? | seasick
?? correction | ev=intern_new | Where will I be working when the warm months come? | Bamfield | stale=intern_old
?? relation | ev=cat | Which animal keeps waking me up before dawn, and what's its name? | Sardine
""")

FACTS_SRC.append("""
@conv facts-en-06
lang: en
pools: en
turns: 34
seed: 106
>> name
U: Quick one before I lose signal: how do you split a bill fairly when people ordered wildly different things? Cheers, Ewan
A: The fairest approach is itemised: everyone pays for what they ordered plus a proportional share of tax, service and anything shared, like wine or starters. Apps can do this from a photo of the receipt. If that's too fiddly, split shared items equally and pay individual dishes separately.
>> job
U: Landed in Reykjavik at three in the morning, fourth time this month, and I was fighting the crosswind on final with both hands on the yoke. How do people cope with jet lag when the time zones keep changing?
A: When you hop time zones constantly, many crews don't fully adjust and instead stay roughly on home time for short trips. Sleep in a dark, cool room whenever rest allows, use caffeine strategically early in duty, and get daylight during home-time mornings. Regular meals and short naps before night duties help more than people think.
>> husband
U: Callum has been on at me to take a proper holiday where I'm a passenger for once. We've been married six years and he's planned every single trip. Where would you go for a week with no flight over three hours?
A: From Scotland, under three hours gives you plenty: the Faroe Islands for dramatic hiking, Lisbon and the Alentejo coast, Bordeaux wine country, or the Italian lakes via Milan. For pure rest, the Algarve in shoulder season is lovely and quiet. Let him plan once more, and you just pack a bag.
>> dog
U: Our collie Moss herds the postman every morning. Literally circles him. How do I stop a border collie from herding people?
A: Herding is deeply wired into collies, so redirect it rather than suppress it: give him a daily job like treibball, agility or long games of fetch, and teach a solid 'leave it' and recall with high-value rewards. Keep him behind a gate when post arrives until the habit fades. A tired collie is a polite collie.
>> ~brother_dog
U: My brother just got a Labrador puppy called Bran who has eaten two remote controls already. Is that a phase?
A: Very much a phase, though a long one with Labradors. Puppies explore with their mouths, especially while teething up to six or seven months. Offer lots of chew toys, put tempting items out of reach, and swap anything he grabs for a toy with praise. Labradors often stay mouthy until about two.
>> vegan
U: Gone fully vegan since January, mostly for health. Crew meals are a nightmare now. What's a protein-heavy snack that survives a day in a flight bag?
A: Roasted chickpeas, edamame crisps, trail mix with nuts and seeds, plant-based protein bars, and peanut butter sachets with oatcakes all travel well without refrigeration. Small pots of hummus survive a day in a cool bag. Tofu jerky is harder to find but excellent if you come across it.
>> ~friend_diet
U: My friend Isla is the opposite, she's on some carnivore thing where she only eats meat. Is that safe long term?
A: There isn't much long-term research on all-meat diets. The concerns are a lack of fibre, too little of some vitamins like C, lots of saturated fat and possible effects on cholesterol and gut health. Some people report feeling fine short term, but anyone sticking with it should get regular blood tests.
>> home
U: Up here in Inverness the December days are ridiculously short. Are SAD lamps worth buying?
A: For many people, yes. Light therapy boxes of around 10,000 lux, used for twenty to thirty minutes soon after waking, have good evidence behind them for seasonal low mood. Sit at arm's length with the light reaching your eyes indirectly. Buy one designed for that purpose rather than a generic bright lamp.
>> heights
U: My other half wants us to do the Old Man of Storr walk, but I'm terrified of heights whenever I'm not strapped into a seat. Cliffs and ladders, no thank you. How exposed is that path?
A: The main Storr path is a well-made trail up a steep slope, not a ridge scramble, so many nervous walkers manage it. The exposed parts are near the pinnacles and cliff edges, which you can avoid by staying back from the drops. Choose a calm day, because wind makes everything feel more precarious.
>> sim_old
U: My six-monthly simulator check is on the 14th of May, engine failures and all. How do you prepare for something where you know the content but nerves ruin it?
A: Rehearse under realistic pressure: chair-fly the drills out loud, at real speed, with someone interrupting you. Plan your sleep and meals for the days before, and have a simple routine for when things go wrong, like one breath before acting. Nerves usually settle once the first scenario starts.
>> hours
U: Passed 6,000 hours in the logbook last week and the first officer bought cake. Is it silly that small milestones like that still make me proud?
A: Not silly at all. Milestones like that represent years of early starts, training, checks and responsibility, so marking them is healthy. Taking pride in steady, long-term effort is one of the better habits a person can have. It's also lovely that a colleague noticed enough to bring cake.
>> sim_new
U: Training department emailed: the sim check got moved up to the 7th of May, so a week less to prepare. Great.
A: Annoying, but a week less to prepare is also a week less of dreading it. Prioritise the items you feel least sharp on, chair-fly them daily, and keep one calm evening free before the check. Tell the training department if the new date clashes with your rest requirements.
?? name | ev=name | What name did I sign off with? | Ewan
?? embedded | ev=job | What's my job? | yoke; crosswind on final
?? relation | ev=husband | What's my husband called? | Callum
?? number | ev=husband | How long have we been wed? | six years
?? relation | ev=dog | What breed is our pet and what's his name? | Moss
?? preference | ev=vegan | What diet am I following at the moment? | vegan
?? place | ev=home | Which Scottish town do I live in? | Inverness
?? negation | ev=heights | Would a cliff-edge scramble be a relaxing day out for me? | terrified of heights
?? number | ev=hours | What total in my logbook did I just pass? | 6,000; 6000
?? correction | ev=sim_new | When do I face the flight-emergency assessment? | 7th of May; May 7 | stale=sim_old
""")

FACTS_SRC.append("""
@conv facts-zh-01
lang: zh
pools: zh
turns: 34
seed: 201
first: name
>> name
U: 小雯报到～第一次用这种AI，有点紧张哈哈。先问个简单的：家里的绿萝叶子发黄是怎么回事？
A: 别紧张，随便问就好。绿萝叶子发黄最常见的原因是浇水太多，根部闷坏了；也可能是长期晒不到光，或者一直放在空调出风口。先摸摸土，表面干了再浇透，放到明亮的散射光处，黄叶剪掉，过两周就会好转。
>> job
U: 今天又被一群四岁的小朋友围着唱了一上午《小兔子乖乖》，午睡时间还得挨个哄，嗓子快哑了。有没有什么保护嗓子的办法？
A: 经常要大声说话和唱歌的人，嗓子确实容易累。平时多喝温水，少喝冰的和辣的；说话时尽量用腹部发力，不要扯着嗓子喊；可以借助小话筒或者拍手、摇铃来吸引注意。每天给嗓子留一段安静时间，含点润喉糖也能舒服一些。
>> home_old
U: 我们住在上海徐汇这边，小区楼下就是地铁站，挺方便的，就是最近楼上装修天天电钻声。跟邻居沟通有什么技巧吗？
A: 沟通时语气尽量平和，先表示理解装修的不容易，再具体说明困扰，比如午休和晚上的时间。可以提议对方把最吵的工序安排在工作日白天。如果沟通无效，可以找物业协调，一般小区对装修时间都有规定，物业出面会更有效。
>> ~cousin_dog
U: 我表妹养了一只柯基叫可乐，这周末要寄养在我家，我没养过狗，需要准备些什么？
A: 临时照顾狗狗，最好让表妹把它平时吃的狗粮、食盆、牵引绳和常用的窝一起带来，熟悉的东西能让它安心。问清楚喂食时间、每天遛几次、有没有不能吃的东西。柯基腿短，别让它频繁上下楼梯或者跳沙发，对腰椎不好。
>> cat
U: 家里那只橘猫汤圆最近老是半夜跑酷，把我吵醒好几次了，怎么办啊？
A: 猫本来就是晨昏活动的动物，半夜跑酷很常见。睡前用逗猫棒陪它玩十五分钟，让它把精力消耗掉，再喂一顿，它吃饱了通常会安静睡觉。白天别让它睡太多，卧室门也可以关上。坚持一段时间，作息会慢慢调整过来。
>> mango
U: 我对芒果过敏，吃一口嘴巴周围就肿起来，可是同事们下午茶老点芒果班戟。怎么婉拒比较不尴尬？
A: 直接说明是过敏就好，大家一般都能理解，不会觉得你扫兴。可以笑着说“我一碰就肿，只能看着你们吃啦”，再主动推荐几家有其他口味的店，或者自己带点别的零食一起分享。说清楚以后，同事下次点单也会记得帮你避开。
>> coriander
U: 我完全不吃香菜，一点点都不行，闻到味道都难受。去外面吃米粉、吃火锅怎么提醒老板？
A: 点单时直接说一声，最好在老板下单前再补一句，因为很多店是默认放的。吃火锅的话，蘸料自己调，别用店里现成的。吃米粉可以说“葱花那些都不要”，老板一般会记住。常去的店熟了以后，就更省心了。
>> boyfriend
U: 阿杰（就是我家那位）下个月第一次跑全马，我想给他做个加油牌，写什么口号比较好玩？
A: 可以写得俏皮一点，比如“跑不动就想想终点的烤串”“你的腿比你的工资更有耐力”“四十二公里，每一公里都有人在等你”。再准备一个大字版的名字，人多的时候他一眼就能看到。记得站在三十公里左右，那段最需要鼓励。
>> bday
U: 我生日是8月17号，每年都赶上最热的时候。今年想办个小聚会，室内有什么好玩的活动？
A: 夏天在室内办聚会挺合适的。可以玩剧本杀或者桌游，比如《阿瓦隆》《只言片语》；也可以约几个朋友一起做手工，像拼豆、扎染、做香薰蜡烛，成品还能当纪念品。准备一些冰镇饮料和水果，再订个冰淇淋蛋糕，很应景。
>> ~friend_bday
U: 我闺蜜佳佳的生日是9月3号，比我晚半个多月，她最近迷上露营了，送什么好？
A: 喜欢露营的话，可以送一盏好看的露营灯、一套折叠餐具、便携咖啡壶或者一把舒服的月亮椅。预算多一点可以考虑轻量的防潮垫或天幕。再附一张手写卡片，约她下次一起去露营，这比礼物本身更有意义。
>> code
U: 电动车换了个密码锁，密码设成了3806，结果今天早上愣是想不起来，在车棚站了十分钟。大家都是怎么记密码的？
A: 可以把数字和有意义的东西联系起来，比如某个日期、门牌号，或者编一个小故事。也可以把四位数拆成两组来记，每组配一个画面。实在怕忘，就在手机备忘录里写一句只有你自己看得懂的提示，别直接写数字。
>> tooth
U: 下周四下午三点半约了拔智齿，听说会肿好几天，好害怕。拔完以后要注意什么？
A: 拔完后咬紧棉球半小时到一小时，当天不要漱口、不要用吸管，也别用舌头去舔伤口，以免血块脱落。二十四小时内可以冰敷，之后再热敷消肿。吃温凉的流食，比如粥和蒸蛋，避免辛辣和太烫的食物，几天就好了。
>> home_new
U: 跟你说个事，我们终于搬完家了！现在定居杭州，住在西溪湿地附近，早上出门还能听到鸟叫。周末有什么推荐去的地方吗？
A: 恭喜搬家！西溪附近就很好逛，湿地里可以坐摇橹船。周末可以去西湖边骑车，或者爬宝石山看日落；想安静点就去满觉陇、龙井村一带喝茶散步。天气好的话，良渚文化村和良渚博物院也很值得去。
?? name | ev=name | 朋友们平时怎么称呼我？ | 小雯
?? embedded | ev=job | 你猜我是干哪一行的？ | 四岁的小朋友; 幼儿园
?? relation | ev=cat | 我们家养的那只宠物叫什么名字？ | 汤圆
?? negation | ev=mango | 有什么水果我是绝对碰不得的？ | 芒果
?? preference | ev=coriander | 点外卖时，哪种配料要记得让店家别放？ | 香菜
?? relation | ev=boyfriend | 我的另一半叫什么？ | 阿杰
?? date | ev=bday | 哪天该给我送祝福？ | 8月17
?? number | ev=code | 我骑的那辆车，锁的数字是多少？ | 3806
?? time | ev=tooth | 我什么时候要去口腔科处理那颗牙？ | 周四下午三点半
?? correction | ev=home_new | 我现在在哪座城市生活？ | 杭州 | stale=home_old
""")

FACTS_SRC.append("""
@conv facts-zh-02
lang: zh
pools: zh
turns: 32
seed: 202
first: name
>> name
U: 我是老周，今年六十七了，孙子刚教会我用这个。想问一下，手机上的字怎么调大一点？
A: 您好，欢迎！安卓手机一般在“设置”里找“显示”或者“字体大小”，拖动滑块就能把字调大；苹果手机在“设置—显示与亮度—文字大小”里调。还可以打开“放大”功能，用三根手指双击屏幕局部放大。慢慢来，不着急。
>> job
U: 以前在铁路设计院画了一辈子图纸，退休了手还是闲不住，最近想学用电脑画图，CAD 和 SketchUp 哪个容易上手？
A: 如果是为了兴趣，画点家具、房子的立体效果，SketchUp 更容易上手，操作直观，推拉几下就能出模型。CAD 更严谨，适合出精确的平面图，您有制图底子，学起来也不会难。可以先玩 SketchUp 找找乐趣，再慢慢学 CAD。
>> grandson
U: 孙子豆豆今年六岁，刚上一年级，天天回家说不想写作业。怎么哄他才好？
A: 六七岁的孩子刚上学，坐不住很正常。可以把作业拆成几小块，每完成一块休息五分钟；用计时器比赛，看能不能比昨天快一点；写完以后陪他下盘棋或者讲个故事作为奖励。大人别一直在旁边挑错，多表扬具体的进步，他会更愿意写。
>> salt
U: 医生说我血压高，让我少吃盐，可是川菜不放盐哪还有味道？有没有低盐又好吃的做法？
A: 可以多用天然的香味来代替：葱姜蒜、花椒、醋、柠檬、香菇和番茄都能提味。出锅前再放调味，让它留在表面，吃起来更有味，用量却更少。少用豆瓣酱、酱油这类含钠高的调料，或者换成低钠的产品。慢慢口味会适应清淡一点。
>> alcohol
U: 我这辈子滴酒不沾，可是老同事聚会总有人劝酒，不喝好像不给面子。怎么推辞比较得体？
A: 可以一开始就说明自己不喝，用茶或者饮料代替，主动举杯敬大家，礼数到了，别人也就不会硬劝。理由可以说得简单些，比如身体原因、医生交代过。态度真诚热情，大家在乎的其实是心意，而不是杯子里装的是什么。
>> taiji
U: 每天早上六点半我都在人民公园打太极，风雨无阻。冬天早上这么冷，要注意些什么？
A: 冬天晨练要注意保暖，尤其是头部、颈部和膝盖，可以戴帽子围巾，穿宽松保暖的衣服。出门前先喝一杯温水，在家活动一下关节再出去。如果血压偏高，天特别冷或者有雾霾的时候，可以推迟到太阳出来以后再练。
>> ~children
U: 女儿在深圳做会计，儿子在北京搞互联网，两个人都忙，一年见不了几次。有什么办法让一家人多联系？
A: 可以建一个家庭群，定一个固定的时间，比如每周日晚上视频聊一会儿，形成习惯。平时多分享一些小事，拍拍饭菜、公园里的花，孩子们看到也会主动回应。逢年过节提前商量好团聚的时间，别让他们觉得是负担。
>> wife
U: 老伴儿淑芬最近迷上了广场舞，晚上七点一到就下楼，拉都拉不住。我是不是也该找个爱好？
A: 这挺好的，老伴儿有自己的乐趣，身体和心情都会更好。您也可以找点感兴趣的事，比如书法、下象棋、钓鱼，或者加入老年大学的摄影班。既然您喜欢画图，也可以试试素描。两个人各有爱好，晚上还能互相聊聊，日子更有意思。
>> exam_old
U: 社区医院通知我4月9号去做体检，要空腹抽血。前一天晚上几点以后就不能吃东西了？
A: 一般要求空腹八到十二个小时，所以前一天晚饭最好在晚上八点以前吃完，之后不要再吃东西，也别喝牛奶、果汁。白开水可以少量喝。降压药要不要照常吃，最好提前问一下医生。记得带上医保卡和以前的检查报告。
>> ~neighbor
U: 楼下的王大爷也是4月份体检，他比我大两岁，结果查出来血糖有点高。血糖高平时要怎么吃？
A: 血糖偏高的话，主食要控制量，多换成糙米、燕麦、杂粮，少吃白粥、白馒头这类升糖快的。甜饮料和点心尽量不碰，水果选苹果、柚子这类，每次少量。吃饭先吃菜，再吃肉，最后吃主食。饭后散散步，对控制血糖很有帮助。
>> plate
U: 我那辆老捷达的车牌尾号是7，每周限行一天，总记不住是哪天。成都的尾号限行是怎么轮换的？
A: 成都的尾号限行规则会定期调整，具体哪天限行要以交管部门最新公布的为准。最省事的办法是在手机上装一个导航软件，大多会自动提醒当天限行的号码；也可以关注“成都交警”公众号，每次调整都会发通知。
>> exam_new
U: 刚接到电话，体检改到4月16号了，说是那天医生人手不够。正好，那我这周还能去趟都江堰。
A: 改期也好，多出一周可以安排得更从容。都江堰这个季节去正合适，可以看看水利工程，再去青城山走走，空气特别好。注意别太累，检查前几天饮食清淡些、睡好觉，抽血结果会更准确。到时候记得还是要空腹去。
?? name | ev=name | 大家平常管我叫什么？ | 老周
?? number | ev=name | 我多大岁数了？ | 六十七
?? embedded | ev=job | 我退休前是干哪一行的？ | 铁路设计院; 画了一辈子图纸
?? relation | ev=grandson | 家里那个刚上小学的小家伙小名叫什么？ | 豆豆
?? preference | ev=salt | 为了身体，我做饭时要控制哪样调味？ | 少吃盐
?? negation | ev=alcohol | 老朋友聚会时给我倒白酒合适吗？ | 滴酒不沾
?? time | ev=taiji | 我每天几点出门锻炼？ | 六点半
?? place | ev=taiji | 我平时在哪儿晨练？ | 人民公园
?? relation | ev=wife | 我老伴叫什么名字？ | 淑芬
?? number | ev=plate | 我那辆车的号牌最后一位数字是几？ | 尾号是7
?? correction | ev=exam_new | 我那次要空腹去医院查身体，最后定在哪天？ | 4月16 | stale=exam_old
""")

FACTS_SRC.append("""
@conv facts-zh-03
lang: zh
pools: zh
turns: 32
seed: 203
>> name
U: 对了，聊了半天忘了自我介绍：陈一鸣，耳东陈，一鸣惊人的一鸣，不过朋友同事都喊我阿鸣。周末想学做饭，有什么适合新手的菜？
A: 新手可以从番茄炒蛋、青椒土豆丝、可乐鸡翅开始，步骤简单，失败率低，做出来又有成就感。先准备好一口不粘锅和一把好用的菜刀，调料买生抽、蚝油、醋、盐、糖就够用了。多做几次，火候自然就掌握了。
>> job
U: 产品经理今天又改需求了，我这个模块的代码已经推倒重写第三遍，发版前一晚还要通宵。怎么跟产品沟通才能少返工？
A: 可以在开发前把需求写成书面的确认清单，包括边界情况和验收标准，让产品在群里确认。需求变更时评估一下工作量和对上线时间的影响，明确告诉对方。先做一个可以点击的原型给他们看，往往能提前暴露很多误解。
>> wife
U: 老婆小敏怀孕了，预产期是11月3号！我们两个都是新手，现在要开始准备些什么？
A: 恭喜恭喜！可以先把产检时间表排好，按时去医院；一起去上医院的孕妇学校或者准爸爸课程。家里的东西不用急着买齐，婴儿床、安全座椅、奶瓶、衣物可以在孕中期慢慢准备。最重要的是多陪伴，帮忙分担家务，让她休息好。
>> driving
U: 我到现在都没考驾照，以前觉得深圳地铁够用了，现在要当爸爸了，是不是得赶紧学？
A: 有了孩子以后，有辆车确实会方便不少，比如去医院产检、周末带娃出门。现在报名驾校，一般两三个月能拿证，科目二和科目三多练练就好。不过深圳打车也方便，可以先学着，不用给自己太大压力，安全最重要。
>> dog
U: 我们家柯基馒头最近掉毛掉得厉害，沙发上全是毛。柯基是不是一年四季都掉毛？
A: 柯基是双层毛的犬种，确实一年到头都会掉，春秋换毛季更严重。每天用针梳或者排梳梳一遍，能减少很多浮毛；洗澡后一定要彻底吹干。饮食里适当补充鱼油对毛发也有好处。沙发上可以铺一块容易清洗的毯子。
>> ~colleague_dog
U: 同事老郑也养了只柯基叫花卷，比我们家的胖一圈，他天天在群里晒。柯基一般多重算正常？
A: 成年柯基一般在十到十四公斤之间，公的稍重一点。判断胖瘦可以摸肋骨：能轻松摸到但看不出来就刚好；摸不到就是偏胖了。柯基腰长，太胖容易伤腰椎，所以控制体重很重要，零食别给太多，每天保证散步。
>> gym
U: 健身房年卡花了3680块，结果这个月才去了两次，有点心疼。怎么才能坚持去？
A: 可以把健身时间固定写进日历，比如每周一三五下班后直接去，别回家再出门。找个一起练的朋友互相监督，或者上几节团课，有人带会轻松很多。先从每次三十分钟开始，目标定小一点，去的次数多了，习惯自然就养成了。
>> lactose
U: 我一喝牛奶就拉肚子，应该是乳糖不耐受。那早餐还能吃什么补充蛋白质？
A: 这种情况可以选择无乳糖的奶、酸奶（发酵后乳糖少很多）、豆浆，或者鸡蛋、豆腐、全麦面包配花生酱。早上煮两个鸡蛋加一杯豆浆，就能补充不少蛋白质。燕麦片用豆奶或者燕麦奶冲，也很方便。
>> hometown
U: 老家在湖南衡阳，过年回去要坐高铁，深圳北到衡阳东大概多久？
A: 深圳北到衡阳东的高铁，快的两个半小时左右，慢一点的三个多小时，具体看车次停站多少。春运期间票很紧张，建议提前十五天在12306上抢票，可以开启候补购票。带孕妇出行的话，选个靠过道的座位，起身方便。
>> ~colleague_home
U: 坐我旁边的小何是长沙人，老说我们那儿的鱼粉没有长沙的米粉好吃，我们天天为这事吵。你站哪边？
A: 这个我可不敢站队，两样都是湖南的宝贝。鱼粉汤底鲜，鱼肉嫩，早上来一碗特别提神；长沙米粉讲究码子，肉丝、酸豆角、剁辣椒搭配起来很香。最好的办法是你们周末一起去两家各吃一碗，吃完再接着吵。
>> due_new
U: 今天产检，医生说宝宝偏大，预产期往前调到了10月28号，我们得提前一周把待产包收拾好了。
A: 检查顺利就好，提前一点也不用慌。待产包可以分成妈妈用品、宝宝用品和证件三类：身份证、医保卡、产检本放在最上面。再规划好去医院的路线，晚上和周末都想一下怎么叫车。家里人的电话也提前存好，随时联系。
?? name | ev=name | 身边的人一般怎么叫我？ | 阿鸣
?? embedded | ev=job | 我靠什么手艺吃饭？ | 代码
?? relation | ev=wife | 我太太叫什么？ | 小敏
?? negation | ev=driving | 我能自己开车送老婆去医院吗？ | 没考驾照
?? relation | ev=dog | 我们家那只短腿狗叫什么？ | 馒头
?? number | ev=gym | 我为了练身体付的那笔年费是多少？ | 3680
?? negation | ev=lactose | 早饭别推荐我喝什么？ | 牛奶
?? place | ev=hometown | 我是哪里人？ | 衡阳
?? correction | ev=due_new | 宝宝预计哪天出生？ | 10月28 | stale=wife
""")

FACTS_SRC.append("""
@conv facts-zh-04
lang: zh
pools: zh
turns: 33
seed: 204
first: name
>> name
U: 哈喽～佳琪在此！室友说你啥都懂，我来考考你：热干面为什么叫“热干”？
A: 热干面的“热”是说吃的时候要热，“干”是说它不像汤面那样泡在汤里，而是拌着芝麻酱吃。面条事先煮到七八成熟，摊开拌油晾凉，吃的时候在开水里烫几秒钟，再加芝麻酱、萝卜丁、葱花，所以又热又干。
>> study
U: 每天在实验室里给宋版书补虫眼，一页要补一下午，导师还嫌我手慢，眼睛都要瞎了。有什么护眼的好方法？
A: 长时间近距离精细工作，最好遵守“20-20-20”原则：每二十分钟抬头看六米外的地方二十秒。工作台的光线要均匀柔和，避免反光。多眨眼，必要时用不含防腐剂的人工泪液。每天出门晒晒太阳、看看远处，对眼睛也很有帮助。
>> dorm
U: 我们宿舍在5号楼412，夏天西晒特别严重，下午热得像蒸笼。有没有不用装空调的降温办法？
A: 可以在窗户上贴隔热膜或者挂遮光窗帘，下午一定要拉上；用湿毛巾挂在风扇前面，能吹出凉一些的风。地面拖一遍湿拖把也能降温。晚上太阳下山后再开窗通风。睡觉可以铺凉席、用冰袋敷一下脖子，会舒服很多。
>> ~roommate_bday
U: 室友Lily的生日是12月9号，她超爱周杰伦，送什么好？预算两百块以内。
A: 喜欢周杰伦的话，可以送一张他的黑胶或者专辑实体碟，或者定制一个印着她最爱歌词的马克杯、帆布包。两百块以内还可以买一个小音箱，附一张写着歌单的手写卡片。如果有演唱会消息，帮她蹲抢票也是很用心的礼物。
>> own_bday
U: 我自己是12月2号生日，比她早一周，我们打算一起过。合办生日会会不会很奇怪？
A: 一点都不奇怪，两个人合办反而更热闹，朋友也不用跑两次。可以准备一个蛋糕写上两个名字，或者两个小蛋糕各选各喜欢的口味。各自邀请的朋友提前沟通一下，活动安排上照顾到两个人的喜好，就会很圆满。
>> dog
U: 我从小怕狗，小时候被咬过一次，现在路上看到小泰迪都要绕着走。这种恐惧能克服吗？
A: 能慢慢改善的。小时候被咬过留下阴影很正常。可以从看狗狗的视频和图片开始，再到远远观察朋友家性格温顺的狗，逐步缩短距离，每次都在自己能接受的范围内。如果影响生活比较严重，找心理咨询师做系统脱敏效果会更好。
>> north
U: 长这么大还没去过北方，连雪都只见过薄薄一层。寒假想去哈尔滨，需要准备啥？
A: 哈尔滨冬天零下二三十度，一定要穿长款羽绒服、保暖内衣、加绒裤，帽子、围巾、手套、防滑雪地靴一个都不能少。手机在室外很快没电，带个充电宝放在贴身口袋里。冰雪大世界晚上去最漂亮，中央大街、索菲亚教堂也值得一逛。
>> tutor
U: 每周二和周五晚上我要去给一个初二的孩子做家教，教数学，来回路上要一个小时。有什么提高效率的方法？
A: 路上的一小时可以好好利用，比如听播客、背单词，或者提前在脑子里过一遍今天要讲的题。上课时先让孩子做几道题，发现问题再讲，比从头讲效率高。每次课后留五分钟总结，布置少量针对性的作业，进步会更明显。
>> singer
U: 最近单曲循环周深的《大鱼》，一边听一边干活特别安心。你能推荐几首类似风格的歌吗？
A: 喜欢《大鱼》那种空灵温柔的感觉，可以听听《光亮》，还有银临的《牵丝戏》、河图的《倾尽天下》这类古风歌曲。纯音乐的话，久石让的钢琴曲和一些国风器乐专辑也很适合干活的时候听，不会分散注意力。
>> defense_old
U: 毕业答辩定在5月20号，正好是“520”，导师说这是个好日子。答辩PPT一般做多少页合适？
A: 硕士答辩一般讲十五到二十分钟，PPT 做二十页左右比较合适，平均一分钟一页。重点放在研究问题、方法和主要结论上，文献综述简单带过。每页字别太多，多用图片和对比图。最后准备几页备用，应对老师可能的提问。
>> ~senior
U: 师姐的答辩比我早，在5月13号，她做的是敦煌写经的研究，最近天天熬夜改稿。我能帮她做点什么？
A: 可以帮她做一些具体的小事：帮忙校对论文格式和参考文献，模拟答辩时扮演老师提问，或者答辩当天帮她准备水、调试投影和电脑。熬夜改稿的时候给她带份夜宵，说几句鼓励的话，也会让她轻松不少。
>> defense_new
U: 坏消息，答辩整体往后推了一周，改到5月27号了，因为有个外审专家来不了。不过我多了几天改论文，也不算坏事。
A: 虽然计划被打乱有点烦，但多一周能把论文再打磨一遍也挺好。可以趁这几天把导师的修改意见逐条落实，再找同门模拟一次。注意别因为时间多了就放松，最后几天保持规律作息，状态好最重要。
?? name | ev=name | 你该怎么称呼我？ | 佳琪
?? embedded | ev=study | 我读研究生每天具体在忙什么活儿？ | 补虫眼; 宋版书
?? number | ev=dorm | 我住的寝室门牌号是多少？ | 412
?? date | ev=own_bday | 哪天我又长一岁？ | 12月2
?? negation | ev=dog | 送我一只小奶狗当礼物合适吗？ | 怕狗
?? negation | ev=north | 我去过东北或者华北吗？ | 没去过北方
?? time | ev=tutor | 我哪几天晚上要出门去上课挣钱？ | 周二和周五
?? preference | ev=singer | 我干活时最爱听哪位歌手？ | 周深
?? correction | ev=defense_new | 我什么时候要站到评审老师面前讲论文？ | 5月27 | stale=defense_old
""")

FACTS_SRC.append("""
@conv facts-es-01
lang: es
pools: es
turns: 34
seed: 301
first: name
>> name
U: Buenas, soy Lucía, aunque en casa todos me llaman Lu. Oye, una duda rápida: ¿cómo se quita la cal de la mampara de la ducha?
A: La cal sale bien con vinagre blanco caliente mezclado con un poco de lavavajillas: pulverízalo, deja actuar quince minutos y pasa una esponja que no raye. Aclara y seca con una rasqueta o un paño de microfibra. Si lo haces después de cada ducha, apenas se acumula.
>> job
U: Hoy he vacunado a catorce perros, a un conejo enfadadísimo y a un loro que me ha llamado 'guapa' tres veces. Estoy reventada. ¿Algún estiramiento para la espalda después de pasar horas inclinada sobre la camilla?
A: Prueba la postura del niño de yoga, la del gato y la vaca, y un estiramiento de pecho apoyando el antebrazo en el marco de una puerta. También va bien tumbarte boca arriba con las rodillas hacia el pecho. Y si puedes, ajusta la altura de la camilla: trabajar encorvada castiga mucho la zona lumbar.
>> partner
U: Carmen cumple cuarenta y cinco el mes que viene y quiero sorprenderla con una escapada; después de doce años casadas ya no sé qué inventar. Le encanta el vino, ¿qué zona me recomiendas cerca de Andalucía?
A: Para amantes del vino tienes muy cerca el Marco de Jerez, con bodegas preciosas y catas de finos y olorosos. Montilla-Moriles, en Córdoba, es más tranquila y auténtica. Si os apetece viajar algo más, la Ribera del Duero o La Rioja tienen hoteles entre viñedos ideales para una escapada romántica.
>> son
U: Mateo, que tiene nueve años, quiere aprender a tocar la batería. ¿Es buena idea o nos va a volver locos a los vecinos?
A: Es buena idea si se canaliza bien: la batería mejora la coordinación y el sentido del ritmo. Para no enemistaros con los vecinos, empezad con una batería electrónica con auriculares o con un pad de práctica. Unas clases con un profesor le darán buena técnica desde el principio y evitarán malos hábitos.
>> ~nephew
U: Mi sobrino Hugo, el hijo de mi hermana, también tiene nueve años y juega al fútbol en un equipo del barrio. ¿A qué edad es normal que los niños empiecen a competir?
A: A esa edad ya es habitual competir en ligas locales, pero lo importante es que siga siendo un juego: rotaciones para que todos jueguen, entrenadores que prioricen la diversión y la técnica, y poca presión por ganar. La especialización intensa en un solo deporte conviene dejarla para la adolescencia.
>> celiac
U: Soy celíaca desde los veinte y en las ferias siempre acabo comiendo solo jamón y queso. ¿Qué tapas típicas suelen ser seguras?
A: Muchas tapas pueden ser aptas, aunque siempre conviene preguntar: jamón, queso, aceitunas, gambas cocidas, pulpo a la gallega, tortilla sin harina añadida o carne a la plancha. Cuidado con los rebozados, las salsas espesadas con harina y las frituras en aceite compartido. Llevar una tarjeta explicativa ayuda mucho.
>> football
U: No he visto un partido de fútbol entero en mi vida, y en esta casa son todos del Betis. ¿Cómo finjo que me interesa el derbi del domingo?
A: Aprende cuatro cosas básicas: quiénes son los dos o tres jugadores estrella, cómo va el equipo en la clasificación y algún recuerdo mítico de derbis anteriores. Durante el partido, reacciona cuando reaccionen los demás y encárgate del picoteo. Nadie notará nada, y puede que hasta acabe gustándote.
>> home_old
U: Vivimos en Triana, en un tercero sin ascensor, y subir la compra se está convirtiendo en deporte de riesgo. ¿Hay carritos de la compra que suban escaleras?
A: Sí, existen carros con tres ruedas por lado, en forma de estrella, pensados precisamente para subir escalones con menos esfuerzo. Busca uno con ruedas de goma grandes y bolsa térmica si compras congelados. Aun así, sin ascensor, pedir a domicilio lo más pesado puede ahorrarte la espalda.
>> code
U: La clínica tiene alarma nueva y el código es 5190. Si me equivoco tres veces viene la policía, así que estoy de los nervios. ¿Algún truco para memorizarlo?
A: Asocia los números a algo que ya conozcas: una fecha, la edad de alguien o una imagen concreta para cada cifra. Repetirlo en voz alta varias veces al día durante una semana también funciona. Y pide que te dejen practicar con la alarma desactivada un par de veces para ganar confianza.
>> ~friend_bday
U: Mi amiga Rocío cumple años el 11 de abril, justo en plena Semana Santa este año. ¿Qué le regalo a alguien que lo tiene todo?
A: A quien lo tiene todo le suelen gustar las experiencias: una cata de vinos, un taller de cerámica, una cena en un sitio especial o entradas para un concierto. También funciona algo muy personal, como un álbum de fotos vuestras o una carta escrita a mano recordando anécdotas compartidas.
>> own_bday
U: Lo mío es el 2 de julio, en pleno calor, así que nunca celebro nada al mediodía. ¿Ideas para una fiesta de cumpleaños nocturna en verano?
A: Una cena en la azotea o el patio con guirnaldas de luces, gazpacho, salmorejo y cosas frías para picar es perfecta. Puedes montar un cine de verano con un proyector y una sábana blanca, o una noche de juegos de mesa. Ten abanicos y hielo de sobra, que esas noches también aprietan.
>> dentist
U: El jueves a las cinco y cuarto tengo cita para una endodoncia. ¿Duele mucho o es exagerado lo que dicen?
A: Con anestesia local, una endodoncia no suele doler más que un empaste algo largo; lo peor para mucha gente es estar un buen rato con la boca abierta. Después puede haber molestias unos días, que se controlan con los analgésicos que te indiquen. Evita masticar con ese lado hasta que pongan la corona.
>> home_new
U: ¡Novedades! Nos hemos mudado a Cádiz, a un piso en La Viña con ascensor, por fin. Ahora me toca buscar colegio para el niño a mitad de curso. ¿Cómo se hace eso?
A: Para un cambio de centro a mitad de curso, contacta con la Delegación de Educación o directamente con los colegios de la zona para saber si tienen plazas vacantes. Necesitarás el certificado de empadronamiento, el libro de familia y el informe del colegio anterior. Con traslado de domicilio suelen gestionarlo rápido.
?? name | ev=name | ¿Con qué nombre me presenté? | Lucía
?? embedded | ev=job | ¿A qué me dedico? | vacunado a catorce perros; veterinaria
?? relation | ev=partner | ¿Quién es mi pareja? | Carmen
?? number | ev=partner | ¿Cuánto tiempo llevamos juntas como matrimonio? | doce años
?? relation | ev=son | ¿Cómo se llama el pequeño de la casa? | Mateo
?? negation | ev=celiac | ¿Qué tengo que evitar en la comida sí o sí? | celíaca; gluten
?? negation | ev=football | ¿Me entusiasman los deportes de balón? | No he visto un partido de fútbol entero
?? number | ev=code | ¿Qué cifras tengo que teclear al abrir el trabajo por la mañana? | 5190
?? date | ev=own_bday | ¿Qué día soplo las velas? | 2 de julio
?? time | ev=dentist | ¿Cuándo me toca sentarme en el sillón para lo de la muela? | jueves a las cinco y cuarto
?? correction | ev=home_new | ¿En qué ciudad está mi casa ahora? | Cádiz | stale=home_old
""")

FACTS_SRC.append("""
@conv facts-es-02
lang: es
pools: es
turns: 32
seed: 302
first: name
>> name
U: Qué tal, aquí Andrés, para servirle. Mi hija me instaló esto en el celular. ¿Me puede decir cómo se saca una captura de pantalla?
A: ¡Qué tal, mucho gusto! En la mayoría de los celulares Android se hace apretando al mismo tiempo el botón de encendido y el de bajar volumen. En iPhone con Face ID, el botón lateral y el de subir volumen. La imagen se guarda en la galería, en una carpeta llamada Capturas o Screenshots.
>> job
U: Doce horas al volante hoy, del aeropuerto a Santa Fe y de regreso, y el pasajero de la tarde quería que le cobrara menos porque 'el tráfico no era su culpa'. ¿Cómo le hace uno para no perder la paciencia?
A: Ayuda tener respuestas preparadas y tranquilas, como explicar que la tarifa la marca el taxímetro o la aplicación, sin entrar en discusión. Respirar hondo antes de contestar también funciona. Y al final del día, desconectar con algo que le guste: música, una caminata o platicar con alguien de confianza.
>> daughter
U: Mi hija Ximena cumple quince el 12 de octubre y su mamá y yo estamos organizando los XV años. ¿Cuánto tiempo antes hay que apartar el salón?
A: Para una fiesta de XV años conviene apartar el salón con seis a ocho meses de anticipación, sobre todo si es en temporada alta o en fin de semana. Antes de firmar, revise qué incluye el paquete: comida, mesas, pista, música y horario. Pida todo por escrito y pregunte por las políticas de cancelación.
>> dog
U: Tenemos una perrita, la Chispa, que ladra cada vez que suena el timbre, aunque sea el de la tele. ¿Cómo se le quita esa maña?
A: Asocie el timbre con algo tranquilo: póngalo grabado a volumen bajo y premie a la perrita cuando se quede callada, subiendo el volumen poco a poco durante varios días. Enséñele a ir a su cama cuando suena. No le grite, porque entiende que usted también está ladrando y se emociona más.
>> ~compadre_dog
U: Mi compadre Memo tiene una perra que se llama Canela y esa sí es tranquilísima, ni se inmuta. ¿Es cosa de raza o de educación?
A: Un poco de ambas. Algunas razas y mezclas tienden a ser más tranquilas o más alertas por naturaleza, pero la educación, la socialización de cachorro y el ejercicio diario influyen muchísimo. Una perra que se cansa y sabe qué se espera de ella suele estar mucho más relajada en casa.
>> plane
U: Nunca me he subido a un avión, fíjese, y eso que llevo años llevando gente a la terminal. Mi esposa quiere ir a Cancún volando. ¿Da miedo la primera vez?
A: Es normal sentir nervios, pero volar es estadísticamente uno de los medios de transporte más seguros. Ayuda llegar con tiempo, elegir pasillo o ventanilla según le dé menos ansiedad, y saber que las turbulencias son normales y no peligrosas. El trayecto a Cancún desde la capital dura unas dos horas.
>> diabetes
U: El doctor me dijo que tengo diabetes tipo 2 y que le baje a los refrescos y al pan dulce. Con lo que me gusta una concha con café... ¿Qué puedo desayunar?
A: Hay desayunos sabrosos que cuidan el azúcar: huevos a la mexicana con tortilla de maíz, frijoles de la olla, nopales asados, queso fresco, o avena sin azúcar con canela y nueces. Cambie las bebidas azucaradas por agua natural o agua de jamaica sin azúcar, y deje lo dulce para ocasiones especiales.
>> years
U: Llevo veintitrés años manejando por esta ciudad y todavía me sorprenden los baches nuevos. ¿Cada cuánto hay que cambiar los amortiguadores?
A: En condiciones normales se recomienda revisarlos cada veinte mil kilómetros y cambiarlos entre los sesenta y los cien mil, pero con calles llenas de baches y tantas horas de uso pueden desgastarse antes. Señales de alerta: el carro rebota mucho, se inclina en las curvas o las llantas se gastan de forma irregular.
>> home
U: Vivimos en la colonia Portales, cerca del mercado, y los domingos vamos por barbacoa. ¿Cómo se prepara la barbacoa de hoyo tradicional?
A: La tradicional se hace en un hoyo en la tierra con piedras calentadas con leña. La carne de borrego, envuelta en pencas de maguey asadas, se coloca sobre una olla que recoge el jugo para el consomé. Se tapa todo con más pencas y tierra y se cuece lentamente durante unas ocho horas.
>> ~cousin_party
U: Mi prima también hizo los XV de su hija el año pasado, en marzo, en un salón de Tlalpan, y le salió carísimo. ¿Vale la pena contratar un organizador de eventos?
A: Un organizador puede ahorrar dinero y estrés si conoce proveedores y negocia buenos precios, pero su tarifa suele ser un porcentaje del presupuesto. Si tienen tiempo y familiares dispuestos a ayudar, pueden organizarlo ustedes con una buena lista. Un coordinador solo para el día del evento es una opción intermedia.
>> party_new
U: Cambio de planes con los XV: el salón se inundó con las lluvias y ahora la fiesta será el 19 de octubre en un jardín en Xochimilco. ¿Qué hacemos si llueve ese día?
A: En un jardín conviene rentar una carpa grande con laterales aunque no parezca que vaya a llover; en temporada de lluvias es el mejor seguro. Pidan tarimas para que no se enlode la pista y tengan un plan para que los invitados lleguen del estacionamiento sin mojarse. Avisen del cambio con tiempo.
?? name | ev=name | ¿Cómo me llamo? | Andrés
?? embedded | ev=job | ¿En qué me gano la vida? | Doce horas al volante; pasajero
?? relation | ev=daughter | ¿Quién es la festejada de la fiesta grande que estamos preparando? | Ximena
?? relation | ev=dog | ¿Qué animal tenemos en casa y cómo se llama? | Chispa
?? negation | ev=plane | ¿He volado alguna vez? | Nunca me he subido a un avión
?? negation | ev=diabetes | ¿Qué me pidió el médico que dejara de tomar? | refrescos; pan dulce
?? number | ev=years | ¿Cuánta experiencia tengo en mi oficio? | veintitrés años
?? place | ev=home | ¿En qué barrio de la capital está nuestra casa? | Portales
?? correction | ev=party_new | ¿Cuándo es ahora el festejo de quince años? | 19 de octubre | stale=daughter
?? place | ev=party_new | ¿Dónde se va a celebrar finalmente la fiesta? | Xochimilco
""")

FACTS_SRC.append("""
@conv facts-es-03
lang: es
pools: es
turns: 34
seed: 303
first: name
>> name
U: ¡Hola! Vale, de Valentina, encantada. Che, ¿me explicás cómo hacer un gráfico de barras en R sin que quede horrible?
A: ¡Un gusto! Con ggplot2 queda lindo enseguida: ggplot(datos, aes(x = categoria, y = valor)) + geom_col() + theme_minimal(). Después podés cambiar colores con scale_fill_brewer(), agregar títulos con labs() y rotar las etiquetas del eje con theme(). Quitar la grilla de fondo también ayuda mucho a que se vea limpio.
>> job
U: Hoy me picaron tres veces revisando las colmenas del campo experimental, y encima una reina se escapó. ¿Qué es lo mejor para bajar la hinchazón?
A: Primero sacá el aguijón raspando con una tarjeta o la uña, sin apretarlo. Después frío local durante diez o quince minutos y, si molesta mucho, una crema con corticoide suave o un antihistamínico oral. Si alguna vez notás dificultad para respirar o hinchazón en la cara, andá a una guardia enseguida.
>> boyfriend
U: Facu, mi novio, quiere que adoptemos otro gato, pero con Ñoqui ya tenemos suficiente caos. ¿Cómo se presenta un gato nuevo a uno que ya vive en casa?
A: Lo ideal es ir despacio: el gato nuevo en una habitación separada unos días, intercambiando mantas para que se acostumbren al olor. Después pueden verse a través de una puerta entreabierta o una reja, y recién entonces encuentros cortos supervisados. Cada uno necesita su propio arenero, comedero y lugares altos.
>> veg
U: Soy vegetariana hace ocho años y el asado del domingo en lo de mis suegros es una tortura. ¿Qué puedo llevar a la parrilla que no sea solo provoleta?
A: Hay muchas opciones ricas a la parrilla: berenjenas y zapallitos en rodajas con chimichurri, morrones rellenos con queso y huevo, choclos asados, brochettes de verduras con tofu marinado, y hasta hamburguesas de lentejas que aguanten el fuego. Si llevás algo bien sabroso, seguro terminan comiéndolo todos.
>> coffee
U: No tomo café, me pone nerviosa, así que vivo a base de mate. ¿Es verdad que el mate tiene tanta cafeína como el café?
A: Tiene cafeína, sí, pero una taza de café filtrado suele tener más que un mate. La cuestión es que el mate se toma en ronda durante mucho rato, así que al final del día la cantidad puede acercarse bastante. Si notás que te altera, cebalo más lavado o alterná con yerbas compuestas.
>> trip_old
U: En las vacaciones de invierno nos vamos los dos a Bariloche, ¡primera vez que voy a ver nieve de verdad! ¿Qué ropa tengo que llevar?
A: Para Bariloche en julio llevá campera impermeable, ropa térmica, buzo polar, guantes, gorro y botas que no se mojen. Si van a esquiar, conviene alquilar el equipo allá. Sumá protector solar y anteojos de sol, porque el reflejo de la nieve quema. Y reservá con tiempo, que en esas fechas se llena.
>> address
U: El departamento nuevo es el 7C y el portero nunca se acuerda, así que los paquetes terminan en el 7B. ¿Cómo hago para que los repartidores no se equivoquen?
A: Poné el número bien claro en las indicaciones del pedido, con una nota tipo 'séptimo piso, letra C, tocar timbre'. También sirve dejarle una tarjeta al portero con tu nombre y tu unidad. Si los paquetes siguen yendo mal, algunas apps permiten agregar fotos de la entrada para orientar al repartidor.
>> ~mom_bday
U: Mi vieja cumple el 14 de agosto y quiere festejar con un asado para treinta personas. ¿Cuánta carne se calcula por persona?
A: Para un asado se calcula entre trescientos y cuatrocientos gramos de carne por adulto, contando achuras y chorizos. Para treinta personas, unos diez a doce kilos en total, un poco más si son de buen comer. Sumá ensaladas, pan y alguna opción sin carne, porque siempre hay alguien que no come.
>> own_bday
U: Yo cumplo el 3 de noviembre, treinta y uno ya. ¿Es muy de vieja festejar con una cena tranquila en vez de una fiesta?
A: Para nada; festejar como a vos te guste es lo mejor. Una cena tranquila con la gente que querés puede ser mucho más linda que una fiesta ruidosa. Elegí un lugar especial o cociná algo rico en casa, armá una buena lista de música y dejá que alguien se encargue de la torta.
>> ~colleague
U: Mi compañera de laboratorio, Jimena, se mudó a Córdoba por una beca y la extraño un montón. ¿Cómo se mantiene una amistad a distancia?
A: Con rutinas pequeñas pero constantes: una videollamada fija cada dos semanas, audios largos contándose el día, mandarse fotos de cosas que les recuerdan a la otra. Planear una visita, aunque sea dentro de unos meses, da algo que esperar. Y está bien si hay semanas con menos contacto; lo importante es retomarlo.
>> hometown
U: Yo me crié en Rosario, frente al río, y a veces extraño el olor del Paraná. ¿Hay algún libro lindo ambientado por allá?
A: Podés leer a Juan José Saer, que ambientó buena parte de su obra en la zona del litoral y el río, o a Roberto Fontanarrosa, con sus cuentos de fútbol y de bar. Angélica Gorodischer también escribió desde esa ciudad. Cualquiera de ellos te va a traer algo de ese aire del Paraná.
>> trip_new
U: Cambiamos de idea: los pasajes al sur estaban imposibles, así que al final nos vamos a Mendoza, a hacer bodegas y montaña. ¿Qué bodegas me recomendás en Luján de Cuyo?
A: Luján de Cuyo es zona de malbec por excelencia. Podés visitar bodegas clásicas con historia y otras más modernas con restaurante y vista a la cordillera; conviene reservar las visitas con anticipación, sobre todo si incluyen almuerzo. Contratá un remís o una excursión para no manejar después de las degustaciones.
?? name | ev=name | ¿Cómo me dicen mis amigos? | Vale
?? embedded | ev=job | ¿Con qué bichos trabajo todos los días? | colmenas; abejas
?? relation | ev=boyfriend | ¿Cómo se llama mi pareja? | Facu
?? relation | ev=boyfriend | ¿Cómo se llama el felino que ya vive con nosotros? | Ñoqui
?? preference | ev=veg | ¿Qué tipo de alimentación sigo? | vegetariana
?? negation | ev=coffee | ¿Te parece buena idea que me regalen una cafetera italiana? | No tomo café
?? number | ev=address | ¿Cuál es mi unidad en el edificio? | 7C
?? date | ev=own_bday | ¿Cuándo me toca soplar las velitas? | 3 de noviembre
?? number | ev=own_bday | ¿Cuántos años voy a cumplir? | treinta y uno
?? place | ev=hometown | ¿De qué ciudad soy originalmente? | Rosario
?? correction | ev=trip_new | ¿Adónde nos escapamos al final en julio? | Mendoza | stale=trip_old
""")

FACTS_SRC.append("""
@conv facts-mixed-01
lang: en, es
pools: en, es
turns: 34
seed: 401
first: name
>> name
U: Hey! Cami here, well, Camila, but only my abuela uses the full thing. Quick one: what's a good substitute for buttermilk?
A: Easy fix: stir one tablespoon of lemon juice or white vinegar into a cup of regular milk and let it sit for five to ten minutes until it thickens slightly. Plain yogurt thinned with a little milk also works well, especially in pancakes, biscuits and marinades for fried chicken.
>> job
U: Hoy tuve que traducir en la corte para un señor que solo hablaba mixteco y un poco de español, y casi no llega el intérprete de mixteco. ¿Es normal que falten intérpretes de lenguas indígenas en Estados Unidos?
A: Lamentablemente sí, es un problema frecuente. Hay muy pocos intérpretes certificados de lenguas indígenas como el mixteco, el zapoteco o el k'iche', y muchas cortes dependen de servicios por teléfono o de cadenas de interpretación, por ejemplo mixteco-español-inglés, lo que alarga los procesos y aumenta el riesgo de errores.
>> home
U: Austin summers are brutal, it's 104 again today and my tiny apartment off East Cesar Chavez turns into an oven. Cheap ways to keep a place cool?
A: Close blinds and curtains on sun-facing windows during the day, ideally blackout or reflective ones. Run fans to push hot air out in the evening when it cools down, and avoid using the oven. Swapping old bulbs for LEDs and unplugging electronics helps a bit, as does a damp sheet in front of a fan.
>> dog
U: Mi perro Frijol, un chihuahua de tres kilos con ego de pastor alemán, le ladra a todos los perros grandes del parque. ¿Cómo lo socializo?
A: Empieza a distancia: pasea cerca de perros grandes tranquilos, pero lo bastante lejos para que el tuyo no reaccione, y prémialo cuando mire sin ladrar. Acorta la distancia poco a poco durante varias semanas. Los perros pequeños a veces ladran por miedo, así que no lo fuerces ni lo cargues en brazos cada vez.
>> ~sister_dog
U: My sister has a Great Dane named Luna who is the gentlest giant ever. Maybe I should get the two of them together sometime?
A: That could work well if it's done carefully. A calm, gentle big dog can really help a small, nervous one learn that large dogs aren't scary. Meet on neutral ground, keep both on leashes at first, and let them sniff briefly before giving them more space together. Short, positive meetings are best.
>> allergy
U: Soy alérgica a las nueces, a todas, y en Thanksgiving mi suegra hace pay de nuez pecana. ¿Cómo le digo sin ofenderla que no puedo ni acercarme?
A: Dilo con cariño y claridad, antes del día: explícale que es una alergia seria y que incluso los utensilios contaminados te pueden hacer daño. Ofrece llevar tú un postre seguro, como un pay de calabaza o de manzana. Así no rechazas su comida, sino que sumas algo a la mesa.
>> husband
U: Diego keeps saying we should buy a house before rates go up again. We only got married last spring and everything feels like it's moving so fast. Is it smart to buy in your first year of marriage?
A: It can be, if your finances are stable: an emergency fund, steady incomes, a down payment that doesn't empty your savings, and a plan to stay put for at least five years. Buying under pressure because of rates isn't ideal. Talk honestly about money habits and priorities first; that conversation matters more than timing.
>> birthday
U: Mi cumpleaños es el 25 de enero y mi marido ya está tramando algo secreto. ¿Cómo descubro qué es sin arruinar la sorpresa?
A: Si de verdad quieres conservar la sorpresa, lo mejor es no investigar demasiado. Si solo quieres asegurarte de que te va a gustar, suelta pistas indirectas sobre lo que te apetece o lo que no soportarías. También puedes pedirle a una amiga de confianza que confirme que todo va por buen camino.
>> ~friend_bday
U: My best friend Marisa's birthday is on the 30th of January, five days after mine. We usually do a joint dinner. Any restaurant ideas for a group of eight?
A: For eight people, look for places with big tables or private rooms: a Tex-Mex spot with a patio, a family-style barbecue place, or a tapas restaurant where everyone shares plates. Book at least a week ahead for a weekend, and ask whether they can split the bill or offer a set menu for groups.
>> spicy
U: I never eat anything spicy, not even mild salsa, which makes me the family disappointment at every carne asada. What can I add to tacos for flavor without heat?
A: Plenty: lime juice, fresh cilantro, white onion, grilled pineapple, avocado or guacamole, pickled red onions, crumbled cotija and a squeeze of orange for carnitas. A green salsa made with just tomatillo, garlic and cilantro gives tang without the burn. Toasted garlic and a little cumin bring depth too.
>> exam_old
U: El examen de certificación federal para intérpretes es el 8 de marzo. Llevo meses estudiando terminología legal. ¿Algún consejo para la parte oral?
A: Practica la interpretación consecutiva con grabaciones reales de audiencias: la toma de notas eficiente es clave. Para la simultánea, haz ejercicios de shadowing a diario. Grábate y revisa omisiones y errores de registro. El día del examen, si te trabas, sigue adelante; una omisión pequeña pesa menos que perder el hilo.
>> rent
U: Landlord just raised the rent to $1,850 a month for a one-bedroom. Is that even legal with such short notice?
A: Texas has no rent control, so increases themselves are generally legal, but your lease matters: landlords usually can't raise rent during a fixed-term lease unless it allows it, and they must give the notice your lease specifies, often thirty days. Check the contract, and consider negotiating or asking a tenant group for advice.
>> exam_new
U: Update: they rescheduled my certification exam to the 22nd of March because of some system issue. Two more weeks of flashcards, I guess.
A: Two extra weeks can genuinely help if you use them well. Focus on your weakest areas rather than rereading everything, do timed mock sessions under exam conditions, and keep a list of tricky legal terms to review each morning. Protect your sleep the final week; memory consolidates best when you're rested.
?? name | ev=name | ¿Cómo prefiero que me llamen? | Cami
?? embedded | ev=job | What do I do for work? | traducir en la corte; interpreter
?? place | ev=home | ¿En qué ciudad vivo? | Austin
?? relation | ev=dog | What's the name of my little dog? | Frijol
?? negation | ev=allergy | Which food could send me to the ER? | nueces; nuts
?? relation | ev=husband | ¿Cómo se llama mi esposo? | Diego
?? date | ev=birthday | When should I expect cake and presents? | 25 de enero; January 25
?? negation | ev=spicy | ¿Puedo pedir mis tacos con salsa bien picante? | never eat anything spicy
?? number | ev=rent | ¿Cuánto pago de alquiler al mes? | 1,850; 1850
?? correction | ev=exam_new | ¿Cuándo es por fin mi examen? | 22nd of March; 22 de marzo | stale=exam_old
""")

FACTS_SRC.append("""
@conv facts-mixed-02
lang: en, zh
pools: en, zh
turns: 33
seed: 402
first: name
>> name
U: Hiya, it's Wei. Chen Wei if you're filling in a form, but Wei is fine. Settle an argument for me: is it 'fewer people' or 'less people'?
A: It's 'fewer people'. Use fewer with things you can count one by one, like people, apples or emails, and less with quantities you can't count individually, like water, time or money. Supermarket signs saying 'ten items or less' are technically wrong, though everyday English is relaxed about it.
>> job
U: 今天药房又排长队，一上午配了两百多张处方，还有个老太太非要我给她推荐安眠药。遇到这种情况怎么说比较好？
A: 遇到想要安眠药的顾客，可以先了解她失眠的原因和持续时间，建议她先尝试调整睡眠习惯，比如固定作息、睡前少看屏幕。如果长期失眠，还是要请她去看全科医生，由医生评估后再决定是否需要处方药。语气温和一点，她会更容易接受。
>> home
U: We're in a tiny flat in Walthamstow and the boiler has died for the third time this winter. How long can a landlord legally leave you without heating in the UK?
A: Landlords must repair heating and hot water within a reasonable time, and in winter that generally means within twenty-four to forty-eight hours for a complete loss of heating. Report it in writing, keep records, and if they don't act, contact your council's private housing team, who can enforce repairs.
>> origin
U: 我十二岁才跟爸妈从大连搬来英国，到现在说英语还是会不自觉带点口音。口音需要刻意去改吗？
A: 不一定需要改。只要别人能听懂，口音本身并不是问题，它也是你经历的一部分。如果在工作中经常因为发音被误解，可以针对几个具体的音练习，比如录音对比、跟读播客。但完全消除口音没有必要，清晰比“地道”更重要。
>> ~brother
U: 我哥倒是回国了，现在在上海做律师，他老劝我也回去。国内的执业资格和英国的能互认吗？
A: 大多数专业资格在中英两国之间并不能直接互认。一般来说，在国内执业需要通过国内相应的资格考试，英国的注册资格只能作为学历和经验的参考。如果认真考虑回国，建议先查清楚具体行业的要求，并和已经回去的同行聊一聊。
>> partner
U: Sophie, my girlfriend, is trying to learn Mandarin so she can chat with my grandma on video calls. What's a good app or method for an adult beginner?
A: For an adult beginner, combine a structured course with real listening: an app like HelloChinese or a textbook for basics, Pleco as a dictionary, and short daily practice on tones with an online tutor. Learning phrases for those video calls first gives quick wins and motivation, which matters a lot at the start.
>> grandma
U: 我奶奶今年九十一岁了，还天天在小区里打麻将，脑子比我还灵。老人经常打麻将真的能预防老年痴呆吗？
A: 有一些研究发现，经常参与打麻将、下棋这类需要记忆和计算的社交活动，和认知能力下降较慢有关。不过这更可能是动脑、社交和规律生活共同起作用，不能说打麻将就一定能预防。老人家喜欢、又不过度熬夜，就是很好的爱好。
>> plane
U: I haven't been on a plane since 2016 after a horrendous flight, so every holiday is by train now. Can you get from London to Barcelona by train in a day?
A: Yes, it's doable in a long day: Eurostar to Paris, then a direct high-speed train from Paris Gare de Lyon to Barcelona, roughly six and a half hours. Allow time to cross Paris between stations. In total it's usually ten to eleven hours, and the scenery through southern France is lovely.
>> engage_old
U: 我们的订婚宴定在6月8号，在唐人街一家粤菜馆，两边家长第一次正式见面，我紧张得要命。中英两家人吃饭要注意什么？
A: 可以提前跟双方家长简单介绍一下对方的习惯，比如中餐是大家一起分享菜，敬酒的方式也不同，英国家长可能不太习惯转盘和一道接一道的菜。点菜照顾一下口味，别全是太“挑战”的菜。你们俩坐在两家中间，帮忙翻译和活跃气氛就好。
>> bill
U: 这个月的电费账单居然是236英镑，比去年同期翻了一倍。英国有什么省电的办法吗？
A: 可以先检查一下是不是按实际用量计费，提交准确的电表读数，避免估算账单偏高。平时把暖气温度调低一两度、给热水器设定时间、用节能灯泡、电器不用时彻底关掉插座，都能省不少。也可以比较一下其他供应商的价格。
>> ~colleague
U: My colleague Priya cycles in from Croydon every day, rain or shine, and I'm in awe. Is a folding bike worth it for a mixed train-and-cycle commute?
A: For mixed commutes, folding bikes are excellent: you can take them on most trains at any time, they fold in seconds and store under a desk. The trade-offs are smaller wheels, a slightly harsher ride and a higher price for good ones. If the cycling part is under five miles, they're usually worth it.
>> engage_new
U: The restaurant double-booked, so the engagement dinner is now on the 15th of June instead. At least my mum has another week to stress about the seating plan.
A: A week's delay might actually help: more time to settle the menu and the seating plan calmly. Suggest your mum seats the two sets of parents near each other with the two of you in the middle to translate. Confirm the new booking in writing so there are no more surprises.
?? name | ev=name | 你应该怎么称呼我？ | Wei
?? embedded | ev=job | What's my profession? | 药房; 处方; pharmacist
?? place | ev=home | 我住在伦敦哪个区？ | Walthamstow
?? place | ev=origin | Which city did my family leave when we emigrated? | 大连; Dalian
?? relation | ev=partner | 我女朋友叫什么名字？ | Sophie
?? number | ev=grandma | How old is my father's mother? | 九十一; 91
?? negation | ev=plane | 我们出去度假会坐飞机吗？ | haven't been on a plane
?? number | ev=bill | What did the latest power bill come to? | 236
?? correction | ev=engage_new | 两家人一起庆祝定亲的那顿饭最后改到了哪天？ | 15th of June; 6月15 | stale=engage_old
""")

FACTS_SRC.append("""
@conv facts-de-01
lang: de
pools: de
turns: 34
seed: 501
first: name
>> name
U: Moin! Hauke hier, aus dem hohen Norden. Mal was ganz Banales zum Anfang: Wie lange muss ein Ei kochen, damit es wachsweich ist?
A: Für ein wachsweiches Ei: Größe M, direkt aus dem Kühlschrank in sprudelnd kochendes Wasser, etwa sechs bis sieben Minuten. Danach kurz kalt abschrecken, damit es nicht nachgart und sich leichter schälen lässt. Bei Zimmertemperatur reicht eine Minute weniger, bei Größe L etwas mehr.
>> job
U: Die ganze Woche Eichendielen abgeschliffen und geölt, ich habe Sägemehl in Ohren, von denen ich nichts wusste. Welche Staubmaske ist für Holzstaub wirklich sinnvoll?
A: Für Holzstaub, besonders von Eiche und Buche, die als krebserregend gelten, solltest du mindestens eine FFP2-, besser eine FFP3-Maske tragen, gut sitzend und mit Ausatemventil für längeres Arbeiten. Noch wichtiger ist eine Absaugung direkt an der Maschine. Mit Bart sitzen Masken übrigens oft schlecht.
>> home_old
U: Wir wohnen in Hamburg-Altona, nicht weit von der Elbe, und im Winter pfeift der Wind durch jede Ritze unserer Altbauwohnung. Wie dichte ich alte Holzfenster am besten ab?
A: Für alte Holzfenster eignen sich Dichtungsprofile, die in eine gefräste Nut eingesetzt werden; sie halten deutlich länger als selbstklebende Bänder. Undichte Stellen findest du mit einer Kerze, deren Flamme flackert. Verzogene Flügel lassen sich oft schon durch Nachstellen der Beschläge deutlich verbessern.
>> wife
U: Anke und ich sind seit neunzehn Jahren verheiratet, und ich habe unseren Hochzeitstag schon zweimal vergessen. Gibt es eine Erinnerungs-App, die man nicht übersehen kann?
A: Jeder normale Kalender reicht, wenn du ihn richtig einstellst: den Termin als jährliches Ereignis anlegen und mehrere Erinnerungen setzen, etwa zwei Wochen und drei Tage vorher, damit genug Zeit für ein Geschenk bleibt. Ein gemeinsamer Familienkalender hilft auch, dann fällt es zumindest einem von euch rechtzeitig auf.
>> daughter
U: Unsere Frieda ist zwölf und will unbedingt ein eigenes Pferd. Wir haben ihr Reitstunden angeboten, aber das reicht ihr nicht. Was kostet so ein Pferd eigentlich im Monat?
A: Die Anschaffung ist meist der kleinste Teil. Laufend kommen Stallmiete, Futter, Hufschmied, Tierarzt, Versicherung und Ausrüstung hinzu; je nach Region sind das schnell vierhundert bis achthundert Euro im Monat, plus viel Zeit. Eine Reitbeteiligung ist ein guter Zwischenschritt, um zu sehen, ob der Wunsch bleibt.
>> ~colleague_daughter
U: Mein Kollege Ole hat auch eine Tochter, Merle, die ist vierzehn und reitet schon Turniere. Ist das in dem Alter nicht sehr viel Druck?
A: Das hängt stark vom Umfeld ab. Turniere können motivieren und Selbstvertrauen geben, wenn der Spaß im Vordergrund steht und die Eltern nicht zu viel erwarten. Zu viel Druck entsteht oft durch ehrgeizige Trainer oder Eltern. Wichtig ist, dass sie jederzeit sagen darf, wenn sie eine Pause möchte.
>> nuts
U: Ich bin gegen Haselnüsse allergisch, richtig heftig, mit Atemnot. Auf dem Weihnachtsmarkt ist das ein Minenfeld. Worauf muss ich achten?
A: Vorsicht bei gebrannten Mandeln und anderen Nussständen, wegen Kreuzkontamination auch bei Schokofrüchten, Lebkuchen, Crêpes mit Nougat und Stollen. Frag an den Ständen nach Zutaten, viele haben Allergenlisten. Hab dein Notfallset immer griffbereit und sag deinen Begleitern, wo es ist und wie man es anwendet.
>> alcohol
U: Ich trinke seit zehn Jahren keinen Tropfen Alkohol mehr, und beim Betriebsfest gucken mich alle komisch an. Gibt es Drinks ohne, die nicht nach Kindergeburtstag aussehen?
A: Ja, inzwischen gibt es viele: alkoholfreies Weißbier, Tonic mit Rosmarin und Gurke, alkoholfreier Gin mit Tonic, Espresso Tonic oder eine Ingwer-Limetten-Schorle im Longdrinkglas. Mit Eis, Zitrusscheibe und passendem Glas fragt meistens auch niemand mehr nach. Und eigentlich geht es ohnehin niemanden etwas an.
>> bike
U: Das Zahlenschloss an meinem Lastenrad hat die Kombination 2907, und meine Tochter hat sie natürlich schon allen Freundinnen verraten. Lohnt sich ein besseres Schloss?
A: Bei einem Lastenrad auf jeden Fall, die sind teuer und bei Dieben beliebt. Ein stabiles Bügel- oder Faltschloss einer hohen Sicherheitsstufe, mit dem du den Rahmen an einem festen Gegenstand anschließt, ist deutlich sicherer als ein Zahlenschloss. Zusätzlich lohnen sich eine Registrierung der Rahmennummer und eventuell ein GPS-Tracker.
>> bday
U: Ich werde am 4. März fünfzig, und meine Frau will unbedingt eine große Feier. Ich würde lieber segeln gehen. Wie findet man da einen Kompromiss?
A: Vielleicht lässt sich beides verbinden: tagsüber ein Segeltörn mit den engsten Freunden und abends eine kleine Feier im Hafen. Oder ihr feiert am Wochenende groß, und du wünschst dir den Segeltag als Geschenk von allen. Sprecht offen darüber, was euch jeweils wichtig ist; meistens geht es um bestimmte Menschen.
>> ~friend_place
U: Mein alter Schulfreund Jens ist nach Kiel gezogen und segelt jetzt jedes Wochenende. Ist Kiel ein guter Ort, um Segeln zu lernen?
A: Sehr gut sogar. Die Förde ist relativ geschützt, es gibt zahlreiche Segelschulen und Vereine, und die Kieler Woche zeigt, wie segelbegeistert die Stadt ist. Für Anfänger sind Jollenkurse im Sommer ideal. Den Sportbootführerschein See kann man dort ebenfalls gut machen.
>> home_new
U: Neuigkeiten: Wir sind raus aus der Großstadt und wohnen jetzt in Lüneburg, in einem kleinen Haus mit Scheune im Hof. Endlich Platz! Wie isoliere ich so eine alte Scheune als Werkstatt?
A: Für eine Werkstatt reicht oft eine Dämmung von Dach und Wänden mit Holzfaserplatten oder Mineralwolle, dazu eine Dampfbremse auf der warmen Seite. Zuerst aber das Dach abdichten und für einen trockenen Boden sorgen. Plane eine gute Lüftung ein, vor allem wegen Staub und Lacken, und prüfe vorher, ob du eine Genehmigung brauchst.
?? name | ev=name | Mit welchem Namen habe ich mich vorgestellt? | Hauke
?? embedded | ev=job | Was mache ich beruflich? | Eichendielen abgeschliffen; Tischler
?? relation | ev=wife | Wie heißt meine Ehefrau? | Anke
?? number | ev=wife | Wie lange bin ich schon unter der Haube? | neunzehn; 19
?? relation | ev=daughter | Wie heißt unser Kind, und wie alt ist es? | Frieda
?? negation | ev=nuts | Was darf auf keinen Fall in meinem Essen landen? | Haselnüsse
?? negation | ev=alcohol | Soll ich dir zum Feierabend einen guten Whisky empfehlen? | keinen Tropfen Alkohol
?? number | ev=bike | Welche Ziffern öffnen das Schloss an meinem Transportfahrrad? | 2907
?? date | ev=bday | An welchem Tag werde ich ein Jahr älter? | 4. März
?? number | ev=bday | Welchen runden Geburtstag feiere ich demnächst? | fünfzig; 50
?? correction | ev=home_new | In welcher Stadt wohnen wir inzwischen? | Lüneburg | stale=home_old
""")

FACTS_SRC.append("""
@conv facts-de-02
lang: de
pools: de
turns: 32
seed: 502
>> name
U: Kurze Frage zwischendurch, bevor ich's vergesse: Wie formuliert man eine höfliche Absage auf eine Hochzeitseinladung? Danke dir! – Sabine
A: Bedanke dich zuerst herzlich für die Einladung und gratuliere dem Paar. Dann sag kurz und ohne lange Begründung ab, etwa: 'Leider können wir an diesem Tag nicht dabei sein, was wir sehr bedauern.' Zum Schluss gute Wünsche für den großen Tag und vielleicht das Angebot, bald gemeinsam anzustoßen.
>> job
U: Heute Probe von neun bis eins, Mahlers Fünfte, und nach dem Solo ganz am Anfang sind meine Lippen komplett taub. Gibt es Übungen, damit der Ansatz länger durchhält?
A: Für mehr Ausdauer beim Ansatz helfen tägliche Buzzing-Übungen mit und ohne Mundstück, lange leise Töne und viele kurze Pausen statt langer Übungsblöcke. Nach intensiven Proben die Lippen sanft massieren und entspannen. Zwischen anstrengenden Passagen das Instrument bewusst absetzen, auch wenn es nur für Sekunden ist.
>> son
U: Jonas ist gerade fürs Studium nach Leipzig gezogen und ruft nur an, wenn die Waschmaschine Probleme macht. Ist das normal mit neunzehn?
A: Völlig normal. In dem Alter ist die Abnabelung wichtig, und dass er sich meldet, wenn er Hilfe braucht, zeigt ja, dass er dir vertraut. Du kannst lockere Rituale anbieten, etwa ein kurzes Telefonat am Sonntag, ohne Druck. Viele melden sich von selbst häufiger, sobald sich der Alltag eingespielt hat.
>> cat
U: Unsere Mimi, eine graue Kartäuserkatze, frisst seit zwei Tagen kaum. Ab wann sollte ich mit ihr zum Tierarzt?
A: Bei Katzen sollte man nicht lange warten: Frisst eine Katze länger als vierundzwanzig bis achtundvierzig Stunden kaum etwas, droht eine gefährliche Leberverfettung. Nach zwei Tagen solltest du sie also untersuchen lassen, sofort bei Erbrechen, Apathie oder wenn sie nicht trinkt. Biete bis dahin leicht erwärmtes, besonders schmackhaftes Futter an.
>> ~neighbor_cat
U: Die Katze unserer Nachbarin, Minka, schleicht sich ständig in unseren Garten und ärgert unsere Katze durchs Fenster. Kann man das irgendwie unterbinden?
A: Ganz verhindern lässt sich das kaum, Katzen halten sich nicht an Grundstücksgrenzen. Du kannst den Garten mit bestimmten Duftpflanzen, Bewegungsmeldern mit Wassersprinkler oder glatten Zaunabschlüssen unattraktiver machen. Drinnen hilft es, den Sichtkontakt am Fenster zeitweise mit Milchglasfolie zu reduzieren.
>> fish
U: Ich esse überhaupt keinen Fisch, habe ich noch nie gemocht, und jetzt sagt meine Ärztin, mir fehlen Omega-3-Fettsäuren. Was kann ich stattdessen essen?
A: Pflanzliche Quellen sind Leinöl, Walnüsse, Chiasamen und Rapsöl; sie liefern die Vorstufe ALA, die der Körper allerdings nur begrenzt umwandelt. Direkt EPA und DHA bekommst du über Algenöl-Kapseln, eine gute Alternative zu Fischölkapseln. Die Dosierung sprichst du am besten mit deiner Ärztin ab.
>> instrument
U: Mein neues Instrument hat 7.800 Euro gekostet, und ich traue mich kaum, es in der U-Bahn mitzunehmen. Lohnt sich eine Instrumentenversicherung?
A: Bei diesem Wert auf jeden Fall. Eine spezielle Instrumentenversicherung deckt meist Diebstahl, Transportschäden und Unfälle auch unterwegs und auf Reisen ab, was die Hausratversicherung oft nicht tut. Achte auf weltweite Geltung, Neuwertersatz und darauf, ob Zubehör wie Koffer und Mundstücke mitversichert sind.
>> tour_old
U: Im Mai geht unsere Orchestertournee nach Wien, ich freue mich riesig auf den Musikverein. Was sollte ich mir an einem freien Nachmittag dort anschauen?
A: An einem freien Nachmittag lohnt sich das Kunsthistorische Museum, ein Spaziergang durch die Innenstadt zum Stephansdom und danach ein Kaffeehausbesuch, etwa im Café Sperl oder Café Hawelka. Wenn noch Zeit bleibt, ist der Naschmarkt schön für einen kleinen Imbiss am frühen Abend.
>> volleyball
U: Mittwochs um halb acht spiele ich Volleyball im Verein, das ist mein Ausgleich. Aber mein Handgelenk meldet sich langsam. Wie schütze ich es beim Baggern?
A: Beim Baggern sollte der Ball auf den Unterarmen landen, nicht auf den Handgelenken oder Händen. Die Arme gestreckt halten, die Hände fest ineinanderlegen und die Bewegung aus den Beinen holen statt aus den Armen. Kräftigungsübungen für die Unterarme und gutes Aufwärmen helfen zusätzlich. Bei anhaltenden Schmerzen lieber ärztlich abklären.
>> ~colleague_tour
U: Unser Konzertmeister Thomas fliegt schon eine Woche vorher nach Budapest, um dort eine Meisterklasse zu geben. Beeindruckend, oder?
A: Das ist wirklich beeindruckend. Meisterklassen zu geben zeigt, dass er auch als Lehrer einen Namen hat, und der Austausch mit jungen Musikerinnen und Musikern ist für beide Seiten bereichernd. Budapest hat außerdem eine große Musiktradition, mit der Liszt-Akademie als einem der schönsten Konzertsäle Europas.
>> tour_new
U: Planänderung bei der Tournee: Der Saal dort wird renoviert, also spielen wir jetzt stattdessen in Prag, im Rudolfinum. Auch nicht schlecht!
A: Ein wunderbarer Ersatz, und das Rudolfinum hat eine herrliche Akustik. Wenn du freie Zeit hast, geh frühmorgens über die Karlsbrücke, bevor die Touristenmassen kommen, und hinauf zur Burg. Die Kleinseite mit ihren Gassen ist abends besonders schön, und das Bier ist hervorragend.
?? name | ev=name | Wie lautet mein Vorname? | Sabine
?? embedded | ev=job | Womit verdiene ich mein Geld? | Mahlers Fünfte; Trompete
?? relation | ev=son | Wie heißt mein Sohn? | Jonas
?? place | ev=son | In welcher Stadt ist mein Kind an der Uni? | Leipzig
?? number | ev=son | Wie alt ist mein Junge? | neunzehn; 19
?? relation | ev=cat | Was für ein Haustier haben wir, und wie heißt es? | Mimi
?? negation | ev=fish | Soll ich dir ein Rezept mit Forelle oder Lachs vorschlagen? | keinen Fisch
?? number | ev=instrument | Welchen Betrag habe ich zuletzt für mein wichtigstes Arbeitsgerät hingelegt? | 7.800; 7800
?? time | ev=volleyball | Wann ist jede Woche mein Ballsport-Training? | Mittwochs um halb acht
?? correction | ev=tour_new | Wohin führt uns die Konzertreise jetzt tatsächlich? | Prag | stale=tour_old
""")

FACTS_SRC.append("""
@conv facts-de-03
lang: de
pools: de
turns: 32
seed: 503
first: name
>> name
U: Hi, Emre hier, 27, Kölner Jung durch und durch. Erklär mir mal, warum man am Dom über sechshundert Jahre gebaut hat?
A: Der Bau begann 1248, wurde aber um 1520 aus Geldmangel und schwindendem Interesse eingestellt. Jahrhundertelang stand der halbfertige Dom mit einem Holzkran auf dem Südturm da. Erst im 19. Jahrhundert, angetrieben von Romantik und Nationalgefühl, wurde weitergebaut und 1880 schließlich vollendet.
>> job
U: Jeden Tag Linie 7 im Berufsverkehr, dieselben Baustellen, dieselben Falschparker auf den Gleisen, und heute hat mir einer gegen die Scheibe meiner Kabine gehämmert, weil ich nicht auf ihn gewartet habe. Wie bleibt man da gelassen?
A: Hilfreich ist, sich bewusst zu machen, dass der Ärger der Fahrgäste selten persönlich gemeint ist, sondern mit Zeitdruck zu tun hat. Kurze Atemübungen an den Endhaltestellen, ein festes Feierabendritual und der Austausch mit Kolleginnen und Kollegen helfen, Stress abzubauen. Und Pausen konsequent nehmen, auch wenn der Fahrplan drängt.
>> fiancee
U: Selin und ich heiraten am 14. September, und ihre Familie plant eine Hochzeit mit vierhundert Gästen. Meine Familie ist eher klein. Wie kriegt man das unter einen Hut?
A: Sprecht früh offen über Erwartungen und Budget, bevor Details festgezurrt werden. Bei großen Hochzeiten übernehmen oft beide Familien unterschiedliche Teile, etwa die eine das Fest, die andere das Standesamt oder das Essen am Vorabend. Wichtig ist, dass ihr als Paar die Entscheidungen gemeinsam vertretet, dann fühlt sich niemand übergangen.
>> pork
U: Ich esse kein Schweinefleisch, und in der Kantine gibt es gefühlt jeden Tag Currywurst oder Schnitzel. Was kann ich da sinnvoll essen?
A: Schau, ob es ein vegetarisches Tagesgericht oder eine Salatbar gibt, die du mit Eiern oder Hülsenfrüchten ergänzen kannst. Frag ruhig nach Alternativen, viele Kantinen bieten Schnitzel auch aus Pute oder Huhn an. An manchen Tagen lohnt es sich außerdem, selbst etwas vorzubereiten und mitzunehmen.
>> ~brother
U: Mein Bruder Kaan wohnt in Berlin-Neukölln und behauptet, dort gibt es den besten Döner Deutschlands. Stimmt das, oder ist das Berliner Größenwahn?
A: Berlin gilt tatsächlich als Döner-Hauptstadt, weil der Döner im Brot dort in den Siebzigern populär wurde und die Auswahl riesig ist. Ob der beste aber in Neukölln steht, ist Geschmackssache und Anlass endloser Debatten. Dein Zuhause hat inzwischen auch hervorragende Imbisse, also macht doch mal einen Vergleichstest.
>> team
U: Ich bin Fan vom FC, seit ich denken kann, auch wenn es oft wehtut. Warum steigen Traditionsvereine eigentlich so oft ab?
A: Traditionsvereine haben oft hohe Erwartungen und eine große Fanbasis, also Druck, schnell Erfolge zu liefern. Das führt zu häufigen Trainerwechseln und teuren Fehleinkäufen, manchmal kommen finanzielle Altlasten dazu. Vereine mit sehr stabiler Führung planen oft langfristiger. Die Fans bleiben trotzdem, und das ist ja das Schöne daran.
>> flat
U: Für die gemeinsame Wohnung in Ehrenfeld zahlen wir ab nächsten Monat 1.150 Euro warm, drei Zimmer. Ist das für die Gegend ein fairer Preis?
A: Für drei Zimmer in einem beliebten Viertel ist das derzeit eher ein fairer Preis, abhängig von Größe und Zustand. Vergleiche den Quadratmeterpreis mit dem örtlichen Mietspiegel und lass dir die letzte Nebenkostenabrechnung zeigen. Achte auch darauf, wie Kaution und eventuelle Staffelmieten im Vertrag geregelt sind.
>> ~sister_cat
U: Meine Schwester Elif hat eine Katze, Pamuk, die nur Trockenfutter einer einzigen Marke frisst. Ist so ein wählerisches Tier normal?
A: Ja, Katzen sind oft sehr wählerisch und prägen sich früh auf bestimmte Geschmäcker und Konsistenzen. Wenn die Katze gesund und das Futter vollwertig ist, ist das kein Problem. Eine Umstellung sollte langsam erfolgen, über ein bis zwei Wochen mit steigenden Anteilen des neuen Futters. Frisches Wasser ist besonders wichtig.
>> suit
U: Am Donnerstag um 16:30 ist die erste Anprobe für meinen Hochzeitsanzug, und ich habe im Urlaub drei Kilo zugenommen. Ist das ein Problem?
A: Keine Sorge, genau dafür gibt es mehrere Anproben. Drei Kilo fallen bei einem Maßanzug meist kaum ins Gewicht, und die Schneiderei passt ihn ohnehin bis kurz vor dem großen Tag an. Sag bei der Anprobe ehrlich, ob du noch abnehmen möchtest, dann plant man etwas Spielraum ein.
>> wedding_new
U: Kleine Katastrophe: Der Festsaal hat doppelt gebucht, also haben wir die Hochzeit auf den 21. September verschoben. Jetzt müssen alle Gäste neu informiert werden.
A: Ärgerlich, aber gut, dass es jetzt und nicht kurz vorher aufgefallen ist. Schickt schnell eine kurze, freundliche Nachricht an alle, digital geht es am schnellsten, und bittet um erneute Zusage. Neue Karten braucht es nicht unbedingt. Klärt mit dem Saal, ob sie euch für den Aufwand entgegenkommen.
?? name | ev=name | Wie soll ich von dir angesprochen werden? | Emre
?? number | ev=name | Wie alt bin ich? | 27
?? embedded | ev=job | Was ist mein Job? | Linie 7; Kabine; Straßenbahn
?? relation | ev=fiancee | Wer wird bald meine Frau? | Selin
?? number | ev=fiancee | Mit wie vielen Leuten rechnet die Verwandtschaft meiner Verlobten auf dem Fest? | vierhundert; 400
?? negation | ev=pork | Welches Fleisch kommt bei mir nicht auf den Teller? | Schweinefleisch
?? preference | ev=team | Welchem Fußballverein drücke ich die Daumen? | Fan vom FC
?? number | ev=flat | Was kostet uns das neue Zuhause monatlich inklusive Nebenkosten? | 1.150; 1150
?? place | ev=flat | In welchem Viertel ziehen wir zusammen? | Ehrenfeld
?? time | ev=suit | Wann muss ich zum Schneider? | Donnerstag um 16:30
?? correction | ev=wedding_new | An welchem Tag sagen wir jetzt Ja zueinander? | 21. September | stale=fiancee
""")

LONG_SRC.append("""
@conv long-en-01
lang: en
pools: en
names: Dan; Marisol
target: 340
seed: 601
dates: 7 January 2024; 21 January 2024; 11 February 2024; 3 March 2024; 24 March 2024; 14 April 2024; 12 May 2024; 9 June 2024; 7 July 2024; 4 August 2024; 8 September 2024; 6 October 2024; 3 November 2024
== 1
U: Happy new year! Any resolutions this time, or are we skipping that nonsense again?
A: Skipping, mostly. Though I did promise myself I'd stop doing Saturdays at the bakery.
U: Still the five a.m. starts? No wonder you're always yawning on our calls.
A#bakery: Eight years of laminating croissant dough will do that. I love the place, but I'm itching for something of my own.
--
U#theo: Theo's making me do Dry January with him. Living with a man who labels his meal-prep tubs is humbling.
A: Ha! Honestly it sounds like a dream. My fridge is half a lemon and some mustard.
U: He's labelled the mustard too. With the date he opened it.
A: Marry him immediately. Oh wait.
== 2
U#overstory_start: Started that enormous tree novel a colleague lent me. Five hundred pages. I'm on page sixty.
A: Ambitious! Is it grabbing you yet, or is it homework?
U: Homework. Loads of characters, and I keep forgetting who planted which chestnut.
A: Give it another fifty pages. If it's still a slog, life's too short.
--
U: You coming up for the birthday dinner in March? We'll sort you a bed.
A#nodrive: Wouldn't miss it. I'll get the train up, obviously. Thirty-four and never learned to drive, so it's trains and buses forever.
U: One day we'll get you behind a wheel.
A: Over my dead body. Or possibly everyone else's.
== 3
U#overstory_quit: Officially gave up on The Overstory. Page one-forty and I just didn't care about anyone in it.
A: No shame at all. I abandoned Middlemarch three times before it finally clicked.
--
U#edinburgh: Off to Edinburgh next week for a chemistry teachers' conference. Two days of talks about practical assessments.
A: Thrilling! At least the city's pretty. Eat something warming for me.
U: There's a session called 'Titrations Revisited'. I'm not joking.
A: Sounds like a gripping sequel, honestly. Bring me the programme.
--
U#mum_op: Mum's finally got a date for her hip operation, the 18th of March. She's pretending not to be nervous.
A: Oh good, at least it's actually happening. Give her my love. How's your dad coping?
U: He's researching grab rails like it's a PhD thesis.
A: Bless him. That's love, in grab rail form.
== 4
U: You sounded very excited on that voice note. What's going on?
A#quit: I handed in my notice at the bakery! Last shift is the 29th. I'm terrified and thrilled.
U: Wow! Okay, what's the plan?
A: Still figuring it out. Something with my hands, something that's mine. Ask me again in a month.
--
U: I need a new book after the tree disaster. Recommend me something, please.
A#piranesi_rec: Piranesi. Short and strange: a man living in an endless house full of statues and tides. Trust me on this one.
U: Strange is good. Ordering it right now.
A: You'll thank me, I promise. Report back.
== 5
U#mum_after: Mum's operation went fine. Five days later she was walking around the ward with a stick, bossing the nurses about.
A: That's brilliant news! Those nurses deserve medals, honestly.
--
U#georgian: We tried that Georgian place on Oldham Street last night. The khachapuri, Marisol. A cheese boat with an egg in it. Life-changing.
A: Stop, I'm hungry now. Was it expensive?
U: Not at all. We're going back next week for the dumplings.
A: Save me a seat and a dumpling.
--
U: Any plans for your last free weeks before whatever comes next?
A#lisbon: Lisbon with my sister, first week of April! Tiles, trams and as many custard tarts as legally allowed.
U: Jealous. Bring me back a tile.
A: I'll bring you a tart, more realistic.
== 6
U: How was the trip? Did you survive all those hills?
A: Barely. The old town nearly killed me. But I ate eleven custard tarts in four days.
--
U: So? Did the month of figuring out produce anything?
A#studio: I'm opening a pottery studio! Tiny unit in Stokes Croft, two wheels, a secondhand kiln. Signed the lease on Friday.
U: Marisol! That's amazing. A proper business owner.
A#rent: A proper broke business owner. Rent's £640 a month, which is terrifying with zero students so far.
--
U#piranesi_loved: Finished Piranesi in two evenings. You were right, it's wonderful. I keep thinking about the tides in the halls.
A: Told you! Wasn't the ending just perfect?
--
U#greyhound: Big news here too: we're adopting a retired racing greyhound. Meeting her at the rescue on Saturday.
A: A greyhound! Forty-mile-an-hour couch potatoes. I love this so much.
== 7
U#juniper: The dog has a name now: Juniper. She sleeps about nineteen hours a day and steals socks.
A: What a perfect name. Send photos immediately, that's an order.
--
U: How's the studio going? Any students yet?
A#class: The Thursday evening beginners' class is full! Seven o'clock, six students, lots of wonderfully wonky bowls.
U: Six already! That's basically a waiting list.
A: Don't jinx it, please. I'm still scared.
--
U: What are you reading at the moment?
A#tomorrow: Tomorrow, and Tomorrow, and Tomorrow. Two friends making video games for thirty years. Surprisingly sad.
U: Add it to my pile, once the dog stops eating my bookmarks.
A: She clearly has excellent literary taste.
--
U#ramen: Tried the new ramen place near school. Honestly? Salty and lukewarm. Nothing on those Georgian cheese boats.
A: Boo. Stick with the cheese boats then.
== 8
U#krakow: Booked Kraków for the first week of July, just the two of us. I want to see the salt mine.
A: Amazing. Eat all the pierogi, and go to Kazimierz in the evening.
--
U: Any new food discoveries down there?
A#tapas: A tiny tapas bar near the studio, Casa Alba. Their croquetas are ridiculous. Taking you next time.
U: Deal. I'll hold you to that.
A: Their vermouth is also dangerously good.
--
U: How's the flat? Still peaceful?
A#noodle: Not really. My flatmate bought a rabbit called Noodle and it chewed through my phone charger.
U: A rabbit! Is it cute at least?
A: Unbearably cute. That's how it gets away with crimes.
== 9
U#krakow_back: Back from Poland. The salt mine was unreal, there's a whole chapel carved out underground.
A: So what was the pierogi count in the end?
U: Thirty-eight between us. No regrets whatsoever.
A: Respect. That's genuinely impressive work.
--
U: You deserve a holiday after the studio's first season.
A#porto: Planning one! Porto for a week in October. Port cellars, the fancy bookshop, maybe a day up the Douro.
U: That sounds perfect for October.
A: Fingers crossed the studio survives without me.
--
U: How's your family doing these days?
A#ines: My sister Inés got engaged! Her boyfriend proposed on a beach in Cádiz. The wedding's next May.
U: Congratulations to her! Tell her I want an invite.
A: You're already on the list, don't worry.
== 10
U: The dog learned to open the fridge. Half a block of cheddar, gone.
A: She's smarter than both of you combined, clearly.
--
U: How was the summer rush at the studio?
A: Chaos. Kids' clay camps every morning. I'm finding glaze in my ears.
== 11
U#promo: Guess who's the new head of science? Started this week. More meetings, less chemistry.
A: Dan! Congratulations! Does the job come with a better mug?
U: It comes with a budget spreadsheet and a lot of emails.
A: So no mug, then. Tragic.
--
U: Still on for your October holiday next month?
A#seville: Change of plan, the flights there doubled in price. I'm going to Seville instead! Same week, more flamenco, more heat.
U: That should be lovely in October, not too hot.
A: That's exactly what I'm counting on.
== 12
U: Send me photos from your trip, I need some sunshine.
A: Already sent three! The cathedral is absurdly big.
--
U: Juniper says hello. She's wearing a jumper now.
A: A greyhound in a jumper is peak autumn. More photos please.
== 13
U: Any plans for bonfire night this year?
A: The studio's doing a kiln firing that night, so my own little fire.
--
U: Theo wants to book a weekend in Bristol before Christmas.
A: Yes! Come to the studio, I'll make you both wonky mugs.
?? multi | ev=quit,studio | After walking away from her baking job, what did Marisol go on to set up? | pottery studio; pottery
?? correction | ev=seville | Where did Marisol end up spending her autumn holiday? | Seville | stale=porto
?? multi | ev=edinburgh,krakow | Which two cities did Dan travel to this year, one for work and one for fun? | Edinburgh; Kraków; Krakow
?? multi | ev=piranesi_rec,piranesi_loved | Which of Marisol's recommendations turned out to be a hit with Dan? | Piranesi
?? preference | ev=overstory_quit | Which novel did Dan give up on partway through? | The Overstory; Overstory
?? preference | ev=georgian | Which cuisine blew Dan away in the spring? | Georgian; khachapuri
?? multi | ev=greyhound,juniper | What kind of hound joined Dan's household, and what did they call her? | Juniper; greyhound
?? date | ev=mum_op | When was Dan's mum booked in to have her joint replaced? | 18th of March
?? multi | ev=mum_op,mum_after | What procedure did Dan's mother have, and how mobile was she less than a week afterwards? | walking around the ward with a stick; hip
?? relation | ev=theo | Who does Dan share his home with? | Theo
?? time | ev=class | When does Marisol teach newcomers at the wheel each week? | Thursday evening; Seven o'clock
?? number | ev=rent | How much does Marisol's workspace cost her per month? | 640
?? negation | ev=nodrive | Could Marisol take the wheel on a road trip? | never learned to drive
?? relation | ev=ines | Which of Marisol's relatives is getting married? | Inés; sister
?? embedded | ev=promo | What promotion did Dan get at his school? | head of science
?? place | ev=lisbon | Where did Marisol celebrate her newfound freedom in early April? | Lisbon
?? name | ev=noodle | What is the animal in Marisol's flat called? | Noodle
?? multi | ev=ramen,georgian | Which place did Dan compare the disappointing noodle shop with, and what dish did he miss? | Georgian; cheese boat
""")

LONG_SRC.append("""
@conv long-en-02
lang: en
pools: en
names: Hattie; Jo
target: 330
seed: 602
dates: 5 March 2023; 26 March 2023; 16 April 2023; 14 May 2023; 28 May 2023; 11 June 2023; 2 July 2023; 30 July 2023; 27 August 2023; 17 September 2023; 8 October 2023; 26 November 2023
== 1
U#house_price: The offer went through at £265,000. Terrifying number for a house with a swamp for a garden.
A: Hattie! That's amazing. A swamp is just a pond with ambition.
U: I'll remind you of that when you're helping me dig it out.
A: I'll supervise from a deckchair, obviously.
--
U: How are my niece and nephew?
A#kids: Alfie's got a cold and Rosa has decided she's a cat now. Eight and five, both exhausting in different ways.
U: A cat! Does she meow at dinner?
A: She eats off the floor. I've given up fighting it.
== 2
U#keys: Got the keys yesterday! Standing in an empty living room eating chips off the floorboards.
A: The best first meal in a new house. Did you cry a bit?
U: Only a bit. Mostly about the wallpaper.
A: The wallpaper deserved tears, from the photos.
--
U#gary: Builder's booked for the kitchen. A lovely bloke called Gary who calls everyone 'chief'.
A: Chief! I love him already. When does he start?
--
U: Any plans for the weekend over there?
A#marcus: Marcus is taking the kids to his mum's on Saturday, so I get a whole day to myself.
U: What will you do with all that freedom?
A: Sleep, probably. Then feel guilty about sleeping.
== 3
U#asbestos: Disaster. The builders pulled up the old kitchen floor and found asbestos tiles underneath. Everything's stopped.
A: Oh no. Don't touch anything. Has anyone tested it properly?
U: Yes, it's confirmed. Specialists have to come in.
A: Ugh, I'm so sorry. That's the worst surprise.
--
U: I'm doing a little housewarming dinner once the dust settles. Any requests?
A#mushroom: Just don't put mushrooms in anything you make me. I still can't stand them, slimy little sponges.
U: Still? You're a grown woman.
A: A grown woman with standards, thank you.
--
U: How was work today? You sound frazzled.
A#job_old: Another day of conveyancing. If I read one more boundary dispute about a hedge, I'll scream.
U: Hedges are the silent killers of joy.
A: I've started dreaming in land registry forms.
== 4
U#asbestos_cost: The specialists cleared the tiles. £1,800 I didn't have, but at least the kitchen's safe now.
A: Ouch. But safe is the main thing. Do you need a loan?
U: No, I'll survive on beans for a while. Thank you though.
A: Offer stands, always. Beans are character-building.
--
U: I'm torn between navy and sage for the living room walls.
A: Navy is dramatic, sage is calm. Depends what you want in there.
--
U: Any news from Mum and Dad this week?
A#cataract: Dad's cataract operation is on Tuesday at eight in the morning. I'm driving him in.
U: Tell him good luck from me. Is he nervous?
A: He says he isn't, which means he is.
== 5
U#iceland_plan: Booked Iceland for the first week of June! Driving the south coast, waterfalls and black beaches.
A: That's a dream trip. Take a proper coat, even in June.
--
U#paint: Went with sage green in the end. The navy tester made the lounge feel like a submarine.
A: Good call. Sage will be lovely with the wooden floors.
--
U: Steve the electrician says the wiring is from the seventies.
A: Vintage wiring. Very fashionable, very flammable.
U: He's redoing the whole downstairs next month.
A: Worth every penny, honestly. Sleep soundly.
--
U: How's Dad getting on with his new eyes?
A: He says the colours are too bright since the operation. He complained about the sky.
== 6
U#iceland_back: Back from Iceland and it was unreal. Puffins at the cliffs, hundreds of them, totally unbothered by us.
A: Puffins! Did you get photos?
U: About four hundred. Mostly blurry orange feet.
A: Send the least blurry ones, please.
--
U#party_plan: Dad turns seventy on the 14th of October. Should we throw him a proper party?
A: Definitely. Something with his old friends, not too fancy.
U#anchor: I've booked the back room at The Anchor for the evening of his birthday.
A: Perfect, he loves that pub. I'll do the invitations.
== 7
U: Have you sorted anything for the summer holidays yet?
A#camping_plan: We're camping in Pembrokeshire in August. We've bought a tent the size of a small house.
U: Brave. With two kids and Welsh weather?
A: Optimism is all I have left, honestly.
--
U#gift_idea: Present idea for Dad's seventieth: a hot-air balloon ride?
A#gift_no: He's terrified of heights, remember the lighthouse? What about a restored record player for his old jazz LPs?
U#gift_yes: Oh, the record player is perfect. I'll hunt one down, you sort the card.
A: Deal. I'll make the kids draw on it.
== 8
U: You said you had news. Spill it, I'm sitting down.
A#pgce: I've accepted the place on the PGCE! Primary teaching, starting in September. Goodbye, conveyancing forever.
U: Jo! I'm so proud of you. Kids will adore you.
A: Terrified, but excited. My husband is thrilled I'll stop ranting about hedges.
U: We all are, honestly. Hedges are the worst.
A: Amen to that. No more hedges ever.
--
U: What's book club reading at the moment?
A#lessons: Lessons in Chemistry this month. I loved it, devoured it in two days.
U: The one with the rowing and the cooking show?
A: That's the one. Her dog is the best character.
== 9
U: So how was the great camping adventure?
A#camping_back: Camping was wet. Rosa loved every minute, Alfie sulked, and the tent flooded on night two.
U: Sounds like a proper British holiday, then.
A: We ate crisps in the car while it poured. Character-building.
--
U: The record player arrived! It needs a new needle but it's gorgeous.
A: Amazing. Dad will actually cry, I guarantee it.
== 10
U: How did the first week go? I've been dying to ask.
A#cohort: First week of the course done. Twenty-six of us, and I'm the oldest by about a decade.
U: Oldest means wisest. You'll be running the place by Christmas.
A: I'll settle for finding the photocopier.
U: Baby steps. The photocopier is the final boss.
A: Everyone says so. It jams on purpose.
--
U#cricket: Change of plan for Dad's do. The Anchor's been sold and closes this month, so I've moved it to the cricket club. Same date.
A: Oh no, the Anchor! But the cricket club is nice, and there's parking.
U: And a bar that stays open past ten.
A: Even better, honestly. Dad's mates will stay forever.
--
U: Thinking about Cornwall for October half term, if the budget allows.
A: Do it, off-season Cornwall is lovely and quiet.
== 11
U: How's book club going? Any good picks lately?
A#demon: This month's book club pick is Demon Copperhead and I've given up. Too bleak for my brain right now.
U: Fair. You're training to be a teacher, you need joy.
A: Exactly. Next month I'm pushing for something funny.
--
U: Final headcount for Saturday is forty-two, including Dad's old band.
A: Forty-two! He's going to be overwhelmed in the best way.
== 12
U: Still can't get over Dad's face when he opened the present.
A: He hasn't stopped playing records since. Mum's wearing earplugs.
--
U: Any funny kid stories this week? I need cheering up.
A: Rosa told her teacher that Aunty Hattie lives in a swamp.
U: Technically accurate, until we drain the garden.
A: I'll tell her it's officially a pond now.
?? correction | ev=cricket | Where is the venue for their father's seventieth now? | cricket club | stale=anchor
?? date | ev=party_plan | On what date does the sisters' father reach seventy? | 14th of October; October 14
?? multi | ev=gift_no,gift_yes | What present did the sisters settle on for their dad's big birthday? | record player
?? negation | ev=gift_no | Why would a balloon flight be a bad idea for their father? | terrified of heights
?? multi | ev=asbestos,asbestos_cost | What nasty surprise turned up under Hattie's kitchen, and what did it cost to sort out? | asbestos; 1,800
?? name | ev=gary | Who did Hattie hire to redo the room where she cooks? | Gary
?? relation | ev=kids | What are Jo's children called? | Alfie; Rosa
?? relation | ev=marcus | Who is Jo's husband? | Marcus
?? multi | ev=job_old,pgce | What did Jo do for a living before retraining, and what is she training to become? | conveyancing; PGCE; Primary teaching
?? time | ev=cataract | When was Dad's eye surgery scheduled? | Tuesday at eight
?? multi | ev=iceland_plan,iceland_back | Where did Hattie travel in early summer, and which seabirds did she see there? | Iceland; Puffins
?? place | ev=camping_plan | Where did Jo's family pitch their tent in the summer holidays? | Pembrokeshire
?? negation | ev=mushroom | Which ingredient should Hattie leave out when cooking for her sister? | mushrooms
?? preference | ev=paint | What colour did Hattie finally choose for the lounge walls? | sage
?? preference | ev=demon | Which story did Jo put down unfinished this autumn? | Demon Copperhead
?? multi | ev=house_price,keys | How much did Hattie's house cost, and when did she actually get in? | 265,000; Got the keys yesterday
?? number | ev=cohort | How many trainees are on Jo's course? | Twenty-six; 26
?? number | ev=kids | How old is Jo's younger child? | five
""")

LONG_SRC.append("""
@conv long-en-03
lang: en
pools: en
names: Sam; Keiko
target: 336
seed: 603
dates: 4 February 2024; 25 February 2024; 17 March 2024; 14 April 2024; 12 May 2024; 9 June 2024; 7 July 2024; 4 August 2024; 8 September 2024; 6 October 2024; 3 November 2024; 1 December 2024
== 1
U: So how's Osaka treating you? Settled in yet?
A#namba: Getting there. My flat's in Namba, tiny but five minutes from everything. I can hear the pachinko parlour from bed.
U: Romantic. Like a lullaby made of ball bearings.
A: Exactly that. I sleep with earplugs now.
--
U: And the new job? Still fun after week one?
A#job: Loving it. I'm a level designer at the studio now. Today I spent six hours making a sewer level less confusing.
U: Living the dream. Sewers are underrated.
A: Players get lost in them constantly. It's my life's mission now.
== 2
U#jobhunt: Job hunt update: three interviews lined up. The one I actually want is Brightwell, the design agency by the canal.
A: Fingers crossed for Brightwell then! You deserve out of that place.
U: Anything to escape another year of the same spreadsheets.
A: Manifesting it for you as we speak.
--
U: I need something to read on the commute. Ideas?
A#book_rec: You should read Convenience Store Woman. It's short, strange and painfully true about office life.
U: Adding it now. I trust your taste.
A: Good. Report back with feelings.
== 3
U#interview: Second-round interview went well, I think. They made me redesign their booking app on a whiteboard.
A: On a whiteboard? Under pressure? You're a hero.
--
U: Any new friends over there yet?
A#mochi: Sort of. I adopted a cat! A grey rescue called Mochi who lives inside the rice cooker box.
U: That is the best news. Photos immediately.
A: Already sent. She's judging you from the box.
--
U: Do people bring pets to the office there?
A: My colleague's dog Kuro visits on Fridays. Everyone stops working to pat him.
== 4
U#offer: I got it! Senior product designer at Brightwell. I start in May.
A: SAM! I knew it. Champagne emoji times a hundred.
U#salary: And it's £58,000, which is more than I've ever earned in my life.
A: You've earned every penny. Treat yourself to something silly.
--
U#book_done: Finished that convenience store book. Unsettling but brilliant, I can't stop thinking about the ending.
A: Right? It stays with you. I've read it three times now.
== 5
U: What's the best thing you've eaten there so far?
A: The famous okonomiyaki place in Dotonbori was good, but so crowded.
U: That's not a yes, though.
A#kushikatsu: Honestly, a tiny kushikatsu stall under the train tracks beats everything. Fried skewers, no double dipping allowed.
--
U#nadia: Nadia and I have been together a year next week. Can you believe it?
A: A whole year! Tell her congratulations for putting up with you.
U: I'll pass that on, word for word.
A: Please do. She'll appreciate it.
== 6
U: Are you doing anything fun outside work?
A#taiko: I joined a taiko drumming group! Saturday mornings at ten. My arms are completely destroyed.
U: That's so cool. Loud stress relief.
A: The loudest stress relief money can buy.
--
U: Do you have to go to karaoke with the team much?
A#karaoke: I hate karaoke with a passion. I hide in the bathroom until it's over.
U: Keiko! That's your whole new culture.
A: I'm a disgrace, I know. I'll bring the snacks instead.
== 7
U: How's the flat? Still noisy?
A#move_reason: Worse. And the rent's going up again in the spring, so I'm looking at places in Kyoto. Only half an hour by train.
U: Kyoto sounds lovely. Temples instead of pachinko.
A: That's the dream, honestly. Fewer ball bearings.
--
U#trip_old: Booked my flights! I'm coming to Japan for two weeks in October.
A: Finally! I'm going to plan everything. Prepare to be exhausted.
== 8
U: You've been quiet! What's been happening over there?
A#kyoto: Big news: I moved! I live in Kyoto now, near the river in Demachiyanagi. Mochi hated the taxi.
U: Amazing! How's the new place?
A#kyoto_rent: Quiet and bigger. It's ¥78,000 a month, a bit more, but I can actually sleep.
U: Worth it for the sleep alone.
A: Exactly. I'd pay double for silence, honestly.
--
U#nadia_bday: It's Nadia's birthday on the 20th. I've booked the Ethiopian place in Peckham she loves.
A: Lovely choice. Get the big sharing platter.
--
U: Did you do anything for your birthday?
A#keiko_bday: My birthday was last Friday, the 2nd of August. The team made me a cake shaped like a level map.
U: That's adorable. Nerdy, but adorable.
A: The nerdiest cake in Japan, I'm sure.
== 9
U#nadia_bday_done: The birthday dinner was perfect. Injera everywhere, and she cried when the candle came out.
A: Aww. You're a good boyfriend. Occasionally.
--
U#trip_new: Bad news and good news: work needs me in October. So I've moved my trip to the 9th to the 23rd of November.
A: Honestly November is better. Autumn leaves will be perfect then.
U: That's what I told myself to feel better.
A: It's true though! Kyoto in late November is magic.
== 10
U: Let's plan some day trips for the visit.
A#nara: Nara, definitely, to see the deer. They bow at you for biscuits.
U#koyasan: And I really want to stay a night in a temple on Koyasan.
A: Yes! I'll book a temple lodging. Vegetarian monk food, very early mornings.
--
U#rawfish: Reminder: I can't do raw fish, so no sushi dinners for me, sorry.
A: Noted. More fried skewers for you, then.
== 11
U: Two weeks to go. I've bought a new suitcase.
A: Bring an empty one too. You'll buy so many snacks.
--
U: What's the weather like there right now?
A: Crisp and sunny. Bring layers, the mornings are cold.
== 12
U: I'm still dreaming about those fried skewers under the tracks.
A: Told you they beat everything. When are you coming back?
--
U: Nadia wants to come next time. She's jealous of the deer photos.
A: Bring her! Mochi needs more people to ignore.
?? correction | ev=kyoto | Which city does Keiko live in now? | Kyoto | stale=namba
?? correction | ev=trip_new | When is Sam actually going to be in Japan? | 9th to the 23rd of November | stale=trip_old
?? multi | ev=jobhunt,offer | Which company took Sam on, and in what role? | Brightwell; Senior product designer
?? number | ev=salary | What salary did Sam get offered? | 58,000; 58000
?? multi | ev=book_rec,book_done | What did Sam make of the novel Keiko suggested for his commute? | Unsettling but brilliant; Convenience Store Woman
?? name | ev=mochi | What's the name of the animal Keiko took in? | Mochi
?? preference | ev=kushikatsu | Which food does Keiko rate above everything else she's tried in Osaka? | kushikatsu
?? negation | ev=karaoke | Would Keiko enjoy a big night of singing into a microphone with colleagues? | hate karaoke
?? time | ev=taiko | What's Keiko's weekly slot for her new percussion hobby? | Saturday mornings at ten
?? relation | ev=nadia | Who is Sam's partner? | Nadia
?? multi | ev=nadia_bday,nadia_bday_done | Where did Sam take his girlfriend for her birthday, and what did they eat? | Ethiopian; Injera
?? date | ev=keiko_bday | On what date does Keiko celebrate getting older? | 2nd of August
?? embedded | ev=job | What does Keiko do at the game company? | level designer
?? multi | ev=nara,koyasan | Which two excursions did the friends plan for Sam's visit? | Nara; Koyasan
?? negation | ev=rawfish | What kind of dinner should Keiko not book for Sam? | raw fish; sushi
?? multi | ev=move_reason,kyoto_rent | Why did Keiko leave her first flat, and what does the new one cost? | rent's going up; 78,000
""")

LONG_SRC.append("""
@conv long-en-04
lang: en
pools: en
names: Luis; Fern
target: 344
seed: 604
dates: 14 January 2024; 4 February 2024; 25 February 2024; 17 March 2024; 7 April 2024; 28 April 2024; 19 May 2024; 16 June 2024; 14 July 2024; 11 August 2024; 8 September 2024; 13 October 2024; 27 October 2024
== 1
U#job: Just off a night shift on the ambulance. Two cardiac arrests and a man with a saucepan stuck on his head.
A: The saucepan man! Please tell me he was okay.
U: Fine, just very embarrassed. The kids had put it there.
A: Kids are a menace. Go sleep, you hero.
--
U#ruth: Ruth gave me my training plan for the half. Five runs a week. She's a monster.
A: She's a monster who gets results, though. What's the target?
U: Beat my best of 1:41:50 from two years ago.
A: Very doable. You've been flying on the hills lately.
--
U: Are we still on for the club run this week?
A#club: Yes, but remember they're Wednesdays at half six from the park gates now, not Tuesdays.
== 2
U: How was the long run on Sunday?
A#heel: Awful. My heel is agony first thing in the morning. The physio says it's plantar fasciitis.
U: Oh no. That's the one that drags on, isn't it?
A: Apparently. Months, if I'm unlucky. I'm gutted.
--
U#gels: Also, I can't stomach energy gels, they make me gag. Going to try dates for the half instead.
A: Dates are a good shout. Test them on a long run first though.
== 3
U: How's the foot? Any better?
A#heel_fix: Slowly. Calf stretches, rolling a frozen bottle under it, and a night splint. Very glamorous look.
U: A night splint! Does it keep you awake?
A: Only the first few nights. Now I barely notice it.
--
U: Pasta party at mine before the half, you in?
A#gluten: I'm in, but I'll bring my own. Coeliac, remember. Anything with gluten and I'm ill for days.
U: Of course, sorry. I'll get the special pasta too.
A: You're a good friend. Slightly forgetful, but good.
== 4
U#bath: Bath Half done! 1:38:12, a personal best by over three minutes.
A: LUIS! That's incredible. How did you feel at the end?
U#dates_worked: Strong, honestly. And the dates worked perfectly, no stomach drama at all.
A: Told you. Nature's gel, minus the gagging.
--
U: Thanks for coming to cheer, by the way. It really helped at mile ten.
A#kit: Kit loved it too. My other half made that sign saying 'Run like there's cake at the end'.
U: The sign was the best one on the course.
A: I'll tell Kit. They'll be unbearable about it.
== 5
U: Are you back running yet?
A#cardiff_entry: Gently! My heel's finally behaving, so I've entered the Cardiff 10k in May.
U: Brilliant! What are you aiming for?
A: Sub-47 would make me very happy.
--
U: Do you want to borrow my old headphones for the long runs?
A#music: Thanks, but I never run with music. I like hearing my breathing and the birds. Call me a hippy.
U: Hippy. There, I said it.
A: I'll wear the title with pride.
== 6
U#chester: I've entered the Chester Marathon for October. Flat and pretty, and the coach approves.
A: Your first full! Amazing. Are you scared?
U: Terrified. But in a good way, mostly.
A: That's the right amount of terrified.
--
U: My calf has been grumbling after the fast sessions.
A: Ease off for a few days. Don't be a hero this early on.
== 7
U: Cardiff was today, right? How did it go?
A#cardiff_result: 46:05! Sub-47 at last, and not a single twinge from the heel.
U: YES! I knew you'd do it.
A: I cried at the finish. Kit cried too. Very dignified.
--
U: The baby's due any day now. We've packed the hospital bag three times.
A: Three times! Did anything change between packs?
U: Snacks, mostly. We have our priorities.
A: Correct priorities, as always. Good work.
== 8
U#born: She's here! Born on Tuesday at four in the morning, 3.4 kilos, with lungs like a fire alarm.
A: Oh Luis! Congratulations to you both! How's everyone doing?
U: Exhausted and completely in love. I'm taking four weeks off running.
A: As you should. Running can wait.
== 9
U#isabel: We've finally settled on a name: Isabel, after my grandmother.
A: That's beautiful. Your grandmother would be so proud.
--
U#amsterdam: Change of plan: Chester moved its date and now clashes with my cousin's wedding. So I'm doing Amsterdam on the 20th of October instead.
A: Amsterdam is even flatter! And the finish in the Olympic stadium is amazing.
U: That's what sold me, honestly.
A: Good choice. Canals and stroopwafels afterwards.
== 10
U#shoes_new: I bought those bright orange carbon shoes everyone's wearing. Feel like I'm cheating.
A: Fancy! Break them in slowly, they can be aggressive.
--
U: How's training going for you at the moment?
A: Easy miles only. Enjoying running without a target for once.
== 11
U#shoes_back: Returned the orange shoes. They gave me blisters on every long run. Back to my boring old ones.
A: Boring shoes are underrated. Your feet will thank you.
--
U: Isabel sleeps better when I push her in the running buggy.
A: She's a runner already. Future club member.
== 12
U: Taper madness has started. I feel heavy and slow and doomed.
A: That's exactly how taper is supposed to feel. Trust the training.
--
U: Any last-minute advice for the big day?
A: Start slower than you want to. Then slower again. Smile at mile twenty.
== 13
U#marathon_result: Done! 3:29:40. Under three and a half hours by twenty seconds. I can't walk.
A: You absolute legend! I was refreshing the tracker all morning.
U: The last six miles were pure suffering.
A: That's the marathon experience. Welcome to the club.
?? correction | ev=amsterdam | Which city's marathon is Luis running in the autumn? | Amsterdam | stale=chester
?? date | ev=amsterdam | On what date is Luis's first full marathon? | 20th of October
?? number | ev=bath | What time did Luis clock in his spring half marathon? | 1:38:12
?? place | ev=bath | Where did Luis run his half marathon? | Bath
?? multi | ev=gels,dates_worked | What did Luis eat instead of the usual sports fuel during his race, and did it agree with him? | dates; worked perfectly
?? multi | ev=heel,heel_fix | What was wrong with Fern's foot, and how did she treat it? | plantar fasciitis; night splint
?? negation | ev=gluten | What has to be kept out of Fern's food before a race? | gluten; Coeliac
?? relation | ev=kit | Who is Fern's partner? | Kit
?? negation | ev=music | Does Fern wear earphones when she's out running? | never run with music
?? place | ev=cardiff_entry | Which city hosted the 10k that Fern signed up for? | Cardiff
?? number | ev=cardiff_result | What time did Fern record in her comeback race? | 46:05
?? multi | ev=born,isabel | What is Luis's daughter called, and how heavy was she at birth? | Isabel; 3.4 kilos
?? multi | ev=shoes_new,shoes_back | What happened with the flashy racing shoes Luis bought? | blisters; Returned
?? time | ev=club | When do the club sessions happen now? | Wednesdays at half six
?? name | ev=ruth | Who wrote Luis's training plan? | Ruth
?? embedded | ev=job | What does Luis do for work? | ambulance
?? number | ev=marathon_result | What was Luis's finishing time over the full distance? | 3:29:40
?? multi | ev=cardiff_entry,cardiff_result | Which race did Fern enter once her heel recovered, and did she hit her goal? | Cardiff; 46:05
""")

LONG_SRC.append("""
@conv long-es-01
lang: es
pools: es
names: Pilar; Nacho
target: 306
seed: 605
dates: 11 February 2024; 3 March 2024; 24 March 2024; 14 April 2024; 5 May 2024; 26 May 2024; 16 June 2024; 7 July 2024; 28 July 2024; 15 September 2024; 13 October 2024; 10 November 2024
== 1
U: ¿Qué tal la vida en Valencia? ¿Ya te has adaptado?
A#job: Poco a poco. Ya llevo un mes en la arrocería, de jefe de partida en los arroces. Salgo oliendo a socarrat.
U: Qué envidia, yo salgo oliendo a biblioteca.
A: Pues cambiamos un día, si quieres.
--
U#opos: Yo sigo con las oposiciones de Geografía e Historia. Academia los martes y jueves de seis a nueve, y el resto, temario.
A: Qué paliza. ¿Y te da tiempo a vivir?
U: Vivir es una palabra muy grande ahora mismo.
A: Este año es el tuyo, ya verás.
== 2
U: ¿Y en casa qué tal? ¿Sigues solo en ese piso?
A#trufa: Ya no. He adoptado una perrita, Trufa, mezcla de podenco. Corre como una loca por el cauce del Turia.
U: ¡Qué ilusión! Mándame fotos ya mismo.
A: Te mando veinte, pero todas salen movidas.
--
U: La gata de mi vecina, la Misi, se cuela en mi terraza todas las tardes a tomar el sol.
A: Esa gata sabe vivir mejor que tú y que yo.
--
U#inigo: Mi novio Íñigo dice que como no apruebe este año me secuestra y me lleva a la playa un mes.
A: Me cae bien ese hombre. Apoyo el secuestro.
== 3
U#exam_old: Ya han puesto fecha: el primer examen es el 15 de junio. Me tiemblan las piernas solo de pensarlo.
A: Todavía quedan meses. Vas a llegar preparadísima.
U: Eso dice mi madre, pero mi madre no cuenta.
A: Tu madre y yo tenemos razón, asúmelo.
--
U: ¿Qué es lo que mejor te sale en el restaurante?
A#senyoret: El arroz del senyoret, con todo pelado. Perfecto para gente vaga como tú.
U: Oye, que yo pelo gambas como nadie.
A: Ya, claro. Lo recuerdo de la última Nochevieja.
--
U: Necesito algo que leer cuando no esté con el temario.
A#patria_rec: Léete Patria, de Aramburu, cuando tengas un respiro. Te va a destrozar, pero merece la pena.
U: Me lo apunto para cuando acabe todo esto.
A: Buena idea. Ahora no te conviene llorar tanto.
== 4
U#asturias: Me escapé a Asturias en Semana Santa. Tres días de lluvia, fabada y sidra. Necesitaba desconectar.
A: Qué buen plan. ¿Estudiaste algo o nada?
U: Nada de nada. Ni un tema.
A: Así me gusta, que el cerebro también descansa.
--
U: ¿Y tú qué hiciste esos días?
A#granada: Yo estuve en Granada con mis primos. La Alhambra a reventar de gente, pero preciosa.
--
U: En cuanto pase el examen voy a verte y me enseñas todo lo típico.
A: Hecho. Lo primero, una horchata de verdad con fartons.
U#horchata: Te confieso una cosa: no he probado nunca la horchata. Ni una vez. Lo sé, lo sé.
A: ¿Cómo que nunca? Esto es gravísimo, Pilar.
== 5
U: ¿Me recogerás en la estación cuando vaya a verte?
A#nocar: Claro, pero en metro, que aquí no tengo coche. Lo vendí antes de mudarme.
U: Perfecto, así conozco el metro.
A: Te encantará, tiene aire acondicionado.
--
U: ¿Y el piso? ¿Sigues contento con él?
A#piso: Mucho. Me cuesta 650 euros al mes, en Ruzafa, con un balcón minúsculo donde Trufa toma el sol.
U: Por ese precio en Madrid te dan un armario.
A: Por eso me vine, entre otras cosas.
== 6
U#exam_new: ¡Han cambiado la fecha! El examen pasa al 29 de junio por un problema con las sedes. Dos semanas más de agonía.
A: Míralo por el lado bueno: dos semanas más para repasar.
U: Eso intento decirme, pero tengo ganas de que acabe.
A: Ya queda menos, de verdad.
== 7
U: ¿Cómo está tu perrita? ¿Sigue tan loca?
A#sock: Ni te cuento. Se tragó un calcetín entero y acabamos en urgencias veterinarias un domingo.
U: ¡No! ¿Pero está bien la pobre?
A: Ya sí, pero me dio un susto de muerte.
--
U: Me quedan dos semanas y ya no me entra nada en la cabeza.
A: Eso es normal. Repasa esquemas, no intentes aprender cosas nuevas.
== 8
U: Ya hice el examen. Ahora a esperar las notas.
A: ¿Y qué tal te salió? Dime la verdad.
U: Creo que bien. El tema que me tocó me lo sabía de memoria.
A: ¡Eso es buenísima señal, de verdad!
--
U: ¿Cuánto te costó al final lo del calcetín?
A#vet_bill: 180 euros de veterinario. Ahora los calcetines viven en un cajón cerrado.
--
U: Agosto se me va a hacer eterno esperando las notas.
A#nacho_bday: Pues distráete con mi cumple, que es el 23 de agosto, por si se te olvida como el año pasado.
U: ¡Qué rencoroso! No se me olvidará, lo apunto.
A: Más te vale. Acepto regalos comestibles.
U: El de Íñigo es el 3 de agosto, así que voy a estar arruinada.
A: Pues regálale algo hecho por ti, que es más bonito.
== 9
U#aprobado: ¡HE APROBADO! Número 12 de 300 en mi especialidad. Todavía no me lo creo.
A: ¡PILAR! ¡Enhorabuena! Sabía que lo ibas a conseguir.
U: He llorado como una magdalena delante de mi madre.
A: Normal, te lo has currado muchísimo.
== 10
U#plaza: Ya me han dado destino: un instituto de Getafe. Empiezo el lunes con tres grupos de cuarto de la ESO.
A: ¡Qué bien! Cerquita de casa, ¿no?
U: Media hora en Cercanías. Se puede vivir.
A: Adolescentes de dieciséis años. Mucho ánimo, profe.
--
U#patria_done: Terminé Patria en la playa. Lloré en la toalla como una tonta, delante de todo el mundo.
A: Te lo avisé. Esa novela no perdona.
--
U: Tenemos que celebrarlo como se merece, aunque sea lejos.
A#cuenca_plan: ¿Y si quedamos a mitad de camino para celebrar lo tuyo? Cuenca, el puente de octubre.
U: ¡Me encanta la idea! Las casas colgadas, por fin.
A: Reservo yo el hotel, tú pagas las cañas.
U: Trato hecho, con mucho gusto.
A: Pues ya está, no hay marcha atrás.
== 11
U#cuenca_done: Qué bien lo pasamos en Cuenca. El morteruelo aquel todavía lo tengo en el estómago.
A: Y yo. Menudo plato para un mediodía de octubre.
U: Tenemos que repetir la escapada el año que viene.
A: Apuntado. Esta vez tú eliges el sitio.
--
U: Los alumnos de cuarto me están volviendo loca, te lo juro.
A: ¿Te hacen algo de caso por lo menos?
U: Algunos. Los del fondo, ni uno solo.
A: Normal, el primer trimestre es durísimo.
== 12
U: Trufa ya tiene su propio perfil en redes, lo he visto.
A: Tiene más seguidores que yo. Es humillante.
--
U: Íñigo y yo estamos mirando pisos por Getafe para estar más cerca del instituto.
A: ¡Qué emoción! Si necesitas opinión experta en balcones minúsculos, aquí estoy.
?? correction | ev=exam_new | ¿Cuándo se examinó por fin Pilar de la oposición? | 29 de junio | stale=exam_old
?? multi | ev=aprobado,plaza | ¿Qué puesto sacó Pilar y dónde le dieron destino? | Número 12; Getafe
?? name | ev=trufa | ¿Cómo se llama la mascota de Nacho? | Trufa
?? place | ev=asturias | ¿Qué región visitó Pilar durante las vacaciones de Pascua? | Asturias
?? multi | ev=cuenca_plan,cuenca_done | ¿En qué ciudad se reunieron los dos amigos en otoño y qué plato típico probaron? | Cuenca; morteruelo
?? negation | ev=horchata | ¿Conoce Pilar el sabor de la bebida de chufa? | no he probado nunca la horchata
?? embedded | ev=job | ¿En qué trabaja Nacho en Valencia? | arrocería; jefe de partida
?? number | ev=piso | ¿Cuánto paga Nacho de alquiler? | 650
?? time | ev=opos | ¿Qué días y a qué hora tenía Pilar clase en la academia? | martes y jueves de seis a nueve
?? multi | ev=patria_rec,patria_done | ¿Qué novela le recomendó Nacho a Pilar y cómo reaccionó ella al acabarla? | Patria; Lloré en la toalla
?? relation | ev=inigo | ¿Con quién sale Pilar? | Íñigo
?? date | ev=nacho_bday | ¿Qué día cumple años Nacho? | 23 de agosto
?? preference | ev=senyoret | ¿Cuál es el plato estrella de Nacho en la cocina? | senyoret
?? multi | ev=sock,vet_bill | ¿Qué se tragó la perrita de Nacho y cuánto le costó el susto? | calcetín; 180 euros
?? negation | ev=nocar | ¿Puede Nacho ir a buscar a Pilar a la estación en su propio vehículo? | no tengo coche
?? place | ev=piso | ¿En qué barrio vive Nacho? | Ruzafa
?? multi | ev=asturias,granada | ¿Dónde pasó cada uno la Semana Santa? | Asturias; Granada
""")

LONG_SRC.append("""
@conv long-zh-01
lang: zh
pools: zh
names: 思琪; 晓峰
target: 304
seed: 606
dates: 10 September 2023; 8 October 2023; 29 October 2023; 19 November 2023; 10 December 2023; 7 January 2024; 28 January 2024; 25 February 2024; 17 March 2024; 14 April 2024; 12 May 2024; 2 June 2024
== 1
U: 你最近工作怎么样？上次听你说挺累的。
A#job_old: 别提了，天天加班到十一点。做了五年产品经理，真的有点干不动了。
U: 要不要考虑换个方向？
A: 一直在想，但还没想好做什么。
--
U#doctor: 我今天门诊看了六十多个发烧的小朋友，一半都哭着不让我听诊，嗓子都喊哑了。
A: 辛苦了思琪，换季的时候你们最忙吧。
U: 对，每年这个时候都是噩梦。
A: 多喝点水，照顾好自己再照顾别人。
== 2
U#dali: 国庆去了大理，在洱海边骑了一整天车，晒成了炭。
A: 好羡慕！大理的云是不是特别好看？
U: 特别好看，低得像伸手就能摸到。
A: 下次带我一个。
--
U: 你国庆去哪儿了？
A#xian: 回了趟西安看我爸妈，吃了一整周的羊肉泡馍，胖了三斤。
U: 三斤不算多，泡馍值得。
A: 我妈还嫌我瘦，天天给我加饭。
== 3
U#fiance: 跟你说个大事：周恒求婚了，我答应了！
A: 啊啊啊恭喜恭喜！他终于开窍了！
U: 他紧张得手一直抖，戒指差点掉地上。
A: 哈哈哈，这个画面我能笑一年。
--
U: 你家那只猫最近怎么样？
A#cat: 煤球最近老是蹲在猫砂盆里不出来，我有点担心。
U: 赶紧带去医院看看，猫可能会憋出毛病。
A: 嗯，明天就请假带它去。
== 4
U: 猫怎么样了？去医院了吗？
A#cat_ill: 去了，是尿路结石，住院三天，一共花了三千二。
U: 天哪，还好发现得早。
A: 是啊，现在换了处方粮，乖多了。
--
U#wedding_old: 婚礼日子定了，明年5月18号，在杭州西湖边的一个酒店。
A: 好日子！我一定到，提前请假。
U: 你敢不来试试。
A: 绝对到，带着大红包。
== 5
U: 你上次说有事要告诉我，到底什么事？
A#quit: 我辞职了！下个月最后一天上班。
U: 真的假的？你终于下决心了！
A: 真的，想了很久，不能再拖了。
--
U: 我妈家的旺财又胖了，一天吃四顿，走路都喘。
A: 那是狗还是小猪啊，得控制一下了。
== 6
U: 辞职以后打算做什么？想好了吗？
A#cafe_plan: 想好了，准备在玉林路开个小咖啡馆。店面已经看好了，月租一万二。
U: 一万二！压力不小啊。
A: 是挺大的，但我想试试。
--
U#tables: 婚宴定了二十桌，我妈还嫌少，说亲戚都请不完。
A: 二十桌已经很壮观了。
--
U#book_rec: 推荐你看《额尔古纳河右岸》，迟子建写的，很安静，适合你这种刚辞职的人。
A: 好，我记下了，正好最近有时间看书。
== 7
U: 我上次推荐的书你看了没？
A#book_done: 你推荐的那本书我在高铁上看完了，最后几章看哭了，旁边大哥一直看我。
U: 哈哈哈，我就知道你会喜欢。
A: 写得太好了，那种安静的力量。
--
U: 你生日是不是快到了？我记得是冬天。
A#xf_bday: 刚过，腊月初八，今年正好是1月18号，我喝着腊八粥过的生日。
U: 哎呀我忘了，补你一个大红包。
A: 红包就免了，来店里捧场就行。
--
U: 周恒的生日是3月8号，跟妇女节同一天，他每年都被我们笑。
A: 哈哈，这个太好记了。
--
U: 下次来北京，我带你去吃铜锅涮肉，再来点麻辣的。
A#nospicy: 说出来你可能不信，我一个成都人，一点辣都吃不了，吃火锅只敢吃清汤锅。
U: 你这个成都人是假的吧！
A: 从小就这样，我妈都放弃我了。
== 8
U: 听说你的店准备好了？快给我看看照片！
A#cafe_open: 咖啡馆开业啦！店名叫“慢一点”。早上八点到晚上九点，周一休息。
U: 恭喜恭喜！名字好可爱。
A: 开业第一天卖了八十杯，累瘫了。
--
U#oatlatte: 下次去你店里，我要一杯燕麦拿铁，少糖。周恒只喝美式，他没救了。
A: 记住了，燕麦拿铁给你留着。
== 9
U: 好想出去玩一趟，天天在医院待着要发霉了。
A#cq_plan: 正好，四月份我要去重庆进咖啡豆，你要不要飞过来一起玩两天？
U: 好啊！正好我有几天年假。
A: 那就说定了，我来安排吃的。
--
U: 婚礼的事太多了，请柬、酒店、婚纱，我快疯了。
A: 需要帮忙就说，我远程给你出主意。
== 10
U#cq_done: 重庆两天太开心了。那顿鸳鸯锅，你一口红汤都没碰，笑死我了。
A: 清汤锅也很好吃的好吗！
U: 服务员看你的眼神我能记一辈子。
A: 别说了，我很丢人。
--
U#wedding_new: 婚礼改到5月25号了，因为酒店18号被一个大会议包了。
A: 好的，我马上改请假日期。
U: 对不起啊，又要麻烦你。
A: 这有什么，晚一周我还能多准备准备。
== 11
U: 还有两周就结婚了，我已经开始失眠了。
A: 正常的，到时候一切都会顺顺利利。
--
U: 你店里最近生意怎么样？
A: 周末人挺多，工作日还得再努力。
U: 慢慢来，开店第一年都不容易。
A: 嗯，我挺享受的，比以前开心多了。
== 12
U: 婚礼那天你哭得比我还厉害。
A: 我哪有，那是西湖边风大。
--
U: 度完蜜月回来了，带了一堆特产给你寄过去。
A: 太好了，我店里正好缺点新鲜玩意儿。
?? correction | ev=wedding_new | 思琪的婚礼最后定在哪天举行？ | 5月25 | stale=wedding_old
?? multi | ev=quit,cafe_open | 晓峰离开原来的公司以后干了什么？ | 咖啡馆; 慢一点
?? place | ev=dali | 思琪国庆假期去哪儿玩了？ | 大理
?? relation | ev=fiance | 思琪要嫁的人叫什么？ | 周恒
?? name | ev=cat | 晓峰养的那只猫叫什么？ | 煤球
?? number | ev=tables | 思琪的喜宴摆了多少桌？ | 二十桌
?? negation | ev=nospicy | 带晓峰去吃麻辣锅合适吗？ | 一点辣都吃不了
?? multi | ev=book_rec,book_done | 思琪推荐给晓峰的是哪本书？他读完有什么反应？ | 额尔古纳河右岸; 看哭了
?? time | ev=cafe_open | 晓峰的店每周哪天歇业？ | 周一休息
?? date | ev=xf_bday | 晓峰哪天过生日？ | 腊月初八; 1月18
?? embedded | ev=doctor | 思琪是干什么工作的？ | 门诊; 听诊; 儿科
?? multi | ev=cq_plan,cq_done | 两个人春天在哪座城市碰的面？一起吃了什么？ | 重庆; 鸳鸯锅
?? number | ev=cafe_plan | 晓峰的店面每个月房租多少钱？ | 一万二
?? place | ev=wedding_old | 思琪的婚礼在哪座城市办？ | 杭州
?? preference | ev=oatlatte | 思琪去店里一般点什么喝的？ | 燕麦拿铁
?? multi | ev=cat,cat_ill | 晓峰家的猫得了什么病，治疗花了多少钱？ | 尿路结石; 三千二
?? multi | ev=dali,xian | 国庆假期两个人分别去了哪里？ | 大理; 西安
""")
if __name__ == "__main__":
    sys.exit(main())
