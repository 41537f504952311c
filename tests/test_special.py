"""tenferro.special against scipy.special: values over each function's domain and its
edges (0, -0, negatives, poles, huge, tiny, subnormal, NaN, +-inf), dtypes (float32
stays float32, ints and bools promoted as scipy, complex where scipy takes it),
broadcasting, weak Python scalars, 0-d input and clear errors.  Derivatives at the
edges, devices and traced programs: tests/test_special_grad.py; gradchecks to order 2:
tests/special_specs.py (run by tests/test_autograd_rules.py)."""
import numpy as np
import pytest
import scipy.special as sc

import tenferro as tf
import tenferro.special as ts

TINY64 = np.finfo(np.float64).tiny

# every unary function sees these (each function's own domain, its edges and beyond)
EDGES = np.array([0.0, -0.0, 1.0, -1.0, -2.0, -3.0, 0.5, -0.5, 2.5, -2.5, 0.3, 0.65,
                  0.999, -0.999, 1e-300, -1e-300, 5e-324, 1e-30, 1e-8, 1e3, -1e3, 30.0,
                  171.5, 1e10, 1e300, -1e300, np.inf, -np.inf, np.nan])
GRID = np.concatenate([EDGES, np.linspace(-30, 30, 241), np.linspace(-1, 1, 201)])
# binary functions: every pair of these, plus random pairs
EDGES2 = np.array([0.0, -0.0, 1.0, -1.0, 0.5, 2.0, -2.5, 1e-300, 30.0, 1e300, np.inf,
                   -np.inf, np.nan])
_rng = np.random.default_rng(0)
PAIRS = (np.concatenate([np.repeat(EDGES2, len(EDGES2)), _rng.uniform(-3, 6, 300)]),
         np.concatenate([np.tile(EDGES2, len(EDGES2)), _rng.uniform(-3, 6, 300)]))
COMPLEX_GRID = (np.array([0.0, 1.0, -2.0, 0.5, 3.7, -0.3, 30.0])[:, None] +
                1j * np.array([0.0, 1.0, -1.5, 0.2, 4.0, -30.0])).ravel()

# scipy.special's kernels: the values must be scipy's, bit for bit
KERNEL_UNARY = ["gammaln", "digamma", "erfcx", "erfinv", "i0", "i0e", "i1", "i1e"]
# tenferro's own kernel for real input (scipy's for complex): values against scipy and
# mpmath in tests/test_special_kernels.py (scipy's erfc is ~500 ulp off in its tail)
OWN_UNARY = ["erfc"]
KERNEL_BINARY = ["betaln", "gammainc", "gammaincc"]
# compositions of tenferro's ops (their eager CPU calls: tenferro's own kernels, also
# tests/test_special_kernels.py): scipy's values to a few ulp
COMPOSED_UNARY = ["erf", "expit", "logit", "log_expit", "entr", "sinc"]
COMPOSED_BINARY = ["xlogy", "xlog1py", "rel_entr", "kl_div"]
COMPLEX_OK = {"digamma", "erf", "erfc", "erfcx", "sinc", "xlogy", "xlog1py"}


def ref(name):
    return np.sinc if name == "sinc" else getattr(sc, "psi" if name == "digamma" else name)


def host(t):
    assert isinstance(t, tf.Tensor), type(t)
    return t.numpy()


def assert_scipy(got, want, exact, dtype=None):
    """dtype, shape and values (NaNs and infinities where scipy has them); ``exact``:
    bit for bit, else to 8 ulp of the dtype or, where scipy's result is subnormal, to
    the smallest normal number (scipy flushes some results to 0)."""
    want = np.asarray(want)
    got = host(got)
    assert got.dtype == (want.dtype if dtype is None else dtype), (got.dtype, want.dtype)
    assert got.shape == want.shape
    if exact:
        np.testing.assert_array_equal(got, want)
        return
    eps = np.finfo(got.dtype).eps
    np.testing.assert_allclose(got, want.astype(got.dtype), rtol=8 * eps,
                               atol=np.finfo(got.dtype).tiny)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", KERNEL_UNARY + COMPOSED_UNARY)
def test_unary_values(name, dtype):
    with np.errstate(all="ignore"):
        x = GRID.astype(dtype)
        want = ref(name)(x)
        if dtype == "float32" and name in COMPOSED_UNARY and name != "sinc":
            # scipy's own float32 loops are a few ulp off in places: compare with float64
            want = ref(name)(x.astype(np.float64)).astype(np.float32)
    assert_scipy(getattr(ts, name)(x), want, name in KERNEL_UNARY, dtype=np.dtype(dtype))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", KERNEL_BINARY + COMPOSED_BINARY)
