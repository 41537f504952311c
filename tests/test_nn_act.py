"""tenferro.nn's activations, softmax, normalizations and affine against
torch.nn.functional: values (edges, kinks, NaN, inf, huge), first and second
derivatives at the kinks, shapes, dtypes, errors; and through jit (one fused kernel),
vmap and the functional transforms; on every device.  Derivatives away from the kinks
are gradchecked to order 2 by tests/test_autograd_rules.py (tests/nn_act_specs.py);
tests/test_nn_norm.py has layer_norm, rms_norm and affine.  The helpers here serve both
files."""
import math

import numpy as np
import pytest

import tenferro as tf
import tenferro.nn as tnn

torch = pytest.importorskip("torch")
F = torch.nn.functional

DTYPES = ["float64", "float32"]
RTOL = {"float64": 1e-13, "float32": 2e-6}
EDGES = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1e-300, -1e-300, 19.999, 20.0, 20.000001, 10.0,
         3.0, -3.0, 80.0, -80.0, 800.0, -800.0, 1e4, -1e4, math.inf, -math.inf, math.nan]

# name -> (tenferro function, torch function), parameters bound
ACTS = {
    "relu": (tnn.relu, F.relu),
    "leaky_relu": (tnn.leaky_relu, F.leaky_relu),
    "leaky_relu_0.2": (lambda x: tnn.leaky_relu(x, 0.2), lambda x: F.leaky_relu(x, 0.2)),
    "leaky_relu_neg": (lambda x: tnn.leaky_relu(x, negative_slope=-1.5),
                       lambda x: F.leaky_relu(x, -1.5)),
    "elu": (tnn.elu, F.elu),
    "elu_2": (lambda x: tnn.elu(x, alpha=2.0), lambda x: F.elu(x, 2.0)),
    "softplus": (tnn.softplus, F.softplus),
    "softplus_b2_t10": (lambda x: tnn.softplus(x, beta=2, threshold=10),
                        lambda x: F.softplus(x, beta=2, threshold=10)),
    "softplus_b-1": (lambda x: tnn.softplus(x, beta=-1.0), lambda x: F.softplus(x, beta=-1.0)),
    "gelu": (tnn.gelu, F.gelu),
    "gelu_tanh": (lambda x: tnn.gelu(x, approximate="tanh"),
                  lambda x: F.gelu(x, approximate="tanh")),
    "silu": (tnn.silu, F.silu),
}


def _np(t):
    return np.asarray(t.detach().numpy() if isinstance(t, torch.Tensor) else t.numpy())


def _close(got, want, dtype, rtol=None, atol=0.0):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape)
    np.testing.assert_allclose(got, want, rtol=rtol or RTOL[dtype], atol=atol, equal_nan=True)


def _atol(name, dtype):
    """Absolute tolerance: gelu's 1 + erf(x / sqrt 2) cancels for x < -2 in PyTorch's
    formula and in ours alike, leaving each library's erf rounding (a few ulp of 1)."""
    eps = float(np.finfo(dtype).eps)
    return 64 * eps if name.startswith("gelu") else (1e-300 if dtype == "float64" else 1e-37)


def _edges(dtype, n_random=64):
    rng = np.random.default_rng(1)
    return np.concatenate([np.asarray(EDGES), 4 * rng.standard_normal(n_random)]).astype(dtype)


# -- values -------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(ACTS))
def test_values_against_torch(name, dtype):
    ours, theirs = ACTS[name]
    x = _edges(dtype)
    if dtype == "float32" and name.startswith("gelu"):
        x = x[x != np.inf]   # PyTorch's float32 kernel gives NaN there (float64: inf, ours)
    got, want = _np(ours(tf.asarray(x))), _np(theirs(torch.from_numpy(x)))
    _close(got, want, dtype, atol=_atol(name, dtype))
    zero = want == 0   # the sign of a zero too (relu(-0.0) is -0.0, elu(-1e-4...) ...)
    if name.startswith(("relu", "leaky", "elu")):
        assert (np.signbit(got[zero]) == np.signbit(want[zero])).all()


