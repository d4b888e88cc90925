"""The worker's stages: prefill what the plan says, decode the batch, emit and store.

``Scheduler`` (``scheduler``) decides: it keeps the one record of the requests, plans each step
and preempts; ``Stages`` carries a step out on what it is handed (the plan, the sequences it
names) with the runner and its batch, the output processor and the prefix cache, and moves
each sequence's ``state`` on. It tells the scheduler what it cannot decide itself (a decode
step out of memory: whom to preempt) by its return value. Each stage catches failures for the
requests it touches and for no others.
"""

from __future__ import annotations

import logging
import threading
import time

import torch

from . import batch as kvbatch
from . import prefill
from .kvbuffer import new_cache
from .output import Output
from .policy import MIN_CHUNK
from .prefix_cache import PrefixCache
from .request import Sequence, State
from .runner import Runner
from .sampling import sample
from .speculative import accepted

log = logging.getLogger("mnemo.engine")

STEP_SECONDS = 0.2  # the prefill work one step may add while others stream (auto chunk size)
MAX_STEP_TOKENS = prefill.MAX_GROUP_TOKENS


class Stages:
    """Runs each step's prefill and decode; ``step_tokens`` is the prefill work a step may add
    while others stream, re-measured after each chunk unless ``fixed_chunk`` sets it."""

    def __init__(self, runner: Runner, output: Output, prefix: PrefixCache,
                 stop: threading.Event, fixed_chunk: int = 0):
        self.runner, self.output, self.prefix, self.stop = runner, output, prefix, stop
        self.fixed_chunk = fixed_chunk
        self.step_tokens = fixed_chunk or 128

    # -- prefill ------------------------------------------------------------------------
    def prefill(self, plan, prefilling: list[Sequence]) -> None:
        """Run the plan's prefill work, unless a long prompt (of ``prefilling``) finished its
        chunks last step: then this step only joins it to the batch (a copy of the batch's KV
        as long as that prompt), so a step never adds a chunk and a join to a running stream's
        wait."""
        if plan is None:
            return
        done = [s for s in prefilling if s.logits is not None]
        for seq in done:
            self._join_prefilled(seq, seq.logits)
        if done:
            return
        whole, chunks = [], []
        for seq, n in plan.prefill:
            if seq.state is State.WAITING and n == seq.to_prefill and not seq.solo:
                whole.append(prefill.Pending(seq, seq.history, seq.reuse, seq.kv, seq.handed_over))
            else:
                chunks.append((seq, n))
        for group in prefill.groups(whole):
            self._prefill_group(group)
        for seq, n in chunks:
            self._prefill_chunk(seq, n)

    def _prefill_group(self, group: list[prefill.Pending]) -> None:
        seqs = [p.seq for p in group]
        try:
            logits, cache = self.runner.prefill_group(group)
        except Exception as exc:
            if len(group) > 1:  # find the culprit: each is retried alone at the next step
                log.exception("group prefill of %d requests failed; retrying each alone", len(group))
                for seq in seqs:  # still waiting: the next steps prefill each alone
                    seq.solo = True
            else:
                log.exception("prefill failed for one request")
                self.output.fail(seqs[0], exc)
            return
        for seq in seqs:
            seq.fed, seq.kv = len(seq.history), None
        self._started(seqs, logits, cache)

    def _prefill_chunk(self, seq: Sequence, n: int) -> None:
        if seq.state is State.WAITING:
            seq.state, seq.fed = State.PREFILLING, seq.reuse
            seq.cache = new_cache(seq.kv, seq.reuse, owned=seq.handed_over,
                                  reserve=len(seq.history), dtype=self.runner.kv_dtype)
            seq.kv = None
        started = time.perf_counter()
        try:
            logits = self.runner.prefill_chunk(seq, n)
        except Exception as exc:
            log.exception("prefill failed for one request")
            self.output.fail(seq, exc)
            return
        self._measure(n, time.perf_counter() - started)
        if logits is not None:
            if self.runner.seqs:  # join at the next step: joining copies the batch's KV
                seq.logits = logits
                return
            self._join_prefilled(seq, logits)

    def _join_prefilled(self, seq: Sequence, logits: torch.Tensor) -> None:
        cache, seq.cache, seq.logits = seq.cache, None, None
        self._started([seq], logits, cache)

    def _measure(self, tokens: int, seconds: float) -> None:
        """Size the next chunk so a step's prefill stays near STEP_SECONDS at this speed."""
        if not self.fixed_chunk and tokens >= MIN_CHUNK and seconds > 0:
            self.step_tokens = max(MIN_CHUNK, min(MAX_STEP_TOKENS, int(STEP_SECONDS * tokens / seconds)))

    def _started(self, seqs: list[Sequence], logits: torch.Tensor, cache) -> None:
        """Prefilled sequences (row i of ``logits``/``cache``): first token, then join the batch."""
        for seq in seqs:
            seq.state = State.RUNNING
        singles = [i for i, s in enumerate(seqs) if not s.beams]
        tokens = self._sample([seqs[i] for i in singles], logits[singles] if singles else None)
        rows, joining = [], []
        for i, seq in enumerate(seqs):
            if seq.beams:
                # its prompt's KV, copied before the beams share it out: the prompt may have
                # taken its conversation's entry, and the next turn starts from this prompt
                self._store_row(seq, cache, i, copy=True)
                if self._beam_step(seq, logits[i:i + 1]) is None:
                    continue
                rows += [i] * seq.rows  # every beam starts from the prompt's row
            else:
                token = tokens.get(seq)
                if token is None:
                    continue
                if seq.handle.request.share_prompt:  # for the other choices of this prompt
                    self._store_row(seq, cache, i, copy=True)
                if self.output.accept(seq, token):
                    self._store_row(seq, cache, i)
                    continue
                rows.append(i)
            joining.append(seq)
        if not joining:
            return
        drop_left = kvbatch.cache_length(cache) - max(s.fed for s in joining)
        try:  # both build new buffers before anything takes them: the batch is untouched
            if rows != list(range(len(seqs))) or drop_left:
                kvbatch.select(cache, rows, drop_left)  # one indexed copy; none for a lone prompt
            self.runner.join(joining, cache)
        except Exception as exc:
            log.exception("joining %d request(s) to the batch failed", len(joining))
            for seq in joining:
                self.output.fail(seq, exc)

    # -- decode -------------------------------------------------------------------------
    def decode(self, others_wait: bool) -> Sequence | None:
        """One decode step of the batch (speculative for a lone row when nothing else waits,
        ``others_wait`` false). Out of memory with a request to spare: nothing is decoded, and
        the newest preemptible request is returned for the scheduler to preempt."""
        lone, drafts = self._draft(others_wait)
        try:  # both roll the KV back themselves if they fail
            if drafts:
                logits = self.runner.verify(lone, [*lone.next_tokens, *drafts])
            else:
                logits = self.runner.decode()
        except torch.OutOfMemoryError:
            by_age = sorted(self.runner.seqs, key=lambda s: s.order)
            victim = next((s for s in reversed(by_age[1:]) if s.preemptible), None)
            if victim is not None:
                return victim
            log.exception("out of memory in a decode step with nothing to preempt")
            self._fail_running(torch.OutOfMemoryError("out of memory"))
            return None
        except Exception as exc:
            log.exception("decode step failed; ending the %d running requests", len(self.runner.seqs))
            self._fail_running(exc)
            return None
        if drafts:
            self._keep_verified(lone, drafts, logits)
        else:
            self._advance(logits)
        return None

    # -- speculative decoding (``speculative``) -----------------------------------------
    def _draft(self, others_wait: bool) -> tuple[Sequence | None, list[int]]:
        """The lone row and the draft's guesses for it, when this step speculates: a greedy
        row without penalties or adapter, decoding alone while nothing waits (a speculative
        step takes about three plain ones, and a newcomer should not wait for it)."""
        draft = self.runner.m.draft
        seq = self.runner.alone() if draft is not None else None
        if seq is None or seq.beams or seq.adapter is not None or seq.sampler.do_sample \
                or seq.sampler.processors or seq.sampler.grammar is not None \
                or seq.sampler.logprobs is not None or others_wait:
            return None, []
        room = min(seq.params.max_new_tokens - seq.usage.completion_tokens,
                   self.runner.m.context_window - len(seq.history)) - 1
        count = min(draft.k, room)
        if count < 1:
            return None, []
        try:
            return seq, draft.propose(self.runner.cache, seq.next_tokens[0], seq.fed, count)
        except torch.OutOfMemoryError:  # may pass: this step decodes plainly, the next tries again
            log.warning("out of memory in the draft; this step decodes without speculation")
            return None, []
        except Exception:
            log.exception("the draft failed; decoding without speculation from now on")
            self.runner.m.draft = None
            return None, []

    def _keep_verified(self, seq: Sequence, drafts: list[int], logits: torch.Tensor) -> None:
        """Emit the guesses the float model agrees with and its own next token
        (``speculative.accepted``), up to the one that ends the reply; cut the KV to them."""
        targets = logits.argmax(dim=-1).tolist()  # greedy, as ``sample`` is for this row
        kept = accepted(drafts, targets)
        self.runner.m.draft.learn(len(drafts), kept)
        finished = False
        for token in [*drafts[:kept], targets[kept]]:
            seq.fed += 1  # the token before it is in the KV
            if self.output.accept(seq, token):
                finished = True
                break
        self.runner.cut(seq.fed)
        if finished:
            self.store(seq)
            self.remove([seq])

    def _fail_running(self, exc: BaseException) -> None:
        for seq in self.runner.seqs:
            self.output.fail(seq, exc)
        self.runner.clear()

    def _advance(self, logits: torch.Tensor) -> None:
        """Sample every single row, step every beam group, emit, and drop finished rows."""
        seqs, offsets = self.runner.seqs, self.runner.offsets()
        singles = [(s, at) for s, at in zip(seqs, offsets, strict=True) if not s.beams]
        index = torch.tensor([at for _, at in singles], device=logits.device)
        tokens = self._sample([s for s, _ in singles], logits.index_select(0, index) if singles else None)
        gone = []
        for seq, at in zip(seqs, offsets, strict=True):
            if seq.beams:
                sources = self._beam_step(seq, logits[at:at + seq.rows])
                if sources is not None:
                    try:
                        self.runner.reorder(seq, sources)
                    except Exception as exc:  # only this request's rows were being copied
                        log.exception("reordering beams failed for one request")
                        self.output.fail(seq, exc)
                        sources = None
                if sources is None:
                    gone.append(seq)
            elif seq not in tokens or self.output.accept(seq, tokens[seq]):
                gone.append(seq)
                if seq in tokens:
                    self.store(seq)
        self.remove(gone)

    def remove(self, gone: list[Sequence]) -> None:
        """Drop ended rows; if that fails (out of memory copying the rest), the batch's state
        is unknown, so every request still in it ends with the error."""
        try:
            self.runner.remove(gone)
        except Exception as exc:
            log.exception("removing finished rows failed; ending the running requests")
            self._fail_running(exc)

    def _sample(self, seqs: list[Sequence], logits) -> dict[Sequence, int]:
        """Sample all rows at once; if that fails, row by row, failing only rows that fail.
        A row with a grammar then moves its grammar past the token chosen."""
        if not seqs:
            return {}
        try:
            drawn = sample(logits, [s.sampler for s in seqs], [s.history for s in seqs])
            out = dict(zip(seqs, drawn, strict=True))
        except Exception:
            log.exception("batched sampling failed; sampling row by row")
            out = {}
            for i, seq in enumerate(seqs):
                try:
                    out[seq] = sample(logits[i:i + 1], [seq.sampler], [seq.history])[0]
                except Exception as exc:
                    log.exception("sampling failed for one request")
                    self.output.fail(seq, exc)
        for seq in [s for s in out if s.sampler.grammar is not None]:
            try:
                seq.sampler.grammar.advance(out[seq])
            except Exception as exc:
                self.output.fail(seq, exc)
                del out[seq]
        return out

    def _beam_step(self, seq: Sequence, logits: torch.Tensor) -> list[int] | None:
        """One beam step; None when the search ended (its reply sent) or failed."""
        interrupted = time.monotonic() >= seq.handle.deadline or self.stop.is_set()
        try:
            sources = seq.beams.step(logits, seq.history, interrupted)
        except Exception as exc:
            log.exception("beam step failed for one request")
            self.output.fail(seq, exc)
            return None
        seq.usage.completion_tokens = len(seq.beams.running[0])
        if seq.beams.done:
            self.output.beams_done(seq)
            return None
        seq.next_tokens = [r[-1] for r in seq.beams.running]
        return sources

    # -- the prefix cache ---------------------------------------------------------------
    def store(self, seq: Sequence) -> None:
        """Keep a finished running sequence's KV in the prefix cache."""
        self._store_row(seq, None, None)

    def _store_row(self, seq: Sequence, cache, row: int | None, copy: bool = False) -> None:
        """Keep a finished single-row sequence's KV (``copy``: a copy of row ``row`` of a cache
        still in use); a failure only loses the cache entry."""
        if not seq.keeps_kv:
            return
        try:
            if cache is None:
                kv = self.runner.row_kv(seq)
            else:
                kv = kvbatch.row_kv(cache, row, seq.fed, copy=copy)
            self.prefix.store(seq.cache_owner, seq.history[:seq.fed], kv)
        except Exception:
            log.exception("storing a finished request's KV failed; the cache entry is lost")

    def store_unstarted(self, seq: Sequence) -> None:
        """Give back what a request that ends before it runs holds of its conversation: the
        cache entry it was handed while WAITING, or the positions its chunked prefill computed
        so far. Otherwise a turn cancelled or timed out in the queue would leave the
        conversation's next turn to recompute its whole history.

        The entry goes back exactly as it was taken (its own ids and length), never shortened
        to what this request matched: other requests may still be reading its buffers, and
        the cache hands an entry over only to a prompt that overwrites less than any reader
        reads of it (``PrefixCache.lookup``), which holds only for its whole length."""
        if not seq.keeps_kv:
            return
        if seq.state is State.PREFILLING and seq.cache is not None and seq.fed:
            self._store_row(seq, seq.cache, 0)
        elif seq.state is State.WAITING and seq.handed_over and seq.kv.ids is not None:
            try:
                self.prefix.store(seq.cache_owner, seq.kv.ids.tolist(), seq.kv)
            except Exception:
                log.exception("giving back a cache entry failed; the entry is lost")
        seq.kv, seq.cache, seq.handed_over = None, None, False
