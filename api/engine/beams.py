"""Beam search as rows of the running batch, stepped with everyone else.

A beam request takes ``num_beams`` rows. Each step the model gives each beam's logits like any
other row; ``BeamSearch.step`` picks the next beams and says which row each continues from, and
the worker reorders those rows' KV (one indexed copy per layer). The bookkeeping follows
transformers' vectorized beam search (``GenerationMixin._beam_search``: top 2 x beams
continuations, finished hypotheses scored with the length penalty, its early-stop heuristic),
so on the same model the chosen sequence is the one ``generate(num_beams=...)`` returns.

The reply is sent whole when the search ends: the best hypothesis is only known then.
"""

from __future__ import annotations

import torch

from ..types import SamplingParams
from .sampling import history_processors

NEG = -1.0e9  # transformers' "impossible" score


class BeamSearch:
    """The hypotheses of one beam request: running beams and the best finished ones."""

    def __init__(self, params: SamplingParams, *, prompt_len: int, eos_ids, device):
        b = params.num_beams
        self.num_beams = b
        self.prompt_len = prompt_len
        self.max_length = prompt_len + params.max_new_tokens  # lowered by the engine to its window
        self.length_penalty = params.length_penalty
        self.early_stopping = params.early_stopping
        self.processors = history_processors(params, prompt_len)
        self.eos = torch.tensor(sorted(eos_ids), device=device)
        self.keep = max(2, 1 + len(eos_ids)) * b  # candidates per step, as transformers
        self.top_mask = torch.arange(self.keep, device=device) < b
        self.running: list[list[int]] = [[] for _ in range(b)]  # generated ids per running beam
        self.running_scores = torch.full((b,), NEG, device=device)
        self.running_scores[0] = 0.0  # all beams start as the prompt: only the first counts
        self.finished: list[list[int]] = [[] for _ in range(b)]
        self.finished_scores = torch.full((b,), NEG, device=device)
        self.is_finished = torch.zeros(b, dtype=torch.bool, device=device)
        self.improvable = True
        self.done = False

    @property
    def cur_len(self) -> int:
        return self.prompt_len + len(self.running[0])

    def step(self, logits: torch.Tensor, prompt: list[int], interrupted: bool = False) -> list[int]:
        """Advance one token from ``logits`` [beams or 1, vocab]; return each new beam's source row.

        ``interrupted`` (deadline, worker stopping) ends the search here, keeping the best
        hypotheses so far, as a stopping criterion ends ``generate``.
        """
        b, cur = self.num_beams, self.cur_len
        log_probs = torch.log_softmax(logits.float(), dim=-1).expand(b, -1)
        if self.processors:
            ids = torch.tensor([prompt + r for r in self.running], device=logits.device)
            log_probs = self.processors(ids, log_probs.clone())
        vocab = log_probs.shape[-1]
        scores = (log_probs + self.running_scores[:, None]).reshape(-1)
        values, index = torch.topk(scores, k=self.keep)
        source, tokens = index // vocab, index % vocab
        hits = torch.isin(tokens, self.eos)
        if interrupted or cur + 1 >= self.max_length:
            hits = torch.ones_like(hits)

        running_values = values + hits.to(torch.float32) * NEG
        chosen = torch.topk(running_values, k=b).indices
        self._update_finished(values, source, tokens, hits, cur)

        src, toks = source.tolist(), tokens.tolist()
        candidates = [self.running[s] + [t] for s, t in zip(src, toks, strict=True)]
        picked = chosen.tolist()
        self.running = [candidates[j] for j in picked]
        self.running_scores = running_values[chosen]
        self._check_done(hits)
        return [src[j] for j in picked]

    def _update_finished(self, values, source, tokens, hits, cur) -> None:
        """Merge this step's finished candidates (top ``num_beams`` only) into the best kept."""
        just = hits & self.top_mask
        scored = values / ((cur + 1 - self.prompt_len) ** self.length_penalty)
        full = bool(self.is_finished.all()) and self.early_stopping is True
        scored = scored + float(full) * NEG
        scored = scored + float(not self.improvable) * NEG
        scored = scored + (~just).to(torch.float32) * NEG
        merged = torch.cat((self.finished_scores, scored))
        flags = torch.cat((self.is_finished, just))
        top = torch.topk(merged, k=self.num_beams).indices
        src, toks = source.tolist(), tokens.tolist()
        seqs = self.finished + [self.running[s] + [t] for s, t in zip(src, toks, strict=True)]
        self.finished = [seqs[j] for j in top.tolist()]
        self.finished_scores, self.is_finished = merged[top], flags[top]

    def _check_done(self, hits) -> None:
        """transformers' stopping rule: no improvement possible, all full, or nothing can go on."""
        generated = self.cur_len - self.prompt_len
        best_possible = self.running_scores[0] / (generated ** self.length_penalty)
        worst = torch.where(self.is_finished, self.finished_scores.min(), NEG)
        self.improvable = self.improvable and bool((best_possible > worst).any())
        all_full = bool(self.is_finished.all()) and self.early_stopping is True
        self.done = not self.improvable or all_full or bool(hits.all())

    def best(self) -> list[int]:
        """The best finished hypothesis's generated ids (with its end-of-sequence id, if any)."""
        return self.finished[0]
