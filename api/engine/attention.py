"""Attention over a long history in bfloat16, for the lean forward's int8/int4 layers.

The next turn of a conversation prefills a few dozen new positions that attend to every
cached one: at turn 20 of the benchmark, 57 queries over 2,340 keys in each of 30 layers.
torch's float32 SDPA runs that at about half this CPU's float32 peak, so a turn's first token grew
with the history by that much.

Under int8/int4 the projections already take and give bfloat16, so the values are bfloat16
numbers and the attention's output enters the output projection as bfloat16. This module runs
that attention as torch's SDPA on bfloat16 queries, keys and values (its CPU flash kernel
accumulates in float32 and takes the softmax in float32), with the query heads that share a
key/value head stacked as that head's queries, so the cache is read as it is: over 2,340 keys
1.0 against 1.5 ms a layer for float32 SDPA, and against 1.7 for the bmm and native softmax
this module ran before (docs/benchmarks.md). What it adds to int8/int4's rounding is the
queries', keys' and values' rounding to bfloat16 and the probabilities' (bench/quality.py's
"perplexity in turns" measures it). float32 layers never come here: their outputs stay exact.
"""

from __future__ import annotations

import torch
from torch.nn import functional as F

# Cached positions from which this path runs (the crossover against float32 SDPA was about
# 128-300 keys here); below it, the lean forward's own SDPA call.
HISTORY_MIN = 256
# Mask values (stacked heads x new x all positions) up to which the additive mask is built:
# 32 M, 64 MB of bfloat16. A longer chunk (a pasted document over a long history) takes the
# lean forward's own SDPA call, whose boolean mask has no stacked-head copies.
MAX_MASK = 1 << 25


def applies(rows: int, new: int, past: int, group: int) -> bool:
    """Whether a forward of ``rows`` x ``new`` positions over ``past`` cached ones (causal
    mask only, no padding; ``group`` query heads per key/value head) runs here: one row's
    prefill over a long history."""
    return rows == 1 and new > 1 and past >= HISTORY_MIN and group * new * (past + new) <= MAX_MASK


def visible(new: int, past: int, group: int, device) -> torch.Tensor:
    """[group * new, past + new] bfloat16, added to the scores: 0 where the stacked query row
    ``g * new + i`` (new position i of the g-th head sharing a key/value head) may attend (the
    history and the new positions up to its own), -inf elsewhere. Built once for the 30 layers:
    SDPA turns a boolean mask into this on every call (4 of turn 20's 36 ms)."""
    keys = torch.arange(past + new, device=device)
    hidden = keys[None, :] > past + torch.arange(new, device=device)[:, None]
    mask = torch.zeros(new, past + new, dtype=torch.bfloat16, device=device)
    return mask.masked_fill_(hidden, float("-inf")).repeat(group, 1)


def attend(q: torch.Tensor, keys: torch.Tensor, values: torch.Tensor, scaling: float,
           mask: torch.Tensor) -> torch.Tensor:
    """Causal attention of one row's ``new`` queries [1, heads, new, dim] (the last ``new``
    positions) over keys and values [1, kv_heads, positions, dim]: [1, heads, new, dim] in
    bfloat16. ``mask``: ``visible(new, past, heads // kv_heads)``."""
    _, heads, new, dim = q.shape
    kv = keys.shape[1]
    # query heads h * group ... h * group + group - 1 share key/value head h
    stacked = q.to(torch.bfloat16).reshape(1, kv, heads // kv * new, dim)
    a = F.scaled_dot_product_attention(stacked, keys.to(torch.bfloat16),
                                       values.to(torch.bfloat16), attn_mask=mask, scale=scaling)
    return a.reshape(1, heads, new, dim)
