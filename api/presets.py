"""Named prompt presets: a system prompt plus generation defaults a request may override.

``legal`` is the legal-consultation preset of the service Mnemo grew from: its instruction
and its generation settings (beam search 4, repetition penalty 1.2, no repeated 3-grams,
at most 200 new tokens) carry over; its server-side memory does not.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Preset:
    description: str
    system: str | None = None  # None: the model's own default behaviour
    generation: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {"description": self.description, "system": self.system,
                "generation": dict(self.generation)}


PRESETS: dict[str, Preset] = {
    "default": Preset(description="The model's own behaviour, no extra instructions."),
    "legal": Preset(
        description="Legal consultation: a senior legal expert, answers about law only, "
                    "at most 200 characters.",
        system=(
            "【法律咨询任务指令】你是一位资深法律专家，请根据历史对话回答问题。"
            "回答内容必须与法律相关；你的回复内容长度必须小于等于200字。\n"
            "You are a senior legal expert. Answer using the conversation so far. "
            "Your answer must concern law and be at most 200 characters long."
        ),
        generation={"num_beams": 4, "early_stopping": True, "repetition_penalty": 1.2,
                    "length_penalty": 1.0, "no_repeat_ngram_size": 3, "max_new_tokens": 200},
    ),
}