def test_binary_values(name, dtype):
    with np.errstate(all="ignore"):
        a, b = (p.astype(dtype) for p in PAIRS)
        want = ref(name)(a, b)
        if name == "kl_div":   # scipy's x log(x/y) overflows where x/y does; not here
            want = np.where(np.isinf(want) & np.isfinite(a) & np.isfinite(b) & (a > 0),
                            sc.rel_entr(a, b) - a + b, want)
        if dtype == "float32" and name in ("xlogy", "xlog1py"):
            # scipy's own float32 loops are a few ulp off in places: compare with float64
            want = ref(name)(a.astype(np.float64), b.astype(np.float64)).astype(np.float32)
    got = getattr(ts, name)(a, b)
    if name != "kl_div":
        assert_scipy(got, want, name in KERNEL_BINARY, dtype=np.dtype(dtype))
        return
    # kl_div cancels (x log(x/y) against x - y): 8 ulp of the terms, not of the result
    assert got.dtype == tf.dtype(dtype)
    got = host(got).astype(np.float64)
    with np.errstate(all="ignore"):
        a, b = a.astype(np.float64), b.astype(np.float64)
        terms = np.abs(sc.rel_entr(a, b)) + np.abs(a) + np.abs(b)
        ok = (got == want) | (np.isnan(got) & np.isnan(want)) | \
            (np.abs(got - want) <= 8 * np.finfo(dtype).eps * terms)
    assert ok.all(), list(zip(a[~ok], b[~ok], got[~ok], want[~ok]))


@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
@pytest.mark.parametrize("name", sorted(COMPLEX_OK))
def test_complex_values(name, dtype):
    z = COMPLEX_GRID.astype(dtype)
    with np.errstate(all="ignore"):
        if name in COMPOSED_BINARY:
            got, want = getattr(ts, name)(z[::-1], z), ref(name)(z[::-1], z)
        else:
            got, want = getattr(ts, name)(z), ref(name)(z)
    exact = name in KERNEL_UNARY + OWN_UNARY or name == "erf"   # (complex: scipy's)
    if name == "sinc":
        want = want.astype(dtype)
    assert_scipy(got, want, exact, dtype=np.dtype(dtype)) if exact else \
        np.testing.assert_allclose(host(got), want, rtol=16 * np.finfo(dtype).eps, atol=1e-300)


def test_polygamma_values():
    x = GRID
    for n in (0, 1, 2, 5):
        with np.errstate(all="ignore"):
            want = sc.polygamma(n, x)
        assert_scipy(ts.polygamma(n, x), want, True)
    # float32 stays float32 (scipy's Python polygamma returns float64)
    with np.errstate(all="ignore"):
        x32 = x.astype(np.float32)
        want = sc.polygamma(1, x32).astype(np.float32)
    assert_scipy(ts.polygamma(1, x32), want, True)
    # an array of orders broadcast against x
    n = np.array([[0], [1], [3]])
    assert_scipy(ts.polygamma(n, np.array([0.5, 2.0, -1.5, 7.0])),
                 sc.polygamma(n, np.array([0.5, 2.0, -1.5, 7.0])), True)
    assert_scipy(ts.polygamma(tf.asarray(2), 3.0), sc.polygamma(2, 3.0), True)
    for bad in (-1, 1.5, np.nan, "a", [0, -2]):
        with pytest.raises(ValueError, match="tenferro.special.polygamma: n must be an "
                                             "integer >= 0"):
            ts.polygamma(bad, 1.0)


def test_psi_is_digamma():
    assert ts.psi is ts.digamma


def test_erf_real_is_tenferro_erf():
    x = tf.asarray(GRID)
    np.testing.assert_array_equal(host(ts.erf(x)), host(tf.erf(x)))


@pytest.mark.parametrize("name", KERNEL_UNARY + OWN_UNARY + COMPOSED_UNARY)
@pytest.mark.parametrize("dtype", ["int32", "int64", "bool"])
def test_int_and_bool_promote_as_scipy(name, dtype):
    x = np.array([0, 1, 3], dtype=dtype) if dtype != "bool" else np.array([False, True])
    with np.errstate(all="ignore"):
        want = ref(name)(x)
    assert_scipy(getattr(ts, name)(x), want, name in KERNEL_UNARY)


