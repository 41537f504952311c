"""tenferro's own special-function kernels (tenferro/_kernels/_special.pyx, run by
tenferro.special's eager calls on the CPU: tenferro/special/_fast.py; and expit, which
is tenferro.sigmoid's elementwise kernel) against
scipy.special on dense grids over each function's domain plus its edges (+-0, +-inf,
NaN, subnormals, huge, the domain's boundaries), float32 and float64; contiguous,
strided, transposed, broadcast, 0-d and empty inputs; the thread split; and the
composition that transforms see, against the kernel.

Tolerance (``ULP``, 4 ulp for every function in both dtypes): the distance from
scipy's float64 value in units in the last place of the result's dtype (float32
results against scipy's float64 value rounded to float32, so the float32 kernels are
held to the float32 truth, not to scipy's float32 loops' own errors; float32 sinc
against numpy's float32 sinc, whose pi x is rounded to float32 too).  erfc of x > 0 is
compared with mpmath's (scipy's cephes erfc is up to ~500 ulp off in its tail and ~10
below 1, where it is 1 - erf; tenferro's, glibc's, is within 1).  Measured maxima: 2-4
ulp in both dtypes -- scipy's own float64 formulas (1/(1 + exp(-x)), ...)
are a few ulp off too.  Where the reference is subnormal the distance is measured in
units of the smallest normal number (scipy flushes some of these to 0; tenferro keeps
the subnormal: docs/special.md).  ``kl_div`` cancels where x ~ y; it is held to 4 ulp
of its terms (|rel_entr| + |x| + |y|) as tests/test_special.py does.  softmax: 8 ulp
of scipy's in the same dtype; log_softmax: 4 ulp of its terms (test_softmax_rows...).
"""
import numpy as np
import pytest
import scipy.special as sc

import tenferro as tf
import tenferro.special as ts
from tenferro._kernels import _special as K
from tenferro.special import _fast
from tenferro.devices.cpu import threads

# max ulp distance from scipy (float64 reference), per function and dtype
ULP = 4          # every function, float64 and float32 (libmvec's documented bound)
ERFC_TAIL = 0.0  # scipy's erfc is up to ~500 ulp off beyond: mpmath's is the reference


def _f64_and_f32(*grids):
    return np.unique(np.concatenate([np.asarray(g, np.float64).ravel() for g in grids]))


EDGES = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324, 1e-310, 2.3e-308,
                  1e-300, -1e-300, 1e-30, 1e-8, 1.0, -1.0, 0.5, 0.3, 0.65, 2.0,
                  1e30, 1e300, -1e300, 1.7e308, -1.7e308, 1e-45, 1.2e-38, 3e38])
_rng = np.random.default_rng(7)
UNARY_GRIDS = {
    "expit": _f64_and_f32(EDGES, np.linspace(-760, 760, 30001), _rng.normal(0, 5, 3000)),
    "log_expit": _f64_and_f32(EDGES, np.linspace(-800, 800, 30001), _rng.normal(0, 5, 3000)),
    "logit": _f64_and_f32(EDGES, np.linspace(-0.1, 1.1, 30001), np.logspace(-320, 0, 2000),
                          1 - np.logspace(-17, 0, 2000)),
    "entr": _f64_and_f32(EDGES, np.logspace(-320, 308, 4000), np.linspace(-2, 10, 12001)),
    "sinc": _f64_and_f32(EDGES, np.linspace(-60, 60, 30001), np.logspace(-320, 3, 2000),
                         -np.logspace(-320, 3, 2000)),
    "erfc": _f64_and_f32(EDGES, np.linspace(-8, 30, 12001), _rng.normal(0, 3, 3000)),
}
_V = np.concatenate([EDGES, np.logspace(-300, 300, 61), -np.logspace(-3, 3, 13),
                     np.linspace(-1.5, 4, 45)])
PAIR_X, PAIR_Y = (np.repeat(_V, len(_V)), np.tile(_V, len(_V)))
# near x == y, where the formulas switch branches
_near = _rng.uniform(0.01, 10, 4000)
PAIR_X = np.concatenate([PAIR_X, _near, _rng.uniform(0, 10, 4000)])
PAIR_Y = np.concatenate([PAIR_Y, _near * _rng.uniform(0.3, 3, 4000), _rng.uniform(0, 10, 4000)])


def ref(name):
    return np.sinc if name == "sinc" else getattr(sc, name)


