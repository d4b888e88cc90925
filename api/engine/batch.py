"""Key/value cache operations for a batch whose rows have different lengths.

Rows are left-padded to a common length T; row i holds ``fed[i]`` real positions at the right
end. A new row joins by padding whichever side is shorter (done once, at join time), and a
finished row leaves by index selection, after which the padding every row shares is cut off.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from transformers import DynamicCache

from .kvcache import KV


def cache_from(kv: KV) -> DynamicCache:
    """Build a cache holding the given per-layer keys and values, without copying them.

    Nothing here writes into a cache tensor in place (every update concatenates, pads or
    selects into new ones), so the layers may share the prefix cache's tensors.
    """
    cache = DynamicCache()
    for layer, (k, v) in enumerate(kv):
        cache.update(k[:, :, :0], v[:, :, :0], layer)  # creates and initialises the layer
        cache.layers[layer].keys, cache.layers[layer].values = k, v
    return cache


def cache_length(cache: DynamicCache) -> int:
    return cache.layers[0].keys.shape[-2]


def pad_left(cache: DynamicCache, n: int) -> None:
    """Prepend ``n`` empty positions to every row of ``cache``."""
    if n <= 0:
        return
    for layer in cache.layers:
        layer.keys = F.pad(layer.keys, (0, 0, n, 0))
        layer.values = F.pad(layer.values, (0, 0, n, 0))


def concat(batch: DynamicCache, row: DynamicCache) -> DynamicCache:
    """Append ``row``'s sequences to ``batch``, padding the shorter one on the left."""
    tb, tr = cache_length(batch), cache_length(row)
    pad_left(batch, tr - tb)
    pad_left(row, tb - tr)
    for lb, lr in zip(batch.layers, row.layers, strict=True):
        lb.keys = torch.cat([lb.keys, lr.keys], dim=0)
        lb.values = torch.cat([lb.values, lr.values], dim=0)
    return batch


def select(cache: DynamicCache, keep: list[int], drop_left: int) -> None:
    """Keep only rows ``keep`` and cut ``drop_left`` positions that all of them pad."""
    index = torch.tensor(keep, device=cache.layers[0].keys.device)
    for layer in cache.layers:
        layer.keys = layer.keys.index_select(0, index)[:, :, drop_left:]
        layer.values = layer.values.index_select(0, index)[:, :, drop_left:]


def row_kv(cache: DynamicCache, row: int, length: int) -> KV:
    """One row's real (rightmost ``length``) positions, detached from the batch.

    A row that is the whole cache (a batch of one, unpadded) is returned as is: the batch is
    about to be dropped, and copying a long conversation's KV would delay the next request.
    """
    if cache.layers[0].keys.shape[0] == 1 and cache_length(cache) == length:
        return [(layer.keys, layer.values) for layer in cache.layers]
    return [(layer.keys[row:row + 1, :, -length:].clone(), layer.values[row:row + 1, :, -length:].clone())
            for layer in cache.layers]
