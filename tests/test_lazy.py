"""Lazy mode (``tenferro.lazy``), part one: values against eager and NumPy, what
realizes, the compiler at work (fusion, CSE, views), the compiled-program cache and
what must not share a program, the benchmark.  Part two (the registry, autodiff,
in-place writes, errors, threads, devices) is tests/test_lazy_semantics.py; it takes
its helpers from here."""
import numpy as np
import pytest

import tenferro as tf
from tenferro._lazy import LazyTensor, is_lazy, tensor_id

L = tf.lazy
RNG = np.random.default_rng(0)
A = RNG.uniform(0.5, 1.5, (3, 4))
B = RNG.uniform(0.5, 1.5, (3, 4))
M = RNG.standard_normal((4, 5))


def x_(a=A):
    return tf.asarray(np.array(a))


def fused_groups(prog):
    return sum(n.prim.name == "fused_elementwise" for n in prog.graph.nodes)


def has_webgpu():
    return tf.devices.get_driver("webgpu").device_count() > 0


def has_cuda():
    try:
        return tf.devices.get_driver("cuda").device_count() > 0
    except Exception:   # noqa: BLE001  (no CUDA and no simulator)
        return False


@pytest.fixture(autouse=True)
def _no_leftovers():
    yield
    assert not tf.lazy.is_lazy_mode()
    assert not [e for e in tf.lazy.live_tensors(pending_only=True)]


# -- values ------------------------------------------------------------------------------

