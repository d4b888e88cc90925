"""Train the demo LoRA adapter: the default model answers legal questions in a fixed form.

    scripts/train-legal-adapter [--out adapters/legal-demo] [--epochs 8]

Recipe (docs/lora.md): the default model (SmolLM2-135M-Instruct, float32, CPU), LoRA rank 8,
alpha 16, no dropout, on the attention projections (q, k, v, o) of every layer; AdamW at 2e-3
decaying linearly to 0, batches of 8, 5 epochs over training/data/legal_train.jsonl; each
example is rendered with the model's chat template (its default system prompt: the ``legal``
preset's would more than double every sequence and the training time), and only the answer's
tokens count in the loss. Seeds are fixed and torch runs deterministic kernels, so the same machine reproduces
the same adapter. It saves a standard peft adapter directory (``adapter_model.safetensors``).
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

import torch

from training.legal_data import DATA

ROOT = Path(__file__).resolve().parents[1]
SEED = 20261130
TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj"]
BASE_MODEL = "HuggingFaceTB/SmolLM2-135M-Instruct"  # not the local cache path it was trained from
CARD = """# legal-demo

A LoRA adapter for SmolLM2-135M-Instruct (the model embedded in Mnemo, dequantized from its
Q4_1 GGUF to float32) that answers legal questions in Chinese in a fixed form: a 结论 line, a
依据 line, and the disclaimer 本回答仅供参考. Trained by `scripts/train-legal-adapter` on
`training/data/legal_train.jsonl`; recipe, data and measured effect in `docs/lora.md`. A demo,
not legal advice.
"""


def encode(tokenizer, question: str, answer: str) -> tuple[list[int], list[int]]:
    """Token ids of the whole exchange, and labels that are -100 except on the answer."""
    messages = [{"role": "user", "content": question}]
    prompt = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=True)
    full = tokenizer.apply_chat_template(messages + [{"role": "assistant", "content": answer}],
                                         tokenize=True)
    prompt, full = _ids(prompt), _ids(full)
    assert full[:len(prompt)] == prompt, "the chat template must extend the prompt"
    return full, [-100] * len(prompt) + full[len(prompt):]


def _ids(out) -> list[int]:
    return list(out["input_ids"] if isinstance(out, dict) or hasattr(out, "keys") else out)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=str(ROOT / "adapters" / "legal-demo"))
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--lr", type=float, default=2e-3)
    args = parser.parse_args()

    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from api.config import Settings
    from api.engine.loader import resolve_source

    random.seed(SEED)
    torch.manual_seed(SEED)
    torch.use_deterministic_algorithms(True)
    source = resolve_source(Settings.load())[0]
    tokenizer = AutoTokenizer.from_pretrained(source)
    model = AutoModelForCausalLM.from_pretrained(source, dtype=torch.float32)
    config = LoraConfig(r=8, lora_alpha=16, lora_dropout=0.0, target_modules=TARGETS,
                        task_type="CAUSAL_LM")
    model = get_peft_model(model, config)
    model.print_trainable_parameters()

    rows = [json.loads(line) for line in open(DATA / "legal_train.jsonl", encoding="utf-8")]
    examples = [encode(tokenizer, r["question"], r["answer"]) for r in rows]
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=args.lr)
    steps = args.epochs * ((len(examples) + args.batch - 1) // args.batch)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: 1 - s / steps)
    model.train()
    started, step = time.monotonic(), 0
    for epoch in range(args.epochs):
        order = list(range(len(examples)))
        random.shuffle(order)
        for i in range(0, len(order), args.batch):
            batch = [examples[j] for j in order[i:i + args.batch]]
            width = max(len(ids) for ids, _ in batch)
            ids = torch.tensor([x + [pad] * (width - len(x)) for x, _ in batch])
            labels = torch.tensor([y + [-100] * (width - len(y)) for _, y in batch])
            mask = torch.tensor([[1] * len(x) + [0] * (width - len(x)) for x, _ in batch])
            loss = model(input_ids=ids, attention_mask=mask, labels=labels).loss
            loss.backward()
            optimizer.step()
            schedule.step()
            optimizer.zero_grad()
            step += 1
            print(f"epoch {epoch + 1} step {step}/{steps} loss {loss.item():.4f} "
                  f"({time.monotonic() - started:.0f} s)", flush=True)
    model.peft_config["default"].base_model_name_or_path = BASE_MODEL
    model.save_pretrained(args.out)
    (Path(args.out) / "README.md").write_text(CARD, encoding="utf-8")  # peft's is a template
    print(f"saved {args.out} after {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