@pytest.mark.parametrize("name", list(ACTS))
def test_shapes_and_layouts(name):
    ours, theirs = ACTS[name]
    rng = np.random.default_rng(2)
    for x in (np.float64(0.3) * np.ones(()), np.zeros((0,)), np.zeros((2, 0, 3)),
              rng.standard_normal((3, 4, 5)).transpose(2, 0, 1),
              rng.standard_normal((6, 8))[::2, 1::3]):
        got = ours(tf.asarray(x))
        assert got.shape == x.shape and got.dtype == tf.float64
        _close(_np(got), _np(theirs(torch.from_numpy(np.array(x)))), "float64")


def test_integer_input():
    assert tnn.relu(tf.asarray([3, -2, 0])).dtype == tf.int64
    assert tnn.relu(tf.asarray([3, -2, 0])).tolist() == [3, 0, 0]
    for f in (tnn.gelu, tnn.silu, tnn.elu, tnn.softplus, tnn.leaky_relu):
        y = f(tf.asarray([1, -2]))
        assert y.dtype == tf.float64
        np.testing.assert_allclose(_np(y), _np(f(tf.asarray([1.0, -2.0]))))
    assert tnn.relu(tf.asarray([True, False])).dtype == tf.float64


def test_python_and_numpy_input():
    np.testing.assert_allclose(_np(tnn.gelu([1.0, -1.0])), _np(F.gelu(torch.tensor(
        [1.0, -1.0], dtype=torch.float64))))
    assert tnn.silu(np.float32(2.0)).dtype == tf.float32


@pytest.mark.parametrize("dtype", DTYPES)
def test_eager_kernels_equal_the_compositions(dtype):
    """The fused CPU kernels of plain eager calls (an activation and its backward
    formula) give the values of the compositions run op by op."""
    from tenferro.nn import _activations, _kernel

    x = tf.asarray(_edges(dtype, 1000))
    g = tf.asarray(np.random.default_rng(3).standard_normal(x.shape).astype(dtype))
    params = {"leaky_relu": {"negative_slope": 0.2}, "elu": {"alpha": 1.5},
              "softplus": {"beta": 2.0, "threshold": 10.0}, "gelu": {"approximate": "tanh"}}
    for name, (prim, value, back) in _activations._PRIMS.items():
        p = params.get(name, {})
        _close(_np(prim.bind(x, **p)), _np(value(x, **p)), dtype, rtol=4 * RTOL[dtype],
               atol=_atol(name, dtype))
        _close(_np(_kernel.run(back, (g, x), p)), _np(back(g, x, **p)), dtype,
               rtol=4 * RTOL[dtype], atol=_atol(name, dtype))
        assert (value, (x.dtype.char,), _kernel._static_key(p)) in _kernel._kernels


# -- derivatives at and around the kinks --------------------------------------------------

def _torch_grads(theirs, x):
    xt = torch.from_numpy(x.copy()).requires_grad_(True)
    g, = torch.autograd.grad(theirs(xt).sum(), xt, create_graph=True)
    g2, = torch.autograd.grad(g.sum(), xt, allow_unused=True)
    return _np(g), (np.zeros_like(x) if g2 is None else _np(g2))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(ACTS))
def test_gradients_against_torch(name, dtype):
    """First derivatives everywhere, the kinks, inf and NaN included, by the eager tape
    and by grad; second derivatives by grad of grad (torch's double backward)."""
    ours, theirs = ACTS[name]
    x = _edges(dtype)
    g_want, g2_want = _torch_grads(theirs, x)
    xt = tf.tensor(x, requires_grad=True)
    ours(xt).sum().backward()
    _close(_np(xt.grad), g_want, dtype, atol=_atol(name, dtype))
    d1 = tf.grad(lambda v: ours(v).sum())
    _close(_np(d1(tf.asarray(x))), g_want, dtype, atol=_atol(name, dtype))
    g2 = _np(tf.grad(lambda v: d1(v).sum())(tf.asarray(x)))
    finite = np.isfinite(x) & (np.abs(x) < 1e3)   # torch's g2 at +-inf/huge x: its own NaNs
    _close(g2[finite], g2_want[finite], dtype, rtol=1e-12 if dtype == "float64" else 1e-5,
           atol=_atol(name, dtype))


