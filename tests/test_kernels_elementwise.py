"""tenferro._kernels._elementwise against NumPy: every op, every loop dtype, special values,
odd layouts (0-d, empty, broadcast, strided, negative strides, transposes), threads."""
import math
import warnings

import numpy as np
import pytest

from tenferro._kernels import _elementwise as E

from conftest import stable_rng

DTYPES = [np.dtype(d) for d in E.DTYPES]
SEVEN = set(DTYPES)

try:
    from scipy.special import erf as _erf
except ImportError:  # pragma: no cover
    _erf = np.vectorize(math.erf, otypes=[np.float64])


def _sigmoid(x):
    if x.dtype.kind == "c":
        return 1 / (1 + np.exp(-x))
    return (1 / (1 + np.exp(-x.astype(np.longdouble)))).astype(x.dtype)


# op -> NumPy reference (default: np.<op>)
UREF = {
    "abs": np.absolute, "round": np.rint, "conj": np.conjugate, "real": np.real,
    "imag": np.imag, "angle": np.angle, "bitwise_invert": np.invert,
    "rsqrt": lambda x: (1 / np.sqrt(x)).astype(x.dtype), "sigmoid": _sigmoid,
    "erf": lambda x: _erf(x).astype(x.dtype),
}
BREF = {}
# ufunc whose dtype resolution a non-ufunc op copies
URESOLVE = {"abs": "absolute", "round": "rint", "conj": "conjugate",
            "bitwise_invert": "invert", "rsqrt": "sqrt", "sigmoid": "exp"}
# transcendental ops compared with a few-ulp tolerance (libmvec <= 4 ulp, numpy's own
# SIMD math a few ulp): everything else must be (nearly) exact
ULPS = 8


def _ref_unary(op):
    return UREF.get(op) or getattr(np, op)


def _ref_binary(op):
    return BREF.get(op) or getattr(np, op)


def specials(dt):
    dt = np.dtype(dt)
    if dt.kind == "b":
        return np.array([False, True], dt)
    if dt.kind == "i":
        ii = np.iinfo(dt)
        return np.array([0, 1, -1, 2, -2, 7, -7, ii.min, ii.max, ii.min + 1], dt)
    vals = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, 1e-30,
            -3.5, 2.5, 1e10, -1e10, 80.0, -80.0]
    if dt.kind == "f":
        return np.array(vals, dt)
    base = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, 2.5]
    return np.array([complex(r, i) for r in base for i in base], dt)


def randoms(dt, n, rng, lo=-5, hi=5):
    dt = np.dtype(dt)
    if dt.kind == "b":
        return rng.random(n) < 0.5
    if dt.kind == "i":
        return rng.integers(-100, 100, n).astype(dt)
    if dt.kind == "f":
        return rng.uniform(lo, hi, n).astype(dt)
    return (rng.uniform(lo, hi, n) + 1j * rng.uniform(lo, hi, n)).astype(dt)


def assert_close(got, exp, ulps=0, scale=None):
    """Exact for non-float results; else |got-exp| <= ulps*eps*|exp| with equal NaN/inf."""
    exp = np.asarray(exp)
    assert got.shape == exp.shape and got.dtype == exp.dtype, (got.dtype, exp.dtype)
    if got.dtype.kind in "biu":
        np.testing.assert_array_equal(got, exp)
        return
    if ulps == 0:
        ulps = 2
    eps = np.finfo(got.dtype).eps
    user_scale = scale
    if got.dtype.kind == "c":
        parts = [(got.real, exp.real), (got.imag, exp.imag)]
        scale = np.abs(exp.astype(np.complex128))
    else:
        parts = [(got, exp)]
        scale = np.abs(exp.astype(np.float64))
    if user_scale is not None:   # error measured against this magnitude (cancelling ops)
        scale = np.maximum(scale, user_scale).astype(np.float64)
    tiny = np.finfo(got.dtype).tiny
    for g, e in parts:
        g = g.astype(np.float64)
        e = e.astype(np.float64)
        nan_g, nan_e = np.isnan(g), np.isnan(e)
        np.testing.assert_array_equal(nan_g, nan_e, err_msg="NaN positions differ")
        fin = ~nan_e & np.isfinite(e) & np.isfinite(scale)
        np.testing.assert_array_equal(g[np.isinf(e)], e[np.isinf(e)], err_msg="inf differs")
        err = np.abs(g[fin] - e[fin])
        tol = ulps * eps * np.maximum(scale[fin], tiny * 4)
        bad = err > tol
        if bad.any():
            i = np.argmax(bad)
            raise AssertionError("mismatch %d/%d: got %r exp %r" % (
                bad.sum(), bad.size, g[fin][i], e[fin][i]))


