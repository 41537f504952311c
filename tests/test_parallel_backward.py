"""Parallel backward (``backward(num_workers=k)``, ``set_backward_workers``): the same
results as the serial pass, bit for bit, on many graph shapes; concurrency that is real
(branches overlap), race-free (a leaf fed by many branches, leaves shared by concurrent
passes), errors that propagate naming the op and leave no thread behind, and clear
errors for bad settings."""
import gc
import threading
import time

import numpy as np
import pytest

import tenferro as tf
from tenferro import autograd
from tenferro.autograd import _tape

WORKERS = (2, 3, 4, 8)


@pytest.fixture(autouse=True)
def small_graphs_run_in_parallel(monkeypatch):
    """Run graphs of any size in parallel (the threshold keeps tiny graphs serial)."""
    monkeypatch.setattr(_tape, "PARALLEL_MIN_NODES", 1)


def leaf(a, dtype=None):
    return tf.tensor(np.asarray(a, dtype=dtype), requires_grad=True)


def rnd(*shape, seed=0, dtype=np.float64):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def grads_of(build, leaves, workers, **kw):
    """Run ``build()`` and its backward on ``workers`` threads; the leaves' gradients."""
    for w in leaves:
        w.grad = None
    build().backward(num_workers=workers, **kw)
    return [None if w.grad is None else w.grad.detach().to("cpu").numpy().copy()
            for w in leaves]


def assert_identical(gs, ref):
    assert len(gs) == len(ref)
    for g, r in zip(gs, ref):
        assert (g is None) == (r is None)
        if r is not None:
            assert g.dtype == r.dtype and np.array_equal(g, r, equal_nan=True), \
                np.max(np.abs(g - r))


def check(build, leaves, repeats=3, **kw):
    ref = grads_of(build, leaves, 1, **kw)
    for k in WORKERS:
        for _ in range(repeats):
            assert_identical(grads_of(build, leaves, k, **kw), ref)
    return ref


def backward_threads():
    return [t for t in threading.enumerate() if t.name.startswith("tenferro-backward")]


# -- identical results --------------------------------------------------------------------

def test_diamonds():
    x = leaf(rnd(5, 4))

    def build():
        a, b = tf.sin(x), tf.cos(x)
        c, d = a * b, a / (b + 3.0)
        e = tf.tanh(c + d) * tf.exp(-c)
        return (e * a).sum() + (d ** 2).mean()
    check(build, [x])


def test_a_leaf_used_by_eight_branches_sums_in_the_serial_order():
    # float32 contributions of very different sizes: the sum depends on the order
    w = leaf(np.ones(3), np.float32)
    scales = [1e8, 1.0, -1e8, 3.0, 1e-3, 7e7, -7e7, 0.5]

    def build():
        return sum(((w * np.float32(c)) * tf.tanh(w)).sum() for c in scales)
    check(build, [w], repeats=10)
    parts = [autograd.grad(((w * np.float32(c)) * tf.tanh(w)).sum(), [w])[0].numpy()
             for c in scales]
    sums = set()
    for order in (parts, parts[::-1], sorted(parts, key=lambda p: p[0])):
        acc = order[0]
        for p in order[1:]:
            acc = acc + p
        sums.add(acc.tobytes())
    assert len(sums) > 1     # the test has teeth: another order gives another sum


def test_eight_heavy_branches_sharing_a_leaf():
    w = leaf(rnd(40, 40, seed=1))
    xs = [tf.asarray(rnd(30, 40, seed=s)) for s in range(8)]

    def build():
        return sum((tf.tanh(x @ w) @ w.T).sum() * (k + 1) for k, x in enumerate(xs))
    check(build, [w])


def test_long_chain_and_branches_after_it():
    x = leaf(rnd(6, seed=2))

    def build():
        h = x
        for k in range(300):
            h = tf.sin(h) * 1.01 + 0.001 * k
        return sum((h * c).sum() for c in (1.0, 2.0, 3.0, 4.0)) + tf.exp(h).sum()
    check(build, [x], repeats=1)


