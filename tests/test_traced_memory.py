"""Buffer reuse in compiled programs (issue 6): liveness (each intermediate dropped
after its last use), in-place elementwise steps into dying, unaliased inputs, and
``Program.memory_plan``.  Plans are checked against figures computed by hand from the
programs' shapes; every value against eager tenferro and the program compiled with
``reuse=False``; the real peak memory of a run (tracemalloc, which sees the CPU
buffers) against the plan.  Programs are compiled without the ``fuse`` pass: a fused
chain has no intermediates to free (the last test checks that)."""
import tracemalloc

import numpy as np
import pytest

import tenferro as tf
import tenferro.linalg as tl
from tenferro.graph import PASSES
from tenferro.devices.cpu import Driver as CPUDriver

from conftest import assert_close, sample, stable_rng

N = 10**6
MB = N * 8   # one float64 buffer of N elements
UNFUSED = tuple(p for p in PASSES if p != "fuse")


def _compile(g, reuse=True):
    return tf.compile(g, UNFUSED, reuse)


def _t(shape, *key, dtype="float64"):
    return tf.asarray(sample(stable_rng("traced-memory", *key), shape, dtype))


def _chain(k):
    """k elementwise steps alternating unary and binary (with a scalar)."""
    def f(x):
        for i in range(k):
            x = tf.sin(x) if i % 2 == 0 else x * 0.9
        return x
    return f


def _programs(f, *args):
    """The program with reuse, the program without, and the eager value of ``f``."""
    g = tf.make_graph(f, *args)
    return _compile(g), _compile(g, reuse=False), f(*args)


def _check_values(f, *args):
    p, q, want = _programs(f, *args)
    copies = [a.numpy().copy() for a in args]
    flat = lambda r: r if isinstance(r, tuple) else (r,)   # noqa: E731
    for run in range(2):
        got, ref = flat(p(*args)), flat(q(*args))
        for a, b, w in zip(got, ref, flat(want)):
            assert_close(a, w.numpy(), rtol=1e-14, atol=1e-14)
            assert_close(a, b.numpy(), rtol=0, atol=0)
        for a, c in zip(args, copies):   # inputs are never written
            np.testing.assert_array_equal(a.numpy(), c)
    return p


# -- memory_plan against hand-computed figures ---------------------------------------

def test_chain_plan_in_place():
    k = 7
    x = _t((N,), "chain")
    p = _check_values(_chain(k), x)
    m = p.memory_plan()
    # the first step cannot write into the input; every later step writes in place
    assert m.ops == ("sin", "multiply") * 3 + ("sin",)
    assert m.live_bytes == (2 * MB,) * k
    assert (m.peak_bytes, m.peak_step) == (2 * MB, 0)
    assert (m.input_bytes, m.output_bytes) == (MB, MB)
    assert m.inplace_steps == tuple(range(1, k)) and m.inplace == k - 1
    assert m.no_reuse_peak_bytes == (k + 1) * MB
    assert "in place" in str(m) and "15.3 MiB" in repr(m)


def test_chain_plan_without_reuse():
    k = 5
    m = _compile(tf.make_graph(_chain(k), tf.TensorSpec((N,))), reuse=False).memory_plan()
    assert m.live_bytes == tuple((i + 2) * MB for i in range(k))
    assert (m.peak_bytes, m.peak_step) == ((k + 1) * MB, k - 1)
    assert m.no_reuse_peak_bytes == (k + 1) * MB and m.inplace == 0


def test_driver_without_inplace_ops_only_frees(monkeypatch):
    """A driver that does not declare inplace_ops gets no in-place step: each step
    holds the input, its argument and its result."""
    monkeypatch.setattr(CPUDriver, "inplace_ops", frozenset())
    k = 6
    x = _t((N,), "no-inplace")
    p = _check_values(_chain(k), x)
    m = p.memory_plan()
    assert m.inplace == 0
    assert m.live_bytes == (2 * MB,) + (3 * MB,) * (k - 1)
    assert (m.peak_bytes, m.peak_step) == (3 * MB, 1)
    assert m.no_reuse_peak_bytes == (k + 1) * MB


