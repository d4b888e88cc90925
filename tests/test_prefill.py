"""Grouped prefill inputs, on plain tensors (no model): grouping, masks, positions, KV layout.

That a grouped prefill answers as each request alone is tested on the tiny model in
``test_generation.test_waiting_requests_prefill_together_and_answer_as_alone``.
"""

from __future__ import annotations

import torch

from api.engine import prefill
from api.engine.kvbuffer import RowKV
from api.engine.prefill import Pending


def pending(length: int, reuse: int = 0, kv: RowKV | None = None) -> Pending:
    return Pending(seq=None, ids=list(range(100, 100 + length)), reuse=reuse, kv=kv,
                   handed_over=False)


def test_groups_keep_close_new_token_counts_together_and_bound_the_work():
    sizes = [12, 3, 30, 500, 20, 9]
    groups = prefill.groups([pending(n) for n in sizes])
    assert [[p.new for p in g] for g in groups] == [[3, 9, 12, 20], [30], [500]]
    many = prefill.groups([pending(100) for _ in range(30)], max_tokens=1000)
    assert [len(g) for g in many] == [10, 10, 10]


def test_mask_real_queries_see_their_rows_real_keys_and_no_query_sees_nothing():
    lengths = torch.tensor([7, 2, 5])
    width, n = 3, 4
    mask = prefill._mask(lengths, width, n)[:, 0]
    assert mask.shape == (3, n, width + n)
    assert mask.any(dim=-1).all()  # a query that may see nothing gives NaN on some backends
    for row, length in enumerate(lengths.tolist()):
        start = width + n - length
        for q in range(n):
            position = width + q
            seen = mask[row, q].nonzero().flatten().tolist()
            if position >= start:
                assert seen == list(range(start, position + 1))
            else:
                assert seen == [position]  # padding sees only itself


def test_batched_inputs_right_align_each_row_with_its_cached_part():
    heads, dim = 2, 3
    keys = torch.randn(1, heads, 40, dim)
    kv = RowKV([keys], [keys + 1], 30)
    group = [pending(30, reuse=25, kv=kv), pending(4)]  # new tokens: 5 and 4
    inputs = prefill.batched(group, torch.device("cpu"), pad_id=0)
    assert inputs["input_ids"].tolist() == [list(range(125, 130)), [0] + list(range(100, 104))]
    assert inputs["position_ids"].tolist() == [[25, 26, 27, 28, 29], [0, 0, 1, 2, 3]]
    layer = inputs["cache"].layers[0]
    assert layer.keys.shape == (2, heads, 25, dim)
    assert torch.equal(layer.keys[0], keys[0, :, :25]) and torch.equal(layer.values[0], keys[0, :, :25] + 1)
    assert not layer.keys[1].any() and not layer.values[1].any()
    assert layer.owns_buffer()  # the forward appends in place
