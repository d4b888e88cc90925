"""Lexical terms for BM25, in any language, without a word list.

Text is NFKC-folded and lower-cased. Runs of letters and digits are words; a word longer than
``STEM`` characters also counts as its first ``STEM`` characters, a crude stem that lets
"allergic" meet "allergy", "vivimos" meet "vivo" and "umgezogen" meet "umgezogene" in every
language that inflects at the end. Scripts written without spaces (Chinese, Japanese, Thai)
have no words to split, so each run of them counts as its single characters and its
overlapping character pairs. BM25's inverse document frequency does what a stop-word list
would: a word in most messages weighs almost nothing.
"""

from __future__ import annotations

import re
import unicodedata

STEM = 5
_WORD = re.compile(r"\w+")
# Han, kana, Hangul syllables, Thai, Lao, Khmer, Myanmar: no spaces between words
_UNSPACED = re.compile(r"[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf"
                       r"\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+")


def terms(text: str) -> list[str]:
    """The BM25 terms of ``text`` (repeats kept: BM25 counts them)."""
    text = unicodedata.normalize("NFKC", text).lower()
    out: list[str] = []
    for word in _WORD.findall(text):
        pos = 0
        for run in _UNSPACED.finditer(word):  # split a word into its spaced and unspaced parts
            out.extend(_spaced(word[pos:run.start()]))
            chars = run.group()
            out.extend(chars)
            out.extend(chars[i:i + 2] for i in range(len(chars) - 1))
            pos = run.end()
        out.extend(_spaced(word[pos:]))
    return out


def latin_share(text: str) -> float:
    """The share of ``text``'s letters and digits written in the Latin script (1.0 when it has
    none): the shipped sentence-embedding model learned English, and its similarities between
    texts in other scripts are noise, not meaning (docs/memory.md)."""
    chars = [c for c in text if c.isalnum()]
    if not chars:
        return 1.0
    return sum(1 for c in chars if c <= "\u024f") / len(chars)


def _spaced(word: str) -> list[str]:
    if not word:
        return []
    return [word, word[:STEM]] if len(word) > STEM else [word]
