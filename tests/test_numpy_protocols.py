"""NumPy's protocols on tensors (tenferro/_numpy_protocols): ``__array_function__``
dispatches every listed NumPy function to its tenferro twin (checked against NumPy on
sample inputs, differentiable), ``__array_ufunc__`` every ufunc tenferro has, and
everything else goes through the explicit NumPy fallback (CPU tensors back, TypeError
for tensors that require grad or live on another device)."""
import numpy as np
import pytest
import scipy.special as sc

import tenferro as tf
from tenferro._numpy_protocols import _functions as F, _ufuncs as U, twin
from numpy_protocol_samples import SAMPLES

A = np.random.default_rng(1).standard_normal((3, 4))


def _func(qualname):
    mod, name = qualname.rsplit(".", 1)
    return getattr({"numpy": np, "numpy.linalg": np.linalg, "numpy.fft": np.fft}[mod], name)


def _tensors(tree):
    if isinstance(tree, np.ndarray):
        return tf.asarray(tree)
    if type(tree) in (list, tuple):
        return type(tree)(_tensors(x) for x in tree)
    return tree


def _as_numpy(r, ref):
    """tenferro's result ``r`` as NumPy values, checking it has ``ref``'s structure and a
    Tensor (of ``ref``'s dtype and shape) wherever NumPy gives an array or a scalar."""
    if isinstance(ref, (np.ndarray, np.generic)):
        assert isinstance(r, tf.Tensor), (type(r), ref)
        assert r.device == tf.device("cpu")
        assert (r.dtype, r.shape) == (ref.dtype, ref.shape), (r.dtype, r.shape, ref.dtype,
                                                             ref.shape)
        return r.numpy()
    if isinstance(ref, (tuple, list)):
        assert isinstance(r, (tuple, list)) and len(r) == len(ref), (r, ref)
        assert getattr(r, "_fields", None) == getattr(ref, "_fields", None)
        return type(ref)(*(_as_numpy(x, y) for x, y in zip(r, ref))) \
            if hasattr(ref, "_fields") else [_as_numpy(x, y) for x, y in zip(r, ref)]
    assert not isinstance(r, tf.Tensor) and r == ref, (r, ref)
    return r


def _assert_same(got, want):
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _assert_same(g, w)
    elif isinstance(want, (np.ndarray, np.generic)) and want.dtype.kind in "fc":
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    else:
        np.testing.assert_array_equal(got, want)


CASES = [(name, i) for name in sorted(SAMPLES) for i in range(len(SAMPLES[name]))]


@pytest.mark.parametrize("name,i", CASES, ids=["%s-%d" % c for c in CASES])
def test_dispatched_function_matches_numpy(name, i, monkeypatch):
    func = _func(name)
    args, kwargs, *post = SAMPLES[name][i]
    if twin(func) is None:
        pytest.skip("tenferro has no twin of %s yet (it is listed: it dispatches once it "
                    "appears)" % name)
    want = func(*args, **kwargs)

    def fell_back(fn, what, reason, *a):
        raise AssertionError("%s fell back to NumPy: %s" % (what, reason))

    monkeypatch.setattr(F, "call_numpy", fell_back)   # tenferro's twin must answer
    got = _as_numpy(func(*_tensors(args), **_tensors(kwargs)), want)
    if post:
        got, want = post[0](got), post[0](want)
    _assert_same(got, want)


def test_every_dispatched_function_has_samples():
    names = {label for _, _, label in F.TWINS.values()}
    assert names == set(SAMPLES), (sorted(names - set(SAMPLES)),
                                   sorted(set(SAMPLES) - names))


def test_samples_run_on_numpy():
    """The samples of twins tenferro does not have yet are valid NumPy calls."""
    for name, samples in SAMPLES.items():
        for args, kwargs, *_ in samples:
            _func(name)(*args, **kwargs)


def test_shared_names_are_classified():
    """A tenferro function sharing a NumPy function's name is listed as its twin or, with
    a reason, as not one: a name clash cannot dispatch (or fail to) unnoticed."""
    shared = {n for n in dir(tf) if not n.startswith("_") and callable(getattr(tf, n))
              and hasattr(getattr(np, n, None), "_implementation")}
    unlisted = {n for n in shared if getattr(np, n) not in F.TWINS and n not in F.NOT_TWINS}
    assert not unlisted, sorted(unlisted)
    linalg = {n for n in tf.linalg.__all__
              if hasattr(getattr(np.linalg, n, None), "_implementation")}
    listed = set(F.SAME_LINALG) | {n for m, n in F.OTHER if m == "numpy.linalg"} | set(
        F.NOT_TWINS_LINALG)
    assert linalg <= listed, sorted(linalg - listed)


