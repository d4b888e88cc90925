"""Attention over a long history in bfloat16, for the lean forward's int8/int4 layers.

The next turn of a conversation prefills a few dozen new positions that attend to every
cached one: at turn 20 of the benchmark, 60 queries over 2,300 keys in each of 30 layers.
torch's float32 SDPA runs that at about this CPU's float32 peak (2.3-2.5 ms a layer here,
~70 ms a turn), so a turn's first token grew with the history by that much.

Under int8/int4 the projections already take and give bfloat16, so the values are bfloat16
numbers and the attention's output enters the output projection as bfloat16. This module does
the two products of that attention in bfloat16 (oneDNN accumulates in float32) with the
softmax computed in float32: 1.6 against 2.5 ms a layer over 2,300 keys, 0.44 against 0.66
over 256 (docs/benchmarks.md). What it adds to int8/int4's rounding is the queries' and keys'
rounding to bfloat16 and the scores' and probabilities' (bench/quality.py's "perplexity in
turns" measures it). float32 layers never come here: their outputs stay exact.

The grouped-query heads that share a key/value head are folded into one product, and the
causal mask touches only the square of new positions (the history is visible to all).
"""

from __future__ import annotations

import logging

import torch

log = logging.getLogger("mnemo.attention")

# Cached positions from which the bfloat16 products are faster than float32 SDPA here (the
# crossover measured about 128); below it, and for a single new position, SDPA runs.
HISTORY_MIN = 256
# New positions up to which it pays: a whole int4 forward over 1,000 cached positions took 698
# against 742 ms at 256 new, 1,430 against 1,568 at 512, and was slower from 1,024 on (10.3
# against 8.6 s at 2,048 new over 1,500): a long pasted document runs SDPA, which tiles.
MAX_NEW = 512
# Score elements (heads x new x all positions) up to which the scores are held at once: 64 M.
# The scores and the probabilities exist together (2 x 128 MB of bfloat16 at the bound), with
# bfloat16 copies of the keys and values.
MAX_SCORES = 1 << 26


def applies(rows: int, new: int, past: int, heads: int) -> bool:
    """Whether a forward of ``rows`` x ``new`` positions over ``past`` cached ones (causal
    mask only, no padding) attends in bfloat16: one row's prefill over a long history."""
    return (rows == 1 and 1 < new <= MAX_NEW and past >= HISTORY_MIN
            and heads * new * (past + new) <= MAX_SCORES)


def future_mask(new: int, device) -> torch.Tensor:
    """[new, new] True where a new position would see a later one."""
    return torch.ones(new, new, dtype=torch.bool, device=device).triu_(1)


class Softmax:
    """The native module's causal softmax (``native``, decode.cpp's ``causal_softmax_``): the
    mask and the softmax in place, in one pass over each row of scores. Turn 20's 30 layers
    (177 rows of 2,300 scores per key/value head) took 9.8 against 16.5 ms for the masked fill
    and torch's softmax (docs/benchmarks.md). Should it ever fail, it is logged and torch's
    runs from then on; it checks its arguments before it writes, so the scores are intact."""

    def __init__(self, module):
        self.kernel = module.causal_softmax_

    def __call__(self, scores: torch.Tensor, new: int) -> bool:
        """Turn ``scores`` into probabilities in place; False if that was not done."""
        if self.kernel is None:
            return False
        try:
            self.kernel(scores, new)
        except Exception:
            log.exception("the native softmax failed; torch's softmax runs from now on")
            self.kernel = None
            return False
        return True


def attend(q: torch.Tensor, keys: torch.Tensor, values: torch.Tensor, scaling: float,
           future: torch.Tensor, softmax: Softmax | None = None) -> torch.Tensor:
    """Causal attention of one row's ``new`` queries [1, heads, new, dim] (the last ``new``
    positions) over keys and values [1, kv_heads, positions, dim]: [1, heads, new, dim] in
    bfloat16. ``future``: ``future_mask(new)``; ``softmax``: the native one, if built."""
    _, heads, new, dim = q.shape
    kv, length = keys.shape[1], keys.shape[2]
    group = heads // kv  # query heads h * group ... h * group + group - 1 share key/value head h
    qb = (q * scaling).to(torch.bfloat16).reshape(kv, group * new, dim)
    scores = torch.bmm(qb, keys[0].to(torch.bfloat16).transpose(1, 2))  # [kv, group * new, length]
    if softmax is not None and softmax(scores, new):
        probs = scores
    else:
        scores.view(kv, group, new, length)[..., length - new:].masked_fill_(future, float("-inf"))
        probs = torch.softmax(scores, dim=-1)  # torch's CPU softmax sums bfloat16 input in float32
    return torch.bmm(probs, values[0].to(torch.bfloat16)).view(1, heads, new, dim)
