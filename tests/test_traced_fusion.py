"""Elementwise fusion: the ``fuse`` pass and the fused CPU kernel.

Every fused program is compared with the same program compiled without fusion (equal:
bit for bit for arithmetic, to a few ulp where a transcendental function's SIMD and
scalar variants may differ) and with NumPy evaluating the same expression."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

import tenferro as tf
from tenferro.graph import fusion as _fusion
from tenferro._kernels._elementwise import FusedKernel

from conftest import assert_close, hyp_settings, stable_rng

UNFUSED = tuple(p for p in tf.graph.PASSES if p != "fuse")


def _prims(program):
    return [n.prim.name for n in program.graph.nodes]


def _fused_nodes(program):
    return [n for n in program.graph.nodes if n.prim.name == "fused_elementwise"]


def _t(shape, dtype="float64", *key):
    rng = stable_rng("fusion", shape, dtype, *key)
    a = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return tf.asarray(a.astype(dtype))


def test_chain_is_one_kernel_and_equals_unfused_and_numpy():
    x, y = _t((1000,), "float64", 1), _t((1000,), "float64", 2)
    g = tf.make_graph(lambda x, y: x * y + tf.sin(x), x, y)
    fused = tf.compile(g)
    assert _prims(fused) == ["fused_elementwise"]
    out = fused(x, y)
    assert_close(out, tf.compile(g, UNFUSED)(x, y).numpy(), rtol=0, atol=0)
    xn, yn = x.numpy(), y.numpy()
    assert_close(out, xn * yn + np.sin(xn), rtol=1e-14, atol=1e-15)
    # runs twice, same result, inputs untouched
    assert_close(fused(x, y), out.numpy(), rtol=0, atol=0)
    assert_close(x, xn, rtol=0, atol=0)


def test_broadcasting_constants_and_layouts():
    a = _t((30, 1), "float64", 3)
    b = _t((1, 40), "float64", 4)
    c = tf.asarray(np.linspace(0, 1, 40))             # a constant closed over
    g = tf.make_graph(lambda a, b: tf.exp(-(a - b) ** 2) * c + 2.0, a, b)
    p = tf.compile(g)
    assert _prims(p) == ["fused_elementwise"]
    an, bn = a.numpy(), b.numpy()
    assert_close(p(a, b), np.exp(-(an - bn) ** 2) * np.linspace(0, 1, 40) + 2.0,
                 rtol=1e-14, atol=1e-15)
    # transposed (F-ordered) and strided inputs
    x = tf.asarray(np.asfortranarray(_t((50, 60), "float64", 5).numpy()))
    y = tf.asarray(_t((60, 100), "float64", 6).numpy()[:, ::2].T)
    g = tf.make_graph(lambda x, y: tf.maximum(x, y) * x - y, x, y)
    xn, yn = x.numpy(), y.numpy()
    got = tf.compile(g)(x, y)
    assert_close(got, np.maximum(xn, yn) * xn - yn, rtol=0, atol=0)
    assert got.numpy().flags.f_contiguous        # the first input's layout, as unfused


@pytest.mark.parametrize("dtype", ["float32", "complex64", "complex128", "int32", "int64"])
def test_dtypes(dtype):
    x, y = _t((7, 9), dtype, 7), _t((7, 9), dtype, 8)
    if np.dtype(dtype).kind == "i":
        x, y = tf.asarray((x.numpy() * 10).astype(dtype)), tf.asarray((y.numpy() * 10).astype(dtype))

    def f(x, y):
        z = x * y - x
        return tf.where(z > y if np.dtype(dtype).kind != "c" else tf.real(z) > 0, z, y) + x * 3
    g = tf.make_graph(f, x, y)
    p = tf.compile(g)
    assert _prims(p) == ["fused_elementwise"]
    xn, yn = x.numpy(), y.numpy()
    z = xn * yn - xn
    cond = (z > yn) if np.dtype(dtype).kind != "c" else (z.real > 0)
    want = np.where(cond, z, yn) + xn * 3
    out = p(x, y)
    assert out.dtype == want.dtype
    assert_close(out, want, rtol=0, atol=0)


def test_casts_bool_and_real_outputs():
    x = _t((64,), "complex128", 9)
    def f(x):
        m = tf.abs(x) > 1.0
        return m, tf.where(m, tf.astype(tf.real(x * x), "float32"), 0.0) + 1
    p = tf.compile(tf.make_graph(f, x))
    assert _prims(p) == ["fused_elementwise"]
    m, r = p(x)
    xn = x.numpy()
    assert_close(m, np.abs(xn) > 1.0)
    want = np.where(np.abs(xn) > 1.0, (xn * xn).real.astype("float32"), np.float32(0)) + 1
    assert r.dtype == "float32"
    assert_close(r, want, rtol=0, atol=0)


def test_intermediate_used_outside_becomes_an_output():
    x = _t((5, 6), "float64", 10)

    def f(x):
        s = tf.sin(x) * 2.0
        return s + 1.0, tf.sum(s, axis=0)      # s leaves the group (the sum)
    p = tf.compile(tf.make_graph(f, x))
    node, = _fused_nodes(p)
    assert len(node.outputs) == 2
    xn = x.numpy()
    a, b = p(x)
    assert_close(a, np.sin(xn) * 2 + 1, rtol=0, atol=1e-15)
    assert_close(b, (np.sin(xn) * 2).sum(axis=0), rtol=1e-14, atol=1e-14)


def test_groups_stay_convex():
    # sin -> (sum, a non-elementwise node) -> multiply, with sin also feeding multiply:
    # sin and multiply in one group would need the sum inside it
    x = _t((4, 4), "float64", 11)

    def f(x):
        a = tf.sin(x)
        b = tf.exp(a)
        s = tf.sum(b, axis=1, keepdims=True)
        return (a * s) + b
    p = tf.compile(tf.make_graph(f, x))
    names = _prims(p)
    assert "sum" in names
    # every node's inputs are computed before it
    seen = {id(v) for v in p.graph.in_vars}
    for n in p.graph.nodes:
        assert all(id(i) in seen for i in n.inputs if isinstance(i, tf.graph.Var))
        seen.update(id(o) for o in n.outputs)
    xn = x.numpy()
    a, b = np.sin(xn), np.exp(np.sin(xn))
    assert_close(p(x), a * b.sum(axis=1, keepdims=True) + b, rtol=1e-14, atol=1e-15)


def test_different_shapes_are_not_fused_together():
    x, y = _t((3, 1), "float64", 12), _t((3, 5), "float64", 13)
    # sin(x) has shape (3, 1): it stays on its own rather than being recomputed 5 times
    p = tf.compile(tf.make_graph(lambda x, y: tf.sin(x) * y + y, x, y))
    assert _prims(p) == ["sin", "fused_elementwise"]
    xn, yn = x.numpy(), y.numpy()
    assert_close(p(x, y), np.sin(xn) * yn + yn, rtol=1e-14, atol=1e-15)


def test_operand_limit_splits_groups():
    xs = [_t((10,), "float64", 20 + i) for i in range(20)]

    def f(*xs):
        acc = xs[0]
        for x in xs[1:]:
            acc = acc * 0.5 + x
        return acc
    p = tf.compile(tf.make_graph(f, *xs))
    nodes = _fused_nodes(p)
    assert len(nodes) >= 2
    assert all(len(n.inputs) + len(n.outputs) <= _fusion.MAX_OPERANDS for n in nodes)
    assert_close(p(*xs), f(*xs).numpy(), rtol=0, atol=0)


def test_integer_power_error_as_unfused():
    x = tf.asarray(np.arange(1, 5, dtype=np.int64))
    y = tf.asarray(np.array([1, -1, 2, 3], dtype=np.int64))
    g = tf.make_graph(lambda x, y: x ** y + x, x, y)
    with pytest.raises(ValueError, match="negative integer powers"):
        tf.compile(g, UNFUSED)(x, y)
    with pytest.raises(ValueError, match="negative integer powers"):
        tf.compile(g)(x, y)


def test_device_without_fused_kernel_runs_node_by_node(monkeypatch):
    x, y = _t((8, 8), "float64", 30), _t((8, 8), "float64", 31)
    g = tf.make_graph(lambda x, y: tf.tanh(x) * y - x, x, y)
    p = tf.compile(g)
    assert _prims(p) == ["fused_elementwise"]
    impls = x.device.driver.implementations
    monkeypatch.delitem(impls, "fused_elementwise")
    assert p.unsupported(x.device) == []
    calls = []
    tanh = impls["tanh"]
    monkeypatch.setitem(impls, "tanh", lambda *a, **k: calls.append(1) or tanh(*a, **k))
    xn, yn = x.numpy(), y.numpy()
    assert_close(p(x, y), np.tanh(xn) * yn - xn, rtol=1e-14, atol=1e-15)
    assert calls == [1]          # the sub-graph ran with the driver's own tanh


def test_gradients_through_fused_programs():
    x, y = _t((6,), "float64", 40), _t((6,), "float64", 41)

    def f(x, y):
        return tf.sum(tf.sin(x) * y + x * x)
    p = tf.compile(tf.make_graph(f, x, y))
    assert "fused_elementwise" in _prims(p)
    xn, yn = x.numpy(), y.numpy()
    want = np.cos(xn) * yn + 2 * xn
    # a differentiated Program runs its unfused graph
    assert_close(tf.grad(lambda x: p(x, y))(x), want, rtol=1e-14, atol=1e-15)
    # the fused node's own rules (the program's graph evaluated under the transforms)
    assert_close(tf.grad(lambda x: p.graph(x, y))(x), want, rtol=1e-14, atol=1e-15)
    _, t = tf.jvp(lambda x: p.graph(x, y), (x,), (tf.ones_like(x),))
    assert_close(t, want.sum(), rtol=1e-14, atol=1e-15)
    # the compiled gradient program is itself fused
    gp = tf.compile(tf.make_graph(f, x, y).grad((0, 1)))
    assert "fused_elementwise" in _prims(gp)
    gx, gy = gp(x, y)
    assert_close(gx, want, rtol=1e-14, atol=1e-15)
    assert_close(gy, np.sin(xn), rtol=1e-14, atol=1e-15)


def test_complex_gradient_through_fused_graph():
    z = _t((5,), "complex128", 42)

    def f(z):
        return tf.sum(tf.real(tf.exp(z) * tf.conj(z)))
    p = tf.compile(tf.make_graph(f, z))
    want = tf.grad(f)(z)
    assert_close(tf.grad(lambda z: p.graph(z))(z), want.numpy(), rtol=1e-14, atol=1e-15)


def test_kernel_rejects_bad_operands():
    k = FusedKernel([("binary", "add", ("float64", "float64"), (0, 1), 2)], 2, 1)
    a = np.ones(4)
    with pytest.raises(ValueError, match="3 operands, expected 3|2 operands, expected 3"):
        k.run((a, a), 1)
    with pytest.raises(TypeError, match="operand 1 has dtype float32, expected float64"):
        k.run((a, a.astype("float32"), np.empty(4)), 1)
    with pytest.raises(ValueError, match="shape mismatch"):
        k.run((a, np.ones(5), np.empty(4)), 1)
    with pytest.raises(TypeError, match="no binary loop add for float64 -> float32"):
        FusedKernel([("binary", "add", ("float64", "float32"), (0, 1), 2)], 2, 1)
    with pytest.raises(ValueError, match="at most 16"):
        FusedKernel([("unary", "sin", ("float64", "float64"), (0,), 17)], 1, 16)


# -- random expression graphs (hypothesis) ------------------------------------------------

_UN = ["negative", "abs", "square", "sin", "exp", "tanh", "sqrt_abs"]
_BIN = ["add", "subtract", "multiply", "maximum", "minimum", "where_gt"]
_TRANS = {"sin", "exp", "tanh", "sqrt_abs"}
_SHAPES = [(), (1,), (4,), (3, 1), (1, 4), (3, 4), (2, 3, 4)]


def _apply(mod, op, *a):
    if op == "sqrt_abs":
        return mod.sqrt(mod.abs(a[0]))
    if op == "where_gt":
        return mod.where(a[0] > a[1], a[0], a[1] * 0.5)
    if op in ("exp",):
        return mod.exp(mod.tanh(a[0]))
    return getattr(mod, op)(*a)


@st.composite
def _programs(draw):
    nin = draw(st.integers(1, 3))
    dtype = draw(st.sampled_from(["float64", "float32", "complex128"]))
    shapes = [draw(st.sampled_from(_SHAPES)) for _ in range(nin)]
    ops = []
    for k in range(draw(st.integers(1, 10))):
        nvals = nin + k
        if draw(st.booleans()):
            op = draw(st.sampled_from(_UN))
            ops.append((op, (draw(st.integers(0, nvals - 1)),)))
        else:
            op = draw(st.sampled_from(_BIN))
            ops.append((op, (draw(st.integers(0, nvals - 1)), draw(st.integers(0, nvals - 1)))))
    nout = draw(st.integers(1, 2))
    return dtype, shapes, ops, nout


def _run(mod, ops, nout, xs):
    vals = list(xs)
    for op, args in ops:
        vals.append(_apply(mod, op, *[vals[a] for a in args]))
    return tuple(vals[-nout:])


@hyp_settings(60)
@given(_programs(), st.integers(0, 2**31))
def test_random_graphs_fused_equals_unfused_and_numpy(prog, seed):
    dtype, shapes, ops, nout = prog
    if dtype == "complex128":   # ordered comparisons are NumPy's lexicographic order
        ops = [(op if op not in ("maximum", "minimum", "where_gt") else "add", a)
               for op, a in ops]
    rng = np.random.default_rng(seed)
    xs_np = []
    for s in shapes:
        a = rng.standard_normal(s)
        if dtype == "complex128":
            a = a + 1j * rng.standard_normal(s)
        xs_np.append(np.asarray(a, dtype=dtype))
    xs = [tf.asarray(a) for a in xs_np]
    g = tf.make_graph(lambda *a: _run(tf, ops, nout, a), *xs)
    fused = tf.compile(g)(*xs)
    unfused = tf.compile(g, UNFUSED)(*xs)
    with np.errstate(all="ignore"):
        ref = _run(np, ops, nout, xs_np)
    # complex abs is hypot, whose SIMD and scalar variants may differ by an ulp too
    trans = any(op in _TRANS or (op == "abs" and dtype == "complex128") for op, _ in ops)
    tol = (1e-5 if dtype == "float32" else 1e-13) if trans else 0
    for f, u, r in zip(fused, unfused, ref):
        assert f.dtype == u.dtype and f.shape == u.shape
        assert_close(f, u.numpy(), rtol=tol, atol=tol)
        assert_close(f, np.asarray(r), rtol=1e-5 if dtype == "float32" else 1e-12,
                     atol=1e-5 if dtype == "float32" else 1e-12)


# -- reductions at the end of a group ---------------------------------------------------

_BIG = (600, 500)     # 300000 elements: more than one chunk (CHUNK = 131072)


@pytest.mark.parametrize("op,axis", [("sum", None), ("sum", 0), ("sum", 1), ("max", 0),
                                     ("min", 1), ("prod", None), ("sum", (0, 1))])
@pytest.mark.parametrize("shape", [(7, 5), _BIG])
def test_reduction_ends_the_group(op, axis, shape):
    x, y = _t(shape, "float64", 50), _t(shape, "float64", 51)
    scale = 1e-3 if op == "prod" else 1.0

    def f(x, y):
        return getattr(tf, op)(tf.exp(x * scale) * y + 1.0, axis=axis)
    g = tf.make_graph(f, x, y)
    p = tf.compile(g)
    assert _prims(p) == ["fused_elementwise"]
    assert p.graph.nodes[0].params["graph"].nodes[-1].prim.name == op
    got = p(x, y)
    xn, yn = x.numpy(), y.numpy()
    want = getattr(np, op)(np.exp(xn * scale) * yn + 1.0, axis=axis)
    assert_close(got, tf.compile(g, UNFUSED)(x, y).numpy(), rtol=1e-13, atol=1e-13)
    assert_close(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", ["int32", "complex128", "float32"])
def test_reduction_dtypes(dtype):
    x = _t(_BIG, dtype, 52)
    if dtype == "int32":
        x = tf.asarray((x.numpy() * 100).astype("int32"))
    g = tf.make_graph(lambda x: tf.sum(x * x - x, axis=0), x)
    p = tf.compile(g)
    assert _prims(p) == ["fused_elementwise"]
    xn = x.numpy()
    want = np.sum(xn * xn - xn, axis=0)
    got = p(x)
    assert got.dtype == want.dtype
    tol = 1e-4 if dtype == "float32" else (0 if dtype == "int32" else 1e-12)
    assert_close(got, want, rtol=tol, atol=tol)


def test_bool_reductions_and_nan_propagation():
    a = _t(_BIG, "float64", 53).numpy()
    a[123, 45] = np.nan
    x = tf.asarray(a)
    g = tf.make_graph(lambda x: (tf.any(x * 2 > 3.5, axis=1), tf.all(x * x >= 0, axis=0),
                            tf.max(x + 1, axis=0)), x)
    p = tf.compile(g)
    assert _prims(p).count("fused_elementwise") == 3
    m1, m2, m3 = p(x)
    with np.errstate(invalid="ignore"):
        assert_close(m1, np.any(a * 2 > 3.5, axis=1))
        assert_close(m2, np.all(a * a >= 0, axis=0))
    assert_close(m3, np.max(a + 1, axis=0), rtol=0, atol=0)
    assert np.isnan(m3.numpy()[45])


def test_reduced_value_used_elsewhere_is_not_fused_into_the_reduction():
    x = _t((4, 6), "float64", 54)
    def f(x):
        s = tf.sin(x) * 2.0
        return tf.sum(s, axis=1), s + x
    p = tf.compile(tf.make_graph(f, x))
    assert _prims(p) == ["fused_elementwise", "sum"]
    a, b = p(x)
    xn = x.numpy()
    assert_close(a, (np.sin(xn) * 2).sum(axis=1), rtol=1e-14, atol=1e-15)
    assert_close(b, np.sin(xn) * 2 + xn, rtol=1e-14, atol=1e-15)


def test_empty_reductions_are_left_to_the_reduction_kernel():
    x = tf.asarray(np.zeros((0, 3)))
    p = tf.compile(tf.make_graph(lambda x: tf.sum(x * 2.0 + 1.0, axis=0), x))
    assert "sum" in _prims(p)
    assert_close(p(x), np.zeros(3), rtol=0, atol=0)


def test_operand_limit_split_keeps_a_reduction_with_its_producer():
    xs = [_t((10,), "float64", 60 + i) for i in range(20)]

    def f(*xs):
        acc = xs[0]
        for x in xs[1:]:
            acc = acc * 0.5 + x
        return tf.sum(acc * acc)
    p = tf.compile(tf.make_graph(f, *xs))
    for n in _fused_nodes(p):
        sub = n.params["graph"]
        tail = sub.nodes[-1]
        if tail.prim.name == "sum":
            assert any(tail.inputs[0] is m.outputs[0] for m in sub.nodes[:-1])
    assert_close(p(*xs), f(*xs).numpy(), rtol=1e-14, atol=1e-14)


def test_groups_that_depend_on_each_other_are_not_both_fused():
    """Two convex groups can still depend on each other through members no path joins
    inside either: h (group B) feeds m (group C), and C's reduction o feeds t (B). Both
    fused would be a cycle; the program must order and compute it (it raised "a cycle")."""
    def f(a, b, c):
        h = tf.sqrt(tf.sum(a * a, axis=2, keepdims=True) / 4.0 + 1.0)
        j = c * b
        o = tf.sum(a * j, axis=2, keepdims=True)
        return j * h + (h * h) * o / 3.0
    rng = np.random.default_rng(0)
    a, b, c = rng.standard_normal((2, 3, 4)), rng.standard_normal(4), rng.standard_normal((2, 3, 4))
    h = np.sqrt((a * a).sum(axis=2, keepdims=True) / 4.0 + 1.0)
    want = c * b * h + h * h * (a * c * b).sum(axis=2, keepdims=True) / 3.0
    got = tf.jit(f)(tf.asarray(a), tf.asarray(b), tf.asarray(c))
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-13)
