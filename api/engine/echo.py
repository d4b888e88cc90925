"""Mnemo's repetition guard (``echo_penalty``): a reply should neither loop nor repeat an
earlier reply of its conversation, and still quote what the conversation holds exactly.

Two rules, one processor:

- **Its own tokens** are weighed with ``repetition_penalty``'s rule (a positive score divided
  by the penalty, a negative one multiplied), never the prompt's: the user's words stay free to
  quote. A reply copying a passage of the prompt (its last ``COPY_RUN`` tokens occur there)
  keeps that passage's next token free, so an identifier quoted from the conversation is not
  bent where its pieces repeat ("-", digits, "/"): bench/exact_facts.py.
- **Earlier replies' prose is not written again.** Where the reply has written again a passage
  of an earlier reply (``SamplingParams.replies``: where the prompt holds them) of at least
  ``ECHO_RUN`` tokens and ``ECHO_WORDS`` words, the token that continued that passage there
  loses ``echo_strength`` logits, growing by ``ECHO_GROWTH`` with each further word (as
  llama.cpp's DRY sampler grows its penalty with the match): a passage the model merely
  drifts into is left, one it is sure of (a name asked for again) costs more words before it
  is. The penalty is finite: a grammar that allows only that token still gets it. Counting
  words as well as tokens keeps names free longer ("the Whispering Pines Campground" is four
  words in eight tokens). Only prose: the whole shared passage and that token hold letters,
  spaces and sentence punctuation, no digit, symbol, glued ".:" or "-" outside a word (an
  identifier, URL, e-mail, command, call, JSON or number goes on being copied); a passage the
  user's or system's text holds is a quote, not an echo (compared as text, so a token
  boundary does not matter); and a character cut across byte tokens (CJK) is read whole.
  Only above 1: ``echo_penalty`` 1 turns both rules off, below 1 the earlier-replies rule is
  off. bench/repetition.py measures both.
"""

from __future__ import annotations

import re

import torch

# How many of the reply's last tokens must match the prompt for the next token of that
# passage to be a copy that the own-token penalty leaves free.
COPY_RUN = 3
# How long a passage of an earlier reply the reply must have written again before the token
# that followed it there is penalised: at least ECHO_RUN tokens and ECHO_WORDS words (a CJK
# character counts as a word), so the 8-word runs that read as an echo ("I'm so glad you're
# here! How can I help...") rarely form, and a name or a short phrase recurs freely.
ECHO_RUN = 6
ECHO_WORDS = 5
# The penalty at ECHO_WORDS words, in logits, is ECHO_SCALE * (echo_penalty - 1): 2 at the
# default 1.2 (x5 after the default temperature of 0.2); each further word multiplies it by
# ECHO_GROWTH (2, 3.5, 6.1, 10.7 at 5 to 8 words).
ECHO_SCALE = 10.0
ECHO_GROWTH = 1.75
# How far back a passage is followed to count its words, and how many of its places in the
# earlier replies are looked at (the latest ones): a history that repeats one passage
# thousands of times costs no more.
_LOOK_BACK = 32
_PLACES = 16

# What prose is not: a digit, "_", a symbol, or ".", ":" glued to what follows, or a "-" that
# does not join two letters (a URL, an e-mail, a version, "XK-4471", "--flag"). Letters of any
# script, spaces, apostrophes, "&", dashes, Markdown's "*" (emphasis, bullets), hyphenated
# words ("skin-less") and sentence punctuation are prose.
_NOT_PROSE = re.compile(r"[\d_]|[^\w\s'’,.!?;:&*\"“”«»()\-–—，。！？；：、…（）]|[.:]\w"
                        r"|(?<![^\W\d_])-\w")
