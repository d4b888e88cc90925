"""A request's own CPU work (tokenizing, recall, previews, summaries) waits its turn and yields
to the engine: ``api/admission.py``, in-process and through the app."""

from __future__ import annotations

import os
import threading

import pytest

from api.admission import REQUEST_NICENESS, CpuGate
from api.exceptions import Overloaded
from tests.helpers import assistant, user, wait_for


def hold(gate: CpuGate, entered: threading.Event, release: threading.Event) -> threading.Thread:
    def work():
        with gate.admit():
            entered.set()
            release.wait(30)
    thread = threading.Thread(target=work)
    thread.start()
    assert entered.wait(30)
    return thread


def test_the_gate_admits_its_slots_queues_the_next_and_refuses_past_the_queue():
    gate = CpuGate(slots=1, max_waiting=1, wait=30)
    release = threading.Event()
    first = hold(gate, threading.Event(), release)
    waited, done = threading.Event(), threading.Event()

    def wait_then_hold():
        with gate.admit():
            waited.set()
            done.wait(30)

    second = threading.Thread(target=wait_then_hold)
    second.start()
    while gate.waiting == 0:  # the second request is waiting for the slot
        second.join(0.01)
    with pytest.raises(Overloaded) as info:  # the third finds the queue full
        with gate.admit():
            pass
    assert info.value.retry_after == 1
    release.set()
    first.join(30)
    assert waited.wait(30) and gate.active == 1
    done.set()
    second.join(30)
    assert gate.active == gate.waiting == 0


def test_waiting_longer_than_allowed_is_a_429_not_a_hang():
    gate = CpuGate(slots=1, max_waiting=4, wait=0.2)
    release = threading.Event()
    first = hold(gate, threading.Event(), release)
    with pytest.raises(Overloaded, match="within 0.2 s"):
        with gate.admit():
            pass
    release.set()
    first.join(30)
    with gate.admit():  # free again
        assert gate.active == 1


def test_previews_count_toward_the_queue_and_threads_yield_to_the_engine(app, monkeypatch):
    """Two previews hold both slots; the next ones wait (as many as the engine holds: its
    batch and its queue), and past them a preview is a JSON 429 with Retry-After."""
    from api import service

    gate = app.extensions["cpu_gate"]
    release, busy = threading.Event(), threading.Semaphore(0)
    real = service._prepare

    def slow(req, **kw):
        busy.release()
        release.wait(30)
        return real(req, **kw)

    monkeypatch.setattr(service, "_prepare", slow)
    body = {"messages": [user("My dog is Rex."), assistant("Nice."), user("Dog's name?")]}
    results, nice = [], []

    def preview():
        resp = app.test_client().post("/api/chat/preview", json=body)
        nice.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
        results.append((resp.status_code, resp.get_json(), resp.headers.get("Retry-After")))

    threads = [threading.Thread(target=preview) for _ in range(2 + gate.max_waiting)]
    for t in threads:
        t.start()
    for _ in range(2):
        assert busy.acquire(timeout=30)
    while gate.waiting < gate.max_waiting:
        threads[0].join(0.01)
    status, err, retry = (lambda r: (r.status_code, r.get_json(), r.headers.get("Retry-After")))(
        app.test_client().post("/api/chat/preview", json=body))
    assert status == 429 and err["error"]["code"] == "overloaded" and retry == "1"
    metrics = app.test_client().get("/metrics").get_data(as_text=True)
    assert "mnemo_cpu_work_active 2" in metrics
    assert f"mnemo_cpu_work_waiting {gate.max_waiting}" in metrics
    release.set()
    for t in threads:
        t.join(60)
    assert [r[0] for r in results] == [200] * len(threads)
    assert nice and all(n >= REQUEST_NICENESS for n in nice)  # each request thread yielded


def test_a_burst_the_engine_has_room_for_is_not_refused_while_its_prompts_wait(app, monkeypatch):
    """As many chat requests as the engine holds (batch and queue) arrive while their prompts
    cannot be prepared yet (a loaded machine): every one waits its turn and is answered; the
    gate refuses none that the engine would have taken."""
    from api import service

    settings, gate = app.config["MNEMO"], app.extensions["cpu_gate"]
    room = settings.max_batch_size + settings.max_queue
    release, real = threading.Event(), service._prepare
    monkeypatch.setattr(service, "_prepare", lambda req, **kw: release.wait(30) and real(req, **kw))
    statuses = []

    def ask(i):
        resp = app.test_client().post("/api/chat", json={"messages": [user(f"Hi {i}")],
                                                         "max_new_tokens": 2})
        statuses.append(resp.status_code)

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(room)]
    for t in threads:
        t.start()
    assert wait_for(lambda: gate.waiting == room - 2)  # two prepare, the rest wait
    release.set()
    for t in threads:
        t.join(60)
    assert statuses == [200] * room


