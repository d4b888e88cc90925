"""Presets are files an operator edits: validated at start, lockable."""

from __future__ import annotations

import shutil

import pytest

from api import create_app
from api.config import ConfigError, Settings
from api.presets import builtin_dir, load_presets


def presets_in(tmp_path, **files) -> Settings:
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return Settings.load({}, {"presets_dir": str(tmp_path)})


def test_builtin_presets_are_the_shipped_files():
    presets = load_presets(Settings.load({}))
    assert set(presets) >= {"default", "legal"}
    assert (builtin_dir() / "legal.toml").is_file()
    assert presets["default"].compact and presets["default"].recall
    assert "name" in presets["default"].summary_instruction


@pytest.mark.parametrize(("text", "named"), [
    ('description = "x"\nsystem = \n', "syntax"),
    ('description = "x"\ncolour = "red"\n', "colour"),
    ('system = "x"\n', "description"),
    ('description = "x"\n[generation]\nnum_beams = 99\n', "generation.num_beams"),
    ('description = "x"\n[generation]\ntemperature = "hot"\n', "generation.temperature"),
    ('description = "x"\n[memory]\nrecall = "yes"\n', "memory.recall"),
    ('description = "x"\n[memory]\nsummary_max_tokens = 4\n', "memory.summary_max_tokens"),
    ('description = "x"\nlocked = 1\n', "locked"),
    ('description = "x"\nlocked_settings = ["colour"]\n', "locked_settings"),
])
def test_a_bad_preset_file_names_the_file_and_the_field(tmp_path, text, named):
    settings = presets_in(tmp_path, **{"default.toml": 'description = "d"\n', "bad.toml": text})
    with pytest.raises(ConfigError) as err:
        load_presets(settings)
    assert "bad.toml" in str(err.value) and named in str(err.value)


def test_json_presets_and_a_missing_default(tmp_path):
    settings = presets_in(tmp_path, **{"kiosk.json": '{"description": "k", "locked": true}'})
    with pytest.raises(ConfigError, match="no default"):
        load_presets(settings)
    (tmp_path / "default.json").write_text('{"description": "d"}')
    assert load_presets(settings)["kiosk"].locked


def test_the_server_refuses_to_start_on_a_bad_preset(tmp_path):
    shutil.copytree(builtin_dir(), tmp_path / "p")
    (tmp_path / "p" / "legal.toml").write_text('description = "x"\n[generation]\ntop_p = 7\n')
    with pytest.raises(ConfigError, match=r"legal\.toml: generation\.top_p"):
        create_app({"presets_dir": str(tmp_path / "p"), "warmup": False, "model": "/nonexistent"})
