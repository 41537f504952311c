"""tenferro._kernels._matmul.matmul and tenferro._blas against NumPy."""
import numpy as np
import pytest

from conftest import matrix_layout, sample

from tenferro._kernels import _matmul
from tenferro.devices.cpu import blas as _blas  # noqa: E402

DTYPES = [np.bool_, np.int32, np.int64, np.float32, np.float64, np.complex64, np.complex128]
RTOL = {np.float32: 1e-5, np.complex64: 1e-5, np.float64: 1e-12, np.complex128: 1e-12}


rand = sample


def check(out, ref, dt):
    if dt in RTOL:
        scale = max(1.0, float(np.max(np.abs(ref), initial=0)))
        np.testing.assert_allclose(out, ref, rtol=RTOL[dt], atol=RTOL[dt] * scale * 10)
    else:
        np.testing.assert_array_equal(out, ref)


# (batch, M, K, N)
SHAPES = [((), 3, 4, 5), ((), 1, 7, 9), ((), 9, 7, 1), ((), 1, 9, 1), ((), 0, 3, 4),
          ((), 3, 0, 4), ((), 3, 4, 0), ((0,), 3, 4, 5), ((5,), 2, 0, 3), ((7,), 20, 30, 40),
          ((2, 3), 33, 17, 9), ((), 70, 80, 90), ((300,), 4, 4, 4), ((3,), 130, 20, 70)]



@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_matmul_layouts(dt, shape):
    rng = np.random.default_rng(abs(hash(shape)) % 2**32)
    B, M, K, N = shape
    a0 = rand(rng, B + (M, K), dt)
    b0 = rand(rng, B + (K, N), dt)
    ref = np.matmul(a0, b0)
    for la, lb, lo in [("C", "C", "C"), ("F", "C", "C"), ("C", "F", "F"), ("F", "F", "C"),
                       ("slice", "neg", "C"), ("neg", "slice", "slice"), ("C", "C", "neg"),
                       ("slice", "F", "F")]:
        a = matrix_layout(a0, la)
        b = matrix_layout(b0, lb)
        out = matrix_layout(np.zeros(B + (M, N), dt), lo)
        for nt in (1, 2):
            out[...] = 1
            _matmul.matmul(a, b, out, nt)
            check(out, ref, dt)


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
def test_matmul_broadcast_batch(dt):
    rng = np.random.default_rng(1)
    a = rand(rng, (1, 5, 6, 7), dt)
    b = rand(rng, (4, 1, 7, 3), dt)
    ab = np.broadcast_to(a, (4, 5, 6, 7))
    bb = np.broadcast_to(b, (4, 5, 7, 3))
    out = np.empty((4, 5, 6, 3), dt)
    _matmul.matmul(ab, bb, out, 2)
    check(out, np.matmul(a, b), dt)
    # zero-stride rows/cols inside a matrix too
    a2 = np.broadcast_to(rand(rng, (1, 6), dt), (5, 6))
    b2 = np.broadcast_to(rand(rng, (6, 1), dt), (6, 4))
    out2 = np.empty((5, 4), dt)
    _matmul.matmul(a2, b2, out2, 1)
    check(out2, np.matmul(a2, b2), dt)


@pytest.mark.parametrize("dt", [np.bool_, np.int32, np.int64], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [((), 150, 170, 300), ((9,), 40, 50, 60), ((), 1, 300, 200)],
                         ids=str)
def test_matmul_int_threads_identical_and_wrap(dt, shape):
    rng = np.random.default_rng(2)
    B, M, K, N = shape
    if dt is np.bool_:
        a, b = rand(rng, B + (M, K), dt), rand(rng, B + (K, N), dt)
    else:
        info = np.iinfo(dt)
        a = rng.integers(info.min, info.max, B + (M, K), dtype=dt)
        b = rng.integers(info.min, info.max, B + (K, N), dtype=dt)
    o1 = np.empty(B + (M, N), dt)
    o2 = np.empty(B + (M, N), dt)
    _matmul.matmul(a, b, o1, 1)
    _matmul.matmul(a, b, o2, 2)
    np.testing.assert_array_equal(o1, o2)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(o1, np.matmul(a, b))


