"""Key/value tensors in buffers with room to grow, so that appending a token writes in place.

transformers' DynamicCache concatenates on every forward: each decode step and each prefill
copies the whole cache to add a few positions (at 2,300 cached tokens, 20 ms of a 190 ms
prefill here). A ``GrowingLayer`` keeps its keys and values in buffers longer than what they
hold and writes new positions into the free room; it copies only when the room runs out.

Ownership is explicit. A layer writes in place only into buffers it allocated or adopted, and
only while nobody has replaced its tensors (the batch operations in ``batch`` do, and the
next update then copies into a new buffer). A ``RowKV`` handed to the prefix cache is given
up by its layer, so nothing writes into a stored entry unless the cache hands it back.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import torch
from transformers.cache_utils import Cache, DynamicLayer

# Free positions a buffer keeps: decode grows the buffer before the room falls below LOW_ROOM,
# so a finished conversation is stored with room for the next turn's new tokens.
LOW_ROOM = 128


def room_for(length: int) -> int:
    """Room to allocate past ``length``: geometric, so long generations copy O(n) in total."""
    return max(2 * LOW_ROOM, length // 8)


@dataclass
class RowKV:
    """One sequence's keys and values per layer, in buffers [1, heads, capacity, dim]."""

    keys: list[torch.Tensor]
    values: list[torch.Tensor]
    length: int
    ids: object = None  # the token ids it covers, once the prefix cache stored it (``prefix_cache``)

    @property
    def nbytes(self) -> int:  # what the buffers occupy, room included
        return sum(t.numel() * t.element_size() for t in (*self.keys, *self.values))

    @classmethod
    def copy_of(cls, keys: list[torch.Tensor], values: list[torch.Tensor]) -> RowKV:
        """Copy exact-length [1, heads, T, dim] tensors into new buffers with room."""
        length = keys[0].shape[-2]
        return cls([_with_room(k, length + room_for(length)) for k in keys],
                   [_with_room(v, length + room_for(length)) for v in values], length)


def empty_buffer(like: torch.Tensor, rows: int, capacity: int,
                 dtype: torch.dtype | None = None) -> torch.Tensor:
    """An uninitialised [rows, heads, capacity, dim] buffer of ``like``'s device and of
    ``dtype`` (None: ``like``'s)."""
    return like.new_empty((rows, like.shape[1], capacity, like.shape[-1]), dtype=dtype or like.dtype)


def _with_room(t: torch.Tensor, capacity: int) -> torch.Tensor:
    buf = empty_buffer(t, t.shape[0], capacity)
    buf[:, :, :t.shape[-2]].copy_(t)
    return buf


