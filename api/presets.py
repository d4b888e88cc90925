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
from .fields import generation_fields  # the same field rules as a request's

DEFAULT_SUMMARY_INSTRUCTION = (
    "You summarise conversations. Write a short summary of the conversation below in the third "
    "person, in at most 5 sentences. Keep every name, number, date, decision and preference the "
    "user stated, exactly as written. Do not invent anything.")

SAMPLING_KEYS = ("temperature", "top_p", "top_k")
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
    directory = Path(settings.presets_dir) if settings.presets_dir else builtin_dir()
    if not directory.is_dir():
        raise ConfigError(f"MNEMO_PRESETS_DIR: {str(directory)!r} is not a directory")
    # A preset's max_new_tokens is capped at the server's limit when used, not refused here.
    loose = replace(settings, max_new_tokens_limit=1 << 20)
    gen_schema = Schema.from_dict(generation_fields(loose))()
    model = model_generation(settings, gen_schema)
    presets: dict[str, Preset] = {}
    for path in sorted(directory.iterdir()):
        if path.suffix not in (".toml", ".json") or not path.is_file():
            continue
        name = path.stem
        if name in presets:
            raise ConfigError(f"preset {name!r} is defined twice ({path.name} and another file)")
        presets[name] = over_model(_parse_file(path, name, gen_schema), model)
    if "default" not in presets:
        raise ConfigError(f"presets directory {str(directory)!r} has no default.toml or default.json")
    return presets


# The embedded SmolLM2-135M-Instruct ships as a GGUF file without a generation_config: its
# model card's sampling settings (its usage example), and Mnemo's repetition guard, without
# which 27 of 40 replies of eight-turn conversations looped (bench/repetition.py).
EMBEDDED_GENERATION = {"do_sample": True, "temperature": 0.2, "top_p": 0.9, "echo_penalty": 1.2}
# num_beams is not taken (as vLLM does not): a server-wide beam search would stop every reply
# streaming and refuse n, logprobs and the like; a preset can choose it
_MODEL_KEYS = ("do_sample", "temperature", "top_p", "top_k", "repetition_penalty",
               "no_repeat_ngram_size")
FLOAT_KEYS = ("temperature", "top_p", "repetition_penalty")
DECODING = ("do_sample", "temperature", "top_p", "top_k", "num_beams")


def model_generation(settings: Settings, gen_schema: Schema) -> dict:
    """The model's own sampling settings, as transformers' ``generate`` would read them from its
    ``generation_config.json``: sampling keys only when it samples. Empty for a GGUF file
    (none ships one), a model without the file and a remote engine (which applies its own);
    a value Mnemo would refuse is left out."""
    if settings.engine_url:  # a remote engine applies its model's own defaults itself
        return {}
    if not settings.model:
        return dict(EMBEDDED_GENERATION)
    path = Path(settings.model)
    if path.suffix == ".gguf":
        return {}
    if path.is_dir():
        file = path / "generation_config.json"
    else:  # a hub id: the copy transformers downloaded, if any (nothing is fetched here)
        from huggingface_hub import try_to_load_from_cache

        try:
            cached = try_to_load_from_cache(settings.model, "generation_config.json")
        except ValueError:  # not a hub id either: the loader says what is wrong with it
            cached = None
        file = Path(cached) if isinstance(cached, str) else None
    try:
        raw = json.loads(file.read_text(encoding="utf-8")) if file and file.is_file() else {}
        if not isinstance(raw, dict):
            raise ValueError("it is not a JSON object")
        picked = {k: float(raw[k]) if k in FLOAT_KEYS and type(raw[k]) is int else raw[k]
                  for k in _MODEL_KEYS if k in raw and raw[k] is not None}
    except (OSError, ValueError, OverflowError, RecursionError) as exc:
        log.warning("ignoring the model's generation_config.json: %s", exc)
        return {}
    if picked.get("do_sample") is not True or picked.get("temperature") == 0:
        # transformers samples only for do_sample true; temperature 0 is greedy (as in vLLM)
        picked = {k: v for k, v in picked.items() if k not in ("do_sample", *SAMPLING_KEYS)}
    errors = gen_schema.validate(picked)
    for key in errors:
        log.warning("ignoring the model's %s=%r: %s", key, picked.pop(key), errors[key][0])
    if picked:
        log.info("the model's generation defaults: %s", picked)
    return picked


def over_model(preset: Preset, model: dict) -> Preset:
    """The preset's generation settings over the model's: a preset that chooses how to decode
    (greedy, sampling or beams) takes none of the model's decoding settings."""
    own = preset.generation
    base = {k: v for k, v in model.items()
            if not (k in DECODING and any(d in own for d in ("do_sample", "num_beams",
                                                              "temperature")))}
    return replace(preset, generation={**base, **own}) if base else preset


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
