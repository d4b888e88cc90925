"""The scheduling policy: what the next step prefills and whom it preempts. Plain data in, a
plan out; no model and no torch, so it is tested with fake sequences (tests/test_policy.py).

- **Slots**: at most ``max_batch`` requests decode or prefill at once (a beam request is one
  request with several rows).
- **KV budget**: the running batch is left-padded, so its KV holds rows x longest row
  positions. A request is admitted only if that product, with it and everything admitted before
  it, stays within ``kv_tokens`` for its first step. When the batch outgrows the budget, the
  newest single-row requests are preempted (they wait again and recompute their history later);
  the oldest request always keeps going, alone if it must, so nothing waits forever.
- **Step budget**: while anything decodes, one step prefills at most ``step_tokens`` prompt
  tokens of long prompts, so a long prompt is prefilled in chunks between decode steps and
  running streams keep flowing; besides, whole short prompts (the next turn of a conversation
  whose history is cached, a new question) of up to ``short_tokens`` in all start at once, as
  they cost about one decode step together. With nothing decoding, a step may prefill
  ``idle_step_tokens``.
- **Order**: oldest first. A prompt that has started prefilling continues before new ones
  start; a waiting request does not overtake an older one that does not fit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

MIN_CHUNK = 16  # a smaller remainder of the step budget is not worth a forward pass


class Seq(Protocol):
    order: int  # arrival: lower is older
    rows: int  # rows of the batch it takes (beams)
    to_prefill: int  # prompt (or history) tokens not yet in its KV
    length: int  # tokens of its history: its KV positions once prefilled
    preemptible: bool


@dataclass(frozen=True)
class Budget:
    max_batch: int
    kv_tokens: int
    step_tokens: int
    idle_step_tokens: int = 2048
    short_tokens: int = 256


@dataclass
class Plan:
    prefill: list[tuple[Seq, int]] = field(default_factory=list)  # (sequence, tokens this step)
    preempt: list[Seq] = field(default_factory=list)


def plan_step(waiting: list[Seq], prefilling: list[Seq], running: list[Seq], batch_length: int,
              budget: Budget) -> Plan:
    """Decide one step. ``batch_length``: positions of the running batch's KV now."""
    plan = Plan()
    running = sorted(running, key=lambda s: s.order)
    rows = sum(s.rows for s in running)
    length = batch_length
    while len(running) > 1 and rows * (length + 1) > budget.kv_tokens:
        victim = _newest_preemptible(running)
        if victim is None:
            break
        plan.preempt.append(victim)
        running.remove(victim)
        rows -= victim.rows
        length = max(s.length for s in running)

    decoding = bool(running)
    left = budget.step_tokens if decoding else budget.idle_step_tokens
    short_left = budget.short_tokens if decoding else 0  # whole short prompts, besides
    slots = budget.max_batch - len(running)
    for seq in sorted(prefilling, key=lambda s: s.order):
        slots -= 1
        rows, length = rows + seq.rows, max(length, seq.length)
        if seq.to_prefill and left >= min(seq.to_prefill, MIN_CHUNK):  # 0: all fed, joining
            n = min(seq.to_prefill, left)
            plan.prefill.append((seq, n))
            left -= n
    for seq in sorted(waiting, key=lambda s: s.order):
        short = seq.to_prefill <= short_left
        if slots <= 0 or (not short and left < min(seq.to_prefill, MIN_CHUNK)):
            break
        new_rows, new_length = rows + seq.rows, max(length, seq.length)
        alone = not running and not plan.prefill and not prefilling
        if new_rows * (new_length + 1) > budget.kv_tokens and not alone:
            break
        if short:
            n = seq.to_prefill
            short_left -= n
        else:
            n = min(seq.to_prefill, left)
            left -= n
        plan.prefill.append((seq, n))
        slots -= 1
        rows, length = new_rows, new_length
    return plan


def _newest_preemptible(running: list[Seq]) -> Seq | None:
    for seq in reversed(running[1:]):  # never the oldest: it must be able to finish
        if seq.preemptible:
            return seq
    return None
