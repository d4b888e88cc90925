"""The history plan is pure: pins, recency, recall and a summary under the budget, checked
over random histories against the rules, and against brute force where one exists."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.exceptions import ContextLengthExceeded
from api.memory.selection import MIN_RELEVANCE, RECALL_SHARE, cut_points, exchanges, plan_history


@st.composite
def cases(draw):
    roles = draw(st.lists(st.sampled_from(["user", "assistant"]), max_size=30)) + ["user"]
    n = len(roles)
    costs = draw(st.lists(st.integers(1, 50), min_size=n, max_size=n))
    pinned = sorted(draw(st.sets(st.integers(0, n - 1), max_size=4)))
    users = [i for i, r in enumerate(roles) if r == "user" and i < n - 1]
    covers = draw(st.sampled_from([0, *users]))
    scores = draw(st.lists(st.floats(-1, 1), min_size=n, max_size=n))
    with_recall = draw(st.booleans())
    relevance = {a: scores[a] for a, _b in exchanges(roles)} if with_recall else None
    return (roles, costs, pinned, covers, relevance, draw(st.integers(0, 60)),
            draw(st.integers(1, 700)), draw(st.one_of(st.none(), st.integers(1, 12))))


@given(cases())
def test_plan_obeys_every_rule(case):
    roles, costs, pinned, covers, relevance, fixed, budget, max_turns = case
    n = len(roles)
    kwargs = dict(fixed=fixed, budget=budget, max_turns=max_turns, pinned=pinned, covers=covers,
                  relevance=relevance)
    must = fixed + costs[-1] + sum(costs[p] for p in pinned if p < n - 1)
    if must > budget:
        with pytest.raises(ContextLengthExceeded) as err:
            plan_history(roles, costs, **kwargs)
        if fixed + costs[-1] <= budget:  # it fits without the pins: the pins are named
            assert "pinned" in err.value.message
        return
    plan = plan_history(roles, costs, **kwargs)
    used = plan.used
    report = plan.as_dict()
    # The latest message and every pin are kept, in order, within the budget.
    assert used[-1] == n - 1 and set(pinned) <= set(used)
    assert fixed + sum(costs[i] for i in used) <= budget
    # The recent window: whole exchanges after the summary, within max_turns.
    assert plan.first_used in cut_points(roles, max_turns) and plan.first_used >= covers
    # Recalled: whole exchanges (pins aside), older than the window, relevant enough.
    spans = {a: b for a, b in exchanges(roles)}
    recalled = set(plan.recalled)
    for a, b in spans.items():
        members = {i for i in range(a, b) if i not in pinned}
        if members & recalled:
            assert members <= recalled and b <= plan.first_used
            assert relevance[a] >= MIN_RELEVANCE
    if not relevance:
        assert not recalled
    # Nothing more fits: the next older allowed start would overflow.
    older = [s for s in cut_points(roles, max_turns) if covers <= s < plan.first_used]
    if older:
        nxt = max(older)
        extra = sum(costs[i] for i in range(nxt, plan.first_used) if i not in set(used))
        assert fixed + sum(costs[i] for i in used) + extra > budget
    # The report adds up.
    assert report["used"] + report["dropped"] == n
    assert report["summarised"] + report["lost"] == report["dropped"]
    assert report["summarised"] == sum(1 for i in range(covers) if i not in set(used))
    assert sum(b - a for a, b in report["dropped_ranges"]) == report["dropped"]
    assert report["pinned"] == pinned and report["recalled"] == sorted(recalled)


@given(cases())
def test_without_recall_the_window_is_the_longest_fitting_suffix(case):
    roles, costs, pinned, covers, _relevance, fixed, budget, max_turns = case
    pins = {p for p in pinned if p < len(roles) - 1}
    base = fixed + costs[-1] + sum(costs[p] for p in pins)
    if base > budget:
        return
    starts = [s for s in cut_points(roles, max_turns) if s >= covers]
    fits = [s for s in starts
            if base + sum(costs[i] for i in range(s, len(roles) - 1) if i not in pins) <= budget]
    plan = plan_history(roles, costs, fixed=fixed, budget=budget, max_turns=max_turns,
                        pinned=pinned, covers=covers)
    assert plan.first_used == min(fits)


def test_pins_survive_any_trim_and_keep_their_order():
    roles = ["user", "assistant"] * 10 + ["user"]
    plan = plan_history(roles, [10] * 21, fixed=5, budget=60, pinned=[2, 0])
    assert plan.used == [0, 2, 18, 19, 20]
    report = plan.as_dict()
    assert report["pinned"] == [0, 2] and report["dropped_ranges"] == [[1, 2], [3, 18]]


def test_pins_that_cannot_fit_are_the_reason_given():
    roles = ["user", "assistant", "user"]
    with pytest.raises(ContextLengthExceeded, match="pinned"):
        plan_history(roles, [100, 10, 10], fixed=5, budget=60, pinned=[0])


def test_recall_brings_back_the_relevant_old_exchange_and_gives_unused_share_back():
    roles = ["user", "assistant"] * 10 + ["user"]
    relevance = {a: 0.0 for a, _b in exchanges(roles)}
    relevance[2] = 0.8  # the second exchange is about the same thing as the new message
    plan = plan_history(roles, [10] * 21, fixed=0, budget=110, relevance=relevance)
    assert plan.recalled == (2, 3)
    assert plan.first_used == 12  # 100 tokens for history: 20 recalled, 80 for recent ones
    without = plan_history(roles, [10] * 21, fixed=0, budget=110)
    assert without.first_used == 10 and not without.recalled
    # Nothing relevant: the whole budget goes to recency, as without recall.
    cold = plan_history(roles, [10] * 21, fixed=0, budget=110,
                        relevance=dict.fromkeys(relevance, 0.1))
    assert cold.first_used == without.first_used and not cold.recalled
    assert RECALL_SHARE * 100 >= 20


def test_a_summary_replaces_what_it_covers_and_the_report_says_so():
    roles = ["user", "assistant"] * 5 + ["user"]
    plan = plan_history(roles, [5] * 11, fixed=0, budget=1000, covers=6)
    assert plan.first_used == 6
    report = plan.as_dict()
    assert (report["summarised"], report["lost"], report["dropped"]) == (6, 0, 6)
    tight = plan_history(roles, [5] * 11, fixed=0, budget=16, covers=6).as_dict()
    assert tight["summarised"] == 6 and tight["lost"] == 2  # 6..7 fell out: nothing covers it
