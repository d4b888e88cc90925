"""Pick the next token of every row of a batch at once, each row with its own parameters.

One step samples the whole batch with tensor operations and moves one tensor of token ids to
the host (``sample``): greedy rows take the argmax, sampling rows are tempered, filtered by
top-k and top-p with per-row values, and drawn with noise from their own generator, so a
seeded row draws the same tokens whatever else shares the batch. Only penalties that look at a
row's history (repetition, n-gram, presence and frequency) run row by row, and only for the
rows that ask for them, and so does the mask of a row whose reply must follow a JSON schema
(``grammar``); the caller advances that row's grammar with the token chosen.
"""

from __future__ import annotations

import torch
from transformers.generation.logits_process import (
    LogitsProcessorList,
    NoRepeatNGramLogitsProcessor,
    RepetitionPenaltyLogitsProcessor,
)

from ..types import SamplingParams, TokenLogprob
from .grammar import JsonConstraint

# Below this temperature sampling is greedy decoding (as in vLLM): dividing logits by, say,
# 1e-38 overflows to inf, and softmax of inf is NaN.
MIN_SAMPLING_TEMPERATURE = 1e-5


class OccurrencePenalty:
    """OpenAI's presence and frequency penalties, as vLLM applies them: over the tokens of the
    reply (not the prompt), ``presence`` is subtracted from the logit of every token that
    occurs in it, and ``frequency`` once per occurrence. Negative values favour repeats."""

    def __init__(self, presence: float, frequency: float, prompt_len: int):
        self.presence, self.frequency, self.prompt_len = presence, frequency, prompt_len

    def __call__(self, input_ids: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        reply = input_ids[:, self.prompt_len:]
        if reply.shape[1] == 0:
            return scores
        counts = torch.zeros_like(scores).scatter_add_(1, reply, torch.ones_like(reply, dtype=scores.dtype))
        return scores - self.frequency * counts - self.presence * (counts > 0).to(scores.dtype)


# How many of the reply's last tokens must match the prompt for the next token of that
# passage to be a copy that the echo guard leaves free.
COPY_RUN = 3


class EchoPenalty:
    """``repetition_penalty``'s rule (a positive score divided by ``penalty``, a negative one
    multiplied) over the reply's own tokens, not over the prompt: the user's words stay free
    to quote. A reply copying a passage of the prompt (its last ``COPY_RUN`` tokens occur
    there) keeps that passage's next token free too, so an identifier quoted from the
    conversation is not bent where its pieces repeat ("-", digits, "/"): bench/exact_facts.py."""

    def __init__(self, penalty: float, prompt_len: int):
        self.penalty, self.prompt_len = penalty, prompt_len
        self.copies: dict[tuple[int, ...], list[int]] | None = None  # built on the first step

    def _copies(self, prompt: list[int]) -> dict[tuple[int, ...], list[int]]:
        """Each run of ``COPY_RUN`` tokens of the prompt: the tokens that follow it there."""
        after: dict[tuple[int, ...], set[int]] = {}
        for i in range(len(prompt) - COPY_RUN):
            after.setdefault(tuple(prompt[i:i + COPY_RUN]), set()).add(prompt[i + COPY_RUN])
        return {run: sorted(ids) for run, ids in after.items()}

    def __call__(self, input_ids: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        ids = input_ids[:, self.prompt_len:]
        if not ids.shape[1]:
            return scores
        chosen = scores.gather(1, ids)
        chosen = torch.where(chosen < 0, chosen * self.penalty, chosen / self.penalty)
        out = scores.scatter(1, ids, chosen)
        if ids.shape[1] >= COPY_RUN:
            if self.copies is None:
                self.copies = self._copies(input_ids[0, :self.prompt_len].tolist())
            for row, tail in enumerate(ids[:, -COPY_RUN:].tolist()):
                free = self.copies.get(tuple(tail))
                if free:
                    out[row, free] = scores[row, free]
        return out


def history_processors(params: SamplingParams, prompt_len: int) -> LogitsProcessorList:
    """The penalties that depend on what a row has generated (shared with beam search);
    ``prompt_len``: where the reply starts in a row's ids."""
    procs = LogitsProcessorList()
    if params.repetition_penalty != 1.0:
        procs.append(RepetitionPenaltyLogitsProcessor(params.repetition_penalty))
    if params.no_repeat_ngram_size > 0:
        procs.append(NoRepeatNGramLogitsProcessor(params.no_repeat_ngram_size))
    if params.presence_penalty or params.frequency_penalty:
        procs.append(OccurrencePenalty(params.presence_penalty, params.frequency_penalty,
                                       prompt_len))
    if params.echo_penalty != 1.0:
        procs.append(EchoPenalty(params.echo_penalty, prompt_len))
    return procs


class RowSampler:
    """One request's sampling parameters and random generator (its state across steps)."""

    def __init__(self, params: SamplingParams, device: torch.device, prompt_len: int = 0,
                 grammar: JsonConstraint | None = None):
        self.processors = history_processors(params, prompt_len)
        self.grammar = grammar  # its tokens are masked to the grammar last, then advance it
        self.logprobs = params.logprobs  # None, or how many alternatives to report
        self.last: TokenLogprob | None = None  # the last token's, when ``logprobs`` is asked
        self.do_sample = params.do_sample and params.temperature >= MIN_SAMPLING_TEMPERATURE
        self.temperature = params.temperature if self.do_sample else 1.0
        self.top_k = params.top_k if self.do_sample else 0
        self.top_p = params.top_p if self.do_sample else 1.0
        self.generator = None
        if self.do_sample:
            self.generator = torch.Generator(device=device)
            if params.seed is not None:
                self.generator.manual_seed(params.seed)
            else:
                self.generator.seed()


def sample(logits: torch.Tensor, samplers: list[RowSampler], histories: list[list[int]]) -> list[int]:
    """Choose a token for each row of ``logits`` [rows, vocab]; one transfer to the host."""
    scores = logits.float()
    for i, s in enumerate(samplers):
        if s.processors:
            ids = torch.tensor([histories[i]], device=scores.device)
            scores[i:i + 1] = s.processors(ids, scores[i:i + 1])
        if s.grammar is not None:
            s.grammar.mask(scores[i])
    tokens = scores.argmax(dim=-1)
    rows = [i for i, s in enumerate(samplers) if s.do_sample]
    drawn_from = {}
    if rows:
        index = torch.tensor(rows, device=scores.device)
        drawn, filtered = _draw(scores.index_select(0, index), [samplers[i] for i in rows])
        tokens = tokens.index_copy(0, index, drawn)
        drawn_from = {i: filtered[j] for j, i in enumerate(rows)}
    chosen = tokens.tolist()
    for i, s in enumerate(samplers):
        if s.logprobs is not None:
            s.last = _logprob(drawn_from.get(i, scores[i]), chosen[i], s.logprobs)
    return chosen


def _logprob(scores: torch.Tensor, token: int, top: int) -> TokenLogprob:
    """``token``'s log-probability under the distribution ``scores`` (one row) defines."""
    logprobs = torch.log_softmax(scores.float(), dim=-1)
    best = logprobs.topk(top) if top else None
    alternatives = () if best is None else tuple(  # never one the filters ruled out (-inf)
        (t, v) for t, v in zip(best.indices.tolist(), best.values.tolist(), strict=True)
        if v != -float("inf"))
    return TokenLogprob(token, float(logprobs[token]), alternatives)


def _draw(scores: torch.Tensor, samplers: list[RowSampler]) -> tuple[torch.Tensor, torch.Tensor]:
    """Temperature, top-k, top-p (transformers' order and semantics), then one draw per row;
    the draws, and the scores they were drawn from."""
    device, vocab = scores.device, scores.shape[-1]
    temps = torch.tensor([s.temperature for s in samplers], device=device, dtype=scores.dtype)
    # An extreme penalty can push a score to +inf (or a temperature below 1 a huge one): such
    # tokens share the probability mass. Ruled-out tokens stay -inf (never a finite score).
    top = torch.finfo(scores.dtype).max
    scores = torch.nan_to_num(scores / temps.unsqueeze(1), nan=-torch.inf, posinf=top,
                              neginf=-torch.inf)
    ks = torch.tensor([min(s.top_k, vocab) if s.top_k > 0 else vocab for s in samplers], device=device)
    if bool((ks < vocab).any()):
        scores = _top_k(scores, ks)
    ps = torch.tensor([s.top_p for s in samplers], device=device, dtype=scores.dtype)
    if bool((ps < 1.0).any()):
        scores = _top_p(scores, ps)
    probs = torch.softmax(scores, dim=-1)
    # The exponential race (Gumbel-max): argmax of p / E, E ~ Exp(1) from the row's own
    # generator (-log U, U uniform: a quarter of the time of ``exponential_``), drawn for
    # every token id, so that a last-bit difference in the logits (batched and solo forwards
    # differ there) almost never changes the token drawn, as inverse-CDF sampling would. U is
    # kept above 0: E = inf would make p / E = 0 for an allowed token too, and a row allowing
    # one token could draw a forbidden one (every ratio 0, argmax the first id).
    noise = _uniform(samplers, vocab, device).clamp_(min=torch.finfo(probs.dtype).tiny)
    return (probs / noise.log_().neg_()).argmax(dim=-1), scores


def _uniform(samplers: list[RowSampler], vocab: int, device: torch.device) -> torch.Tensor:
    """[rows, vocab] uniform draws in [0, 1), each row from its own generator."""
    return torch.stack([torch.rand(vocab, device=device, generator=s.generator) for s in samplers])


def _top_k(scores: torch.Tensor, ks: torch.Tensor) -> torch.Tensor:
    """Each row's scores below its ``ks``-th highest set to -inf (ties with it kept); a row
    whose k is the vocabulary keeps all. The k-th value comes from ``topk`` of the largest k
    asked, not a sort of the vocabulary (3.7 ms a row of 49,152 on one thread here)."""
    vocab = scores.shape[-1]
    limited = ks < vocab
    largest = int(ks[limited].max())
    kth = scores.topk(largest, dim=-1).values.gather(1, (ks.clamp(max=largest) - 1).unsqueeze(1))
    kth = torch.where(limited.unsqueeze(1), kth, -torch.inf)
    return scores.masked_fill(scores < kth, -torch.inf)


NUCLEUS_FIRST, NUCLEUS_GROWTH = 256, 16  # top-p's first look per row, and how it widens


def _top_p(scores: torch.Tensor, ps: torch.Tensor) -> torch.Tensor:
    """transformers' top-p: a token is kept when the tokens ranked above it hold less than
    ``p`` of the probability (the first always). The nucleus is read from each row's highest
    ``NUCLEUS_FIRST`` tokens, then 16 times as many, then all (a sort, as transformers does),
    while some row's nucleus is not inside; straight to all when the next look provably cannot
    hold it. Masses are summed in float64 and measured against the row's own sum: float32's
    softmax sums to 1 only within about 1e-5, which would close a nucleus near p = 1 early."""
    vocab = scores.shape[-1]
    probs = torch.softmax(scores, dim=-1)
    whole = (ps >= 1.0).unsqueeze(1)  # rows in the batch that ask for no top-p keep all
    wanted = ps.double().unsqueeze(1) * probs.double().sum(dim=-1, keepdim=True)
    n = min(NUCLEUS_FIRST, vocab)
    while True:
        values, order = probs.topk(n, dim=-1)
        held = values.double().cumsum(dim=-1)
        keep = held - values.double() < wanted  # the mass ranked above each candidate
        keep[:, 0] = True
        open_ = keep[:, -1:] & ~whole  # rows whose nucleus may go on past this look
        if n == vocab or not bool(open_.any()):
            break
        wider = min(NUCLEUS_GROWTH * n, vocab)
        # the most a wider look can hold: every token after these at most the last one's share
        most = held[:, -1:] + (wider - 1 - n) * values[:, -1:].double()
        n = vocab if bool((open_ & (most < wanted)).any()) else wider
    kept = torch.zeros_like(scores, dtype=torch.bool).scatter_(1, order, keep) | whole
    return scores.masked_fill(~kept, -torch.inf)
