"""Choose which messages reach the model: one pure step that hands the renderer a plan.

Pure: no Flask, no torch. The inputs are each message's role, its token cost (content plus its
own template scaffolding; ``None`` when it was not measured because it cannot fit), which
messages are pinned, how many leading messages a summary replaces (``covers``), and optionally
how relevant each older exchange is to the new message. The plan keeps, in the original order:

- the latest user message, always; the output budget is reserved before anything else;
- every pinned message, whatever the trim (400 when the pins cannot fit with the rest);
- with recall, first the newest exchanges that fit in ``RECENT_SHARE`` of the history budget
  (the thread of the conversation), then the older exchanges most relevant to the new message,
  best first, as far as they fit and score at least ``MIN_RELEVANCE``: the share relevance
  takes follows the question, from nothing (a message that matches nothing older) to all the
  rest. An exchange that later ones restate (``links``: a correction) is recalled only
  together with them, so a stale statement never reaches the model alone. A recalled
  exchange costs its ``recalled_costs``: the renderer cuts a long reply short there, since the
  user's message is what is recalled and a reply can be ten times its length;
- the rest of the budget for the newest whole exchanges after the summary's ``covers``, at most
  ``max_turns`` of them.

History is cut in whole exchanges only: a kept window starts on a user message (or at the very
start when everything fits), and a recalled exchange is a user message with its replies.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..exceptions import ContextLengthExceeded

RECENT_SHARE = 0.25  # of the tokens left for history: the newest exchanges, before any recall
MIN_RELEVANCE = 0.15  # fused relevance (``recall``) below which an exchange is never recalled
_INF = float("inf")


@dataclass(frozen=True)
class HistoryPlan:
    """Which of the client's messages reach the model, and why the others do not."""

    received: int  # messages the client sent (system prompt not counted)
    first_used: int  # start of the kept window of recent exchanges
    first_allowed: int  # the oldest start max_turns allows
    covers: int = 0  # leading messages a summary stands in for
    pinned: tuple[int, ...] = ()  # every pinned message (all are kept)
    recalled: tuple[int, ...] = ()  # messages of recalled exchanges (chosen for relevance)
    shortened: tuple[int, ...] = ()  # recalled replies sent cut short (``recalled_costs``)

    @property
    def used(self) -> list[int]:
        return sorted(set(self.pinned) | set(self.recalled)
                      | set(range(self.first_used, self.received)))

    @property
    def dropped(self) -> int:
        return self.received - len(self.used)

    def dropped_ranges(self) -> list[list[int]]:
        """Half-open ``[start, end)`` ranges of the messages that were not sent."""
        used, out = set(self.used), []
        for i in range(self.received):
            if i in used:
                continue
            if out and out[-1][1] == i:
                out[-1][1] = i + 1
            else:
                out.append([i, i + 1])
        return out

    def as_dict(self) -> dict:
        """The history report: what was pinned, recalled, summarised, kept and dropped."""
        used = set(self.used)
        not_used = [i for i in range(self.received) if i not in used]
        by_turns = sum(1 for i in not_used if i < self.first_allowed)
        summarised = sum(1 for i in not_used if i < self.covers)
        return {
            "received": self.received, "used": len(used), "dropped": len(not_used),
            "dropped_by_max_turns": by_turns, "dropped_by_context": len(not_used) - by_turns,
            "first_used": self.first_used, "pinned": list(self.pinned),
            "recalled": list(self.recalled), "shortened": list(self.shortened),
            "summarised": summarised,
            "lost": len(not_used) - summarised, "dropped_ranges": self.dropped_ranges(),
        }


def cut_points(roles: Sequence[str], max_turns: int | None) -> list[int]:
    """Return the indices where a kept window may start, newest first, within max_turns."""
    all_users = [i for i, role in enumerate(roles) if role == "user"]
    users = all_users
    if max_turns is not None:
        users = users[-max_turns:] if max_turns > 0 else users[-1:]
    starts = sorted(users, reverse=True)
    if not starts:  # no user message (a chat that opens with a call): only the very start
        return [0]
    # The very start is a valid cut too when no exchange is excluded by max_turns: a history
    # opening with an assistant greeting keeps it while it fits.
    if len(users) == len(all_users) and starts and starts[-1] != 0:
        starts.append(0)
    return starts


def exchanges(roles: Sequence[str]) -> list[tuple[int, int]]:
    """``[start, end)`` of each exchange before the latest message: a user message and its
    replies (a leading assistant greeting is an exchange of its own)."""
    starts = [i for i, role in enumerate(roles) if role == "user"]
    if roles and roles[0] != "user":
        starts.insert(0, 0)
    last = len(roles) - 1
    bounds = [s for s in starts if s < last] + [last]
    return list(zip(bounds, bounds[1:], strict=False))


def _too_big(base: float, latest: float, parts: Mapping[str, int], budget: int,
             reserved: int) -> str:
    """Why the prompt cannot fit even without history, naming its largest cause."""
    named = {"the latest message": latest, **parts}
    markup = base - sum(named.values())
    if markup > 0:
        named["the chat template's own text"] = markup
    listed = ", ".join(f"{name} {n:g}" for name, n in sorted(named.items(), key=lambda kv: -kv[1]))
    largest = max(named, key=named.get)
    window = budget + reserved
    head = f"The prompt needs {base:g} tokens before any history ({listed})"
    if reserved and base < window and reserved >= named[largest]:
        return (f"{head}, and max_new_tokens reserves {reserved} of the {window}-token context "
                f"window for the reply: ask for at most {window - base:g} new tokens.")
    fix = " or ask for fewer new tokens" if reserved and base < window else ""
    return (f"{head}, but only {budget} of the {window}-token context window are left after "
            f"max_new_tokens ({reserved}). Shorten {largest}{fix}.")