def test_several_leaves_roots_and_multiple_outputs():
    a, b = leaf(rnd(4, 4, seed=3)), leaf(rnd(4, 4, seed=4))

    def build():
        q, r = tf.linalg.qr(a @ b + tf.eye(4) * 3)
        return (q.sum() * r).sum() + (tf.sort(a, axis=0) * b).sum()
    check(build, [a, b])
    # several roots at once
    ref = None
    for k in (1,) + WORKERS:
        a.grad = b.grad = None
        l1, l2 = (a * b).sum(), (tf.sin(a) + b).sum()
        autograd.backward([l1, l2, l1], num_workers=k)
        got = [a.grad.numpy(), b.grad.numpy()]
        ref = got if ref is None else ref
        assert_identical(got, ref)


def test_complex():
    z = leaf(rnd(3, 3, seed=5) + 1j * rnd(3, 3, seed=6))

    def build():
        u = tf.exp(z) * tf.conj(z)
        v = tf.abs(z @ z) ** 2
        return (tf.abs(u) + v + tf.real(u * z)).sum()
    check(build, [z])


def test_create_graph_and_double_backward():
    x = leaf(rnd(5, seed=7))

    def run(k):
        x.grad = None
        y = (tf.sin(x) * tf.cos(x) * x + tf.exp(x).sum() * x).sum()
        g, = autograd.grad(y, [x], create_graph=True, num_workers=k)
        h, = autograd.grad((g * g).sum() + g.sum() * g[0], [x], retain_graph=True,
                           num_workers=k)
        (g ** 3).sum().backward(num_workers=k)
        return [g.detach().numpy(), h.numpy(), x.grad.detach().numpy()]
    ref = run(1)
    for k in WORKERS:
        assert_identical(run(k), ref)


def test_retain_graph_accumulates_identically():
    w = leaf(rnd(4, seed=8))

    def run(k):
        w.grad = None
        y = (tf.tanh(w) * w).sum() + (w ** 3).sum()
        y.backward(retain_graph=True, num_workers=k)
        y.backward(num_workers=k)
        with pytest.raises(RuntimeError, match="second time"):
            y.backward(num_workers=k)
        return [w.grad.numpy()]
    ref = run(1)
    for k in WORKERS:
        assert_identical(run(k), ref)


def test_inputs_and_pruning():
    a, b, c = leaf(rnd(3, seed=9)), leaf(rnd(3, seed=10)), leaf(rnd(3, seed=11))

    def outs():
        h = tf.sin(a) * b
        return (h * c).sum() + tf.exp(h).sum(), h

    ref = None
    for k in (1,) + WORKERS:
        y, h = outs()
        got = autograd.grad(y, [a, h], retain_graph=True, num_workers=k)
        unused = autograd.grad(y, [a, leaf(np.ones(2))], allow_unused=True,
                               retain_graph=True, num_workers=k)
        for t in (a, b, c, h):
            t.grad = None
        h.retain_grad()
        y.backward(inputs=[b, h], num_workers=k)
        got = [g.numpy() for g in got] + [unused[0].numpy(), b.grad.numpy(), h.grad.numpy()]
        assert a.grad is None and c.grad is None and unused[1] is None
        ref = got if ref is None else ref
        assert_identical(got, ref)


def test_hooks_run_once_each_with_the_serial_gradients():
    w = leaf(rnd(4, seed=12))

    def run(k):
        seen, post = [], []
        w.grad = None
        hs = [w.register_hook(lambda g: g * 2.0),
              w.register_post_accumulate_grad_hook(lambda t: post.append(t.grad.numpy()))]
        mids = [tf.sin(w * (j + 1)) for j in range(6)]
        for j, m in enumerate(mids):
            m.register_hook(lambda g, j=j: seen.append((j, g.numpy().copy())))
            if j % 2:
                m.register_hook(lambda g: g + 1.0)
            m.retain_grad()
        sum((m * m).sum() for m in mids).backward(num_workers=k)
        for h in hs:
            h.remove()
        return [w.grad.numpy()] + [m.grad.numpy() for m in mids] + \
            [g for _, g in sorted(seen, key=lambda p: p[0])] + post
    ref = run(1)
    assert len(ref) == 1 + 6 + 6 + 1
    for k in WORKERS:
        for _ in range(3):
            assert_identical(run(k), ref)


