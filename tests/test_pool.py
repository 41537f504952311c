"""The kernels' claim-based thread pool (tenferro/_kernels/_pool.h): every chunk runs
exactly once, chunk errors are summed, and it stays exact with two Python threads
calling at once, with nested calls, with OpenMP instead, and in a forked child."""
import os
import threading

import numpy as np
import pytest

import tenferro as tf
from tenferro._kernels import _elementwise as E


def _expect(n, repeat=1):
    return repeat * np.arange(1, n + 1, dtype=np.int64)


@pytest.mark.parametrize("nthreads", [1, 2, 3, 8])
@pytest.mark.parametrize("n", [1, 2, 7, 64, 1000])
def test_each_chunk_once(n, nthreads):
    out = np.zeros(n, np.int64)
    assert E._pool_check(out, nthreads, repeat=3) == 0
    np.testing.assert_array_equal(out, _expect(n, 3))


def test_chunk_errors_are_summed():
    out = np.zeros(64, np.int64)
    assert E._pool_check(out, 2, fail_every=3) == len(range(0, 64, 3))
    np.testing.assert_array_equal(out, _expect(64))   # the other chunks still ran


def test_nested_calls_run_serially():
    out = np.zeros(4 * 16, np.int64)
    assert E._pool_check(out, 2, nested=True, repeat=50) == 0
    np.testing.assert_array_equal(out, np.full(64, 50))


def test_two_python_threads_at_once():
    """Many small jobs from two threads: a caller that finds the pool busy runs its
    chunks itself; no chunk is lost or run twice, no result mixed up."""
    results = {}
    start = threading.Barrier(2)

    def body(k):
        start.wait()
        out = np.zeros(8 + k, np.int64)
        E._pool_check(out, 2, repeat=20000)
        x = tf.asarray(np.arange(100000.0) * (k + 1))
        got = [np.asarray(x + x).sum() for _ in range(50)]
        results[k] = (out, got)

    ts = [threading.Thread(target=body, args=(k,)) for k in range(2)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(timeout=120)
        assert not t.is_alive(), "a thread hung"
    for k in range(2):
        out, got = results[k]
        np.testing.assert_array_equal(out, _expect(8 + k, 20000))
        assert got == [2.0 * (k + 1) * 99999 * 100000 / 2] * 50


def test_openmp_switch_same_results():
    x = tf.asarray(np.linspace(-3, 3, 300001))
    with tf.num_threads(1):
        want = np.asarray(tf.sin(x) + x)
    old = E.pool(False)[0]
    try:
        out = np.zeros(100, np.int64)
        assert E._pool_check(out, 2, fail_every=10) == 10
        np.testing.assert_array_equal(out, _expect(100))
        np.testing.assert_array_equal(np.asarray(tf.sin(x) + x), want)
    finally:
        E.pool(old)
    np.testing.assert_array_equal(np.asarray(tf.sin(x) + x), want)
    assert E.pool()[1] >= 1          # workers were started above


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_forked_child_starts_its_own_workers():
    out = np.zeros(64, np.int64)
    E._pool_check(out, 2, repeat=10)   # workers exist in the parent
    pid = os.fork()
    if pid == 0:                        # child: the parent's workers are gone
        code = 1
        try:
            o = np.zeros(64, np.int64)
            E._pool_check(o, 2, repeat=1000)
            x = tf.asarray(np.ones(200000))
            code = 0 if (o == _expect(64, 1000)).all() and float((x + x).sum()) == 4e5 else 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 0
    E._pool_check(out, 2, repeat=10)    # and the parent's pool still works
    np.testing.assert_array_equal(out, _expect(64, 20))


@pytest.mark.parametrize("wake_us", [-1, 0, 30, 1e9])
def test_lazy_wake_runs_each_chunk_once(wake_us):
    """Sleeping workers are woken before the first chunk (-1), after it (0), when the
    chunks left would take over 30 us (the default) or never (1e9: the caller runs the
    job alone): every chunk still runs once, with workers asleep or spinning."""
    import time

    old = E.pool(wake_us=wake_us)
    try:
        assert E.pool()[3] == wake_us
        for k in range(20):
            if k % 4 == 0:
                time.sleep(0.01)        # past the workers' spin: they sleep
            out = np.zeros(64, np.int64)
            assert E._pool_check(out, 2, fail_every=5, repeat=3) == 13   # the last round's
            np.testing.assert_array_equal(out, _expect(64, 3))
        xn = np.linspace(-3, 3, 300001)
        x = tf.asarray(xn)
        with tf.num_threads(1):
            one = np.asarray(tf.sin(x))
        np.testing.assert_allclose(one, np.sin(xn), rtol=1e-15, atol=1e-15)
        time.sleep(0.01)
        np.testing.assert_array_equal(np.asarray(tf.sin(x)), one)   # bitwise, 2 threads
    finally:
        E.pool(wake_us=old[3])
    assert E.pool()[3] == old[3] == 30


def test_pool_settings_reject_bad_wake():
    with pytest.raises(ValueError, match="wake_us must be >= 0 or -1, got -5"):
        E.pool(wake_us=-5)


def test_index_kernels_same_bits_on_openmp_and_pool():
    """take, take_along_axis and the scatter-adds give the same bits on the pool, on
    OpenMP (pool(False)) and on one thread."""
    from tenferro.devices.cpu import threads

    rng = np.random.default_rng(5)
    x = tf.asarray(rng.standard_normal((300, 700)))
    idx = tf.asarray(rng.integers(0, 300, 2000))
    along = tf.asarray(rng.integers(0, 700, (300, 64)))
    vals = tf.asarray(rng.standard_normal((300, 64)))

    def run():
        return [np.asarray(f()) for f in (
            lambda: tf.take(x, idx, axis=0),
            lambda: tf.take_along_axis(x, along, axis=1),
            lambda: tf.scatter_add((300, 700), along[0], x[:, :64] * 1.0, 1),
            lambda: tf.scatter_add_along_axis((300, 700), along, vals, 1))]

    with threads.grain(index=1):
        with tf.num_threads(1):
            want = run()
        with tf.num_threads(2):
            got = run()
            old = E.pool(False)[0]
            try:
                omp = run()
            finally:
                E.pool(old)
    for w, g, o in zip(want, got, omp):
        np.testing.assert_array_equal(g, w)
        np.testing.assert_array_equal(o, w)
