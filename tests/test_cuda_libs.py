"""The CUDA driver's libraries (issue 18): matmul/contract through cuBLAS (float and
complex) and the tiled integer/bool GEMM kernel, and tenferro.linalg's primitives
through cuSOLVER.

Without a GPU the device tests run on the host simulator (``TENFERRO_CUDA_SIMULATOR=1``;
skipped otherwise), where :mod:`tenferro.devices.cuda.libs` does cuBLAS's and
cuSOLVER's work with NumPy and LAPACK on the same column-major arguments, so the glue
-- transposes, leading dimensions, batching, info -- is what is tested here.  What the
simulator cannot test, the real calls, is checked for names and argument counts against
nvmath's bindings, and the kernels are compiled by NVRTC.  On a GPU the same tests run
against cuBLAS and cuSOLVER themselves.
"""
import ctypes
import importlib.util
import inspect

import numpy as np
import pytest
import scipy.linalg as sl

import tenferro as tf
from conftest import get_test_device
from tenferro.devices.cuda import backend, libs, linalg as cl, matmul as cm, simlibs
from tenferro.devices.cuda.array import from_numpy, to_numpy
from tenferro.linalg import _eigh, _lu, _qr, _svd, _triangular

FLOATS = ["float32", "float64", "complex64", "complex128"]
ALL = FLOATS + ["int32", "int64", "bool"]


@pytest.fixture(scope="module")
def dev():
    return get_test_device("cuda")


