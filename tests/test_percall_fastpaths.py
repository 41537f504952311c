"""The per-call fast paths give the general paths' answers (issue 17).

Elementwise ops (``_ops/_fastpath.pyx`` + the CPU's allocating kernel
``_elementwise.Allocating``), ``linalg.solve`` of one plain CPU matrix (``_solve_plain``,
its finite check ``_elementwise.all_finite`` and the 2x2 condition shortcut),
``einsum`` of two plain tensors with a cached plan (``_plain_pair``), the reductions,
basic ``getitem``/``setitem`` and ``linalg.norm`` of a whole plain tensor: each case
below takes the fast path and is checked against NumPy / SciPy or against the general
path (the same call made to miss the fast path, or the general function itself)."""
import inspect
import math
import pickle
import warnings

import numpy as np
import pytest
import scipy.linalg as sl

import tenferro as tf
import tenferro.linalg as tl
from tenferro._kernels import _elementwise as _ew
from tenferro.linalg import _lu

DTYPES = [np.bool_, np.int32, np.int64, np.float32, np.float64, np.complex64,
          np.complex128]
BINOPS = ["add", "subtract", "multiply", "divide", "less", "equal", "maximum", "power"]


def _arr(shape, dt, seed=0):
    r = np.random.default_rng(seed).standard_normal(shape) * 3
    if np.dtype(dt).kind == "c":
        r = r + 1j * np.random.default_rng(seed + 1).standard_normal(shape)
    return (r > 0) if dt is np.bool_ else np.asarray(r).astype(dt)


def _same(t, ref):
    got = t.numpy()
    assert got.dtype == ref.dtype and got.shape == ref.shape
    np.testing.assert_array_equal(got, ref)


def _np(name, a, b):
    with np.errstate(all="ignore"):
        return getattr(np, name)(a, b)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", BINOPS)
def test_binary_fast_path_matches_numpy(name, dt):
    a, b = _arr((3,), dt), _arr((3,), dt, 5)
    if name == "power" and np.dtype(dt).kind in "iu":
        b = np.abs(b)
    fn = getattr(tf, name)
    try:
        ref = _np(name, a, b)
    except TypeError:   # no such loop in NumPy: none in tenferro either, fast path or not
        with pytest.raises(TypeError, match=name):
            fn(tf.asarray(a), tf.asarray(b))
        return
    into = tf.empty(ref.shape, dtype=fn(tf.asarray(a[:0]), tf.asarray(b[:0])).dtype)
    fn(tf.asarray(a), tf.asarray(b), out=into)    # the driver's general call
    for _ in range(2):   # the entry made, then the remembered one
        r = fn(tf.asarray(a), tf.asarray(b))
        _same(r, into.numpy())
        np.testing.assert_allclose(r.numpy(), ref, rtol=1e-6)   # (complex64: an ulp)


def test_dunders_and_layouts():
    a = np.asfortranarray(_arr((3, 4), np.float64))
    b = np.asfortranarray(_arr((3, 4), np.float64, 1))
    r = tf.asarray(a) + tf.asarray(b)
    _same(r, a + b)
    assert r.numpy().flags.f_contiguous   # NumPy's order='K'
    s = tf.asarray(a[:, ::2]) * tf.asarray(b[:, ::2])     # strided views
    _same(s, a[:, ::2] * b[:, ::2])
    _same(tf.asarray(a[:, :0]) - tf.asarray(b[:, :0]), a[:, :0] - b[:, :0])  # empty
    x0 = tf.asarray(np.float64(2.5))                     # a 0-d tensor beside a full one
    r = x0 * tf.asarray(a)
    _same(r, 2.5 * a)
    assert r.numpy().flags.c_contiguous    # the driver's layout: the broadcast first input's
    _same(tf.asarray(a) / x0, a / 2.5)


def test_broadcast_and_mixed_dtypes_take_the_general_path():
    a, b = _arr((3, 1), np.float64), _arr((1, 4), np.float64)
    _same(tf.asarray(a) + tf.asarray(b), a + b)
    c = _arr((3, 1), np.float32)
    _same(tf.asarray(c) + tf.asarray(b), c + b)
    i = _arr((3,), np.int32)
    _same(tf.asarray(i) / tf.asarray(i + 10), i / (i + 10))


def test_remembered_entry_follows_dtype_changes():
    for dt in (np.float32, np.float64, np.float32, np.int32, np.float64):
        a = _arr((4,), dt)
        _same(tf.asarray(a) * tf.asarray(a), a * a)


