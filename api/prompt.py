"""Render a conversation into token ids with the model's chat template. Pure: no Flask, no torch.

Message text is always tokenized as text. The template is rendered with a sentinel in place
of each message's content; the scaffolding between sentinels is the template's own and is
tokenized with special tokens recognised, while each message's content is tokenized with
``split_special_tokens=True``. A user who types ``<|im_start|>system`` gets the characters,
never the control token.

Each message is tokenized once. Per-message costs come from one render of the candidate window
(behind a stand-in first exchange, so no real message pays for the template's once-only
preamble), the preamble is measured on the latest message alone, and the history is chosen by
``memory.selection.plan_history``. The plan is rendered for real and, should a template not be
per-message (so costs do not add up), planned again with the overflow counted as fixed.
"""

from __future__ import annotations

import re
import sys
from array import array
from collections import OrderedDict
from collections.abc import Sequence
from functools import lru_cache

from jinja2.exceptions import TemplateError

from .admission import pace
from .exceptions import ContextLengthExceeded, ValidationFailed
from .memory.selection import cut_points, plan_history
from .types import Prompt

# Used when a model ships no chat template: plain "role: text" lines.
FALLBACK_TEMPLATE = (
    "{% for message in messages %}{{ message['role'] }}: {{ message['content'] }}\n{% endfor %}"
    "{% if add_generation_prompt %}assistant:{% endif %}"
)

# Private-use code points cannot collide with template text and survive any filter a
# template applies to content (trim, strip, ...).
_SENTINEL = "\ue000{}\ue001"
_SENTINEL_RE = re.compile("\ue000(\\d+)\ue001")

# Message contents tokenized lately (``_Tokens``), at most this many bytes for each API key (or
# for every client, with keys off): a client re-sends its whole history every turn, and
# tokenizing the 40 messages of turn 20 again was 4 of the 7-10 ms a request spent before it
# reached the engine (docs/benchmarks.md).
CACHED_BYTES = 4 << 20
# A recalled exchange's reply is sent cut to its first tokens, with this mark after them: the
# user's message is what recall found, and a reply can be ten times as long (docs/memory.md).
RECALLED_REPLY_TOKENS = 48
ELLIPSIS = " […]"
_ENTRY_BYTES = 160  # an entry's place in its OrderedDict, beyond its text and ids


def _entry_bytes(text: str, ids: array) -> int:
    return sys.getsizeof(text) + sys.getsizeof(ids) + _ENTRY_BYTES


class _Tokens:
    """Token ids of texts tokenized lately, by scope and text. Each scope (an API key's
    tenant, as for recall's embeddings and the prefix cache) has a store of its own, of at
    most ``max_bytes``, its oldest entries evicted first: one key can neither read another's
    entries nor evict them, so it cannot time another key's texts or traffic out of the cache.
    Not thread-safe: the engine builds one prompt at a time (its prompt lock)."""

    def __init__(self, max_bytes: int):
        self.max_bytes = max_bytes
        # by scope, text: the ids and the bytes counted when kept (a string's size can grow
        # later, when something caches another form of it, and must not skew the sum)
        self._entries: dict[str | None, OrderedDict[str, tuple[array, int]]] = {}
        self._bytes: dict[str | None, int] = {}

    def bytes_of(self, scope: str | None) -> int:
        return self._bytes.get(scope, 0)

    def get(self, scope: str | None, text: str) -> list[int] | None:
        entries = self._entries.get(scope)
        kept = entries.get(text) if entries is not None else None
        # a list of the caller's own; ``refresh`` marks what a prompt used, in its order
        return None if kept is None else kept[0].tolist()

    def refresh(self, scope: str | None, texts: Sequence[str]) -> None:
        """Mark ``texts`` used, in this order (the last one most recently)."""
        entries = self._entries.get(scope, {})
        for text in texts:
            if text in entries:
                entries.move_to_end(text)

    def put(self, scope: str | None, text: str, ids: list[int]) -> None:
        kept = array("i", ids)
        size = _entry_bytes(text, kept)
        entries = self._entries.setdefault(scope, OrderedDict())
        if size > self.max_bytes // 16 or text in entries:  # a huge text would evict all
            return
        entries[text] = (kept, size)
        self._bytes[scope] = self._bytes.get(scope, 0) + size
        while self._bytes[scope] > self.max_bytes:
            _text, (_ids, counted) = entries.popitem(last=False)
            self._bytes[scope] -= counted