def rand(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype == bool:
        return rng.random(shape) < 0.4
    if dtype.kind == "i":
        return rng.integers(-50, 50, shape).astype(dtype)
    x = rng.standard_normal(shape)
    if dtype.kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def tol(dtype):
    return {"f": 1e-4, "F": 1e-4}.get(np.dtype(dtype).char, 1e-10)


def on(dev, view):
    """A device array laid out as the NumPy ``view``: the memory it spans uploaded, the
    same element strides (transposes, steps, negative and zero strides)."""
    isz = view.dtype.itemsize
    ext = [s * (n - 1) for n, s in zip(view.shape, view.strides)] if view.size else []
    lo = sum(e for e in ext if e < 0)
    hi = sum(e for e in ext if e > 0) + isz
    span = (ctypes.c_char * (hi - lo)).from_address(view.ctypes.data + lo)
    d = from_numpy(np.frombuffer(span, view.dtype).copy(), dev)
    return d.view(view.shape, tuple(s // isz for s in view.strides), -lo // isz)


def t(dev, x):
    return tf.asarray(x).to(dev)


def host(x):
    return x.to("cpu").numpy()


# -- matmul and contract --------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("shapes", [((4, 5), (5, 3)), ((2, 3, 17), (2, 17, 20)),
                                    ((1, 1), (1, 1)), ((3, 0), (0, 2)), ((0, 4), (4, 2))])
def test_matmul_dtypes(dev, dtype, shapes):
    a, b = rand(shapes[0], dtype, 1), rand(shapes[1], dtype, 2)
    out = host(tf.matmul(t(dev, a), t(dev, b)))
    assert out.dtype == a.dtype
    np.testing.assert_allclose(out, np.matmul(a, b), rtol=tol(dtype), atol=tol(dtype))


def _layouts(shape, dtype, seed):
    """NumPy views of ``shape`` [..., r, c]: C order, transposed storage, every other
    row/column, reversed rows, and a broadcast batch (stride 0)."""
    r, c = shape[-2:]
    x = rand(shape[:-2] + (c, r), dtype, seed)
    big = rand(shape[:-2] + (2 * r, 2 * c), dtype, seed)
    yield "c", rand(shape, dtype, seed)
    yield "transposed", np.swapaxes(x, -1, -2)
    yield "stepped", big[..., ::2, ::2]
    yield "reversed", rand(shape, dtype, seed)[..., ::-1, :]
    one = rand((1,) + shape[-2:], dtype, seed)
    yield "broadcast", np.broadcast_to(one, shape)


@pytest.mark.parametrize("dtype", ["float64", "complex64", "int64", "bool"])
def test_matmul_strided_batched(dev, dtype):
    for na, a in _layouts((3, 4, 6), dtype, 1):
        for nb, b in _layouts((3, 6, 5), dtype, 2):
            out = to_numpy(cm.matmul(on(dev, a), on(dev, b)))
            np.testing.assert_allclose(out, np.matmul(a, b), rtol=tol(dtype),
                                       atol=tol(dtype), err_msg="%s @ %s" % (na, nb))


def test_matmul_batch_dims_that_do_not_merge(dev):
    a = rand((2, 6, 3, 4), "float64")[:, ::2]          # batch strides that do not nest
    b = rand((2, 3, 4, 5), "float64", 3)
    np.testing.assert_allclose(to_numpy(cm.matmul(on(dev, a), on(dev, b))), a @ b,
                               rtol=1e-12)
    ai = rand((2, 6, 3, 4), "int32")[:, ::2]
    bi = rand((2, 3, 4, 5), "int32", 3)
    np.testing.assert_array_equal(to_numpy(cm.matmul(on(dev, ai), on(dev, bi))), ai @ bi)


def test_int_matmul_wraps_as_numpy(dev):
    a = np.full((3, 40), 2 ** 30, np.int32)
    b = np.full((40, 2), 3, np.int32)
    np.testing.assert_array_equal(host(tf.matmul(t(dev, a), t(dev, b))), a @ b)


@pytest.mark.parametrize("dtype", ["float64", "complex128", "int32"])
@pytest.mark.parametrize("case", [
    # (a's shape, b's shape, nb, nm, nk, nn, a's axes order, b's axes order)
    ((2, 3, 4), (2, 4, 5), 1, 1, 1, 1, None, None),
    ((3, 2, 4, 5), (4, 5, 6), 0, 2, 2, 1, None, None),
    ((2, 3, 4, 5), (2, 4, 5, 6, 7), 1, 1, 2, 2, (0, 1, 3, 2), None),
    ((3, 4), (4,), 0, 1, 1, 0, None, None),
    ((4,), (4, 3), 0, 0, 1, 1, None, None),
    ((2, 3, 4), (2, 4), 1, 1, 1, 0, (2, 0, 1), None),
])
def test_contract(dev, dtype, case):
    sa, sb, nb, nm, nk, nn, pa, pb = case
    a = rand(sa, dtype, 1)
    if pa:   # a permuted view with the same shape: groups that do not fold
        a = np.transpose(rand(tuple(sa[i] for i in np.argsort(pa)), dtype, 1), pa)
    b = rand(sb, dtype, 2)
    out = to_numpy(cm.contract(on(dev, a), on(dev, b), nb=nb, nm=nm, nk=nk, nn=nn))
    letters = "abcdefghij"
    B, M, K, N = (letters[:nb], letters[nb:nb + nm], letters[nb + nm:nb + nm + nk],
                  letters[nb + nm + nk:nb + nm + nk + nn])
    want = np.einsum("%s,%s->%s" % (B + M + K, B + K + N, B + M + N), a, b)
    np.testing.assert_allclose(out, want, rtol=tol(dtype), atol=tol(dtype))


def _public(fn, *args):
    """``fn(*args)``, or a skip when it needs an op of the CUDA driver not in this build
    (the views and reductions are other parts of issue 18)."""
    try:
        return fn(*args)
    except tf.UnsupportedOperation as e:
        if any(op in str(e) for op in ("matmul", "linalg.", "contract")):
            raise
        pytest.skip("needs more of the CUDA driver's ops: %s" % e)


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("subs,shapes", [
    ("ijk,kjl->il", [(3, 4, 5), (5, 4, 2)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("ij,kj->ik", [(3, 4), (5, 4)]), ("abc,cd->abd", [(2, 3, 4), (4, 5)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)])])
def test_einsum_public(dev, dtype, subs, shapes):
    arrays = [rand(s, dtype, i) for i, s in enumerate(shapes)]
    out = _public(tf.einsum, subs, *[t(dev, x) for x in arrays])
    want = np.einsum(subs, *arrays)
    assert out.dtype == want.dtype
    np.testing.assert_allclose(host(out), want, rtol=tol(dtype), atol=tol(dtype))


@pytest.mark.parametrize("dtype", ["float64", "complex64", "int32"])
def test_matmul_public_broadcast_and_transposed(dev, dtype):
    a, b = rand((3, 1, 4, 5), dtype, 1), rand((2, 6, 5), dtype, 2)
    out = _public(lambda: tf.matmul(t(dev, a), tf.matrix_transpose(t(dev, b))))
    np.testing.assert_allclose(host(out), a @ np.swapaxes(b, -1, -2), rtol=tol(dtype),
                               atol=tol(dtype))
    v = rand((5,), dtype, 3)
    np.testing.assert_allclose(host(_public(tf.matmul, t(dev, a), t(dev, v))), a @ v,
                               rtol=tol(dtype), atol=tol(dtype))


def test_matmul_mixed_dtypes_refused(dev):
    with pytest.raises(TypeError):
        cm.matmul(from_numpy(rand((2, 2), "float64"), dev),
                  from_numpy(rand((2, 2), "float32"), dev))


# -- linalg ----------------------------------------------------------------------------------

def spd(batch, n, dtype, seed=0):
    a = rand(batch + (n, n), dtype, seed)
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)).astype(dtype)