def test_requests_the_engine_holds_leave_that_much_less_room_to_wait():
    """Each request the engine runs or queues holds a request thread: waiting ones take only
    what is left of its batch and queue, so the threads that answer 429s and probes stay free."""
    held = {"n": 0}
    gate = CpuGate(slots=1, max_waiting=3, wait=30, held=lambda: held["n"])
    release = threading.Event()
    holder = hold(gate, threading.Event(), release)  # the one slot is taken

    def wait_its_turn():
        with gate.admit():
            pass

    held["n"] = 2  # two streams in the engine: room for one to wait
    waiters = [threading.Thread(target=wait_its_turn)]
    waiters[0].start()
    assert wait_for(lambda: gate.waiting == 1)
    with pytest.raises(Overloaded), gate.admit():
        pass
    held["n"] = 0  # the streams ended: room for the rest again
    waiters.append(threading.Thread(target=wait_its_turn))
    waiters[1].start()
    assert wait_for(lambda: gate.waiting == 2)
    release.set()
    for t in [holder, *waiters]:
        t.join(30)
    assert gate.waiting == gate.active == 0


def test_a_request_served_on_the_main_thread_leaves_its_priority(app):
    """Flask's test client (or a sync worker) serves on the main thread, which also starts the
    engines built later: lowered once, every one of them would run at the requests' priority
    and lose the cores to any busy process."""
    main = threading.get_native_id()
    before = os.getpriority(os.PRIO_PROCESS, main)
    assert app.test_client().get("/healthz").status_code == 200
    assert os.getpriority(os.PRIO_PROCESS, main) == before
    started = []
    thread = threading.Thread(target=lambda: started.append(
        os.getpriority(os.PRIO_PROCESS, threading.get_native_id())))
    thread.start()
    thread.join(30)
    assert started == [before]


def test_with_no_queue_a_free_slot_still_admits():
    gate = CpuGate(slots=1, max_waiting=0, wait=30)
    with gate.admit():  # no queue (MNEMO_MAX_QUEUE=0), but the slot is free
        assert gate.active == 1
        refused = []

        def second():
            try:
                with gate.admit():
                    pass
            except Overloaded as exc:
                refused.append(exc)

        thread = threading.Thread(target=second)
        thread.start()
        thread.join(30)
        assert refused  # the only slot is taken and nobody may wait
    with gate.admit():
        assert gate.active == 1


def test_while_replies_stream_cpu_work_pauses_rest_times_each_slice(monkeypatch):
    """A fake clock: each slice of work is followed by a pause ``rest`` times as long while the
    engine is busy, shared by every admitted request; none when it is idle."""
    from api import admission

    class Clock:
        now = 100.0
        slept: list[float] = []

        def monotonic(self):
            return self.now

        def sleep(self, seconds):
            self.slept.append(round(seconds, 6))
            self.now += seconds

    clock = Clock()
    monkeypatch.setattr(admission, "time", clock)
    busy = {"on": True}
    gate = CpuGate(slots=2, busy=lambda: busy["on"], rest=4.0)
    admission.pace()  # outside an admitted request: nothing happens
    with gate.admit():
        clock.now += 0.05  # a slice of work
        admission.pace()
        clock.now += 0.10
        admission.pace()
        busy["on"] = False  # the streams ended: full speed
        clock.now += 0.10
        admission.pace()
    assert clock.slept == [0.2, 0.4] and gate.paused_s == pytest.approx(0.6)
    # The work before admission (reading, validating) is paid for too, as is the last slice.
    busy["on"] = True
    admission.yield_to_engine()  # the request begins
    clock.now += 0.03
    with gate.admit():  # admitted after 30 ms of validation: a pause of 120 ms first
        clock.now += 0.01
    assert clock.slept[2:] == [0.12, 0.04]
