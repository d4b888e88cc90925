"""The model runner: executes what the scheduler decided, and owns the running batch's KV.

Three kinds of forward pass:
- ``prefill_group``: several waiting prompts whose new tokens fit the step's budget, at once
  (``prefill``); it returns their last logits and a cache of their rows;
- ``prefill_chunk``: the next ``n`` tokens of one long prompt into its own cache, so a long
  prompt is prefilled over several steps while the batch keeps decoding;
- ``decode``: one token for every row of the running batch.

The running batch is a few groups (``group``): each a list of sequences whose rows are
contiguous (a beam request has one row per beam) over one left-padded KV cache, decoded in one
forward. Rows join the group where padding wastes least (a long prompt among short rows gets a
group of its own, so joining never copies the short rows out to its length), leave with
``remove``, and beams swap rows with ``reorder``. A decode step that fails half way is rolled
back (the layers it reached had appended a position).
"""

from __future__ import annotations

import contextlib
import sys
import time

import torch

from . import batch as kvbatch
from . import prefill
from .adapters import attach, clone, detach
from .group import Group, offsets
from .kvbuffer import new_cache
from .loader import Loaded
from .request import Sequence

PAUSE_EVERY, PAUSE_SECONDS = 50, 0.0003  # how a variant's build makes way for the worker
MAX_GROUPS = 4  # each group costs a forward per step (the weights are read once per forward)
PADDING_SHARE = 0.5  # join a group if its padding grows by at most half the positions used...
PADDING_SLACK = 64  # ...plus this many per row (short prompts always share a group)


