"""Shared helpers of tenferro's public-API tests: data per dtype and domain, a per-dtype
tolerance table, and a generator of memory layouts holding the same logical values."""
import zlib

import numpy as np
import pytest

import tenferro as tf

DTYPES = [np.dtype(d) for d in ("bool", "int32", "int64", "float32", "float64",
                                "complex64", "complex128")]
INT = [np.dtype("int32"), np.dtype("int64")]
FLOAT = [np.dtype("float32"), np.dtype("float64")]
COMPLEX = [np.dtype("complex64"), np.dtype("complex128")]
INEXACT = FLOAT + COMPLEX
NUMERIC = INT + INEXACT
INTEGRAL = [np.dtype("bool")] + INT

# relative tolerance per (result) dtype: a few ulp for elementwise math
RTOL = {np.dtype("float32"): 4e-6, np.dtype("float64"): 1e-14,
        np.dtype("complex64"): 4e-6, np.dtype("complex128"): 1e-14}
ATOL = {np.dtype("float32"): 1e-6, np.dtype("float64"): 1e-15,
        np.dtype("complex64"): 1e-6, np.dtype("complex128"): 1e-15}


def rng(seed=0):
    return np.random.default_rng(seed)


def stable_rng(*key):
    """A generator seeded from ``key`` the same way in every run (``hash`` of a string
    changes between processes, so it would make a test's data differ from run to run)."""
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def sample(gen, shape, dtype):
    """Values of ``dtype`` from an existing Generator: ints in [-50, 50), bools, normals."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return np.asarray(gen.random(shape) < 0.4)
    if dtype.kind in "iu":
        return np.asarray(gen.integers(-50, 50, shape).astype(dtype))
    x = gen.standard_normal(shape)
    if dtype.kind == "c":
        x = x + 1j * gen.standard_normal(shape)
    return np.asarray(x.astype(dtype))


def random_array(shape, dtype, domain="any", seed=0):
    """NumPy data of ``dtype`` and ``shape`` drawn from ``domain``.

    domains: any (real in [-3, 3]), pos ((0.1, 3]), unit ((-0.95, 0.95)), ge1 ([1.05, 4]),
    small ([-1, 1]), nonzero (|x| >= 0.5), shift ([0, 8) integers).
    """
    dtype = np.dtype(dtype)
    r = rng(seed)
    if dtype.kind == "b":
        return r.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        lo, hi = {"pos": (1, 10), "nonzero": (1, 10), "shift": (0, 8), "ge1": (1, 10),
                  "unit": (0, 1), "small": (-1, 2)}.get(domain, (-20, 20))
        a = r.integers(lo, hi, shape).astype(dtype)
        if domain == "nonzero":
            a = a * np.where(r.integers(0, 2, shape), 1, -1).astype(dtype)
        return a

    def real():
        if domain == "pos":
            return r.uniform(0.1, 3, shape)
        if domain == "unit":
            return r.uniform(-0.95, 0.95, shape)
        if domain == "ge1":
            return r.uniform(1.05, 4, shape)
        if domain == "small":
            return r.uniform(-1, 1, shape)
        if domain == "nonzero":
            return r.uniform(0.5, 3, shape) * np.where(r.integers(0, 2, shape), 1, -1)
        return r.uniform(-3, 3, shape)
    if dtype.kind == "c":
        a = real() + 1j * (real() if domain not in ("pos", "ge1") else r.uniform(-1, 1, shape))
    else:
        a = real()
    return np.asarray(a).astype(dtype)


def assert_close(t, expected, dtype=None, rtol=None, atol=None, check_dtype=True):
    """``t`` (a Tensor) equals NumPy's ``expected`` in dtype, shape and values.

    Integer and bool results must be exact; inexact ones within the per-dtype table
    (or ``rtol``/``atol``).  NaNs must be in the same places; infinities and signs
    of zero are checked through ``assert_allclose``'s exact handling of non-finites.
    """
    assert isinstance(t, tf.Tensor), type(t)
    expected = np.asarray(expected)
    got = np.asarray(t)
    if check_dtype:
        want = np.dtype(dtype) if dtype is not None else expected.dtype
        assert t.dtype == want, (t.dtype, want)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    d = got.dtype
    if d.kind in "biu" and expected.dtype.kind in "biu":
        np.testing.assert_array_equal(got, expected)
        return
    rt = RTOL.get(d, 1e-14) if rtol is None else rtol
    at = ATOL.get(d, 0) if atol is None else atol
    np.testing.assert_allclose(got, expected.astype(d) if expected.dtype.kind != "O" else expected,
                               rtol=rt, atol=at, equal_nan=True)


# -- layouts -----------------------------------------------------------------------

LAYOUTS = ["contiguous", "fortran", "transposed", "step2", "negstride", "broadcast"]


def make_layout(a, layout):
    """A Tensor with the logical values of ndarray ``a`` stored in ``layout``."""
    a = np.array(a)  # a private copy: the tensor never shares memory with the caller's
    if layout == "contiguous":
        t = tf.asarray(a)
    elif layout == "fortran":
        t = tf.asarray(np.asfortranarray(a))
    elif layout == "transposed":
        base = tf.asarray(np.ascontiguousarray(a.T))
        t = base.T
    elif layout == "step2":
        big = np.zeros(tuple(2 * n for n in a.shape), a.dtype)
        big[tuple(slice(None, None, 2) for _ in a.shape)] = a
        t = tf.asarray(big)[tuple(slice(None, None, 2) for _ in a.shape)]
    elif layout == "negstride":
        flipped = np.ascontiguousarray(a[tuple(slice(None, None, -1) for _ in a.shape)])
        t = tf.flip(tf.asarray(flipped)) if a.ndim else tf.asarray(flipped)
    elif layout == "broadcast":
        # zero strides: only possible when values are constant along an axis, so
        # broadcast the first row along axis 0 and return the matching values too
        if a.ndim == 0 or a.shape[0] == 0:
            t = tf.asarray(a.copy())
        else:
            t = tf.broadcast_to(tf.asarray(np.ascontiguousarray(a[:1])), a.shape)
    else:
        raise ValueError(layout)
    return t


def layout_values(a, layout):
    """The logical values ``make_layout(a, layout)`` holds (differs only for broadcast)."""
    a = np.asarray(a)
    if layout == "broadcast" and a.ndim and a.shape[0]:
        return np.broadcast_to(a[:1], a.shape).copy()
    return a


def layouts(a):
    """Yield (name, tensor, numpy values) for every layout of ``a``."""
    for name in LAYOUTS:
        yield name, make_layout(a, name), layout_values(a, name)


@pytest.fixture(params=LAYOUTS)
def layout(request):
    return request.param


# how a stack of matrices is laid out: C, F (transposed per matrix), strided (non-unit
# leading and inner strides), negative strides
MATRIX_LAYOUTS = ["C", "F", "slice", "neg"]


def matrix_layout(x, how):
    """The values of the stack of matrices ``x`` in memory layout ``how`` (a view)."""
    if how == "C":
        return x
    if how == "F":
        return np.swapaxes(np.swapaxes(x, -1, -2).copy(), -1, -2)
    if how == "slice":
        big = np.zeros(x.shape[:-2] + (x.shape[-2] * 2, x.shape[-1] * 3 + 1), x.dtype)
        v = big[..., ::2, 1::3]
        v[...] = x
        return v
    if how == "neg":
        return np.flip(np.flip(x, (-2, -1)).copy(), (-2, -1))
    raise ValueError(how)


def central_grad(f, a, h=1e-6):
    """The gradient of the real NumPy function ``f`` at ``a`` by central differences, in
    tenferro's (PyTorch's) convention for complex ``a``: d/dRe + i d/dIm."""
    a = np.asarray(a)
    units = (1, 1j) if a.dtype.kind == "c" else (1,)
    g = np.zeros_like(a)
    for idx in np.ndindex(*a.shape):
        for unit in units:
            e = np.zeros_like(a)
            e[idx] = unit * h
            g[idx] += unit * (f(a + e) - f(a - e)) / (2 * h)
    return g