def _call_unary(op, x, nthreads=1):
    out_dt = np.dtype(E.UNARY_LOOPS[op][x.dtype.name])
    out = np.empty(x.shape, out_dt)
    E.unary(op, x, out, nthreads)
    return out


def _call_binary(op, a, b, nthreads=1):
    out_dt = np.dtype(E.BINARY_LOOPS[op][a.dtype.name])
    out = np.empty(np.broadcast_shapes(a.shape, b.shape), out_dt)
    a, b = np.broadcast_to(a, out.shape), np.broadcast_to(b, out.shape)
    E.binary(op, a, b, out, nthreads)
    return out


TRANS_U = {"exp", "expm1", "exp2", "log", "log1p", "log2", "log10", "sin", "cos", "tan",
           "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh",
           "arctanh", "sigmoid", "erf", "angle", "rsqrt", "sqrt"}
TRANS_B = {"power", "arctan2", "hypot", "logaddexp", "divide"}

UCASES = [(op, dt) for op in E.UNARY_OPS for dt in E.UNARY_LOOPS[op]]
BCASES = [(op, dt) for op in E.BINARY_OPS for dt in E.BINARY_LOOPS[op]]


# ------------------------------------------------------------------------------------
# the loop table matches NumPy's dtype resolution
# ------------------------------------------------------------------------------------

def _resolved(ufunc, dt):
    try:
        r = ufunc.resolve_dtypes((dt,) * ufunc.nin + (None,))
    except (TypeError, np.exceptions.DTypePromotionError):
        return None
    r = [np.dtype(np.float32) if x == np.float16 else x for x in r]
    return r if all(x in SEVEN for x in r) else None


@pytest.mark.parametrize("kind", ["unary", "binary"])
def test_loop_table(kind):
    ops = E.UNARY_OPS if kind == "unary" else E.BINARY_OPS
    table = E.UNARY_LOOPS if kind == "unary" else E.BINARY_LOOPS
    for op in ops:
        name = URESOLVE.get(op, op)
        uf = getattr(np, name, None)
        if not isinstance(uf, np.ufunc):
            continue
        want = {}
        for dt in DTYPES:
            r = _resolved(uf, dt)
            if r is not None:
                want[r[0].name] = r[-1].name
        assert table[op] == want, op
        for dt in DTYPES:
            assert E.has_loop(kind, op, dt) == (dt.name in want), (op, dt)
    if kind == "binary":
        return
    assert table["erf"] == {"float32": "float32", "float64": "float64"}
    assert table["real"] == table["imag"] == {"complex64": "float32", "complex128": "float64"}


def test_no_loop_errors():
    with pytest.raises(TypeError, match="no loop"):
        E.unary("exp", np.zeros(3, np.int32), np.zeros(3), 1)
    with pytest.raises(TypeError, match="no loop"):
        E.binary("subtract", np.zeros(3, bool), np.zeros(3, bool), np.zeros(3, bool), 1)
    with pytest.raises(TypeError, match="_elementwise.exp: wrong output dtype float32"):
        E.unary("exp", np.zeros(3), np.zeros(3, np.float32), 1)
    with pytest.raises(ValueError, match="_elementwise: shape mismatch"):
        E.unary("exp", np.zeros(3), np.zeros(4), 1)


# ------------------------------------------------------------------------------------
# every op x dtype on random + special values, contiguous and negative-strided
# ------------------------------------------------------------------------------------

@pytest.mark.parametrize("op,dt", UCASES)
def test_unary(op, dt):
    rng = stable_rng(op, dt)
    dt = np.dtype(dt)
    lo, hi = (-1.2, 1.2) if op in ("arcsin", "arccos", "arctanh") else (-5, 5)
    x = np.concatenate([randoms(dt, 200, rng, lo, hi), specials(dt)])
    ref = _ref_unary(op)
    out_dt = np.dtype(E.UNARY_LOOPS[op][dt.name])
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exp = np.asarray(ref(x)).astype(out_dt)
    ulps = ULPS if op in TRANS_U else 0
    assert_close(_call_unary(op, x), exp, ulps)
    # negative stride, non-contiguous, in a 2-D transposed layout
    xs = np.repeat(x, 2)[::-2]
    assert_close(_call_unary(op, xs), exp[::-1], ulps)
    m = x[:200].reshape(10, 20).T
    assert_close(_call_unary(op, m), exp[:200].reshape(10, 20).T, ulps)
    # in place (out is exactly the input)
    if out_dt == dt:
        y = x.copy()
        E.unary(op, y, y, 1)
        assert_close(y, exp, ulps)