def well(batch, n, dtype, seed=0):
    return (rand(batch + (n, n), dtype, seed) + 3 * n ** 0.5 * np.eye(n)).astype(dtype)


def mH(x):
    return np.conj(np.swapaxes(x, -1, -2))


def assert_unitary(gram, atol):
    """``gram`` (X^H X of each matrix) is the identity."""
    np.testing.assert_allclose(gram, np.broadcast_to(np.eye(gram.shape[-1]), gram.shape),
                               atol=atol)


BATCHES = [(), (3,), (2, 2)]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("n", [1, 5, 40])
def test_cholesky(dev, dtype, batch, n):
    a = spd(batch, n, dtype)
    for lower in (True, False):
        got = host(tf.linalg.cholesky(t(dev, a), lower=lower, check_finite=False))
        want = np.linalg.cholesky(a.astype(np.complex128 if a.dtype.kind == "c" else
                                           np.float64))
        want = want if lower else mH(want)
        np.testing.assert_allclose(got, want, rtol=tol(dtype) * 10, atol=tol(dtype) * 10)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("batch", [(), (3,)])
def test_triangular_solve(dev, dtype, batch):
    a, b = well(batch, 6, dtype), rand(batch + (6, 3), dtype, 5)
    for lower in (True, False):
        for trans in (0, 1, 2):
            for unit in (False, True):
                x = host(_triangular.triangular_solve_p.bind(
                    t(dev, a), t(dev, b), lower=lower, trans=trans, unit_diagonal=unit))
                tri = np.tril(a) if lower else np.triu(a)
                if unit:
                    tri = tri - np.einsum("...ii->...i", tri)[..., None] * np.eye(6) + np.eye(6)
                op = [tri, np.swapaxes(tri, -1, -2), mH(tri)][trans]
                np.testing.assert_allclose(op @ x, b, atol=tol(dtype) * 100)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_strided_inputs(dev, dtype):
    """Operands laid out in any way (transposed, stepped, reversed, broadcast) give what
    their C-ordered copies give."""
    b = rand((3, 4, 2), dtype, 3)
    for name, a in _layouts((3, 4, 4), dtype, 1):
        a = a + 4 * np.eye(4)
        for lower in (True, False):
            for trans in (0, 2):
                x = to_numpy(cl.triangular_solve(on(dev, a), on(dev, b), lower=lower,
                                                 trans=trans, unit_diagonal=False)[0])
                tri = np.tril(a) if lower else np.triu(a)
                op = tri if trans == 0 else mH(tri)
                np.testing.assert_allclose(op @ x, b, atol=1e-10, err_msg=name)
        np.testing.assert_allclose(to_numpy(cl.det(on(dev, a))), np.linalg.det(a),
                                   rtol=1e-10, err_msg=name)
        h = a @ mH(a)
        c = to_numpy(cl.cholesky(on(dev, np.asfortranarray(h)), lower=True)[0])
        np.testing.assert_allclose(c @ mH(c), h, rtol=1e-10, err_msg=name)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(5, 5), (3, 4, 4), (6, 4), (4, 6)])