_LETTER = re.compile(r"[^\W\d_]")
_WORD = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]|[^\W_]+(?:['’-][^\W_]+)*")


def is_prose(text: str) -> bool:
    """Whether ``text`` reads as words, not as an identifier (a cut multi-byte character at
    either end, shown as U+FFFD, is ignored)."""
    text = text.strip("\ufffd")
    return bool(text) and not _NOT_PROSE.search(text)


# How many tokens of an earlier reply's passage are read past the run, at most, to finish a
# character cut across byte tokens (a CJK character can take three).
_CHAR_TOKENS = 4


def _runs(ids: list[int], spans, n: int) -> dict[tuple[int, ...], list[tuple[int, int]]]:
    """Each run of ``n`` tokens inside one of ``spans`` (start, end) and followed by a token
    there: where it starts, and where its span starts."""
    at: dict[tuple[int, ...], list[tuple[int, int]]] = {}
    for start, end in spans:
        for i in range(start, end - n):
            at.setdefault(tuple(ids[i:i + n]), []).append((i, start))
    return at


class EchoPenalty:
    """The guard over one row (or one beam request's rows); ``decode`` turns ids into text
    (without it, the earlier-replies rule is off)."""

    def __init__(self, penalty: float, prompt_len: int, replies=(), decode=None):
        self.penalty, self.prompt_len = penalty, prompt_len
        self.replies = tuple(replies) if decode is not None and penalty > 1 else ()
        self.decode = decode
        self.strength = ECHO_SCALE * (penalty - 1)
        self.prompt: list[int] = []
        self.copies: dict[tuple[int, ...], list[int]] | None = None  # built on the first step
        self.echoes: dict[tuple[int, ...], list[tuple[int, int]]] = {}  # ...and these
        self.told = ""  # the user's and system's text (everything between the replies)
        self._passages: dict[tuple[int, int], int] = {}  # (start, at): words, 0 if not an echo

    def _index(self, prompt: list[int]) -> None:
        self.prompt = prompt
        after: dict[tuple[int, ...], set[int]] = {}
        for i in range(len(prompt) - COPY_RUN):
            after.setdefault(tuple(prompt[i:i + COPY_RUN]), set()).add(prompt[i + COPY_RUN])
        self.copies = {run: sorted(ids) for run, ids in after.items()}
        self.echoes = _runs(prompt, self.replies, ECHO_RUN)
        if self.echoes:
            edges = [0] + [x for span in self.replies for x in span] + [len(prompt)]
            self.told = "\n".join(self.decode(prompt[a:b])
                                  for a, b in zip(edges[::2], edges[1::2], strict=True))

    def _words(self, start: int, at: int, end: int) -> int:
        """The words of the passage ``start``..``at`` of an earlier reply (ending at ``end``)
        if writing the token at ``at`` after it would echo prose, else 0: that token adds a
        letter (read with as many next tokens as finish a character cut across byte tokens),
        the passage with it reads as prose, and the user's or system's text does not hold it."""
        if (start, at) not in self._passages:
            before = self.decode(self.prompt[start:at]).rstrip("\ufffd")
            for k in range(at + 1, min(end, at + _CHAR_TOKENS) + 1):
                text = self.decode(self.prompt[start:k])
                if not text.endswith("\ufffd"):
                    break
            added = text[len(before):] if text.startswith(before) else text
            echo = (bool(_LETTER.search(added)) and is_prose(text)
                    and text.strip().strip("\ufffd") not in self.told)
            self._passages[start, at] = len(_WORD.findall(before)) if echo else 0
        return self._passages[start, at]

    def _echo_penalties(self, reply: list[int]) -> dict[int, float]:
        """The tokens that would go on writing an earlier reply's prose after ``reply``, each
        with its penalty (the longest such passage decides)."""
        out: dict[int, float] = {}
        for i, span_start in self.echoes.get(tuple(reply[-ECHO_RUN:]), ())[-_PLACES:]:
            at = i + ECHO_RUN  # the token that followed the passage there
            start, r = i, len(reply) - ECHO_RUN  # follow the shared passage back
            while (start > span_start and r > 0 and at - start < _LOOK_BACK
                   and self.prompt[start - 1] == reply[r - 1]):
                start, r = start - 1, r - 1
            end = next(e for s, e in self.replies if s <= i < e)
            words = self._words(start, at, end)
            if words >= ECHO_WORDS:
                amount = self.strength * ECHO_GROWTH ** min(words - ECHO_WORDS, 24)
                token = self.prompt[at]
                out[token] = max(out.get(token, 0.0), amount)
        return out

    def __call__(self, input_ids: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        ids = input_ids[:, self.prompt_len:]
        if not ids.shape[1]:
            return scores
        chosen = scores.gather(1, ids)
        chosen = torch.where(chosen < 0, chosen * self.penalty, chosen / self.penalty)
        out = scores.scatter(1, ids, chosen)
        if ids.shape[1] >= COPY_RUN:
            if self.copies is None:
                self._index(input_ids[0, :self.prompt_len].tolist())
            for row, tail in enumerate(ids[:, -COPY_RUN:].tolist()):
                free = self.copies.get(tuple(tail))
                if free:
                    out[row, free] = scores[row, free]
        if self.echoes and ids.shape[1] >= ECHO_RUN:
            for row, reply in enumerate(ids.tolist()):
                for token, amount in self._echo_penalties(reply).items():
                    out[row, token] -= amount
        return out