CASES = {
    "arith": lambda x, y: (x * 2.0 + y) / (y - 0.25) - x ** 2,
    "unary": lambda x, y: tf.exp(tf.sin(x)) + tf.log(y) * tf.sqrt(x) - tf.tanh(y),
    "compare": lambda x, y: tf.where(x > y, x, -y),
    "int": lambda x, y: (tf.floor(x * 10).astype("int64") // 3) % 4,
    "reduce": lambda x, y: (x * y).sum(axis=0) + x.max(axis=0) - y.mean(axis=0),
    "reduce-all": lambda x, y: tf.sum(x * y) / tf.prod(y),
    "keepdims": lambda x, y: x - x.mean(axis=1, keepdims=True),
    "matmul": lambda x, y: (x @ tf.asarray(M)) * 2.0,
    "einsum": lambda x, y: tf.einsum("ij,ij->i", x, y) + 1.0,
    "transpose": lambda x, y: (x.T * 2.0).reshape(2, 6),
    "index": lambda x, y: x[1:, ::2] * y[:2, 1::2] + x[0, :2],
    "advanced-index": lambda x, y: x[[0, 2], [1, 3]] * 2,
    "concat": lambda x, y: tf.concatenate([x * 2, y], axis=0),
    "stack": lambda x, y: tf.stack([x, y * 3]).sum(axis=1),
    "cumsum": lambda x, y: tf.cumsum(x * y, axis=1),
    "softmax": lambda x, y: tf.exp(x) / tf.exp(x).sum(axis=1, keepdims=True),
    "astype": lambda x, y: (x * y).astype("float32") + 1,
    "complex": lambda x, y: tf.abs((x + 1j * y) ** 2),
    "clip": lambda x, y: tf.clip(x * 3 - 2, -1.0, 1.0),
    "broadcast": lambda x, y: x[:, :1] * y[:1, :] + tf.asarray([1.0, 2.0, 3.0, 4.0]),
    "0-d": lambda x, y: tf.asarray(2.0) * tf.asarray(3.0) + 1,
    "empty": lambda x, y: x[:0] * 2 + 1,
    "nan": lambda x, y: tf.where(x > 1, tf.nan, x) * 2,
    "negative-axis": lambda x, y: ((x * y).sum(axis=-1)
                                   - tf.argmax(x, axis=-2).astype("float64").sum()),
    "bool": lambda x, y: ((x > 1) & (y < 1)) | ~(x > y),
    "float32": lambda x, y: tf.sin(x.astype("float32")) * tf.asarray(2.0, dtype="float32"),
    "integer-power": lambda x, y: (x * 10).astype("int64") ** 2 - 3,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_match_eager(name):
    f = CASES[name]
    want = f(x_(), x_(B)).numpy()
    with L():
        got = f(x_(), x_(B))
        if isinstance(got, LazyTensor):
            assert is_lazy(got)
    got = got.numpy()
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, equal_nan=True)


def test_values_match_numpy():
    with L():
        y = tf.sin(x_()) * x_(B) + 1.0
        s = (y * y).sum()
    np.testing.assert_allclose(y.numpy(), np.sin(A) * B + 1.0, rtol=1e-14)
    np.testing.assert_allclose(float(s), ((np.sin(A) * B + 1.0) ** 2).sum(), rtol=1e-13)


def test_data_dependent_ops_run_eagerly():
    with L():
        x = x_() - 1.0
        m = x[x > 0]               # boolean mask: its shape needs the values
        nz = tf.nonzero(x > 0)[0]
    want = A - 1.0
    np.testing.assert_array_equal(m.numpy(), want[want > 0])
    np.testing.assert_array_equal(nz.numpy(), np.nonzero(want > 0)[0])


def test_multiple_results():
    import tenferro.linalg as tl

    a = RNG.standard_normal((4, 4))
    with L():
        q, r = tl.qr(x_(a) * 2.0)
        back = q @ r
    np.testing.assert_allclose(back.numpy(), 2 * a, atol=1e-12)


# -- what realizes -----------------------------------------------------------------------

@pytest.mark.parametrize("read", [
    lambda t: t.numpy(), lambda t: np.asarray(t), lambda t: t.tolist(), str, repr,
    lambda t: t.sum().item(), lambda t: float(t[0, 0]), lambda t: bool((t > 0).all()),
    lambda t: [float(v) for v in t[0]], lambda t: format(t[0, 0], ".3f"),
    lambda t: tf.realize(t), lambda t: tf.lazy.realize(t, t),
])
def test_host_reads_realize(read):
    with L():
        y = x_() * 3.0
        assert is_lazy(y)
        read(y)
        assert not is_lazy(y)
    np.testing.assert_allclose(y.numpy(), A * 3.0)


def test_comparison_as_bool():
    with L():
        y = x_().sum()
        if y > 1:          # a lazy bool, realized by the if
            z = y * 2
        else:
            z = y
    assert float(z) == pytest.approx(2 * A.sum())


def test_leaving_the_block_realizes_every_live_tensor():
    with L():
        a = x_() + 1
        b = a * 2
        c = tf.sin(b)
        ids = [tensor_id(t) for t in (a, b, c)]
        assert all(is_lazy(t) for t in (a, b, c))
        before = tf.lazy.cache_info()
    after = tf.lazy.cache_info()
    assert after.misses + after.hits == before.misses + before.hits + 1   # one program
    assert not any(is_lazy(t) for t in (a, b, c))
    assert [tf.lazy.get_tensor(i).realized for i in ids] == [True] * 3
    np.testing.assert_allclose(c.numpy(), np.sin((A + 1) * 2))


def test_used_after_the_block_and_becomes_a_plain_tensor():
    with L():
        y = x_() * 2
    assert type(y) is LazyTensor and not is_lazy(y)
    z = y + 1                       # eager: a plain op on the realized tensor
    assert type(y) is tf.Tensor and type(z) is tf.Tensor
    np.testing.assert_allclose(z.numpy(), A * 2 + 1)


def test_realize_without_arguments_and_decorator():
    @tf.lazy()
    def f(x):
        y = x * 2
        assert is_lazy(y)
        tf.realize()
        assert not is_lazy(y)
        return y + 1
    np.testing.assert_allclose(f(x_()).numpy(), A * 2 + 1)


# -- the compiler at work ----------------------------------------------------------------

def twenty(x):
    y = x
    for k in range(10):
        y = tf.sin(y) * (1.0 + 0.1 * k)
    return y


def test_an_eager_script_becomes_one_fused_kernel():
    x = x_(RNG.standard_normal(1000))
    with L():
        before = tf.lazy.cache_info()
        y = twenty(x)
        assert tf.lazy.cache_info() == before and is_lazy(y)   # recorded, nothing run
    prog = tf.lazy.last_program()
    assert len(prog.graph.nodes) == 1 and fused_groups(prog) == 1
    np.testing.assert_allclose(y.numpy(), twenty(x).numpy(), rtol=1e-14)
    # the same program as jit's
    jprog = tf.jit(twenty).lower(x)
    assert [n.prim.name for n in jprog.graph.nodes] == ["fused_elementwise"]


def test_cse_and_intermediates_computed_once():
    a0 = RNG.uniform(0.5, 1.5, (5, 8))    # over 16 elements: an input, not a constant
    x = x_(a0)
    with L():
        a = tf.exp(x)
        b = tf.exp(x) + a        # the same exp twice: CSE merges them
        c = a * 2                # a is live: an output, computed once
    prog = tf.lazy.last_program()
    inner = [m.prim.name for n in prog.graph.nodes if n.prim.name == "fused_elementwise"
             for m in n.params["graph"].nodes]
    assert inner.count("exp") == 1
    np.testing.assert_allclose(b.numpy(), 2 * np.exp(a0))
    np.testing.assert_allclose(c.numpy(), 2 * np.exp(a0))


def test_live_views_share_the_realized_buffer():
    with L():
        y = x_() * 2
        t = y.T
        r = y.reshape(12)
    assert np.shares_memory(t.numpy(), y.numpy()) and np.shares_memory(r.numpy(), y.numpy())
    y[0, 0] = -1.0                  # as eagerly: the views see the write
    assert float(t[0, 0]) == -1.0 and float(r[0]) == -1.0


# -- the compiled-program cache ------------------------------------------------------------

def run(f, *xs):
    with L():
        y = f(*xs)
    return y.numpy()


def test_the_same_script_twice_hits_the_cache():
    x = x_(RNG.standard_normal(50))
    run(twenty, x)
    before = tf.lazy.cache_info()
    run(twenty, x_(RNG.standard_normal(50)))        # other values, same structure
    after = tf.lazy.cache_info()
    assert after.hits == before.hits + 1 and after.misses == before.misses


@pytest.mark.parametrize("first,second", [
    (lambda: x_(np.ones(5)) * 2.0, lambda: x_(np.ones(6)) * 2.0),                # shape
    (lambda: x_(np.ones(5)) * 2.0, lambda: x_(np.ones(5, "float32")) * 2.0),      # dtype
    (lambda: x_(np.ones(5)) * 2.0, lambda: x_(np.ones(5)) * 3.0),                 # constant
    (lambda: x_(np.ones(5)) * 0.0, lambda: x_(np.ones(5)) * -0.0),                # signed 0
    (lambda: x_(np.ones(5)) + 1, lambda: x_(np.ones(5)) + 1.5),                   # int/float
    (lambda: x_(np.ones(5)) * tf.asarray([1.0, 2, 3, 4, 5]),
     lambda: x_(np.ones(5)) * tf.asarray([5.0, 4, 3, 2, 1])),                     # small tensor
    (lambda: x_(np.ones(5)).sum(axis=0), lambda: x_(np.ones((5, 1))).sum(axis=0)),  # params
    (lambda: tf.exp(x_(np.ones(5))), lambda: tf.log(x_(np.ones(5)))),             # primitive
])
def test_what_must_not_share_a_program(first, second):
    """Each pair differs in something a program bakes in or is specialised to: the
    second must not run the first's program (it would give the first's values)."""
    with L():
        a = first()
    with L():
        b = second()
    with tf.lazy(False):
        want_a, want_b = first().numpy(), second().numpy()
    np.testing.assert_array_equal(a.numpy(), want_a)
    np.testing.assert_array_equal(b.numpy(), want_b)
    assert np.signbit(b.numpy()).tolist() == np.signbit(want_b).tolist()


def test_large_tensors_are_inputs_not_constants():
    f = lambda x, w: x * w + 1.0   # noqa: E731
    w1, w2 = x_(RNG.standard_normal(100)), x_(RNG.standard_normal(100))
    x = x_(RNG.standard_normal(100))
    a = run(f, x, w1)
    before = tf.lazy.cache_info()
    b = run(f, x, w2)
    assert tf.lazy.cache_info().hits == before.hits + 1
    np.testing.assert_allclose(a, x.numpy() * w1.numpy() + 1)
    np.testing.assert_allclose(b, x.numpy() * w2.numpy() + 1)


def test_a_registered_pass_is_part_of_the_key():
    x = x_(np.ones(7))
    run(lambda x: x * 2.0 + 1, x)
    seen = []

    def spy(graph):
        seen.append(graph)
        return graph
    tf.graph.register_pass("lazy_spy", spy)
    try:
        run(lambda x: x * 2.0 + 1, x)
    finally:
        tf.graph.unregister_pass("lazy_spy")
    assert seen, "a program compiled before the pass was registered was reused"


def test_mutated_small_constant_is_not_reused():
    c = tf.asarray([1.0, 2.0])
    x = x_(np.ones(2))
    assert run(lambda: x * c).tolist() == [1.0, 2.0]
    c[0] = 10.0
    assert run(lambda: x * c).tolist() == [10.0, 2.0]


def test_cache_clear_and_info():
    run(twenty, x_(np.ones(3)))
    tf.lazy.cache_clear()
    info = tf.lazy.cache_info()
    assert info.size == 0 and info.hits == 0 and info.misses == 0 and info.maxsize > 0


def test_a_registered_rewrite_rule_is_part_of_the_key():
    x = x_(np.ones(20))
    f = lambda x: x * 2.0 + 1     # noqa: E731
    run(f, x)
    seen = []

    def rule(node, inputs, ctx):
        seen.append(node)
        return None
    tf.graph.register_rewrite("multiply", rule)
    try:
        run(f, x)
    finally:
        tf.graph.unregister_rewrite("multiply", rule)
    assert seen


@pytest.mark.skipif(not has_webgpu(), reason="no WebGPU adapter")
def test_the_device_is_part_of_the_key():
    a = RNG.uniform(0.5, 1.5, 40).astype("float32")
    cpu = run(twenty, tf.asarray(a))
    before = tf.lazy.cache_info()
    with L():
        y = twenty(tf.asarray(a).to("webgpu"))
    assert tf.lazy.cache_info().misses == before.misses + 1
    np.testing.assert_allclose(y.to("cpu").numpy(), cpu, rtol=1e-5)


def test_the_benchmark_modes_agree_and_the_script_runs(capsys):
    import pathlib
    import sys

    here = str(pathlib.Path(__file__).resolve().parents[1] / "asv_bench")
    sys.path.insert(0, here)
    try:
        import compare_lazy
        from benchmarks import bench_lazy as bl
    finally:
        sys.path.remove(here)
    x = bl.make_input(1000)
    eager, lazy_, jit_ = (bl.runner(m, x)().numpy() for m in bl.MODES)
    np.testing.assert_allclose(lazy_, eager, rtol=1e-13)
    np.testing.assert_allclose(jit_, eager, rtol=1e-13)
    threads = tf.get_num_threads()
    try:
        times = compare_lazy.main(["--n", "1000", "--repeat", "1", "--min-time", "0.001"])
    finally:
        tf.set_num_threads(threads)
    assert set(times) == set(bl.MODES)
    assert "lazy / jit" in capsys.readouterr().out
