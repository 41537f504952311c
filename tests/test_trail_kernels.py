"""The vectorised max/min runs, the batched small-matrix products and the register-tiled
integer products (the kernels where tenferro trailed PyTorch, docs/performance.md)
against NumPy: NaN anywhere, signed zeros, infinities, every dtype, strides, sizes
around each vector / block width; and the same bits for 1 and 2 threads."""
import itertools

import numpy as np
import pytest

import tenferro as tf

RDTYPES = [np.bool_, np.int32, np.int64, np.float32, np.float64]
# around the vector widths (8, 16, 64 lanes; four vectors per step) and the small-run
# cut-off, plus a few long runs (several steps, a tail, pieces split across threads)
SIZES = list(range(1, 71)) + [127, 128, 129, 255, 256, 257, 1000, 4099, 70001]
FUNCS = {"max": (tf.max, np.max), "min": (tf.min, np.min)}


def _bits(a):
    a = np.ascontiguousarray(a)
    return a.view(np.uint8) if a.dtype.itemsize else a


def _same_bits_any_threads(fn):
    with tf.num_threads(1):
        one = np.asarray(fn())
    with tf.num_threads(2):
        two = np.asarray(fn())
    np.testing.assert_array_equal(_bits(one), _bits(two))
    return two


def _values(n, dt, rng):
    dt = np.dtype(dt)
    if dt == np.bool_:
        return rng.random(n) < 0.5
    if dt.kind == "i":
        info = np.iinfo(dt)
        return rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
    return (rng.standard_normal(n) * 100).astype(dt)


def _extreme(op, dt):
    """A value that beats every one of _values for op."""
    dt = np.dtype(dt)
    if dt == np.bool_:
        return op == "max"
    if dt.kind == "i":
        return np.iinfo(dt).max if op == "max" else np.iinfo(dt).min
    return 1e30 if op == "max" else -1e30


