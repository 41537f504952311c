"""Autodiff under threads: grad mode, the interpreter stack and AdContext are per
thread (PyTorch's semantics), so eager backward, functional transforms and jit in
several threads give exactly the results of a serial run.

Every threaded result is compared with the same computation run serially first, and
the serial gradients with central finite differences (so a wrong rule cannot pass
twice)."""
import contextlib
import threading

import numpy as np
import pytest

import tenferro as tf
from tenferro import _primitive


def _run_threads(target, n):
    """Run ``target(k)`` in ``n`` threads started together; re-raise the first error."""
    errors = []
    start = threading.Barrier(n)

    def body(k):
        try:
            start.wait()
            target(k)
        except BaseException as e:  # noqa: BLE001  (reported in the main thread)
            errors.append(e)

    ts = [threading.Thread(target=body, args=(k,)) for k in range(n)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(timeout=120)
        assert not t.is_alive(), "a thread hung"
    if errors:
        raise errors[0]


@contextlib.contextmanager
def _meanwhile(fn):
    """Run ``fn(pause)`` in another thread; ``pause()`` there signals that it got where
    it should and waits for the end of the ``with`` block, whose body runs meanwhile."""
    inside, release = threading.Event(), threading.Event()

    def pause():
        inside.set()
        release.wait(30)

    t = threading.Thread(target=fn, args=(pause,))
    t.start()
    try:
        assert inside.wait(30)
        yield
    finally:
        release.set()
        t.join()


def _loss(w, x):
    return (tf.tanh(w @ x) ** 2).sum() + tf.sin(w).sum()


def _loss_np(w, x):
    return (np.tanh(w @ x) ** 2).sum() + np.sin(w).sum()


def _fd_grad(f, w, eps=1e-6):
    g = np.zeros_like(w)
    for i in np.ndindex(w.shape):
        d = np.zeros_like(w)
        d[i] = eps
        g[i] = (f(w + d) - f(w - d)) / (2 * eps)
    return g


def _inputs(k, i):
    rng = np.random.default_rng(1000 * k + i)
    return rng.standard_normal((3, 3)), rng.standard_normal((3, 2))


def _eager(w_np, x_np):
    w = tf.tensor(w_np, requires_grad=True)
    _loss(w, tf.asarray(x_np)).backward()
    return np.asarray(w.grad)


_jitted_grad = tf.jit(tf.grad(_loss))


def _functional(w_np, x_np):
    return np.asarray(tf.grad(_loss)(tf.asarray(w_np), tf.asarray(x_np)))


def _jit(w_np, x_np):
    return np.asarray(_jitted_grad(tf.asarray(w_np), tf.asarray(x_np)))


def _jvp(w_np, x_np):
    v = np.ones_like(w_np)
    _, t = tf.jvp(lambda w: _loss(w, tf.asarray(x_np)), (tf.asarray(w_np),),
                  (tf.asarray(v),))
    return np.asarray(t)


def test_serial_reference_matches_finite_differences():
    w, x = _inputs(0, 0)
    g = _fd_grad(lambda w: _loss_np(w, x), w)
    np.testing.assert_allclose(_eager(w, x), g, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(_functional(w, x), g, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(_jit(w, x), g, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(_jvp(w, x), g.sum(), rtol=1e-6)


@pytest.mark.parametrize("nthreads", [4, 8])
def test_mixed_autodiff_in_threads_matches_serial(nthreads):
    """Threads mixing eager backward, grad, jvp and jit: every result equals the serial
    one (4 threads of eager backward alone used to fail 852 passes of 1200)."""
    kinds = [_eager, _functional, _jit, _jvp]
    n = 40
    expected = {(k, i): kinds[(k + i) % 4](*_inputs(k, i))
                for k in range(nthreads) for i in range(n)}
    got = {}

    def work(k):
        for i in range(n):
            got[(k, i)] = kinds[(k + i) % 4](*_inputs(k, i))

    _run_threads(work, nthreads)
    assert set(got) == set(expected)
    for key, g in got.items():
        np.testing.assert_array_equal(g, expected[key], err_msg=str(key))


def test_no_grad_is_per_thread():
    """``no_grad`` (and backward's own switch of grad mode) in one thread does not stop
    recording in another."""
    seen = {}

    def holder(pause):
        with tf.no_grad():
            seen["holder"] = tf.is_grad_enabled()
            pause()

    with _meanwhile(holder):
        assert seen["holder"] is False
        assert tf.is_grad_enabled()
        w = tf.ones(3, requires_grad=True)
        y = (w * w).sum()
        assert y.grad_fn is not None
        y.backward()
        np.testing.assert_array_equal(np.asarray(w.grad), [2.0, 2.0, 2.0])


def test_new_thread_starts_with_grad_enabled_and_no_transform():
    state = {}

    def body():
        state["enabled"] = tf.is_grad_enabled()
        state["interpreters"] = list(_primitive.state.interpreters)
        state["context"] = _primitive.state.context

    with tf.no_grad():
        def f(x):
            t = threading.Thread(target=body)
            t.start()
            t.join()
            return (x * x).sum()
        tf.grad(f)(tf.ones(2))
    assert state == {"enabled": True, "interpreters": [], "context": None}


def test_transform_in_one_thread_does_not_capture_another_threads_ops():
    """While one thread is inside ``tf.grad``, another thread's eager ops run eagerly
    and its tape records as usual."""
    out = {}

    def transform(pause):
        def f(x):
            pause()
            return (x ** 3).sum()
        out["grad"] = np.asarray(tf.grad(f)(tf.asarray([1.0, 2.0])))

    with _meanwhile(transform):
        assert _primitive._interpreters and not _primitive.state.interpreters
        w = tf.tensor([1.0, 3.0], requires_grad=True)
        y = (w * w * w).sum()
        assert type(y) is tf.Tensor
        y.backward()
        np.testing.assert_array_equal(np.asarray(w.grad), [3.0, 27.0])
        # out= is allowed here: this thread is not tracing
        o = tf.empty(2)
        tf.add(tf.ones(2), tf.ones(2), out=o)
        np.testing.assert_array_equal(np.asarray(o), [2.0, 2.0])
    np.testing.assert_array_equal(out["grad"], [3.0, 12.0])


def test_adcontext_is_per_thread():
    """Custom rules in force in one thread do not change another thread's gradients."""
    ctx = tf.AdContext()
    ctx.def_vjp("sin", lambda ct, primals, out, params, needs: (ct * 0 + 7.0,))
    out = {}

    def other(pause):
        with ctx:
            out["ctx"] = np.asarray(tf.grad(lambda x: tf.sin(x).sum())(tf.zeros(2)))
            pause()

    with _meanwhile(other):
        g = tf.grad(lambda x: tf.sin(x).sum())(tf.zeros(2))
        np.testing.assert_array_equal(np.asarray(g), [1.0, 1.0])
    np.testing.assert_array_equal(out["ctx"], [7.0, 7.0])


def test_concurrent_backward_into_a_shared_leaf_accumulates_every_pass():
    """Backward passes in several threads that share a leaf all add into its ``.grad``
    (the accumulation is locked, as PyTorch's AccumulateGrad)."""
    w = tf.tensor(np.linspace(0.1, 1.0, 200), requires_grad=True)
    nthreads, n = 4, 25

    def work(k):
        for _ in range(n):
            (w * w).sum().backward()

    _run_threads(work, nthreads)
    np.testing.assert_allclose(np.asarray(w.grad), nthreads * n * 2 * np.linspace(0.1, 1.0, 200),
                               rtol=1e-12)


def test_trace_levels_stay_ordered_across_threads():
    """Another thread's transform closing between this thread's outer and inner
    transforms must not give the inner one the outer one's level (levels once came from
    the length of a shared stack: perturbation confusion)."""
    opened = threading.Event()
    close = threading.Event()

    def other():
        def f(x):
            opened.set()
            close.wait(30)
            return (x * x).sum()
        tf.grad(f)(tf.ones(2))

    t = threading.Thread(target=other)
    t.start()
    try:
        assert opened.wait(30)

        # d/dx [x * d/dy (x*y)] = d/dx [x * x] = 2x  (perturbation confusion gives 3x)
        def f(x):
            close.set()      # the other thread's transform closes now ...
            t.join()
            inner = tf.grad(lambda y: (x * y).sum())(tf.ones(()))  # ... before this opens
            return (x * inner).sum()

        assert float(tf.grad(f)(tf.asarray(2.0))) == 4.0
    finally:
        close.set()
        t.join()
