"""The statistics functions against NumPy: the nan* reductions and nan_to_num, average,
cov, corrcoef, bincount, histogram, trapezoid, cross, polyval, interp, median and the
quantile family -- dtypes (integer inputs and their result dtypes included), axes (None,
negative, tuples), keepdims, NaN and all-NaN slices with NumPy's warnings and errors,
empty and 0-d inputs, weights; their derivatives by finite differences (forward,
reverse and the eager tape; complex where the function takes complex); and the
compositions on every device (the ``device`` fixture)."""
import warnings

import numpy as np
import pytest

import tenferro as tf
from tenferro import autograd

from conftest import assert_close, check_on, run_on, skip_unless_supported, stable_rng, to_device

NAN_REDUCTIONS = ["nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin"]
DTYPES = ["bool", "int32", "int64", "float32", "float64", "complex64", "complex128"]
QUANTILE_METHODS = ["inverted_cdf", "averaged_inverted_cdf", "closest_observation",
                    "interpolated_inverted_cdf", "hazen", "weibull", "linear",
                    "median_unbiased", "normal_unbiased", "lower", "higher", "midpoint",
                    "nearest"]


def data(shape, dtype, nan=True, seed=0):
    """Values of ``dtype``; inexact ones with a few NaNs (one slice along axis 1 all NaN)."""
    rng = stable_rng(shape, dtype, seed)
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        return rng.integers(-5, 6, shape).astype(dtype)
    a = rng.standard_normal(shape) + (1j * rng.standard_normal(shape) if dtype.kind == "c" else 0)
    a = a.astype(dtype)
    if nan and a.size and a.ndim >= 2:
        a.reshape(-1)[::7] = np.nan
        a[(0,) * (a.ndim - 2) + (slice(None), 0)] = np.nan
    return a