def _planted(x, value):
    """(position, copy of x with value there) at the first, a middle and the last place."""
    n = len(x)
    for pos in sorted({0, n // 3, n // 2, n - 1}):
        y = x.copy()
        y[pos] = value
        yield pos, y


@pytest.mark.parametrize("dt", RDTYPES)
@pytest.mark.parametrize("op", sorted(FUNCS))
def test_max_min_every_size(op, dt):
    rng = np.random.default_rng(1)
    tfn, npf = FUNCS[op]
    for n in SIZES:
        x = _values(n, dt, rng)
        got = _same_bits_any_threads(lambda: tfn(tf.asarray(x)))
        assert got == npf(x), (n, got, npf(x))
        for pos, y in _planted(x, _extreme(op, dt)):
            assert tfn(tf.asarray(y)).item() == npf(y), (n, pos)


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("op", sorted(FUNCS))
def test_nan_anywhere_wins(op, dt):
    rng = np.random.default_rng(2)
    tfn = FUNCS[op][0]
    for n in SIZES:
        for pos, y in _planted(_values(n, dt, rng), np.nan):
            assert np.isnan(_same_bits_any_threads(lambda: tfn(tf.asarray(y)))), (n, pos)
        assert np.isnan(tfn(tf.asarray(np.full(n, np.nan, dt)))), n


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("op", sorted(FUNCS))
def test_infinities_and_the_nan_false_alarm(op, dt):
    # +inf and -inf in the same lane of one step sum to NaN: the kernel's NaN flag
    # rises, the rescan finds no NaN, and the max / min stands
    tfn, npf = FUNCS[op]
    for n in (64, 65, 100, 129, 1000, 4099):
        x = np.linspace(-5, 5, n).astype(dt)
        x[0], x[n // 2] = np.inf, -np.inf
        for y in (x, x[::-1].copy(), np.full(n, np.inf, dt), np.full(n, -np.inf, dt)):
            got = _same_bits_any_threads(lambda: tfn(tf.asarray(y)))
            assert got == npf(y), (n, got, npf(y))
        z = x.copy()
        z[-1] = np.nan
        assert np.isnan(tfn(tf.asarray(z)))


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("op", sorted(FUNCS))
def test_signed_zeros(op, dt):
    tfn = FUNCS[op][0]
    for n in SIZES[:80:7] + [1000, 4099]:
        for z in (0.0, -0.0):
            got = _same_bits_any_threads(lambda: tfn(tf.asarray(np.full(n, z, dt))))
            assert got == 0 and np.signbit(got) == np.signbit(z), (n, z)
        # mixed zeros: one of the zeros (which one depends on the lane layout, as in
        # NumPy), the same bits for any thread count
        y = np.where(np.arange(n) % 3 == 0, -0.0, 0.0).astype(dt)
        assert _same_bits_any_threads(lambda: tfn(tf.asarray(y))) == 0


@pytest.mark.parametrize("dt", RDTYPES)
@pytest.mark.parametrize("op", sorted(FUNCS))
def test_axes_and_strides(op, dt):
    rng = np.random.default_rng(3)
    tfn, npf = FUNCS[op]
    base = _values(90 * 70, dt, rng).reshape(90, 70)
    if np.dtype(dt).kind == "f":
        base[17, 33] = np.nan
    views = {
        "c": base, "t": base.T, "neg": base[::-1, ::-2], "step": base[::3, 1::2],
        "cols": base[:, 5:69], "3d": base.reshape(9, 10, 70).transpose(1, 2, 0)}
    for name, v in views.items():
        for axis in [None] + list(range(v.ndim)) + ([(0, 2)] if v.ndim == 3 else []):
            got = _same_bits_any_threads(lambda: tfn(tf.asarray(v), axis=axis))
            np.testing.assert_array_equal(got, npf(v, axis=axis), err_msg="%s %s" % (name, axis))


def test_large_runs_split_across_threads():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((1000, 1000))
    for op, (tfn, npf) in FUNCS.items():
        for axis in (None, 0, 1):
            got = _same_bits_any_threads(lambda: tfn(tf.asarray(x), axis=axis))
            np.testing.assert_array_equal(got, npf(x, axis=axis))
        y = x.copy()
        y[999, 998] = np.nan
        assert np.isnan(_same_bits_any_threads(lambda: tfn(tf.asarray(y))))
        assert np.isnan(_same_bits_any_threads(lambda: tfn(tf.asarray(y), axis=1))[999])


def test_complex_max_unchanged():
    x = np.array([1 + 2j, 1 + 3j, 0.5 + 9j] * 30)
    assert tf.max(tf.asarray(x)).item() == np.max(x)
    assert tf.min(tf.asarray(x)).item() == np.min(x)


@pytest.mark.parametrize("op", sorted(FUNCS))
def test_empty_reduction_still_errors(op):
    tfn = FUNCS[op][0]
    x = tf.asarray(np.zeros((0, 3)))
    with pytest.raises(ValueError, match="no identity"):
        tfn(x)
    with pytest.raises(ValueError, match="no identity"):
        tfn(x, axis=0)
    assert tfn(x, axis=1).shape == (0,)


# ---------------------------------------------------------------- matmul

MDTYPES = [np.float32, np.float64, np.complex64, np.complex128, np.int32, np.int64]


def _mat(shape, dt, rng, big=False):
    dt = np.dtype(dt)
    if dt.kind == "i":
        info = np.iinfo(dt)
        if big:  # products and sums wrap around
            return rng.integers(info.min, info.max, shape, dtype=dt, endpoint=True)
        return rng.integers(-50, 50, shape).astype(dt)
    x = rng.standard_normal(shape)
    if dt.kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dt)


def _check_matmul(a, b, dt):
    want = np.matmul(a, b)
    got = _same_bits_any_threads(lambda: tf.asarray(a) @ tf.asarray(b))
    if np.dtype(dt).kind == "i":
        np.testing.assert_array_equal(got, want)
    else:
        tol = 1e-5 if np.dtype(dt) in (np.float32, np.complex64) else 1e-12
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol * 10)


@pytest.mark.parametrize("dt", MDTYPES)
def test_batched_small_products_every_shape(dt):
    rng = np.random.default_rng(5)
    for m, n, k in itertools.product(range(1, 7), repeat=3):
        a = _mat((300, m, k), dt, rng)
        b = _mat((300, k, n), dt, rng)
        _check_matmul(a, b, dt)


@pytest.mark.parametrize("dt", MDTYPES)
def test_batched_small_products_strides_and_broadcasting(dt):
    rng = np.random.default_rng(6)
    for s in (2, 3, 4, 5):
        a = _mat((40, 3, s, s), dt, rng)
        b = _mat((40, 3, s, s), dt, rng)
        cases = [
            (a, b),
            (a.transpose(0, 1, 3, 2), b),                       # A column-major
            (a, b.transpose(0, 1, 3, 2)),                       # B column-major
            (a[::-1, :, ::-1], b[:, ::-1]),                     # negative strides
            (a[::2, ::2], b[1::2, ::2]),                        # gaps between items
            (a[:, :1], b),                                      # broadcast batch
            (a[:1, :1], b),
            (np.asfortranarray(a), b),
        ]
        for x, y in cases:
            _check_matmul(x, y, dt)
        # above the batched-matmul grain: the batch is shared by two threads
        _check_matmul(_mat((3000, s, s), dt, rng), _mat((3000, s, s), dt, rng), dt)
        wide = np.zeros((40, 3, s, 2 * s), dt)
        wide[..., ::2] = a
        _check_matmul(wide[..., ::2], b, dt)                    # A's rows at stride 2


@pytest.mark.parametrize("dt", [np.int32, np.int64])
def test_integer_products_wrap_around(dt):
    rng = np.random.default_rng(7)
    for s in (2, 3, 4, 5):
        _check_matmul(_mat((500, s, s), dt, rng, big=True), _mat((500, s, s), dt, rng, big=True), dt)
    for m, k, n in [(1, 1, 1), (7, 9, 8), (64, 65, 63), (257, 255, 256)]:
        _check_matmul(_mat((m, k), dt, rng, big=True), _mat((k, n), dt, rng, big=True), dt)


@pytest.mark.parametrize("dt", [np.int32, np.int64])
def test_integer_products_around_the_tiles(dt):
    # the register tiles are 6 rows x 2 vectors (16 int64 / 32 int32 columns; 1-5 rows
    # left over), the cache blocks 128 (k) x 256 (j): sizes on both sides of each
    rng = np.random.default_rng(8)
    sizes = (1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129,
             255, 256, 257)
    for m in (1, 2, 3, 4, 5, 6, 7, 11, 12, 13, 64, 129, 257):
        for n in sizes:
            k = sizes[(m + n) % len(sizes)]
            _check_matmul(_mat((m, k), dt, rng), _mat((k, n), dt, rng), dt)
    a = _mat((256, 256), dt, rng)
    b = _mat((256, 256), dt, rng)
    for x, y in [(a, b), (a.T, b), (a, b.T), (a[::-1], b[:, ::-1]), (a[::2], b[:, 1::3]),
                 (a[:, :200], b[:200])]:
        _check_matmul(x, y, dt)
    _check_matmul(_mat((3, 70, 90), dt, rng), _mat((3, 90, 40), dt, rng), dt)


def test_batched_small_products_via_einsum():
    # 2000 items: above the batched-matmul grain, so two threads share the batch
    rng = np.random.default_rng(9)
    a = rng.standard_normal((2000, 4, 4))
    b = rng.standard_normal((2000, 4, 4))
    got = _same_bits_any_threads(lambda: tf.einsum("bij,bjk->bik", tf.asarray(a), tf.asarray(b)))
    np.testing.assert_allclose(got, np.einsum("bij,bjk->bik", a, b), rtol=1e-12, atol=1e-12)
