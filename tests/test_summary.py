"""Summaries the client carries: signatures, a former ledger, when to compact. Pure."""

from __future__ import annotations

from api.memory.selection import plan_history
from api.memory.summary import (
    LEDGER_HEADING,
    Signer,
    Summary,
    fold_until,
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
    # Bound to the caller's key: another key replaying the same messages gets no signature.
    theirs = signer.sign(made, COVERED, "default", holder="key-a")
    assert signer.verify(Summary("Ada likes tea.", 2, theirs), COVERED, "default", "key-a")
    assert not signer.verify(Summary("Ada likes tea.", 2, theirs), COVERED, "default", "key-b")
    assert not signer.verify(Summary("Ada likes tea.", 2, theirs), COVERED, "default")


def test_a_former_ledger_is_split_from_the_prose():
    """Summaries made before the ledger was removed still carry one: its lines are the user's
    words and are told apart from the prose."""
    text = ("Priya is planning a trip.\n\n" + LEDGER_HEADING
            + "\n- My name is Priya.\n- I prefer tea.")
    assert split(text) == ("Priya is planning a trip.", ["My name is Priya.", "I prefer tea."])
    assert split("Just prose.") == ("Just prose.", [])


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
