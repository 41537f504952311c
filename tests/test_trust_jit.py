"""jit never returns a silently wrong result (issue 15): every argument that can change
the result is in the program cache's key or raises; keyword and static arguments as
in JAX; compiled outputs never alias the inputs, constants or one another (eager ops
return new tensors).  Expectations are NumPy's values of the same expressions."""
import math
import pickle

import numpy as np
import pytest

import tenferro as tf

X = np.array([1.0, -2.0, 3.5])


def _x(dtype="float64"):
    return tf.asarray(X.astype(dtype))


def _eq(t, expected, dtype=None):
    a = np.asarray(t)
    e = np.asarray(expected)
    assert a.dtype == (np.dtype(dtype) if dtype else e.dtype)
    np.testing.assert_array_equal(a, e)


# -- non-tensor arguments are part of the key ------------------------------------------

def test_jit_default_argument_then_explicit_scalar():
    j = tf.jit(lambda v, s=1.0: v * s)
    _eq(j(_x()), X)
    _eq(j(_x(), 2.0), X * 2.0)
    _eq(j(_x(), 3.0), X * 3.0)
    _eq(j(_x()), X)


@pytest.mark.parametrize("a, b", [(1, 1.0), (1, True), (0.0, -0.0), (2, 3),
                                  (float("nan"), 1.0), (1.0, 1 + 0j), ("add", "sub"),
                                  (None, 0)])
def test_jit_scalar_arguments_keyed_by_type_and_value(a, b):
    def f(v, s):
        if s is None:
            return v
        if isinstance(s, str):
            return v + 1.0 if s == "add" else v - 1.0
        return v * s

    j = tf.jit(f)
    for _ in range(2):
        for s in (a, b):
            with np.errstate(invalid="ignore"):
                expected = f(X.astype("float32"), s)
            _eq(j(_x("float32"), s), expected)
    assert j.cache_info().misses == 2


def test_jit_signed_zero_scalar_keyed_apart():
    j = tf.jit(lambda v, s: tf.copysign(v, s))
    _eq(j(_x(), 0.0), np.abs(X))
    _eq(j(_x(), -0.0), -np.abs(X))
    _eq(j(_x(), 0.0), np.abs(X))


def test_jit_nan_scalar_hits_the_cache():
    j = tf.jit(lambda v, s: v + s)
    j(_x(), float("nan"))
    r = j(_x(), float("nan"))
    assert np.isnan(np.asarray(r)).all()
    assert j.cache_info().misses == 1 and j.cache_info().hits == 1


def test_jit_python_scalar_is_weakly_typed_as_eager():
    """A Python scalar is static: float32 stays float32, as in eager."""
    j = tf.jit(lambda v, s: v * s)
    r = j(_x("float32"), 2.5)
    _eq(r, X.astype("float32") * np.float32(2.5))
    assert r.dtype == (_x("float32") * 2.5).dtype


def test_jit_pytree_of_scalars_and_tensors():
    j = tf.jit(lambda d: d["v"] * d["s"][0] + d["s"][1])
    _eq(j({"v": _x(), "s": (2.0, 1.0)}), X * 2.0 + 1.0)
    _eq(j({"v": _x(), "s": (3.0, -1.0)}), X * 3.0 - 1.0)
    _eq(j({"v": _x(), "s": [3.0, -1.0]}), X * 3.0 - 1.0)


def test_jit_numpy_array_argument_is_a_traced_input():
    j = tf.jit(lambda v, a: v + a)
    a = np.array([1.0, 2.0, 3.0])
    _eq(j(_x(), a), X + a)
    a[0] = 100.0          # the same object, new values: not baked in by id
    _eq(j(_x(), a), X + a)
    _eq(j(_x(), np.array([5.0, 5.0, 5.0])), X + 5.0)
    assert j.cache_info().misses == 1


def test_jit_numpy_scalar_is_a_strongly_typed_input():
    j = tf.jit(lambda v, s: v * s)
    _eq(j(_x("float32"), np.float64(2.0)), X.astype("float32") * np.float64(2.0))
    _eq(j(_x("float32"), np.float64(3.0)), X.astype("float32") * np.float64(3.0))
    assert j.cache_info().misses == 1