def _unary_general(fn, x, order="C"):
    """``fn(x)`` through the driver's general call (``out=``, of that order)."""
    dt = fn(x[:0] if x.ndim else x).dtype
    into = tf.asarray(np.empty(x.shape, np.dtype(str(dt)), order=order))
    fn(x, out=into)
    return into.numpy()


def test_large_outputs_use_the_driver():
    a = np.arange(300_000, dtype=np.float64)    # 2.4 MB: the driver's cached buffers
    _same(tf.asarray(a) + tf.asarray(a), a + a)
    _same(tf.sin(tf.asarray(a)), _unary_general(tf.sin, tf.asarray(a)))


@pytest.mark.parametrize("dt", DTYPES)
def test_weak_scalars(dt):
    a = _arr((3,), dt)
    x = tf.asarray(a)
    for v in (2, 2.5, -0.0, 1 + 2j, True):
        try:
            ref = a * v
        except TypeError:
            continue
        _same(x * v, ref)
        _same(x + v, a + v)


def test_weak_int_out_of_range():
    x = tf.asarray(np.int32([1, 2, 3]))
    _same(x + 5, np.int32([1, 2, 3]) + 5)
    with pytest.raises(OverflowError):
        x + 2 ** 40
    _same(x < 2 ** 40, np.int32([1, 2, 3]) < 2 ** 40)


def test_integer_negative_power_raises():
    x = tf.asarray(np.int64([1, 2, 3]))
    with pytest.raises(ValueError, match="negative integer powers"):
        x ** tf.asarray(np.int64([1, -1, 2]))


def test_unary_fast_path():
    for dt in (np.float32, np.float64, np.complex128):
        a = _arr((5,), dt)
        _same(tf.sin(tf.asarray(a)), _unary_general(tf.sin, tf.asarray(a)))
        np.testing.assert_allclose(tf.sin(tf.asarray(a)).numpy(), np.sin(a), rtol=1e-6)
        _same(-tf.asarray(a), -a)
    f = np.asfortranarray(_arr((3, 4), np.float64))
    r = tf.exp(tf.asarray(f))
    _same(r, _unary_general(tf.exp, tf.asarray(f), "F"))
    assert r.numpy().flags.f_contiguous


def test_autodiff_records_through_the_fast_path():
    x = tf.asarray(np.array([1.0, 2.0, 3.0]))
    x.requires_grad_(True)
    y = tf.asarray(np.array([4.0, 5.0, 6.0]))
    ((x * y + tf.sin(x)) * 2.0).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * (np.array([4.0, 5.0, 6.0])
                                                    + np.cos([1.0, 2.0, 3.0])))
    g = tf.grad(lambda v: (v * v + v * 3.0).sum())(tf.asarray(np.array([1.0, 2.0])))
    np.testing.assert_allclose(g.numpy(), [5.0, 7.0])


def test_op_functions_keep_their_identity():
    assert tf.add.__name__ == "add" and tf.add.__module__ == "tenferro._ops.elementwise"
    assert inspect.isfunction(tf.add) and inspect.isfunction(tf.sin)
    assert pickle.loads(pickle.dumps(tf.add)) is tf.add
    assert (tf.Tensor.__add__(tf.asarray(np.ones(2)), object())) is NotImplemented


# -- linalg.solve ----------------------------------------------------------------------

