"""Presets as files an operator edits: one TOML or JSON file per preset in one directory.

A preset is a system prompt, generation defaults, memory settings (compaction, recall, the
summary instruction) and optionally a lock. Every file is validated at start; a bad one stops
the server with a ``ConfigError`` naming the file and the field. ``default`` must exist.

A ``locked`` preset's system prompt cannot be replaced or extended by a client, and a summary
placed with it must carry this server's signature. ``locked_settings`` names request settings a
client may not send with this preset (each refusal is a 400 naming the lock).
"""

from __future__ import annotations

import json
import logging
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path

from marshmallow import Schema, ValidationError

from .config import ConfigError, Settings

DEFAULT_SUMMARY_INSTRUCTION = (
    "You summarise conversations. Write a short summary of the conversation below in the third "
    "person, in at most 5 sentences. Keep every name, number, date, decision and preference the "
    "user stated, exactly as written. Do not invent anything.")

MEMORY_KEYS = {"compact": bool, "recall": bool, "ledger": bool, "summary_instruction": str,
               "summary_max_tokens": int}
LOCKABLE = frozenset({"max_turns", "compact", "recall", "adapter", "summary"})
TOP_KEYS = {"description", "system", "generation", "memory", "locked", "locked_settings"}

log = logging.getLogger("mnemo.presets")


@dataclass(frozen=True)
class Preset:
    name: str
    description: str
    system: str | None = None  # None: the model's own default behaviour
    generation: dict = field(default_factory=dict)
    compact: bool = True  # native API default; /v1 compacts only when asked
    recall: bool = True
    summary_instruction: str = DEFAULT_SUMMARY_INSTRUCTION
    summary_max_tokens: int = 160
    locked: bool = False
    locked_settings: tuple[str, ...] = ()

    def as_dict(self) -> dict:
        return {"description": self.description, "system": self.system,
                "generation": dict(self.generation), "locked": self.locked,
                "locked_settings": list(self.locked_settings),
                "memory": {"compact": self.compact, "recall": self.recall,
                           "summary_instruction": self.summary_instruction,
                           "summary_max_tokens": self.summary_max_tokens}}


def builtin_dir() -> Path:
    return Path(__file__).resolve().parent.parent / "presets"


def load_presets(settings: Settings) -> dict[str, Preset]:
    """Read every ``*.toml`` and ``*.json`` file of the presets directory; validate each."""
    from .fields import generation_fields  # the same field rules as a request's

    directory = Path(settings.presets_dir) if settings.presets_dir else builtin_dir()
    if not directory.is_dir():
        raise ConfigError(f"MNEMO_PRESETS_DIR: {str(directory)!r} is not a directory")
    # A preset's max_new_tokens is capped at the server's limit when used, not refused here.
    loose = replace(settings, max_new_tokens_limit=1 << 20)
    gen_schema = Schema.from_dict(generation_fields(loose))()
    presets: dict[str, Preset] = {}
    for path in sorted(directory.iterdir()):
        if path.suffix not in (".toml", ".json") or not path.is_file():
            continue
        name = path.stem
        if name in presets:
            raise ConfigError(f"preset {name!r} is defined twice ({path.name} and another file)")
        presets[name] = _parse_file(path, name, gen_schema)
    if "default" not in presets:
        raise ConfigError(f"presets directory {str(directory)!r} has no default.toml or default.json")
    return presets


def _parse_file(path: Path, name: str, gen_schema: Schema) -> Preset:
    def bad(where: str, why: str) -> ConfigError:
        return ConfigError(f"preset file {path}: {where}: {why}")

    if not name.replace("-", "").replace("_", "").isalnum():
        raise bad("file name", "a preset name is letters, digits, '-' or '_'")
    try:
        text = path.read_text(encoding="utf-8")
        raw = tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)
    except (ValueError, UnicodeDecodeError) as exc:
        raise bad("syntax", str(exc)) from None
    if not isinstance(raw, dict):
        raise bad("top level", "must be a table/object")
    for key in raw:
        if key not in TOP_KEYS:
            raise bad(key, f"unknown field; known: {', '.join(sorted(TOP_KEYS))}")
    description = raw.get("description")
    if not isinstance(description, str) or not description.strip():
        raise bad("description", "required, a non-empty string")
    system = raw.get("system")
    if system is not None and (not isinstance(system, str) or not system.strip()):
        raise bad("system", "must be a non-empty string when given")
    generation = raw.get("generation", {})
    if not isinstance(generation, dict):
        raise bad("generation", "must be a table/object")
    try:
        gen_schema.load(generation)
    except ValidationError as err:
        key = next(iter(err.messages))
        raise bad(f"generation.{key}", " ".join(map(str, err.messages[key]))) from None
    memory = raw.get("memory", {})
    if not isinstance(memory, dict):
        raise bad("memory", "must be a table/object")
    for key, value in memory.items():
        if key == "ledger":  # any value: it is ignored (below)
            continue
        kind = MEMORY_KEYS.get(key)
        if kind is None:
            raise bad(f"memory.{key}", f"unknown field; known: {', '.join(sorted(MEMORY_KEYS))}")
        if type(value) is not kind:
            raise bad(f"memory.{key}", f"must be a {kind.__name__}")
    if "ledger" in memory:  # the cue-word ledger is gone: recall finds facts (docs/memory.md)
        log.warning("%s: memory.ledger has no effect any more (summaries are the gist only; "
                    "recall finds the user's facts in the verbatim messages); remove it", path)
        memory = {k: v for k, v in memory.items() if k != "ledger"}
    if "summary_instruction" in memory and not memory["summary_instruction"].strip():
        raise bad("memory.summary_instruction", "must not be empty")
    if not 16 <= memory.get("summary_max_tokens", 160) <= 1024:
        raise bad("memory.summary_max_tokens", "must be between 16 and 1024")
    locked = raw.get("locked", False)
    if type(locked) is not bool:
        raise bad("locked", "must be true or false")
    locked_settings = raw.get("locked_settings", [])
    allowed = LOCKABLE | set(gen_schema.fields)
    if not isinstance(locked_settings, list) or not all(isinstance(s, str) for s in locked_settings):
        raise bad("locked_settings", "must be a list of setting names")
    for setting in locked_settings:
        if setting not in allowed:
            raise bad("locked_settings", f"{setting!r} is not a request setting; "
                                         f"lockable: {', '.join(sorted(allowed))}")
    return Preset(name=name, description=description.strip(), system=system,
                  generation=dict(generation), locked=locked,
                  locked_settings=tuple(locked_settings),
                  **{k: v.strip() if isinstance(v, str) else v for k, v in memory.items()})
