"""The model runner: executes what the scheduler decided, and owns the running batch's KV.

Three kinds of forward pass:
- ``prefill_group``: several waiting prompts whose new tokens fit the step's budget, at once
  (``prefill``); it returns their last logits and a cache of their rows;
- ``prefill_chunk``: the next ``n`` tokens of one long prompt into its own cache, so a long
  prompt is prefilled over several steps while the batch keeps decoding;
- ``decode``: one token for every row of the running batch.

The batch is a list of sequences whose rows are contiguous (a beam request has one row per
beam), over one left-padded KV cache (``batch``). Rows join with ``join``, leave with
``remove`` and beams swap rows with ``reorder``; ``rollback`` undoes a step that failed half way
(layers it reached had appended a position).
"""

from __future__ import annotations

import torch

from . import batch as kvbatch
from . import prefill
from .kvbuffer import new_cache
from .loader import Loaded
from .request import Sequence


class Runner:
    def __init__(self, loaded: Loaded):
        self.m = loaded
        self.model = loaded.model
        self.device = loaded.device
        self.pad_id = min(loaded.eos_ids)
        self._is_peft = bool(loaded.adapters)
        self.cache = None  # the running batch's KV (a Cache of GrowingLayers)
        self.seqs: list[Sequence] = []
        self.steps = 0

    @property
    def rows(self) -> int:
        return sum(s.rows for s in self.seqs)

    @property
    def length(self) -> int:
        """Positions of the batch's KV (the longest row; shorter rows are left-padded)."""
        return kvbatch.cache_length(self.cache) if self.cache is not None else 0

    def _adapter_kwargs(self, adapters: list[str | None]) -> dict:
        if not self._is_peft:
            return {}
        return {"adapter_names": [a or "__base__" for a in adapters]}

    # -- prefill ------------------------------------------------------------------------
    def prefill_group(self, group: list[prefill.Pending]):
        """Run a group's new prompt tokens; return (last logits [n, vocab], their cache)."""
        inputs = (prefill.single(group[0], self.device) if len(group) == 1
                  else prefill.batched(group, self.device, pad_id=self.pad_id))
        out = self.model(**inputs, use_cache=True, logits_to_keep=1,
                         **self._adapter_kwargs([p.seq.adapter for p in group]))
        return out.logits[:, -1], out.cache

    def prefill_chunk(self, seq: Sequence, n: int) -> torch.Tensor | None:
        """Feed ``seq``'s next ``n`` history ids; return the last logits once all are fed."""
        if seq.cache is None:
            seq.cache = new_cache()
        start = seq.fed
        ids = seq.history[start:start + n]
        out = self.model(input_ids=torch.tensor([ids], device=self.device),
                         position_ids=torch.arange(start, start + len(ids), device=self.device)[None],
                         cache=seq.cache, use_cache=True, logits_to_keep=1,
                         **self._adapter_kwargs([seq.adapter]))
        seq.fed = start + len(ids)
        return out.logits[:, -1] if seq.fed == len(seq.history) else None

    # -- the running batch --------------------------------------------------------------
    def join(self, seqs: list[Sequence], cache) -> None:
        """Add prefilled sequences (their rows, in order, are ``cache``'s rows) to the batch."""
        if self.cache is None:
            self.cache, self.seqs = cache, list(seqs)
        else:
            self.cache = kvbatch.concat(self.cache, cache)
            self.seqs += seqs

    def decode(self) -> torch.Tensor:
        """One forward for every row: feed each row's next token; return logits [rows, vocab]."""
        tokens, fed, adapters = [], [], []
        for s in self.seqs:
            tokens += s.next_tokens
            fed += [s.fed + 1] * s.rows
            adapters += [s.adapter] * s.rows
        length = self.length + 1
        fed_t = torch.tensor(fed, device=self.device)
        positions = torch.arange(length, device=self.device).unsqueeze(0)
        mask = (positions >= (length - fed_t).unsqueeze(1)).long()
        out = self.model(input_ids=torch.tensor(tokens, device=self.device).unsqueeze(1),
                         attention_mask=mask, position_ids=(fed_t - 1).unsqueeze(1),
                         cache=self.cache, use_cache=True, **self._adapter_kwargs(adapters))
        self.cache = out.cache
        self.steps += 1
        for s in self.seqs:
            s.fed += 1
        return out.logits[:, -1]

    def rollback(self, length: int) -> None:
        """Cut every layer back to ``length`` positions after a forward that failed midway."""
        if self.cache is not None:
            kvbatch.truncate(self.cache, length)

    def offsets(self) -> list[int]:
        out, at = [], 0
        for s in self.seqs:
            out.append(at)
            at += s.rows
        return out

    def reorder(self, seq: Sequence, sources: list[int]) -> None:
        """Beam rows continue from rows ``sources`` (relative to ``seq``'s first row)."""
        if sources == list(range(seq.rows)):
            return
        first = self.offsets()[self.seqs.index(seq)]
        kvbatch.reorder_rows(self.cache, first, [first + s for s in sources])

    def remove(self, gone: list[Sequence]) -> None:
        """Take these sequences' rows out of the batch (one indexed copy per layer)."""
        if not gone:
            return
        offsets = self.offsets()
        keep_rows, keep_seqs = [], []
        for s, at in zip(self.seqs, offsets, strict=True):
            if s not in gone:
                keep_rows += range(at, at + s.rows)
                keep_seqs.append(s)
        if not keep_seqs:
            self.cache, self.seqs = None, []
            return
        real = max(s.fed for s in keep_seqs)
        kvbatch.select(self.cache, keep_rows, self.length - real)
        self.seqs = keep_seqs

    def row_kv(self, seq: Sequence):
        """A single-row sequence's KV, detached for the prefix cache."""
        return kvbatch.row_kv(self.cache, self.offsets()[self.seqs.index(seq)], seq.fed)

    def clear(self) -> None:
        self.cache, self.seqs = None, []

    # -- adapters (between steps only: the worker thread calls these) -------------------
    def add_adapter(self, key: str, path: str) -> None:
        """Load a LoRA adapter under ``key``; on failure the model is as it was."""
        from peft import PeftModel

        if not self._is_peft:  # the first adapter wraps the base model
            model = PeftModel.from_pretrained(self.model, path, adapter_name=key)
            self.model = self.m.model = model.to(self.device).eval()
            self._is_peft = True
            return
        try:
            self.model.load_adapter(path, adapter_name=key)
            self.model.to(self.device)
        except BaseException:
            if key in getattr(self.model, "peft_config", {}):
                self.model.delete_adapter(key)
            raise

    def delete_adapter(self, key: str) -> None:
        self.model.delete_adapter(key)
