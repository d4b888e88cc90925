"""One request object for both chat APIs: what each API's schema produces.

``/api/chat`` and ``/v1/chat/completions`` differ in their wire format only; once validated, each
becomes a ``ChatRequest`` (messages, memory fields, generation parameters, the preset they run
under) and goes through the same service. ``resolve`` applies the preset: its defaults under
the client's values, and its lock over them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .exceptions import PresetLocked
from .fields import sampling_params
from .memory.summary import Summary
from .presets import Preset
from .types import SamplingParams


@dataclass(frozen=True)
class ChatRequest:
    messages: list[dict]  # {"role", "content", "pinned"?}, oldest first, ending with the user's
    preset: Preset
    system: str | None  # the client's own system prompt (after the preset's)
    params: SamplingParams
    max_turns: int | None
    adapter: str | None
    summary: Summary | None  # what the client sent; verified when the prompt is built
    compact: bool  # summarise after the reply when the history nears its budget
    recall: bool  # recall older exchanges relevant to the new message
    stream: bool = False
    continue_reply: bool = False  # the last message is a reply cut short, to be continued
    conversation_id: str | None = None
    model: str | None = None  # /v1: the model named (the base model, or an adapter's name)


def resolve(preset: Preset, *, sent: Iterable[str], generation: dict, max_new_tokens_limit: int,
            default_max_new_tokens: int, system: str | None, compact: bool | None,
            recall: bool | None, **rest) -> ChatRequest:
    """Apply ``preset`` to a validated request; ``sent`` names the settings the client sent."""
    sent = set(sent)
    if preset.locked and system:
        raise PresetLocked(f"The preset {preset.name!r} is locked: its system prompt cannot be "
                           "replaced or extended. Leave out the system prompt.", param="system")
    refused = sorted(sent & set(preset.locked_settings))
    if refused:
        raise PresetLocked(f"The preset {preset.name!r} locks {', '.join(refused)}: leave "
                           f"{'it' if len(refused) == 1 else 'them'} out.", param=refused[0])
    defaults = dict(preset.generation)
    if "max_new_tokens" in defaults:  # a preset never asks for more than this server allows
        defaults["max_new_tokens"] = min(defaults["max_new_tokens"], max_new_tokens_limit)
    params = sampling_params(generation, defaults, default_max_new_tokens)
    return ChatRequest(preset=preset, system=system or None, params=params,
                       compact=preset.compact if compact is None else compact,
                       recall=preset.recall if recall is None else recall, **rest)
