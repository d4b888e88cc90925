"""What int8/int4's bfloat16 keys, values and attention over a long history
(api/engine/attention.py) save, in process: one layer's attention (the default model's 9 query
and 3 key/value heads), and a whole turn's prefill of the default model under int4, with
MNEMO_BF16_ATTENTION on (bfloat16 cache) and off (float32 cache), interleaved.

    .venv/bin/python -m bench.history_attention [--runs 7] [--new 60]
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch
from torch.nn import functional as F

HISTORIES = (256, 1000, 2300)


def timed(fn, *args, runs: int = 3) -> list[float]:
    fn(*args)
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        fn(*args)
        out.append((time.perf_counter() - start) * 1000)
    return out


def sdpa(q, keys, values, visible):
    return F.scaled_dot_product_attention(q, keys, values, attn_mask=visible, scale=0.125,
                                          enable_gqa=True)


def one_layer(new: int, runs: int) -> None:
    from api.engine import attention

    print(f"one layer's attention, {new} new positions, ms (median of {runs}, interleaved)")
    print("cached positions | float32 SDPA | bfloat16 (cache in bfloat16) | ratio")
    g = torch.Generator().manual_seed(0)
    for past in HISTORIES:
        length = past + new
        q = torch.randn(1, 9, new, 64, generator=g)
        keys, values = torch.randn(1, 3, length, 64, generator=g), torch.randn(1, 3, length, 64, generator=g)
        visible = torch.arange(length)[None, :] <= (past + torch.arange(new))[:, None]
        mask = attention.visible(new, past, 3, "cpu")
        kb, vb = keys.bfloat16(), values.bfloat16()
        both = {"sdpa": [], "bf16": []}
        for _ in range(runs):
            both["sdpa"] += timed(sdpa, q, keys, values, visible)
            both["bf16"] += timed(attention.attend, q, kb, vb, 0.125, mask)
        a, b = statistics.median(both["sdpa"]), statistics.median(both["bf16"])
        print(f"{past} | {a:.2f} | {b:.2f} | {a / b:.2f} x")


def turn(lean, base, new_ids, past: int) -> float:
    """ms of one forward of ``new_ids`` over a copy of the cache ``base`` (its dtype)."""
    from api.engine.kvbuffer import new_cache

    cache = new_cache()
    for i, layer in enumerate(base.layers):
        cache.update(layer.keys.clone(), layer.values.clone(), i)
    start = time.perf_counter()
    lean(input_ids=new_ids[None], cache=cache,
         position_ids=torch.arange(past, past + len(new_ids))[None])
    return (time.perf_counter() - start) * 1000


def whole_turn(new: int, runs: int) -> None:
    from api.config import Settings
    from api.engine.kvbuffer import new_cache
    from api.engine.loader import keep_freed_memory, load

    keep_freed_memory()  # as the server does: score buffers reuse freed memory
    loaded = load(Settings.load(overrides={"adapters": {}, "quantize": "int4"}))
    lean = loaded.lean
    ids = torch.randint(100, 40000, (max(HISTORIES) + new,), generator=torch.Generator().manual_seed(1))
    print(f"\nint4, the default model: a turn of {new} tokens over the history, ms "
          f"(median of {runs}, interleaved)")
    print("cached positions | float32 attention | bfloat16 attention | ratio")
    settings = {False: (False, None), True: (True, lean.kv_dtype)}  # MNEMO_BF16_ATTENTION
    for past in HISTORIES:
        with torch.inference_mode():
            bases = {}
            for use, (lean.bf16_attention, lean.kv_dtype) in settings.items():
                bases[use] = new_cache()
                lean(input_ids=ids[None, :past], position_ids=torch.arange(past)[None], cache=bases[use])
            both = {False: [], True: []}
            for _ in range(runs):
                for use, (lean.bf16_attention, lean.kv_dtype) in settings.items():
                    both[use].append(turn(lean, bases[use], ids[past:past + new], past))
        a, b = statistics.median(both[False]), statistics.median(both[True])
        print(f"{past} | {a:.1f} | {b:.1f} | {a / b:.2f} x")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--new", type=int, default=60)
    args = parser.parse_args()
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads")
    one_layer(args.new, args.runs)
    whole_turn(args.new, args.runs)


if __name__ == "__main__":
    main()
