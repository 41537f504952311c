"""Sorting and searching on the WebGPU driver (devices/webgpu/sort.py) against NumPy:
argsort/sort (the stable order: ties in input order, NaN last, -0.0 tied with 0.0,
integer extremes, descending), searchsorted (both sides, NaN queries, strided ``a``,
sorter) and the functions built on them (unique, digitize, median, quantile).

Permutations and positions are integers, so they must equal NumPy's exactly; sizes
are small except one long line (lavapipe is a CPU), which crosses the multi-pass
bitonic stages.  Skipped, with the driver's reason, without a WebGPU adapter.
"""
import warnings

import numpy as np
import pytest

import tenferro as tf
from conftest import gpu, host, webgpu_or_skip

W = webgpu_or_skip()

F32, I32, BOOL, I64 = (np.dtype("float32"), np.dtype("int32"), np.dtype("bool"),
                       np.dtype("int64"))
DTYPES = (F32, I32, BOOL, I64)
EDGES = {F32: [np.nan, -0.0, 0.0, np.inf, -np.inf, 1e-45, -1e-45, 3.4e38, -3.4e38],
         I32: [np.iinfo(np.int32).min, np.iinfo(np.int32).max, -1, 0],
         I64: [np.iinfo(np.int64).min, np.iinfo(np.int64).max, 2**32, -2**32, 2**32 - 1,
               -1]}