def test_all_finite_kernel():
    assert _ew.all_finite(np.ones((2, 2))) is True
    assert _ew.all_finite(np.array([1.0, np.nan])) is False
    assert _ew.all_finite(np.array([1.0, -np.inf], np.float32)) is False
    assert _ew.all_finite(np.array([1 + 1j, complex(1, np.inf)])) is False
    assert _ew.all_finite(np.ones((4, 4))[:, ::2]) is None       # strided: NumPy decides
    assert _ew.all_finite(np.ones(3, np.int64)) is None


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("n", [0, 1, 3, 1023, 1024, 1025, 3000])
def test_all_finite_on_exponent_bits(dt, n):
    """all_finite tests exponent bits in blocks: every special value at the first, a
    middle and the last position (real and imaginary parts) against NumPy; the largest
    finite value and the smallest subnormal are finite; a Fortran-ordered array too."""
    real = np.float32 if dt in (np.float32, np.complex64) else np.float64
    fi = np.finfo(real)
    a = np.zeros(n, dt)
    assert _ew.all_finite(a) is True
    for pos in sorted({0, n // 2, n - 1}) if n else []:
        for v in (np.inf, -np.inf, np.nan, -np.nan, fi.max, -fi.max, fi.smallest_subnormal,
                  -0.0):
            for part in ((1, 1j) if np.iscomplexobj(a) else (1,)):
                b = a.copy()
                b[pos] = part * real(v) if part == 1 else complex(0, v)
                assert _ew.all_finite(b) is bool(np.isfinite(b).all()), (pos, v, part)
    f = np.asfortranarray(np.ones((3, 5), dt))
    f[2, 1] = np.nan
    assert _ew.all_finite(f) is False


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("n", [1, 2, 3, 5])
def test_solve_plain_matches_general_path(dt, n):
    a = (_arr((n, n), dt) + 4 * np.eye(n)).astype(dt)
    for b in (_arr((n,), dt, 3), _arr((n, 2), dt, 4)):
        fast = tl.solve(tf.asarray(a), tf.asarray(b))
        general = tl.solve(tf.asarray(a), tf.asarray(b), assume_a="general")
        assert fast.dtype == general.dtype and fast.shape == general.shape
        np.testing.assert_array_equal(fast.numpy(), general.numpy())
        np.testing.assert_allclose(fast.numpy(), sl.solve(a, b),
                                   rtol=1e-4 if dt in (np.float32, np.complex64) else 1e-10)


def test_solve_plain_errors_and_warnings():
    a = tf.asarray(np.array([[1.0, 2.0], [2.0, 4.0]]))
    with pytest.raises(tl.LinAlgError if hasattr(tl, "LinAlgError") else Exception,
                       match="singular"):
        tl.solve(a, tf.asarray(np.ones(2)))
    bad = tf.asarray(np.array([[1.0, np.nan], [0.0, 1.0]]))
    with pytest.raises(ValueError, match="infs or NaNs"):
        tl.solve(bad, tf.asarray(np.ones(2)))
    with pytest.raises(ValueError, match="infs or NaNs"):
        tl.solve(tf.asarray(np.eye(2)), tf.asarray(np.array([1.0, np.inf])))
    with pytest.raises(ValueError, match="do not fit"):
        tl.solve(tf.asarray(np.eye(2)), tf.asarray(np.ones(3)))
    ill = tf.asarray(np.array([[1.0, 1.0], [1.0, 1.0 + 1e-16 * 4]]))
    with pytest.warns(sl.LinAlgWarning, match="ill-conditioned") as rec:
        tl.solve(ill, tf.asarray(np.ones(2)))
    assert rec[0].filename == __file__     # reported at the caller, as before


def _warns(fn):
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        try:
            fn()
        except Exception:
            return None
    return any(issubclass(w.category, sl.LinAlgWarning) for w in rec)


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.complex128])
def test_solve_2x2_warns_exactly_when_gecon_does(dt):
    rng = np.random.default_rng(7)
    for k in range(300):
        u, v = rng.standard_normal(2), rng.standard_normal(2)
        a = np.outer(u, v) + 10.0 ** rng.uniform(-18, 0) * rng.standard_normal((2, 2))
        a = (a * 10.0 ** rng.uniform(-20, 20)).astype(dt)
        ta, tb = tf.asarray(a), tf.asarray(np.ones(2, dt))
        assert _warns(lambda: tl.solve(ta, tb)) == \
            _warns(lambda: tl.solve(ta, tb, assume_a="general"))


def test_surely_well_conditioned_is_conservative():
    assert _lu._surely_well_conditioned(np.eye(2))
    assert not _lu._surely_well_conditioned(np.array([[1.0, 1.0], [1.0, 1.0]]))
    assert not _lu._surely_well_conditioned(np.array([[np.inf, 0.0], [0.0, 1.0]]))
    assert not _lu._surely_well_conditioned(np.array([[np.nan, 0.0], [0.0, 1.0]]))
    assert not _lu._surely_well_conditioned(np.eye(2) * 1e-200)


def test_solve_records_for_autodiff():
    a = tf.asarray(np.array([[3.0, 1.0], [1.0, 2.0]]))
    a.requires_grad_(True)
    tl.solve(a, tf.asarray(np.array([1.0, 2.0]))).sum().backward()
    an = a.detach().numpy()
    x = np.linalg.solve(an, [1.0, 2.0])
    g = -np.outer(np.linalg.solve(an.T, np.ones(2)), x)
    np.testing.assert_allclose(a.grad.numpy(), g, rtol=1e-12)


# -- einsum ----------------------------------------------------------------------------

def test_einsum_pair_counts_hits_and_matches_numpy():
    m = _arr((3, 3), np.float64)
    t = tf.asarray(m)
    tf.einsum_cache_clear()
    r1 = tf.einsum("ij,jk->ik", t, t)                 # a miss: the general path
    r2 = tf.einsum("ij,jk->ik", t, t)                 # a hit: the fast path
    info = tf.einsum_cache_info()
    assert (info.hits, info.misses) == (1, 1)
    np.testing.assert_allclose(r2.numpy(), m @ m, rtol=1e-14)
    np.testing.assert_array_equal(r1.numpy(), r2.numpy())
    np.testing.assert_allclose(tf.einsum("ij,ij->", t, t).numpy(), np.sum(m * m))
    np.testing.assert_allclose(tf.einsum("ij,ij->", t, t).numpy(), np.sum(m * m))