# -- dispatch, looked up by name at call time -------------------------------------------
def test_dispatch_calls_tenferros_function(monkeypatch):
    calls = []
    real = tf.sum
    monkeypatch.setattr(tf, "sum", lambda x, *a, **k: calls.append(1) or real(x, *a, **k))
    assert float(np.sum(tf.asarray(A))) == pytest.approx(A.sum())
    assert calls == [1]


def test_twin_appearing_later_is_picked_up(monkeypatch):
    monkeypatch.setattr(tf, "sort", lambda x, axis=-1, **k: "tenferro's", raising=False)
    assert np.sort(tf.asarray(A)) == "tenferro's"


def test_unlisted_name_never_dispatches(monkeypatch):
    monkeypatch.setattr(tf, "convolve", lambda *a, **k: "clash", raising=False)
    r = np.convolve(tf.asarray(A[0]), tf.asarray(A[1]))
    assert isinstance(r, tf.Tensor)
    np.testing.assert_allclose(r.numpy(), np.convolve(A[0], A[1]))


def test_argument_the_twin_lacks_goes_to_numpy():
    t = tf.asarray(A)
    r = np.sum(t, where=A > 0)
    assert isinstance(r, tf.Tensor) and float(r) == pytest.approx(A[A > 0].sum())
    r = np.take(t, [0, 7], mode="wrap")
    np.testing.assert_array_equal(r.numpy(), np.take(A, [0, 7], mode="wrap"))


def test_out_tensor_is_filled():
    t, o = tf.asarray(A), tf.zeros(4)
    assert np.sum(t, axis=0, out=o) is o
    np.testing.assert_allclose(o.numpy(), A.sum(0))
    o2 = tf.zeros((3, 4))
    assert np.clip(t, -0.1, 0.1, out=o2) is o2
    np.testing.assert_allclose(o2.numpy(), np.clip(A, -0.1, 0.1))
    assert np.round(t, 1, out=o2) is o2   # tenferro.round takes no out=: filled after
    np.testing.assert_allclose(o2.numpy(), np.round(A, 1))
    o3 = np.zeros(4)   # an ndarray out: NumPy's own
    assert np.sum(t, axis=0, out=o3) is o3
    np.testing.assert_allclose(o3, A.sum(0))


def test_inside_jit_and_transforms():
    f = tf.jit(lambda x: np.sum(np.sin(np.stack([x, 2 * x]))))
    np.testing.assert_allclose(float(f(tf.asarray(A))), np.sin(np.stack([A, 2 * A])).sum())
    with pytest.raises(tf.ConcretizationError):
        tf.grad(lambda x: tf.sum(np.fmod(x, 2)))(tf.asarray(A))


# -- gradients through dispatched functions and ufuncs ----------------------------------
def test_gradient_through_sum_of_stack():
    x = tf.tensor(A, requires_grad=True)
    y = tf.tensor(A[0], requires_grad=True)
    np.sum(np.stack([x[0] * 2, np.sin(y)])).backward()
    np.testing.assert_allclose(y.grad.numpy(), np.cos(A[0]))
    np.testing.assert_allclose(x.grad.numpy()[0], 2.0)
    np.testing.assert_allclose(x.grad.numpy()[1:], 0.0)