def reference(name, x):
    """The float64 reference values of unary ``name`` at ``x`` (see the module doc)."""
    with np.errstate(all="ignore"):
        if name == "sinc" and x.dtype == np.float32:
            return np.sinc(x).astype(np.float64)
        want = np.array(ref(name)(x.astype(np.float64)))
    if name == "erfc":
        mpmath = pytest.importorskip("mpmath")
        tail = (x > ERFC_TAIL) & (x < 30)   # (0 from 27.3 on)
        with mpmath.workdps(40):
            want[tail] = [float(mpmath.erfc(mpmath.mpf(float(v)))) for v in x[tail]]
    return want


def ulp_distance(got, want64, dtype):
    """|got - want| in ulps of ``dtype`` at want, or in units of the smallest normal
    number where want is subnormal; 0 where both are the same infinity or both NaN, inf
    where only one is."""
    got = np.asarray(got, np.float64)
    with np.errstate(over="ignore"):   # (float64 references beyond float32's range)
        want = np.asarray(want64, np.float64).astype(dtype).astype(np.float64)
    tiny = float(np.finfo(dtype).tiny)
    unit = np.where(np.abs(want) < tiny, tiny,
                    np.spacing(np.abs(want).astype(dtype)).astype(np.float64))
    with np.errstate(all="ignore"):
        d = np.abs(got - want) / unit
    same = (got == want) | (np.isnan(got) & np.isnan(want))
    return np.concatenate([np.where(same, 0.0, np.where(np.isnan(d), np.inf, d)).ravel(),
                           [0.0]])   # (never empty)


def _worst(d, *args):
    i = int(np.argmax(d))
    return "%.3g ulp at %s" % (d[i], [np.ravel(a)[i] for a in args])


def binary_distance(name, got, want, a, b, dtype):
    """ulp_distance, except for kl_div: 0 within ULP ulp of its terms |rel_entr| + |x|
    + |y| (it cancels where x ~ y)."""
    got = np.asarray(got, np.float64)
    d = ulp_distance(got, want, dtype)
    if name != "kl_div":
        return d
    with np.errstate(all="ignore"):
        a64, b64 = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(b, np.float64))
        terms = np.abs(sc.rel_entr(a64, b64)) + np.abs(a64) + np.abs(b64)
        close = np.abs(got - want) <= ULP * np.finfo(dtype).eps * terms
    return np.where(np.append(close.ravel(), True), 0.0, d)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", sorted(UNARY_GRIDS))
def test_unary_kernel_against_scipy(name, dtype):
    with np.errstate(all="ignore"):
        x = UNARY_GRIDS[name].astype(dtype)
        want_dtype = ref(name)(x).dtype
    want = reference(name, x)
    got = ts.__dict__[name](x)
    assert got.dtype == tf.dtype(want_dtype.name)
    d = ulp_distance(got.numpy(), want, dtype)
    assert d.max() <= ULP, _worst(d, x)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", ["xlogy", "xlog1py", "rel_entr", "kl_div"])
def test_binary_kernel_against_scipy(name, dtype):
    with np.errstate(all="ignore"):
        a, b = PAIR_X.astype(dtype), PAIR_Y.astype(dtype)
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        want = ref(name)(a64, b64)
        if name == "kl_div":   # rel_entr's finite value where scipy's x/y over/underflows
            want = np.where(np.isinf(want) & np.isfinite(a64) & np.isfinite(b64) & (a64 > 0),
                            sc.rel_entr(a64, b64) - a64 + b64, want)
        want_dtype = ref(name)(a, b).dtype
    got = ts.__dict__[name](a, b)
    assert got.dtype == tf.dtype(want_dtype.name)
    d = binary_distance(name, got.numpy(), want, a, b, dtype)
    assert d.max() <= ULP, _worst(d, a, b)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("kernels", [True, False], ids=["kernel", "composition"])
