"""Choose which part of a history fits the model's token budget. Pure: no Flask, no torch.

The history is cut only in whole exchanges, oldest first: the kept window starts on a user
message (or at the very start when everything fits), always keeps the latest user message,
keeps at most ``max_turns`` exchanges, and is the longest such suffix whose tokens fit.
The system prompt is never trimmed: its tokens are part of ``fixed``.
"""

from __future__ import annotations

from collections.abc import Sequence

from .exceptions import ContextLengthExceeded
from .types import TrimReport


def cut_points(roles: Sequence[str], max_turns: int | None) -> list[int]:
    """Return the indices where a kept window may start, newest first, within max_turns."""
    users = [i for i, role in enumerate(roles) if role == "user"]
    if max_turns is not None:
        users = users[-max_turns:] if max_turns > 0 else users[-1:]
    starts = sorted(users, reverse=True)
    # The very start is a valid cut too when no exchange is excluded by max_turns: a history
    # opening with an assistant greeting keeps it while it fits.
    all_users = [i for i, role in enumerate(roles) if role == "user"]
    if len(users) == len(all_users) and starts and starts[-1] != 0:
        starts.append(0)
    return starts


def choose_window(roles: Sequence[str], costs: Sequence[int], fixed: int, budget: int,
                  max_turns: int | None) -> TrimReport:
    """Pick the longest fitting suffix; ``fixed + sum(costs[k:]) <= budget`` must hold.

    ``costs[i]`` is message i's tokens (content and its own template scaffolding), ``fixed``
    the tokens that appear whatever is kept (system prompt, generation prompt), ``budget``
    the context window less the tokens reserved for the reply.
    """
    if len(roles) != len(costs) or not roles or roles[-1] != "user":
        raise ValueError("roles and costs must match and end with a user message")
    starts = cut_points(roles, max_turns)
    n = len(roles)
    first_allowed = starts[-1]
    suffix = [0] * (n + 1)
    for i in range(n - 1, -1, -1):
        suffix[i] = suffix[i + 1] + costs[i]
    need = fixed + suffix[starts[0]]
    if need > budget:
        raise ContextLengthExceeded(
            f"The latest message alone needs {need} prompt tokens, but only {budget} are "
            f"available (context window less max_new_tokens). Shorten the message or ask "
            f"for fewer new tokens.",
            param="messages",
        )
    chosen = starts[0]
    for start in starts[1:]:
        if fixed + suffix[start] > budget:
            break
        chosen = start
    return TrimReport(
        received=n,
        used=n - chosen,
        dropped=chosen,
        dropped_by_max_turns=first_allowed,
        dropped_by_context=chosen - first_allowed,
        first_used=chosen,
    )

