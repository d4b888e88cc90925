"""docs/models.md's two ways to serve another model, followed as written: a GGUF file given by
path, and a Hugging Face model directory whose generation_config.json samples."""

from __future__ import annotations

import json
import urllib.request

import pytest

from api import create_app
from api.engine.loader import embedded_gguf
from tests.conftest import CACHE_DIR, LiveServer, wait_ready
from tests.helpers import post_json, user

pytestmark = pytest.mark.slow  # a real model load each


def serve(settings: dict):
    app = create_app({"adapters": {}, "warmup": False, **settings})
    wait_ready(app, timeout=300)
    return LiveServer(app)


def get_json(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=30) as resp:
        return json.loads(resp.read())


def chat(url: str, body: dict) -> dict:
    with post_json(url + "/api/chat", body) as resp:
        return json.loads(resp.read())


def test_a_gguf_file_given_by_path(tmp_path):
    gguf = tmp_path / "my-model.Q4_1.gguf"
    gguf.symlink_to(embedded_gguf())  # any GGUF file on disk; this one ships with Mnemo
    server = serve({"model": str(gguf), "cache_dir": str(CACHE_DIR)})
    try:
        assert [m["id"] for m in get_json(server.url + "/v1/models")["data"]] == ["my-model.Q4_1"]
        reply = chat(server.url, {"messages": [user("Name a colour.")], "max_new_tokens": 8})
        assert reply["message"]["content"].strip()
        # a GGUF file ships no generation_config: the native API decodes greedily by default
        assert get_json(server.url + "/api/config")["presets"]["default"]["generation"] == {}
    finally:
        server.close()
        server.app.extensions["engine"].stop()


def test_a_model_directory_with_its_own_sampling_settings(smol_dir, tmp_path):
    model = tmp_path / "SmolLM2-copy"
    model.mkdir()
    for file in smol_dir.iterdir():  # the same files, but this directory's own sampling settings
        if file.name != "generation_config.json":
            (model / file.name).symlink_to(file)
    (model / "generation_config.json").write_text(json.dumps(
        {"bos_token_id": 1, "eos_token_id": 2, "do_sample": True, "temperature": 0.7,
         "top_p": 0.8, "repetition_penalty": 1.1}))
    server = serve({"model": str(model), "cache_dir": str(CACHE_DIR)})
    try:
        config = get_json(server.url + "/api/config")
        assert config["model"] == "SmolLM2-copy"
        assert config["presets"]["default"]["generation"] == {
            "do_sample": True, "temperature": 0.7, "top_p": 0.8, "repetition_penalty": 1.1}
        # sampled by default: two seeds give two replies, one seed gives one
        replies = [chat(server.url, {"messages": [user("Write one sentence about the sea.")],
                                     "max_new_tokens": 24, "seed": seed})["message"]["content"]
                   for seed in (1, 2, 1)]
        assert replies[0] == replies[2] and replies[0] != replies[1]
    finally:
        server.close()
        server.app.extensions["engine"].stop()
