"""A remote engine behind the generation seam (``MNEMO_ENGINE_URL``): vLLM, SGLang, llama.cpp's
server or another Mnemo generates; this process is the front.

The front keeps the model's tokenizer (``MNEMO_MODEL`` names the model the remote serves), so
validation, trimming, memory and rendering happen here, and the remote receives token ids: user
text can never become a control token there either. At start the remote tokenizes a probe and
must agree with the front token for token, or the front refuses to start (or, when the remote
was not up yet, stays unready with the reason). Requests stream over one pooled HTTP client;
a cancelled request (its client left) or one past the generation time limit closes its
connection, which makes vLLM and llama.cpp abort it. The remote's 429 and 503 pass on as
Mnemo's, with its ``Retry-After``; ``/readyz`` asks the remote's health; ``/metrics`` counts
its latency and errors. Recall's embeddings stay local; compaction's summaries come from the
remote like any reply.
"""

from __future__ import annotations

import atexit
import datetime
import email.utils
import logging
import socket
import threading
import time
import weakref
from collections import Counter

import httpx2 as httpx

from ..backend import Backend
from ..config import ConfigError, Settings
from ..engine.request import GenRequest, Handle
from ..exceptions import (
    EngineRefused,
    EngineUnavailable,
    NotReady,
    Overloaded,
    UnsupportedByEngine,
)
from ..types import Chunk, SamplingParams, Usage
from .wire import WIRES, LlamaCppWire, OpenAIWire, Served

log = logging.getLogger("mnemo.remote")
logging.getLogger("httpx2").setLevel(logging.WARNING)  # not a line per remote request

# Tokenized on both sides at start: scripts, digits, emoji and a control token's text.
PROBE = "Mnemo probe: naïve café, 東京タワー, Ünïcödé 🙂 12345 <|im_start|>user\n¿Qué tal?"
HEALTH_TTL_S = 1.0  # /readyz asks the remote at most once a second
POOL_WAIT_S = 1.0  # how long a request waits for a free connection before its 429


class _Loading(Exception):
    """The remote answers 503: up, but still loading its model (Mnemo, llama.cpp)."""