def test_einsum_pair_lru_order_and_dtypes():
    a, b, c = (tf.asarray(_arr((2, 2), np.float64, s)) for s in range(3))
    tf.einsum_cache_clear()
    tf.einsum_cache_resize(2)
    try:
        tf.einsum("ij,jk->ik", a, b)
        tf.einsum("ij,kj->ik", a, b)
        tf.einsum("ij,jk->ik", a, c)     # a hit: made the most recent
        tf.einsum("ji,jk->ik", a, b)     # evicts "ij,kj->ik", not "ij,jk->ik"
        hits = tf.einsum_cache_info().hits
        tf.einsum("ij,jk->ik", a, b)
        assert tf.einsum_cache_info().hits == hits + 1
    finally:
        tf.einsum_cache_resize(256)
    f32 = tf.asarray(_arr((2, 2), np.float32))
    for _ in range(2):
        r = tf.einsum("ij,jk->ik", f32, a)          # promoted: the general path
        assert r.dtype == np.float64
        np.testing.assert_allclose(r.numpy(), f32.numpy().astype(np.float64) @ a.numpy())
        r = tf.einsum("ij,jk->ik", a, b, dtype=np.float32, casting="same_kind")
        assert r.dtype == np.float32


def test_einsum_pair_records_for_autodiff():
    m = _arr((3, 3), np.float64)
    x = tf.asarray(m)
    tf.einsum("ij,jk->ik", x, x)
    x.requires_grad_(True)
    tf.einsum("ij,jk->ik", x, tf.asarray(m)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.ones((3, 3)) @ m.T, rtol=1e-14)


def test_einsum_remembered_hit_follows_cache_changes():
    t = tf.asarray(_arr((3, 3), np.float64))
    tf.einsum_cache_clear()
    for _ in range(3):
        tf.einsum("ij,jk->ik", t, t)             # a miss, then remembered hits
    assert tuple(tf.einsum_cache_info())[:3] == (2, 1, 1)
    tf.einsum_cache_clear()                      # the remembered plan is gone too
    tf.einsum("ij,jk->ik", t, t)
    assert tuple(tf.einsum_cache_info())[:3] == (0, 1, 1)
    try:
        tf.einsum_cache_resize(0)                # no caching: every call a miss
        tf.einsum("ij,jk->ik", t, t)
        tf.einsum("ij,jk->ik", t, t)
        assert tuple(tf.einsum_cache_info())[:3] == (0, 3, 0)
    finally:
        tf.einsum_cache_resize(256)
    u = tf.asarray(_arr((3, 3), np.float64)[:, ::-1])   # other strides: another plan
    r = tf.einsum("ij,jk->ik", t, u)
    np.testing.assert_allclose(r.numpy(), t.numpy() @ u.numpy(), rtol=1e-14)


# -- reductions, basic indexing, norm (the compiled fast paths of _fastpath.pyx) --------
# Each case runs twice: as users call it (the fast path where it applies) and through
# the general path (the module's Python function the fast path falls back to); values,
# dtypes, shapes, errors and warnings must be the same, and the values NumPy's.

from tenferro._ops import indexing as _ix, reduction as _red   # noqa: E402
from tenferro.linalg import _norm   # noqa: E402


def _fast_only(monkeypatch):
    """Make the general paths of the reductions and of indexing raise (so a test can
    check that the fast path was taken)."""
    def boom(*a, **k):
        raise AssertionError("took the general path")
    for mod, name in [(_red, "_sum_like"), (_red, "_reduce"), (_red, "_mean"),
                      (_ix, "_parse"), (_norm, "_pnorm")]:
        monkeypatch.setattr(mod, name, boom)


def _outcome(fn):
    """(result as an ndarray copy, or the exception's type and message; warnings)."""
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        try:
            r = fn()
            out = np.array(r.numpy(), copy=True) if isinstance(r, tf.Tensor) else r
        except Exception as e:   # noqa: BLE001  (compared below)
            out = (type(e), str(e))
    return out, [(w.category, str(w.message)) for w in rec]


def _same_outcome(a, b):
    (ra, wa), (rb, wb) = a, b
    assert wa == wb
    if isinstance(ra, tuple):
        assert ra == rb
    else:
        assert isinstance(rb, np.ndarray) and ra.dtype == rb.dtype and ra.shape == rb.shape
        np.testing.assert_array_equal(ra, rb)


