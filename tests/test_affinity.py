"""Many hosts: two gunicorn fronts behind deploy/nginx-mnemo.conf, two engine replicas behind
deploy/nginx-engines.conf, all on loopback. The fronts are stateless (either serves any turn);
X-Mnemo-Affinity, hashed by the engines' nginx, sends every turn of a conversation to the
replica holding its prefix. Measured against round robin on the same stack: the share of
prompt tokens the replicas found in their prefix caches (printed; docs/deploy.md)."""

from __future__ import annotations

import contextlib
import json
import urllib.request

import pytest

from tests.conftest import ROOT, free_port, run_gunicorn
from tests.helpers import assistant, post_json, user
from tests.test_proxy import nginx_in_front, run_nginx

pytestmark = pytest.mark.slow  # gunicorn and nginx processes


def engines_site(replicas: list[str], port: int, affinity: bool) -> str:
    site = (ROOT / "deploy" / "nginx-engines.conf").read_text()
    servers = "".join(f"server {r.removeprefix('http://')}; " for r in replicas)
    site = site.replace("server 127.0.0.1:8001;          # an engine replica: vLLM, llama-server, "
                        "or Mnemo\n    server 127.0.0.1:8002;", servers)
    site = site.replace("listen 127.0.0.1:8090;", f"listen 127.0.0.1:{port};")
    if not affinity:
        site = site.replace("hash $http_x_mnemo_affinity consistent;", "")  # round robin
    assert servers in site and f"listen 127.0.0.1:{port};" in site
    return site


def counters(url: str) -> dict[str, float]:
    with urllib.request.urlopen(url + "/metrics", timeout=10) as resp:
        text = resp.read().decode()
    out: dict[str, float] = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            out[name] = float(value)
    return out


COMPLETIONS = 'mnemo_requests_total{route="/v1/completions",status="200"}'


def served(replicas: list[str]) -> list[float]:
    return [counters(r).get(COMPLETIONS, 0.0) for r in replicas]


def cache_tokens(replicas: list[str]) -> tuple[float, float]:
    c = [counters(r) for r in replicas]
    return (sum(x["mnemo_prefix_cache_hit_tokens_total"] for x in c),
            sum(x["mnemo_prefix_cache_query_tokens_total"] for x in c))


@pytest.fixture(scope="module")
def replicas(tiny_dir, tmp_path_factory):
    with contextlib.ExitStack() as stack:
        urls = [stack.enter_context(run_gunicorn(
            tiny_dir, tmp_path_factory.mktemp(f"replica{i}"), MNEMO_WARMUP="false"))[1]
            for i in range(2)]
        yield urls


@contextlib.contextmanager
def fronts_behind_nginx(engine_url: str, tiny_dir, tmp_path_factory):
    with contextlib.ExitStack() as stack:
        fronts = [stack.enter_context(run_gunicorn(
            tiny_dir, tmp_path_factory.mktemp(f"front{i}"), MNEMO_WARMUP="false",
            MNEMO_ENGINE_URL=engine_url, MNEMO_PROXY_HOPS="1"))[1] for i in range(2)]
        upstream = " ".join(f.removeprefix("http://") for f in fronts)
        yield stack.enter_context(nginx_in_front(upstream, tmp_path_factory.mktemp("front-nginx")))


def converse(url: str, replicas: list[str], opening: str, turns: int) -> list[int]:
    """One conversation, turn by turn; which replica served each turn."""
    messages, where = [user(opening)], []
    for turn in range(turns):
        before = served(replicas)
        with post_json(url + "/api/chat", {"messages": messages, "max_new_tokens": 8}) as resp:
            reply = json.load(resp)["message"]["content"] or "..."
        after = served(replicas)
        moved = [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if b > a]
        assert len(moved) == 1, (before, after)
        where.append(moved[0])
        messages += [assistant(reply), user(f"Turn {turn}: and then what happened next?")]
    return where


OPENINGS = ["Tell me about the sea.", "Wie backe ich Brot?", "Raconte-moi une histoire.",
            "¿Qué es la fotosíntesis?", "東京について教えて", "Explain TCP slow start.",
            "Почему небо голубое?", "What is a monad?", "Suggest a name for a cat.",
            "كيف أتعلم البرمجة؟", "How do tides work?", "Plan a trip to Lisbon."]


def run_conversations(tiny_dir, tmp_path_factory, replicas, affinity: bool, tag: str):
    port = free_port()
    site = engines_site(replicas, port, affinity)
    with run_nginx(site, port, tmp_path_factory.mktemp("engines-nginx")) as engines:
        with fronts_behind_nginx(engines, tiny_dir, tmp_path_factory) as front:
            hit0, query0 = cache_tokens(replicas)
            routes = [converse(front, replicas, f"{opening} ({tag})", 4) for opening in OPENINGS]
            hit1, query1 = cache_tokens(replicas)
    return routes, (hit1 - hit0) / (query1 - query0)


def test_affinity_keeps_each_conversation_on_one_replica_and_its_prefix_cached(
        tiny_dir, tmp_path_factory, replicas):
    routes, rate = run_conversations(tiny_dir, tmp_path_factory, replicas, True, "affinity")
    assert all(len(set(r)) == 1 for r in routes), routes  # every turn on the same replica
    assert {r[0] for r in routes} == {0, 1}  # and the conversations spread over both
    rr_routes, rr_rate = run_conversations(tiny_dir, tmp_path_factory, replicas, False, "rr")
    assert any(len(set(r)) > 1 for r in rr_routes)  # round robin scatters them
    print(f"\nprefix-cache hit rate (tokens): affinity {rate:.1%}, round robin {rr_rate:.1%}")
    assert rate > rr_rate + 0.1
