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


@pytest.mark.parametrize("dt", RDTYPES)
@pytest.mark.parametrize("op", sorted(FUNCS))
def test_max_min_every_size(op, dt):
    rng = np.random.default_rng(1)
    tfn, npf = FUNCS[op]
    for n in SIZES:
        x = _values(n, dt, rng)
        got = _same_bits_any_threads(lambda: tfn(tf.asarray(x)))
        assert got == npf(x), (n, got, npf(x))
        # the extreme at the first, the last and a middle position
        for pos in (0, n - 1, n // 2):
            y = x.copy()
            y[pos] = np.iinfo(dt).max if dt != np.bool_ and np.dtype(dt).kind == "i" else (
                True if dt == np.bool_ else 1e30)
            if op == "min" and dt != np.bool_:
                y[pos] = -y[pos] if np.dtype(dt).kind == "f" else np.iinfo(dt).min
            if op == "min" and dt == np.bool_:
                y[pos] = False
            assert tfn(tf.asarray(y)).item() == npf(y), (n, pos)


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("op", sorted(FUNCS))
def test_nan_anywhere_wins(op, dt):
    rng = np.random.default_rng(2)
    tfn, npf = FUNCS[op]
    for n in SIZES:
        x = _values(n, dt, rng)
        for pos in sorted({0, n // 3, n // 2, n - 1}):
            y = x.copy()
            y[pos] = np.nan
            got = _same_bits_any_threads(lambda: tfn(tf.asarray(y)))
            assert np.isnan(got), (n, pos)
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
