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
    ({"MNEMO_EXECUTOR": "fast"}, "MNEMO_EXECUTOR: must be auto, native, lean or transformers"),
    ({"MNEMO_LEAN_FORWARD": "0"}, "MNEMO_LEAN_FORWARD was replaced by MNEMO_EXECUTOR"),
    ({"MNEMO_EXECUTOR": "native", "MNEMO_QUANTIZE": "none"}, "MNEMO_EXECUTOR: native runs"),
    ({"MNEMO_EXECUTOR": "lean", "MNEMO_ENGINE_URL": "http://127.0.0.1:9"}, "MNEMO_EXECUTOR"),
    ({"MNEMO_ADAPTERS": "legal-demo,legal-demo=/tmp"}, "given twice"),
    ({"MNEMO_NATIVE_DECODE": "1"}, "MNEMO_NATIVE_DECODE was replaced by MNEMO_EXECUTOR"),
])
def test_bad_values_name_their_variable(env, fragment):
    with pytest.raises(ConfigError, match=fragment):
        Settings.load(env)


def test_a_shipped_adapter_is_named_alone_and_none_is_served_unasked():
    from api.config import SHIPPED_ADAPTERS

    assert Settings.load({}).adapters == {}
    assert Settings.load({"MNEMO_ADAPTERS": "legal-demo"}).adapters == {
        "legal-demo": str(SHIPPED_ADAPTERS / "legal-demo")}
    for bad in ("nothing-shipped", "../legal-demo", "=x", "legal-demo="):
        with pytest.raises(ConfigError, match="a shipped adapter's name"):
            Settings.load({"MNEMO_ADAPTERS": bad})


def test_unknown_override_is_rejected():
    with pytest.raises(ConfigError, match="unknown setting"):
        Settings.load({}, {"modle": "x"})


def gguf_header(path, file_type: int):
    """A GGUF file holding only its header: version 3, no tensors, one key."""
    import struct

    key = b"general.file_type"
    path.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 0, 2)
                     + struct.pack("<Q", 12) + b"general.name" + struct.pack("<IQ", 8, 4) + b"test"
                     + struct.pack("<Q", len(key)) + key + struct.pack("<II", 4, file_type))
    return path


def test_quantize_auto_runs_int4_only_for_a_model_shipped_in_that_layout(tmp_path, tiny_dir):
    from api.engine.loader import choose_quantize, gguf_file_type

    def chosen(**values):
        return choose_quantize(Settings.load(environ={}, overrides={"quantize": "auto",
                                                                     **values}))

    assert Settings.load(environ={}).quantize == "auto"  # the default
    assert chosen() == "int4"  # the embedded default: a Q4_1 file
    assert chosen(adapters=Settings.load({"MNEMO_ADAPTERS": "legal-demo"}).adapters) == "none"
    q4_0, f16 = gguf_header(tmp_path / "a.gguf", 2), gguf_header(tmp_path / "b.gguf", 1)
    assert gguf_file_type(q4_0) == 2 and gguf_file_type(f16) == 1
    assert chosen(model=str(q4_0)) == "int4"
    assert chosen(model=str(f16)) == "none"  # float16 weights: quantizing would change them
    assert chosen(model=str(tiny_dir)) == "none"  # a model directory
    # Where int4 cannot run, auto is none (an explicit int4 there is refused at start).
    assert chosen(admin_keys=("admin-key-0123456789abcdef",), adapter_dir=str(tmp_path)) == "none"
    assert chosen(dtype="bfloat16") == "none"
    assert chosen(speculative="int4") == "none"
    assert chosen(quantize="none") == "none" and chosen(quantize="int8") == "int8"
    with pytest.raises(ConfigError, match="MNEMO_QUANTIZE"):
        Settings.load(environ={}, overrides={"quantize": "int4", "dtype": "bfloat16"})


@pytest.mark.parametrize("overrides, message", [
    ({"quantize": "int4"}, "MNEMO_QUANTIZE: int8 and int4 use torch's CPU kernels"),
    ({"executor": "native", "quantize": "int8"}, "MNEMO_EXECUTOR: native runs"),
    ({"speculative": "int4"}, "MNEMO_SPECULATIVE: drafts for a float32 model on a CPU"),
])
def test_what_auto_resolves_to_is_held_to_the_same_rules(monkeypatch, tmp_path, overrides,
                                                          message):
    """The settings combine as configured (device auto); once auto finds a GPU (and dtype
    auto picks bfloat16 there), the load refuses them with the message a configured cuda
    gets, before any weight is read; auto quantization chooses none there."""
    import torch

    from api.engine.loader import choose_quantize, load

    settings = Settings.load(environ={}, overrides={"cache_dir": str(tmp_path), **overrides})
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    with pytest.raises(ConfigError, match=message):
        load(settings)
    with pytest.raises(ConfigError, match=message):
        Settings.load(environ={}, overrides={"device": "cuda", **overrides})
    assert choose_quantize(Settings.load(environ={}, overrides={"quantize": "auto"})) == "none"