def test_checkpoint_nodes_recompute_identically():
    x = leaf(rnd(5, 5, seed=13))

    def block(v):
        return tf.tanh(v @ v.T) * tf.random.normal(size=v.shape)

    def run(k):
        x.grad = None
        tf.random.seed(3)
        ys = [tf.checkpoint(block, x * (j + 1)) for j in range(4)]
        ys.append(tf.checkpoint_sequential([tf.sin, tf.exp, lambda v: v @ v], 5, x))
        tf.random.normal(size=7)   # the generator moves on before backward
        sum(y.sum() for y in ys).backward(num_workers=k)
        return [x.grad.numpy()]
    ref = run(1)
    for k in WORKERS:
        assert_identical(run(k), ref)


def test_is_checkpointing_in_recomputations_on_worker_threads():
    x = leaf(rnd(4, seed=14))
    seen = []

    def block(v):
        seen.append((tf.is_checkpointing(), threading.current_thread().name))
        time.sleep(0.02)   # let the other workers take the other recomputations
        return tf.sin(v) * v
    ys = [tf.checkpoint(block, x + j) for j in range(6)]
    assert seen == [(False, threading.current_thread().name)] * 6   # the forward runs
    del seen[:]
    sum(y.sum() for y in ys).backward(num_workers=3)
    assert [flag for flag, _ in seen] == [True] * 6
    assert len({name for _, name in seen}) > 1
    assert not tf.is_checkpointing()


def test_ad_context_reaches_the_workers():
    ctx = tf.AdContext({"exp": {"vjp": lambda ct, primals, out, params, needs:
                                (ct * 3.0 * tf.cos(primals[0]),)}})
    x = leaf(rnd(4, seed=15))

    def build():
        with ctx:
            return sum(tf.exp(x * j).sum() for j in range(1, 5))
    check(build, [x])
    with ctx:
        ref = grads_of(lambda: tf.exp(x).sum() + tf.sin(x).sum(), [x], 1)
        assert_identical(grads_of(lambda: tf.exp(x).sum() + tf.sin(x).sum(), [x], 4), ref)


# -- concurrency, races ---------------------------------------------------------------------

def test_branches_overlap():
    x = leaf(rnd(3, seed=16))
    names = set()

    def build():
        branches = []
        for j in range(4):
            m = tf.sin(x + j)
            m.register_hook(lambda g: (names.add(threading.current_thread().name),
                                       time.sleep(0.1))[0])
            branches.append(m.sum())
        return sum(branches)
    t0 = time.perf_counter()
    grads_of(build, [x], 1)
    serial = time.perf_counter() - t0
    names.clear()
    t0 = time.perf_counter()
    grads_of(build, [x], 4)
    parallel = time.perf_counter() - t0
    assert serial >= 0.4 and parallel < 0.6 * serial, (serial, parallel)
    assert len(names) > 1


def test_a_leaf_fed_by_many_concurrent_branches_is_race_free():
    w = leaf(rnd(64, seed=17))
    cs = rnd(48, seed=18)

    def build():
        return sum((tf.sin(w * c) * c).sum() for c in cs)
    ref = grads_of(build, [w], 1)
    for k in range(2, 9):
        for _ in range(50 if k in (2, 8) else 8):
            assert_identical(grads_of(build, [w], k), ref)


