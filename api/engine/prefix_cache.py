"""A bounded LRU of key/value tensors, keyed by the token ids that produced them.

The next turn of a conversation begins with the tokens of the last one, so its prompt can
start from the stored KV of the longest matching prefix and only prefill what is new. This is
a cache, never state: losing an entry changes speed, not answers.

An entry's buffers have room to grow (``kvbuffer``). When a prompt extends most of an entry
(the next turn of its conversation, or a regenerated reply), the entry is handed over: it
leaves the cache, and the request appends its new tokens in place instead of copying the
history. When a prompt shares only a smaller part (another conversation with the same system
prompt), it reads that part and copies it, and the entry stays for its own conversation.

Entries belong to an owner, ``(tenant, adapter)``: a request only ever finds its own tenant's
entries computed with its own adapter, so one API key can neither read another's prompts back
through timing nor take (hand over) their entries. When the cache is full, the tenant holding
the most bytes loses its least recently used entry first, so no tenant pushes another below a
fair share.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np

from .kvbuffer import RowKV

Owner = tuple[str | None, str | None]  # (tenant, adapter)


def common_prefix(a: np.ndarray, b: np.ndarray) -> int:
    """Return the length of the longest common prefix of two id arrays."""
    n = min(len(a), len(b))
    if n == 0:
        return 0
    diff = np.flatnonzero(a[:n] != b[:n])
    return int(diff[0]) if len(diff) else n


class PrefixCache:
    """Store KV for token-id sequences; find the longest stored prefix of a new prompt."""

    def __init__(self, max_bytes: int):
        self.max_bytes = max_bytes
        self.bytes = 0
        self.hits = 0
        self.misses = 0
        self.query_tokens = 0  # prompt tokens looked up, and those found cached (as vLLM counts)
        self.hit_tokens = 0
        self._entries: OrderedDict[int, tuple[Owner, np.ndarray, RowKV]] = OrderedDict()
        self._next_key = 0
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def lookup(self, owner: Owner, ids: list[int], take: bool = True) -> tuple[int, RowKV | None, bool]:
        """Return (reusable prefix length, the entry's KV, whether it is handed over).

        The length leaves at least one id to run. A KV that is not handed over may only be
        read, and only its first ``length`` positions. ``take=False`` never hands an entry
        over (a request that will not store its KV back must not take one away).
        """
        if self.max_bytes == 0 or len(ids) < 2:
            return 0, None, False
        query = np.asarray(ids, dtype=np.int64)
        best, best_key = 0, None
        with self._lock:
            self.query_tokens += len(ids)
            for key, (entry_owner, stored, _kv) in self._entries.items():
                if entry_owner != owner:
                    continue
                n = common_prefix(stored, query)
                if n > best:
                    best, best_key = n, key
            if best_key is None:
                self.misses += 1
                return 0, None, False
            # At least the last prompt token must run through the model to give its logits.
            best = min(best, len(ids) - 1)
            self.hit_tokens += best
            kv = self._entries[best_key][2]
            handed_over = take and 2 * best >= kv.length  # it overwrites the lesser part
            if handed_over:
                del self._entries[best_key]
                self.bytes -= kv.nbytes
            else:
                self._entries.move_to_end(best_key)
        self.hits += 1
        return best, kv, handed_over

    def store(self, owner: Owner, ids: list[int], kv: RowKV) -> None:
        """Keep ``kv`` (covering exactly ``ids``), dropping entries it extends and old ones."""
        size = kv.nbytes
        if size > self.max_bytes or not ids:
            return
        arr = np.asarray(ids, dtype=np.int64)
        with self._lock:
            for key, (entry_owner, stored, old) in list(self._entries.items()):
                if entry_owner == owner and len(stored) <= len(arr) and \
                        common_prefix(stored, arr) == len(stored):
                    del self._entries[key]
                    self.bytes -= old.nbytes
            kv.ids = arr  # a request it is handed to and that never runs gives it back whole
            self._entries[self._next_key] = (owner, arr, kv)
            self._next_key += 1
            self.bytes += size
            while self.bytes > self.max_bytes and self._entries:
                self._evict_one()

    def _evict_one(self) -> None:
        """The least recently used entry of the tenant that holds the most bytes."""
        held = self._held()
        greedy = max(held, key=held.__getitem__)
        key = next(k for k, (o, _s, _kv) in self._entries.items() if o[0] == greedy)
        _owner, _stored, old = self._entries.pop(key)
        self.bytes -= old.nbytes

    def bytes_by_tenant(self) -> dict[str | None, int]:
        """The bytes each tenant (API key) holds: what eviction weighs."""
        with self._lock:
            return self._held()

    def _held(self) -> dict[str | None, int]:
        held: dict[str | None, int] = {}
        for owner, _stored, kv in self._entries.values():
            held[owner[0]] = held.get(owner[0], 0) + kv.nbytes
        return held

    def drop_adapter(self, adapter: str) -> None:
        """Forget every entry computed with ``adapter`` (it left the model)."""
        with self._lock:
            for key, (owner, _stored, kv) in list(self._entries.items()):
                if owner[1] == adapter:
                    del self._entries[key]
                    self.bytes -= kv.nbytes

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.bytes = 0
