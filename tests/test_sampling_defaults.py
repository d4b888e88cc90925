"""A request that names no sampling parameter decodes as the model recommends: its
``generation_config.json`` (the embedded model: its card's settings), under the preset's."""

from __future__ import annotations

import json

import pytest
from marshmallow import Schema

from api.config import Settings
from api.exceptions import ValidationFailed
from api.fields import generation_fields
from api.openai_schema import OpenAISchemas
from api.presets import EMBEDDED_GENERATION, Preset, load_presets, model_generation, over_model
from api.schemas import Schemas

USER = [{"role": "user", "content": "Hi"}]
NaN_TEXT = float("nan")


def model_dir(tmp_path, config: dict | str) -> Settings:
    text = config if isinstance(config, str) else json.dumps(config)
    (tmp_path / "generation_config.json").write_text(text, encoding="utf-8")
    return Settings.load({}, {"model": str(tmp_path)})


def schema(settings: Settings) -> Schema:
    return Schema.from_dict(generation_fields(settings))()


@pytest.mark.parametrize(("config", "expected"), [
    # Llama 3's and Qwen2.5's files, abridged: sampling with their settings
    ({"bos_token_id": 1, "do_sample": True, "temperature": 0.6, "top_p": 0.9},
     {"do_sample": True, "temperature": 0.6, "top_p": 0.9}),
    ({"do_sample": True, "temperature": 0.7, "top_p": 0.8, "top_k": 20,
      "repetition_penalty": 1.05}, {"do_sample": True, "temperature": 0.7, "top_p": 0.8,
                                    "top_k": 20, "repetition_penalty": 1.05}),
    # transformers decodes greedily without do_sample: its temperature would change nothing
    ({"temperature": 0.6, "top_p": 0.9, "repetition_penalty": 1.1}, {"repetition_penalty": 1.1}),
    # beams are a preset's choice, never the model's (they would stop replies streaming)
    ({"do_sample": False, "num_beams": 4, "no_repeat_ngram_size": 2}, {"no_repeat_ngram_size": 2}),
    ({"do_sample": True, "num_beams": 1, "temperature": 1}, {"do_sample": True, "temperature": 1.0}),
    # only a literal true samples, and temperature 0 is greedy: no sampling key is kept
    ({"do_sample": "true", "temperature": 0.6, "top_p": 0.9}, {}),
    ({"do_sample": 1, "top_k": 5, "repetition_penalty": 1.2}, {"repetition_penalty": 1.2}),
    ({"do_sample": True, "temperature": 0, "top_p": 0.95}, {}),
    # what Mnemo would refuse from a client is left out, not fatal
    ({"do_sample": True, "temperature": 1e999, "top_p": 0.95}, {"do_sample": True, "top_p": 0.95}),
    ({"do_sample": True, "temperature": NaN_TEXT, "top_p": 0.5}, {"do_sample": True, "top_p": 0.5}),
    ({"do_sample": True, "top_k": -3, "no_repeat_ngram_size": 3},
     {"do_sample": True, "no_repeat_ngram_size": 3}),
    ({"max_new_tokens": 4096, "pad_token_id": 2}, {}),
    ("{not json", {}),
    ("[1, 2]", {}),
    ('{"repetition_penalty": 1' + "0" * 400 + "}", {}),
])
def test_the_models_generation_config_is_read_as_transformers_reads_it(tmp_path, config, expected):
    settings = model_dir(tmp_path, config)
    assert model_generation(settings, schema(settings)) == expected


def test_the_embedded_model_and_models_without_the_file(tmp_path):
    plain = Settings.load({})
    assert model_generation(plain, schema(plain)) == EMBEDDED_GENERATION
    for model in (str(tmp_path), str(tmp_path / "x.gguf"), "nobody/not-downloaded", "/no/such"):
        settings = Settings.load({}, {"model": model})
        assert model_generation(settings, schema(settings)) == {}
    # a remote engine applies its model's defaults itself (and knows no echo_penalty)
    (tmp_path / "generation_config.json").write_text('{"do_sample": true, "temperature": 0.5}')
    for model in ("", str(tmp_path)):
        remote = Settings.load({}, {"model": model, "engine_url": "http://127.0.0.1:9"})
        assert model_generation(remote, schema(remote)) == {}


@pytest.mark.parametrize(("own", "expected"), [
    ({}, {"do_sample": True, "temperature": 0.6, "repetition_penalty": 1.1}),
    ({"max_new_tokens": 9}, {"do_sample": True, "temperature": 0.6, "repetition_penalty": 1.1,
                             "max_new_tokens": 9}),
    ({"repetition_penalty": 1.3}, {"do_sample": True, "temperature": 0.6,
                                   "repetition_penalty": 1.3}),
    # a preset that chooses how to decode takes none of the model's decoding settings
    ({"num_beams": 4}, {"num_beams": 4, "repetition_penalty": 1.1}),
    ({"do_sample": False}, {"do_sample": False, "repetition_penalty": 1.1}),
    ({"temperature": 1.2, "do_sample": True}, {"temperature": 1.2, "do_sample": True,
                                               "repetition_penalty": 1.1}),
])
def test_the_presets_settings_stand_over_the_models(own, expected):
    model = {"do_sample": True, "temperature": 0.6, "repetition_penalty": 1.1}
    assert over_model(Preset("p", "d", generation=own), model).generation == expected