def call(fn, *args, **kwargs):
    """(result or the exception raised, the RuntimeWarning/DeprecationWarning messages;
    NumPy's floating-point "... encountered in ..." warnings left out: tenferro's kernels
    raise none)."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            r = fn(*args, **kwargs)
        except Exception as e:   # noqa: BLE001  (compared with NumPy's below)
            r = e
    return r, [str(x.message) for x in w if "encountered in" not in str(x.message)]


def same_as_numpy(name, args, kwargs=None, targs=None, rtol=None, atol=None, np_fn=None):
    """``tf.<name>`` on tensors equals ``np.<name>``: values, dtype, shape, warnings (and
    the exception type where NumPy raises)."""
    kwargs = kwargs or {}
    targs = targs if targs is not None else [tf.asarray(a) if isinstance(a, np.ndarray) else a
                                             for a in args]
    want, wwarn = call(np_fn or getattr(np, name), *args, **kwargs)
    got, gwarn = call(getattr(tf, name), *targs, **kwargs)
    if isinstance(want, Exception):
        assert isinstance(got, type(want)), (name, want, got)
        assert name in str(got), got
        return
    if isinstance(got, Exception):
        raise got
    assert [m.rstrip(".") for m in gwarn] == [m.rstrip(".") for m in wwarn], (gwarn, wwarn)
    if isinstance(want, tuple):
        for g, w in zip(got, want):
            assert_close(g, w, rtol=rtol, atol=atol)
    else:
        assert_close(got, want, rtol=rtol, atol=atol)


# -- nan* reductions, scans, nan_to_num ---------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", NAN_REDUCTIONS)
@pytest.mark.parametrize("axis", [None, 0, -1, 1, (0, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_nan_reductions(name, dtype, axis, keepdims):
    a = data((3, 4, 5), dtype)
    if name in ("nanmax", "nanmin") and np.dtype(dtype).kind == "c":
        a = np.where(np.isnan(a), np.nan, a.real).astype(dtype)   # (ties in the real part)
    rtol = 1e-5 if dtype in ("float32", "complex64") else 1e-12
    same_as_numpy(name, (a,), dict(axis=axis, keepdims=keepdims), rtol=rtol, atol=rtol)


@pytest.mark.parametrize("name", ["nanargmax", "nanargmin", "nancumsum", "nancumprod"])
@pytest.mark.parametrize("dtype", ["bool", "int32", "float32", "float64", "complex128"])
@pytest.mark.parametrize("axis", [None, 0, -1])
def test_nan_positions_and_scans(name, dtype, axis):
    a = data((4, 5), dtype, nan=False)
    if a.dtype.kind in "fc":
        a.reshape(-1)[::3] = np.nan
    same_as_numpy(name, (a,), dict(axis=axis))


def test_nanargmax_all_nan_slice_raises():
    a = np.array([[np.nan, np.nan], [1.0, np.nan]])
    for name in ("nanargmax", "nanargmin"):
        same_as_numpy(name, (a,), dict(axis=1))
        with pytest.raises(ValueError, match="tenferro.%s: All-NaN slice" % name):
            getattr(tf, name)(tf.asarray(a), axis=1)
        assert int(getattr(tf, name)(tf.asarray(a[:, :1]), axis=0)[0]) == 1


@pytest.mark.parametrize("name", NAN_REDUCTIONS + ["nancumsum", "nancumprod"])
@pytest.mark.parametrize("a", [np.zeros((0,)), np.zeros((2, 0)), np.array(np.nan),
                               np.array(2.5), np.array([np.nan, np.nan])],
                         ids=["empty", "empty2d", "0d-nan", "0d", "all-nan"])
def test_nan_reductions_edges(name, a):
    same_as_numpy(name, (a,))
    if a.ndim == 2:
        same_as_numpy(name, (a,), dict(axis=0))


def test_nan_reductions_keywords():
    a = data((3, 4), "float32")
    same_as_numpy("nansum", (a,), dict(axis=1, dtype=np.float64))
    same_as_numpy("nanmean", (a,), dict(axis=0, dtype=np.float64))
    same_as_numpy("nanvar", (a,), dict(axis=1, ddof=1))
    same_as_numpy("nanstd", (a,), dict(axis=1, ddof=4))            # dof <= 0 somewhere
    same_as_numpy("nanvar", (a,), dict(correction=1))
    with pytest.raises(TypeError, match="nanmean: if a is inexact, then dtype must be inexact"):
        tf.nanmean(tf.asarray(a), dtype=tf.int32)
    with pytest.raises(ValueError, match="ddof and correction"):
        tf.nanvar(tf.asarray(a), ddof=1, correction=1)
    out = tf.zeros((3,), dtype=tf.float32)
    assert tf.nansum(tf.asarray(a), axis=1, out=out) is out
    assert_close(out, np.nansum(a, axis=1), rtol=1e-6)
    with pytest.raises(np.exceptions.AxisError, match="nansum"):
        tf.nansum(tf.asarray(a), axis=2)
    with pytest.raises(ValueError, match="nanmax: zero-size reduction"):
        tf.nanmax(tf.zeros((0, 3)), axis=0)


@pytest.mark.parametrize("dtype", DTYPES)
def test_nan_to_num(dtype):
    a = np.array([1, np.nan, np.inf, -np.inf, -2]) if np.dtype(dtype).kind in "fc" else \
        data((5,), dtype)
    if np.dtype(dtype).kind == "c":
        re = a.astype(np.dtype(dtype).char.lower())
        a = np.empty(a.shape, dtype)
        a.real, a.imag = re, re[::-1]
    a = a.astype(dtype)
    same_as_numpy("nan_to_num", (a,))
    same_as_numpy("nan_to_num", (a,), dict(nan=7.0, posinf=1e3, neginf=-1e3))


def test_nan_to_num_in_place():
    a = np.array([np.nan, np.inf, 1.0])
    t = tf.asarray(a)
    assert tf.nan_to_num(t, copy=False) is t
    assert_close(t, np.nan_to_num(a))
    t = tf.asarray([1, 2])
    assert tf.nan_to_num(t, copy=False) is t and tf.nan_to_num(t) is not t


def test_nan_to_num_in_place_refuses_a_tensor_autodiff_follows():
    # the write used to go through unrecorded: backward then differentiated the old
    # values, not the replaced ones (a silent wrong gradient)
    x = tf.tensor([1.0, 2.0], requires_grad=True)
    y = tf.log(x - 1.0)                       # -inf at x = 1
    with pytest.raises(RuntimeError, match="nan_to_num: in-place operation"):
        tf.nan_to_num(y, copy=False)
    with pytest.raises(RuntimeError, match="nan_to_num: a leaf tensor"):
        tf.nan_to_num(x, copy=False)
    with tf.no_grad():                        # allowed where nothing records, as PyTorch
        assert tf.nan_to_num(y, copy=False) is y
    g = tf.grad(lambda v: tf.nan_to_num(2.0 * v).sum())(tf.asarray([np.inf, 2.0]))
    assert_close(g, [0.0, 2.0])               # zero at the replaced element


# -- average, cov, corrcoef ---------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64", "complex128"])
def test_average(dtype):
    a = data((3, 4, 5), dtype, nan=False)
    w = stable_rng("w").random((3, 4, 5)) + 0.1
    same_as_numpy("average", (a,), dict(axis=1))
    same_as_numpy("average", (a,), dict(axis=None, weights=w, returned=True))
    same_as_numpy("average", (a,), dict(axis=-1, weights=w[0, 0], returned=True))
    same_as_numpy("average", (a,), dict(axis=(2, 0), weights=w[:, 0].T, keepdims=True))
    same_as_numpy("average", (a,), dict(axis=(0, 1), weights=w[..., 0].astype(np.float32)))


def test_average_errors():
    a = tf.ones((3, 4))
    with pytest.raises(TypeError, match="average: axis must be specified"):
        tf.average(a, weights=tf.ones(4))
    with pytest.raises(ValueError, match="average: shape of weights"):
        tf.average(a, axis=0, weights=tf.ones(4))
    with pytest.raises(ZeroDivisionError, match="average: weights sum to zero"):
        tf.average(a, axis=1, weights=tf.zeros(4))


COV_CASES = [dict(), dict(rowvar=False), dict(bias=True), dict(ddof=2), dict(ddof=5),
             dict(fweights=[1, 2, 1, 3, 1]), dict(aweights=[0.1, 0.3, 1, 2, 0.5]),
             dict(fweights=[1, 2, 1, 3, 1], aweights=[0.1, 0.3, 1, 2, 0.5], ddof=1),
             dict(fweights=[1, 2, 1, 3, 1], aweights=[0.1, 0.3, 1, 2, 0.5], bias=True),
             dict(dtype=np.float32)]


@pytest.mark.parametrize("dtype", ["int32", "float32", "float64", "complex128"])
@pytest.mark.parametrize("kw", COV_CASES, ids=[str(sorted(k)) for k in COV_CASES])
def test_cov(dtype, kw):
    m = data((3, 5), dtype, nan=False)
    if kw.get("rowvar") is False:
        m = m.T
    if kw.get("dtype") is not None and np.dtype(dtype).kind == "c":
        kw = dict(kw, dtype=np.complex64)
    tol = 1e-5 if kw.get("dtype") is not None else 1e-12
    same_as_numpy("cov", (m,), kw, rtol=tol, atol=tol)
    same_as_numpy("corrcoef", (m,), {k: v for k, v in kw.items() if k in ("rowvar", "dtype")},
                  rtol=tol, atol=tol)


@pytest.mark.parametrize("shapes", [((5,), (5,)), ((2, 5), (5,)), ((5,), None), ((1, 5), None),
                                    ((), None), ((0, 3), None), ((2, 0), None)], ids=str)
def test_cov_shapes(shapes):
    sm, sy = shapes
    m = data(sm, "float64", nan=False)
    args = (m,) if sy is None else (m, data(sy, "float64", nan=False, seed=1))
    same_as_numpy("cov", args)
    same_as_numpy("corrcoef", args)
    if sy is not None:
        same_as_numpy("cov", (m.T, args[1]), dict(rowvar=False))


def test_cov_errors():
    m = tf.ones((2, 3))
    for kw, err, msg in [(dict(fweights=[1, 2.5, 1]), TypeError, "fweights must be integer"),
                         (dict(fweights=[1, -1, 1]), ValueError, "fweights cannot be negative"),
                         (dict(aweights=[1, -1, 1]), ValueError, "aweights cannot be negative"),
                         (dict(aweights=[1, 1]), RuntimeError, "incompatible numbers"),
                         (dict(aweights=[[1, 1, 1]]), RuntimeError,
                          "cannot handle multidimensional"),
                         (dict(ddof=1.5), ValueError, "ddof must be integer")]:
        with pytest.raises(err, match="cov: " + msg):
            tf.cov(m, **kw)
    with pytest.raises(ValueError, match="cov: input has more than 2 dimensions"):
        tf.cov(tf.ones((2, 2, 2)))


# -- bincount, histogram ------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["bool", "int32", "int64"])
def test_bincount(dtype):
    x = (np.array([0, 1, 1, 3, 2, 1, 7]) % (2 if dtype == "bool" else 8)).astype(dtype)
    w = np.linspace(-1, 1, 7)
    same_as_numpy("bincount", (x,))
    same_as_numpy("bincount", (x,), dict(minlength=12))
    same_as_numpy("bincount", (x,), dict(weights=w))
    same_as_numpy("bincount", (x,), dict(weights=w.astype(np.float32), minlength=3))
    same_as_numpy("bincount", (np.array([], dtype),), dict(minlength=2))
    same_as_numpy("bincount", (np.array([], dtype),))


def test_bincount_errors():
    for x, err, msg in [([0, -1], ValueError, "x must have no negative elements"),
                        ([[0, 1]], ValueError, "x must be 1-dimensional"),
                        ([0.5], TypeError, "cannot cast")]:
        with pytest.raises(err, match="bincount: " + msg):
            tf.bincount(tf.asarray(x))
    with pytest.raises(ValueError, match="minlength"):
        tf.bincount(tf.asarray([0]), minlength=-1)
    with pytest.raises(TypeError, match="complex weights"):
        tf.bincount(tf.asarray([0]), weights=tf.asarray([1j]))


HIST_CASES = [dict(), dict(bins=7), dict(bins=1), dict(bins=[-1, 0, 0.5, 3]),
              dict(bins=[-1, 0, 0, 0.5, 3]), dict(range=(-1, 1)), dict(range=(0, 0)),
              dict(density=True), dict(bins=3, density=True, weights=True),
              dict(weights=True), dict(bins=np.array([-2, 0, 2]), weights=True)]


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64"])
@pytest.mark.parametrize("kw", HIST_CASES, ids=[str(k) for k in HIST_CASES])
def test_histogram(dtype, kw):
    a = (stable_rng("h").standard_normal((5, 8)) * (4 if dtype[0] == "i" else 1)).astype(dtype)
    if kw.get("weights") is True:
        kw = dict(kw, weights=stable_rng("hw").random((5, 8)))
    same_as_numpy("histogram", (a,), kw)


@pytest.mark.parametrize("a", [np.array([], np.float32), np.array([5.0, 5.0]),
                               np.array([1, 2, 2, 3, 9], np.int32), np.array(3.0),
                               np.array([1.0, np.nan, 2.0]), np.linspace(0, 1, 11),
                               np.linspace(-3, 7, 41).astype(np.float32)], ids=str)
def test_histogram_edges(a):
    """Values on the edges land as NumPy's (its estimate-and-correct binning)."""
    same_as_numpy("histogram", (a,))
    same_as_numpy("histogram", (a,), dict(bins=3, range=(0, 4)))
    same_as_numpy("histogram", (a,), dict(bins=7, range=(-1.3, 2.9)))


