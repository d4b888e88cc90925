"""Small value objects passed between the routes, the pure core and the engine."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field


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
    stop: tuple[str, ...] = ()

    @property
    def needs_beam_search(self) -> bool:
        return self.num_beams > 1


@dataclass(frozen=True)
class TrimReport:
    """What part of the client's history reached the model, and why the rest did not."""

    received: int  # messages the client sent (system prompt not counted)
    used: int  # messages rendered into the prompt
    dropped: int  # oldest messages left out: received - used
    dropped_by_max_turns: int  # of those, left out because of max_turns
    dropped_by_context: int  # of those, left out to fit the context window
    first_used: int  # index in the client's list of the first message used

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Prompt:
    """A rendered prompt: the exact token ids the model sees, and how they were chosen."""

    ids: list[int]
    text: str | None  # rendered only when asked for (previews)
    report: TrimReport
    context_window: int
    max_new_tokens: int


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
