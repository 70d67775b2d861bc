"""``blas.run_parallel``: tasks over the pool threads and the calling thread, which runs a task
itself when no pool thread has started it (every pool thread busy, or not yet scheduled);
``blas.spare_core``: whether other processes leave a core idle."""

import threading
import time
import types

from xlapy.backend.cpu.kernels import blas


def test_run_parallel_runs_every_task_once():
    done = []
    lock = threading.Lock()

    def task(k):
        def run():
            with lock:
                done.append(k)

        return run

    blas.run_parallel([task(k) for k in range(7)])
    assert sorted(done) == list(range(7))


def test_a_task_no_pool_thread_started_runs_on_the_caller():
    blas.run_parallel([lambda: None, lambda: None])  # the pool exists
    pool = blas._pool
    assert pool is not None
    release = threading.Event()
    busy = [pool.submit(release.wait, 10) for _ in range(pool._max_workers)]
    ran_on = []
    start = time.perf_counter()
    try:
        blas.run_parallel([lambda: None, lambda: ran_on.append(threading.get_ident())])
        elapsed = time.perf_counter() - start
    finally:
        release.set()
        for future in busy:
            future.result()
    assert ran_on == [threading.get_ident()]
    assert elapsed < 5


def test_spare_core_when_other_processes_leave_one(monkeypatch):
    """``spare_core``: the machine's busy CPU seconds less this process's, per interval,
    must leave a core (of 2) idle; the first reading has no interval: not spare."""
    clock = {"now": 100.0, "ours": 5.0, "busy": 1000.0}
    monkeypatch.setattr(blas, "workers", lambda: 2)
    monkeypatch.setattr(blas, "_last", {"at": -float("inf"), "busy": 0.0, "ours": 0.0})
    monkeypatch.setattr(blas, "_machine_busy_seconds", lambda: clock["busy"])
    monkeypatch.setattr(
        blas,
        "time",
        types.SimpleNamespace(monotonic=lambda: clock["now"], process_time=lambda: clock["ours"]),
    )
    seen = [blas.spare_core()]
    for ours, others in ((1.0, 0.2), (1.9, 0.05), (0.5, 0.9), (0.0, 0.0)):
        clock["now"] += 1.0
        clock["ours"] += ours
        clock["busy"] += ours + others
        seen.append(blas.spare_core())
    assert seen == [False, True, True, False, True]
    assert blas.spare_core() is True  # within _CHECK_SECONDS: the last reading