def test_histogram_errors():
    a = tf.asarray([1.0, 2.0])
    for kw, err, msg in [(dict(bins=0), ValueError, "must be positive"),
                         (dict(bins=[1, 0]), ValueError, "increase monotonically"),
                         (dict(range=(2, 1)), ValueError, "max must be larger"),
                         (dict(range=(0, np.inf)), ValueError, "not finite"),
                         (dict(bins="auto"), NotImplementedError, "estimator"),
                         (dict(weights=[1.0]), ValueError, "same shape")]:
        with pytest.raises(err, match="histogram: .*" + msg):
            tf.histogram(a, **kw)


# -- trapezoid, cross, polyval, interp ----------------------------------------------------

@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64", "complex128"])
def test_trapezoid(dtype):
    y = data((3, 5), dtype, nan=False)
    x1 = np.sort(stable_rng("x").random(5))
    x2 = np.cumsum(stable_rng("x2").random((3, 5)), axis=0)
    same_as_numpy("trapezoid", (y,))
    same_as_numpy("trapezoid", (y,), dict(dx=0.25, axis=0))
    same_as_numpy("trapezoid", (y, x1))
    same_as_numpy("trapezoid", (y, x2), dict(axis=-2))
    same_as_numpy("trapezoid", (y[:, :1],))
    with pytest.raises(ValueError, match="trapezoid: y must have at least one dimension"):
        tf.trapezoid(tf.asarray(1.0))


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64", "complex128"])
@pytest.mark.parametrize("na,nb", [(3, 3), (2, 3), (3, 2), (2, 2)])
def test_cross(dtype, na, nb):
    a = data((4, na), dtype, nan=False)
    b = data((2, 1, nb), dtype, nan=False, seed=1)
    same_as_numpy("cross", (a, b))
    same_as_numpy("cross", (a.T, b[0]), dict(axisa=0))
    if 3 in (na, nb):
        same_as_numpy("cross", (a, b), dict(axisc=0))
        same_as_numpy("cross", (a[..., None], b[0][..., None]), dict(axis=1))