def _binary_inputs(op, dt, rng):
    dt = np.dtype(dt)
    s = specials(dt)
    a = np.concatenate([randoms(dt, 150, rng), np.repeat(s, s.size)])
    b = np.concatenate([randoms(dt, 150, rng), np.tile(s, s.size)])
    if dt.kind == "i":
        if op == "power":
            b = np.abs(b % 7).astype(dt)
            a = np.where(np.abs(a) > 1000, a, a % 20 - 10).astype(dt)
        if op in ("left_shift", "right_shift"):
            b = (b % 80 - 5).astype(dt)
    if dt.kind == "f" and op == "power":
        a = np.abs(a)
    return a, b


@pytest.mark.parametrize("op,dt", BCASES)
def test_binary(op, dt):
    rng = stable_rng(op, dt)
    dt = np.dtype(dt)
    a, b = _binary_inputs(op, dt, rng)
    out_dt = np.dtype(E.BINARY_LOOPS[op][dt.name])
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exp = np.asarray(_ref_binary(op)(a, b)).astype(out_dt)
    ulps = ULPS if op in TRANS_B else 0
    scale = None
    if op == "logaddexp":   # max(a,b) + log1p(exp(-|a-b|)) cancels near 0: error ~ eps*|a|
        scale = np.maximum(np.abs(a), np.abs(b)) + 1
    if op == "power" and dt.kind == "c":
        ulps = 64   # cpow (exp(b log a)) loses a few bits for large |b log a|
    assert_close(_call_binary(op, a, b), exp, ulps, scale)
    if scale is not None:
        return
    # strided / reversed operands
    assert_close(_call_binary(op, np.repeat(a, 2)[::-2], b[::-1].copy()), exp[::-1], ulps)
    # scalar broadcast either side (zero strides)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in (0, 5, a.size - 1):
            assert_close(_call_binary(op, a[i:i + 1], b),
                         np.asarray(_ref_binary(op)(a[i], b)).astype(out_dt), ulps)
            assert_close(_call_binary(op, a, b[i:i + 1]),
                         np.asarray(_ref_binary(op)(a, b[i])).astype(out_dt), ulps)


def test_int_negative_power_raises():
    for dt in (np.int32, np.int64):
        a = np.array([2, 3, 4], dt)
        b = np.array([1, -1, 2], dt)
        with pytest.raises(ValueError, match="Integers to negative integer powers"):
            E.binary("power", a, b, np.empty(3, dt), 1)
    big = np.full(200000, 2, np.int64)
    neg = big.copy()
    neg[-1] = -1
    with pytest.raises(ValueError, match="Integers to negative integer powers"):
        E.binary("power", big, neg, np.empty_like(big), 2)


# ------------------------------------------------------------------------------------
# where / clip / cast
# ------------------------------------------------------------------------------------

@pytest.mark.parametrize("dt", DTYPES, ids=str)
def test_where(dt):
    rng = np.random.default_rng(1)
    a = np.concatenate([randoms(dt, 100, rng), specials(dt)])
    b = randoms(dt, a.size, rng)
    c = rng.random(a.size) < 0.5
    out = np.empty_like(a)
    E.where(c, a, b, out, 1)
    np.testing.assert_array_equal(out, np.where(c, a, b))
    # scalar branches (zero strides), reversed condition
    sa, sb = np.broadcast_to(a[:1], a.shape), np.broadcast_to(b[:1], a.shape)
    E.where(c[::-1], sa, sb, out, 1)
    np.testing.assert_array_equal(out, np.where(c[::-1], a[0], b[0]))


@pytest.mark.parametrize("dt", DTYPES, ids=str)
def test_clip(dt):
    rng = np.random.default_rng(2)
    x = np.concatenate([randoms(dt, 100, rng), specials(dt)])
    lo = randoms(dt, x.size, rng, -3, 0)
    hi = randoms(dt, x.size, rng, 0, 3)
    if dt.kind == "b":
        lo, hi = np.zeros(x.size, bool), np.ones(x.size, bool)
    out = np.empty_like(x)
    E.clip(x, lo, hi, out, 1)
    np.testing.assert_array_equal(out, np.clip(x, lo, hi))
    s = specials(dt)
    for l, h in [(s[0], s[-1]), (s[1], s[-2]), (s[-1], s[0])]:
        with np.errstate(all="ignore"):
            exp = np.clip(x, l, h)
        E.clip(x, np.broadcast_to(l, x.shape), np.broadcast_to(h, x.shape), out, 1)
        np.testing.assert_array_equal(out, exp)