def test_lu_factor_matches_scipy(dev, dtype, shape):
    a = rand(shape, dtype, 3)
    lu, piv = _lu.lu_factor_p.bind(t(dev, a))
    lu, piv = host(lu), host(piv)
    assert piv.dtype == np.int32 and lu.shape == a.shape
    for i in np.ndindex(shape[:-2]):
        want_lu, want_piv = sl.lu_factor(a[i]) if shape[-1] == shape[-2] else \
            sl.lapack.get_lapack_funcs("getrf", (a[i],))(a[i])[:2]
        np.testing.assert_allclose(lu[i], want_lu, rtol=tol(dtype) * 10, atol=tol(dtype) * 10)
        np.testing.assert_array_equal(piv[i], want_piv)
    for inverse in (False, True):
        perm = host(_lu.lu_permutation_p.bind(t(dev, piv), m=shape[-2], inverse=inverse))
        np.testing.assert_array_equal(perm, _lu._lu_permutation_cpu(piv, m=shape[-2],
                                                                    inverse=inverse))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("batch,n", [((), 5), ((3,), 5), ((2,), 40)])
def test_solve_lu_solve_det(dev, dtype, batch, n):
    """(Batches of matrices up to 32 x 32 go to the batched routines, others one by
    one.)"""
    a, b = well(batch, n, dtype), rand(batch + (n, 2), dtype, 4)
    x = host(tf.linalg.solve(t(dev, a), t(dev, b), check_finite=False))
    np.testing.assert_allclose(a @ x, b, atol=tol(dtype) * 100)
    lu, piv = _lu.lu_factor_p.bind(t(dev, a))
    for trans in (0, 1, 2):
        x = host(_lu.lu_solve_p.bind(lu, piv, t(dev, b), trans=trans))
        op = [a, np.swapaxes(a, -1, -2), mH(a)][trans]
        np.testing.assert_allclose(op @ x, b, atol=tol(dtype) * 100)
    a1 = (a / (3 * n ** 0.5)).astype(dtype)           # a determinant of magnitude ~1
    np.testing.assert_allclose(host(_lu.det_p.bind(t(dev, a1))), np.linalg.det(a1),
                               rtol=tol(dtype) * 100 * n)
    if not batch:
        xv, _, _ = _lu.solve_p.bind(t(dev, a), t(dev, b[:, 0]))
        np.testing.assert_allclose(a @ host(xv), b[:, 0], atol=tol(dtype) * 100)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (2, 6, 3), (2, 3, 6)])
def test_qr(dev, dtype, shape):
    a = rand(shape, dtype, 6)
    for mode in ("full", "economic", "r"):
        got = _qr.qr_r_p.bind(t(dev, a)) if mode == "r" else _qr.qr_p.bind(t(dev, a),
                                                                            mode=mode)
        r = host(got if mode == "r" else got[1])
        want_r = np.stack([sl.qr(a[i], mode=mode)[-1] for i in np.ndindex(shape[:-2])]
                          ).reshape(shape[:-2] + (-1, shape[-1]))
        assert r.shape == want_r.shape
        np.testing.assert_allclose(np.abs(r), np.abs(want_r), rtol=tol(dtype) * 100,
                                   atol=tol(dtype) * 100)
        if mode != "r":
            q = host(got[0])
            np.testing.assert_allclose(q @ r, a, atol=tol(dtype) * 100)
            assert_unitary(mH(q) @ q, tol(dtype) * 100)


