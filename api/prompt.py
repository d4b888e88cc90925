"""Render a conversation into token ids with the model's chat template. Pure: no Flask, no torch.

Message text is always tokenized as text. The template is rendered with a sentinel in place
of each message's content; the scaffolding between sentinels is the template's own and is
tokenized with special tokens recognised, while each message's content is tokenized with
``split_special_tokens=True``. A user who types ``<|im_start|>system`` gets the characters,
never the control token.

Each message is tokenized once. Per-message costs come from one render of the candidate window
(behind a stand-in first exchange, so no real message pays for the template's once-only
preamble), the preamble is measured on the latest message alone, and the window is chosen by
``trimming.choose_window``. The chosen window is rendered for real and, should a template not be
per-message (so costs do not add up), the next older exchange is dropped until it fits.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from jinja2.exceptions import TemplateError

from .exceptions import ContextLengthExceeded, ValidationFailed
from .trimming import choose_window, cut_points
from .types import Prompt, TrimReport

# Used when a model ships no chat template: plain "role: text" lines.
FALLBACK_TEMPLATE = (
    "{% for message in messages %}{{ message['role'] }}: {{ message['content'] }}\n{% endfor %}"
    "{% if add_generation_prompt %}assistant:{% endif %}"
)

# Private-use code points cannot collide with template text and survive any filter a
# template applies to content (trim, strip, ...).
_SENTINEL = "\ue000{}\ue001"
_SENTINEL_RE = re.compile("\ue000(\\d+)\ue001")


class PromptBuilder:
    """Turn a validated history into the exact token ids the model will see."""

    def __init__(self, tokenizer, chat_template: str | None = None):
        self.tokenizer = tokenizer
        self.template = chat_template or getattr(tokenizer, "chat_template", None) or FALLBACK_TEMPLATE
        self._scaffold_ids = lru_cache(maxsize=1024)(self._tokenize_scaffold)

    # -- tokenization -------------------------------------------------------------------
    def _tokenize_scaffold(self, text: str) -> tuple[int, ...]:
        return tuple(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def tokenize_text(self, texts: Sequence[str]) -> list[list[int]]:
        """Tokenize user-supplied text so special-token strings stay plain text."""
        if not texts:
            return []
        return self.tokenizer(list(texts), add_special_tokens=False,
                              split_special_tokens=True)["input_ids"]

    # -- rendering ----------------------------------------------------------------------
    def _render(self, messages: list[dict], add_generation_prompt: bool = True) -> str:
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
    def _tail_that_can_fit(self, messages: Sequence[dict], first_allowed: int,
                           budget: int) -> tuple[int, list[list[int]]]:
        """Tokenize contents newest first, in blocks, until they alone overflow the budget.

        Returns the first index still worth considering (a user message, or ``first_allowed``)
        and the content ids from there on. Older messages cannot be in any fitting window, so a
        1,000-message history costs what its fitting tail costs.
        """
        ids: list[list[int]] = []
        total, begin = 0, len(messages)
        while begin > first_allowed and (total <= budget or not ids):  # the latest, always
            end, begin = begin, max(first_allowed, begin - 32)
            block = self.tokenize_text([m["content"] for m in messages[begin:end]])
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
        while messages[cut]["role"] != "user":  # whole exchanges: start on a user message
            cut += 1
        return cut, ids[cut - begin:]

    def build(self, messages: Sequence[dict], *, system: str | None, max_new_tokens: int,
              context_window: int, max_turns: int | None, with_text: bool = False) -> Prompt:
        """Trim ``messages`` to the budget and render them; ``system`` is never trimmed.

        ``with_text`` also renders the prompt as text (for previews; generation needs only ids).
        """
        budget = context_window - max_new_tokens
        roles = [m["role"] for m in messages]
        head = [{"role": "system", "content": system}] if system else []
        # Only the exchanges max_turns allows, and of those only a tail that can fit, are
        # tokenized and rendered.
        first_allowed = cut_points(roles, max_turns)[-1]
        first_considered, window_ids = self._tail_that_can_fit(messages, first_allowed, budget)
        window = list(messages[first_considered:])
        content_ids = self.tokenize_text([m["content"] for m in head]) + window_ids
        # Index space for rendering: 0 = system (if any), then the window's messages.
        offset = len(head)

        # Per-message costs, measured behind a stand-in exchange.
        stand_in = [{"role": "user", "content": "."}]
        if window[0]["role"] == "user":
            stand_in.append({"role": "assistant", "content": "."})
        probe = head + stand_in + window
        shift = len(stand_in)
        costs = [0] * len(window)
        for index, scaffold in self._segments(probe):
            if index is None:
                continue
            real = index - offset - shift
            if real >= 0:
                costs[real] = len(self._scaffold_ids(scaffold)) + len(content_ids[real + offset])
        # Fixed cost: the prompt with only the latest message, less that message's own cost.
        last_only = head + window[-1:]
        ids_last = self._ids(last_only, {**{i: content_ids[i] for i in range(offset)},
                                         offset: content_ids[offset + len(window) - 1]})
        fixed = len(ids_last) - costs[-1]

        report = choose_window([m["role"] for m in window], costs, fixed, budget, max_turns=None)
        start = report.first_used
        while True:
            kept = window[start:]
            ids = self._ids(head + kept, {**{i: content_ids[i] for i in range(offset)},
                                           **{offset + j: content_ids[offset + start + j]
                                              for j in range(len(kept))}})
            if len(ids) <= budget:
                break
            later = [i for i in range(start + 1, len(window)) if window[i]["role"] == "user"]
            if not later:
                raise ContextLengthExceeded(
                    f"The prompt needs {len(ids)} tokens, but only {budget} are available "
                    f"(context window {context_window} less max_new_tokens {max_new_tokens}).",
                    param="messages")
            start = later[0]
        text = self._render(head + kept) if with_text else None
        received = len(messages)
        first_used = first_considered + start
        return Prompt(
            ids=ids, text=text,
            report=TrimReport(received=received, used=received - first_used, dropped=first_used,
                              dropped_by_max_turns=first_allowed,
                              dropped_by_context=first_used - first_allowed,
                              first_used=first_used),
            context_window=context_window, max_new_tokens=max_new_tokens,
        )