def test_jit_unhashable_leaf_raises_naming_the_argument():
    j = tf.jit(lambda v, s: v)
    with pytest.raises(TypeError, match="argument 1 holds a value of type set.*static_argnums"):
        j(_x(), {1.0})


def test_jit_slice_and_dtype_arguments_are_keyed_by_value():
    """slice was accepted as a value type but is not hashable before Python 3.12: the
    key must be made from its fields."""
    x = tf.asarray(np.arange(5.0))
    j = tf.jit(lambda v, s: v[s])
    _eq(j(x, slice(1, 3)), np.arange(5.0)[1:3])
    _eq(j(x, slice(2, None)), np.arange(5.0)[2:])
    _eq(j(x, slice(1, 3)), np.arange(5.0)[1:3])
    assert j.cache_info().misses == 2
    d = tf.jit(lambda v, dt: v.astype(dt))
    assert d(x, np.dtype("float32")).dtype == np.float32
    assert d(x, np.dtype("float64")).dtype == np.float64


def test_jit_object_argument_is_not_keyed_by_identity():
    """An object (hashed by identity) mutated between calls would hit the program traced
    with its old state: jit refuses it unless it is declared static."""
    class Config:
        scale = 2.0
    cfg = Config()
    j = tf.jit(lambda v, c: v * c.scale)
    with pytest.raises(TypeError, match="argument 1 holds a value of type Config.*static_"
                                        "argnums"):
        j(_x(), cfg)
    s = tf.jit(lambda v, c: v * c.scale, static_argnums=1)
    _eq(s(_x(), cfg), X * 2.0)


# -- keyword and static arguments ------------------------------------------------------

def test_jit_keyword_arguments():
    j = tf.jit(lambda v, w=None, scale=1.0: v * scale if w is None else (v + w) * scale)
    _eq(j(_x(), scale=2.0), X * 2.0)
    _eq(j(_x(), w=_x(), scale=3.0), (X + X) * 3.0)
    _eq(j(v=_x(), w=_x()), X + X)


def test_jit_static_argnums_and_argnames():
    def f(v, n, mode="sum"):
        r = v
        for _ in range(n):
            r = r * 2.0
        return r.sum() if mode == "sum" else r.max()

    for j in (tf.jit(f, static_argnums=(1, 2)), tf.jit(f, static_argnames=("n", "mode"))):
        _eq(j(_x(), 2), (X * 4.0).sum())
        _eq(j(_x(), 3, "max"), (X * 8.0).max())
        _eq(j(_x(), n=1, mode="max"), (X * 2.0).max())
    assert tf.jit(f, static_argnums=1).static_argnames == ("n",)


def test_jit_static_argument_must_be_hashable():
    j = tf.jit(lambda v, shape: v.reshape(shape), static_argnums=1)
    _eq(j(_x(), (3, 1)), X.reshape(3, 1))
    with pytest.raises(ValueError, match="static argument 1 of type list is not hashable"):
        j(_x(), [3, 1])
    with pytest.raises(ValueError, match="static argument 1 is a Tensor"):
        j(_x(), _x())


def test_jit_decorator_with_options():
    @tf.jit(static_argnames="k")
    def f(v, k):
        return v * k

    _eq(f(_x(), k=3), X * 3)


def test_jit_trace_and_lower():
    j = tf.jit(lambda v, s: v * s + 1.0)
    g = j.trace(_x(), 2.0)
    assert isinstance(g, tf.Graph)
    assert [n.prim.name for n in g.nodes] == ["multiply", "add"]
    p = j.lower(_x(), 2.0)
    assert isinstance(p, tf.Program)
    _eq(p(_x()), X * 2.0 + 1.0)
    assert j.cache_info().misses == 1
    _eq(j(_x(), 2.0), X * 2.0 + 1.0)
    assert j.cache_info().misses == 1


# -- outputs never alias -----------------------------------------------------------------