def test_plan_with_a_view_and_two_outputs():
    # b = exp(a); c = b.T (a view); d = c * 2; e = d + 1 (in place into d);
    # f = sin(b): in place into b, whose view c died at step 2
    def f(x):
        y = tf.exp(x)
        return y.T * 2.0 + 1.0, tf.sin(y)
    x = _t((500, 250), "view-two-outputs")
    B = 500 * 250 * 8
    m = _check_values(f, x).memory_plan()
    assert m.ops == ("exp", "permute_dims", "multiply", "add", "sin")
    assert m.live_bytes == (2 * B, 2 * B, 3 * B, 3 * B, 3 * B)
    assert (m.peak_bytes, m.peak_step) == (3 * B, 2)
    assert (m.input_bytes, m.output_bytes) == (B, 2 * B)
    assert m.inplace_steps == (3, 4)
    assert m.no_reuse_peak_bytes == 5 * B   # the view has no buffer of its own


def test_empty_program_and_input_output():
    m = _compile(tf.make_graph(lambda x: x, tf.TensorSpec((10,)))).memory_plan()
    assert (m.peak_bytes, m.peak_step, m.input_bytes, m.output_bytes) == (80, None, 80, 0)
    assert m.live_bytes == () and m.inplace == 0


def test_memory_plan_device_argument():
    p = _compile(tf.make_graph(_chain(3), tf.TensorSpec((N,))))
    assert p.memory_plan("cpu") == p.memory_plan(tf.device("cpu")) == p.memory_plan()
    with pytest.raises(ValueError, match="unknown device type 'nosuchdevice'"):
        p.memory_plan("nosuchdevice")
    with pytest.raises(TypeError, match="expected a device name .* got 3"):
        p.memory_plan(3)


def test_jit_reuse_flag():
    x = _t((N,), "jit")
    for reuse, inplace in ((True, 3), (False, 0)):
        j = tf.jit(_chain(4), passes=UNFUSED, reuse=reuse)
        assert_close(j(x), _chain(4)(x).numpy(), rtol=1e-14, atol=1e-14)
        (prog,) = j._cache.values()
        assert prog.memory_plan().inplace == inplace


# -- aliasing: a view keeps its buffer, outputs are never written --------------------

VIEWS = {
    "permute_dims": lambda y: y.T,
    "reshape": lambda y: tf.reshape(y, (200, 100)),
    "basic_index": lambda y: y[::2, 1:],
    "diagonal": lambda y: tf.diagonal(y),
    "broadcast_to": lambda y: tf.broadcast_to(y[:1], (7, 100, 200)),
    "einsum": lambda y: tf.einsum("ij->ji", y),   # may return a view of its input
}


@pytest.mark.parametrize("view", list(VIEWS))
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_live_view_blocks_in_place(view, dtype):
    """sin(y) is y's last use, but a view of y is read afterwards: writing sin(y) into
    y's buffer would change the view's values."""
    v = VIEWS[view]

    def f(x):
        y = tf.exp(x)
        w = v(y)
        z = tf.sin(y)
        return tf.sum(z) + tf.sum(w * 3.0)
    x = _t((100, 200), "live-view", view, dtype=dtype)
    p = _check_values(f, x)
    step = p.memory_plan().ops.index("sin")
    assert step not in p.memory_plan().inplace_steps


@pytest.mark.parametrize("view", list(VIEWS))
def test_output_view_is_never_overwritten(view):
    v = VIEWS[view]
    x = _t((100, 200), "output-view", view)
    p = _check_values(lambda x: (v(tf.exp(x)), tf.cos(tf.exp(x) * 2.0)), x)
    assert p.memory_plan().output_bytes >= x.size * 8


def test_outputs_are_never_overwritten():
    def f(x):
        y = tf.exp(x)
        z = tf.sin(y)
        return y, z, tf.cos(z) + 1.0
    x = _t((N,), "outputs")
    p = _check_values(f, x)
    m = p.memory_plan()
    assert m.inplace_steps == (3,)   # only the add, into cos(z)'s buffer
    first = [o.numpy().copy() for o in p(x)]
    again = p(x)
    for a, b in zip(first, again):   # a second run does not write the first's outputs
        np.testing.assert_array_equal(a, b.numpy())