def test_cross_errors():
    with pytest.raises(ValueError, match="cross: incompatible dimensions"):
        tf.cross(tf.ones(4), tf.ones(3))
    with pytest.raises(ValueError, match="cross: at least one array has zero dimension"):
        tf.cross(tf.asarray(1.0), tf.ones(3))
    with pytest.raises(TypeError, match="cross: not supported for boolean"):
        tf.cross(tf.asarray([True, False, True]), tf.asarray([True, True, False]))


@pytest.mark.parametrize("pdt,xdt", [("float64", "float64"), ("int64", "float32"),
                                     ("int32", "int32"), ("float32", "float32"),
                                     ("complex128", "float64"), ("float64", "complex128")])
def test_polyval(pdt, xdt):
    p = data((4,), pdt, nan=False)
    x = data((2, 3), xdt, nan=False, seed=1)
    same_as_numpy("polyval", (p, x))
    same_as_numpy("polyval", (p, 2.5), targs=(tf.asarray(p), 2.5))
    same_as_numpy("polyval", (p[:0], x))


@pytest.mark.parametrize("fdt", ["float64", "float32", "int64", "complex128"])
def test_interp(fdt):
    rng = stable_rng("interp")
    xp = np.sort(rng.random(7))
    fp = data((7,), fdt, nan=False)
    x = np.concatenate([rng.random(20) * 1.4 - 0.2, xp, [np.nan, -np.inf, np.inf]])
    same_as_numpy("interp", (x, xp, fp))
    same_as_numpy("interp", (x, xp, fp), dict(left=-5, right=7))
    same_as_numpy("interp", (x.reshape(3, -1)[:, :8], xp, fp))
    same_as_numpy("interp", (x * 10 - 3, xp * 5, fp), dict(period=2.5))
    same_as_numpy("interp", (x, xp[:1], fp[:1]))
    same_as_numpy("interp", (0.5, xp, fp), targs=(0.5, tf.asarray(xp), tf.asarray(fp)))