def hermitian_from(a, lower):
    """The Hermitian matrix LAPACK reads from a triangle of ``a`` (the diagonal's real
    part)."""
    t = np.tril(a, -1) if lower else np.triu(a, 1)
    d = np.real(np.einsum("...ii->...i", a))
    return t + mH(t) + d[..., None] * np.eye(a.shape[-1])


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("batch,n", [((), 6), ((4,), 5), ((2,), 40), ((), 40), ((3,), 1)])
def test_eigh(dev, dtype, batch, n):
    a = rand(batch + (n, n), dtype, 7)
    for lower in (True, False):
        h = hermitian_from(a, lower)
        w, v = _eigh.eigh_p.bind(t(dev, a), lower=lower, broadening=0)
        w, v = host(w), host(v)
        assert w.dtype == np.real(a).dtype
        np.testing.assert_allclose(w, np.linalg.eigvalsh(h), atol=tol(dtype) * 100)
        np.testing.assert_allclose(h @ v, v * w[..., None, :], atol=tol(dtype) * 1000)
        wv = host(_eigh.eigvalsh_p.bind(t(dev, a), lower=lower, broadening=0))
        np.testing.assert_allclose(wv, w, atol=tol(dtype) * 100)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (3, 5, 4), (3, 4, 5), (2, 40, 33),
                                   (2, 33, 40), (0, 3), (2, 3, 0)])
def test_svd(dev, dtype, shape):
    a = rand(shape, dtype, 8)
    k = min(shape[-2:])
    s_want = np.linalg.svd(a, compute_uv=False) if a.size else np.zeros(shape[:-2] + (k,))
    for full in (True, False):
        u, s, vh = (host(x) for x in _svd.svd_p.bind(t(dev, a), full_matrices=full,
                                                     broadening=0, driver="gesdd"))
        m, n = shape[-2:]
        assert u.shape == shape[:-2] + (m, m if full else k)
        assert vh.shape == shape[:-2] + (n if full else k, n)
        np.testing.assert_allclose(s, s_want, atol=tol(dtype) * 100)
        np.testing.assert_allclose((u[..., :k] * s[..., None, :]) @ vh[..., :k, :], a,
                                   atol=tol(dtype) * 100)
        assert_unitary(mH(u) @ u, tol(dtype) * 100)
        assert_unitary(vh @ mH(vh), tol(dtype) * 100)
    sv = host(_svd.svdvals_p.bind(t(dev, a), broadening=0, driver="gesdd"))
    np.testing.assert_allclose(sv, s_want, atol=tol(dtype) * 100)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("ord,axis", [(None, None), (2, 1), (1, 0), (3, -1), ("fro", (0, 2)),
                                      (0.5, 1), (None, (1, 2))])
def test_norm(dev, dtype, ord, axis):
    if importlib.util.find_spec("tenferro.devices.cuda.reduce") is None:
        pytest.skip("needs the CUDA driver's reductions (another part of issue 18)")
    x = rand((3, 4, 5), dtype, 11)
    got = host(_public(tf.linalg.norm, t(dev, x), ord, axis))
    np.testing.assert_allclose(got, np.linalg.norm(x, ord, axis), rtol=tol(dtype) * 10)


def test_norm_extremes(dev):
    if importlib.util.find_spec("tenferro.devices.cuda.reduce") is None:
        pytest.skip("needs the CUDA driver's reductions (another part of issue 18)")
    for x in (np.array([3e300, 4e300, 0.0]), np.array([3e-310, 4e-310]),
              np.array([1.0, np.inf]), np.array([1.0, np.nan]), np.zeros((0,))):
        got = host(_public(lambda: tf.linalg.norm(t(dev, x), check_finite=False)))
        with np.errstate(over="ignore"):    # (the CPU's unscaled first try)
            want = host(tf.linalg.norm(tf.asarray(x), check_finite=False))
        np.testing.assert_allclose(got, want, rtol=1e-15)