@pytest.mark.parametrize("tiny", [0, 4096, 10**9])
def test_matmul_paths(tiny):
    """The same product through the tiny kernel, BLAS and the blocked kernel."""
    old = _matmul._set_tuning(tiny_work=tiny)
    try:
        rng = np.random.default_rng(3)
        for dt in (np.float64, np.complex64):
            a = rand(rng, (50, 8, 9), dt)
            b = np.swapaxes(rand(rng, (50, 10, 9), dt), -1, -2)
            out = np.empty((50, 8, 10), dt)
            for nt in (1, 2):
                _matmul.matmul(a, b, out, nt)
                check(out, np.matmul(a, b), dt)
    finally:
        _matmul._set_tuning(*old)


def test_matmul_large_float64():
    rng = np.random.default_rng(4)
    a = rng.standard_normal((300, 200))
    b = rng.standard_normal((200, 250))
    out = np.empty((250, 300)).T
    _matmul.matmul(a, b, out, 2)
    check(out, a @ b, np.float64)


def test_matmul_errors():
    a = np.ones((2, 2), np.float16)
    with pytest.raises(TypeError, match="no loop for float16"):
        _matmul.matmul(a, a, np.empty((2, 2), np.float16), 1)
    with pytest.raises(TypeError, match="_matmul.matmul: no loop for float64, float32"):
        _matmul.matmul(np.ones((2, 2)), np.ones((2, 2), np.float32), np.empty((2, 2)), 1)
    with pytest.raises(ValueError, match="_matmul.matmul: core dims do not agree"):
        _matmul.matmul(np.ones((2, 3)), np.ones((2, 3)), np.empty((2, 3)), 1)


@pytest.mark.parametrize("op", ["matmul", "contract"])
def test_products_refuse_an_overlapping_out(op):
    """A product cannot be computed in place, and the tiny-product kernels take restrict
    pointers: an out sharing memory with an operand raises instead of a wrong value."""
    buf = np.arange(64.0).reshape(4, 4, 4)
    a = np.ones((4, 4, 4))

    def run(x, y, out):
        if op == "matmul":
            return _matmul.matmul(x, y, out, 1)
        return _matmul.contract(x, y, out, 1, 1, 1, 1, 1)

    for x, y, out in [(buf, a, buf), (a, buf, buf), (buf[:, :2], a[:, :, :2], buf[:, 2:, 2:]),
                      (buf[::-1], a, buf[1:2])]:
        with pytest.raises(ValueError, match="_matmul.%s: out overlaps an operand" % op):
            run(x, y, out)
    # disjoint parts of one buffer are fine: the product is NumPy's
    big = np.zeros((3, 4, 4, 4))
    big[0], big[1] = buf, a
    run(big[0], big[1], big[2])
    np.testing.assert_array_equal(big[2], buf @ a)
    np.testing.assert_array_equal(big[0], buf)


def test_blas_info_and_threads():
    info = _blas.blas_info()
    assert set(info) == {"name", "version", "library_path", "threading"}
    n = _blas.get_blas_threads()
    if info["library_path"] is None:
        assert n is None
        _blas.set_blas_threads(1)  # no-op, no error
        return
    assert isinstance(n, int) and n >= 1
    try:
        _blas.set_blas_threads(1)
        assert _blas.get_blas_threads() == 1
        with _blas.blas_threads(2):
            assert _blas.get_blas_threads() == 2
        assert _blas.get_blas_threads() == 1
    finally:
        _blas.set_blas_threads(n)
    assert _blas.get_blas_threads() == n
    s, g = _blas._thread_fn_addresses()
    assert s and g
    # the CPU driver hands these to the kernels when it loads (kernels import nothing
    # from tenferro); installing them again is idempotent
    from tenferro._kernels import _lapack
    assert _matmul.set_blas_thread_functions(s, g)
    assert _lapack.set_blas_thread_functions(s, g)


def test_matmul_restores_blas_threads():
    n = _blas.get_blas_threads()
    if n is None:
        pytest.skip("no BLAS threading API found")
    rng = np.random.default_rng(5)
    a = rng.standard_normal((200, 20, 20))
    out = np.empty_like(a)
    _matmul.matmul(a, a, out, 2)     # batch-parallel path sets BLAS to 1 and back
    big = rng.standard_normal((100, 100))
    _matmul.matmul(big, big, np.empty((100, 100)), 1)
    assert _blas.get_blas_threads() == n
