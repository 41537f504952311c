"""tenferro._kernels._index against np.take / take_along_axis / add.at / nonzero."""
import numpy as np
import pytest

from conftest import sample

from tenferro._kernels import _index as K

DTYPES = [np.bool_, np.int32, np.int64, np.float32, np.float64, np.complex64, np.complex128]
IDS = lambda d: np.dtype(d).name  # noqa: E731


rand = sample


def strided(x, how):
    """Same values as x, other memory layout."""
    if how == "C" or x.ndim == 0:
        return x
    if how == "F":
        return np.asfortranarray(x)
    if how == "neg":
        return np.flip(np.flip(x).copy())
    if how == "slice":
        big = np.zeros(tuple(2 * n for n in x.shape), x.dtype)
        v = big[tuple(slice(None, None, 2) for _ in x.shape)]
        v[...] = x
        return v
    raise ValueError(how)


def check(out, ref, dt):
    if np.issubdtype(dt, np.inexact):
        tol = 1e-5 if dt in (np.float32, np.complex64) else 1e-12
        np.testing.assert_allclose(out, ref, rtol=tol, atol=tol)
    else:
        np.testing.assert_array_equal(out, ref)


# (x shape, axis, idx shape)
TAKE_CASES = [((5,), 0, (7,)), ((5,), 0, ()), ((4, 6, 3), 1, (2, 5)), ((4, 6, 3), 2, ()),
              ((4, 6, 3), 0, (0,)), ((3, 0, 2), 0, (4,)), ((1, 1, 5), 2, (3, 1)),
              ((60, 700), 1, (900,)), ((600, 70), 0, (500,))]
LAYOUTS = [("C", "C", "C"), ("F", "neg", "C"), ("neg", "slice", "F"), ("slice", "C", "neg")]


@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
@pytest.mark.parametrize("case", TAKE_CASES, ids=str)
def test_take_and_scatter_add(dt, case):
    xs, axis, ish = case
    rng = np.random.default_rng(len(xs) * 100 + axis)
    x0 = rand(rng, xs, dt)
    n = xs[axis]
    idx0 = rng.integers(0, max(n, 1), ish) if n else np.zeros(ish, np.int64)
    if n == 0 and idx0.size:
        return
    oshape = xs[:axis] + ish + xs[axis + 1:]
    ref = np.take(x0, idx0, axis)
    v0 = rand(rng, oshape, dt)
    base = rand(rng, xs, dt)
    ref_s = base.copy()
    np.add.at(ref_s, (slice(None),) * axis + (idx0,), v0)
    for lx, li, lo in LAYOUTS:
        x, idx = strided(x0, lx), strided(idx0, li)
        for nt in (1, 2):
            out = strided(np.zeros(oshape, dt), lo)
            K.take(x, idx, axis, out, nt)
            check(out, ref, dt)
            tgt = strided(base.copy(), lo)
            K.scatter_add(tgt, idx, axis, strided(v0, lx), nt)
            check(tgt, ref_s, dt)


ALONG_CASES = [((5,), 0, 7), ((4, 6, 3), 1, 5), ((4, 6, 3), 2, 1), ((4, 6, 3), 0, 0),
               ((300, 200), 1, 150), ((300, 200), 0, 400)]


@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
@pytest.mark.parametrize("case", ALONG_CASES, ids=str)
def test_take_along_axis_and_adjoint(dt, case):
    xs, axis, m = case
    rng = np.random.default_rng(m)
    x0 = rand(rng, xs, dt)
    ish = list(xs)
    ish[axis] = m
    ish = tuple(ish)
    idx0 = rng.integers(0, xs[axis], ish)
    ref = np.take_along_axis(x0, idx0, axis)
    v0 = rand(rng, ish, dt)
    base = rand(rng, xs, dt)
    ref_s = base.copy()
    sel = list(np.ix_(*[np.arange(k) for k in ish]))
    sel[axis] = idx0
    np.add.at(ref_s, tuple(sel), v0)
    for lx, li, lo in LAYOUTS:
        for nt in (1, 2):
            out = strided(np.zeros(ish, dt), lo)
            K.take_along_axis(strided(x0, lx), strided(idx0, li), axis, out, nt)
            check(out, ref, dt)
            tgt = strided(base.copy(), lo)
            K.scatter_add_along_axis(tgt, strided(idx0, li), axis, strided(v0, lx), nt)
            check(tgt, ref_s, dt)