ALIASING = {
    "v*1": lambda v: v * 1.0, "v+0": lambda v: v + 0, "v-0": lambda v: v - 0,
    "v/1": lambda v: v / 1, "conj real": lambda v: tf.conj(v), "identity": lambda v: v,
    "transpose": lambda v: v.T, "slice": lambda v: v[1:], "reshape": lambda v: v.reshape(6),
    "twice": lambda v: (v, v), "view twice": lambda v: (v * 2.0, (v * 2.0).T),
    "einsum": lambda v: tf.einsum("ij->ji", v),
    "fused pair": lambda v: (tf.sin(v) * 2.0, tf.sin(v) * 2.0 + 1.0, tf.sin(v) * 2.0),
    "constant": lambda v: (v.sum(), tf.asarray(np.ones(3))),
}


@pytest.mark.parametrize("name", sorted(ALIASING))
@pytest.mark.parametrize("how", ["jit", "compile", "grad mode"])
def test_jit_outputs_never_alias_inputs(name, how):
    f = ALIASING[name]
    base = np.arange(6.0).reshape(2, 3)
    x = tf.asarray(base.copy())
    if how == "jit":
        out = tf.jit(f)(x)
    elif how == "compile":
        out = tf.compile(tf.make_graph(f, x))(x)
    else:   # a differentiated call runs the graph through the tape
        x.requires_grad_(True)
        out = tf.jit(f)(x)
    outs = out if isinstance(out, tuple) else (out,)
    expected = [np.asarray(o.detach()).copy() for o in outs]
    for k, o in enumerate(outs):
        with tf.no_grad():
            o.detach()[...] = 100.0 + k
    np.testing.assert_array_equal(np.asarray(x.detach()), base)
    for k, o in enumerate(outs):   # writing one output leaves the others as they were
        for m, e in enumerate(expected):
            if m != k:
                assert not np.shares_memory(np.asarray(o.detach()), np.asarray(outs[m].detach()))


def test_jit_constant_output_is_a_new_buffer_each_call():
    c = tf.asarray(np.array([1.0, 2.0]))
    j = tf.jit(lambda v: (v.sum(), c))
    _, a = j(_x())
    a[0] = 50.0
    _, b = j(_x())
    _eq(c, np.array([1.0, 2.0]))
    _eq(b, np.array([1.0, 2.0]))


@pytest.mark.parametrize("passes", [tf.graph.PASSES, ("simplify", "dce")])
def test_jit_buffer_reuse_never_writes_an_input(passes):
    x = _x()
    j = tf.jit(lambda v: tf.exp(tf.sin(v) + 1.0) * 2.0 - 1.0, passes=passes)
    r = j(x)
    _eq(x, X)
    np.testing.assert_allclose(np.asarray(r), np.exp(np.sin(X) + 1.0) * 2.0 - 1.0, rtol=1e-14)
    if "fuse" not in passes:   # the chain runs in place, in its intermediates only
        assert j.lower(x).memory_plan().inplace_steps == (1, 2, 3, 4)


# -- siblings: other ways a cache could lie ---------------------------------------------

def test_jit_closure_is_read_at_trace_time():
    """Documented JAX semantics: a closed-over value is read when the function is traced."""
    k = [2.0]
    j = tf.jit(lambda v: v * k[0])
    _eq(j(_x()), X * 2.0)
    k[0] = 5.0
    _eq(j(_x()), X * 2.0)
    j.cache_clear()
    _eq(j(_x()), X * 5.0)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128", "int64"])
def test_jit_dtype_and_shape_in_the_key(dtype):
    j = tf.jit(lambda v: v * 2)
    _eq(j(_x("float64")), X * 2)
    a = (np.arange(4) - 1).astype(dtype)
    _eq(j(tf.asarray(a)), a * 2)
    _eq(j(tf.asarray(a[:3])), a[:3] * 2)


def test_jit_strided_input_runs_the_same_program():
    j = tf.jit(lambda v: v + 1.0)
    a = np.arange(12.0).reshape(3, 4)
    _eq(j(tf.asarray(a)), a + 1.0)
    _eq(j(tf.asarray(a.T.copy()).T), a.T.copy().T + 1.0)
    _eq(j(tf.asarray(np.arange(24.0).reshape(3, 8)[:, ::2])),
        np.arange(24.0).reshape(3, 8)[:, ::2] + 1.0)


def test_jit_requires_grad_and_grad_mode():
    j = tf.jit(lambda v: (v * v).sum())
    _eq(j(_x()), (X * X).sum())
    w = tf.tensor(X, requires_grad=True)
    j(w).backward()
    _eq(w.grad, 2 * X)
    with tf.no_grad():
        r = j(tf.tensor(X, requires_grad=True))
    assert not r.requires_grad
    _eq(r, (X * X).sum())


