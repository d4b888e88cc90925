"""What the engine knows about one request: the caller's Handle and the worker's Sequence.

A ``Handle`` is the caller's side: an iterator of Chunks and a ``cancel()``. A ``Sequence`` is
the worker's record of the same request, with its state:

    WAITING -> PREFILLING -> RUNNING
       ^                        |
       +------- preempted ------+   (its KV is dropped; it is recomputed from its history)

and ends, from any state, when its handle is ``done`` (its last Chunk or its error was put):
that one flag is what "finished" means.

Every stage of the worker (``scheduler``) acts on sequences, so a failure anywhere ends exactly
the sequences it touched, whatever their state, and frees their places.
"""

from __future__ import annotations

import enum
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ..types import Chunk, SamplingParams, Usage
from .beams import BeamSearch
from .decoding import IncrementalDecoder, StopMatcher
from .grammar import JsonConstraint
from .sampling import RowSampler


@dataclass
class GenRequest:
    prompt_ids: list[int]
    params: SamplingParams
    adapter: str | None = None
    tenant: str | None = None  # whose prefix cache entries it may use (an API key's id)
    # Whether its KV is kept in the prefix cache once it ends. A compaction's summary prompt is
    # never sent again (the next one has another system prompt), so keeping it would only
    # evict the conversation's own entry, which its next turn needs.
    keep_kv: bool = True
    # The first of several choices of one prompt (``n``): its prompt's KV goes to the prefix
    # cache as soon as it is prefilled, so the others, submitted once it ``started``, reuse it.
    share_prompt: bool = False


class Handle:
    """A submitted request: iterate for Chunks; ``cancel()`` stops it at the next step."""

    def __init__(self, request: GenRequest, timeout: float):
        self.request = request
        self.deadline = time.monotonic() + timeout
        self.cancelled = threading.Event()
        self.first_token_at: float | None = None
        self.started = threading.Event()  # its first token is out, or it ended
        self.submitted_at = time.monotonic()
        self.done = False  # its last Chunk (or its error) has been put; set by the worker only
        self._out: queue.SimpleQueue = queue.SimpleQueue()

    def cancel(self) -> None:
        self.cancelled.set()

    def put(self, item: Chunk | BaseException) -> None:
        self._out.put(item)

    def __iter__(self):
        return self.items()

    def items(self, check: Callable[[], None] | None = None, every: float = 0.5):
        """The Chunks, raising the error that ended the request. ``check`` is called every
        ``every`` seconds until the last Chunk, whether Chunks arrive meanwhile or not."""
        due = time.monotonic() + every
        while True:
            try:
                item = self._out.get(timeout=max(0.0, due - time.monotonic())) if check \
                    else self._out.get()
            except queue.Empty:
                item = None
            if check is not None and time.monotonic() >= due:
                check()
                due = time.monotonic() + every
            if item is None:
                continue
            if isinstance(item, BaseException):
                raise item
            yield item
            if item.finish_reason is not None:
                return


class State(enum.Enum):
    WAITING = "waiting"
    PREFILLING = "prefilling"
    RUNNING = "running"


@dataclass(eq=False)
class Sequence:
    """One request inside the worker: its tokens, its KV position and its decoding state."""

    handle: Handle
    order: int  # arrival order: preemption takes the newest, admission the oldest
    sampler: RowSampler
    decoder: IncrementalDecoder
    stopper: StopMatcher
    history: list[int]  # prompt and accepted ids (for beams: the prompt only)
    beams: BeamSearch | None = None
    state: State = State.WAITING
    fed: int = 0  # ids of history in the KV cache
    usage: Usage = field(default_factory=Usage)
    next_tokens: list[int] = field(default_factory=list)  # to feed at the next step, per row
    cache: object = None  # its own KV while PREFILLING (a Cache of one row)
    reuse: int = 0  # history ids whose KV the prefix cache gave (``kv``) while WAITING
    kv: object = None  # that RowKV
    handed_over: bool = False  # ``kv`` is this request's to write into
    logits: object = None  # its last prompt position's logits, once all is fed, until it joins
    solo: bool = False  # prefill alone (its group's forward failed once)
    logprobs: list = field(default_factory=list)  # (TokenLogprob, where its text starts) unsent
    decoded: int = 0  # characters of reply text decoded so far
    sent: int = 0  # ...and sent (stop strings hold some back)

    @classmethod
    def of(cls, handle: Handle, order: int, tokenizer, device, eos_ids,
           context_window: int) -> Sequence:
        """Build the record; raises on parameters the sampler refuses (only this request)."""
        req = handle.request
        p = req.params
        beams = None
        if p.needs_beam_search:
            beams = BeamSearch(p, prompt_len=len(req.prompt_ids), eos_ids=eos_ids, device=device)
            beams.max_length = min(beams.max_length, context_window)
        grammar = JsonConstraint(p.json_schema, tokenizer, eos_ids) if p.json_schema else None
        return cls(handle=handle, order=order,
                   sampler=RowSampler(p, device, len(req.prompt_ids), grammar),
                   decoder=IncrementalDecoder(tokenizer), stopper=StopMatcher(p.stop),
                   history=list(req.prompt_ids), beams=beams,
                   usage=Usage(prompt_tokens=len(req.prompt_ids)))

    @property
    def params(self) -> SamplingParams:
        return self.handle.request.params

    @property
    def adapter(self) -> str | None:
        return self.handle.request.adapter

    @property
    def cache_owner(self) -> tuple[str | None, str | None]:
        return self.handle.request.tenant, self.handle.request.adapter

    @property
    def keeps_kv(self) -> bool:
        """Whether its KV goes to the prefix cache when it ends (``GenRequest.keep_kv``)."""
        return self.handle.request.keep_kv

    @property
    def rows(self) -> int:
        """Rows of the running batch it takes: one, or one per beam."""
        return self.beams.num_beams if self.beams else 1

    @property
    def length(self) -> int:
        """Its KV positions once prefilled (what it adds to the batch's padded length)."""
        return max(self.fed, len(self.history))

    @property
    def preemptible(self) -> bool:
        return self.beams is None  # beams' rows differ; recomputing them is not done (yet)

    @property
    def to_prefill(self) -> int:
        """History ids not yet in its KV."""
        return len(self.history) - max(self.fed, self.reuse)

    def preempt(self) -> None:
        """Drop its KV; it waits again and recomputes its whole history when readmitted."""
        self.state, self.fed, self.cache, self.next_tokens = State.WAITING, 0, None, []
        self.logits = None
        self.reuse, self.kv, self.handed_over = 0, None, False
