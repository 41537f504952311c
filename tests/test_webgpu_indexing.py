"""Integer-array indexing on the WebGPU driver against NumPy: take, take_along_axis,
their adjoints (scatter_add(_along_axis), atomics), put (``x[index] = v``) and nonzero
(``x[mask]``), through the public API.

Gathers and put copy elements, so their results must equal NumPy's bit for bit
(float32 NaN, -0.0 and infinities included; int64 values past 32 bits).  Scatter-adds
of integers and bools are exact (wrapping as NumPy's); float32 scatter-adds sum in
whatever order the atomics land, so they are compared with ``np.add.at`` at float32
tolerance.  Skipped, with the driver's reason, without a WebGPU adapter.
"""

import numpy as np
import pytest

import tenferro as tf
from conftest import host, webgpu_or_skip

W = webgpu_or_skip()
_drv = tf.devices.get_driver("webgpu")


DEV = tf.device("webgpu")
F32, I32, BOOL, I64 = (np.dtype("float32"), np.dtype("int32"), np.dtype("bool"),
                       np.dtype("int64"))
DTYPES = (F32, I32, BOOL, I64)
LAYOUTS = ("c", "T", "step", "neg")
I32_MIN, I32_MAX = np.iinfo(np.int32).min, np.iinfo(np.int32).max
I64_MIN, I64_MAX = np.iinfo(np.int64).min, np.iinfo(np.int64).max


def sample(shape, dtype, seed=0):
    """Random values with the edge cases of each dtype mixed in."""
    r = np.random.default_rng(seed)
    n = int(np.prod(shape))
    if dtype == BOOL:
        return r.random(shape) < 0.5
    if dtype == F32:
        a = r.uniform(-3, 3, n).astype(np.float32)
        edge = np.array([np.nan, -0.0, np.inf, -np.inf, 1e-45, -3.4e38], np.float32)
    elif dtype == I32:
        a = r.integers(-20, 21, n).astype(np.int32)
        edge = np.array([I32_MIN, I32_MAX, -1, 0], np.int32)
    else:
        a = np.where(r.random(n) < 0.5, r.integers(I64_MIN, I64_MAX, n, endpoint=True),
                     r.integers(-20, 21, n))
        edge = np.array([I64_MIN, I64_MAX, 2**32, -2**32, 2**32 - 1, -1], np.int64)
    k = min(n, len(edge))
    a[r.permutation(n)[:k]] = edge[:k]
    return a.reshape(shape)


def on_gpu(a, how="c"):
    """A device tensor holding ``a``'s values with the layout ``how``: contiguous,
    transposed (a permuted view), strided (every other element of the last axis) or
    reversed (a negative stride on axis 0)."""
    a = np.asarray(a)
    if how == "c" or a.ndim == 0:
        return tf.asarray(a).to("webgpu")
    if how == "T":
        ax = tuple(reversed(range(a.ndim)))
        t = tf.permute_dims(tf.asarray(np.ascontiguousarray(a.transpose(ax))).to("webgpu"),
                            ax)
        assert a.ndim == 1 or a.size == 0 or not t._data.c_contiguous
    elif how == "step":
        base = np.zeros(a.shape[:-1] + (2 * a.shape[-1] + 1,), a.dtype)
        base[..., 1::2] = a
        t = tf.asarray(base).to("webgpu")[..., 1::2]
    else:
        t = tf.asarray(np.ascontiguousarray(a[::-1])).to("webgpu")[::-1]
        assert a.shape[0] < 2 or t._data.estrides[0] < 0
    assert t.device == DEV and t.shape == a.shape
    return t



def same(t, expected):
    """``t`` (on the device) equals ``expected`` exactly: dtype, shape and bits."""
    got, expected = host(t), np.asarray(expected)
    assert got.dtype == expected.dtype and got.shape == expected.shape, (
        got.dtype, got.shape, expected.dtype, expected.shape)
    if got.dtype == F32:
        got, expected = got.view(np.uint32), expected.view(np.uint32)
    np.testing.assert_array_equal(got, expected)


def close(t, expected, rtol=1e-5, atol=1e-5):
    got, expected = host(t), np.asarray(expected)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    if got.dtype == F32:
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, expected)


def indices(n, shape, seed=0):
    """Random in-range int64 indices, negative ones included, with duplicates."""
    if n == 0:
        return np.zeros(shape, np.int64)
    return np.random.default_rng(seed).integers(-n, n, shape).astype(np.int64)


# -- take ---------------------------------------------------------------------------------