def test_jit_ad_context_in_the_key():
    straight = tf.AdContext()
    straight.def_vjp("sign", lambda ct, primals, out, params, needs: (ct,))
    j = tf.jit(tf.grad(lambda v: tf.sign(v).sum()))
    _eq(j(_x()), np.zeros(3))
    with straight:
        _eq(j(_x()), np.ones(3))
    _eq(j(_x()), np.zeros(3))


def test_jit_of_grad_with_scalar_argument():
    j = tf.jit(tf.grad(lambda v, s: (v * v * s).sum()))
    _eq(j(_x(), 2.0), 4.0 * X)
    _eq(j(_x(), 3.0), 6.0 * X)


def test_jit_under_grad_with_scalar_argument():
    j = tf.jit(lambda v, s: (v * s).sum())
    _eq(tf.grad(lambda v: j(v, 3.0))(_x()), np.full(3, 3.0))
    _eq(tf.grad(lambda v: j(v, -1.0))(_x()), np.full(3, -1.0))


def test_jit_program_pickles_no_closure_needed():
    """A jitted call's result is an ordinary tensor: it pickles (no generated code in it)."""
    r = tf.jit(lambda v: v * 2.0)(_x())
    _eq(pickle.loads(pickle.dumps(r)), X * 2.0)


def test_jit_inf_scalar():
    j = tf.jit(lambda v, s: v * s)
    _eq(j(_x(), math.inf), X * math.inf)
    _eq(j(_x(), -math.inf), X * -math.inf)


def test_jit_outputs_never_alias_inputs_webgpu():
    try:
        x = tf.asarray(np.array([1.0, 2.0, 3.0], dtype=np.float32), device="webgpu")
    except (RuntimeError, ValueError) as e:
        pytest.skip("no WebGPU device: %s" % e)
    for f in (lambda v: v * 1.0, lambda v: v, lambda v: (v, v), lambda v: v[1:]):
        outs = tf.jit(f)(x)
        outs = outs if isinstance(outs, tuple) else (outs,)
        for k, o in enumerate(outs):
            o[0] = 100.0 + k
        _eq(x.to("cpu"), np.array([1.0, 2.0, 3.0], dtype=np.float32))
        if len(outs) == 2:
            _eq(outs[1].to("cpu"), np.array([101.0, 2.0, 3.0], dtype=np.float32))


def test_jit_device_in_the_key():
    a = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    try:
        xw = tf.asarray(a, device="webgpu")
    except (RuntimeError, ValueError) as e:
        pytest.skip("no WebGPU device: %s" % e)
    j = tf.jit(lambda v: v * 2.0 + 1.0)
    for x in (tf.asarray(a), xw, tf.asarray(a), xw):
        r = j(x)
        assert r.device is x.device
        _eq(r.to("cpu"), a * 2.0 + 1.0)
    assert j.cache_info().misses == 2


def test_jit_closed_over_tensor_modified_in_place_raises():
    """The program reads a closed-over tensor's buffer; after an in-place write to it
    the program (traced from the old values) raises rather than mix old and new."""
    c = tf.asarray(np.array([1.0, 2.0, 3.0]))
    j = tf.jit(lambda v: v + c)
    _eq(j(_x()), X + np.array([1.0, 2.0, 3.0]))
    other = tf.asarray(np.zeros(2))
    other[0] = 1.0                       # writes elsewhere do not matter
    _eq(j(_x()), X + np.array([1.0, 2.0, 3.0]))
    c[1:][0] = 5.0                       # a write through a view
    with pytest.raises(tf.TenferroError, match="closes over .*modified in place"):
        j(_x())
    w = tf.tensor(X, requires_grad=True)
    with pytest.raises(tf.TenferroError, match="closes over .*modified in place"):
        j(w)
    p = tf.compile(tf.make_graph(lambda v: v * c, _x()))
    _eq(p(_x()), X * np.array([1.0, 5.0, 3.0]))
    c[0] = -1.0
    with pytest.raises(tf.TenferroError, match="closes over .*modified in place"):
        p(_x())
    j.cache_clear()
    _eq(j(_x()), X + np.array([-1.0, 5.0, 3.0]))
    r = tf.jit(lambda v: c)          # no node at all: the output is the constant
    _eq(r(_x()), np.array([-1.0, 5.0, 3.0]))
    c += 1.0
    with pytest.raises(tf.TenferroError, match="closes over .*modified in place"):
        r(_x())