class RemoteHandle(Handle):
    """A Handle whose request streams from a remote: cancelling it (or passing its deadline)
    shuts the connection down at once, even while no byte is arriving."""

    def __init__(self, request: GenRequest, timeout: float):
        super().__init__(request, timeout)
        self.started.set()  # choices of one prompt need not wait for each other here
        self.expired = False
        self._response: httpx.Response | None = None

    def attach(self, response: httpx.Response) -> None:
        self._response = response
        if self.cancelled.is_set():
            self._interrupt()

    def cancel(self) -> None:
        super().cancel()
        self._interrupt()

    def expire(self) -> None:
        self.expired = True
        self._interrupt()

    def _interrupt(self) -> None:
        stream = self._response.extensions.get("network_stream") if self._response else None
        sock = stream.get_extra_info("socket") if stream is not None else None
        if sock is not None:
            try:  # wakes the reading thread; the remote sees the connection close
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class RemoteEngine(Backend):
    def __init__(self, settings: Settings):
        super().__init__()
        self.settings = settings
        self.url = settings.engine_url.rstrip("/")
        self.wire: OpenAIWire | LlamaCppWire | None = None
        self.served: Served | None = None
        self.local = ""  # the model the front's tokenizer comes from
        self._window: int | None = None  # the local model's context window
        headers = {"Authorization": f"Bearer {settings.engine_key}"} if settings.engine_key else {}
        connections = settings.max_batch_size + settings.max_queue
        self.client = httpx.Client(
            base_url=self.url, headers=headers, follow_redirects=False,
            timeout=httpx.Timeout(settings.generation_timeout + 5, connect=5.0),
            limits=httpx.Limits(max_connections=connections,
                                max_keepalive_connections=settings.max_batch_size))
        self._stats_lock = threading.Lock()
        self.counts: Counter[str] = Counter()
        self.seconds: Counter[str] = Counter()
        self.in_flight = 0
        self._health: tuple[float, str | None] = (0.0, None)
        # Set when the remote was unreachable or unhealthy: it may have restarted with another
        # context size or model, so it is described and probed again before it is used.
        self._stale = False
        self._refresh_lock = threading.Lock()

    @property
    def kind(self) -> str:
        wire = self.wire.name if self.wire else self.settings.engine_protocol
        return f"the remote engine at {self.url} ({wire})"

    # -- start ---------------------------------------------------------------------------
    @staticmethod
    def check_presets(presets) -> None:
        """Say which presets ask for what a remote engine does not offer."""
        for preset in presets:
            unsupported = [k for k in ("num_beams", "no_repeat_ngram_size")
                           if (preset.generation.get(k) or 0) > (1 if k == "num_beams" else 0)]
            if unsupported:
                log.warning("preset %r sets %s, which a remote engine does not offer: its "
                            "requests will be refused (400 unsupported_by_engine)",
                            preset.name, ", ".join(unsupported))

    def start(self) -> None:
        """Load the tokenizer and check the remote; a remote that answers with another
        tokenizer stops the start (ConfigError). One that does not answer yet is waited for."""
        self._load_tokenizer()
        atexit.register(_close_at_exit, weakref.ref(self))
        try:
            self._connect()
        except (httpx.TransportError, _Loading) as exc:
            log.warning("waiting for %s: %s", self.kind, exc)
            threading.Thread(target=self._wait, name="mnemo-remote-wait", daemon=True).start()

    def _load_tokenizer(self) -> None:
        from transformers import AutoConfig, AutoTokenizer

        from ..engine.loader import resolve_source

        source, self.local = resolve_source(self.settings)
        self.tokenizer = AutoTokenizer.from_pretrained(source)
        config = AutoConfig.from_pretrained(source)
        self._window = getattr(config, "max_position_embeddings", None)

    def _wait(self) -> None:
        while not self.ready.is_set():
            time.sleep(1.0)
            try:
                self._connect()
            except (httpx.TransportError, _Loading):
                continue
            except ConfigError as exc:
                self.load_error = exc
                log.error("%s", exc)
                return

    def _connect(self) -> None:
        """Find the protocol, what the remote serves, and check its tokenizer."""
        if self.settings.engine_protocol != "auto":
            wire = WIRES[self.settings.engine_protocol]()
        else:
            try:
                props = self._get("/props")
            except ValueError:
                props = {}
            wire = LlamaCppWire() if "default_generation_settings" in props else OpenAIWire()
        try:
            served = wire.describe(self._get)
            path, body = wire.tokenize_request(PROBE, served)
            theirs = self._post(path, body).get("tokens")
        except ValueError as exc:
            raise ConfigError(f"MNEMO_ENGINE_URL: {self.url} does not answer as {wire.name} "
                              f"protocol expects ({exc}); set MNEMO_ENGINE_PROTOCOL") from None
        ours = self.tokenizer(PROBE, add_special_tokens=False)["input_ids"]
        if theirs != ours:
            raise ConfigError(
                f"MNEMO_ENGINE_URL: the remote engine at {self.url} serves {served.model!r} "
                f"({served.detail}), whose tokenizer does not match this front's, from "
                f"{self.local!r} (MNEMO_MODEL={self.settings.model or '(embedded)'}): a probe "
                f"gave {len(theirs or [])} tokens there and {len(ours)} here, first difference "
                f"at token {_first_difference(theirs or [], ours)}. Set MNEMO_MODEL to the "
                "model the remote serves.")
        self.wire, self.served = wire, served
        self.ready.set()

    def describe(self) -> str:
        return (f"front for {self.kind}: model {self.served.model}, context window "
                f"{self.context_window}, adapters {', '.join(self.served.adapters) or 'none'}")

    def _get(self, path: str):
        return self._json(self.client.get(path, timeout=5.0))

    def _post(self, path: str, body: dict):
        return self._json(self.client.post(path, json=body, timeout=10.0))

    @staticmethod
    def _json(resp: httpx.Response):
        if resp.status_code == 503:
            raise _Loading(f"{resp.request.url.path}: HTTP 503, loading")
        if resp.status_code != 200:
            raise ValueError(f"{resp.request.method} {resp.request.url.path}: HTTP {resp.status_code}")
        try:
            return resp.json()
        except ValueError:
            raise ValueError(f"{resp.request.url.path}: not JSON") from None

    def stop(self) -> None:
        self.client.close()

    # -- what the service uses --------------------------------------------------------------
    def not_ready_reason(self) -> str:
        if self.load_error is not None:
            return f"cannot be served: {self.load_error}"
        return f"is not reachable yet: waiting for {self.kind}"

    @property
    def model_id(self) -> str:
        return self.served.model if self.served else "(connecting)"

    @property
    def context_window(self) -> int:
        sizes = [n for n in (self.settings.context_window, self.served and self.served.context_window,
                             self._window) if n]
        return int(min(sizes)) if sizes else 2048

    @property
    def adapters(self) -> tuple[str, ...]:
        return tuple(self.served.adapters) if self.served else ()

    def check_params(self, params: SamplingParams, adapter: str | None) -> None:
        super().check_params(params, adapter)
        for name, used in (("num_beams", params.num_beams > 1),
                           ("no_repeat_ngram_size", params.no_repeat_ngram_size > 0),
                           ("echo_penalty", params.echo_penalty != 1.0)):
            if used:
                raise UnsupportedByEngine(
                    f"{name} is not offered by {self.kind}: it has no beam search, n-gram "
                    "blocking or echo penalty behind Mnemo's seam. Leave it out, or use the "
                    "embedded engine.",
                    param=name)
        if self.wire is not None and self.wire.name == "llama.cpp":
            if params.logprobs is not None:  # its n_probs are probabilities before sampling
                raise UnsupportedByEngine(
                    "logprobs is not offered by llama.cpp behind Mnemo's seam. Leave it out, "
                    "or use the embedded engine or vLLM.", param="logprobs")
            for name in ("presence_penalty", "frequency_penalty"):
                if getattr(params, name):  # llama.cpp counts the prompt's tokens too
                    raise UnsupportedByEngine(
                        f"{name} is not offered by llama.cpp as Mnemo applies it (over the "
                        "reply only). Leave it out, or use the embedded engine or vLLM.",
                        param=name)

    def require_ready(self) -> None:
        """Ready, and described again if it was down: every request checks this before its
        prompt is planned, so it is planned for the remote as it is now."""
        super().require_ready()
        self._refresh_if_stale()

    def _refresh_if_stale(self) -> None:
        """After an outage, describe and probe the remote again (``_connect``): a restart
        with a smaller context is planned for, one with another tokenizer stops serving."""
        if not self._stale:
            return
        with self._refresh_lock:
            if not self._stale:
                return
            try:
                self._connect()
            except (httpx.TransportError, _Loading) as exc:
                raise EngineUnavailable(f"{self.kind} cannot be reached ({exc}).",
                                        retry_after=1) from None
            except ConfigError as exc:
                self.load_error = exc
                self.ready.clear()
                log.error("%s", exc)
                raise NotReady(f"The model {self.not_ready_reason()}.", retry_after=5) from None
            self._stale = False

    def held(self) -> int:
        return self.in_flight

    def readiness(self) -> dict:
        self.require_ready()
        checked, problem = self._health
        if time.monotonic() - checked > HEALTH_TTL_S:
            try:
                resp = self.client.get(self.wire.health_path, timeout=2.0)
                problem = None if resp.status_code == 200 else f"HTTP {resp.status_code}"
            except httpx.HTTPError as exc:
                problem = f"{exc.__class__.__name__}: {exc}"
            self._health = (time.monotonic(), problem)
            self._count("health_failures" if problem else "health_ok")
        if problem:
            self._stale = True
            raise NotReady(f"{self.kind} is not healthy: {problem}.", retry_after=1)
        self._refresh_if_stale()
        return {"status": "ready", "model": self.model_id, "engine": self.kind}

    def submit(self, prompt_ids: list[int], params: SamplingParams, adapter: str | None,
               tenant: str | None = None, keep_kv: bool = True, affinity: str | None = None,
               share_prompt: bool = False) -> Handle:
        """The remote's own prefix caching shares a prompt between choices: nothing to wait
        for (``share_prompt``)."""
        self.check_params(params, adapter)
        self._refresh_if_stale()
        handle = RemoteHandle(GenRequest(prompt_ids, params, adapter, tenant, keep_kv),
                              self.settings.generation_timeout)
        body = self.wire.body(prompt_ids, params, self.served, adapter)
        headers = {"X-Mnemo-Affinity": affinity} if affinity else {}
        # Waiting for the response's headers is bounded by the reply's deadline, not by the
        # pool's default: a stalled remote costs a request its deadline, never more.
        wait = max(1.0, handle.deadline - time.monotonic())
        request = self.client.build_request(
            "POST", self.wire.completion_path, json=body, headers=headers,
            timeout=httpx.Timeout(self.settings.generation_timeout + 5, connect=min(5.0, wait),
                                  read=wait, pool=POOL_WAIT_S))
        try:
            try:
                resp = self.client.send(request, stream=True)
            except httpx.RemoteProtocolError:  # a pooled connection the remote had closed:
                resp = self.client.send(request, stream=True)  # nothing ran; send it once more
        except httpx.PoolTimeout:  # every connection busy: as full as the embedded queue
            self._count("errors_pool_full")
            raise Overloaded(f"every connection to {self.kind} is busy "
                             "(MNEMO_MAX_BATCH_SIZE + MNEMO_MAX_QUEUE); retry shortly.",
                             retry_after=1) from None
        except httpx.TimeoutException as exc:
            self._count("errors_timeout")
            raise EngineUnavailable(f"{self.kind} did not answer in time ({exc}).",
                                    retry_after=1) from None
        except httpx.TransportError as exc:
            self._count("errors_connect")
            self._stale = True
            raise EngineUnavailable(f"{self.kind} cannot be reached ({exc.__class__.__name__}: "
                                    f"{exc}).", retry_after=1) from None
        self._observe("response", time.monotonic() - handle.submitted_at)
        if resp.status_code != 200:
            self._refused(resp)
        handle.attach(resp)
        with self._stats_lock:
            self.in_flight += 1
        threading.Thread(target=self._read, args=(handle, resp), name="mnemo-remote-read",
                         daemon=True).start()
        return handle

    def _refused(self, resp: httpx.Response):
        """Raise the remote's refusal as Mnemo's error: 429 and 503 with its Retry-After."""
        try:
            raw = resp.read()[:4000].decode("utf-8", "replace")
        finally:
            resp.close()
        status = resp.status_code
        self._count(f"errors_status_{status}")
        why = _message_of(raw) or f"HTTP {status}"
        retry = _seconds(resp.headers.get("Retry-After"))
        if status == 429:
            raise Overloaded(f"{self.kind} is at capacity: {why}", retry_after=retry)
        if status == 503:
            raise EngineUnavailable(f"{self.kind} is unavailable: {why}", retry_after=retry)
        if 400 <= status < 500:
            raise EngineRefused(f"{self.kind} refused the request (HTTP {status}): {why}")
        raise EngineUnavailable(f"{self.kind} failed (HTTP {status}): {why}", retry_after=retry)

    def _read(self, handle: RemoteHandle, resp: httpx.Response) -> None:
        timer = threading.Timer(max(0.0, handle.deadline - time.monotonic()), handle.expire)
        timer.daemon = True
        timer.start()
        finish, produced, reported = None, 0, None
        try:
            for piece in self.wire.pieces(resp.iter_lines()):
                if piece.error is not None:
                    raise EngineUnavailable(f"{self.kind} failed mid-reply: {piece.error}",
                                            retry_after=1)
                if piece.text or piece.logprobs:
                    if handle.first_token_at is None:
                        handle.first_token_at = time.monotonic()
                        self._observe("first_token", handle.first_token_at - handle.submitted_at)
                    produced += 1
                    handle.put(Chunk(piece.text, logprobs=piece.logprobs))
                reported = piece.completion_tokens if piece.completion_tokens is not None \
                    else reported
                finish = piece.finish_reason or finish
        except Exception as exc:  # noqa: BLE001  (whatever the remote sent, the client gets an end)
            if not (handle.cancelled.is_set() or handle.expired):
                self._count("errors_stream")
                self._stale = self._stale or isinstance(exc, httpx.TransportError)
                handle.put(exc if isinstance(exc, EngineUnavailable) else EngineUnavailable(
                    f"{self.kind} broke off the reply ({exc.__class__.__name__}: {exc}).",
                    retry_after=1))
                return
        finally:
            timer.cancel()
            resp.close()
            with self._stats_lock:
                self.in_flight -= 1
        if handle.cancelled.is_set():
            finish = "cancelled"
        elif handle.expired:
            finish = "length"
        elif finish is None:
            self._count("errors_stream")
            handle.put(EngineUnavailable(f"{self.kind} ended the reply without a finish reason.",
                                         retry_after=1))
            return
        self._count("replies")
        tokens = reported if reported is not None else produced
        handle.put(Chunk("", finish, Usage(len(handle.request.prompt_ids), tokens)))

    # -- metrics -------------------------------------------------------------------------
    def _count(self, name: str) -> None:
        with self._stats_lock:
            self.counts[name] += 1

    def _observe(self, name: str, seconds: float) -> None:
        with self._stats_lock:
            self.seconds[name] += seconds
            self.counts[name] += 1

    def metric_lines(self) -> list[str]:
        with self._stats_lock:
            counts, seconds, active = dict(self.counts), dict(self.seconds), self.in_flight
        lines = ["# TYPE mnemo_active_sequences gauge", f"mnemo_active_sequences {active}",
                 "# TYPE mnemo_engine_up gauge",
                 f"mnemo_engine_up {int(self.ready.is_set() and self._health[1] is None)}",
                 "# TYPE mnemo_engine_replies_total counter",
                 f"mnemo_engine_replies_total {counts.get('replies', 0)}",
                 "# TYPE mnemo_engine_errors_total counter"]
        for name in sorted(counts):
            if name.startswith("errors_"):
                lines.append(f'mnemo_engine_errors_total{{kind="{name[7:]}"}} {counts[name]}')
        for name, what in (("response", "until the remote's response headers"),
                           ("first_token", "until the remote's first token")):
            lines += [f"# HELP mnemo_engine_{name}_seconds Time {what}.",
                      f"# TYPE mnemo_engine_{name}_seconds summary",
                      f"mnemo_engine_{name}_seconds_sum {seconds.get(name, 0.0):.6f}",
                      f"mnemo_engine_{name}_seconds_count {counts.get(name, 0)}"]
        return lines


def _first_difference(a: list[int], b: list[int]) -> int:
    return next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y),
                min(len(a), len(b)))


def _message_of(raw: str) -> str:
    """The message of an error body in OpenAI's, llama.cpp's or Mnemo's shape, else the text."""
    import json

    try:
        body = json.loads(raw)
    except ValueError:
        return raw.strip()[:500]
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        return str(error.get("message") or error)[:500]
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        return body["message"][:500]
    return raw.strip()[:500]


def _close_at_exit(ref: weakref.ref) -> None:
    engine = ref()
    if engine is not None:
        engine.stop()


def _seconds(retry_after: str | None) -> float:
    """The remote's ``Retry-After`` in seconds: delay-seconds, or an HTTP date (RFC 9110); what
    is neither, or nothing, reads as 1 s; at most a day."""
    value = (retry_after or "").strip()
    if value.isascii() and value.isdigit():
        return float(min(max(int(value), 1), 86_400))
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return 1.0
    if when.tzinfo is None:
        when = when.replace(tzinfo=datetime.UTC)
    wait = (when - datetime.datetime.now(datetime.UTC)).total_seconds()
    return min(max(wait, 1.0), 86_400.0)