def test_batched_and_single_products_with_two_blas_threads():
    """Branches mixing batched products (spread over the kernel pool with BLAS held at
    one thread) and single 300^2 products (BLAS at two threads) on concurrent workers:
    BLAS's results depend on its thread count, so this is identical to the serial pass
    only because the kernels change the count through the BLAS gate (_blas_gate.h);
    BLAS has tenferro's count again afterwards."""
    from tenferro.devices.cpu import blas
    if blas.get_blas_threads() is None:
        pytest.skip("no BLAS thread control")
    w = leaf(rnd(300, 300, seed=40))
    wb = leaf(rnd(8, 200, 200, seed=41))
    xs = [tf.asarray(rnd(300, 300, seed=42 + s)) for s in range(3)]
    xb = [tf.asarray(rnd(8, 200, 200, seed=46 + s)) for s in range(3)]

    def build():
        single = sum(((x @ w) @ w).sum() * (k + 1) for k, x in enumerate(xs))
        batched = sum(((x @ wb) @ wb).sum() * (k + 2) for k, x in enumerate(xb))
        return single + batched
    with tf.num_threads(2):
        ref = grads_of(build, [w, wb], 1)
        for k in (2, 4):
            for _ in range(4):
                assert_identical(grads_of(build, [w, wb], k), ref)
    assert blas._info()["_get"]() == tf.get_num_threads()


def test_concurrent_passes_share_a_leaf():
    w = leaf(np.ones(5))
    errors = []

    def user():
        try:
            for _ in range(10):
                sum((w * float(2 ** j)).sum() for j in range(4)).backward(num_workers=2)
        except Exception as e:   # pragma: no cover - reported below
            errors.append(e)
    users = [threading.Thread(target=user) for _ in range(4)]
    for t in users:
        t.start()
    for t in users:
        t.join()
    assert not errors
    np.testing.assert_array_equal(w.grad.numpy(), np.full(5, 40 * 15.0))


def test_small_graphs_and_other_devices_run_serially(monkeypatch):
    monkeypatch.setattr(_tape, "PARALLEL_MIN_NODES", 8)
    x = leaf(rnd(3, seed=19))
    names = []
    m = tf.sin(x)
    m.register_hook(lambda g: names.append(threading.current_thread().name))
    (m * 2).sum().backward(num_workers=4)   # 4 nodes
    assert names == [threading.current_thread().name]


def test_graphs_on_other_devices_run_serially(accel_device):
    x = tf.tensor(np.linspace(0.1, 0.9, 4), device=accel_device,
                  dtype=np.float32).requires_grad_()
    names = []
    ms = [tf.sin(x * float(j)) for j in range(1, 6)]
    for m in ms:
        m.register_hook(lambda g: names.append(threading.current_thread().name))
    ref = grads_of(lambda: sum((m * m).sum() for m in ms), [x], 1, retain_graph=True)
    names.clear()
    assert_identical(grads_of(lambda: sum((m * m).sum() for m in ms), [x], 4), ref)
    assert set(names) == {threading.current_thread().name}


def test_no_reference_cycles_and_no_threads_left():
    x = leaf(rnd(3, seed=20))
    sum(tf.sin(x * j).sum() for j in range(8)).backward(num_workers=4)   # warm up
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for _ in range(3):
            sum(tf.sin(x * j).sum() for j in range(8)).backward(num_workers=4)
        gc.collect()
        # only tenferro's objects: other libraries' threads (a Dask cluster of an
        # earlier test) may make garbage of their own meanwhile
        ours = [type(o).__name__ for o in gc.garbage
                if type(o).__module__.startswith("tenferro")]
        assert not ours, ours
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert not backward_threads()


# -- errors --------------------------------------------------------------------------------