RED_DTYPES = [np.bool_, np.int32, np.int64, np.float32, np.float64, np.complex128]
GENERAL = {"sum": _red._sum, "prod": _red._prod, "max": _red._max, "min": _red._min,
           "any": _red._any, "all": _red._all}


def _red_inputs(dt):
    a = _arr((3, 4), dt)
    if np.dtype(dt).kind == "f":
        a[1, 2] = np.nan
    return [a, a[0], a[:, ::-2], a.T, np.asarray(a[0, 0]), a[:0], a[:, :0], _arr((5,), dt)]


@pytest.mark.parametrize("dt", RED_DTYPES)
@pytest.mark.parametrize("name", sorted(GENERAL))
def test_reductions_match_general_path_and_numpy(name, dt, monkeypatch):
    for a in _red_inputs(dt):
        for axis in (None, 0, -1, 1, 2, -3):
            x = tf.asarray(a)
            fast = _outcome(lambda: getattr(x, name)(axis=axis))
            _same_outcome(fast, _outcome(lambda: getattr(tf, name)(x, axis)))
            _same_outcome(fast, _outcome(lambda: GENERAL[name](x, axis, None, False)))
            if isinstance(fast[0], np.ndarray):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    ref = getattr(np, name)(a, axis=axis)
                assert fast[0].dtype == ref.dtype
                np.testing.assert_allclose(fast[0], ref, rtol=1e-6)
    x = tf.asarray(_red_inputs(dt)[0])
    with monkeypatch.context() as m:
        _fast_only(m)
        getattr(x, name)()
        getattr(tf, name)(x, axis=-1)


def test_reductions_on_a_zero_d_tensor_and_numpy_axes():
    x0 = tf.asarray(np.float64(2.5))
    assert x0.sum().item() == 2.5 and x0.sum(axis=0).item() == 2.5   # 0-d leniency: general
    x = tf.asarray(np.arange(6.0).reshape(2, 3))
    _same(x.sum(axis=np.int64(1)), np.arange(6.0).reshape(2, 3).sum(axis=1))
    _same(x.sum(axis=(1, 0)), np.float64(15.0) * np.ones(()))
    _same(x.max(axis=(-1,), keepdims=True), np.array([[2.0], [5.0]]))
    with pytest.raises(tf.AxisError, match="axis 2 is out of bounds"):
        x.sum(axis=2)
    with pytest.raises(ValueError, match="zero-size reduction"):
        tf.asarray(np.zeros((0, 2))).max(axis=0)
    with pytest.raises(ValueError, match="zero-size reduction"):
        tf.asarray(np.zeros(0)).min()
    _same(tf.asarray(np.zeros((0, 2))).max(axis=1), np.zeros(0))
    _same(x.sum(dtype="float32"), np.float32(15.0) * np.ones((), np.float32))
    out = tf.zeros(3)
    assert x.sum(0, None, out) is out
    _same(out, np.array([3.0, 5.0, 7.0]))
    assert x.sum(axis=2 ** 70 - 2 ** 70 + 1).shape == (2,)


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.complex128, np.int32, np.bool_])
def test_mean_matches_general_path_and_numpy(dt, monkeypatch):
    for a in _red_inputs(dt):
        for axis in (None, 0, -1, 1, 5):
            x = tf.asarray(a)
            fast = _outcome(lambda: x.mean(axis=axis))
            _same_outcome(fast, _outcome(lambda: _red._mean(x, axis, None, False)))
            if isinstance(fast[0], np.ndarray):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    ref = np.mean(a, axis=axis)
                assert fast[0].dtype == ref.dtype
                np.testing.assert_allclose(fast[0], ref, rtol=1e-6)
    if np.dtype(dt).kind in "fc":
        with monkeypatch.context() as m:
            _fast_only(m)
            tf.asarray(_arr((3,), dt)).mean()


def test_reductions_use_the_implementation_registered_now(monkeypatch):
    x = tf.asarray(np.ones(3))
    assert x.sum().item() == 3.0                   # the entry made
    impls = x.device.driver.implementations
    orig = impls["sum"]
    monkeypatch.setitem(impls, "sum", lambda d, *, axes, out_dtype:
                        orig(d, axes=axes, out_dtype=out_dtype) * 0 + 7)
    assert x.sum().item() == 7.0 and tf.sum(x, axis=0).item() == 7.0