@pytest.mark.parametrize("di", DTYPES, ids=str)
@pytest.mark.parametrize("do", DTYPES, ids=str)
def test_cast(di, do):
    rng = np.random.default_rng(3)
    x = np.concatenate([randoms(di, 100, rng), specials(di)])
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exp = x.astype(do)
    out = np.empty(x.shape, do)
    E.cast(x, out, 1)
    np.testing.assert_array_equal(out, exp)
    out2 = np.empty(x.shape, do)[::-1]
    E.cast(x[::-1], out2, 1)
    np.testing.assert_array_equal(out2, exp[::-1])


@pytest.mark.parametrize("shape,perm", [((300, 200), (1, 0)), ((40, 50, 30), (2, 0, 1)),
                                        ((7, 64, 3, 65), (1, 3, 0, 2)), ((1000, 9), (1, 0))])
@pytest.mark.parametrize("dt", [np.float64, np.complex128, np.int32, np.bool_])
@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
def test_cast_tiled_transpose(shape, perm, dt):
    x = randoms(dt, int(np.prod(shape)), np.random.default_rng(4)).reshape(shape)
    xt = x.transpose(perm)
    for do in (dt, np.float32):
        for nt in (1, 2):
            out = np.empty(xt.shape, do)
            E.cast(xt, out, nt)
            np.testing.assert_array_equal(out, xt.astype(do))
    # into a Fortran-ordered and a reversed output
    out = np.empty(xt.shape, dt, order="F")
    E.cast(xt, out, 2)
    np.testing.assert_array_equal(out, xt)
    out = np.empty(xt.shape, dt)[::-1]
    E.cast(xt, out, 2)
    np.testing.assert_array_equal(out, xt)


# ------------------------------------------------------------------------------------
# layouts and threads
# ------------------------------------------------------------------------------------

def _layouts(dt):
    rng = np.random.default_rng(5)
    base = randoms(dt, 4 * 5 * 6 * 2, rng).reshape(4, 5, 12)
    yield "0d", np.asarray(base[0, 0, 0])
    yield "empty", base[:, :0]
    yield "empty0", np.zeros((0,), dt)
    yield "bcast", np.broadcast_to(base[0, 0, :1], (4, 5, 3))
    yield "bcast_row", np.broadcast_to(base[0, :1, :], (4, 5, 12))
    yield "strided", base[:, ::2, ::3]
    yield "negative", base[::-1, :, ::-2]
    yield "transposed", base.transpose(2, 0, 1)
    yield "size1", base[:1, 2:3, :]


LAYOUT_OPS = [("unary", "sin", np.float64), ("unary", "negative", np.int32),
              ("unary", "isnan", np.complex64), ("binary", "add", np.float32),
              ("binary", "less", np.int64), ("binary", "multiply", np.complex128),
              ("cast", None, np.float64)]


@pytest.mark.parametrize("kind,op,dt", LAYOUT_OPS)
def test_layouts(kind, op, dt):
    dt = np.dtype(dt)
    for name, x in _layouts(dt):
        if kind == "unary":
            assert_close(_call_unary(op, x), getattr(np, op)(x), 4)
        elif kind == "cast":
            for o in (np.empty(x.shape, np.float32), np.empty(x.shape, dt, order="F")):
                E.cast(x, o, 2)
                np.testing.assert_array_equal(o, x.astype(o.dtype))
        else:
            y = np.broadcast_to(x.ravel()[0], x.shape) if x.size else x
            for a, b in ((x, x), (x, y), (y, x), (x, x[::-1] if x.ndim else x)):
                out = np.empty(x.shape, E.BINARY_LOOPS[op][dt.name])
                E.binary(op, a, b, out, 2)
                assert_close(out, getattr(np, op)(a, b), 0)


@pytest.mark.parametrize("kind,op,dt", [("unary", "exp", np.float64), ("unary", "sin", np.float32),
                                        ("unary", "sqrt", np.complex128),
                                        ("binary", "add", np.float64),
                                        ("binary", "floor_divide", np.int64),
                                        ("binary", "arctan2", np.float32)])
@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning")
def test_threads_identical(kind, op, dt):
    rng = np.random.default_rng(6)
    n = 70001
    x = randoms(dt, n, rng)
    y = randoms(dt, n, rng)
    views = [(x, y), (x[::-1], y), (x[: n - 1].reshape(7, -1)[:, 3:].T, y[: n - 1].reshape(7, -1)[:, 3:].T)]
    for a, b in views:
        res = []
        for nt in (1, 2):
            if kind == "unary":
                res.append(_call_unary(op, a, nt))
            else:
                res.append(_call_binary(op, a, b, nt))
        np.testing.assert_array_equal(res[0], res[1])
        ref = getattr(np, op)(a) if kind == "unary" else getattr(np, op)(a, b)
        assert_close(res[1], ref, ULPS)
