"""Settings come from MNEMO_* variables and fail at start with a message naming the variable."""

from __future__ import annotations

import pytest

from api.config import ConfigError, Settings


def test_environment_values_are_parsed(tmp_path):
    env = {"MNEMO_MAX_BATCH_SIZE": "8", "MNEMO_WARMUP": "false", "MNEMO_CONTEXT_WINDOW": "2048",
           "MNEMO_ADAPTERS": f"a={tmp_path}, b={tmp_path}", "MNEMO_API_KEYS": "k1,k2",
           "MNEMO_GENERATION_TIMEOUT": "2.5"}
    s = Settings.load(env)
    assert (s.max_batch_size, s.warmup, s.context_window) == (8, False, 2048)
    assert s.adapters == {"a": str(tmp_path), "b": str(tmp_path)}
    assert s.api_keys == ("k1", "k2") and s.generation_timeout == 2.5


@pytest.mark.parametrize("env, fragment", [
    ({"MNEMO_MAX_BATCH_SIZE": "lots"}, "MNEMO_MAX_BATCH_SIZE"),
    ({"MNEMO_MAX_BATCH_SIZE": "0"}, "MNEMO_MAX_BATCH_SIZE"),
    ({"MNEMO_DEVICE": "tpu"}, "MNEMO_DEVICE"),
    ({"MNEMO_DTYPE": "int3"}, "MNEMO_DTYPE"),
    ({"MNEMO_WARMUP": "maybe"}, "MNEMO_WARMUP"),
    ({"MNEMO_ADAPTERS": "nopath"}, "MNEMO_ADAPTERS"),
    ({"MNEMO_ADAPTERS": "a=/does/not/exist"}, "MNEMO_ADAPTERS"),
    ({"MNEMO_DEFAULT_MAX_NEW_TOKENS": "5000"}, "MNEMO_DEFAULT_MAX_NEW_TOKENS"),
    ({"MNEMO_CONTEXT_WINDOW": "3"}, "MNEMO_CONTEXT_WINDOW"),
])
def test_bad_values_name_their_variable(env, fragment):
    with pytest.raises(ConfigError, match=fragment):
        Settings.load(env)


def test_unknown_override_is_rejected():
    with pytest.raises(ConfigError, match="unknown setting"):
        Settings.load({}, {"modle": "x"})
