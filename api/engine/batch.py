"""Key/value cache operations for a batch whose rows have different lengths.

Rows are left-padded to a common length T; row i holds ``fed[i]`` real positions at the right
end. A new row joins by padding whichever side is shorter, and a finished row leaves by index
selection, after which the padding every row shares is cut off. Both copy the batch once,
into new buffers with room to grow (``kvbuffer``), so the decode steps after them append in
place. Padding is zero: a masked position gets no attention weight, and 0 × 0 is 0 where
0 × whatever an uninitialised buffer held might be NaN.
"""

from __future__ import annotations

import torch
from transformers.cache_utils import Cache

from .kvbuffer import RowKV, empty_buffer, room_for


def cache_length(cache: Cache) -> int:
    return cache.layers[0].keys.shape[-2]


def concat(batch: Cache, row: Cache) -> Cache:
    """Append ``row``'s sequences to ``batch``, padding the shorter one on the left.

    All new buffers are built before any layer takes them, so a failure (out of memory)
    leaves the running batch as it was.
    """
    tb, tr = cache_length(batch), cache_length(row)
    length = max(tb, tr)
    capacity = length + room_for(length)
    joined = []
    for lb, lr in zip(batch.layers, row.layers, strict=True):
        bufs = []
        for b, r in ((lb.keys, lr.keys), (lb.values, lr.values)):
            buf = empty_buffer(b, b.shape[0] + r.shape[0], capacity)
            buf[:b.shape[0], :, :length - tb].zero_()
            buf[:b.shape[0], :, length - tb:length].copy_(b)
            buf[b.shape[0]:, :, :length - tr].zero_()
            buf[b.shape[0]:, :, length - tr:length].copy_(r)
            bufs.append(buf)
        joined.append(bufs)
    for layer, (keys, values) in zip(batch.layers, joined, strict=True):
        layer.adopt(keys, values, length)
    return batch


def select(cache: Cache, keep: list[int], drop_left: int) -> None:
    """Keep only rows ``keep`` and cut ``drop_left`` positions that all of them pad.

    One indexed copy per layer and tensor, straight into the new buffer."""
    length = cache_length(cache) - drop_left
    capacity = length + room_for(length)
    index = torch.tensor(keep, device=cache.layers[0].keys.device)
    for layer in cache.layers:
        bufs = []
        for t in (layer.keys, layer.values):
            buf = empty_buffer(t, len(keep), capacity)
            torch.index_select(t[:, :, drop_left:], 0, index, out=buf[:, :, :length])
            bufs.append(buf)
        layer.adopt(*bufs, length)


def reorder_rows(cache: Cache, first: int, sources: list[int]) -> None:
    """Rows ``first``, ``first + 1``, ... take the contents of rows ``sources`` (beams)."""
    index = torch.tensor(sources, device=cache.layers[0].keys.device)
    rows = slice(first, first + len(sources))
    for layer in cache.layers:
        for t in (layer.keys, layer.values):
            t[rows].copy_(t.index_select(0, index))


def truncate(cache: Cache, length: int) -> None:
    """Cut layers that went past ``length`` positions back to it (a failed forward's work)."""
    for layer in cache.layers:
        layer.cut(length)


def row_kv(cache: Cache, row: int, length: int, copy: bool = False) -> RowKV:
    """One row's real (rightmost ``length``) positions, detached from the batch.

    A row that is the whole cache (a batch of one, unpadded) hands its buffers over as they
    are, unless ``copy`` (the cache is still used): the batch is about to be dropped, and
    copying a long conversation's KV would delay the next request. Otherwise the row is copied
    out, with room for its next turn.
    """
    layers = cache.layers
    if not copy and layers[0].keys.shape[0] == 1 and cache_length(cache) == length and all(
            layer.owns_buffer() for layer in layers):
        buffers = [layer.give_up() for layer in layers]
        return RowKV([k for k, _ in buffers], [v for _, v in buffers], length)
    return RowKV.copy_of([layer.keys[row:row + 1, :, -length:] for layer in layers],
                         [layer.values[row:row + 1, :, -length:] for layer in layers])