def test_kl_div_near_equal_arguments(kernels, dtype):
    """kl_div(x, y) = x log(x/y) - x + y cancels where x ~ y: the value must still be the
    true one (mpmath) to a few ulp of the result itself, float32 and float64 (scipy's
    own, x log(x/y) - x + y in double, is off by up to ~3e-6 relative there)."""
    mpmath = pytest.importorskip("mpmath")
    rng = np.random.default_rng(7)
    x = rng.uniform(0.1, 10, 400).astype(dtype)
    y = (x * (1 + rng.uniform(-1e-3, 1e-3, x.size))).astype(dtype)
    old = _fast.use_kernels(kernels)
    try:
        got = ts.kl_div(x, y).numpy()
    finally:
        _fast.use_kernels(old)
    with mpmath.workdps(40):
        want = np.array([float(mpmath.mpf(float(a)) * mpmath.log(mpmath.mpf(float(a)) / float(b))
                               - float(a) + float(b)) for a, b in zip(x, y)]).astype(dtype)
    assert got.dtype == np.dtype(dtype)
    # float32 (computed in double): 4 ulp; float64: rel_entr's rounding amplified by the
    # cancellation, |x log(x/y)| / kl_div ~ 2/|x/y - 1| <= 2e3 here -> about 1e-11
    # relative (scipy's own value is off by up to 3e-6 at these points)
    rtol = 4 * np.finfo(np.float32).eps if dtype == "float32" else 1e-10
    np.testing.assert_allclose(got, want, rtol=rtol, atol=0)


def test_edge_values_exact():
    """scipy's exact conventions at the domain boundaries, in both dtypes."""
    for dt in (np.float64, np.float32):
        def t(f, *args):
            return f(*[np.asarray(a, dt) for a in args]).numpy().tolist()
        inf, nan = np.inf, np.nan
        assert t(ts.logit, [0.0, 1.0]) == [-inf, inf]
        assert np.isnan(t(ts.logit, [-0.0 - 1e-7, 1.5, nan, inf])).all()
        assert t(ts.expit, [0.0, inf, -inf]) == [0.5, 1.0, 0.0]
        assert t(ts.log_expit, [inf, -inf, 0.0]) == [0.0, -inf, float(np.log(dt(0.5)))]
        assert t(ts.xlogy, [0.0, 0.0, 0.0, 0.0, 2.0, 2.0], [0.0, -1.0, inf, 2.0, 0.0, inf]) \
            == [0.0, 0.0, 0.0, 0.0, -inf, inf]
        assert np.isnan(t(ts.xlogy, [0.0, 1.0, nan], [nan, -1.0, 1.0])).all()
        assert t(ts.xlog1py, [0.0, 0.0, 2.0], [-1.0, -3.0, -1.0]) == [0.0, 0.0, -inf]
        assert t(ts.entr, [0.0, -0.0, -1.0, inf, 1.0]) == [0.0, 0.0, -inf, -inf, -0.0]
        assert t(ts.rel_entr, [0.0, 0.0, 1.0, -1.0, 1.0, 0.0],
                 [0.0, 2.0, 0.0, 1.0, -1.0, -1.0]) == [0.0, 0.0, inf, inf, inf, inf]
        assert t(ts.kl_div, [0.0, 0.0, 1.0, -1.0], [0.0, 2.0, 0.0, 1.0]) == [0.0, 2.0, inf, inf]
        assert np.isnan(t(ts.rel_entr, [nan, 1.0], [1.0, nan])).all()
        assert np.isnan(t(ts.kl_div, [nan, 1.0], [1.0, nan])).all()
        assert t(ts.sinc, [0.0, -0.0]) == [1.0, 1.0] and np.isnan(t(ts.sinc, [inf, nan])).all()
        assert t(ts.erfc, [-inf, inf, 0.0, 40.0]) == [2.0, 0.0, 1.0, 0.0]
        # the sign of zero, as scipy
        for f, x in [(ts.xlogy, ([-2.0], [1.0])), (ts.entr, ([1.0],)),
                     (ts.logit, ([0.5],)), (ts.rel_entr, ([1.0], [1.0])),
                     (ts.xlog1py, ([1.0], [-0.0])), (ts.kl_div, ([0.0], [-0.0]))]:
            want = ref(f.__name__)(*[np.asarray(v, dt) for v in x])
            assert np.signbit(t(f, *x)) == np.signbit(want), f.__name__


@pytest.mark.parametrize("name", ["expit", "logit", "sinc", "erfc", "entr"])
def test_unary_layouts(name):
    f = ts.__dict__[name]
    base = np.linspace(0.01, 0.99, 600).reshape(20, 30)
    with np.errstate(all="ignore"):
        for x in (base[::2, ::3], base.T, np.asfortranarray(base), base[::-1],
                  np.broadcast_to(base[:1], (20, 30)), base[3, 4], base[:0]):
            got = f(x)
            want = reference(name, np.array(x))
            # (a strided run takes glibc's scalar functions, a contiguous one libmvec's
            # SIMD ones: the two may differ by an ulp; both are held to scipy)
            assert got.shape == want.shape
            assert ulp_distance(got.numpy(), want, np.float64).max() <= ULP