@pytest.mark.parametrize("xlay", LAYOUTS)
@pytest.mark.parametrize("shape", [(7,), (4, 6), (3, 4, 5)], ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_take(dtype, shape, xlay):
    a = sample(shape, dtype, seed=len(shape))
    x = on_gpu(a, xlay)
    for axis in range(len(shape)):
        n = shape[axis]
        for ishape, ilay in [((5,), "c"), ((5,), "neg"), ((2, 3), "T"), ((3, 2), "step"),
                             ((0,), "c"), ((1,), "c")]:
            idx = indices(n, ishape, seed=axis)
            same(tf.take(x, on_gpu(idx, ilay), axis=axis), np.take(a, idx, axis=axis))
    idx = indices(a.size, (4, 2))
    same(tf.take(x, on_gpu(idx), axis=None), np.take(a, idx))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_take_broadcast_index_and_host_index(dtype):
    a = sample((5, 3), dtype)
    idx = indices(5, (1, 4))
    bi = tf.broadcast_to(on_gpu(idx), (3, 4))          # stride 0 in the index
    same(tf.take(on_gpu(a), bi, axis=0), np.take(a, np.broadcast_to(idx, (3, 4)), axis=0))
    same(tf.take(on_gpu(a), [4, -5, 0], axis=0), np.take(a, [4, -5, 0], axis=0))


def test_take_large():
    a = sample((1000, 3), F32)
    idx = indices(1000, (300_000,), seed=3)
    same(tf.take(on_gpu(a), on_gpu(idx), axis=0), np.take(a, idx, axis=0))


# -- take_along_axis ------------------------------------------------------------------------

@pytest.mark.parametrize("xlay", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_take_along_axis(dtype, xlay):
    for shape in [(6,), (4, 5), (3, 4, 5)]:
        a = sample(shape, dtype, seed=len(shape))
        x = on_gpu(a, xlay)
        for axis in range(len(shape)):
            n = shape[axis]
            for m, ilay in [(3, "c"), (7, "T"), (2, "neg"), (4, "step"), (0, "c")]:
                ishape = shape[:axis] + (m,) + shape[axis + 1:]
                idx = indices(n, ishape, seed=m)
                same(tf.take_along_axis(x, on_gpu(idx, ilay), axis=axis),
                     np.take_along_axis(a, idx, axis=axis))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_take_along_axis_broadcasts_and_argsort(dtype):
    a = sample((4, 6), dtype)
    idx = indices(6, (1, 3))                               # broadcast over axis 0
    same(tf.take_along_axis(on_gpu(a), on_gpu(idx), axis=1),
         np.take_along_axis(a, np.broadcast_to(idx, (4, 3)), axis=1))
    order = np.argsort(a, axis=0, kind="stable")
    same(tf.take_along_axis(on_gpu(a, "T"), on_gpu(order), axis=0),
         np.take_along_axis(a, order, axis=0))


# -- scatter_add / scatter_add_along_axis ---------------------------------------------------

def _add_at(shape, dtype, idx, values, axis, along=False):
    ref = np.zeros(shape, dtype)
    if along:
        key = list(np.indices(idx.shape, sparse=True))
        key[axis] = idx
        key = tuple(key)
    else:
        key = (slice(None),) * axis + (idx,)
    with np.errstate(invalid="ignore"):   # inf + -inf: NaN, as on the device
        np.add.at(ref, key, values)
    return ref


@pytest.mark.parametrize("vlay", LAYOUTS)
@pytest.mark.parametrize("shape,axis", [((6,), 0), ((4, 5), 0), ((4, 5), 1),
                                        ((2, 3, 4), 1), ((2, 3, 4), 2)], ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_scatter_add(dtype, shape, axis, vlay):
    n = shape[axis]
    for ishape, ilay in [((9,), "c"), ((3, 4), "T"), ((5,), "neg"), ((0,), "c")]:
        idx = indices(n, ishape, seed=len(ishape))       # 9 > n: duplicates
        vals = sample(shape[:axis] + ishape + shape[axis + 1:], dtype, seed=3)
        got = tf.scatter_add(shape, on_gpu(idx, ilay), on_gpu(vals, vlay), axis)
        close(got, _add_at(shape, dtype, idx, vals, axis))


@pytest.mark.parametrize("vlay", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_scatter_add_along_axis(dtype, vlay):
    for shape in [(6,), (4, 5), (3, 4, 5)]:
        for axis in range(len(shape)):
            for m, ilay in [(8, "c"), (2, "T"), (3, "neg"), (0, "c")]:
                ishape = shape[:axis] + (m,) + shape[axis + 1:]
                idx = indices(shape[axis], ishape, seed=m)
                vals = sample(ishape, dtype, seed=m + 1)
                got = tf.scatter_add_along_axis(shape, on_gpu(idx, ilay), on_gpu(vals, vlay),
                                                axis)
                close(got, _add_at(shape, dtype, idx, vals, axis, along=True))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_scatter_add_broadcast_values(dtype):
    vals = sample((1, 3), dtype)
    idx = np.array([1, 1, 0, 1], np.int64)
    want = np.broadcast_to(vals, (4, 3))
    close(tf.scatter_add((2, 3), on_gpu(idx), on_gpu(vals), 0),
          _add_at((2, 3), dtype, idx, want, 0))


def test_scatter_add_wraps_and_carries_exactly():
    idx = np.array([0, 0, 0, 1, 1, 2, 2, 2, 2], np.int64)
    v32 = np.array([I32_MAX, 1, 5, I32_MIN, -1, -7, 3, I32_MAX, I32_MAX], np.int32)
    same(tf.scatter_add((3,), on_gpu(idx), on_gpu(v32), 0), _add_at((3,), I32, idx, v32, 0))
    # low words that wrap (carries into the high word), negatives, INT64 extremes
    v64 = np.array([2**32 - 1, 1, 2**32 - 1, I64_MAX, 1, -1, -2**32, 2**31, 2**31 + 7],
                   np.int64)
    ref = _add_at((3,), I64, idx, v64, 0)
    assert ref[1] == I64_MIN                      # wrapped mod 2^64 as NumPy
    same(tf.scatter_add((3,), on_gpu(idx), on_gpu(v64), 0), ref)
    big = np.full(5000, 2**32 - 3, np.int64)      # 5000 racing carries into one element
    same(tf.scatter_add((1,), on_gpu(np.zeros(5000, np.int64)), on_gpu(big), 0),
         np.array([5000 * (2**32 - 3)], np.int64))


def test_scatter_add_float_edge_values():
    idx = np.array([0, 0, 1, 1, 2, 2, 3, 4], np.int64)
    v = np.array([np.inf, -np.inf, np.nan, 1.0, -0.0, -0.0, np.inf, 1e-45], np.float32)
    got = host(tf.scatter_add((6,), on_gpu(idx), on_gpu(v), 0))
    ref = _add_at((6,), F32, idx, v, 0)
    np.testing.assert_array_equal(got.view(np.uint32), ref.view(np.uint32))  # +0.0 slots


def test_scatter_add_bool_is_logical_or():
    idx = np.array([0, 0, 1, 1, 2], np.int64)
    v = np.array([True, True, False, False, True])
    same(tf.scatter_add((4,), on_gpu(idx), on_gpu(v), 0), _add_at((4,), BOOL, idx, v, 0))


@pytest.mark.parametrize("dtype", [F32, I32], ids=str)
def test_scatter_add_heavy_contention(dtype):
    """70000 adds race for one element (more than llvmpipe's 65535 trips a loop): the
    compare-exchange loop still lands every one (integers exact in float32)."""
    n = 70_000
    idx = np.zeros(n, np.int64)
    idx[::7] = 1
    got = host(tf.scatter_add((2,), on_gpu(idx), on_gpu(np.ones(n, dtype)), 0))
    np.testing.assert_array_equal(got, np.bincount(idx).astype(dtype))


# -- getitem / setitem through the public API ------------------------------------------------

@pytest.mark.parametrize("xlay", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_getitem_advanced(dtype, xlay):
    a = sample((4, 5, 3), dtype)
    x = on_gpu(a, xlay)
    i, j = np.array([0, -1, 2, 2]), np.array([[3], [-4]])
    for key in [(i,), (slice(None), i), (i, slice(1, None), 0), (j, i), (slice(None), j, i),
                (i, slice(None), i[::-1]), (np.array([], np.int64),), ([[1, 1], [3, 0]],),
                (Ellipsis, [2, 0])]:
        tkey = tuple(on_gpu(k) if isinstance(k, np.ndarray) and k.size else k for k in key)
        same(x[tkey], a[key])


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_getitem_masks(dtype):
    a = sample((4, 6), dtype)
    for xlay in LAYOUTS:
        x = on_gpu(a, xlay)
        mask = a > 0 if dtype != BOOL else a
        same(x[(x > 0) if dtype != BOOL else x], a[mask])
        m1 = np.array([True, False, True, True])
        same(x[on_gpu(m1)], a[m1])
        same(x[:, on_gpu(np.zeros(6, bool))], a[:, np.zeros(6, bool)])
        same(x[on_gpu(np.ones((4, 6), bool), "T")], a[np.ones((4, 6), bool)])


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_out_of_bounds_and_negative_indices(dtype):
    a = sample((3, 4), dtype)
    x = on_gpu(a)
    same(x[on_gpu(np.array([-3, -1, 0]))], a[[-3, -1, 0]])
    for fn, msg in [(lambda: x[on_gpu(np.array([0, 3]))], "getitem: index 3 is out of bounds "
                     "for axis 0 with size 3"),
                    (lambda: x[:, on_gpu(np.array([-5]))], "getitem: index -5 is out of "
                     "bounds for axis 1 with size 4"),
                    (lambda: tf.take(x, on_gpu(np.array([4])), axis=1), "take: index 4 is "
                     "out of bounds for axis 1 with size 4"),
                    (lambda: tf.take_along_axis(x, on_gpu(np.full((3, 1), -4)), axis=0),
                     "take_along_axis: index -4 is out of bounds for axis 0 with size 3"),
                    (lambda: tf.scatter_add((3,), on_gpu(np.array([3])), x[0, :1], 0),
                     "scatter_add: index 3 is out of bounds for axis 0 with size 3")]:
        with pytest.raises(IndexError, match="^tenferro.%s$" % msg):
            fn()


@pytest.mark.parametrize("xlay", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_setitem(dtype, xlay):
    a = sample((4, 5), dtype)
    v = sample((4, 5), dtype, seed=9)
    for key, val in [((np.array([0, 2, 0, -1]),), v[:4]),      # duplicates: the last wins
                     ((np.array([1, 1]), np.array([4, 4])), v[0, :2]),
                     ((slice(None), np.array([3, 0, 3])), v[0, 0]),   # a broadcast scalar
                     ((a > 0 if dtype != BOOL else a,), v[0, 0]),
                     ((np.array([], np.int64),), v[0])]:
        x = on_gpu(a, xlay)
        ref = a.copy()
        ref[key] = val
        tkey = tuple(on_gpu(k) if isinstance(k, np.ndarray) and k.size else k for k in key)
        x[tkey] = on_gpu(val)
        same(x, ref)
    x = on_gpu(a, xlay)          # values read from the destination itself
    ref = a.copy()
    ref[[3, 0]] = ref[0:2]
    x[on_gpu(np.array([3, 0]))] = x[0:2]
    same(x, ref)
    x = on_gpu(a, xlay)          # x[mask] = per-element values
    m = np.arange(20).reshape(4, 5) % 3 == 0
    ref = a.copy()
    ref[m] = v[m]
    x[on_gpu(m)] = on_gpu(v[m])
    same(x, ref)


def test_setitem_through_a_view_writes_the_base():
    a = sample((3, 4), I64)
    base = on_gpu(a)
    view = base.mT                       # a strided destination
    view[[1, 3], [0, 2]] = on_gpu(np.array([I64_MIN, 2**40], np.int64))
    ref = a.copy()
    ref.T[[1, 3], [0, 2]] = [I64_MIN, 2**40]
    same(base, ref)


# -- gradients: scatter-adds on the device vs CPU float32 and np.add.at ---------------------

def _grads(fn, *arrays):
    out = {}
    for dev in ("cpu", "webgpu"):
        ts = [tf.asarray(a).to(dev).requires_grad_() for a in arrays]
        tf.sum(fn(*ts)).backward()
        out[dev] = [t.grad for t in ts]
    return out


def test_getitem_gradient():
    x0, w0 = sample((6, 4), F32, seed=1), sample((5, 4), F32, seed=2)
    x0[~np.isfinite(x0)] = 1.0
    w0[~np.isfinite(w0)] = 2.0
    idx = np.array([0, 3, 3, -1, 0])
    g = _grads(lambda x, w: x[on_like(idx, x)] * w, x0, w0)
    ref = np.zeros_like(x0)
    np.add.at(ref, idx, w0)
    close(g["webgpu"][0], ref, rtol=1e-6, atol=1e-6)
    close(g["webgpu"][0], g["cpu"][0].numpy(), rtol=1e-6, atol=1e-6)
    close(g["webgpu"][1], x0[idx])


def on_like(a, t):
    return tf.asarray(a).to(t.device)


def test_two_index_and_mask_gradients():
    x0 = sample((5, 6), F32, seed=4)
    x0[~np.isfinite(x0)] = -1.5
    i, j = np.array([1, 1, 4, 0]), np.array([5, 5, -6, 2])
    g = _grads(lambda x: x[on_like(i, x), on_like(j, x)] ** 2, x0)
    ref = np.zeros_like(x0)
    np.add.at(ref, (i, j), 2 * x0[i, j])
    close(g["webgpu"][0], ref, rtol=1e-6, atol=1e-6)
    close(g["webgpu"][0], g["cpu"][0].numpy(), rtol=1e-6, atol=1e-6)
    g = _grads(lambda x: x[x > 0] * 3.0, x0)
    close(g["webgpu"][0], np.where(x0 > 0, 3.0, 0.0).astype(F32))


def test_take_along_axis_gradient():
    x0 = sample((4, 5), F32, seed=5)
    x0[~np.isfinite(x0)] = 0.5
    idx = indices(5, (4, 7), seed=6)
    w0 = np.arange(28, dtype=F32).reshape(4, 7)
    g = _grads(lambda x: tf.take_along_axis(x, on_like(idx, x), axis=1) * on_like(w0, x),
               x0)
    close(g["webgpu"][0], _add_at((4, 5), F32, idx, w0, 1, along=True))
    close(g["webgpu"][0], g["cpu"][0].numpy())
    v0 = sample((4, 7), F32, seed=7)   # scatter_add's own gradient is a gather
    v0[~np.isfinite(v0)] = 0.0
    g = _grads(lambda v: tf.scatter_add_along_axis((4, 5), on_like(idx, v), v, 1)
               * on_like(x0, v), v0)
    same(g["webgpu"][0], np.take_along_axis(x0, idx, axis=1))


# -- nonzero ---------------------------------------------------------------------------------

@pytest.mark.parametrize("xlay", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_nonzero(dtype, xlay):
    for shape in [(9,), (4, 5), (2, 3, 4), (0, 3), (3, 0)]:
        a = sample(shape, dtype, seed=sum(shape))
        if dtype != BOOL and a.size:
            a.flat[::3] = 0                       # -0.0 is zero, NaN is not
        x = on_gpu(a, xlay)
        got = tf.nonzero(x)
        want = np.nonzero(a)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w.astype(np.int64))
        same(tf.argwhere(x), np.argwhere(a).astype(np.int64))
        same(tf.flatnonzero(x), np.flatnonzero(a).astype(np.int64))
    same(tf.nonzero(on_gpu(np.zeros((2, 2), dtype)))[1], np.zeros(0, np.int64))


def test_nonzero_matches_the_cpu_driver_and_rejects_0d():
    a = np.array([[0.0, -0.0, np.nan], [1e-45, 0.0, -np.inf]], np.float32)
    got = tf.argwhere(on_gpu(a))
    want = tf.argwhere(tf.asarray(a))
    same(got, want.numpy())
    with pytest.raises(ValueError, match="nonzero: 0-d tensors are not supported"):
        tf.nonzero(on_gpu(np.float32(1)))


# -- bad input at the driver level --------------------------------------------------------------

def test_driver_errors_name_op_dtypes_and_device():
    x = on_gpu(sample((3, 4), F32))._data
    i32 = on_gpu(np.array([0, 1], np.int32))._data
    with pytest.raises(TypeError, match=r"^tenferro\.take \(webgpu\): indices must be an "
                       r"int64 array on webgpu:0, got int32 on webgpu:0$"):
        W.impl["take"](x, i32, axis=0)
    i64 = on_gpu(np.array([0, 1]))._data
    with pytest.raises(ValueError, match=r"^tenferro\.scatter_add \(webgpu\): values of shape "
                       r"\(3, 4\), expected \(3, 2\) \(indices of shape \(2,\) into shape "
                       r"\(3, 5\) along axis 1\)$"):
        W.impl["scatter_add"](x, i64, axis=1, shape=(3, 5))
    deep = on_gpu(np.zeros((1,) * 6, np.int64))._data
    with pytest.raises(ValueError, match=r"^tenferro\.take \(webgpu\): at most 8 dimensions, "
                       r"got 9"):
        W.impl["take"](on_gpu(np.zeros((2, 2, 2, 2), F32))._data, deep, axis=0)
    with pytest.raises(ValueError, match=r"^tenferro\.take_along_axis \(webgpu\): at most 8 "
                       r"dimensions, got 9"):
        W.impl["take_along_axis"](on_gpu(np.zeros((2,) * 9, F32))._data,
                                  on_gpu(np.zeros((2,) * 9, np.int64))._data, axis=3)
    with pytest.raises(ValueError, match=r"^tenferro\.put \(webgpu\): expected int32/int64 "
                       r"positions and values of dtype float32"):
        W.impl["put"](x, x, x)
    assert all(_drv.supports(op, d) for op in ("take", "take_along_axis", "scatter_add",
                                                "scatter_add_along_axis", "nonzero")
               for d in DTYPES)