def test_interp_errors():
    for args, msg in [(([0.5], [], []), "empty"), (([0.5], [0, 1], [1]), "same length"),
                      (([0.5], [[0, 1]], [1, 2]), "1-D")]:
        with pytest.raises(ValueError, match="interp: .*" + msg):
            tf.interp(*[tf.asarray(np.asarray(a, float)) for a in args])
    with pytest.raises(ValueError, match="period must be a non-zero"):
        tf.interp(tf.asarray([0.5]), tf.asarray([0.0, 1.0]), tf.asarray([0.0, 1.0]), period=0)


# -- median, quantile, percentile and their nan* versions ---------------------------------

Q_CASES = [0.3, 1, [0.0, 0.25, 0.5, 1.0], np.float32(0.7), np.array([0.1, 0.9], np.float32),
           np.array([[0.2], [0.8]])]


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64"])
@pytest.mark.parametrize("method", QUANTILE_METHODS)
@pytest.mark.parametrize("nan", [False, True], ids=["plain", "nan"])
def test_quantile_methods(dtype, method, nan):
    a = data((4, 5, 6), dtype)
    name = "nanquantile" if nan else "quantile"
    for q in Q_CASES:
        for axis, keepdims in [(None, False), (0, True), (-1, False), ((0, 2), True)]:
            if nan and np.ndim(q) == 2 and axis == (0, 2):
                continue   # (NumPy's nanquantile misplaces 2-D q's axes here; quantile's rule)
            want = getattr(np, name)(a, q, axis=axis, method=method, keepdims=keepdims)
            got = getattr(tf, name)(tf.asarray(a), q, axis=axis, method=method,
                                    keepdims=keepdims)
            # (NumPy hands back its sorted NaN as a scalar of a's dtype when the result is
            # 0-d: a dtype that depends on the data, which tenferro does not copy)
            quirk = np.ndim(want) == 0 and np.isnan(want)
            assert_close(got, want, check_dtype=not quirk)


@pytest.mark.parametrize("dtype", ["int64", "float32", "float64"])
@pytest.mark.parametrize("name", ["quantile", "nanquantile", "percentile", "nanpercentile"])
def test_weighted_quantile(name, dtype):
    a = data((4, 5, 6), dtype)
    w = stable_rng("qw").random((4, 5, 6))
    w[1, 1, :] = 0      # leading zero weights in some slices, and one all-zero slice
    q = [0.0, 0.3, 1.0] if "quantile" in name else [0.0, 30.0, 100.0]
    cases = [(None, w), (0, w), (-1, w), ((0, 2), w)]
    if not name.startswith("nan"):   # (NumPy's nan* ones fail on weights along the axes)
        cases += [((0, 2), w[:, 0, :]), ((2, 0), w[:, 0, :].T), (1, w[0, :, 0])]
    for axis, wt in cases:
        for qq in q + [q]:
            same_as_numpy(name, (a, qq), dict(axis=axis, weights=wt, method="inverted_cdf"),
                          targs=(tf.asarray(a), qq))


@pytest.mark.parametrize("name", ["percentile", "nanpercentile"])
def test_percentile(name):
    a = data((4, 6), "float64")
    for q in [30, 30.5, [0, 12.5, 100], np.array([5, 95], np.float32)]:
        same_as_numpy(name, (a, q), dict(axis=1))
        same_as_numpy(name, (a, q), dict(axis=0, method="nearest", keepdims=True))