def test_an_error_in_one_branch_propagates_naming_the_op():
    x = leaf(rnd(3, seed=21))

    def boom(g):
        raise ValueError("hook failed")
    for k in WORKERS:
        ms = [tf.sin(x + j) for j in range(6)]
        ms[3].register_hook(boom)
        with pytest.raises(ValueError, match="hook failed") as info:
            sum((m * m).sum() for m in ms).backward(num_workers=k)
        if hasattr(info.value, "add_note"):   # Python 3.11+
            assert "tenferro: raised in the backward of SinBackward" in info.value.__notes__
        assert not backward_threads()
    # the freed-graph error names the op too
    y = sum(tf.exp(x * j).sum() for j in range(6))
    y.backward(num_workers=2)
    with pytest.raises(RuntimeError, match="Backward were released"):
        y.backward(num_workers=2)
    assert not backward_threads()
    # and the next pass works
    x.grad = None
    check(lambda: sum(tf.cos(x * j).sum() for j in range(6)), [x], repeats=1)


def test_a_failing_rule_stops_the_pass():
    def bad_rule(ct, primals, out, params, needs):
        raise ArithmeticError("rule failed")
    x = leaf(rnd(3, seed=23))
    with tf.AdContext({"exp": {"vjp": bad_rule}}):
        y = sum(tf.sin(x * j).sum() for j in range(6)) + tf.exp(x).sum()
    for k in WORKERS:
        with pytest.raises(ArithmeticError, match="rule failed") as info:
            y.backward(retain_graph=True, num_workers=k)
        if hasattr(info.value, "add_note"):
            assert "tenferro: raised in the backward of ExpBackward" in info.value.__notes__
        assert not backward_threads()


def test_a_backward_started_on_a_worker_runs_serially():
    x, z = leaf(rnd(3, seed=24)), leaf(rnd(3, seed=25))
    inner = []

    def hook(g):   # a hook that differentiates something else, on a worker thread
        with tf.enable_grad():   # backward runs with grad mode off, as PyTorch's
            w = z * 1.0
            y = (tf.sin(w) * w).sum() + tf.exp(w).sum()
        inner.append((autograd.grad(y, [z], num_workers=4)[0].numpy(),
                      _tape.in_backward_worker()))
    ref = None
    for k in (1,) + WORKERS:
        del inner[:]
        ms = [tf.sin(x * j) for j in range(1, 7)]
        ms[2].register_hook(hook)
        got = grads_of(lambda: sum(m.sum() for m in ms), [x], k)
        assert len(inner) == 1 and inner[0][1] == (k > 1)
        got.append(inner[0][0])
        ref = got if ref is None else ref
        assert_identical(got, ref)


def test_bad_num_workers():
    y = leaf(np.ones(2)).sum()
    for bad in (0, -1, 1.5, True, "2", 10 ** 6):
        with pytest.raises(ValueError, match=r"tenferro.backward: num_workers must be"):
            y.backward(num_workers=bad, retain_graph=True)
        with pytest.raises(ValueError, match=r"tenferro.autograd.grad: num_workers"):
            autograd.grad(y, [leaf(np.ones(2))], num_workers=bad, allow_unused=True)
        with pytest.raises(ValueError, match=r"tenferro.set_backward_workers: num_workers"):
            tf.set_backward_workers(bad)
    assert tf.get_backward_workers() == 1
    y.backward(num_workers=np.int64(2))


def test_the_global_setting():
    assert tf.get_backward_workers() == 1
    x = leaf(rnd(3, seed=22))
    names = set()

    def build():
        ms = [tf.sin(x + j) for j in range(4)]
        for m in ms:
            m.register_hook(lambda g: (names.add(threading.current_thread().name),
                                       time.sleep(0.05))[0])
        return sum(m.sum() for m in ms)
    with tf.backward_workers(4):
        assert tf.get_backward_workers() == 4
        ref = grads_of(build, [x], None)
    assert tf.get_backward_workers() == 1 and len(names) > 1
    names.clear()
    tf.set_backward_workers(3)
    try:
        assert_identical(grads_of(build, [x], None), ref)
        assert len(names) > 1
        names.clear()
        assert_identical(grads_of(build, [x], 1), ref)   # num_workers= wins
        assert names == {threading.current_thread().name}
    finally:
        tf.set_backward_workers(None)
    assert tf.get_backward_workers() == 1