def test_exact_alias_in_place_and_partial_overlap_refused():
    def f(x):
        y = tf.exp(x)
        z = tf.cos(x)
        return (y * y).sum() + (z * z.T).sum()
    x = _t((300, 300), "alias")
    p = _check_values(f, x)
    ops, inplace = p.memory_plan().ops, p.memory_plan().inplace_steps
    # y * y writes into y (exact aliasing); z * z.T may not write into z
    muls = [s for s, o in enumerate(ops) if o == "multiply"]
    assert muls[0] in inplace and muls[1] not in inplace


def test_dtype_and_shape_changes_are_not_in_place():
    def f(x):
        a = tf.abs(tf.exp(x))            # complex -> float: a new buffer
        b = tf.sqrt(a) + 1.0              # in place
        return tf.sum(b[:, None] * b[None, :10])   # broadcast: a new, larger buffer
    x = _t((2000,), "dtype", dtype="complex128")
    p = _check_values(f, x)
    m = p.memory_plan()
    assert [m.ops[s] for s in m.inplace_steps] == ["sqrt", "add"]


def test_multiple_results_are_not_written_in_place():
    def f(a):
        w, v = tl.eigh(a @ a.T)
        return tf.sum(tf.exp(v)) + tf.sum(w)
    a = _t((40, 40), "eigh")
    p = _check_values(f, a)
    m = p.memory_plan()
    assert m.ops.index("exp") not in m.inplace_steps


def test_gradient_program_equals_eager_with_reuse():
    def loss(x, w):
        return tf.sum(tf.tanh(x @ w) ** 2 * tf.sin(x @ w))
    x, w = _t((300, 200), "grad", 0), _t((200, 300), "grad", 1)
    g = tf.make_graph(tf.grad(loss, argnums=(0, 1)), x, w)
    got, ref = _compile(g)(x, w), _compile(g, reuse=False)(x, w)
    want = tf.grad(loss, argnums=(0, 1))(x, w)
    for a, b, c in zip(got, ref, want):
        assert_close(a, c.numpy(), rtol=1e-12, atol=1e-12)
        assert_close(a, b.numpy(), rtol=0, atol=0)
    assert _compile(g).memory_plan().inplace > 0


# -- measured: the real peak of a run is the plan's -----------------------------------

def _measured_peak(p, x):
    """The peak of the memory allocated while ``p(x)`` runs (tracemalloc sees the CPU
    driver's buffers: NumPy traces every data allocation), plus the input's bytes."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        out = p(x)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    del out
    return peak + x.size * x.dtype.itemsize


def test_measured_peak_matches_plan(monkeypatch):
    k = 24
    x = _t((N,), "measured")
    g = tf.make_graph(_chain(k), x)
    for reuse in (True, False):
        p = _compile(g, reuse=reuse)
        p(x)   # plan once
        m = p.memory_plan()
        peak = _measured_peak(p, x)
        assert m.peak_bytes <= peak <= m.peak_bytes + 2**20, (reuse, peak, m)
    assert _compile(g).memory_plan().peak_bytes == 2 * MB
    assert _compile(g, reuse=False).memory_plan().peak_bytes == (k + 1) * MB
    monkeypatch.setattr(CPUDriver, "inplace_ops", frozenset())
    p = _compile(g)
    p(x)
    peak = _measured_peak(p, x)   # freed after last use, never in place
    assert p.memory_plan().peak_bytes == 3 * MB
    assert 3 * MB <= peak <= 3 * MB + 2**20


def test_a_fused_chain_keeps_only_its_input_and_output():
    p = tf.compile(tf.make_graph(_chain(6), tf.TensorSpec((N,))))
    assert [n.prim.name for n in p.graph.nodes] == ["fused_elementwise"]
    m = p.memory_plan()
    assert (m.peak_bytes, m.no_reuse_peak_bytes) == (2 * MB, 2 * MB)
    x = _t((N,), "fused")
    assert_close(p(x), _chain(6)(x).numpy(), rtol=1e-15, atol=0)
