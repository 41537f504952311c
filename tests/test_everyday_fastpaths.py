"""The fast paths of the everyday functions give the slow paths' results, bit for bit.

* The CPU copy kernel (``_elementwise.cast``, same dtype) avoids glibc's slow
  ``rep movsb`` for a destination 1..63 bytes after its source (modulo a page): every
  offset, dtype, size around the piece size and thread count copies exactly.
* ``sort``/``unique`` outside autodiff use ``sort_values`` (NumPy's unstable SIMD sort
  where equal values are bitwise identical): signed zeros and NaNs of other bits keep the
  stable order; ``argsort`` keeps NumPy's unstable permutation only where the order is
  unique (ties and NaN fall back to the stable sort).
* ``median``/``quantile``/``percentile`` and their nan versions outside autodiff
  partition around the order statistics (host index formulas): the same values as the
  sort path taken for tensors that require grad, whose gradients are unchanged.
"""
import warnings

import numpy as np
import pytest

import tenferro as tf
from tenferro._kernels import _elementwise as ew


def bits(a):
    """The bytes of ``a`` as unsigned integers (NaN payloads and zero signs compared)."""
    a = np.ascontiguousarray(a)
    return a.view(np.dtype("u%d" % a.dtype.itemsize) if a.dtype.itemsize <= 8 else np.uint64)


# -- the copy kernel ---------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["bool", "int32", "int64", "float32", "float64",
                                   "complex128"])
@pytest.mark.parametrize("n", [100, 1000, 20_000, 300_001])
@pytest.mark.parametrize("nthreads", [1, 2])
def test_copy_into_offset_views_is_exact(dtype, n, nthreads):
    rng = np.random.default_rng(n)
    src = rng.integers(0, 100, n + 8).astype(dtype)
    for soff in range(3):
        for doff in range(4):
            out = np.zeros(n + 8, dtype)
            ew.cast(src[soff:soff + n], out[doff:doff + n], nthreads)
            np.testing.assert_array_equal(out[doff:doff + n], src[soff:soff + n])
            assert not out[:doff].any() and not out[doff + n:].any()


@pytest.mark.parametrize("n", [5000, 200_001])
def test_concatenate_and_roll_with_one_element_offsets(n):
    x = np.random.default_rng(1).standard_normal(n)
    t = tf.asarray(x)
    np.testing.assert_array_equal(tf.concatenate([t[:1], t]).numpy(),
                                  np.concatenate([x[:1], x]))
    for s in (1, -1, 3, n - 1):
        np.testing.assert_array_equal(tf.roll(t, s).numpy(), np.roll(x, s))


# -- sort, argsort, unique ---------------------------------------------------------------