def test_reductions_record_and_trace():
    w = tf.tensor(np.array([1.0, 5.0, 2.0]), requires_grad=True)
    (w.sum() + w.max() + w.mean() + tf.sum(w * w, axis=0) + w.min()).backward()
    np.testing.assert_allclose(w.grad.numpy(), [1 + 1 / 3 + 2 + 1, 1 + 1 + 1 / 3 + 10,
                                                1 + 1 / 3 + 4])
    g = tf.grad(lambda v: v.sum() + v.max() + v.mean())(tf.asarray(np.array([1.0, 3.0])))
    np.testing.assert_allclose(g.numpy(), [1.5, 2.5])
    j = tf.jit(lambda v: v.sum() * v.mean())
    x = tf.asarray(np.array([1.0, 2.0, 3.0]))
    assert j(x).item() == 12.0
    x[0] = 4.0
    assert j(x).item() == 27.0


# -- basic indexing ---------------------------------------------------------------------

KEYS = [0, 1, -1, -3, 3, -4, 2 ** 70, slice(0, 2), slice(None), slice(None, None, -1),
        slice(5, 1), slice(-5, None, -1), slice(1, 2, 3), slice(None, None, 0),
        slice(2 ** 70, None), slice(-2 ** 70, 2 ** 70, 2), (), (1,), (0, 1), (1, -1),
        (slice(None), 1), (1, slice(None, None, -1)), (0, 0, 0), (slice(0, 3), slice(0, 4)),
        np.int64(1), True, None, Ellipsis, (Ellipsis, 1), [0, 1], slice(np.int64(1), None)]


def _index_bases():
    a = np.arange(12.0).reshape(3, 4)
    return [a, a[0], a[:, ::-2], a.T, np.asarray(2.5), np.zeros((0, 2))]


def test_getitem_matches_general_path_and_numpy():
    for a in _index_bases():
        for key in KEYS:
            x = tf.asarray(a)
            fast = _outcome(lambda: x[key])
            _same_outcome(fast, _outcome(lambda: _ix.getitem(x, key)))
            try:
                ref = np.asarray(a[key])
            except (IndexError, ValueError, TypeError):
                assert isinstance(fast[0], tuple)
                continue
            np.testing.assert_array_equal(fast[0], ref)
            assert fast[0].dtype == ref.dtype


def test_getitem_views_share_memory_and_whole_keys_give_the_tensor(monkeypatch):
    x = tf.asarray(np.arange(6.0).reshape(2, 3))
    with monkeypatch.context() as m:
        _fast_only(m)
        assert x[:] is x and x[0:2, :] is x and x[()] is x
        row, col, elem = x[1], x[:, -1], x[1, 2]
    assert elem.shape == () and np.shares_memory(elem.numpy(), x.numpy())
    x.numpy()[1, 2] = 50.0
    assert row.numpy()[2] == 50.0 and col.numpy()[1] == 50.0 and elem.item() == 50.0


def test_getitem_records_and_traces():
    w = tf.tensor(np.array([1.0, 2.0, 3.0]), requires_grad=True)
    (w[1] * 3.0 + w[0:2].sum()).backward()
    np.testing.assert_allclose(w.grad.numpy(), [1.0, 4.0, 0.0])
    g = tf.grad(lambda v: v[1] * v[2])(tf.asarray(np.array([1.0, 2.0, 3.0])))
    np.testing.assert_allclose(g.numpy(), [0.0, 3.0, 2.0])
    j = tf.jit(lambda v: v[0:2] * 2.0)
    np.testing.assert_array_equal(j(tf.asarray(np.array([1.0, 2.0, 3.0]))).numpy(), [2, 4])


SET_DTYPES = [np.bool_, np.int32, np.int64, np.uint8, np.float32, np.float64, np.complex64,
              np.complex128]
VALUES = [2.0, -0.0, 2.5, float("nan"), float("inf"), -float("inf"), 1e300, 3.4028235e38,
          1e-50, 2, -3, 2 ** 24 + 1, 2 ** 31, -2 ** 31 - 1, 2 ** 53 + 1, 2 ** 63, -2 ** 63,
          2 ** 64, True, False, 1 + 2j, complex(3, 0), np.float64(2.5), np.int64(-1)]
SET_KEYS = [1, -1, 3, -2 ** 70, slice(0, 2), slice(None), (), slice(None, None, -2), (0,),
            (0, 0)]


@pytest.mark.parametrize("dt", SET_DTYPES)
def test_setitem_scalars_match_general_path(dt):
    """Every (dtype, Python scalar, key): the result, the exception (type and message)
    and the warnings of ``x[key] = v`` are the general path's."""
    base = np.array([1, 0, 1], dtype=dt)
    for v in VALUES:
        for key in SET_KEYS:
            x, y = tf.asarray(base.copy()), tf.asarray(base.copy())
            fast = _outcome(lambda: (x.__setitem__(key, v), x)[1])
            general = _outcome(lambda: (_ix.setitem(y, key, v), y)[1])
            _same_outcome(fast, general)
            if not isinstance(fast[0], tuple):
                np.testing.assert_array_equal(x.numpy(), y.numpy())