def sample(shape, dtype, seed=0):
    """Values with many ties (a few distinct ones) and the dtype's edge values mixed in;
    int64 ties that differ only in the high word."""
    r = np.random.default_rng(seed)
    n = int(np.prod(shape))
    if dtype == BOOL:
        return r.random(shape) < 0.5
    a = r.integers(-3, 4, n).astype(dtype)
    if dtype == I64:
        a *= 2**33
    edge = np.array(EDGES[dtype], dtype)
    k = min(n // 2, len(edge))
    a[r.permutation(n)[:k]] = edge[:k]
    if dtype == F32:
        a[r.permutation(n)[:n // 6]] = np.nan
    return a.reshape(shape)


def stable(a, axis, descending=False):
    """NumPy's stable argsort; descending: ties still in input order (the primitive's
    definition: the ascending sort of the reversed axis, reversed)."""
    if not descending:
        return np.argsort(a, axis=axis, kind="stable")
    n = a.shape[axis]
    return (n - 1) - np.flip(np.argsort(np.flip(a, axis), axis=axis, kind="stable"), axis)


def same(t, expected):
    """``t`` (on the device) equals ``expected``: dtype, shape and values (NaN too)."""
    got, expected = host(t), np.asarray(expected)
    assert got.dtype == expected.dtype and got.shape == expected.shape, (
        got.dtype, got.shape, expected.dtype, expected.shape)
    np.testing.assert_array_equal(got, expected)


# -- argsort / sort ----------------------------------------------------------------------

SHAPES = [((0,), 0), ((1,), 0), ((7,), 0), ((37,), -1), ((4, 5), 0), ((4, 5), 1),
          ((2, 3, 4), 1), ((3, 600), -1), ((1100, 3), 0), ((3, 0), 1), ((0, 3), 1)]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape,axis", SHAPES, ids=str)
@pytest.mark.parametrize("descending", [False, True])
def test_argsort_and_sort_match_numpys_stable_sort(dtype, shape, axis, descending):
    a = sample(shape, dtype, seed=len(shape) + shape[0])
    t = gpu(a)
    p = tf.argsort(t, axis=axis, descending=descending)
    same(p, stable(a, axis, descending))
    s = tf.sort(t, axis=axis, descending=descending)
    same(s, np.take_along_axis(a, stable(a, axis, descending), axis))
    if not descending:
        same(s, np.sort(a, axis=axis))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("how", ["T", "reversed", "step"])
def test_strided_inputs(dtype, how):
    a = sample((6, 9), dtype, seed=3)
    t = gpu(a)
    view, ref = {"T": (t.T, a.T), "reversed": (t[::-1], a[::-1]),
                 "step": (t[:, ::2], a[:, ::2])}[how]
    assert not view._data.c_contiguous
    for axis in (0, 1):
        same(tf.argsort(view, axis=axis), stable(ref, axis))
    same(tf.argsort(view, axis=None), np.argsort(ref, axis=None, kind="stable"))


def test_nan_negative_zero_and_ties_order_as_numpy():
    a = np.array([3.0, np.nan, -np.inf, 1.0, np.nan, -0.0, 0.0, np.inf, 0.0, -0.0, 1.0],
                 np.float32)
    same(tf.argsort(gpu(a)), np.argsort(a, kind="stable"))
    got = host(tf.sort(gpu(a)))
    np.testing.assert_array_equal(got, np.sort(a))
    np.testing.assert_array_equal(np.signbit(got), np.signbit(np.sort(a, kind="stable")))
    same(tf.argsort(gpu(a), descending=True), stable(a, 0, True))   # NaN first


@pytest.mark.parametrize("dtype", [F32, I64], ids=str)
def test_one_long_line_runs_the_multipass_stages(dtype):
    n = 2**16 + 3
    a = sample((n,), dtype, seed=7)
    same(tf.argsort(gpu(a)), stable(a, 0))
    if dtype == I64:
        same(tf.argsort(gpu(a), descending=True), stable(a, 0, True))


def test_zero_d_and_pipelines_are_reused():
    same(tf.argsort(gpu(np.float32(2.5))), np.argsort(np.float32(2.5)).reshape(1))
    a = sample((5, 40), F32, seed=1)
    same(tf.argsort(gpu(a)), stable(a, -1))
    before = W.pipeline_info()["compiles"]
    same(tf.argsort(gpu(a[::-1])), stable(a[::-1], -1))
    assert W.pipeline_info()["compiles"] == before


def test_sort_gradient_on_the_device():
    x = tf.asarray(np.float32([3.0, 1.0, 2.0, 1.0])).to("webgpu")
    x.requires_grad = True
    (tf.sort(x) * gpu(np.float32([1, 10, 100, 1000]))).sum().backward()
    np.testing.assert_array_equal(host(x.grad), [1000.0, 1.0, 100.0, 10.0])


# -- searchsorted ------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_matches_numpy(dtype, side):
    a = np.sort(sample((41,), dtype, seed=5))
    v = sample((3, 13), dtype, seed=6)
    same(tf.searchsorted(gpu(a), gpu(v), side=side), np.searchsorted(a, v, side=side))
    # a strided (every other element, and reversed descending data sorted back)
    same(tf.searchsorted(gpu(a)[::2], gpu(v).T, side=side),
         np.searchsorted(a[::2], v.T, side=side))
    same(tf.searchsorted(gpu(a[::-1].copy())[::-1], gpu(v[0]), side=side),
         np.searchsorted(a, v[0], side=side))
    ta = gpu(a)   # queries from a's own buffer
    same(tf.searchsorted(ta, ta[3:], side=side), np.searchsorted(a, a[3:], side=side))


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_nan_zero_and_infinite_queries(side):
    a = np.array([-np.inf, -1.0, -0.0, 0.0, 0.0, 2.0, np.inf, np.nan, np.nan], np.float32)
    v = np.array([np.nan, -0.0, 0.0, np.inf, -np.inf, 1.0, 5.0, -7.0], np.float32)
    same(tf.searchsorted(gpu(a), gpu(v), side=side), np.searchsorted(a, v, side=side))


def test_searchsorted_sorter_empty_and_zero_d():
    a = sample((17,), F32, seed=2)
    a[np.isnan(a)] = 9.0
    sorter = np.argsort(a, kind="stable")
    v = np.float32([-1.5, 0.0, 2.0, 9.0])
    same(tf.searchsorted(gpu(a), gpu(v), sorter=gpu(sorter)),
         np.searchsorted(a, v, sorter=sorter))
    same(tf.searchsorted(gpu(a[sorter]), gpu(np.float32(0.5))),
         np.searchsorted(a[sorter], np.float32(0.5)))
    same(tf.searchsorted(gpu(np.zeros(0, np.float32)), gpu(v)), np.zeros(4, np.int64))
    same(tf.searchsorted(gpu(a[sorter]), gpu(np.zeros((0, 2), np.float32))),
         np.zeros((0, 2), np.int64))


# -- the functions built on them ---------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_unique_on_the_device(dtype):
    a = sample((5, 8), dtype, seed=4)
    got = tf.unique(gpu(a), return_index=True, return_inverse=True, return_counts=True)
    want = np.unique(a, return_index=True, return_inverse=True, return_counts=True)
    for g, w in zip(got, want):
        same(g, w)
    same(tf.unique(gpu(a), axis=0), np.unique(a, axis=0))


def test_digitize_median_and_quantiles_on_the_device():
    r = np.random.default_rng(9)
    x = r.standard_normal((4, 9)).astype(np.float32)
    bins = np.float32([-1.0, 0.0, 0.5, 1.0])
    for right in (False, True):
        same(tf.digitize(gpu(x), gpu(bins), right=right), np.digitize(x, bins, right=right))
        same(tf.digitize(gpu(x), gpu(bins[::-1].copy()), right=right),
             np.digitize(x, bins[::-1], right=right))
    for got, want in [(tf.median(gpu(x), axis=0), np.median(x, axis=0)),
                      (tf.quantile(gpu(x), 0.3, axis=1), np.quantile(x, 0.3, axis=1)),
                      (tf.percentile(gpu(x), [10, 50, 90]), np.percentile(x, [10, 50, 90]))]:
        assert got.device == tf.device("webgpu")
        np.testing.assert_allclose(host(got), want, rtol=2e-6, atol=2e-6)


def test_integer_and_nan_order_statistics_in_float32():
    """NumPy's float64 results are float32 on WebGPU (its default float): the median and
    quantiles of integers, and the nan* versions (whose counts are int64)."""
    r = np.random.default_rng(10)
    xi = r.integers(-50, 50, (5, 8)).astype(np.int32)
    xn = r.standard_normal((5, 8)).astype(np.float32)
    xn[r.random((5, 8)) < 0.3] = np.nan
    xn[2] = np.nan
    cases = [(tf.median, np.median, xi, {}), (tf.median, np.median, xi, dict(axis=1)),
             (tf.quantile, np.quantile, xi, dict(q=[0.1, 0.45], axis=0)),
             (tf.percentile, np.percentile, xi, dict(q=37.5, method="hazen")),
             (tf.nanmedian, np.nanmedian, xn, dict(axis=1)),
             (tf.nanmedian, np.nanmedian, xn, dict(axis=0)),
             (tf.nanquantile, np.nanquantile, xn, dict(q=0.3, axis=1)),
             (tf.nanpercentile, np.nanpercentile, xn, dict(q=[20, 80], axis=0,
                                                           method="weibull"))]
    for f, ref, x, kw in cases:
        with warnings.catch_warnings():   # (the all-NaN slice's, tested on the CPU)
            warnings.simplefilter("ignore", RuntimeWarning)
            got, want = f(gpu(x), **kw), ref(x, **kw)
        assert got.dtype == tf.float32, (f.__name__, kw, got.dtype)
        np.testing.assert_allclose(host(got), want, rtol=2e-6, atol=2e-6,
                                   err_msg="%s %s" % (f.__name__, kw))


@pytest.mark.parametrize("method", ["inverted_cdf", "averaged_inverted_cdf",
                                    "closest_observation", "interpolated_inverted_cdf",
                                    "hazen", "weibull", "linear", "median_unbiased",
                                    "normal_unbiased", "lower", "higher", "midpoint",
                                    "nearest"])
@pytest.mark.parametrize("dtype", [F32, I32], ids=str)
def test_every_quantile_method_on_the_device(method, dtype):
    a = (np.random.default_rng(11).standard_normal((4, 7)) * 10).astype(dtype)
    got = tf.quantile(gpu(a), [0.2, 0.5, 0.7], axis=1, method=method)
    want = np.quantile(a, [0.2, 0.5, 0.7], axis=1, method=method)
    np.testing.assert_allclose(host(got), want, rtol=2e-6, atol=2e-6)