SPD = A[:, :3] @ A[:, :3].T + 3 * np.eye(3)
GRADS = {
    "concatenate": (lambda x: np.sum(np.concatenate([x, np.sin(x)])), A),
    "einsum+norm": (lambda x: np.linalg.norm(np.einsum("ij,kj->ik", x, x)), A),
    "where+clip": (lambda x: np.where(x > 0, np.clip(x, -0.5, 0.5), x * x), A),
    "take+moveaxis": (lambda x: np.moveaxis(np.take(x, [0, 2], axis=1), 0, 1), A),
    "tensordot+mean": (lambda x: np.mean(np.tensordot(x, x, axes=([1], [1])), axis=0), A),
    "cumsum+transpose": (lambda x: np.cumsum(np.transpose(x), axis=1), A),
    "ufunc outer/reduce": (lambda x: np.add.reduce(np.multiply.outer(x[0], x[1]), axis=1), A),
    "expit": (lambda x: sc.expit(x), A),
    "det+solve+inv": (lambda x: np.linalg.det(x) * np.linalg.solve(x, np.linalg.inv(x)[0]),
                      SPD),
    "pinv+lstsq+cond": (lambda x: np.linalg.pinv(x[:, :2]).sum() + np.linalg.cond(x)
                        + np.linalg.lstsq(x, x[:, 0] + 1)[0], SPD),
    "atleast_3d+vector_norm": (lambda x: np.linalg.vector_norm(np.atleast_3d(x), axis=(0, 2)),
                               A),
    "cholesky+eigh": (lambda x: np.linalg.cholesky(x + x.T).sum() + np.linalg.eigh(
        x + x.T).eigenvalues.sum(), SPD),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradcheck_through_numpy_calls(name):
    f, x = GRADS[name]
    tf.autograd.gradcheck(f, (tf.asarray(x),), modes=("jvp", "vjp"), order=1)


LATER = {   # through the everyday functions of issue 19, once tenferro has them
    "sort+diff": (("sort", "diff"), lambda x: np.diff(np.sort(x, axis=1), axis=1)),
    "median+quantile": (("median", "quantile"),
                        lambda x: np.median(x, axis=0) + np.quantile(x, 0.3, axis=0)),
    "roll+hstack": (("roll", "hstack"), lambda x: np.hstack([np.roll(x, 1, axis=0), x])),
}


@pytest.mark.parametrize("name", sorted(LATER))
def test_gradcheck_through_everyday_functions(name):
    needs, f = LATER[name]
    missing = [n for n in needs if not hasattr(tf, n)]
    if missing:
        pytest.skip("tenferro has no %s yet" % ", ".join(missing))
    tf.autograd.gradcheck(f, (tf.asarray(A),), modes=("jvp", "vjp"), order=1)


# -- ufuncs -----------------------------------------------------------------------------
def _webgpu_tensor(a):
    drv = tf.devices.get_driver("webgpu")
    if drv.device_count() == 0:
        pytest.skip("no WebGPU device: %s" % drv.unavailable_reason())
    return tf.asarray(a.astype(np.float32)).to("webgpu")   # (no float64 there)


@pytest.mark.parametrize("call,ref", [
    (lambda t: sc.gamma(t), lambda a: sc.gamma(a)),
    (lambda t: sc.expit(t), lambda a: sc.expit(a)),
    (lambda t: sc.jv(1, t), lambda a: sc.jv(1, a)),
    (lambda t: sc.jv(t, 2.5), lambda a: sc.jv(a, 2.5)),
    (lambda t: np.fmod(t, 0.3), lambda a: np.fmod(a, 0.3)),
    (lambda t: np.heaviside(t, 0.5), lambda a: np.heaviside(a, 0.5)),
    (lambda t: np.ldexp(t, 3), lambda a: np.ldexp(a, 3)),
    (lambda t: np.modf(t), lambda a: np.modf(a)),          # two outputs
    (lambda t: np.fmod(t[0, 0], 0.3), lambda a: np.fmod(a[0, 0], 0.3)),   # 0-d: a tensor
    (lambda t: np.sin(t, where=t > 0, out=tf.zeros((3, 4))),
     lambda a: np.sin(a, where=a > 0, out=np.zeros((3, 4)))),
    (lambda t: np.add.reduceat(t, [0, 2], axis=1), lambda a: np.add.reduceat(a, [0, 2], axis=1)),
    (lambda t: np.fmod.outer(t[0], t[1]), lambda a: np.fmod.outer(a[0], a[1])),
    (lambda t: np.fmod(t.astype("int64") * 7, 3), lambda a: np.fmod(a.astype("int64") * 7, 3)),
], ids=["gamma", "expit", "jv", "jv-order", "fmod", "heaviside", "ldexp", "modf", "0-d",
        "where", "reduceat", "fmod-outer", "int"])
def test_ufuncs_return_cpu_tensors(call, ref):
    want = ref(A)
    got = _as_numpy(call(tf.asarray(A)), want)
    _assert_same(got, want)


@pytest.mark.parametrize("method,kwargs,ref", [
    ("reduce", {}, lambda u, a: getattr(np, u).reduce(a)),
    ("reduce", {"axis": 1, "keepdims": True},
     lambda u, a: getattr(np, u).reduce(a, axis=1, keepdims=True)),
    ("reduce", {"axis": None}, lambda u, a: getattr(np, u).reduce(a, axis=None)),
    ("accumulate", {"axis": 1}, lambda u, a: getattr(np, u).accumulate(a, axis=1)),
    ("outer", {}, lambda u, a: getattr(np, u).outer(a[0], a[1:])),
])
@pytest.mark.parametrize("ufunc", ["add", "multiply", "maximum", "minimum", "logical_and",
                                   "subtract"])
def test_ufunc_methods_dispatch(ufunc, method, kwargs, ref):
    """Methods with tenferro ops (add.reduce is sum) and the others (through NumPy)."""
    u, a = getattr(np, ufunc), A > 0 if ufunc.startswith("logical") else A
    t = tf.asarray(a)
    try:
        want = ref(ufunc, a)
    except ValueError as e:   # (subtract.reduce over all axes) the same error
        with pytest.raises(type(e)):
            getattr(u, method)(t, **kwargs)
        return
    got = u.outer(t[0], t[1:]) if method == "outer" else getattr(u, method)(t, **kwargs)
    _assert_same(_as_numpy(got, want), want)


def test_ufunc_dispatch_never_falls_back(monkeypatch):
    def fell_back(*a):
        raise AssertionError("fell back to NumPy")

    monkeypatch.setattr(U, "call_numpy", fell_back)
    t = tf.asarray(A)
    for r in (np.sin(t), np.add(A, t), np.add.reduce(t, axis=1), np.multiply.accumulate(t),
              np.maximum.outer(t[0], t[1]), np.sin(t, out=tf.zeros((3, 4))),
              np.add(t, 1, casting="same_kind"), sc.expit(t)):
        assert isinstance(r, tf.Tensor)


def test_ufunc_out_tensor():
    t, o = tf.asarray(A), tf.zeros((3, 4))
    assert np.sin(t, out=o) is o                     # tenferro computes, o is filled
    np.testing.assert_allclose(o.numpy(), np.sin(A))
    assert np.fmod(t, 0.3, out=o) is o               # NumPy computes into o's memory
    np.testing.assert_allclose(o.numpy(), np.fmod(A, 0.3))
    n = np.zeros((3, 4))
    assert np.sin(t, out=n) is n                     # an ndarray out: NumPy's
    np.testing.assert_allclose(n, np.sin(A))
    s = tf.zeros(4)
    assert np.add.reduce(t, axis=0, out=s) is s
    np.testing.assert_allclose(s.numpy(), A.sum(0))
    m = tf.asarray(A.copy())
    assert np.add.at(m, [0, 0, 2], 1.0) is None      # in place, on the tensor's memory
    want = A.copy()
    np.add.at(want, [0, 0, 2], 1.0)
    np.testing.assert_allclose(m.numpy(), want)
    with pytest.raises(ValueError, match="shape"):
        np.sin(t, out=tf.zeros(4))


def test_gradient_through_dispatched_ufuncs():
    x = tf.tensor(A, requires_grad=True)
    (np.sum(sc.expit(x)) + np.add.reduce(np.exp(x), axis=None)).backward()
    s = sc.expit(A)
    np.testing.assert_allclose(x.grad.numpy(), s * (1 - s) + np.exp(A))


def test_ufunc_dtype_casts_as_numpy():
    """A ufunc's dtype= casts the inputs to the loop dtype in tenferro, under NumPy's
    same_kind rule: float64 -> int32 raises as NumPy (it truncated silently once),
    a Python scalar is weak, and the result is NumPy's in dtype and values."""
    a = np.array([1.5, -2.5])
    t = tf.asarray(a)
    with pytest.raises(TypeError):
        np.add(a, a, dtype=np.int32)
    with pytest.raises(TypeError, match="Cannot cast ufunc 'add' input 0 from dtype.'float64'"):
        np.add(t, t, dtype=np.int32)
    for dt, other in [(np.float32, 1), (np.complex128, 2.0), (np.float64, a)]:
        got, want = np.add(t, other, dtype=dt), np.add(a, other, dtype=dt)
        assert isinstance(got, tf.Tensor) and got.dtype == want.dtype
        np.testing.assert_array_equal(got.numpy(), want)
    ints = np.array([1, 2])
    got = np.multiply(tf.asarray(ints), 3, dtype=np.float64)
    assert got.dtype == np.float64 and got.numpy().tolist() == [3.0, 6.0]


# -- the fallback's refusals ------------------------------------------------------------
REFUSED = [
    ("scipy.special.gamma", lambda t: sc.gamma(t)),
    ("scipy.special.jv", lambda t: sc.jv(1, t)),
    ("numpy.fmod", lambda t: np.fmod(t, 2)),
    ("numpy.heaviside", lambda t: np.heaviside(t, 0.5)),
    ("numpy.add.reduceat", lambda t: np.add.reduceat(t, [0, 2])),
    ("numpy.sin", lambda t: np.sin(t, casting="unsafe")),
    ("numpy.ptp", lambda t: np.ptp(t, axis=1)),
    ("numpy.sum", lambda t: np.sum(t, where=tf.asarray(A > 0))),
]


@pytest.mark.parametrize("what,call", REFUSED, ids=[r[0] for r in REFUSED])
def test_fallback_refuses_tensors_that_require_grad(what, call):
    x = tf.tensor(A, requires_grad=True)
    with pytest.raises(TypeError, match=r"%s: .*requires grad.*\.detach\(\)" % what):
        call(x)
    with pytest.raises(TypeError, match="requires grad"):
        call(x * 2)   # a non-leaf computed from it too
    with tf.no_grad(), pytest.raises(TypeError, match="requires grad"):
        call(x)       # as x.numpy() under no_grad
    r = call(x.detach())   # explicit: NumPy computes it
    assert isinstance(r, tf.Tensor) and r.device == tf.device("cpu")


@pytest.mark.parametrize("what,call", REFUSED, ids=[r[0] for r in REFUSED])
def test_fallback_refuses_tensors_on_other_devices(what, call):
    g = _webgpu_tensor(A)
    with pytest.raises(TypeError, match=r"%s: .*is on 'webgpu.*to\('cpu'\)" % what):
        call(g)


def test_dispatch_keeps_device_tensors_on_their_device():
    g = _webgpu_tensor(A)
    for r in (np.sum(g, axis=1), np.sin(g), np.stack([g, g]), np.add.reduce(g)):
        assert isinstance(r, tf.Tensor) and r.device == g.device


def test_foreign_array_types_are_asked():
    class Foreign:
        __array_ufunc__ = None

        def __array_function__(self, func, types, args, kwargs):
            return NotImplemented

    t = tf.asarray(A)
    with pytest.raises(TypeError):
        np.add(t, Foreign())
    with pytest.raises(TypeError, match="no implementation found"):
        np.concatenate([t, Foreign()])


def test_non_numeric_results_stay_numpy():
    t = tf.asarray(A)
    assert np.array_equal(t, t) is True
    assert isinstance(np.array2string(t), str)
    r = np.packbits(tf.asarray(A > 0))   # uint8 widens to int32, as tenferro.asarray does
    assert isinstance(r, tf.Tensor) and r.dtype == tf.int32
    np.testing.assert_array_equal(r.numpy(), np.packbits(A > 0))


# -- scipy.special ufuncs: tenferro.special's twins, picked up once it has them ----------
def test_special_module_twins_are_used(monkeypatch):
    import types

    fake = types.SimpleNamespace(gammaln=lambda x: "tenferro.special's")
    monkeypatch.setattr(U, "_special", [fake])
    monkeypatch.setattr(U, "_twins", {})
    assert sc.gammaln(tf.asarray(A)) == "tenferro.special's"
    r = sc.gamma(tf.asarray(A))   # not among tenferro.special's: NumPy's
    assert isinstance(r, tf.Tensor)


SPECIAL_ARGS = {"xlogy": 2, "xlog1py": 2, "rel_entr": 2, "kl_div": 2, "betaln": 2,
                "gammainc": 2, "gammaincc": 2}


@pytest.mark.parametrize("name", sorted(U.SPECIAL))
def test_special_twins_match_scipy(name, monkeypatch):
    uf = getattr(sc, name)
    monkeypatch.setattr(U, "_twins", {})
    if U.ufunc_twin(uf) is None:
        pytest.skip("tenferro has no twin of scipy.special.%s yet" % name)
    x = np.abs(A) / 4 + 0.1            # inside every domain (erfinv's, logit's too)
    args = (x, x[::-1] + 0.5)[:SPECIAL_ARGS.get(name, 1)]
    want = uf(*args)
    monkeypatch.setattr(U, "call_numpy", lambda *a: pytest.fail("fell back to NumPy"))
    got = uf(*(tf.asarray(a) for a in args))
    np.testing.assert_allclose(_as_numpy(got, want), want, rtol=1e-12, atol=1e-14)