def test_setitem_scalars_take_the_fast_path_and_match_numpy(monkeypatch):
    for dt, v in [(np.float64, 2.5), (np.float32, 1e-50), (np.float32, float("nan")),
                  (np.int64, -2 ** 63), (np.int32, 2 ** 31 - 1), (np.float64, 2 ** 53),
                  (np.complex128, 1 + 2j), (np.complex64, 2.0), (np.bool_, True)]:
        a = np.zeros((3, 2), dt)
        x = tf.asarray(a.copy())
        with monkeypatch.context() as m:
            _fast_only(m)
            x[1] = v
            x[0:3:2, -1] = v
        a[1] = v
        a[0:3:2, -1] = v
        _same(x, a)


def test_setitem_writes_through_views_and_bumps_versions():
    x = tf.asarray(np.zeros(4))
    v = x[1:3]
    v[0] = 7.0            # a view: the base sees the write
    v[-1] = tf.asarray(np.array(8.0))
    _same(x, np.array([0.0, 7.0, 8.0, 0.0]))
    # autodiff saved x (and its view): an in-place write afterwards must be detected
    for target in (x, v, x[0:1]):
        w = tf.tensor(np.ones(4), requires_grad=True)
        y = (w * x).sum()
        target[0] = 1.0
        with pytest.raises(RuntimeError, match="modified"):
            y.backward()
    w = tf.tensor(np.ones(4), requires_grad=True)
    y = (w * x).sum()
    x[2] = tf.asarray(np.array(3.0))
    with pytest.raises(RuntimeError, match="modified"):
        y.backward()


