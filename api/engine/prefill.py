"""Prefill: the model inputs that run new prompt tokens, for one request or several at once.

One request starts from its longest cached prefix (``PrefixCache``) and feeds only what is new;
when it took the cache entry over, its tokens are appended to that entry's buffers in place.

Requests that wait together are prefilled in one forward when their new-token counts are close
(``groups``): decoding on a CPU or GPU is bound by reading the weights, so one forward over
eight short prompts costs little more than one over a single prompt. Each row feeds its last
``n`` prompt tokens, ``n`` being the largest new-token count of the group; a row with fewer new
tokens feeds a few cached ones again, and a row shorter than ``n`` is left-padded. The cached
rest of every row is copied, right-aligned, into the group's KV buffers, so each row's real
positions are the rightmost of the batch, as the decode step expects (``batch``).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from .kvbuffer import GrowingLayer, RowKV, empty_buffer, new_cache, room_for

# A group's forward runs at most this many token positions (rows x new tokens, padding included).
MAX_GROUP_TOKENS = 2048


@dataclass
class Pending:
    """A request about to be prefilled, with what the prefix cache gave it."""

    seq: object  # request.Sequence
    ids: list[int]
    reuse: int  # prompt ids whose KV ``kv`` holds
    kv: RowKV | None
    handed_over: bool  # ``kv`` is this request's to write into

    @property
    def new(self) -> int:
        return len(self.ids) - self.reuse


def groups(pending: list[Pending], max_tokens: int = MAX_GROUP_TOKENS) -> list[list[Pending]]:
    """Split into groups whose new-token counts are within 2x (+16) of each other."""
    out: list[list[Pending]] = []
    for p in sorted(pending, key=lambda p: p.new):
        group = out[-1] if out else None
        if group and p.new <= 2 * group[0].new + 16 and (len(group) + 1) * p.new <= max_tokens:
            group.append(p)
        else:
            out.append([p])
    return out


def single(p: Pending, device: torch.device, kv_dtype: torch.dtype | None = None) -> dict:
    """Inputs for one request: its new tokens over its cached prefix (new key/value buffers
    of ``kv_dtype``, ``kvbuffer.new_cache``)."""
    return dict(
        input_ids=torch.tensor([p.ids[p.reuse:]], device=device),
        position_ids=torch.arange(p.reuse, len(p.ids), device=device).unsqueeze(0),
        cache=new_cache(p.kv, p.reuse, owned=p.handed_over, dtype=kv_dtype),
    )


def batched(group: list[Pending], device: torch.device, pad_id: int,
            kv_dtype: torch.dtype | None = None) -> dict:
    """Inputs for several requests in one forward (see the module's docstring)."""
    n = max(p.new for p in group)
    lengths = torch.tensor([len(p.ids) for p in group], device=device)
    cached = [max(len(p.ids) - n, 0) for p in group]
    width = max(cached)
    rows = [[pad_id] * (n - len(p.ids)) + p.ids[-n:] for p in group]
    positions = (lengths.unsqueeze(1) - n + torch.arange(n, device=device)).clamp(min=0)
    return dict(input_ids=torch.tensor(rows, device=device), position_ids=positions,
                attention_mask=_mask(lengths, width, n),
                cache=_right_aligned(group, cached, width, n, kv_dtype))


def _mask(lengths: torch.Tensor, width: int, n: int) -> torch.Tensor:
    """[rows, 1, n, width + n]: a real query sees its row's real keys up to itself.

    A padding query sees only itself: a query that may see nothing gives NaN, which would
    reach the real positions through the padding's keys and values.
    """
    total = width + n
    keys = torch.arange(total, device=lengths.device)
    queries = width + torch.arange(n, device=lengths.device)
    start = (total - lengths).view(-1, 1, 1)  # each row's first real position
    mask = (keys >= start) & (keys <= queries.view(1, -1, 1))
    mask |= (queries.view(1, -1, 1) < start) & (keys == queries.view(1, -1, 1))
    return mask.unsqueeze(1)


def _right_aligned(group: list[Pending], cached: list[int], width: int, n: int,
                   kv_dtype: torch.dtype | None = None):
    """A cache holding each row's first ``cached[i]`` positions at the right of ``width``."""
    cache = new_cache(dtype=kv_dtype)
    if width == 0:
        return cache
    source = next(p.kv for p, c in zip(group, cached, strict=True) if c)
    capacity = width + n + room_for(width + n)
    for layer in range(len(source.keys)):
        buffers = []
        for kind in ("keys", "values"):
            buf = empty_buffer(getattr(source, kind)[layer], len(group), capacity)
            for i, (p, c) in enumerate(zip(group, cached, strict=True)):
                buf[i, :, :width - c].zero_()
                if c:
                    buf[i, :, width - c:width].copy_(getattr(p.kv, kind)[layer][0, :, :c])
            buffers.append(buf)
        cache.layers.append(GrowingLayer.over(*buffers, width))
    return cache