@pytest.mark.parametrize("name,x,want", [
    ("relu", 0.0, 0.0), ("relu", -0.0, 0.0), ("relu", math.nan, 1.0),
    ("leaky_relu", 0.0, 0.01), ("leaky_relu", math.nan, 0.01),
    ("elu", 0.0, 1.0), ("elu_2", 0.0, 2.0), ("elu", -math.inf, 0.0),
    ("softplus", 20.0, 1.0 / (1.0 + math.exp(-20.0))), ("softplus", 20.000001, 1.0),
    ("softplus_b2_t10", 5.0, 1.0 / (1.0 + math.exp(-10.0))),
    ("gelu", 0.0, 0.5), ("gelu", math.inf, math.nan), ("gelu", -1e4, 0.0),
    ("silu", 0.0, 0.5), ("silu", -1e4, 0.0), ("silu", -math.inf, math.nan),
])
def test_kink_conventions(name, x, want):
    """The documented conventions (docs/nn.md), one point each."""
    g = tf.grad(lambda v: ACTS[name][0](v))(tf.asarray(x))
    np.testing.assert_allclose(float(g), want, rtol=1e-15, equal_nan=True)


def test_elu_second_derivative_at_zero_is_torchs():
    d2 = tf.grad(tf.grad(lambda v: tnn.elu(v, 2.0)))
    assert float(d2(tf.asarray(0.0))) == 0.0 and float(d2(tf.asarray(-1e-300))) == 2.0


def test_jvp_equals_vjp_at_kinks():
    x = tf.asarray(_edges("float64"))
    for name, (ours, _) in ACTS.items():
        _, t = tf.jvp(ours, (x,), (tf.ones_like(x),))
        _, back = tf.vjp(ours, x)
        _close(_np(t), _np(back(tf.ones_like(x))[0]), "float64", rtol=0)


# -- complex ------------------------------------------------------------------------------

@pytest.mark.parametrize("f", [tnn.relu, tnn.leaky_relu, tnn.elu, tnn.softplus, tnn.gelu,
                               tnn.softmax, tnn.log_softmax])
def test_complex_is_refused(f):
    with pytest.raises(TypeError, match=r"tenferro\.nn\.%s: complex input \(complex128\) is "
                                        r"not supported" % f.__name__):
        f(tf.asarray([1 + 1j]))


def test_complex_silu_against_torch():
    """Values as PyTorch's (which has no complex silu derivative); the derivative is the
    holomorphic one, z sigmoid(z) differentiated (gradchecked in nn_act_specs)."""
    z = np.array([0.6 + 0.8j, -0.7 + 0.5j, -0.4 - 0.9j, 2.0 - 1.0j, 0j])
    _close(_np(tnn.silu(tf.asarray(z))), _np(F.silu(torch.from_numpy(z))), "float64")
    zt = torch.from_numpy(z).requires_grad_(True)
    want, = torch.autograd.grad((zt * torch.sigmoid(zt)).abs().sum(), zt)
    got = tf.grad(lambda v: tf.abs(tnn.silu(v)).sum())(tf.asarray(z))
    _close(_np(got), _np(want), "float64", rtol=1e-12)


# -- softmax, log_softmax -----------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", [-1, 0, 1, -2])
def test_softmax_against_torch(axis, dtype):
    x = np.random.default_rng(3).standard_normal((3, 4, 5)).astype(dtype)
    x[0, 0, :] = -np.inf
    x[1, 1, 1] = np.inf
    x[2, 2, 2] = np.nan
    for ours, theirs in ((tnn.softmax, F.softmax), (tnn.log_softmax, F.log_softmax)):
        want = _np(theirs(torch.from_numpy(x), dim=axis))
        if ours is tnn.log_softmax:
            # a slice holding +inf: PyTorch NaN throughout; ours (tenferro.special's,
            # scipy's) -inf at its finite entries, the limit (docs/nn.md)
            hasinf = np.broadcast_to(np.isposinf(x).any(axis=axis, keepdims=True), x.shape)
            want = np.where(hasinf & np.isfinite(x), -np.inf, want)
        _close(_np(ours(tf.asarray(x), axis=axis)), want, dtype, rtol=RTOL[dtype] * 10)
        _close(_np(ours(tf.asarray(x), dim=axis)), want, dtype, rtol=RTOL[dtype] * 10)