@pytest.mark.parametrize("dtype", ["bool", "int32", "int64", "float32", "float64", "complex128"])
@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_median(dtype, axis, keepdims):
    for shape in [(4, 5, 6), (3, 5, 4)]:        # even and odd counts
        a = data(shape, dtype)
        if a.dtype.kind == "f":
            a[:, 1, 0] = np.nan                  # all-NaN slices along several axes
        same_as_numpy("median", (a,), dict(axis=axis, keepdims=keepdims))
        if dtype != "complex128":
            same_as_numpy("nanmedian", (a,), dict(axis=axis, keepdims=keepdims))


@pytest.mark.parametrize("name", ["median", "nanmedian", "quantile", "nanquantile"])
@pytest.mark.parametrize("a", [np.zeros((0,)), np.zeros((0, 3)), np.array(2.5),
                               np.array([np.nan, np.nan]), np.array([[1.0, np.inf]])],
                         ids=["empty", "empty2d", "0d", "all-nan", "inf"])
def test_order_statistics_edges(name, a):
    args = (a,) if "median" in name else (a, 0.5)
    same_as_numpy(name, args)
    if a.ndim == 2:
        same_as_numpy(name, args, dict(axis=0))


def test_quantile_errors():
    a = tf.asarray([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="quantile: Quantiles must be in the range"):
        tf.quantile(a, 1.5)
    with pytest.raises(ValueError, match="percentile: Percentiles must be in the range"):
        tf.percentile(a, [-1, 50])
    with pytest.raises(ValueError, match="'cubic' is not a valid method"):
        tf.quantile(a, 0.5, method="cubic")
    with pytest.raises(TypeError, match="real numbers"):
        tf.quantile(tf.asarray([1j]), 0.5)
    with pytest.raises(ValueError, match="only method 'inverted_cdf' supports weights"):
        tf.quantile(a, 0.5, weights=tf.ones(3))
    with pytest.raises(ValueError, match="weights must be non-negative"):
        tf.quantile(a, 0.5, method="inverted_cdf", weights=-tf.ones(3))
    with pytest.raises(ValueError, match="weights included NaN, inf or were all zero"):
        tf.quantile(a, 0.5, method="inverted_cdf", weights=tf.zeros(3))
    with pytest.raises(TypeError, match="quantile: axis must be specified"):
        tf.quantile(tf.ones((2, 3)), 0.5, method="inverted_cdf", weights=tf.ones(3))
    with pytest.raises(IndexError, match="quantile: cannot take a quantile of an empty"):
        tf.quantile(tf.zeros((0,)), 0.5)
    out = tf.zeros((2,))
    assert tf.quantile(a, [0.2, 0.4], out=out) is out
    assert_close(out, np.quantile([1.0, 2.0, 3.0], [0.2, 0.4]))


# -- derivatives --------------------------------------------------------------------------

def _t(a):
    return tf.asarray(np.asarray(a))


def _grad_cases():
    r = stable_rng("grad")
    x = r.standard_normal((3, 5))
    xn = x.copy()
    xn[0, 1] = xn[2, 3] = np.nan
    c = x + 1j * r.standard_normal((3, 5))
    cn = c.copy()
    cn[1, 1] = np.nan
    w5 = _t(r.random(5) + 0.5)
    grid = _t(np.linspace(0, 1, 6))
    hist_a = _t(r.standard_normal(5))
    return {
        "nansum": (lambda a: tf.nansum(a, axis=1), [_t(xn)]),
        "nansum-complex": (lambda a: tf.nansum(a, axis=0), [_t(cn)]),
        "nanprod": (lambda a: tf.nanprod(a, axis=1), [_t(xn)]),
        "nanmean": (lambda a: tf.nanmean(a, axis=0), [_t(xn)]),
        "nanvar": (lambda a: tf.nanvar(a, axis=1, ddof=1), [_t(xn)]),
        "nanvar-complex": (lambda a: tf.nanvar(a), [_t(cn)]),
        "nanstd": (lambda a: tf.nanstd(a, axis=1), [_t(xn)]),
        "nanmax": (lambda a: tf.nanmax(a, axis=1), [_t(xn)]),
        "nanmin": (lambda a: tf.nanmin(a), [_t(xn)]),
        "nancumsum": (lambda a: tf.nancumsum(a, axis=1), [_t(xn)]),
        "nancumprod": (lambda a: tf.nancumprod(a, axis=0), [_t(xn)]),
        "nan_to_num": (lambda a: tf.nan_to_num(a, nan=2.0), [_t(xn)]),
        "trapezoid": (lambda y, s: tf.trapezoid(y, x=s), [_t(x), _t(np.sort(r.random(5)))]),
        "trapezoid-complex": (lambda y: tf.trapezoid(y, dx=0.2, axis=0), [_t(c)]),
        "cross": (tf.cross, [_t(r.standard_normal((4, 3))), _t(r.standard_normal((4, 3)))]),
        "cov": (tf.cov, [_t(x)]),
        "cov-complex": (tf.cov, [_t(c)]),
        "cov-aweights": (lambda m, w: tf.cov(m, aweights=w, ddof=1), [_t(x), w5]),
        "corrcoef": (tf.corrcoef, [_t(x)]),
        "corrcoef-complex": (tf.corrcoef, [_t(c)]),
        "average": (lambda a, w: tf.average(a, axis=1, weights=w), [_t(x), w5]),
        "polyval": (tf.polyval, [_t(r.standard_normal(4)), _t(r.standard_normal(6))]),
        "polyval-complex": (tf.polyval, [_t(c[0, :4]), _t(c[1])]),
        "bincount": (lambda w: tf.bincount(_t([0, 2, 2, 5, 1]), weights=w), [w5]),
        "histogram": (lambda w: tf.histogram(hist_a, bins=3, weights=w)[0], [w5]),
        "interp": (lambda s, f: tf.interp(s, grid, f),
                   [_t(r.random(7) * 1.2 - 0.1), _t(r.standard_normal(6))]),
        "interp-complex": (lambda s, f: tf.interp(s, grid, f),
                           [_t(r.random(7) * 0.9 + 0.05), _t(c[0].tolist() + [1j])]),
        "median": (lambda a: tf.median(a, axis=1), [_t(x)]),
        "median-even": (lambda a: tf.median(a, axis=0), [_t(r.standard_normal((4, 3)))]),
        "quantile": (lambda a: tf.quantile(a, [0.2, 0.5, 0.9], axis=1), [_t(x)]),
        "quantile-hazen": (lambda a: tf.quantile(a, 0.3, method="hazen"), [_t(x)]),
        "quantile-weighted": (lambda a: tf.quantile(a, [0.3, 0.6], axis=1, weights=w5,
                                                    method="inverted_cdf"), [_t(x)]),
        "percentile-lower": (lambda a: tf.percentile(a, 30, axis=0, method="lower"), [_t(x)]),
        "nanmedian": (lambda a: tf.nanmedian(a, axis=1), [_t(xn)]),
        "nanquantile": (lambda a: tf.nanquantile(a, [0.25, 0.75], axis=(0, 1)), [_t(xn)]),
    }


GRAD_CASES = _grad_cases()


@pytest.mark.parametrize("name", list(GRAD_CASES))
def test_derivatives(name):
    f, args = GRAD_CASES[name]
    autograd.gradcheck(f, args, modes=("jvp", "vjp", "eager"), order=1)


@pytest.mark.parametrize("name", ["nanvar", "cov", "corrcoef", "polyval", "interp", "quantile"])
def test_second_derivatives(name):
    f, args = GRAD_CASES[name]
    autograd.gradcheck(f, args, modes=("jvp", "vjp"), order=2)


def test_gradient_reaches_the_selected_elements():
    x = tf.asarray([3.0, 1.0, 4.0, 1.5, 9.0, 2.0])
    x.requires_grad = True
    tf.median(x).backward()           # the mean of 2.0 and 3.0
    np.testing.assert_array_equal(np.asarray(x.grad), [0.5, 0, 0, 0, 0, 0.5])
    y = tf.asarray([np.nan, 1.0, 4.0])
    y.requires_grad = True
    tf.nanmax(y).backward()
    np.testing.assert_array_equal(np.asarray(y.grad), [0, 0, 1])


# -- traced -------------------------------------------------------------------------------

TRACED = {
    "nansum": lambda a: tf.nansum(a, axis=1),
    "nanmean": lambda a: tf.nanmean(a, axis=0),
    "nanvar": lambda a: tf.nanvar(a, axis=1, ddof=1),
    "nanmax": lambda a: tf.nanmax(a, axis=0),
    "nanargmin": lambda a: tf.nanargmin(a, axis=1),
    "nancumsum": lambda a: tf.nancumsum(a, axis=1),
    "nan_to_num": tf.nan_to_num,
    "trapezoid": lambda a: tf.trapezoid(a, dx=0.5),
    "cross": lambda a: tf.cross(a[:, :3], a[:, 1:4]),
    "polyval": lambda a: tf.polyval(a[0], a[1]),
    "cov": lambda a: tf.cov(tf.nan_to_num(a)),
    "corrcoef": lambda a: tf.corrcoef(tf.nan_to_num(a), rowvar=False),
    "average": lambda a: tf.average(tf.nan_to_num(a), axis=1, weights=tf.arange(1.0, 6.0)),
    "interp": lambda a: tf.interp(tf.nan_to_num(a), tf.linspace(-1.0, 1.0, 4),
                                  tf.asarray([0.0, 2.0, -1.0, 3.0])),
    "median": lambda a: tf.median(a, axis=1),
    "nanmedian": lambda a: tf.nanmedian(a, axis=0),
    "quantile": lambda a: tf.quantile(a, [0.1, 0.5], axis=0, method="hazen"),
    "nanpercentile": lambda a: tf.nanpercentile(a, 40, axis=1, keepdims=True),
}


@pytest.mark.parametrize("name", list(TRACED))
def test_traced(name):
    """Compiled (``tenferro.graph.jit``), each gives its eager values; the data-dependent
    checks (all-NaN warnings, weight checks) are skipped while tracing."""
    from tenferro.graph import jit

    a = data((4, 5), "float64")
    a[2] = [np.nan, 1.0, np.nan, 2.0, 0.5]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = TRACED[name](tf.asarray(a))
        got = jit(TRACED[name])(tf.asarray(a))
    assert_close(got, np.asarray(want))


# -- on every device ----------------------------------------------------------------------

F32 = np.float32


def _device_cases():
    r = stable_rng("device")
    x = r.standard_normal((3, 5)).astype(F32)
    xn = x.copy()
    xn[0, 1] = np.nan
    xn[1] = np.nan
    grid = np.linspace(-1, 1, 5).astype(F32)
    idx = np.array([0, 3, 3, 1], np.int32)
    cases = {name: (name, (xn,), dict(axis=1)) for name in NAN_REDUCTIONS}
    cases.update({
        "nanargmax": ("nanargmax", (xn,), dict(axis=0)),
        "nancumsum": ("nancumsum", (xn,), dict(axis=1)),
        "nancumprod": ("nancumprod", (xn,), dict(axis=1)),
        "nan_to_num": ("nan_to_num", (np.array([1, np.nan, np.inf, -np.inf], F32),), {}),
        "trapezoid": ("trapezoid", (x, grid), {}),
        "cross": ("cross", (x[:, :3], x[:, 2:]), {}),
        "polyval": ("polyval", (x[0], x[1]), {}),
        "interp": ("interp", (x[0], grid, x[1]), {}),
        "histogram": ("histogram", (x,), dict(bins=4)),
        "bincount": ("bincount", (idx,), {}),
        "bincount-weights": ("bincount", (idx,), dict(weights=x[0, :4])),
        "histogram-int": ("histogram", (idx,), dict(bins=[0, 2, 4])),
        "histogram-weights": ("histogram", (x,), dict(bins=3, weights=x ** 2, density=True)),
        "average": ("average", (x,), dict(axis=1, weights=x[0] ** 2)),
        "cov": ("cov", (x,), dict(dtype=F32)),
        "corrcoef": ("corrcoef", (x,), dict(dtype=F32)),
        "median": ("median", (x,), dict(axis=1)),
        "quantile": ("quantile", (x, 0.3), dict(axis=0)),
        "nanquantile": ("nanquantile", (xn, 0.3), dict(axis=0)),
    })
    return cases


DEVICE_CASES = _device_cases()


@pytest.mark.parametrize("case", list(DEVICE_CASES))
def test_on_device(device, case):
    """The composition runs on the device, float32 in and out (NumPy's float64 results
    are the device's default float: float32 on a device without float64), and matches
    NumPy's values; the order statistics need ``argsort`` (documented per device)."""
    name, args, kwargs = DEVICE_CASES[case]
    if name in ("median", "quantile", "nanquantile"):
        skip_unless_supported(device, "argsort", F32)
    kwargs = {k: to_device(v, device) if isinstance(v, np.ndarray) else v
              for k, v in kwargs.items()}
    targs = [to_device(a, device) if isinstance(a, np.ndarray) else a for a in args]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = run_on(device, getattr(tf, name), *targs, **kwargs)
        want = getattr(np, name)(*args, **{k: (np.asarray(v.to("cpu")) if hasattr(v, "to")
                                                else v) for k, v in kwargs.items()})
    got, want = (got[0], want[0]) if isinstance(want, tuple) else (got, want)
    want = np.asarray(want)
    if want.dtype == np.float64:
        want = want.astype(device.driver.default_dtypes["f"])
    check_on(got, want, device, rtol=2e-5, atol=2e-6)