def test_jit_closed_over_expression_is_read_at_trace_time():
    """``c * 2.0`` of a concrete closed-over ``c`` is computed when tracing: later writes
    to ``c`` do not change the program (JAX's semantics)."""
    c = tf.asarray(np.array([1.0, 2.0, 3.0]))
    j = tf.jit(lambda v: v + c * 2.0)
    _eq(j(_x()), X + np.array([2.0, 4.0, 6.0]))
    c[0] = 5.0
    _eq(j(_x()), X + np.array([2.0, 4.0, 6.0]))


@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128", "int64"])
@pytest.mark.parametrize("name, f", [
    ("v+0.0", lambda v: v + 0.0), ("0.0+v", lambda v: 0.0 + v),
    ("v+(-0.0)", lambda v: v + (-0.0)), ("v-0.0", lambda v: v - 0.0),
    ("v-(-0.0)", lambda v: v - (-0.0)), ("v+0", lambda v: v + 0), ("v-0", lambda v: v - 0),
    ("v*1.0", lambda v: v * 1.0), ("v/1", lambda v: v / 1), ("v+1", lambda v: v + 1),
    ("v*0", lambda v: v * 0), ("v-1", lambda v: v - 1),
    ("v+zeros", lambda v: v + tf.zeros(3, dtype=v.dtype))])
def test_jit_simplification_keeps_signed_zeros(name, f, dtype):
    """Simplify drops x + 0 only where it is exact: -0.0 + 0.0 is +0.0 (NumPy)."""
    a = np.array([-0.0, 0.0, 1.5]).astype(dtype)
    if dtype == "complex128":   # every sign combination of the parts' zeros
        a = np.array([complex(-0.0, -0.0), complex(0.0, -0.0), complex(-0.0, 0.0)])
    with np.errstate(all="ignore"):
        e = f(a) if name != "v+zeros" else a + np.zeros(3, dtype)
    r = np.asarray(tf.jit(f)(tf.asarray(a)))
    assert r.dtype == e.dtype
    np.testing.assert_array_equal(r, e)
    np.testing.assert_array_equal(np.signbit(r.real), np.signbit(e.real))
    np.testing.assert_array_equal(np.signbit(np.imag(r)), np.signbit(np.imag(e)))


def test_jit_closure_requiring_grad_is_differentiated():
    """A jitted function closing over a tensor that requires grad, called on inputs that
    don't: the result requires grad and backward reaches the closed-over tensor, as the
    eager function's does (no silent zero gradient), also when requires_grad is set
    after the first (fast-path) call; under no_grad nothing is recorded."""
    rng = np.random.default_rng(3)
    w = tf.asarray(rng.standard_normal(4))
    x = tf.asarray(rng.standard_normal(4))
    f = tf.jit(lambda x: (tf.sin(x * w) * w).sum())
    f(x)
    f(x)                    # the jit's fast path is armed
    w.requires_grad = True
    for _ in range(2):
        w.grad = None
        y = f(x)
        assert y.requires_grad
        y.backward()
        wn, xn = np.asarray(w.detach()), np.asarray(x)
        np.testing.assert_allclose(np.asarray(w.grad),
                                   xn * np.cos(xn * wn) * wn + np.sin(xn * wn), rtol=1e-12)
    with tf.no_grad():
        assert not f(x).requires_grad
    prog = f.lower(x)
    assert prog(x).requires_grad


def test_jit_lower_is_the_program_a_call_runs():
    """``lower(x)`` then ``f(x)``: one compilation, and the call runs that program."""
    f = tf.jit(lambda x: tf.exp(x) + 1)
    x = tf.asarray(np.arange(3.0))
    prog = f.lower(x)
    runs = prog.runs
    np.testing.assert_allclose(np.asarray(f(x)), np.exp(np.arange(3.0)) + 1)
    assert f.cache_info().misses == 1 and prog.runs == runs + 1
