"""Trimming is pure: properties over random histories, checked against brute force."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from api.exceptions import ContextLengthExceeded
from api.memory.selection import cut_points, plan_history
from api.prompt import PromptBuilder


def choose_window(roles, costs, fixed, budget, max_turns):
    return plan_history(roles, costs, fixed=fixed, budget=budget, max_turns=max_turns)


def histories():
    """Random histories ending with a user message, with random per-message costs."""
    return st.lists(st.sampled_from(["user", "assistant"]), min_size=0, max_size=30).map(
        lambda roles: roles + ["user"]).flatmap(
        lambda roles: st.tuples(st.just(roles),
                                st.lists(st.integers(1, 50), min_size=len(roles), max_size=len(roles))))


@given(histories(), st.integers(0, 40), st.integers(1, 600), st.one_of(st.none(), st.integers(1, 12)))
def test_window_is_longest_fitting_suffix(history, fixed, budget, max_turns):
    roles, costs = history
    starts = cut_points(roles, max_turns)
    fits = [s for s in starts if fixed + sum(costs[s:]) <= budget]
    if not fits:
        with pytest.raises(ContextLengthExceeded):
            choose_window(roles, costs, fixed, budget, max_turns)
        return
    report = choose_window(roles, costs, fixed, budget, max_turns).as_dict()
    assert report["first_used"] == min(fits)  # the longest fitting suffix
    assert fixed + sum(costs[report["first_used"]:]) <= budget
    assert report["used"] + report["dropped"] == report["received"] == len(roles)
    assert report["dropped_by_max_turns"] + report["dropped_by_context"] == report["dropped"]
    assert report["lost"] == report["dropped"]  # no summary covers anything here
    assert report["dropped_ranges"] == ([[0, report["first_used"]]] if report["first_used"] else [])
    kept = roles[report["first_used"]:]
    assert kept[-1] == "user"
    assert report["first_used"] == 0 or kept[0] == "user"  # whole exchanges only
    if max_turns is not None:
        assert kept.count("user") <= max_turns


def test_max_turns_keeps_last_exchanges():
    roles = ["user", "assistant"] * 5 + ["user"]
    report = choose_window(roles, [1] * len(roles), 0, 10_000, max_turns=2).as_dict()
    assert (report["first_used"], report["dropped_by_max_turns"],
            report["dropped_by_context"]) == (8, 8, 0)


def test_leading_assistant_greeting_kept_when_it_fits():
    roles = ["assistant", "user", "assistant", "user"]
    assert choose_window(roles, [5, 5, 5, 5], 0, 100, None).first_used == 0
    assert choose_window(roles, [5, 5, 5, 5], 0, 15, None).first_used == 1


# -- the same properties through real rendering with the default model's tokenizer -------

words = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1,
                max_size=60).filter(lambda s: s.strip())


@st.composite
def conversations(draw):
    n = draw(st.integers(0, 6))
    messages = []
    for _ in range(n):
        messages.append({"role": "user", "content": draw(words)})
        messages.append({"role": "assistant", "content": draw(words)})
    messages.append({"role": "user", "content": draw(words)})
    return messages


@settings(max_examples=60, deadline=None)
@given(conversations(), st.one_of(st.none(), words), st.integers(1, 64), st.integers(40, 400),
       st.one_of(st.none(), st.integers(1, 5)))
def test_rendered_prompt_fits_and_is_longest(tokenizer, messages, system, max_new, window, max_turns):
    builder = PromptBuilder(tokenizer)

    def exact_tokens(start: int) -> int:
        head = [{"role": "system", "content": system}] if system else []
        return len(builder._ids(head + messages[start:], _content_ids(builder, head + messages[start:])))

    try:
        prompt = builder.build(messages, system=system, max_new_tokens=max_new,
                               context_window=window, max_turns=max_turns)
    except ContextLengthExceeded:
        last = len(messages) - 1
        assert exact_tokens(last) + max_new > window
        return
    assert len(prompt.ids) + max_new <= window
    start = prompt.report.first_used
    assert len(prompt.ids) == exact_tokens(start)
    # No longer allowed suffix would have fitted.
    allowed = cut_points([m["role"] for m in messages], max_turns)
    longer = [s for s in allowed if s < start]
    for s in longer:
        assert exact_tokens(s) + max_new > window


def _content_ids(builder, messages):
    return dict(enumerate(builder.tokenize_text([m["content"] for m in messages])))


@pytest.mark.parametrize("max_turns", [None, 200])
def test_long_history_only_tail_is_considered_yet_window_is_longest(tokenizer, max_turns):
    # 301 messages over several tokenization blocks; only a tail can fit in 1,500 tokens.
    builder = PromptBuilder(tokenizer)
    messages = [{"role": "user" if i % 2 == 0 else "assistant",
                 "content": f"message {i} " + "word " * (i % 17)} for i in range(301)]
    prompt = builder.build(messages, system="sys", max_new_tokens=100, context_window=1500,
                           max_turns=max_turns)
    head = [{"role": "system", "content": "sys"}]

    def exact(start):
        kept = head + messages[start:]
        return len(builder._ids(kept, _content_ids(builder, kept)))

    start = prompt.report.first_used
    assert messages[start]["role"] == "user" and 0 < start < 280
    assert len(prompt.ids) == exact(start) <= 1400
    assert exact(start - 2) > 1400  # the previous exchange would not have fitted
    report = prompt.report.as_dict()
    assert report["dropped_by_context"] == start - report["dropped_by_max_turns"]