def test_setitem_refusals_are_the_general_paths():
    w = tf.tensor(np.ones(3), requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf tensor that requires grad"):
        w[0] = 2.0
    with tf.no_grad():
        w[0] = 2.0          # an optimizer step's write
    assert w.detach().numpy()[0] == 2.0
    b = tf.broadcast_to(tf.asarray(np.ones(1)), (3,))
    with pytest.raises(ValueError, match="read-only"):
        b[0] = 2.0
    x = tf.asarray(np.zeros(3))
    with pytest.raises(RuntimeError, match="requires grad"):
        x[0] = w.sum()
    with pytest.raises(ValueError, match="could not broadcast"):
        x[0:2] = tf.asarray(np.ones(3))
    with pytest.warns(np.exceptions.ComplexWarning):
        x[0] = tf.asarray(np.array(1 + 1j))
    with pytest.raises(IndexError, match="out of bounds"):
        x[3] = 1.0


@pytest.mark.parametrize("vdt", [np.float64, np.float32, np.int64, np.bool_, np.complex128])
@pytest.mark.parametrize("dt", [np.float64, np.int32, np.complex64])
def test_setitem_tensor_values_match_general_path_and_numpy(dt, vdt):
    for key, shape in [(1, ()), (slice(0, 2), (2,)), (slice(0, 2), (1,)), ((), ()),
                       (slice(None, None, -1), (3,)), (0, (2,))]:
        val = _arr(shape, vdt, 3)
        base = np.array([1, 2, 3], dtype=dt)
        x, y = tf.asarray(base.copy()), tf.asarray(base.copy())
        fast = _outcome(lambda: (x.__setitem__(key, tf.asarray(val)), x)[1])
        _same_outcome(fast, _outcome(lambda: (_ix.setitem(y, key, tf.asarray(val)), y)[1]))
        if not isinstance(fast[0], tuple):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                base[key] = val
            _same(x, base)


def test_setitem_overlapping_tensor_value():
    a = np.arange(5.0)
    x = tf.asarray(a.copy())
    x[1:4] = x[0:3]
    a[1:4] = a[0:3].copy()
    _same(x, a)
    x[::-1] = x
    _same(x, a[::-1].copy())


def test_setitem_under_tracing_and_transforms():
    with pytest.raises(RuntimeError, match="in-place"):
        tf.grad(lambda v: (v.__setitem__(0, 1.0), v.sum())[1])(tf.asarray(np.ones(2)))
    with pytest.raises(RuntimeError, match="in-place"):
        tf.jit(lambda v: (v.__setitem__(slice(0, 1), 1.0), v * 2.0)[1])(tf.asarray(np.ones(2)))
    c = tf.asarray(np.zeros(2))   # a plain tensor written while a transform is open

    def f(v):
        c[0] = 1.0
        c[1] = tf.asarray(np.array(2.0))
        return (v * c).sum()
    np.testing.assert_array_equal(tf.grad(f)(tf.asarray(np.ones(2))).numpy(), [1.0, 2.0])


def test_transpose_property():
    for a in (np.asarray(2.0), np.arange(3.0), np.arange(6.0).reshape(2, 3),
              np.arange(24.0).reshape(2, 3, 4)[:, ::-1]):
        x = tf.asarray(a)
        t = x.T
        _same(t, a.T)
        assert (t is x) == (a.ndim < 2) and np.shares_memory(t.numpy(), a)
    w = tf.tensor(np.ones((2, 3)), requires_grad=True)
    (w.T * tf.asarray(np.arange(6.0).reshape(3, 2))).sum().backward()
    _same(w.grad, np.arange(6.0).reshape(3, 2).T)
    assert tf.jit(lambda v: v.T * 1.0)(tf.asarray(np.eye(2))).shape == (2, 2)


# -- norm -----------------------------------------------------------------------------

@pytest.mark.parametrize("dt", [np.float32, np.float64, np.complex64, np.complex128,
                                np.int64])
def test_norm_matches_general_path_and_scipy(dt):
    for a in [_arr((3,), dt), _arr((4, 5), dt), _arr((2, 3, 4), dt), _arr((6, 4), dt)[::2, ::-1],
              _arr((0,), dt), np.array([1e300, 1e300]).astype(dt), np.array([1e-300, 3e-310]).astype(dt),
              np.array([1e30, 1e20]).astype(dt), np.array([1e-30, 1e-25]).astype(dt), _arr((1,), dt)]:
        x = tf.asarray(a)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fast = _outcome(lambda: tl.norm(x))
            general = _outcome(lambda: tf.reshape(tl.norm(x, keepdims=True), ()))
            ref = np.linalg.norm(a)       # (its dtype; scipy's value: scaled, no overflow)
            ref_value = sl.norm(a, check_finite=False)
        _same_outcome(fast, general)
        if isinstance(fast[0], tuple):   # an inf from the cast to float32: check_finite's
            assert fast[0][0] is ValueError and not np.isfinite(a).all()
            continue
        assert fast[0].shape == () and fast[0].dtype == ref.dtype
        rtol = 1e-5 if fast[0].dtype == np.float32 else 1e-13
        np.testing.assert_allclose(fast[0], ref_value, rtol=rtol)


def test_norm_fast_path_taken_errors_and_autodiff(monkeypatch):
    x = tf.asarray(np.array([3.0, 4.0]))
    with monkeypatch.context() as m:
        _fast_only(m)
        assert tl.norm(x).item() == 5.0
        assert tl.norm(tf.asarray(np.ones((2, 2), np.float32))).item() == 2.0
    for bad in (np.array([1.0, np.nan]), np.array([np.inf, 1.0]),
                np.array([[1.0, np.nan], [0, 0]])[:, ::-1]):
        with pytest.raises(ValueError, match="infs or NaNs"):
            tl.norm(tf.asarray(bad))
        _same_outcome(_outcome(lambda: tl.norm(tf.asarray(bad), check_finite=False)),
                      _outcome(lambda: tf.reshape(tl.norm(tf.asarray(bad), keepdims=True,
                                                          check_finite=False), ())))
    assert tl.norm(tf.asarray(np.array(-2.0))).item() == 2.0      # 0-d: abs
    w = tf.tensor(np.array([3.0, 4.0]), requires_grad=True)
    tl.norm(w).backward()
    np.testing.assert_allclose(w.grad.numpy(), [0.6, 0.8])
    np.testing.assert_allclose(tf.grad(tl.norm)(x).numpy(), [0.6, 0.8])
    assert tf.jit(tl.norm)(x).item() == 5.0


def test_norm_uses_the_implementation_registered_now(monkeypatch):
    x = tf.asarray(np.array([3.0, 4.0]))
    assert tl.norm(x).item() == 5.0
    impls = x.device.driver.implementations
    monkeypatch.setitem(impls, "linalg.vector_norm", lambda d, *, p, axes:
                        np.full((1,) * d.ndim, 7.0))
    assert tl.norm(x).item() == 7.0


def test_one_element_sqrt_is_numpys():
    """_vnorm's math.sqrt of one sum equals NumPy's sqrt in float64 and float32."""
    rng = np.random.default_rng(3)
    for dt in (np.float32, np.float64):
        v = np.concatenate([rng.random(20000) * 10.0 ** rng.integers(-30, 30, 20000),
                            np.nextafter(np.float32(1), 2) ** np.arange(2000)]).astype(dt)
        ours = np.array([math.sqrt(float(t)) for t in v]).astype(dt)
        np.testing.assert_array_equal(ours, np.sqrt(v))