@pytest.mark.parametrize("name", sorted(set(KERNEL_UNARY + COMPOSED_UNARY + KERNEL_BINARY
                                            + COMPOSED_BINARY) - COMPLEX_OK))
def test_complex_rejected_where_scipy_has_no_loop(name):
    f = getattr(ts, name)
    args = (np.array([1 + 1j]),) * (2 if name in KERNEL_BINARY + COMPOSED_BINARY else 1)
    with pytest.raises(TypeError, match=r"tenferro\.special\.%s: not supported for input "
                                        r"dtype" % name):
        f(*args)


def test_weak_scalars_broadcasting_and_0d():
    x32 = np.array([0.5, 2.0], dtype=np.float32)
    for name in ("xlogy", "gammainc", "kl_div", "betaln"):
        # scipy's dtypes, weak Python scalars included (its float64 loops come first)
        assert getattr(ts, name)(x32, 2.0).dtype == ref(name)(x32, 2.0).dtype
        assert getattr(ts, name)(2.0, x32).dtype == ref(name)(2.0, x32).dtype
        assert getattr(ts, name)(x32, x32).dtype == tf.float32
    a, b = np.linspace(0.5, 3, 3)[:, None], np.linspace(0.1, 4, 4)
    for name in KERNEL_BINARY + COMPOSED_BINARY:   # (kl_div's values: test_binary_values)
        want = ref(name)(a, b)
        if name == "kl_div":
            assert getattr(ts, name)(a, b).shape == want.shape
        else:
            assert_scipy(getattr(ts, name)(a, b), want, name in KERNEL_BINARY)
    assert_scipy(ts.xlogy(np.float32(2), np.array([3.0])), sc.xlogy(np.float32(2),
                                                                      np.array([3.0])), False)
    r = ts.gammaln(3.5)
    assert r.shape == () and r.dtype == tf.float64
    assert float(r) == sc.gammaln(3.5)
    with pytest.raises(ValueError, match=r"^tenferro\.special\.xlogy: shapes"):
        ts.xlogy(np.ones(3), np.ones(4))   # (named once: it read tenferro.tenferro.special)


def test_edge_values_named():
    """The documented edge values, spelled out."""
    assert host(ts.xlogy(0.0, np.array([0.0, -1.0, np.inf, 2.0]))).tolist() == [0, 0, 0, 0]
    assert np.isnan(float(ts.xlogy(0.0, np.nan)))
    assert host(ts.xlog1py(0.0, np.array([-1.0, -3.0, np.inf]))).tolist() == [0, 0, 0]
    assert host(ts.entr(np.array([0.0, -1.0, np.inf]))).tolist() == [0, -np.inf, -np.inf]
    assert host(ts.logit(np.array([0.0, 1.0]))).tolist() == [-np.inf, np.inf]
    assert np.isnan(host(ts.logit(np.array([-0.1, 1.1])))).all()
    assert host(ts.erfinv(np.array([-1.0, 1.0]))).tolist() == [-np.inf, np.inf]
    assert float(ts.sinc(0.0)) == 1.0 and float(ts.sinc(1.0)) == np.sinc(1.0)
    assert host(ts.rel_entr(np.array([0.0, 1.0, -1.0]), np.array([0.0, 0.0, 1.0]))).tolist() \
        == [0.0, np.inf, np.inf]
    assert host(ts.gammaln(np.array([0.0, -1.0, -2.0]))).tolist() == [np.inf] * 3


# -- logsumexp, softmax, log_softmax -----------------------------------------------------

LSE_INPUTS = [np.array([1.0, 2.0, 3.0]), np.arange(12.0).reshape(3, 4) - 5,
              np.array([[1000.0, 1000.0], [-1000.0, 0.0]]),
              np.array([-np.inf, -np.inf]), np.array([np.inf, 1.0]), np.array([np.nan, 1.0]),
              np.array(2.5), np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7,
              np.array([1, 2, 3], dtype=np.int64), np.zeros((0, 3)),
              np.array([1 + 2j, 3 - 1j, -0.5 + 4j])]
AXES = [None, 0, -1, (0, 1)]


def _cases():
    for i, a in enumerate(LSE_INPUTS):
        for axis in AXES:
            if a.size == 0 and axis in (None, (0, 1)):
                continue   # scipy 1.17 raises IndexError here: test_logsumexp_empty
            if axis is None or (np.ndim(a) and (axis in (0, -1) or np.ndim(a) >= 2)):
                yield pytest.param(a, axis, id="%d-%s" % (i, axis))


