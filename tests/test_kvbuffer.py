"""Growing KV buffers and the prefix cache's hand-over, on plain tensors (no model).

What must hold: appending writes in place while there is room, and the values always equal
what concatenation would give; nothing ever writes into a prefix-cache entry it was only lent;
an entry handed over leaves the cache; batch joins and leaves keep every row's positions.
"""

from __future__ import annotations

import torch

from api.engine import batch as kvbatch
from api.engine.kvbuffer import LOW_ROOM, GrowingLayer, RowKV, new_cache
from api.engine.prefix_cache import PrefixCache

HEADS, DIM, LAYERS = 2, 4, 3

NOBODY = (None, None)  # a cache owner: no tenant, no adapter


def kv(rows: int, n: int) -> tuple[torch.Tensor, torch.Tensor]:
    return torch.randn(rows, HEADS, n, DIM), torch.randn(rows, HEADS, n, DIM)


def feed(cache, rows: int, n: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """Append n positions to every layer; return what was appended."""
    new = [kv(rows, n) for _ in range(LAYERS)]
    for i, (k, v) in enumerate(new):
        cache.update(k, v, i)
    return new


def row(n: int) -> RowKV:
    cache = new_cache()
    feed(cache, 1, n)
    return kvbatch.row_kv(cache, 0, n)


def test_append_is_in_place_until_the_room_runs_out_and_equals_concatenation():
    layer = GrowingLayer()
    k0, v0 = kv(2, 10)
    layer.update(k0, v0)
    buffer, expected = layer._kbuf, k0
    steps_in_place = 0
    for _ in range(3 * LOW_ROOM):
        k, v = kv(2, 1)
        layer.update(k, v)
        expected = torch.cat([expected, k], dim=-2)
        assert torch.equal(layer.keys, expected)
        if layer._kbuf is buffer:
            steps_in_place += 1
        buffer = layer._kbuf
        assert layer._kbuf.shape[-2] - layer.keys.shape[-2] >= LOW_ROOM  # decode keeps room
    assert 3 * LOW_ROOM - 5 <= steps_in_place < 3 * LOW_ROOM  # it did grow, but rarely


def test_replaced_tensors_are_copied_not_written_through():
    layer = GrowingLayer()
    layer.update(*kv(1, 5))
    outside = torch.randn(1, HEADS, 5, DIM)
    layer.keys, layer.values = outside, outside.clone()  # as a batch operation would
    before = outside.clone()
    layer.update(*kv(1, 1))
    assert layer._kbuf.data_ptr() != outside.data_ptr()
    assert torch.equal(outside, before)


def test_a_borrowed_entry_is_never_written():
    cache = PrefixCache(max_bytes=1 << 30)
    entry = row(40)
    snapshot = [k[:, :, :40].clone() for k in entry.keys]  # the room past 40 is uninitialised
    cache.store(NOBODY, list(range(40)), entry)
    reuse, got, handed_over = cache.lookup(NOBODY, list(range(10)) + [999] * 20)
    assert (reuse, handed_over) == (10, False) and got is entry
    assert len(cache) == 1
    borrower = new_cache(got, reuse, owned=handed_over)
    feed(borrower, 1, 30)
    assert all(torch.equal(k[:, :, :40], s) for k, s in zip(entry.keys, snapshot, strict=True))
    assert torch.equal(borrower.layers[0].keys[:, :, :10], snapshot[0][:, :, :10])


def test_an_extended_entry_is_handed_over_and_appended_in_place():
    cache = PrefixCache(max_bytes=1 << 30)
    entry = row(40)
    first = [k[:, :, :40].clone() for k in entry.keys]
    cache.store(NOBODY, list(range(40)), entry)
    reuse, got, handed_over = cache.lookup(NOBODY, list(range(40)) + [7] * 20)
    assert (reuse, handed_over) == (40, True)
    assert len(cache) == 0 and cache.bytes == 0  # it left the cache with its bytes
    owner = new_cache(got, reuse, owned=True)
    new = feed(owner, 1, 20)
    layer = owner.layers[0]
    assert layer._kbuf is entry.keys[0]  # no copy of the 40 cached positions
    assert torch.equal(layer.keys, torch.cat([first[0], new[0][0]], dim=-2))


def test_row_kv_hands_the_buffers_over_and_the_layer_lets_go():
    cache = new_cache()
    feed(cache, 1, 12)
    stored = kvbatch.row_kv(cache, 0, 12)
    snapshot = stored.keys[0][:, :, :12].clone()
    assert stored.keys[0] is not None and stored.length == 12
    feed(cache, 1, 3)  # a cache that keeps going must not write into the stored buffers
    assert cache.layers[0]._kbuf is not stored.keys[0]
    assert torch.equal(stored.keys[0][:, :, :12], snapshot)


def test_join_and_leave_keep_every_rows_positions_with_zero_padding():
    batch, joining = new_cache(), new_cache()
    a = feed(batch, 1, 7)
    b = feed(joining, 1, 3)
    kvbatch.concat(batch, joining)
    keys = batch.layers[1].keys
    assert keys.shape[0] == 2 and keys.shape[-2] == 7
    assert torch.equal(keys[0:1], a[1][0])
    assert torch.equal(keys[1:2, :, 4:], b[1][0]) and not keys[1, :, :4].any()
    c = feed(batch, 2, 1)  # a decode step after the join appends in place
    assert batch.layers[1].owns_buffer()
    kvbatch.select(batch, [1], drop_left=4)
    left = batch.layers[1].keys
    assert torch.equal(left, torch.cat([b[1][0], c[1][0][1:2]], dim=-2))
    out = kvbatch.row_kv(batch, 0, 4)
    assert torch.equal(out.keys[1][:, :, :4], left)


def test_bytes_count_the_room_and_old_entries_are_evicted():
    one = row(10)
    cache = PrefixCache(max_bytes=int(2.5 * one.nbytes))
    assert one.nbytes > 2 * LAYERS * HEADS * 10 * DIM * 4  # the room is counted
    for start in range(3):
        cache.store(NOBODY, [100 * start + i for i in range(10)], row(10))
    assert len(cache) == 2 and cache.bytes <= cache.max_bytes
    assert cache.lookup(NOBODY, list(range(10)) + [5])[0] == 0  # the oldest went first


def test_a_bfloat16_cache_keeps_bfloat16_and_gives_float32_writers_float32():
    """int8/int4 caches hold bfloat16 (the lean forward writes it); transformers' forward (a
    LoRA row in the same batch) writes float32 and must get float32 back to attend with."""
    cache = new_cache(dtype=torch.bfloat16)
    k, v = kv(1, 6)
    keys, values = cache.update(k, v, 0)  # transformers' forward
    layer = cache.layers[0]
    assert layer.buffers()[0].dtype == layer.buffers()[1].dtype == torch.bfloat16
    assert keys.dtype == values.dtype == torch.float32
    assert torch.equal(keys, k.bfloat16().float()) and torch.equal(values, v.bfloat16().float())
    k2, v2 = kv(1, 1)
    keys, values = cache.update(k2.bfloat16(), v2.bfloat16(), 0)  # the lean forward
    assert keys.dtype == torch.bfloat16 and keys.shape[-2] == 7
    assert keys.data_ptr() == layer.buffers()[0].data_ptr()  # its own buffer: no copy
    assert torch.equal(keys[:, :, -1:], k2.bfloat16())
    # what it hands the prefix cache and what a batch join copies stay bfloat16
    entry = kvbatch.row_kv(cache, 0, 7)
    assert entry.keys[0].dtype == torch.bfloat16
    assert entry.nbytes == sum(t.numel() * 2 for t in (*entry.keys, *entry.values))
    lent = new_cache(entry, 7, dtype=torch.bfloat16)
    lent.update(*kv(1, 2), 0)  # a borrowed entry's first update copies: still bfloat16
    assert lent.layers[0].buffers()[0].dtype == torch.bfloat16
    # and a cache without a dtype takes its first keys'
    plain = new_cache()
    plain.update(*kv(1, 3), 0)
    assert plain.layers[0].buffers()[0].dtype == torch.float32