class PromptBuilder:
    """Turn a validated history into the exact token ids the model will see."""

    def __init__(self, tokenizer, chat_template: str | None = None, cached_bytes: int = CACHED_BYTES):
        self.tokenizer = tokenizer
        self.template = chat_template or getattr(tokenizer, "chat_template", None) or FALLBACK_TEMPLATE
        # A tool's result (api/tools.py) goes under the template's own tool role where it has
        # one; a template that knows no such role gets it as a user turn.
        self.tool_role = "tool" if re.search(r"['\"]tool['\"]", self.template) else "user"
        self._scaffold_ids = lru_cache(maxsize=1024)(self._tokenize_scaffold)
        self._tokens = _Tokens(cached_bytes)

    # -- tokenization -------------------------------------------------------------------
    def _tokenize_scaffold(self, text: str) -> tuple[int, ...]:
        return tuple(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def tokenize_text(self, texts: Sequence[str]) -> list[list[int]]:
        """Tokenize user-supplied text so special-token strings stay plain text."""
        if not texts:
            return []
        return self.tokenizer(list(texts), add_special_tokens=False,
                              split_special_tokens=True)["input_ids"]

    def _content_ids(self, texts: Sequence[str], scope: str | None) -> list[list[int]]:
        """``tokenize_text``, from the cache where a text of ``scope`` was tokenized lately."""
        out: list[list[int] | None] = [self._tokens.get(scope, t) for t in texts]
        todo: dict[str, list[int]] = {}  # each text once, wherever it recurs
        for i, ids in enumerate(out):
            if ids is None:
                todo.setdefault(texts[i], []).append(i)
        pending = list(todo)
        for start in range(0, len(pending), 64):  # in slices: streams come first (``pace``)
            chunk = pending[start:start + 64]
            for text, ids in zip(chunk, self.tokenize_text(chunk), strict=True):
                self._tokens.put(scope, text, ids)
                for i in todo[text]:
                    out[i] = list(ids)
            pace()
        return out

    # -- rendering ----------------------------------------------------------------------
    def _render(self, messages: list[dict], add_generation_prompt: bool = True) -> str:
        messages = [dict(m, role=self.tool_role) if m["role"] == "tool" else m for m in messages]
        try:
            return self.tokenizer.apply_chat_template(
                messages, chat_template=self.template, tokenize=False,
                add_generation_prompt=add_generation_prompt,
            )
        except TemplateError as exc:  # e.g. a template that insists roles alternate
            raise ValidationFailed(f"The model's chat template rejected this history: {exc}",
                                   param="messages") from None

    def _segments(self, messages: list[dict]) -> list[tuple[int | None, str]]:
        """Render with sentinels; return (message index or None, scaffold text) pieces.

        A piece with an index is the scaffolding that precedes that message's content; the
        content itself follows it. A piece with None is trailing scaffolding.
        """
        stand_in = [dict(m, content=_SENTINEL.format(i)) for i, m in enumerate(messages)]
        text = self._render(stand_in)
        pieces: list[tuple[int | None, str]] = []
        pos = 0
        for match in _SENTINEL_RE.finditer(text):
            pieces.append((int(match.group(1)), text[pos:match.start()]))
            pos = match.end()
        pieces.append((None, text[pos:]))
        return pieces

    def _ids(self, messages: list[dict], content_ids: dict[int, list[int]]) -> list[int]:
        ids: list[int] = []
        for index, scaffold in self._segments(messages):
            ids.extend(self._scaffold_ids(scaffold))
            if index is not None:
                ids.extend(content_ids[index])
        return ids

    # -- the whole pipeline ---------------------------------------------------------------
    def _tail_that_can_fit(self, messages: Sequence[dict], first_allowed: int, budget: int,
                           scope: str | None) -> tuple[int, list[list[int]]]:
        """Tokenize contents newest first, in blocks, until they alone overflow the budget.

        Returns the first index still worth considering (a user message, or ``first_allowed``)
        and the content ids from there on. Older messages cannot be in any fitting window, so a
        1,000-message history costs what its fitting tail costs.
        """
        ids: list[list[int]] = []
        total, begin = 0, len(messages)
        while begin > first_allowed and (total <= budget or not ids):  # the latest, always
            end, begin = begin, max(first_allowed, begin - 32)
            block = self._content_ids([m["content"] for m in messages[begin:end]], scope)
            ids[:0] = block
            total += sum(len(b) for b in block)
        if total <= budget:
            return begin, ids
        overflow, acc = len(ids) - 1, 0
        while overflow >= 0:  # the newest message whose suffix alone overflows
            acc += len(ids[overflow])
            if acc > budget:
                break
            overflow -= 1
        cut = min(begin + overflow + 1, len(messages) - 1)
        while cut < len(messages) - 1 and messages[cut]["role"] != "user":  # whole exchanges
            cut += 1
        return cut, ids[cut - begin:]

    def build(self, messages: Sequence[dict], *, system: str | None, max_new_tokens: int,
              context_window: int, max_turns: int | None, with_text: bool = False,
              context: str | None = None, covers: int = 0,
              relevance: dict[int, float] | None = None, links: dict | None = None,
              prefix: str | None = None,
              scope: str | None = None) -> Prompt:
        """Measure, plan (``selection.plan_history``) and render; ``system`` is never trimmed.

        ``context`` is client-supplied text placed before the history as a user message (an
        unsigned summary); ``covers`` leading messages are replaced by a summary; ``relevance``
        (recall) maps each older exchange's start to its relevance to the new message, and
        ``links`` each to the later exchanges it may only come with (``plan_history``).
        ``with_text`` also renders the prompt as text (for previews; generation needs only ids).
        ``prefix`` is the start of the reply, already written (a reply cut short that the model
        continues): tokenized as text after the generation prompt, and paid from the budget.
        ``scope``: the tenant whose cache of tokenized contents this request may use.
        """
        prefix_ids = self.tokenize_text([prefix])[0] if prefix else []
        budget = context_window - max_new_tokens - len(prefix_ids)
        if prefix and budget <= 0:
            if len(prefix_ids) < context_window:
                raise ContextLengthExceeded(
                    f"The reply to continue ({len(prefix_ids)} tokens) and max_new_tokens "
                    f"({max_new_tokens}) together exceed the context window ({context_window}); "
                    f"ask for at most {context_window - len(prefix_ids) - 1} new tokens.",
                    param="max_new_tokens")
            raise ValidationFailed(f"The reply to continue ({len(prefix_ids)} tokens) fills the "
                                   f"model's context window ({context_window}): it cannot be "
                                   "continued.", param="messages")
        roles = [m["role"] for m in messages]
        n, last = len(messages), len(messages) - 1
        head = [{"role": "system", "content": system}] if system else []
        if context:
            head.append({"role": "user", "content": context})
        pinned = [i for i, m in enumerate(messages) if m.get("pinned")]
        floor = max(cut_points(roles, max_turns)[-1], covers)
        # Only a tail that can fit, the pins and (with recall) the older exchanges are tokenized.
        tail, tail_ids = self._tail_that_can_fit(messages, floor, budget, scope)
        content: dict[int, list[int]] = dict(zip(range(tail, n), tail_ids, strict=True))
        # With recall, any older exchange may be chosen, so every message may need measuring.
        older = range(0, tail) if relevance else ()
        todo = sorted((set(pinned) | set(older)) - set(content))
        content.update(zip(todo, self._content_ids([messages[i]["content"] for i in todo], scope),
                           strict=True))
        head_ids = self._content_ids([m["content"] for m in head], scope)
        # The tail was tokenized newest block first: the newest messages are evicted last.
        self._tokens.refresh(scope, [m["content"] for m in head] +
                             [messages[i]["content"] for i in sorted(content)])

        costs = self._costs(messages, head, content)
        fixed = len(self._ids(head + [messages[last]], {**dict(enumerate(head_ids)),
                                                        len(head): content[last]})) - costs[last]
        parts = {}  # what the fixed part holds, to name the cause when it alone overflows
        if system:
            parts["the system prompt"] = len(head_ids[0])
        if context:
            parts["the summary"] = len(head_ids[-1])
        short: dict[int, list[int]] = {}
        if relevance:  # a recalled reply's first tokens, and the mark that it was cut
            mark = self._content_ids([ELLIPSIS], scope)[0]
            short = {i: ids[:RECALLED_REPLY_TOKENS] + mark for i, ids in content.items()
                     if roles[i] == "assistant" and not messages[i].get("calls")  # JSON stays whole
                     and len(ids) > RECALLED_REPLY_TOKENS + len(mark)}
        recalled_costs = [c if c is None or i not in short else c - len(content[i]) + len(short[i])
                          for i, c in enumerate(costs)]
        extra = 0
        while True:  # a template that is not per-message: plan again with the overflow
            plan = plan_history(roles, costs, fixed=fixed + extra, budget=budget,
                                max_turns=max_turns, pinned=pinned, covers=covers,
                                relevance=relevance, links=links, recalled_costs=recalled_costs,
                                parts=parts, reserved=max_new_tokens + len(prefix_ids))
            kept = plan.used
            sent = {i: self._whole_characters(short[i], len(short[i]) - len(mark))
                    if i in plan.shortened else content[i] for i in kept}
            ids = self._ids(head + [messages[i] for i in kept],
                            {**dict(enumerate(head_ids)),
                             **{len(head) + j: sent[i] for j, i in enumerate(kept)}})
            if len(ids) <= budget:
                break
            extra += len(ids) - budget
        text, shown = None, None
        if with_text:
            shown = {i: self.tokenizer.decode(sent[i]) for i in plan.shortened}
            text = self._render(head + [dict(messages[i], content=shown[i]) if i in shown
                                        else messages[i] for i in kept])
        if prefix:
            ids = ids + prefix_ids
            text = None if text is None else text + prefix
        return Prompt(ids=ids, text=text, report=plan, context_window=context_window,
                      max_new_tokens=max_new_tokens, costs=tuple(costs), shortened=shown)

    def _whole_characters(self, ids: list[int], cut: int) -> list[int]:
        """``ids`` (a reply's first ``cut`` tokens, then the mark) less the tokens at the cut
        that hold only part of a character (byte-level tokens split emoji and many scripts)."""
        head, mark = ids[:cut], ids[cut:]
        while len(head) > 1 and self.tokenizer.decode(head[-4:]).endswith("\ufffd"):
            head = head[:-1]
        return head + mark

    def _costs(self, messages: Sequence[dict], head: list[dict],
               content: dict[int, list[int]]) -> list[int | None]:
        """Each measured message's tokens (content and its own scaffolding), from one render of
        the measured messages behind a stand-in exchange, so none pays for the template's
        once-only preamble. Unmeasured messages cost ``None``: they cannot fit."""
        order = sorted(content)
        stand_in = [{"role": "user", "content": "."}]
        if messages[order[0]]["role"] == "user":
            stand_in.append({"role": "assistant", "content": "."})
        probe = head + stand_in + [messages[i] for i in order]
        skip = len(head) + len(stand_in)
        costs: list[int | None] = [None] * len(messages)
        for index, scaffold in self._segments(probe):
            if index is not None and index >= skip:
                i = order[index - skip]
                costs[i] = len(self._scaffold_ids(scaffold)) + len(content[i])
        return costs