def tricky(n, dtype="float64", seed=0):
    """Floats with ties, both zeros and NaNs of both signs and two payloads."""
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, n).astype(dtype)
    a[rng.random(n) < 0.2] = -0.0
    nan2 = np.array([np.nan], dtype).view(bits(np.zeros(1, dtype)).dtype) | 1
    for v in (np.nan, -np.nan, nan2.view(dtype)[0]):
        a[rng.integers(0, n, max(1, n // 20))] = v
    return a


def stable_sort(a, axis):
    return np.take_along_axis(a, np.argsort(a, axis=axis, kind="stable"), axis=axis)


@pytest.mark.parametrize("n", [7, 300, 5000])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sort_keeps_the_stable_order_of_signed_zeros_and_nans(n, dtype):
    a = tricky(n, dtype)
    np.testing.assert_array_equal(bits(tf.sort(tf.asarray(a)).numpy()), bits(stable_sort(a, 0)))
    s = stable_sort(a, 0)
    first = np.concatenate([[True], s[1:] != s[:-1]])
    u = tf.unique(tf.asarray(a), equal_nan=False).numpy()
    np.testing.assert_array_equal(bits(u), bits(s[first]))
    first[1:] &= ~(np.isnan(s[1:]) & np.isnan(s[:-1]))        # equal_nan: one NaN
    u = tf.unique(tf.asarray(a)).numpy()
    np.testing.assert_array_equal(bits(u), bits(s[first]))
    with_counts = tf.unique(tf.asarray(a), return_counts=True)[0].numpy()   # (the sort path)
    np.testing.assert_array_equal(bits(u), bits(with_counts))


def test_sort_of_complex_with_signed_zero_parts():
    re = np.array([0.0, -0.0, 1.0, 0.0, -0.0] * 80)
    im = np.array([-0.0, 0.0, 0.0, 0.0, -0.0] * 80)
    a = re + 1j * im
    a.imag[::7] = -0.0
    np.testing.assert_array_equal(bits(tf.sort(tf.asarray(a)).numpy().view(np.float64)),
                                  bits(stable_sort(a, 0).view(np.float64)))
    a[5] = complex(np.nan, 1.0)
    a[9] = complex(2.0, np.nan)
    for equal_nan in (True, False):
        fast = tf.unique(tf.asarray(a), equal_nan=equal_nan).numpy()
        slow = tf.unique(tf.asarray(a), equal_nan=equal_nan, return_counts=True)[0].numpy()
        np.testing.assert_array_equal(bits(fast.view(np.float64)), bits(slow.view(np.float64)))


@pytest.mark.parametrize("shape,axis", [((50, 40), 0), ((50, 40), 1), ((3, 400), -1),
                                        ((400,), 0), ((0, 5), 0), ((5, 0), 1)])
@pytest.mark.parametrize("dtype", ["bool", "int32", "int64", "float64", "complex128"])
def test_sort_and_argsort_on_views_and_axes(shape, axis, dtype):
    rng = np.random.default_rng(2)
    base = rng.standard_normal((shape[0] * 2 + 1,) + shape[1:])
    if dtype == "complex128":
        base = base + 1j * rng.standard_normal(base.shape)
    base = base.astype(dtype)
    t = tf.asarray(base)
    m = shape[0]
    # contiguous, negative and non-unit strides
    for key in (slice(0, m), slice(None, None, -2), slice(1, None, 2)):
        a, tv = base[key][:m], t[key][:m]
        np.testing.assert_array_equal(bits(tf.sort(tv, axis=axis).numpy()),
                                      bits(stable_sort(a, axis)))
        np.testing.assert_array_equal(tf.argsort(tv, axis=axis).numpy(),
                                      np.argsort(a, axis=axis, kind="stable"))


@pytest.mark.parametrize("data", [
    lambda r: r.integers(0, 50, 2000),                     # many ties: the stable fallback
    lambda r: r.standard_normal(2000),                     # no ties: NumPy's unstable sort
    lambda r: np.concatenate([r.standard_normal(1999), [np.nan]]),
    lambda r: np.concatenate([r.standard_normal(1000)] * 2),       # every value twice
    lambda r: np.where(r.random(2000) < 0.5, 0.0, -0.0),
])
def test_argsort_is_stable_on_both_paths(data):
    a = data(np.random.default_rng(3))
    np.testing.assert_array_equal(tf.argsort(tf.asarray(a)).numpy(),
                                  np.argsort(a, kind="stable"))
    a2 = np.stack([a, a[::-1]])
    np.testing.assert_array_equal(tf.argsort(tf.asarray(a2), axis=1).numpy(),
                                  np.argsort(a2, axis=1, kind="stable"))


def test_sort_zero_d_empty_and_the_gradient_path():
    assert tf.sort(tf.asarray(np.float64(3.0)), axis=None).numpy().tolist() == [3.0]
    assert tf.sort(tf.asarray(np.zeros(0))).shape == (0,)
    x = np.array([3.0, 1.0, 3.0, 2.0] * 100)
    t = tf.tensor(x, requires_grad=True)
    s = tf.sort(t)
    np.testing.assert_array_equal(s.detach().numpy(), np.sort(x))
    (s * tf.arange(400.0)).sum().backward()
    np.testing.assert_array_equal(x.size and t.grad.numpy(),
                                  np.arange(400.0)[np.argsort(np.argsort(x, kind="stable"))])


# -- order statistics --------------------------------------------------------------------

METHODS = ["linear", "lower", "higher", "nearest", "midpoint", "inverted_cdf",
           "averaged_inverted_cdf", "closest_observation", "interpolated_inverted_cdf",
           "hazen", "weibull", "median_unbiased", "normal_unbiased"]


def both_paths(fn, a, **kw):
    """``fn`` of ``a`` outside autodiff (partition) and requiring grad (the sort)."""
    fast = fn(tf.asarray(a), **kw).numpy()
    slow = fn(tf.tensor(a, requires_grad=True), **kw).detach().numpy()
    return fast, slow


def inputs():
    rng = np.random.default_rng(4)
    x = rng.integers(-5, 6, (9, 31)).astype(np.float64)
    xn = x.copy()
    xn[rng.random(x.shape) < 0.3] = np.nan
    xn[2] = np.nan
    return [x, xn, x[:, ::-3], rng.standard_normal(1001), rng.standard_normal(40).astype(np.float32),
            np.array([0.0, -0.0, -0.0, 0.0, 1.0])]


@pytest.mark.parametrize("method", METHODS)
def test_quantile_partition_path_equals_the_sort_path(method):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for a in inputs():
            for fn in (tf.quantile, tf.nanquantile):
                for q in (0.3, [0.0, 0.25, 0.5, 1.0], np.linspace(0, 1, 70)):
                    for axis in (None, 0, -1):
                        if a.ndim == 1 and axis == 0:
                            continue
                        fast, slow = both_paths(fn, a, q=q, axis=axis, method=method)
                        np.testing.assert_array_equal(bits(fast), bits(slow))
                        ref = getattr(np, fn.__name__)(a, q, axis=axis, method=method)
                        np.testing.assert_array_equal(fast, ref)


def test_median_partition_path_equals_the_sort_path():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for a in inputs() + [np.arange(10), np.array([True, False, True]),
                             np.array([1 + 2j, 3 - 1j, 0j, 2 + 0j])]:
            for fn in (tf.median, tf.nanmedian):
                for axis in (None, 0, -1):
                    if a.dtype.kind in "bi" and fn is tf.nanmedian:
                        continue
                    fast = fn(tf.asarray(a), axis=axis).numpy()
                    if a.dtype.kind == "f":
                        slow = fn(tf.tensor(a, requires_grad=True), axis=axis)
                        np.testing.assert_array_equal(bits(fast), bits(slow.detach().numpy()))
                    np.testing.assert_array_equal(fast, getattr(np, fn.__name__)(a, axis=axis))


def test_quantile_gradient_reaches_the_selected_elements():
    x = np.array([4.0, 1.0, 3.0, 1.0, 2.0, 5.0])
    t = tf.tensor(x, requires_grad=True)
    tf.quantile(t, 0.3).backward()     # index 1.5: half of each of the 2nd and 3rd smallest
    np.testing.assert_allclose(t.grad.numpy(), [0, 0, 0, 0.5, 0.5, 0])
    t = tf.tensor(x, requires_grad=True)
    tf.median(t).backward()            # 2.0 and 3.0
    np.testing.assert_allclose(t.grad.numpy(), [0, 0, 0.5, 0, 0.5, 0])


# -- counting ----------------------------------------------------------------------------

def test_histogram_and_bincount_counts_equal_the_compositions():
    """Outside autodiff: NumPy's one-pass counts; a tensor requiring grad takes the
    differentiable composition.  Both give NumPy's counts, edges and densities."""
    rng = np.random.default_rng(5)
    for a in (rng.standard_normal(3000), rng.integers(-5, 9, 500), np.full(7, 2.0),
              np.array([1.0, np.nan, 2.0, np.inf]), rng.standard_normal(99).astype(np.float32),
              rng.standard_normal(40)[::-3]):
        for bins, rng_ in ((10, None), (1, None), (7, (-1.0, 1.0)), (3, (2.0, 2.0))):
            if not np.isfinite(a).all() and rng_ is None:
                continue
            ref = np.histogram(a, bins, range=rng_)
            for density in (False, True):
                fast = tf.histogram(tf.asarray(a), bins, range=rng_, density=density)
                slow = tf.histogram(tf.tensor(a.astype(np.float64), requires_grad=True)
                                    if a.dtype.kind == "i" else tf.tensor(a, requires_grad=True),
                                    bins, range=rng_, density=density)
                if a.dtype.kind != "i":
                    np.testing.assert_array_equal(fast[0].numpy(), slow[0].detach().numpy())
                if not density:
                    assert fast[0].dtype == ref[0].dtype
                    np.testing.assert_array_equal(fast[0].numpy(), ref[0])
                np.testing.assert_array_equal(fast[1].numpy(), ref[1])
    x = rng.integers(0, 50, 1000)
    for ml in (0, 80):
        np.testing.assert_array_equal(tf.bincount(tf.asarray(x), minlength=ml).numpy(),
                                      np.bincount(x, minlength=ml))
        assert tf.bincount(tf.asarray(x[::-2]), minlength=ml).dtype == np.int64
    with pytest.raises(ValueError, match="bincount: x must have no negative"):
        tf.bincount(tf.asarray(np.array([1, -1])))


@pytest.mark.parametrize("dtype", ["bool", "int32", "int64"])
def test_unique_of_integers_by_hashing_equals_the_sort(dtype):
    """Values only: NumPy's hash-based unique; with counts: the sort-based composition."""
    rng = np.random.default_rng(6)
    base = rng.integers(0, 2 if dtype == "bool" else 40, (30, 20)).astype(dtype)
    t = tf.asarray(base)
    for a, tv in ((base, t), (base[::-2, 1::3], t[::-2, 1::3]), (base[:0], t[:0]),
                  (base[3, 4], t[3, 4])):
        u = tf.unique(tv)
        assert u.dtype == a.dtype
        np.testing.assert_array_equal(u.numpy(), np.unique(a))
        np.testing.assert_array_equal(u.numpy(), tf.unique(tv, return_counts=True)[0].numpy())