def plan_history(roles: Sequence[str], costs: Sequence[int | None], *, fixed: int, budget: int,
                 max_turns: int | None = None, pinned: Sequence[int] = (), covers: int = 0,
                 relevance: Mapping[int, float] | None = None,
                 links: Mapping[int, Sequence[int]] | None = None,
                 recalled_costs: Sequence[int | None] | None = None,
                 parts: Mapping[str, int] | None = None, reserved: int = 0) -> HistoryPlan:
    """Plan the prompt's history; ``fixed`` tokens (system prompt, summary, generation prompt)
    appear whatever is kept, and ``budget`` is the context window less the output budget.

    ``relevance`` maps an exchange's start index to its relevance to the new message; when it
    is given, recall is on. ``links`` maps an exchange's start to the later exchanges that must
    come with it; ``recalled_costs`` is each message's cost when recalled (default: ``costs``).
    ``parts`` names what ``fixed`` holds (``{"the summary": 812}``) and ``reserved`` is the
    output budget (``budget`` is the window less it), for the error's message.
    Raises ContextLengthExceeded when the latest message (with the pins)
    cannot fit.
    """
    n = len(roles)
    if n != len(costs) or not n or roles[-1] not in ("user", "tool"):
        raise ValueError("roles and costs must match and end with a user message (or with a "
                         "tool's result: the caller pins the exchange it belongs to)")
    if not 0 <= covers < n or (covers and roles[covers] != "user"):
        raise ValueError("covers must leave the latest message and end on a whole exchange")
    last = n - 1
    allowed = cut_points(roles, max_turns)
    first_allowed = allowed[-1]
    starts = [s for s in allowed if s >= covers]

    def cost(i: int) -> float:
        return _INF if costs[i] is None else costs[i]

    pins = sorted({i for i in pinned if 0 <= i < last})
    base = fixed + cost(last)
    must = base + sum(cost(p) for p in pins)
    if must > budget:
        if pins and base <= budget:
            raise ContextLengthExceeded(
                f"The {len(pins)} pinned message(s) need {must - base:g} tokens, but with the "
                f"system prompt, the summary, the latest message and the reply's budget only "
                f"{budget - base:g} are left. Unpin or shorten some, or ask for fewer new tokens.",
                param="messages")
        raise ContextLengthExceeded(_too_big(base, cost(last), parts or {}, budget, reserved),
                                    param="messages")
    available = budget - must
    skip = set(pins)

    def grow(limit: float, price) -> tuple[int, float]:
        """The oldest window start whose messages cost at most ``limit`` (each ``price(i)``)."""
        chosen, spent, prev = last, 0.0, last
        for start in (s for s in starts if s < last):
            span = sum(price(i) for i in range(start, prev))
            if spent + span > limit:
                break
            chosen, spent, prev = start, spent + span, start
        return chosen, spent

    def price(i: int) -> float:  # a pin is paid for already
        return 0.0 if i in skip else cost(i)

    recalled: list[int] = []
    shortened: list[int] = []
    if relevance:
        short = costs if recalled_costs is None else recalled_costs

        def cost_recalled(i: int) -> float:
            return _INF if short[i] is None else min(short[i], cost(i))

        recent, spent = grow(available * RECENT_SHARE, price)
        room = available - spent
        span = {a: range(a, b) for a, b in exchanges(roles)}
        ranked = sorted((a for a in span if span[a].stop <= recent
                         and relevance.get(a, -1.0) >= MIN_RELEVANCE),
                        key=lambda a: (-relevance[a], -a))  # the newer of equals first
        picked: set[int] = set()
        for a in ranked:
            group = [s for s in restating(a, links or {}) if s in span and s < recent]
            members = [i for s in group for i in span[s] if i not in skip and i not in picked]
            c = sum(cost_recalled(i) for i in members)
            if members and c <= room:
                picked.update(members)
                room -= c
        # The window grows over the rest, newest first. A recalled exchange it reaches joins
        # it whole, as a recent one: the window pays what its cut reply left out before it
        # reaches anything older, and stops where that does not fit (the exchange then stays
        # recalled, older than the window).
        paid = sum(cost_recalled(i) for i in picked)
        first_used, _ = grow(available - paid,
                             lambda i: cost(i) - cost_recalled(i) if i in picked else price(i))
        recalled = sorted(i for i in picked if i < first_used)
        shortened = [i for i in recalled if cost_recalled(i) < cost(i)]
    else:
        first_used, _ = grow(available, price)
    return HistoryPlan(received=n, first_used=first_used, first_allowed=first_allowed,
                       covers=covers, pinned=tuple(i for i in sorted(set(pinned)) if 0 <= i < n),
                       recalled=tuple(recalled), shortened=tuple(shortened))


def restating(start: int, links: Mapping[int, Sequence[int]]) -> list[int]:
    """``start`` and every later exchange that restates it, directly or through another that
    does (a correction of a correction): what must come back together."""
    group, todo = [], [start]
    while todo:
        s = todo.pop(0)
        if s not in group:
            group.append(s)
            todo.extend(links.get(s, ()))
    return group
