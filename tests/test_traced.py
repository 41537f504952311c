"""Traced graphs (issue 6, first part): trace -> Graph (printout, inputs, outputs),
graph transforms (grad, vjp, jvp; composed: Hessian-vector products), compile ->
Program (dead-code elimination, input checks, device support), jit (program cache),
and clear errors for data-dependent control flow.  Every traced result is compared
with the same function run eagerly, and the derivatives with the eager functional
transforms (whose rules gradcheck verifies against finite differences)."""
import numpy as np
import pytest

import tenferro as tf
import tenferro.linalg as tl

from conftest import assert_close, sample, stable_rng


def _t(shape, *key, dtype="float64"):
    return tf.asarray(sample(stable_rng("traced", *key), shape, dtype))


def mlp(x, w):
    return (tf.tanh(x @ w) ** 2).sum()


def gp_nll(theta, x, y):
    ell, sf2, sn2 = tf.exp(theta[0]), tf.exp(theta[1]), tf.exp(theta[2])
    d = x[:, None] - x[None, :]
    K = sf2 * tf.exp(-0.5 * d * d / ell**2) + sn2 * tf.eye(x.shape[0])
    L = tl.cholesky(K, lower=True)
    return 0.5 * y @ tl.cho_solve((L, True), y) + tf.sum(tf.log(tf.diagonal(L)))


def einsum_net(a, b):
    return tf.einsum("ij,jk,ki->", a, b, a @ b + 1.0)


CASES = {
    "mlp": (mlp, [(5, 3), (3, 4)], "float64"),
    "mlp complex": (lambda x, w: tf.abs(tf.sum(tf.exp(x @ w))), [(2, 3), (3, 2)],
                    "complex128"),
    "einsum": (einsum_net, [(3, 4), (4, 3)], "float64"),
    "solve": (lambda a, b: (tl.solve(a @ a.T + 4 * tf.eye(4), b) ** 2).sum(),
              [(4, 4), (4, 2)], "float64"),
    "svdvals": (lambda a: tl.svdvals(a).sum(), [(4, 3)], "float64"),
}


def _args(name):
    fn, shapes, dtype = CASES[name]
    return fn, [_t(s, name, i, dtype=dtype) for i, s in enumerate(shapes)]


