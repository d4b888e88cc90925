"""The scheduling policy on fake sequences: no model, no torch (``api/engine/policy.py``)."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

from api.engine.policy import MIN_CHUNK, Budget, plan_step


@dataclass(eq=False)
class Fake:
    order: int
    to_prefill: int = 0
    length: int = 0
    rows: int = 1
    preemptible: bool = True


def budget(**kw) -> Budget:
    return Budget(**{"max_batch": 8, "kv_tokens": 100_000, "step_tokens": 64,
                     "idle_step_tokens": 2048, "short_tokens": 0, **kw})


def planned(plan):
    return [(s.order, n) for s, n in plan.prefill]


def test_idle_engine_prefills_waiting_prompts_whole_within_the_idle_budget():
    waiting = [Fake(1, 300, 300), Fake(2, 50, 50), Fake(3, 1900, 1900)]
    plan = plan_step(waiting, [], [], 0, budget())
    # 300 + 50 whole, then the rest of the 2,048 budget goes to the third's first chunk.
    assert planned(plan) == [(1, 300), (2, 50), (3, 1698)]
    assert plan.preempt == []


def test_while_others_decode_a_long_prompt_is_chunked_under_the_step_budget():
    running = [Fake(1, 0, 40)]
    long = Fake(2, 4000, 4000)
    plan = plan_step([long], [], running, 40, budget())
    assert planned(plan) == [(2, 64)]
    # Started prompts continue first, oldest first, before new ones start.
    started = Fake(3, 500, 600)
    plan = plan_step([Fake(4, 10, 10)], [started, long], running, 40, budget())
    assert planned(plan) == [(2, 64)]
    plan = plan_step([Fake(4, 10, 10)], [started], running, 40, budget(step_tokens=80))
    assert planned(plan) == [(3, 80)]


def test_a_small_remainder_does_not_start_a_new_prompt():
    running = [Fake(1, 0, 40)]
    plan = plan_step([Fake(2, 60, 60), Fake(3, 500, 500)], [], running, 40, budget())
    assert planned(plan) == [(2, 60)]  # 4 tokens left: less than MIN_CHUNK for the next
    assert 64 - 60 < MIN_CHUNK


def test_slots_limit_requests_not_rows():
    running = [Fake(1, 0, 10, rows=4), Fake(2, 0, 10)]
    waiting = [Fake(3, 5, 5, rows=4), Fake(4, 5, 5)]
    plan = plan_step(waiting, [], running, 10, budget(max_batch=3))
    assert planned(plan) == [(3, 5)]


def test_short_prompts_start_whole_beside_a_long_prompts_chunk():
    running = [Fake(1, 0, 40)]
    waiting = [Fake(2, 4000, 4000), Fake(3, 40, 40), Fake(4, 100, 100), Fake(5, 200, 200)]
    plan = plan_step(waiting, [], running, 40, budget(short_tokens=256))
    # 2 gets its chunk, 3 and 4 start whole from the short pool; 5 would overflow it and waits.
    assert planned(plan) == [(2, 64), (3, 40), (4, 100)]


def test_kv_budget_stops_admission_in_order_without_overtaking():
    running = [Fake(1, 0, 100)]
    waiting = [Fake(2, 10, 300), Fake(3, 10, 10)]
    # With 2 rows x 301 positions the budget of 500 is exceeded: 2 waits, and 3 does not pass it.
    plan = plan_step(waiting, [], running, 100, budget(kv_tokens=500))
    assert planned(plan) == []
    plan = plan_step(waiting, [], running, 100, budget(kv_tokens=700))
    assert planned(plan) == [(2, 10)]  # then 3 rows x 301 > 700


def test_a_request_over_the_kv_budget_still_runs_alone():
    plan = plan_step([Fake(1, 5000, 5000)], [], [], 0, budget(kv_tokens=1000))
    assert planned(plan) == [(1, 2048)]


def test_over_budget_batch_preempts_the_newest_preemptible_never_the_oldest():
    running = [Fake(1, 0, 300), Fake(2, 0, 200, rows=2, preemptible=False), Fake(3, 0, 250),
               Fake(4, 0, 100)]
    # 5 rows x 301 > 1000: 4 goes, then 3 (2 is a beam group), then 2 rows x 301 fits...
    plan = plan_step([], [], running, 300, budget(kv_tokens=1000))
    assert [s.order for s in plan.preempt] == [4, 3]
    # ...and the oldest is never preempted, even alone over the budget.
    plan = plan_step([], [], [Fake(1, 0, 900), Fake(2, 0, 10)], 900, budget(kv_tokens=500))
    assert [s.order for s in plan.preempt] == [2]


seqs = st.lists(st.tuples(st.integers(1, 3000), st.integers(1, 4), st.booleans()), max_size=12)


@given(waiting=seqs, running=seqs, kv=st.integers(100, 20_000), step=st.integers(16, 512),
       slots=st.integers(1, 8), short=st.integers(0, 300))
def test_plans_respect_every_budget(waiting, running, kv, step, slots, short):
    order = iter(range(1000))
    w = [Fake(next(order), n, n, rows) for n, rows, _ in waiting]
    r = [Fake(next(order), 0, n, rows, pre) for n, rows, pre in running][:slots]
    length = max((s.length for s in r), default=0)
    plan = plan_step(w, [], r, length, budget(max_batch=slots, kv_tokens=kv, step_tokens=step,
                                              short_tokens=short))
    kept = [s for s in r if s not in plan.preempt]
    assert all(s.preemptible for s in plan.preempt) and (not r or r[0] in kept)
    if len(kept) > 1:
        assert sum(s.rows for s in kept) * (max(s.length for s in kept) + 1) <= kv or \
            not any(s.preemptible for s in kept[1:])
    tokens = sum(n for _, n in plan.prefill)
    assert tokens <= (step + short if kept else 2048)
    assert len(kept) + len(plan.prefill) <= max(slots, len(kept))
    admitted = [s.order for s, _ in plan.prefill]
    assert admitted == sorted(admitted) == [s.order for s in w[:len(admitted)]]  # no overtaking
    for s, n in plan.prefill:
        assert 0 < n <= s.to_prefill