def test_softmax_defaults_gradients_and_dtype():
    x = np.random.default_rng(4).standard_normal((2, 3, 4))
    _close(_np(tnn.softmax(tf.asarray(x))), _np(F.softmax(torch.from_numpy(x), -1)), "float64")
    y = tnn.log_softmax(tf.asarray(x), axis=1, dtype="float32")
    assert y.dtype == tf.float32
    w = np.random.default_rng(5).standard_normal(x.shape)
    for ours, theirs in ((tnn.softmax, F.softmax), (tnn.log_softmax, F.log_softmax)):
        xt = torch.from_numpy(x).requires_grad_(True)
        want, = torch.autograd.grad((theirs(xt, 1) * torch.from_numpy(w)).sum(), xt)
        got = tf.grad(lambda v: (ours(v, axis=1) * tf.asarray(w)).sum())(tf.asarray(x))
        _close(_np(got), _np(want), "float64", rtol=1e-12)
    assert tnn.softmax(tf.zeros((0, 3))).shape == (0, 3)
    np.testing.assert_allclose(_np(tnn.softmax(tf.asarray(np.ones((2, 2))), axis=(0, 1))),
                               np.full((2, 2), 0.25))


def test_softmax_errors():
    with pytest.raises(TypeError, match="give axis or dim"):
        tnn.softmax(tf.ones(3), axis=0, dim=0)
    with pytest.raises(TypeError, match="tenferro.nn.softmax: dtype must be float32 or float64"):
        tnn.softmax(tf.ones(3), dtype="int64")
    with pytest.raises(tf.AxisError):
        tnn.log_softmax(tf.ones(3), axis=1)


# -- jit, fusion, vmap (the normalizations and affine too) ---------------------------------

ALL = dict((k, v[0]) for k, v in ACTS.items())
ALL.update({
    "softmax": lambda x: tnn.softmax(x, axis=-1),
    "log_softmax": lambda x: tnn.log_softmax(x, axis=0),
    # (uneven weights: with even ones the gradient below cancels to O(eps))
    "layer_norm": lambda x: tnn.layer_norm(x, 4, tf.asarray([1.5, -0.5, 2.0, 1.0],
                                                            device=x.device),
                                           tf.full(4, 0.25, device=x.device)),
    "rms_norm": lambda x: tnn.rms_norm(x, (3, 4), tf.asarray(
        np.arange(12.0).reshape(3, 4) / 4 - 1, dtype=x.dtype, device=x.device)),
    "affine": lambda x: tnn.affine(x, tf.full(4, 3.0, device=x.device),
                                   tf.full((3, 1), -1.0, device=x.device)),
})


@pytest.mark.parametrize("name", list(ALL))
def test_jit_vmap_and_grad_agree_with_eager(name):
    f = ALL[name]
    x = tf.asarray(np.random.default_rng(10).standard_normal((2, 3, 4)) * 3)
    _close(_np(tf.jit(f)(x)), _np(f(x)), "float64", rtol=1e-12)
    g = tf.grad(lambda v: (f(v) ** 2).sum())
    _close(_np(tf.jit(g)(x)), _np(g(x)), "float64", rtol=1e-12)
    for h in (f, g):   # per example: vmap against a loop (gelu's cancellation: atol)
        _close(_np(tf.vmap(h)(x)), np.stack([_np(h(x[i])) for i in range(2)]), "float64",
               rtol=1e-12, atol=1e-15)


def _fused_nodes(f, *shapes):
    g = tf.make_graph(f, *[tf.TensorSpec(s, "float64") for s in shapes])
    return [n.prim.name for n in tf.compile(g).graph.nodes]


