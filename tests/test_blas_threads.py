"""BLAS's thread count under concurrent callers (``_pool.h``'s BLAS gate).

Batched products and batched LAPACK calls hold BLAS's process-wide thread count at
one while they spread a batch over the kernel pool; single products run it at
tenferro's count.  BLAS's results depend on its thread count in the last bits, so
every call must run with the count it would have run with alone, whatever other
Python threads (a user's pool, parallel backward's workers) do at the same time, and
the count must be back to tenferro's afterwards.  Every concurrent result here is
compared bit for bit with the same call run alone."""
import os
import signal
import threading
import warnings

import numpy as np
import pytest

import tenferro as tf
from tenferro.devices.cpu import blas as _blas, blas_kernels
from test_threads import _run_threads

pytestmark = pytest.mark.skipif(_blas.get_blas_threads() is None,
                                reason="no BLAS thread control (unknown BLAS)")


def rnd(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def same(x, ref):
    """x (a tensor) equals ref bit for bit (a short message when not)."""
    x = x.numpy()
    assert np.array_equal(x, ref), "differs from the call run alone by up to %.3g" % (
        np.max(np.abs(x - ref)))


def raw_blas_threads():
    """BLAS's own count (its ``get_num_threads``, not the gate's resting count)."""
    return int(_blas._info()["_get"]())


def run_threads(targets):
    """Run the callables together on their own threads; re-raise the first error."""
    _run_threads(lambda k: targets[k](), len(targets))


@pytest.fixture
def two_threads():
    with tf.num_threads(2):
        yield
    assert raw_blas_threads() == tf.get_num_threads()


def test_the_thread_count_changes_results():
    """The premise: products of 300^2 differ between 1 and 2 BLAS threads (if this
    BLAS gives the same bits, the stress tests below cannot fail, and say so)."""
    a, b = tf.asarray(rnd(300, 300, seed=1)), tf.asarray(rnd(300, 300, seed=2))
    with tf.num_threads(1):
        one = (a @ b).numpy()
    with tf.num_threads(2):
        two = (a @ b).numpy()
    if np.array_equal(one, two):
        pytest.skip("this BLAS gives the same bits on 1 and 2 threads")


def test_concurrent_batched_and_single_products_match_serial(two_threads):
    singles = [(tf.asarray(rnd(320, 300, seed=s)), tf.asarray(rnd(300, 310, seed=s + 9)))
               for s in range(2)]
    # 8 x 200^2: spread over the pool with BLAS at one thread (200^2 products differ
    # between 1 and 2 BLAS threads; 128^2 and 256^2 happen not to)
    batched = [(tf.asarray(rnd(8, 200, 200, seed=s + 20)),
                tf.asarray(rnd(8, 200, 200, seed=s + 30))) for s in range(2)]
    ref_single = [(a @ b).numpy() for a, b in singles]
    ref_batched = [(a @ b).numpy() for a, b in batched]
    assert raw_blas_threads() == 2

    def loop(a, b, ref, reps):
        def f():
            for _ in range(reps):
                same(a @ b, ref)
        return f

    targets = [loop(a, b, r, 12) for (a, b), r in zip(singles, ref_single)]
    targets += [loop(a, b, r, 20) for (a, b), r in zip(batched, ref_batched)]
    run_threads(targets)
    assert raw_blas_threads() == 2


def test_concurrent_batched_lapack_and_products_match_serial(two_threads):
    """Batched LAPACK (solves of a batch of 200^2 systems spread over the pool: BLAS at
    one thread) beside single products (BLAS at two)."""
    rng = np.random.default_rng(5)
    m = tf.asarray(rng.standard_normal((4, 200, 200)) + 30 * np.eye(200))
    rhs = tf.asarray(rng.standard_normal((4, 200, 8)))
    a, b = tf.asarray(rnd(300, 300, seed=6)), tf.asarray(rnd(300, 300, seed=7))
    ref_solve = tf.linalg.solve(m, rhs).numpy()
    ref_prod = (a @ b).numpy()

    def solves():
        for _ in range(20):
            same(tf.linalg.solve(m, rhs), ref_solve)

    def prods():
        for _ in range(15):
            same(a @ b, ref_prod)
    run_threads([solves, solves, prods, prods])
    assert raw_blas_threads() == 2


def test_setting_the_count_while_kernels_run(two_threads):
    """``set_blas_threads`` waits for the calls in flight: they keep their count, and
    the count set is the one in force afterwards (a batched call's restore does not
    undo it)."""
    a, b = tf.asarray(rnd(16, 128, 128, seed=3)), tf.asarray(rnd(16, 128, 128, seed=4))
    ref = (a @ b).numpy()
    stop = threading.Event()

    def batched():
        while not stop.is_set():
            same(a @ b, ref)

    def setter():
        try:
            for k in range(40):
                _blas.set_blas_threads(1 + k % 2)
        finally:
            _blas.set_blas_threads(3)
            stop.set()
    run_threads([batched, setter])
    assert raw_blas_threads() == 3 and _blas.get_blas_threads() == 3


def test_the_resting_count_is_reported_while_a_batch_runs(two_threads):
    """``get_blas_threads`` reports the count BLAS has between tenferro's calls, not a
    batched call's temporary one."""
    a, b = tf.asarray(rnd(256, 64, 64, seed=3)), tf.asarray(rnd(256, 64, 64, seed=4))
    seen = []
    stop = threading.Event()

    def batched():
        try:
            for _ in range(30):
                a @ b
        finally:
            stop.set()

    def reader():
        while not stop.is_set():
            seen.append(_blas.get_blas_threads())
    run_threads([batched, reader])
    assert set(seen) <= {2}


def test_the_gate_is_what_the_driver_uses():
    mods = blas_kernels.load()
    assert _blas._kernel_threads is mods["_matmul"]
    assert mods["_matmul"].get_blas_threads() == mods["_lapack"].get_blas_threads()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_fork_while_kernels_run_blas(two_threads):
    """A child forked while another thread is inside the gate (a batched product holding
    BLAS at one thread) forgets that caller: its own products neither hang nor run
    with the batch's count, and BLAS gets tenferro's count back."""
    a, b = tf.asarray(rnd(8, 200, 200, seed=3)), tf.asarray(rnd(8, 200, 200, seed=4))
    s, t = tf.asarray(rnd(300, 300, seed=5)), tf.asarray(rnd(300, 300, seed=6))
    ref_b, ref_s = (a @ b).numpy(), (s @ t).numpy()
    stop = threading.Event()

    def batched():
        while not stop.is_set():
            a @ b

    worker = threading.Thread(target=batched)
    worker.start()
    try:
        for _ in range(8):
            with warnings.catch_warnings():   # 3.12+: fork with threads running
                warnings.simplefilter("ignore", DeprecationWarning)
                pid = os.fork()
            if pid == 0:   # the child: report through the exit status, never return
                code = 1
                try:
                    signal.alarm(60)
                    ok = (np.array_equal((s @ t).numpy(), ref_s)
                          and np.array_equal((a @ b).numpy(), ref_b)
                          and _blas.get_blas_threads() == 2 and raw_blas_threads() == 2)
                    code = 0 if ok else 2
                finally:
                    os._exit(code)
            _, status = os.waitpid(pid, 0)
            assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
    finally:
        stop.set()
        worker.join()