class GrowingLayer(DynamicLayer):
    """A DynamicLayer whose ``keys``/``values`` are views of longer buffers it may write into.

    ``dtype``: what its buffers hold, whatever the dtype of the keys and values written
    (None: theirs). The lean forward keeps int8/int4 models' keys and values in bfloat16 and
    writes bfloat16; transformers' forward (a LoRA row) writes float32 into the same cache and
    gets float32 copies back."""

    def __init__(self, reserve: int = 0, dtype: torch.dtype | None = None):
        super().__init__()
        self.reserve = reserve  # positions it will hold (a prompt fed in chunks): allocate once
        self.dtype = dtype
        self._kbuf: torch.Tensor | None = None
        self._vbuf: torch.Tensor | None = None
        self._view: torch.Tensor | None = None  # the keys view this layer last handed out

    @classmethod
    def over(cls, keys: torch.Tensor, values: torch.Tensor, length: int,
             reserve: int = 0) -> GrowingLayer:
        """A new layer that owns these buffers, whose first ``length`` positions are filled."""
        layer = cls(reserve)
        layer.adopt(keys, values, length)
        return layer

    def adopt(self, keys: torch.Tensor, values: torch.Tensor, length: int) -> None:
        """Take over buffers (whoever held them gives them up) whose first ``length`` are filled."""
        self._init_from(keys)
        self._kbuf, self._vbuf = keys, values
        self._set_length(length)

    def borrow(self, kv: RowKV, layer: int, length: int) -> None:
        """Read a row's first ``length`` positions; the first update copies them out."""
        self._init_from(kv.keys[layer])
        self.keys = kv.keys[layer][:, :, :length]
        self.values = kv.values[layer][:, :, :length]
        self._kbuf = self._vbuf = self._view = None

    def _init_from(self, t: torch.Tensor) -> None:
        self.device, self.is_initialized = t.device, True

    def owns_buffer(self) -> bool:
        """Whether the current tensors are this layer's own views (nobody replaced them)."""
        return self._view is not None and self.keys is self._view

    def give_up(self) -> tuple[torch.Tensor, torch.Tensor]:
        """Hand this layer's buffers to a new owner; a later update here copies first."""
        buffers = self._kbuf, self._vbuf
        self._kbuf = self._vbuf = self._view = None
        return buffers

    def cut(self, length: int) -> None:
        """Forget positions past ``length`` (what a failed forward appended)."""
        if self.keys is None or self.keys.shape[-2] <= length:
            return
        if self.owns_buffer():
            self._set_length(length)
        else:
            self.keys, self.values = self.keys[:, :, :length], self.values[:, :, :length]

    def _set_length(self, length: int) -> None:
        self.keys = self._kbuf[:, :, :length]
        self.values = self._vbuf[:, :, :length]
        self._view = self.keys

    def make_room(self, count: int, key_states: torch.Tensor | None = None,
                  value_states: torch.Tensor | None = None) -> int:
        """Own buffers with room for ``count`` more positions; return the positions held.

        A prefill (several positions) gets the room it needs; a decode step (one) grows the
        buffers early, keeping LOW_ROOM spare. The new positions' keys and values are needed
        only by a layer that holds nothing yet (their shape and dtype)."""
        if not self.is_initialized:
            self.lazy_initialization(key_states, value_states)
        old = self.get_seq_length()
        new = old + count
        rows = (self.keys if key_states is None else key_states).shape[0]
        owned = self.owns_buffer() and self._kbuf.shape[0] == rows
        want = new if count > 1 else new + LOW_ROOM
        if not owned or want > self._kbuf.shape[-2]:
            capacity = max(new, self.reserve) + room_for(max(new, self.reserve))
            if old:
                self._kbuf, self._vbuf = _with_room(self.keys, capacity), _with_room(self.values, capacity)
            else:
                self._kbuf = empty_buffer(key_states, rows, capacity, self.dtype)
                self._vbuf = empty_buffer(value_states, rows, capacity, self.dtype)
            self._set_length(old)
        return old

    def buffers(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The key and value buffers, [rows, heads, capacity, dim] (``make_room`` first)."""
        return self._kbuf, self._vbuf

    def advance(self, count: int) -> None:
        """Count ``count`` more positions as held: someone wrote them into the buffers'
        room (``make_room``), as the native decode step does."""
        self._set_length(self.get_seq_length() + count)

    def update(self, key_states: torch.Tensor, value_states: torch.Tensor, *args, **kwargs):
        old = self.make_room(key_states.shape[-2], key_states, value_states)
        new = old + key_states.shape[-2]
        self._kbuf[:, :, old:new].copy_(key_states)
        self._vbuf[:, :, old:new].copy_(value_states)
        self._set_length(new)
        if self.keys.dtype != key_states.dtype:  # transformers' forward over a bfloat16 cache
            return self.keys.to(key_states.dtype), self.values.to(key_states.dtype)
        return self.keys, self.values


def new_cache(kv: RowKV | None = None, length: int = 0, *, owned: bool = False,
              reserve: int = 0, dtype: torch.dtype | None = None) -> Cache:
    """A cache of GrowingLayers, empty or holding ``kv``'s first ``length`` positions.

    ``owned``: the caller hands ``kv`` over, and the cache appends into its buffers in place;
    otherwise ``kv`` is only read, and the first update copies what it needs. ``reserve``: the
    positions it will reach, so that a prompt fed in chunks allocates its buffers once instead
    of copying them each time they fill (a copy of everything so far, in the middle of a step).
    ``dtype``: what new buffers hold (``GrowingLayer``; ``kv``'s buffers keep theirs).
    """
    cache = Cache(layer_class_to_replicate=partial(GrowingLayer, reserve=reserve, dtype=dtype))
    if kv is not None and length:
        for i in range(len(kv.keys)):
            if owned:
                cache.layers.append(GrowingLayer.over(kv.keys[i], kv.values[i], length, reserve))
            else:
                layer = GrowingLayer(reserve, dtype)
                layer.borrow(kv, i, length)
                cache.layers.append(layer)
    return cache
