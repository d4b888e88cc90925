"""Prometheus text metrics: requests by route and status, queue depth, tokens, latencies, drops."""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import Counter

from flask import Blueprint, Flask, Response, current_app, g, request

access_log = logging.getLogger("mnemo.access")

bp = Blueprint("metrics", __name__)


class Metrics:
    def __init__(self):
        self._lock = threading.Lock()
        self.requests: Counter[tuple[str, int]] = Counter()
        self.totals: Counter[str] = Counter()

    def count_request(self, route: str, status: int) -> None:
        with self._lock:
            self.requests[(route, status)] += 1

    def add(self, name: str, value: float) -> None:
        with self._lock:
            self.totals[name] += value

    def observe_generation(self, prompt_tokens: int, completion_tokens: int, dropped: int,
                           first_token_s: float | None, total_s: float) -> None:
        with self._lock:
            self.totals["prompt_tokens"] += prompt_tokens
            self.totals["completion_tokens"] += completion_tokens
            self.totals["history_dropped"] += dropped
            self.totals["generation_seconds_sum"] += total_s
            self.totals["generation_count"] += 1
            if first_token_s is not None:
                self.totals["ttft_seconds_sum"] += first_token_s
                self.totals["ttft_count"] += 1

    def render(self, backend_lines: list[str]) -> str:
        """The exposition text, with the backend's own lines (``Backend.metric_lines``)."""
        with self._lock:
            lines = ["# TYPE mnemo_requests_total counter"]
            for (route, status), n in sorted(self.requests.items()):
                lines.append(f'mnemo_requests_total{{route="{route}",status="{status}"}} {n}')
            t = self.totals
            lines += [
                "# TYPE mnemo_prompt_tokens_total counter",
                f"mnemo_prompt_tokens_total {t['prompt_tokens']:g}",
                "# TYPE mnemo_completion_tokens_total counter",
                f"mnemo_completion_tokens_total {t['completion_tokens']:g}",
                "# TYPE mnemo_history_messages_dropped_total counter",
                f"mnemo_history_messages_dropped_total {t['history_dropped']:g}",
                "# TYPE mnemo_time_to_first_token_seconds summary",
                f"mnemo_time_to_first_token_seconds_sum {t['ttft_seconds_sum']:.6f}",
                f"mnemo_time_to_first_token_seconds_count {t['ttft_count']:g}",
                "# TYPE mnemo_generation_seconds summary",
                f"mnemo_generation_seconds_sum {t['generation_seconds_sum']:.6f}",
                f"mnemo_generation_seconds_count {t['generation_count']:g}",
                "# TYPE mnemo_summaries_total counter",
                f"mnemo_summaries_total {t['summaries']:g}",
                "# TYPE mnemo_summary_tokens_total counter",
                f"mnemo_summary_tokens_total {t['summary_tokens']:g}",
            ]
        lines += backend_lines
        return "\n".join(lines) + "\n"


@bp.get("/metrics")
def metrics():
    lines = (current_app.extensions["engine"].metric_lines()
             + current_app.extensions["cpu_gate"].metric_lines())
    text = current_app.extensions["metrics"].render(lines)
    return Response(text, mimetype="text/plain; version=0.0.4")


def init_metrics(app: Flask) -> Metrics:
    m = Metrics()
    app.extensions["metrics"] = m

    @app.before_request
    def _start_clock():
        g.started = time.monotonic()

    @app.after_request
    def _count(resp):
        rule = request.url_rule.rule if request.url_rule else "unmatched"
        m.count_request(rule, resp.status_code)
        # One JSON line per request; message content only when MNEMO_LOG_CONTENT is set.
        entry = {"method": request.method, "path": request.path, "route": rule,
                 "status": resp.status_code, "client": request.remote_addr,
                 "ms": round(1000 * (time.monotonic() - g.get("started", time.monotonic())), 1),
                 "stream": resp.is_streamed}
        if app.config["MNEMO"].log_content and request.is_json:
            entry["body"] = request.get_data(as_text=True)
        access_log.info(json.dumps(entry, ensure_ascii=False))
        return resp

    app.register_blueprint(bp)
    return m
