"""The history plan is pure: pins, recency, recall and a summary under the budget, checked
over random histories against the rules, and against brute force where one exists."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.exceptions import ContextLengthExceeded
from api.memory.selection import (
    MIN_RELEVANCE,
    RECENT_SHARE,
    cut_points,
    exchanges,
    plan_history,
    restating,
)


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
    starts = [a for a, _b in exchanges(roles)]
    links = {a: sorted(draw(st.sets(st.sampled_from(starts), max_size=3))) for a in starts
             if draw(st.booleans())} if with_recall and starts else None
    links = {a: [d for d in later if d > a] for a, later in (links or {}).items()} or None
    short = [min(c, draw(st.integers(1, 50))) if r == "assistant" else c
             for r, c in zip(roles, costs, strict=True)] if with_recall else None
    return (roles, costs, pinned, covers, relevance, links, short, draw(st.integers(0, 60)),
            draw(st.integers(1, 700)), draw(st.one_of(st.none(), st.integers(1, 12))))


@given(cases())
def test_plan_obeys_every_rule(case):
    roles, costs, pinned, covers, relevance, links, short, fixed, budget, max_turns = case
    n = len(roles)
    kwargs = dict(fixed=fixed, budget=budget, max_turns=max_turns, pinned=pinned, covers=covers,
                  relevance=relevance, links=links, recalled_costs=short)
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
    sent = [short[i] if i in plan.shortened else costs[i] for i in range(n)]
    assert fixed + sum(sent[i] for i in used) <= budget
    # Only recalled replies are shortened, and only where that is cheaper.
    assert set(plan.shortened) <= set(plan.recalled) - set(pinned)
    assert all(roles[i] == "assistant" and short[i] < costs[i] for i in plan.shortened)
    # The recent window: whole exchanges after the summary, within max_turns; nothing in it is
    # recalled or cut short (what it reaches goes whole, newest first, before anything older).
    assert plan.first_used in cut_points(roles, max_turns) and plan.first_used >= covers
    assert all(i < plan.first_used for i in plan.recalled), (plan.first_used, plan.recalled)
    # Recalled: whole exchanges (pins aside), chosen older than the recent share, relevant enough.
    spans = {a: b for a, b in exchanges(roles)}
    recalled = set(plan.recalled)
    for a, b in spans.items():
        members = {i for i in range(a, b) if i not in pinned}
        if members & recalled:
            assert members <= recalled
            # relevant enough itself, or brought by an earlier relevant one it restates
            # (directly, or through a chain of corrections)
            assert relevance[a] >= MIN_RELEVANCE or any(
                a in restating(c, links or {}) and relevance[c] >= MIN_RELEVANCE
                for c in relevance)
    if not relevance:
        assert not recalled
    # A recalled exchange never comes without the later ones that restate it (a correction).
    for a in {a for a, b in spans.items() if set(range(a, b)) & recalled}:
        for d in (links or {}).get(a, ()):
            assert set(range(d, spans[d])) <= set(used)
    # Nothing more fits: the next older allowed start would overflow.
    older = [s for s in cut_points(roles, max_turns) if covers <= s < plan.first_used]
    if older:
        nxt = max(older)
        extra = sum(costs[i] for i in range(nxt, plan.first_used) if i not in set(used))
        assert fixed + sum(sent[i] for i in used) + extra > budget
    # The report adds up.
    assert report["used"] + report["dropped"] == n
    assert report["summarised"] + report["lost"] == report["dropped"]
    assert report["summarised"] == sum(1 for i in range(covers) if i not in set(used))
    assert sum(b - a for a, b in report["dropped_ranges"]) == report["dropped"]
    assert report["pinned"] == pinned and report["recalled"] == sorted(recalled)


@given(cases())
def test_without_recall_the_window_is_the_longest_fitting_suffix(case):
    roles, costs, pinned, covers, _relevance, _links, _short, fixed, budget, max_turns = case
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
                        relevance=dict.fromkeys(relevance, MIN_RELEVANCE / 2))
    assert cold.first_used == without.first_used and not cold.recalled


def test_the_share_relevance_takes_follows_the_question():
    roles = ["user", "assistant"] * 20 + ["user"]
    costs = [10] * 41
    # Many old exchanges relevant: they take everything beyond the newest RECENT_SHARE.
    hot = {a: (0.9 - a / 100 if a < 20 else 0.0) for a, _b in exchanges(roles)}
    plan = plan_history(roles, costs, fixed=0, budget=210, relevance=hot)
    recent = 40 - plan.first_used
    assert recent * 10 == int(200 * RECENT_SHARE) // 20 * 20  # the newest exchanges that fit
    assert len(plan.recalled) * 10 == 200 - recent * 10  # the rest: relevant exchanges
    # Best first: with room for fewer than are relevant, the best ones are kept.
    assert plan.recalled == tuple(range(0, len(plan.recalled)))


def test_a_stale_statement_never_reaches_the_model_without_its_correction():
    roles = ["user", "assistant"] * 10 + ["user"]
    relevance = {a: 0.0 for a, _b in exchanges(roles)}
    relevance[2], relevance[8] = 0.9, 0.7  # "we live in Oslo" scores above "we moved to Bergen"
    costs = [10] * 21
    unlinked = plan_history(roles, costs, fixed=0, budget=40, relevance=relevance)
    assert unlinked.recalled == (2, 3)  # room for one old exchange: the stale one alone
    linked = plan_history(roles, costs, fixed=0, budget=40, relevance=relevance, links={2: [8]})
    assert linked.recalled == (8, 9)  # the pair does not fit: the correction alone
    roomy = plan_history(roles, costs, fixed=0, budget=60, relevance=relevance, links={2: [8]})
    assert {2, 3, 8, 9} <= set(roomy.recalled)  # both fit: together


def test_a_summary_replaces_what_it_covers_and_the_report_says_so():
    roles = ["user", "assistant"] * 5 + ["user"]
    plan = plan_history(roles, [5] * 11, fixed=0, budget=1000, covers=6)
    assert plan.first_used == 6
    report = plan.as_dict()
    assert (report["summarised"], report["lost"], report["dropped"]) == (6, 0, 6)
    tight = plan_history(roles, [5] * 11, fixed=0, budget=16, covers=6).as_dict()
    assert tight["summarised"] == 6 and tight["lost"] == 2  # 6..7 fell out: nothing covers it


def test_a_recalled_long_reply_is_paid_for_shortened():
    roles = ["user", "assistant"] * 10 + ["user"]
    costs = [10, 200] * 10 + [10]  # every reply is twenty times its question
    relevance = {a: 0.0 for a, _b in exchanges(roles)}
    relevance[0], relevance[4] = 0.9, 0.8
    full = plan_history(roles, costs, fixed=0, budget=120, relevance=relevance)
    assert full.recalled == () and full.shortened == ()  # no whole exchange fits
    short = [c if r == "user" else 30 for r, c in zip(roles, costs, strict=True)]
    plan = plan_history(roles, costs, fixed=0, budget=120, relevance=relevance,
                        recalled_costs=short)
    assert plan.recalled == (0, 1, 4, 5) and plan.shortened == (1, 5)
    assert plan.as_dict()["shortened"] == [1, 5]


def test_a_recalled_exchange_the_window_reaches_is_sent_whole_when_it_fits():
    roles = ["user", "assistant"] * 4 + ["user"]
    costs = [10, 40] * 4 + [10]  # everything but one exchange fits: 160 of 170
    relevance = {a: 0.0 for a, _b in exchanges(roles)}
    relevance[4] = 0.9  # relevant, and within what recency alone keeps
    short = [c if r == "user" else 15 for r, c in zip(roles, costs, strict=True)]
    plan = plan_history(roles, costs, fixed=0, budget=170, relevance=relevance,
                        recalled_costs=short)
    without = plan_history(roles, costs, fixed=0, budget=170)
    assert plan.used == without.used and plan.first_used == without.first_used == 2
    assert plan.recalled == () and plan.shortened == ()  # nothing cut, nothing mislabelled


def test_the_window_sends_the_recalled_exchanges_it_reaches_whole_before_older_ones():
    """The newest exchange is recalled (it is relevant, and the recent share alone cannot take
    it): the window that grows over it must pay for it whole before it takes older exchanges,
    never keep older ones whole and the newer one cut short (first_used would then claim a
    recalled message for the window)."""
    roles = ["user", "assistant"] * 5 + ["user"]
    costs = [10, 40] * 5 + [10]
    relevance = {a: 0.0 for a, _b in exchanges(roles)}
    relevance[8] = 0.9
    short = [c if r == "user" else 15 for r, c in zip(roles, costs, strict=True)]
    plan = plan_history(roles, costs, fixed=0, budget=155, relevance=relevance,
                        recalled_costs=short)
    assert plan.first_used == 6 and plan.recalled == () and plan.shortened == ()
    assert plan.used == plan_history(roles, costs, fixed=0, budget=155).used
