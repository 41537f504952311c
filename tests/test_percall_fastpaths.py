"""The per-call fast paths give the general paths' answers (issue 17).

Elementwise ops (``_ops/_fastpath.pyx`` + the CPU's allocating kernel
``_elementwise.Allocating``), ``linalg.solve`` of one plain CPU matrix (``_solve_plain``,
its finite check ``_elementwise.all_finite`` and the 2x2 condition shortcut) and
``einsum`` of two plain tensors with a cached plan (``_plain_pair``): each case below
takes the fast path and is checked against NumPy / SciPy or against the general path
(the same call made to miss the fast path)."""
import inspect
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
