"""Small value objects passed between the routes, the pure core and the engine."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .memory.selection import HistoryPlan


@dataclass(frozen=True)
class SamplingParams:
    """How to generate one reply. Greedy unless ``do_sample`` or ``num_beams > 1``."""

    max_new_tokens: int = 256
    do_sample: bool = False
    temperature: float = 1.0
    top_p: float = 1.0
    top_k: int = 0  # 0: no top-k filter
    seed: int | None = None
    num_beams: int = 1
    length_penalty: float = 1.0
    early_stopping: bool = False
    repetition_penalty: float = 1.0
    no_repeat_ngram_size: int = 0
    presence_penalty: float = 0.0  # OpenAI's: subtracted once from a token the reply holds
    frequency_penalty: float = 0.0  # ...and this, once per time the reply holds it
    # Mnemo's: repetition_penalty's rule over the reply's own tokens, never the prompt's
    # (weighing the earlier replies' tokens too halved echoes but cost quoted facts:
    # docs/benchmarks.md)
    echo_penalty: float = 1.0
    stop: tuple[str, ...] = ()
    json_schema: str | None = None  # the reply must be JSON valid against it (api/structured.py)
    logprobs: int | None = None  # None: none; k: each token's log-probability and its k best

    @property
    def needs_beam_search(self) -> bool:
        return self.num_beams > 1


@dataclass(frozen=True)
class TokenLogprob:
    """A chosen token's log-probability under the distribution it was chosen from (after
    penalties, grammar, temperature, top-k and top-p), with the most likely alternatives."""

    token: int
    logprob: float
    top: tuple[tuple[int, float], ...] = ()



@dataclass(frozen=True)
class Prompt:
    """A rendered prompt: the exact token ids the model sees, and how they were chosen."""

    ids: list[int]
    text: str | None  # rendered only when asked for (previews)
    report: HistoryPlan  # which messages reached the model, and why the others did not
    context_window: int
    max_new_tokens: int
    costs: tuple[int | None, ...] = ()  # each message's tokens as measured (None: not measured)
    shortened: dict[int, str] | None = None  # with the text: each reply cut short, as sent


@dataclass
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def as_dict(self) -> dict:
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "total_tokens": self.total_tokens}


@dataclass
class Chunk:
    """One piece of a generation: a text delta, and on the last piece why it ended."""

    text: str = ""
    finish_reason: str | None = None  # "stop", "length" or "cancelled" on the last chunk
    usage: Usage = field(default_factory=Usage)
    logprobs: list[TokenLogprob] = field(default_factory=list)  # the tokens of ``text``, if asked
