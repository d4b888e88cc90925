"""Summaries the client carries: signatures, the fact ledger, when to compact. Pure."""

from __future__ import annotations

from api.memory.selection import plan_history
from api.memory.summary import (
    LEDGER_HEADING,
    Signer,
    Summary,
    compose,
    extract_facts,
    fold_until,
    merge_ledger,
    split,
)
from tests.helpers import assistant, user

COVERED = [user("My name is Ada."), assistant("Hello Ada!")]


def test_signature_verifies_only_the_exact_summary_for_the_exact_messages_and_preset():
    signer = Signer(b"k" * 32)
    made = Summary("Ada likes tea.", 2)
    sig = signer.sign(made, COVERED, "default")

    def ok(summary, covered=COVERED, preset="default", by=signer):
        return by.verify(summary, covered, preset)

    assert ok(Summary("Ada likes tea.", 2, sig))
    assert not ok(Summary("Ada likes coffee.", 2, sig))  # altered text
    assert not ok(Summary("Ada likes tea.", 1, sig), COVERED[:1])  # altered covers
    assert not ok(Summary("Ada likes tea.", 2, sig), [user("My name is Eve."), COVERED[1]])
    assert not ok(Summary("Ada likes tea.", 2, sig), preset="kiosk")  # another preset
    assert not ok(Summary("Ada likes tea.", 2, sig, kept=(0,)))  # altered kept
    assert not ok(Summary("Ada likes tea.", 2, sig), by=Signer(b"x" * 32))  # wrong key
    assert not ok(Summary("Ada likes tea.", 2, None))  # unsigned
    assert not ok(Summary("Ada likes tea.", 2, sig + "0"))
    assert not ok(Summary("Ada likes tea.", 2, "\u00e9t\u00e9"))  # not even ASCII


def test_ledger_keeps_the_users_fact_sentences_verbatim():
    messages = [
        user("Hi there. My name is Priya Raman and I live in Leeds."),
        assistant("Nice to meet you, Priya! My favourite number is 7."),  # not the user's
        user("The weather is nice. My budget is 4,200 euros."),
        user("We decided to go with the blue design. Anyway, how are you?"),
        user("I prefer tea over coffee."),
        user("我叫李雷，我的生日是三月五日。"),
    ]
    facts = extract_facts(messages)
    assert facts == ["My name is Priya Raman and I live in Leeds.",
                     "My budget is 4,200 euros.", "We decided to go with the blue design.",
                     "I prefer tea over coffee.", "我叫李雷，我的生日是三月五日。"]


def test_ledger_round_trips_through_the_summary_text_and_drops_the_weakest_first():
    text = compose("Priya is planning a trip.", ["My name is Priya.", "I prefer tea."])
    assert LEDGER_HEADING in text
    assert split(text) == ("Priya is planning a trip.", ["My name is Priya.", "I prefer tea."])
    lines = [f"remember item {i}" for i in range(30)] + ["My PIN hint is 1234 since May."]
    kept = merge_ledger([], lines)
    assert len(kept) == 24 and "My PIN hint is 1234 since May." in kept
    assert kept[-2] == "remember item 29"  # equal scores: the oldest went first


def test_compaction_is_due_near_the_budget_or_when_history_was_lost():
    roles = ["user", "assistant"] * 6 + ["user"]
    costs = [10] * 13
    roomy = plan_history(roles, costs, fixed=0, budget=1000)
    assert fold_until(roles, costs, roomy, 130, 1000) is None  # far from the budget
    near = plan_history(roles, costs, fixed=0, budget=160)
    # 130 of 160 tokens: fold all but the newest exchanges that fit in half the budget (80).
    assert fold_until(roles, costs, near, 130, 160) == 6
    # What every prompt carries (here a 40-token summary) counts: fewer exchanges stay.
    carrying = plan_history(roles, costs, fixed=40, budget=200)
    assert fold_until(roles, costs, carrying, 170, 200) == 8
    tight = plan_history(roles, costs, fixed=0, budget=60)
    assert tight.as_dict()["lost"] > 0
    covers = fold_until(roles, costs, tight, 50, 60)
    assert covers == tight.first_used + 2 and roles[covers] == "user"
    # Everything already summarised up to the window: nothing new to fold.
    done = plan_history(roles, costs, fixed=0, budget=1000, covers=12)
    assert fold_until(roles, costs, done, 900, 1000) is None