def test_jit_fuses_activation_chains_into_one_kernel():
    chain = lambda x: tnn.silu(tnn.gelu(x) * 2.0) + tnn.gelu(x, approximate="tanh")  # noqa
    assert _fused_nodes(chain, (8, 8)) == ["fused_elementwise"]
    assert _fused_nodes(lambda x: tnn.softplus(tnn.elu(tnn.leaky_relu(tnn.relu(x)))),
                        (5,)) == ["fused_elementwise"]
    # an activation's gradient: one kernel too (its rule is elementwise)
    for f in ACTS.values():
        assert _fused_nodes(tf.grad(lambda x: f[0](x).sum()), (8, 8)) == ["fused_elementwise"]
    # affine with broadcast operands
    assert _fused_nodes(lambda x, s, b: tnn.relu(tnn.affine(x, s, b)), (4, 3), (3,), (3,)) \
        == ["fused_elementwise"]
    # the traced graph itself names the primitives (make_graph, before compiling)
    g = tf.make_graph(lambda x: tnn.gelu(x), tf.TensorSpec((3,), "float64"))
    assert [n.prim.name for n in g.nodes] == ["nn.gelu"]


def test_jit_without_passes_runs_the_primitives():
    x = tf.asarray(_edges("float64"))
    g = tf.make_graph(lambda v: tnn.softplus(tnn.gelu(v)), tf.TensorSpec(x.shape, "float64"))
    _close(_np(tf.compile(g, passes=())(x)), _np(tnn.softplus(tnn.gelu(x))), "float64",
           rtol=0)


def test_vmap_of_activations_with_broadcast_params():
    x = tf.asarray(np.random.default_rng(11).standard_normal((4, 3)))
    for f in (tnn.relu, tnn.gelu, lambda v: tnn.elu(v, 0.5)):
        _close(_np(tf.vmap(f, in_axes=1, out_axes=1)(x)), _np(f(x)), "float64", rtol=0)


@pytest.mark.parametrize("name", list(ALL))
def test_other_devices(name, accel_device):
    """Off the CPU every function is its composition of the device's ops: the CPU's
    values (float32, the dtype every driver has), gradients and jit included."""
    from conftest import device_tol

    f = ALL[name]
    x = np.random.default_rng(13).standard_normal((2, 3, 4)).astype("float32") * 3
    on = lambda v: tf.asarray(v, device=accel_device)   # noqa: E731
    rt, at = device_tol(accel_device, "float32")
    rt, at = max(rt, 1e-5), max(at, 1e-5)
    want = _np(f(tf.asarray(x)))
    got = f(on(x))
    g = tf.grad(lambda v: (f(v) ** 2).sum())(on(x))
    j = tf.jit(f)(on(x))
    assert got.device == on(x).device
    np.testing.assert_allclose(_np(got.to_device("cpu")), want, rtol=rt, atol=at)
    np.testing.assert_allclose(_np(j.to_device("cpu")), want, rtol=rt, atol=at)
    np.testing.assert_allclose(_np(g.to_device("cpu")), _np(tf.grad(
        lambda v: (f(v) ** 2).sum())(tf.asarray(x))), rtol=10 * rt, atol=10 * at)


# -- errors -------------------------------------------------------------------------------

def test_errors():
    with pytest.raises(ValueError, match=r"tenferro.nn.gelu: approximate must be 'none' or "
                                         r"'tanh', got 'erf'"):
        tnn.gelu(tf.ones(2), approximate="erf")
    with pytest.raises(ValueError, match="tenferro.nn.softplus: beta must be nonzero"):
        tnn.softplus(tf.ones(2), beta=0)


def test_lazy_submodule():
    import tenferro

    assert "nn" in dir(tenferro) and "nn" in tenferro.__all__
    assert tenferro.nn is tnn
    assert sorted(tnn.__all__) == sorted(n for n in dir(tnn) if not n.startswith("_"))


def test_kernel_cache_keys_parameters_by_bits():
    """The eager kernel cache keys a float parameter by its bits: ``negative_slope=0.0``
    and ``-0.0`` give differently signed zeros (as PyTorch), not one cached kernel."""
    import torch
    x = np.array([-1.0, 2.0])
    for slope in (0.0, -0.0, 0.0):
        got = np.asarray(tf.nn.leaky_relu(tf.asarray(x), slope))
        want = torch.nn.functional.leaky_relu(torch.from_numpy(x), slope).numpy()
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