@pytest.mark.parametrize("name", ["xlogy", "xlog1py", "rel_entr", "kl_div"])
def test_binary_layouts_and_broadcasting(name):
    f = ts.__dict__[name]
    a = np.linspace(0.0, 3.0, 40)
    b = np.linspace(0.05, 4.0, 30)
    cases = [(a[:, None], b), (a[::2, None], b[::-1]), (a[:30], b[:, None].T),
             (np.asfortranarray(np.outer(a, b)), np.outer(a, b)), (a[5], b), (a[5], b[7]),
             (a[:0], b[:0]), (np.float64(2.0), b), (2.0, b[:3])]
    for x, y in cases:
        want = ref(name)(x, y)
        got = f(x, y)
        assert got.shape == np.shape(want) and got.dtype == tf.dtype(np.asarray(want).dtype.name)
        assert binary_distance(name, got.numpy(), want, x, y, np.float64).max() <= ULP
    # a weak Python scalar: scipy's dtype (its float64 loop comes first), and float32
    # with float32 stays float32
    x32 = np.float32([0.5, 2.0])
    assert f(x32, 2.0).dtype == tf.dtype(ref(name)(x32, 2.0).dtype.name)
    assert f(x32, x32).dtype == tf.float32


def test_threads_split_gives_the_same_bits():
    """Large inputs run on tenferro's threads in chunks (from the transcendental grain
    size); the values are the one-thread values, bit for bit."""
    x = np.random.default_rng(3).uniform(-5, 5, (300, 700))
    y = np.abs(x[::-1]) + 0.1
    with tf.num_threads(1):
        one = [ts.log_expit(x).numpy(), ts.erfc(x[:, ::2]).numpy(),
               ts.kl_div(np.abs(x), y).numpy()]
    with tf.num_threads(3), threads.grain(transcendental=512):
        many = [ts.log_expit(x).numpy(), ts.erfc(x[:, ::2]).numpy(),
                ts.kl_div(np.abs(x), y).numpy()]
    for u, v in zip(one, many):
        np.testing.assert_array_equal(u, v)


@pytest.mark.parametrize("name", sorted(UNARY_GRIDS) + ["xlogy", "xlog1py", "rel_entr",
                                                        "kl_div"])
def test_composition_agrees_with_the_kernel(name):
    """Under a transform (jit here) a function is its composition of tenferro's ops; it
    agrees with the eager kernel to tests/test_special.py's 8 ulp."""
    f = ts.__dict__[name]
    n = 1 if name in UNARY_GRIDS else 2
    rng = np.random.default_rng(1)
    args = [rng.uniform(0.02, 0.98 if name == "logit" else 6.0, 200) for _ in range(n)]
    eager = f(*args).numpy()
    traced = tf.jit(f)(*[tf.asarray(a) for a in args]).numpy()
    np.testing.assert_allclose(traced, eager, rtol=8 * np.finfo(np.float64).eps, atol=1e-300)


def test_kernel_module_contract():
    """The kernel entry points: dtype and shape checks, in-place output, unknown ops."""
    x = np.linspace(0.1, 0.9, 5)
    out = np.empty_like(x)
    K.unary("logit", x, out, 1)
    np.testing.assert_allclose(out, sc.logit(x), rtol=4e-16)
    K.unary("log_expit", out, out, 1)      # out may be exactly the input
    np.testing.assert_allclose(out, sc.log_expit(sc.logit(x)), rtol=4e-16)
    with pytest.raises(TypeError, match="no loop for int64"):
        K.unary("logit", np.arange(3), np.empty(3, np.int64), 1)
    with pytest.raises(TypeError, match="wrong output dtype"):
        K.unary("logit", x, np.empty(5, np.float32), 1)
    with pytest.raises(ValueError, match="shape mismatch"):
        K.binary("xlogy", x, x[:4], out, 1)
    with pytest.raises(ValueError, match="unknown unary op"):
        K.unary("gamma", x, out, 1)
    with pytest.raises(ValueError, match="read-only"):
        K.unary("logit", x, np.broadcast_to(out, (5,)), 1)
    assert set(K.UNARY_OPS) == {"log_expit", "logit", "entr", "sinc", "erfc"}
    assert set(K.BINARY_OPS) == {"xlogy", "xlog1py", "rel_entr", "kl_div"}