def _close(got, want):
    want = np.asarray(want)
    got = host(got)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, want.shape,
                                                                 got.dtype, want.dtype)
    rt = 16 * np.finfo(got.dtype).eps
    np.testing.assert_allclose(got, want, rtol=rt, atol=rt)


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("a,axis", list(_cases()))
def test_logsumexp(a, axis, keepdims):
    with np.errstate(all="ignore"):
        _close(ts.logsumexp(a, axis=axis, keepdims=keepdims),
               sc.logsumexp(a, axis=axis, keepdims=keepdims))
        if a.dtype.kind != "c" and a.size:
            _close(ts.softmax(a, axis=axis), sc.softmax(a, axis=axis))
            _close(ts.log_softmax(a, axis=axis), sc.log_softmax(a, axis=axis))


@pytest.mark.parametrize("a,b", [
    (np.array([[1.0, 2.0], [3.0, 0.5]]), np.array([1.0, -1.0])),
    (np.array([[1.0, 2.0], [3.0, 0.5]]), np.array([[2.0, 0.0], [0.5, -3.0]])),
    (np.array([[1.0, 2.0], [3.0, 0.5]]), np.array([0.0, 0.0])),     # nothing left: -inf
    (np.array([[1.0, np.nan], [0.5, 2.0]]), np.array([[1.0, 0.0], [1.0, 1.0]])),  # b = 0
    #                                                           drops the NaN
    (np.array([[1.0, 2.0], [np.inf, 0.5]]), np.array([-1.0, 2.0])),
    (np.array([[1.0, 2.0]]), np.array([1, 1], dtype=np.int32))])
@pytest.mark.parametrize("axis", [None, 0, -1])
def test_logsumexp_weights_and_sign(a, b, axis):
    with np.errstate(all="ignore"):
        for keepdims in (False, True):
            want = sc.logsumexp(a, axis=axis, b=b, keepdims=keepdims, return_sign=True)
            got = ts.logsumexp(a, axis=axis, b=b, keepdims=keepdims, return_sign=True)
            _close(got[0], want[0])
            _close(got[1], want[1])
            _close(ts.logsumexp(a, axis=axis, b=b, keepdims=keepdims),
                   sc.logsumexp(a, axis=axis, b=b, keepdims=keepdims))


def test_logsumexp_empty():
    for axis, keepdims, shape in [(None, False, ()), (None, True, (1, 1)),
                                  ((0, 1), False, ()), (0, False, (3,))]:
        r = ts.logsumexp(np.zeros((0, 3)), axis=axis, keepdims=keepdims)
        assert r.shape == shape and np.all(host(r) == -np.inf)
    r, sgn = ts.logsumexp(np.zeros((0, 3)), return_sign=True)
    assert float(r) == -np.inf and float(sgn) == -1.0     # scipy's sign(-inf)


def test_logsumexp_complex_sign_and_errors():
    z = np.array([1 + 2j, -3 - 1j, 0.5j])
    want = sc.logsumexp(z, return_sign=True)
    got = ts.logsumexp(z, return_sign=True)
    _close(got[0], want[0])
    _close(got[1], want[1])
    with pytest.raises(np.exceptions.AxisError, match="special.logsumexp"):
        ts.logsumexp(np.ones(3), axis=1)
    with pytest.raises(np.exceptions.AxisError, match="special.softmax"):
        ts.softmax(np.ones(3), axis=2)
    with pytest.raises(ValueError):
        ts.logsumexp(np.ones(3), b=np.ones(4))


def test_kernels_split_over_threads_give_the_same_values(monkeypatch):
    """Large inputs run scipy's ufunc in chunks on tenferro's threads: bit for bit the
    single call's values, for broadcast, strided and 2-D inputs, with no warnings."""
    import warnings

    from tenferro.special import _base

    monkeypatch.setattr(_base, "PARALLEL_FROM", 16)
    x = np.concatenate([GRID, np.linspace(-5, 5, 301)])
    cases = [("gammaln", (x,)), ("erfcx", (x[::3],)), ("i1e", (x.reshape(-1, 1)[:40],)),
             ("gammainc", (np.abs(x[:50, None]), np.linspace(0, 9, 7))),
             ("betaln", (np.linspace(0.1, 4, 5)[:, None], np.abs(x)[None, :]))]
    with tf.num_threads(3), warnings.catch_warnings():
        warnings.simplefilter("error")
        for name, args in cases:
            with np.errstate(all="ignore"):
                want = ref(name)(*args)
            assert_scipy(getattr(ts, name)(*args), want, True)