class Runner:
    def __init__(self, loaded: Loaded):
        self.m = loaded
        self.model = loaded.model
        self.device = loaded.device
        self.pad_id = min(loaded.eos_ids)
        self._is_peft = bool(loaded.adapters)
        self.plain = None if loaded.adapters else loaded.model  # the model without adapters
        self.kv_dtype = loaded.kv_dtype  # what new key/value buffers hold
        self._lora_on: bool | None = None  # the LoRA layers' switch, as last set
        self.groups: list[Group] = []  # the running batch: rows that decode together, by group
        self.steps = 0

    @property
    def rows(self) -> int:
        return sum(s.rows for s in self.seqs)

    @property
    def length(self) -> int:
        """The longest group's KV positions (rows of a group are left-padded to it)."""
        return max((g.length for g in self.groups), default=0)

    def _adapter_kwargs(self, adapters: list[str | None]) -> dict:
        """Route each row to its adapter. A forward with base-model rows only runs with the
        LoRA layers switched off instead: peft's per-row routing hooks every LoRA layer on
        every forward, which cost the base model about 14 % of its speed with one adapter
        loaded (docs/lora.md)."""
        if not self._is_peft:
            return {}
        routed = any(a is not None for a in adapters)
        if self._lora_on is not routed:
            if routed:
                self.model.base_model.enable_adapter_layers()
            else:
                self.model.base_model.disable_adapter_layers()
            self._lora_on = routed
        return {"adapter_names": [a or "__base__" for a in adapters]} if routed else {}

    def forward(self, adapters: list[str | None], **inputs):
        """One forward of the model (every forward goes through here): the lean one
        (``lean``) unless a row is routed to an adapter."""
        kwargs = self._adapter_kwargs(adapters)
        if self.m.lean is not None and not kwargs:
            return self.m.lean(**inputs)
        return self.model(**inputs, use_cache=True, **kwargs)

    # -- prefill ------------------------------------------------------------------------
    def prefill_group(self, group: list[prefill.Pending]):
        """Run a group's new prompt tokens; return (last logits [n, vocab], their cache)."""
        inputs = (prefill.single(group[0], self.device, self.kv_dtype) if len(group) == 1
                  else prefill.batched(group, self.device, self.pad_id, self.kv_dtype))
        out = self.forward([p.seq.adapter for p in group], **inputs, logits_to_keep=1)
        return out.logits[:, -1], out.cache

    def prefill_chunk(self, seq: Sequence, n: int) -> torch.Tensor | None:
        """Feed ``seq``'s next ``n`` history ids; return the last logits once all are fed."""
        if seq.cache is None:
            seq.cache = new_cache(dtype=self.kv_dtype)
        start = seq.fed
        ids = seq.history[start:start + n]
        out = self.forward(
            [seq.adapter], input_ids=torch.tensor([ids], device=self.device),
            position_ids=torch.arange(start, start + len(ids), device=self.device)[None],
            cache=seq.cache, logits_to_keep=1)
        seq.fed = start + len(ids)
        return out.logits[:, -1] if seq.fed == len(seq.history) else None

    # -- the running batch ---------------------------------------------------------------
    @property
    def seqs(self) -> list[Sequence]:
        return [s for g in self.groups for s in g.seqs]

    def join(self, seqs: list[Sequence], cache) -> None:
        """Add prefilled sequences (their rows, in order, are ``cache``'s rows) to a group:
        the one where padding wastes least, unless all would waste too much (a long prompt
        among short rows): then a group of its own, up to MAX_GROUPS."""
        rows, length = sum(s.rows for s in seqs), kvbatch.cache_length(cache)
        best, waste = None, None
        for g in self.groups:
            padded = (g.rows + rows) * max(g.length, length)
            extra = padded - g.used - rows * length
            if waste is None or extra < waste:
                best, waste = g, extra
        fits = best is not None and waste <= PADDING_SHARE * (best.used + rows * length) \
            + PADDING_SLACK * (best.rows + rows)
        if fits or (best is not None and len(self.groups) >= MAX_GROUPS):
            best.add(seqs, cache)
        else:
            self.groups.append(Group(seqs, cache))

    def decode(self) -> torch.Tensor:
        """One forward per group: feed each row's next token; return logits [rows, vocab]
        in ``seqs`` order. If any forward fails, every group is cut back to its length before
        the step (the layers a failed forward reached had appended a position)."""
        lengths = [g.length for g in self.groups]
        logits = []
        try:
            for g in self.groups:
                out = self.forward(g.adapters(), **g.inputs(self.device))
                g.cache = out.cache
                logits.append(out.logits[:, -1])
        except BaseException:
            for g, length in zip(self.groups, lengths, strict=True):
                kvbatch.truncate(g.cache, length)
            raise
        self.steps += 1
        for s in self.seqs:
            s.fed += 1
        return logits[0] if len(logits) == 1 else torch.cat(logits)

    # -- speculative decoding (``speculative``) -------------------------------------------
    def alone(self) -> Sequence | None:
        """The batch's only sequence if it is one unpadded row, else None."""
        if len(self.groups) != 1 or len(self.groups[0].seqs) != 1:
            return None
        seq = self.groups[0].seqs[0]
        return seq if seq.rows == 1 and self.groups[0].length == seq.fed else None

    @property
    def cache(self):
        """The cache of the batch's first group (the lone row's, for the draft)."""
        return self.groups[0].cache

    def verify(self, seq: Sequence, tokens: list[int]) -> torch.Tensor:
        """Feed ``tokens`` (the pending token, then the draft's guesses) at the lone row's
        next positions in one forward; return the logits after each [len(tokens), vocab].
        The cache then holds them all: ``cut`` keeps what is kept. A failed forward is cut
        back here, as ``decode`` does."""
        cache, length = self.cache, self.length
        try:
            out = self.forward([seq.adapter], input_ids=torch.tensor([tokens], device=self.device),
                               position_ids=torch.arange(length, length + len(tokens),
                                                         device=self.device)[None], cache=cache)
        except BaseException:
            kvbatch.truncate(cache, length)
            raise
        self.steps += 1
        return out.logits[0]

    def cut(self, length: int) -> None:
        """Keep the lone row's first ``length`` positions (what a verified step kept)."""
        kvbatch.truncate(self.cache, length)

    def offsets(self) -> list[int]:
        """Each sequence's first row in the logits ``decode`` returns."""
        return offsets(self.seqs)

    def _group_of(self, seq: Sequence) -> Group:
        return next(g for g in self.groups if any(s is seq for s in g.seqs))

    def reorder(self, seq: Sequence, sources: list[int]) -> None:
        """Beam rows continue from rows ``sources`` (relative to ``seq``'s first row)."""
        if sources != list(range(seq.rows)):
            self._group_of(seq).reorder(seq, sources)

    def remove(self, gone: list[Sequence]) -> None:
        """Take these sequences' rows out of their groups (one indexed copy per layer)."""
        if gone:
            ids = {id(s) for s in gone}
            for g in self.groups:
                g.remove(ids)
            self.groups = [g for g in self.groups if g.seqs]

    def row_kv(self, seq: Sequence):
        """A single-row sequence's KV, detached for the prefix cache."""
        return self._group_of(seq).row_kv(seq)

    def clear(self) -> None:
        self.groups = []

    # -- adapters: built on the admin call's thread, swapped in by the worker -------------
    def tree(self) -> tuple:
        """The running model and a ``clone`` of its module tree: the worker takes it, between
        two steps (no forward is running, so no peft hook is half registered)."""
        return self.model, clone(self.model)

    def with_adapter(self, tree: tuple, key: str, spec, weights) -> Variant:
        """``tree``'s model with a checked LoRA adapter attached under ``key``
        (``adapters.attach``: no initialisation, no base weight written), built on its clone:
        the running model is untouched until ``install``, and untouched if this fails."""
        return Variant.build(tree, lambda m: attach(m, key, spec, weights), self.busy)

    def without_adapter(self, key: str, tree) -> Variant:
        """The running model without the adapter ``key``, built on ``tree()`` (see ``tree``);
        after the last one, the plain model the server started with (kept for this: nothing to
        build)."""
        change = lambda m: detach(m, key)  # noqa: E731
        if self.plain is not None and set(self.model.peft_config) == {key}:
            return Variant(self.model, self.plain, change)
        return Variant.build(tree(), change, self.busy)

    def busy(self) -> bool:
        return bool(self.groups)

    def install(self, variant: Variant) -> None:
        """Make ``variant``'s model the running one (the worker calls this, between steps): a
        pointer swap. One built from a model that has since been replaced (an unload that
        waited for its requests while another load landed) is built again, here."""
        model = variant.model
        if self.model is not variant.origin:
            model = Variant.build(self.tree(), variant.change).model
        from peft import PeftModel  # imported already: the variant was built with it

        self.model = self.m.model = model
        self._is_peft = isinstance(model, PeftModel)
        self._lora_on = None  # the new tree's LoRA switch is set again at the next forward


class Variant:
    """A model built from ``origin`` by ``change``, on a clone of its module tree."""

    def __init__(self, origin, model, change):
        self.origin, self.model, self.change = origin, model, change

    @classmethod
    def build(cls, tree: tuple, change, busy=lambda: False) -> Variant:
        """``tree``: the origin and its clone (``Runner.tree``), which ``change`` changes."""
        origin, model = tree
        with _pausing(busy):
            return cls(origin, change(model).eval(), change)


@contextlib.contextmanager
def _pausing(busy):
    """Building a variant is pure Python (peft walks the module tree) and holds the GIL, which
    the worker needs back after every torch call of a step; it got it only at the interpreter's
    switch interval, so a build stalled streams by two to four steps. While ``busy()`` (streams
    run), the build pauses every ``PAUSE_EVERY`` Python calls and the worker hardly waits; the
    build takes seconds instead of tenths."""
    count = 0
    previous = sys.getprofile()

    def pause(_frame, event, _arg):
        nonlocal count
        if event == "call":
            count += 1
            if count % PAUSE_EVERY == 0 and busy():
                time.sleep(PAUSE_SECONDS)

    sys.setprofile(pause)
    try:
        yield
    finally:
        sys.setprofile(previous)