@pytest.mark.parametrize("name", list(CASES))
def test_program_equals_eager_and_runs_twice(name):
    fn, args = _args(name)
    g = tf.make_graph(fn, *[tf.TensorSpec(a.shape, a.dtype) for a in args])
    p = tf.compile(g)
    want = fn(*args)
    assert_close(p(*args), want.numpy(), rtol=1e-13, atol=1e-13)
    assert_close(p(*args), want.numpy(), rtol=1e-13, atol=1e-13)
    assert p.runs == 2
    assert_close(g(*args), want.numpy(), rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("name", list(CASES))
def test_graph_transforms_equal_eager_transforms(name):
    fn, args = _args(name)
    g = tf.make_graph(fn, *args)   # example tensors give the specs
    for i in range(len(args)):
        gi = tf.compile(g.grad(i))(*args)
        assert_close(gi, tf.grad(fn, argnums=i)(*args).numpy(), rtol=1e-12, atol=1e-12)
    ts = [_t(a.shape, name, "tan", i, dtype=a.dtype.name) for i, a in enumerate(args)]
    out, dout = tf.compile(g.jvp())(*args, *ts)
    want, dwant = tf.jvp(fn, tuple(args), tuple(ts))
    assert_close(out, want.numpy(), rtol=1e-12, atol=1e-12)
    assert_close(dout, dwant.numpy(), rtol=1e-12, atol=1e-12)
    ct = tf.asarray(np.asarray(1.5, dtype=want.dtype))
    cts = tf.compile(g.vjp())(*args, ct)
    wcts = tf.vjp(fn, *args)[1](ct)
    for c, w in zip(cts, wcts):
        assert_close(c, w.numpy(), rtol=1e-12, atol=1e-12)


def test_hessian_vector_product_is_jvp_of_grad():
    x = _t((3,), "hvp")
    v = _t((3,), "hvp-v")
    f = lambda x: (tf.sin(x) ** 2).sum() * tf.exp(x[0])   # noqa: E731
    g = tf.make_graph(f, tf.TensorSpec((3,)))
    _, hv = tf.compile(g.grad().jvp())(x, v)
    assert_close(hv, tf.hvp(f, (x,), (v,))[0].numpy(), rtol=1e-12, atol=1e-12)


def test_gp_likelihood_gradient_traced_and_jitted():
    rng = stable_rng("gp-traced")
    xs = tf.asarray(np.sort(rng.uniform(-3, 3, 15)))
    ys = tf.asarray(np.sin(xs.numpy()))
    theta = tf.asarray([0.2, -0.1, -1.5])
    f = tf.jit(tf.grad(gp_nll))
    want = tf.grad(gp_nll)(theta, xs, ys).numpy()
    assert_close(f(theta, xs, ys), want, rtol=1e-12, atol=1e-12)
    assert_close(f(theta * 0.5, xs, ys), tf.grad(gp_nll)(theta * 0.5, xs, ys).numpy(),
                 rtol=1e-12, atol=1e-12)
    assert f.cache_info()[:3] == (1, 1, 1)


def test_printout_inputs_outputs_and_dead_code():
    def f(x, y):
        tf.exp(y)                   # dead code
        return tf.sin(x) * y + 1.0
    g = tf.make_graph(f, tf.TensorSpec((2, 3)), tf.TensorSpec((2, 3)))
    text = str(g)
    assert text.splitlines()[0] == "{ lambda a:f64[2, 3] b:f64[2, 3] ."
    for prim in ("exp", "sin", "multiply", "add"):
        assert " = %s[" % prim in text
    assert [v.shape for v in g.inputs] == [(2, 3), (2, 3)]
    assert len(g.outputs) == 1 and g.outputs[0].shape == (2, 3)
    p = tf.compile(g)
    assert "exp" not in {n.prim.name for n in p.graph.nodes}
    assert "exp" in {n.prim.name for n in tf.compile(g, passes=()).graph.nodes}


def test_jit_cache_retraces_on_new_shapes_and_evicts():
    f = tf.jit(lambda x: (x * 2).sum(), maxsize=2)
    for n in (3, 3, 4, 5, 3):
        assert float(f(tf.ones(n))) == 2 * n
    info = f.cache_info()
    assert (info.hits, info.misses, info.size, info.maxsize) == (1, 4, 2, 2)
    f.cache_clear()
    assert f.cache_info().size == 0


def test_data_dependent_control_flow_is_a_clear_error():
    def f(x):
        if x.sum() > 0:
            return x
        return -x
    with pytest.raises(tf.ConcretizationError, match=r"bool\(\) needs the value of a "
                                                      r"traced tensor \(shape \(\), dtype bool"):
        tf.make_graph(f, tf.TensorSpec((3,)))
    with pytest.raises(tf.ConcretizationError, match=r"float\(\)"):
        tf.make_graph(lambda x: float(x[0]), tf.TensorSpec((3,)))
    with pytest.raises(tf.ConcretizationError, match="numpy"):
        tf.jit(lambda x: x.numpy())(tf.ones(2))
    # inside a transform too (the tracer wraps a graph tracer)
    with pytest.raises(tf.ConcretizationError, match=r"bool\(\) needs the value of a traced"):
        tf.make_graph(tf.grad(lambda x: f(x).sum()), tf.TensorSpec((3,)))
    # a primitive with a data-dependent output shape
    with pytest.raises(tf.ConcretizationError, match="nonzero"):
        tf.make_graph(lambda x: tf.nonzero(x), tf.TensorSpec((3,)))


def test_trace_of_an_array_is_still_numpys_trace():
    a = np.arange(12.0).reshape(3, 4)
    assert float(tf.trace(tf.asarray(a), offset=1)) == np.trace(a, offset=1)
    assert float(tf.trace(a)) == np.trace(a)
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        tf.make_graph(lambda x: x, tf.TensorSpec((2,)), offset=1)


def test_trace_of_a_function_is_deprecated_for_make_graph():
    """tenferro.trace once also traced functions; that meaning now warns and forwards to
    tenferro.make_graph (the unambiguous name), with the same graph."""
    spec = tf.TensorSpec((3,))
    with pytest.warns(DeprecationWarning, match="make_graph"):
        g = tf.trace(lambda x: tf.sin(x) * 2.0, spec)
    want = tf.make_graph(lambda x: tf.sin(x) * 2.0, spec)
    assert str(g) == str(want)
    x = np.linspace(0.0, 1.0, 3)
    np.testing.assert_allclose(np.asarray(tf.compile(g)(x)), np.sin(x) * 2.0, rtol=1e-15)
    with pytest.warns(DeprecationWarning), pytest.raises(TypeError, match="offset"):
        tf.trace(lambda x: x, spec, offset=1)


def test_device_transfer_inside_a_trace_is_a_clear_error():
    from tenferro._ops.conversion import device_put_p

    class Elsewhere:   # stands for another device (CI has one)
        pass
    with pytest.raises(tf.TenferroError, match="transfer between devices inside a traced"):
        tf.make_graph(lambda x: device_put_p.bind(x, device=Elsewhere()), tf.TensorSpec((2,)))
    # a put to the device the value is on traces (and runs) as the eager op
    g = tf.make_graph(lambda x: device_put_p.bind(x, device=tf.device("cpu")), tf.TensorSpec((2,)))
    assert_close(tf.compile(g)(tf.ones(2)), np.ones(2))
    # to() the device the value is already on is a copy, which traces
    g = tf.make_graph(lambda x: x.to("cpu", copy=True), tf.TensorSpec((2,)))
    assert [n.prim.name for n in g.nodes] == ["copy"]


def test_program_and_compile_errors():
    p = tf.compile(tf.make_graph(lambda x: x + 1, tf.TensorSpec((2,))))
    with pytest.raises(TypeError, match=r"input of shape \(3,\) and dtype float64 where the "
                                        r"graph expects shape \(2,\)"):
        p(tf.ones(3))
    with pytest.raises(TypeError, match="takes 1 inputs, got 2"):
        p(tf.ones(2), tf.ones(2))
    with pytest.raises(TypeError, match="expected a Graph"):
        tf.compile(lambda x: x)
    with pytest.raises(ValueError, match="unknown passes"):
        tf.compile(p.graph, passes=("nope",))

    class NoDriver:   # a device whose driver implements nothing: listed before running
        class driver:
            implementations = {}
    assert p.unsupported(NoDriver) == ["add"]


def _prims(program):
    return [n.prim.name for n in program.graph.nodes]


def test_each_pass_on_its_own_and_results_unchanged():
    x = _t((3, 4), "passes")
    c = tf.asarray(np.full((3, 4), 1.0))

    def f(x):
        a = tf.sin(x) + tf.sin(x)                    # cse: one sin
        b = (tf.eye(4) * 2.0).sum(axis=0)            # fold: computed at compile time
        d = ((a * c - 0.0) * 1.0).T.T                # simplify: x * ones, - 0, * 1, T.T
        # (x + 0.0 is not dropped: -0.0 + 0.0 is +0.0)
        return d * b
    g = tf.make_graph(f, x)
    want = f(x).numpy()
    none = tf.compile(g, passes=())
    assert _prims(none).count("sin") == 2
    cse = tf.compile(g, passes=("cse",))
    assert _prims(cse).count("sin") == 1
    fold = tf.compile(g, passes=("fold", "dce"))
    assert "eye" not in _prims(fold) and _prims(fold).count("sum") == 0
    simp = tf.compile(g, passes=("simplify", "dce"))
    assert _prims(simp).count("permute_dims") == 0
    assert _prims(simp).count("multiply") == 1      # only d * b is left
    unfused = tf.compile(g, passes=("fold", "simplify", "cse", "dce"))
    assert _prims(unfused) == ["sin", "add", "multiply"]
    full = tf.compile(g)
    assert _prims(full) == ["fused_elementwise"]
    assert [n.prim.name for n in full.graph.nodes[0].params["graph"].nodes] == \
        ["sin", "add", "multiply"]
    for p in (none, cse, fold, simp, unfused, full):
        assert_close(p(x), want, rtol=1e-15, atol=0)
    # the input graph is unchanged by the passes
    assert len(g.nodes) == len(none.graph.nodes)


def test_transposes_compose():
    x = _t((2, 3, 4), "perm")

    def f(x):
        same = tf.permute_dims(tf.permute_dims(x, (1, 2, 0)), (2, 0, 1))   # the identity
        other = tf.permute_dims(tf.permute_dims(x, (1, 0, 2)), (0, 2, 1))  # one (1, 2, 0)
        return same * 2.0, other
    p = tf.compile(tf.make_graph(f, x))
    # the identity pair is gone; the other pair is one permutation, which CSE then
    # shares with the identity pair's (now dead) first half
    assert _prims(p) == ["permute_dims", "multiply"]
    assert p.graph.nodes[0].params["axes"] == (1, 2, 0)
    same, other = p(x)
    assert_close(same, 2 * x.numpy(), rtol=0, atol=0)
    assert_close(other, x.numpy().transpose(1, 2, 0), rtol=0, atol=0)


def test_jit_fast_path_checks_every_call():
    # after a call the next one with the same signature skips the cache lookup; every
    # other call must still retrace, differentiate or fall back correctly
    f = tf.jit(lambda x: tf.sin(x) * 2.0)
    x = tf.asarray([0.1, 0.2])
    y = tf.asarray([0.1, 0.2, 0.3])
    z = tf.asarray(np.array([1.0, 2.0], dtype="float32"))
    for _ in range(2):
        assert_close(f(x), 2 * np.sin(x.numpy()), rtol=1e-15, atol=0)
    assert_close(f(y), 2 * np.sin(y.numpy()), rtol=1e-15, atol=0)     # new shape
    got = f(z)                                                          # new dtype
    assert got.dtype == "float32"
    assert_close(got, (2 * np.sin(z.numpy())).astype("float32"), rtol=1e-6, atol=0)
    assert_close(f(x), 2 * np.sin(x.numpy()), rtol=1e-15, atol=0)
    assert f.cache_info().misses == 3
    # a tensor that requires grad goes through the tape, a tracer through the transform
    xr = tf.asarray([0.1, 0.2]).requires_grad_()
    f(xr).sum().backward()
    assert_close(xr.grad, 2 * np.cos(x.numpy()), rtol=1e-15, atol=0)
    assert_close(tf.grad(lambda v: f(v).sum())(x), 2 * np.cos(x.numpy()), rtol=1e-15, atol=0)
    # a pytree argument after plain ones
    g = tf.jit(lambda a, bc: a * bc[0] + bc[1])
    assert_close(g(x, (x, x)), x.numpy() ** 2 + x.numpy(), rtol=1e-15, atol=0)
    assert_close(g(x, (y[:2], x)), x.numpy() * y.numpy()[:2] + x.numpy(), rtol=1e-15, atol=0)