def _cpu_error(fn, *args):
    """The LinAlgError message of ``fn(*args)``."""
    with pytest.raises(tf.linalg.LinAlgError) as ei:
        fn(*args)
    return str(ei.value)


def test_errors_are_the_cpus(dev):
    not_pd = np.array([[[2.0, 0.0], [0.0, 2.0]], [[1.0, 2.0], [2.0, 1.0]]])
    sing = np.array([[1.0, 2.0], [2.0, 4.0]])
    tri = np.array([[1.0, 0.0], [3.0, 0.0]])
    rhs = np.ones((2, 1))
    cases = [
        (lambda x, b: _triangular.cholesky_p.bind(x, lower=True), not_pd),
        (lambda x, b: _lu.solve_p.bind(x, b), sing),
        (lambda x, b: _triangular.triangular_solve_p.bind(
            x, b, lower=True, trans=0, unit_diagonal=False), tri),
        (lambda x, b: _lu.lu_solve_p.bind(*_lu.lu_factor_p.bind(x), b, trans=0), sing),
    ]
    for fn, a in cases:
        b = np.broadcast_to(rhs, a.shape[:-2] + rhs.shape).copy()
        assert (_cpu_error(fn, t(dev, a), t(dev, b))
                == _cpu_error(fn, tf.asarray(a), tf.asarray(b)))
    # singular: det 0, as the CPU's
    assert host(_lu.det_p.bind(t(dev, sing))) == 0


def test_ops_without_cuda_implementation_refuse(dev):
    a = t(dev, well((), 3, "float64"))
    for fn in (lambda: tf.linalg.eig(a, check_finite=False),
               lambda: tf.linalg.lstsq(a, a, check_finite=False)):
        with pytest.raises(tf.UnsupportedOperation, match="cuda"):
            fn()


# -- gradients on CUDA are the CPU's ------------------------------------------------------------

LOSSES = {
    "matmul": lambda x, y: tf.sum(tf.matmul(x, y) ** 2),
    "cholesky": lambda x, y: tf.sum(tf.linalg.cholesky(x @ x.T + 4 * tf.eye(4, dtype=x.dtype,
                                                                            device=x.device),
                                                       lower=True, check_finite=False) * y),
    "solve": lambda x, y: tf.sum(tf.linalg.solve(x + 4 * tf.eye(4, dtype=x.dtype,
                                                                device=x.device), y,
                                                 check_finite=False) ** 2),
    "eigh": lambda x, y: tf.sum(tf.linalg.eigh(x + x.T, check_finite=False)[0] ** 3),
    "svd": lambda x, y: tf.sum(tf.linalg.svd(x, compute_uv=False, check_finite=False)),
    "svd_vectors": lambda x, y: tf.sum(tf.abs(tf.linalg.svd(x, check_finite=False)[0]
                                              * y)),
    "qr": lambda x, y: tf.sum(tf.linalg.qr(x, check_finite=False)[1] * y),
    "det": lambda x, y: tf.linalg.det(x + 4 * tf.eye(4, dtype=x.dtype, device=x.device),
                                      check_finite=False),
    "solve_triangular": lambda x, y: tf.sum(tf.linalg.solve_triangular(
        x + 4 * tf.eye(4, dtype=x.dtype, device=x.device), y, lower=True, trans=1,
        check_finite=False) ** 2),
    "lu_factor": lambda x, y: tf.sum(tf.linalg.lu_factor(x, check_finite=False)[0] * y),
    "batched_eigh": lambda x, y: tf.sum(tf.linalg.eigh(
        tf.stack([x + x.T, y + y.T]), check_finite=False)[0] ** 3),
}


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_gradients_match_cpu(dev, name):
    x, y = rand((4, 4), "float64", 9), rand((4, 4), "float64", 10)
    want = [host(g) for g in tf.grad(LOSSES[name], argnums=(0, 1))(tf.asarray(x),
                                                                  tf.asarray(y))]
    got = _public(lambda: [host(g) for g in tf.grad(LOSSES[name], argnums=(0, 1))(
        t(dev, x), t(dev, y))])
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-10)