def test_take_along_axis_broadcast_idx():
    x = np.arange(12.0).reshape(3, 4)
    idx = np.broadcast_to(np.array([[3, 0]]), (3, 2))
    out = np.empty((3, 2))
    K.take_along_axis(x, idx, 1, out, 1)
    np.testing.assert_array_equal(out, np.take_along_axis(x, idx, 1))


@pytest.mark.parametrize("dt", [np.int32, np.int64, np.float64, np.bool_], ids=IDS)
def test_scatter_add_duplicates_threads(dt):
    """Heavy duplicates: 1 and 2 threads give identical sums (ints exact, with wrap)."""
    rng = np.random.default_rng(7)
    idx = rng.integers(0, 5, 20000)
    if np.issubdtype(dt, np.integer):
        info = np.iinfo(dt)
        v = rng.integers(info.min, info.max, (3, 20000), dtype=dt)
    else:
        v = rand(rng, (3, 20000), dt)
    res = []
    for nt in (1, 2):
        out = np.zeros((3, 5), dt)
        K.scatter_add(out, idx, 1, v, nt)
        res.append(out)
    ref = np.zeros((3, 5), dt)
    np.add.at(ref, (slice(None), idx), v)
    if dt is np.float64:
        check(res[0], ref, dt)
        check(res[1], ref, dt)
    else:
        np.testing.assert_array_equal(res[0], res[1])
        np.testing.assert_array_equal(res[0], ref)


@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
@pytest.mark.parametrize("shape", [(), (0,), (7,), (3, 4), (30, 40, 5), (2, 0, 3)], ids=str)
def test_nonzero_count(dt, shape):
    rng = np.random.default_rng(11)
    x0 = rand(rng, shape, dt)
    if x0.size and not np.issubdtype(dt, np.bool_):
        x0 = np.where(rng.random(shape) < 0.5, x0, 0).astype(dt)
    for lay in ("C", "F", "neg", "slice"):
        x = strided(x0, lay)
        for nt in (1, 2):
            assert K.count_nonzero(x, nt) == np.count_nonzero(x0)
        nz = K.nonzero(x)
        assert nz.dtype == np.int64 and nz.shape == (np.count_nonzero(x0), x0.ndim)
        if x0.ndim:
            np.testing.assert_array_equal(nz, np.stack(np.nonzero(x0), axis=1))


def test_nonzero_special_floats():
    x = np.array([0.0, -0.0, np.nan, 1e-300, np.inf])
    assert K.count_nonzero(x) == 3
    np.testing.assert_array_equal(K.nonzero(x)[:, 0], [2, 3, 4])
    c = np.array([0j, 1j, -0.0 + 0j, 2 + 0j])
    assert K.count_nonzero(c) == 2


def test_check_and_normalize_indices():
    i = np.array([[0, -3], [5, 2]])
    assert K.check_indices(i, 5) == 2
    assert K.check_indices(i, 6) == -1
    assert K.check_indices(i[:, ::-1], 5) == 3
    assert K.check_indices(np.array([-6]), 5) == 0
    assert K.check_indices(np.zeros((0,), np.int64), 0) == -1
    out = np.empty_like(i)
    K.normalize_indices(i, 6, out)
    np.testing.assert_array_equal(out, [[0, 3], [5, 2]])
    j = i.T.copy()
    K.normalize_indices(j, 6, j)          # in place
    np.testing.assert_array_equal(j, [[0, 5], [3, 2]])


def test_errors():
    x = np.ones(3, np.float16)
    with pytest.raises(TypeError, match="no loop for float16"):
        K.take(x, np.zeros(1, np.int64), 0, np.empty(1, np.float16), 1)
    with pytest.raises(TypeError, match="int64"):
        K.take(np.ones(3), np.zeros(1, np.int32), 0, np.empty(1), 1)
    with pytest.raises(ValueError, match=r"_index.take: out has shape \(1,\), expected \(2,\)"):
        K.take(np.ones(3), np.zeros(2, np.int64), 0, np.empty(1), 1)
