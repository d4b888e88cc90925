"""The default KV budget: how many key/value positions the running batch may hold.

Half of what the device has free once the model is loaded (CUDA: ``mem_get_info``; CPU: the
kernel's MemAvailable), divided by what one position costs in every layer. The other half is
left for activations, the prefix cache and everything else. Never less than one full context
window, so a request the model accepts can always run alone.
"""

from __future__ import annotations

import torch

from .loader import Loaded

SHARE = 0.5
CPU_FALLBACK_BYTES = 4 << 30  # when /proc/meminfo cannot be read


def bytes_per_position(loaded: Loaded) -> int:
    """Keys and values of one token in every layer, in the cache's dtype (``Loaded.kv_dtype``)."""
    cfg = loaded.model.config
    heads = getattr(cfg, "num_key_value_heads", None) or cfg.num_attention_heads
    head_dim = getattr(cfg, "head_dim", None) or cfg.hidden_size // cfg.num_attention_heads
    itemsize = torch.tensor([], dtype=loaded.kv_dtype).element_size()
    return 2 * cfg.num_hidden_layers * heads * head_dim * itemsize


def free_bytes(device: torch.device) -> int:
    if device.type == "cuda":
        return torch.cuda.mem_get_info(device)[0]
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return CPU_FALLBACK_BYTES


def default_kv_tokens(loaded: Loaded) -> int:
    budget = int(SHARE * free_bytes(loaded.device)) // bytes_per_position(loaded)
    return max(budget, loaded.context_window + 1)