# -- what the simulator cannot run: names and kernels ------------------------------------------

class _Recorder:
    """A stand-in for an nvmath bindings module: records each call's name and number
    of arguments and returns 0 (a handle, a buffer size)."""

    def __init__(self, calls):
        self.calls = calls

    def __getattr__(self, name):
        def call(*args):
            self.calls.append((self, name, len(args)))
            return 0
        return call


def _arity(fn):
    """The number of parameters nvmath's binding ``fn`` takes (from its signature line)."""
    head = fn.__doc__.split("\n")[0]
    inner = head[head.index("(") + 1:head.rindex(")")]
    return len([p for p in inner.split(",") if p.strip()])


def test_every_gpu_call_exists_in_nvmath_with_its_arity(dev):
    nv = pytest.importorskip("nvmath.bindings")
    calls = []
    blas, solver = _Recorder(calls), _Recorder(calls)
    gl = libs.GPULibs(backend.get(dev.index), bindings=(blas, solver))
    methods = [m for m in dir(libs.GPULibs) if not m.startswith("_")]
    for dt in FLOATS:
        for name in methods:
            params = list(inspect.signature(getattr(gl, name)).parameters)[1:]
            args = ["A" if p.startswith("job") and name == "gesvd" else 1 for p in params]
            getattr(gl, name)(np.dtype(dt), *args)
    called = {(m is blas, n) for m, n, _ in calls}
    assert {(True, "sgemm"), (False, "zheevj_batched"), (False, "cgesvd"),
            (False, "zungqr"), (True, "set_workspace")} <= called
    for m, name, nargs in calls:
        mod = nv.cublas if m is blas else nv.cusolverDn
        assert hasattr(mod, name), name
        assert _arity(getattr(mod, name)) == nargs, (name, nargs)


def test_routine_names():
    assert libs.routine("syevd", np.complex128) == "zheevd"
    assert libs.routine("orgqr", np.float32) == "sorgqr"
    assert libs.routine("gemm", np.complex64) == "cgemm"


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_kernels_compile_with_nvrtc(arch):
    from tenferro.devices.cuda import nvrtc
    try:
        nvrtc.version()
    except RuntimeError as e:
        pytest.skip(str(e))
    for k in cm.all_kernels() + cl.all_kernels():
        cubin = nvrtc.compile_cubin(k.source, k.name + ".cu", arch)
        assert cubin.startswith(b"\x7fELF"), k.name


def test_sim_libs_column_major_on_host_memory():
    """The simulator's twin reads column-major operands with their leading dimensions,
    as cuBLAS does (host addresses: NumPy buffers)."""
    sim = simlibs.SimLibs(None)
    a = np.asfortranarray(rand((6, 4), "float64"))      # A: 3 x 4 inside ld 6
    b = np.asfortranarray(rand((4, 5), "float64", 1))
    c = np.zeros((3, 5), order="F")
    sim.gemm(np.float64, libs.OP_N, libs.OP_N, 3, 5, 4, a.ctypes.data, 6, b.ctypes.data, 4,
             c.ctypes.data, 3, alpha=2.0)
    np.testing.assert_allclose(c, 2 * a[:3] @ b)
    with pytest.raises(ValueError, match="leading dimension"):
        sim.gemm(np.float64, 0, 0, 3, 5, 4, a.ctypes.data, 2, b.ctypes.data, 4,
                 c.ctypes.data, 3)
    with pytest.raises(ValueError, match="m >= n"):
        sim.gesvd(np.float64, "A", "A", 2, 3, a.ctypes.data, 6, 0, 0, 2, 0, 3, 0)
