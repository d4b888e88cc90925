"""What an output-changing option does to the model's answers: greedy agreement with float32 on
fixed prompts, the perplexity of a held-out text (bench/data/heldout.txt, written for this
purpose, so no model has seen it), and the perplexity of a longer one (heldout-long.txt, 1,380
tokens) fed in turns of 64 tokens through the cache, as a conversation's turns are: each turn
attends to all earlier ones (int8/int4 keep those keys and values, and attend, in bfloat16).

    .venv/bin/python -m bench.quality [--tokens 64]

Agreement is reported two ways: the share of generated tokens identical to float32's at the same
position, and how many tokens come before the first difference (greedy decoding follows its own
output, so one near-tie sends the rest of the answer elsewhere without the model being worse).
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from pathlib import Path

import torch

PROMPTS = [
    "What is the capital of France?",
    "Explain photosynthesis in two sentences.",
    "Write a haiku about the sea.",
    "List three uses of a paperclip.",
    "How do I boil an egg?",
    "What is 12 times 7?",
    "Give me a tip for learning a new language.",
    "Describe a cat to someone who has never seen one.",
]
HELDOUT = Path(__file__).parent / "data" / "heldout.txt"
HELDOUT_LONG = Path(__file__).parent / "data" / "heldout-long.txt"
TURN = 64  # tokens per turn of the long text
# The reference is float32 through transformers' own forward; every other row is what serves
# with that setting (the lean forward, api/engine/lean.py, and under int8/int4 its native
# decode step, api/engine/native/, unless it says otherwise).
OPTIONS = {"float32, transformers' forward": {"executor": "transformers"},
           "float32": {}, "bfloat16": {"dtype": "bfloat16"}, "int8": {"quantize": "int8"},
           "int4, transformers' forward": {"quantize": "int4", "executor": "transformers"},
           "int4, Python decode step": {"quantize": "int4", "executor": "lean"},
           "int4, float32 keys, values and attention": {"quantize": "int4", "bf16_attention": False},
           "int8, kernels for every product": {"quantize": "int8", "bf16_prefill": False},
           "int4, kernels for every product": {"quantize": "int4", "bf16_prefill": False},
           "int4": {"quantize": "int4"}}


def load(option: str, **settings):
    from api.config import Settings
    from api.engine.loader import load as load_model

    return load_model(Settings.load(overrides={"adapters": {}, **OPTIONS[option], **settings}))


def forward_of(loaded):
    """The forward the engine runs for a request without an adapter."""
    if loaded.lean is not None:
        return loaded.lean
    return lambda **inputs: loaded.model(**inputs, use_cache=True)


def greedy(loaded, prompts: list[str], tokens: int) -> list[list[int]]:
    from api.engine.kvbuffer import new_cache

    tok, forward, out = loaded.tokenizer, forward_of(loaded), []
    with torch.inference_mode():
        for prompt in prompts:
            ids = tok.apply_chat_template([{"role": "user", "content": prompt}], add_generation_prompt=True,
                                          return_dict=True)["input_ids"]
            cache = new_cache()
            logits = forward(input_ids=torch.tensor([ids]), position_ids=torch.arange(len(ids))[None],
                             cache=cache, logits_to_keep=1).logits
            gen = []
            for i in range(tokens):
                gen.append(int(logits[0, -1].argmax()))
                logits = forward(input_ids=torch.tensor([[gen[-1]]]),
                                 position_ids=torch.tensor([[len(ids) + i]]), cache=cache).logits
            out.append(gen)
    return out


def perplexity(loaded, text: str) -> float:
    from api.engine.kvbuffer import new_cache

    ids = loaded.tokenizer(text, return_tensors="pt")["input_ids"]
    with torch.inference_mode():
        logits = forward_of(loaded)(input_ids=ids, position_ids=torch.arange(ids.shape[1])[None],
                                    cache=new_cache()).logits[0, :-1].float()
    nll = torch.nn.functional.cross_entropy(logits, ids[0, 1:])
    return math.exp(nll.item())


def perplexity_in_turns(loaded, text: str, turn: int = TURN) -> float:
    """Perplexity of ``text`` fed ``turn`` tokens at a time into one cache (each turn's first
    token predicted by the previous turn's last logits)."""
    from api.engine.kvbuffer import new_cache

    ids = loaded.tokenizer(text, return_tensors="pt")["input_ids"][0]
    forward, cache, logits = forward_of(loaded), new_cache(), []
    with torch.inference_mode():
        for start in range(0, len(ids), turn):
            chunk = ids[start:start + turn]
            positions = torch.arange(start, start + len(chunk))[None]
            logits.append(forward(input_ids=chunk[None], position_ids=positions,
                                  cache=cache).logits[0].float())
    nll = torch.nn.functional.cross_entropy(torch.cat(logits)[:-1], ids[1:])
    return math.exp(nll.item())


def agreement(reference: list[list[int]], other: list[list[int]]) -> tuple[float, float]:
    """(share of tokens equal at the same position, median tokens before the first difference)"""
    pairs = list(zip(reference, other, strict=True))
    same = [sum(a == b for a, b in zip(r, o, strict=True)) / len(r) for r, o in pairs]
    first = [next((i for i, (a, b) in enumerate(zip(r, o, strict=True)) if a != b), len(r))
             for r, o in pairs]
    return statistics.mean(same), statistics.median(first)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tokens", type=int, default=64)
    parser.add_argument("--options", default="", help="rows to run, separated by ; (default: "
                        "all); the reference, the first row, always runs")
    args = parser.parse_args()
    chosen = [o for o in OPTIONS if not args.options or o == next(iter(OPTIONS))
              or o in args.options.split(";")]
    text, long_text = HELDOUT.read_text(encoding="utf-8"), HELDOUT_LONG.read_text(encoding="utf-8")
    ref = None
    print(f"{len(PROMPTS)} prompts x {args.tokens} greedy tokens; held-out text: {HELDOUT.name}")
    print("option | same token at same position | tokens before first difference (median) | "
          "perplexity | perplexity in turns | decode tok/s in-process")
    for option in chosen:
        loaded = load(option)
        t = time.perf_counter()
        outs = greedy(loaded, PROMPTS, args.tokens)
        rate = len(PROMPTS) * args.tokens / (time.perf_counter() - t)
        ref = ref or outs
        same, first = agreement(ref, outs)
        print(f"{option} | {100 * same:.0f} % | {first:.0f} | {perplexity(loaded, text):.2f} | "
              f"{perplexity_in_turns(loaded, long_text):.2f} | {rate:.1f}")


if __name__ == "__main__":
    main()