SOFTMAX_INPUTS = [np.random.default_rng(5).normal(0, 30, (7, 300, 5)),
                  np.array([[1.0, 2.0, 3.0], [1000.0, 1000.0, -1000.0],
                            [-np.inf, -np.inf, -np.inf], [np.inf, 1.0, 2.0],
                            [np.nan, 1.0, 2.0], [-np.inf, 0.0, 1.0], [5e-324, 0.0, -0.0],
                            [-745.0, -746.0, -744.0]]),
                  np.array(2.5), np.zeros((0, 4)), np.zeros((3, 0))]


def _log_softmax_terms(v, axis):
    """|x - max| + |log s| + 1, s = sum exp(x - max): log_softmax's two terms (it
    cancels where they are close) and the sum's rounding (s >= 1, so an ulp of s moves
    log s by at most eps); scipy's shift (a non-finite max shifts by 0)."""
    with np.errstate(all="ignore"):
        m = np.amax(v, axis=axis, keepdims=True)
        m = np.where(np.isfinite(m), m, 0)
        t = v - m
        return np.abs(t) + np.abs(np.log(np.sum(np.exp(t), axis=axis, keepdims=True))) + 1


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_rows_against_scipy(name, dtype):
    """softmax and log_softmax over every axis choice (last, first, middle, several,
    all), of contiguous, transposed and strided inputs, edges included, against scipy's
    computation in the same dtype (whose x - max is rounded as tenferro's): softmax to
    8 ulp (exp's 4 ulp, the sum's and the division's rounding); log_softmax, which
    cancels where x - max ~ log(sum), to 4 ulp of its terms; NaN and infinities where
    scipy has them."""
    f, g = ts.__dict__[name], getattr(sc, name)
    for x in SOFTMAX_INPUTS:
        x = x.astype(dtype)
        for v in (x, x.T, x[..., ::2] if x.ndim else x):
            for axis in [None, -1, 0, 1, (0, 2), (0, 1)][:1 + 2 * v.ndim]:
                if v.size == 0 and axis is None or (isinstance(axis, tuple) and
                                                    max(axis) >= v.ndim):
                    continue
                got = f(v, axis=axis)
                try:
                    with np.errstate(all="ignore"):
                        want = g(v, axis=axis)
                except ValueError:   # scipy's max over an empty axis
                    assert v.size == 0 and got.shape == v.shape
                    continue
                assert got.dtype == tf.dtype(dtype) and got.shape == want.shape
                d = ulp_distance(got.numpy(), want, dtype)
                if name == "log_softmax":
                    terms = _log_softmax_terms(v, axis).ravel()
                    with np.errstate(invalid="ignore"):
                        err = np.abs(got.numpy().ravel() - want.ravel())
                    close = np.append(err <= ULP * np.finfo(dtype).eps * terms, True)
                    d = np.where(close, 0.0, d)
                assert d.max() <= 2 * ULP, (v.shape, axis, _worst(d, got.numpy().ravel(),
                                                                  want.ravel()))


def test_softmax_threads_and_composition():
    x = np.random.default_rng(2).normal(0, 3, (64, 1000))
    with tf.num_threads(1):
        one = ts.softmax(x, axis=1).numpy(), ts.log_softmax(x, axis=0).numpy()
    with tf.num_threads(3), threads.grain(transcendental=512):
        many = ts.softmax(x, axis=1).numpy(), ts.log_softmax(x, axis=0).numpy()
    for u, v in zip(one, many):
        np.testing.assert_array_equal(u, v)
    traced = tf.jit(lambda t: ts.softmax(t, axis=1))(tf.asarray(x)).numpy()
    np.testing.assert_allclose(traced, one[0], rtol=8 * np.finfo(np.float64).eps)


def test_use_kernels_switch():
    """``_fast.use_kernels(False)`` (for comparisons) gives the compositions' values."""
    from tenferro.special import _fast

    x = np.linspace(0.01, 0.99, 50)
    old = _fast.use_kernels(False)
    try:
        composed = ts.logit(x).numpy(), ts.softmax(x).numpy()
    finally:
        assert _fast.use_kernels(old) is False
    traced = tf.jit(ts.logit)(tf.asarray(x)).numpy(), tf.jit(ts.softmax)(tf.asarray(x)).numpy()
    for u, v in zip(composed, traced):   # (a compiled program may fuse: to rounding)
        np.testing.assert_allclose(u, v, rtol=4 * np.finfo(np.float64).eps)
