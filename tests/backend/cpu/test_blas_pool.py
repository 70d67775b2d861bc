"""``blas.run_parallel``: tasks over the pool threads and the calling thread, which runs a task
itself when no pool thread has started it (every pool thread busy, or not yet scheduled)."""

import threading
import time

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