@pytest.fixture()
def sampling_model(tmp_path):
    settings = model_dir(tmp_path, {"do_sample": True, "temperature": 0.6, "top_p": 0.9})
    presets = load_presets(settings)
    return Schemas(settings, presets), OpenAISchemas(settings, presets)


def test_both_apis_sample_as_the_model_says_when_the_request_names_nothing(sampling_model):
    native, openai = sampling_model
    for params in (native.load_chat({"messages": USER}).params,
                   openai.load_chat({"model": "m", "messages": USER})[0].params):
        assert (params.do_sample, params.temperature, params.top_p) == (True, 0.6, 0.9)
    # the legal preset decodes by beam search: the model's sampling does not apply there
    legal = native.load_chat({"messages": USER, "template": "legal"}).params
    assert (legal.do_sample, legal.num_beams) == (False, 4)
    # and a seed there would change nothing: refused, saying why
    with pytest.raises(ValidationFailed, match="the preset searches with beams"):
        openai.load_chat({"model": "m", "messages": USER, "seed": 3,
                          "mnemo": {"template": "legal"}})


def test_a_request_that_names_its_decoding_gets_it(sampling_model):
    native, openai = sampling_model
    greedy = native.load_chat({"messages": USER, "do_sample": False}).params
    assert not greedy.do_sample
    assert not openai.load_chat({"model": "m", "messages": USER, "temperature": 0})[0].params.do_sample
    hot = openai.load_chat({"model": "m", "messages": USER, "temperature": 1.5})[0].params
    assert (hot.do_sample, hot.temperature, hot.top_p) == (True, 1.5, 0.9)
    # top_p 1 is no filter: it lifts the model's 0.9, and with temperature 0 it changes nothing
    whole = openai.load_chat({"model": "m", "messages": USER, "top_p": 1})[0].params
    assert (whole.do_sample, whole.temperature, whole.top_p) == (True, 0.6, 1.0)
    flat = openai.load_chat({"model": "m", "messages": USER, "temperature": 0, "top_p": 1})[0]
    assert not flat.params.do_sample
    # asking for beams is asking not to sample: no conflict with the model's sampling
    beams = native.load_chat({"messages": USER, "num_beams": 3}).params
    assert (beams.do_sample, beams.num_beams) == (False, 3)
    # the model samples, so a seed or top_k alone is taken (it would change the reply)
    seeded = native.load_chat({"messages": USER, "seed": 5, "top_k": 7}).params
    assert (seeded.do_sample, seeded.seed, seeded.top_k, seeded.temperature) == (True, 5, 7, 0.6)
    with pytest.raises(ValidationFailed, match="seed"):
        native.load_chat({"messages": USER, "do_sample": False, "seed": 5})


def test_a_greedy_model_keeps_the_apis_own_defaults(tmp_path):
    settings = model_dir(tmp_path, {"bos_token_id": 1})
    presets = load_presets(settings)
    native = Schemas(settings, presets).load_chat({"messages": USER}).params
    assert not native.do_sample  # Mnemo's native default: greedy
    openai = OpenAISchemas(settings, presets).load_chat({"model": "m", "messages": USER})[0].params
    assert (openai.do_sample, openai.temperature) == (True, 1.0)  # OpenAI's default


def test_the_default_echo_guard_goes_with_sampling():
    """The embedded model's echo_penalty belongs to its sampling recipe: a reply asked to be
    greedy (temperature 0) or by beams (the legal preset) is the model's plain one, unless the
    request names echo_penalty itself."""
    settings = Settings.load({})
    presets = load_presets(settings)
    native, openai = Schemas(settings, presets), OpenAISchemas(settings, presets)
    assert native.load_chat({"messages": USER}).params.echo_penalty == 1.2
    assert openai.load_chat({"model": "m", "messages": USER})[0].params.echo_penalty == 1.2
    for params in (native.load_chat({"messages": USER, "do_sample": False}).params,
                   openai.load_chat({"model": "m", "messages": USER, "temperature": 0})[0].params,
                   native.load_chat({"messages": USER, "template": "legal"}).params):
        assert params.echo_penalty == 1.0
    named = native.load_chat({"messages": USER, "do_sample": False, "echo_penalty": 1.1}).params
    assert (named.do_sample, named.echo_penalty) == (False, 1.1)

