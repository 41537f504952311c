"""tenferro._kernels._lapack (batched LAPACK kernels) against scipy.linalg."""
import numpy as np
import pytest
import scipy.linalg as sl

from tenferro._kernels import _lapack

from conftest import MATRIX_LAYOUTS as LAYOUTS, matrix_layout

DTYPES = [np.dtype(d) for d in ("float32", "float64", "complex64", "complex128")]
IDS = [d.name for d in DTYPES]
# tolerance relative to the problem's scale (matrices are well conditioned)
TOL = {np.dtype("float32"): 2e-4, np.dtype("complex64"): 2e-4,
       np.dtype("float64"): 1e-11, np.dtype("complex128"): 1e-11}
BATCHES = [(), (3,), (3, 2)]


def laid_out(a0, how):
    """A copy of ``a0`` in memory layout ``how``, and a second copy to check that the
    kernel leaves its input alone."""
    a = matrix_layout(a0.copy(), how)
    return a, a.copy()

def real_of(dt):
    return np.dtype(np.float32) if dt in (np.float32, np.complex64) else np.dtype(np.float64)


def rand(rng, shape, dt):
    x = rng.standard_normal(shape)
    if dt.kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dt)


def spd(rng, batch, n, dt):
    """Hermitian positive definite, well conditioned."""
    x = rand(rng, batch + (n, n), dt)
    return (x @ np.conj(np.swapaxes(x, -1, -2)) + n * np.eye(n, dtype=dt)).astype(dt)


def herm(rng, batch, n, dt):
    x = rand(rng, batch + (n, n), dt)
    return ((x + np.conj(np.swapaxes(x, -1, -2))) / 2).astype(dt)




def close(got, ref, dt, scale=None):
    ref = np.asarray(ref)
    if scale is None:
        scale = max(1.0, float(np.max(np.abs(ref), initial=0)))
    np.testing.assert_allclose(got, ref, rtol=TOL[dt], atol=TOL[dt] * scale)


def each(batch):
    return list(np.ndindex(*batch)) if batch else [()]


def H(x):
    return np.conj(np.swapaxes(x, -1, -2))


# ---------------------------------------------------------------- potrf / potrs

@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
@pytest.mark.parametrize("batch", BATCHES, ids=str)
@pytest.mark.parametrize("lower", [0, 1])
@pytest.mark.parametrize("how", LAYOUTS)
def test_potrf(dt, batch, lower, how):
    rng = np.random.default_rng(1)
    a0 = spd(rng, batch, 5, dt)
    a, keep = laid_out(a0, how)
    out = np.full(batch + (5, 5), 7, dt)
    info = _lapack.potrf(a, out, lower, 2)
    assert info.shape == batch and info.dtype == np.int32 and not info.any()
    np.testing.assert_array_equal(a, keep)
    for i in each(batch):
        close(out[i], sl.cholesky(a0[i], lower=bool(lower)), dt)
    # only the named triangle of a is read
    junk = a0.copy()
    tri = np.triu_indices(5, 1) if lower else np.tril_indices(5, -1)
    junk[(...,) + tri] = np.nan
    out2 = np.empty_like(out)
    _lapack.potrf(junk, out2, lower, 1)
    np.testing.assert_array_equal(out2, out)


@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
@pytest.mark.parametrize("lower", [0, 1])
@pytest.mark.parametrize("how", LAYOUTS)
def test_potrs(dt, lower, how):
    rng = np.random.default_rng(2)
    batch = (3, 2)
    a0 = spd(rng, batch, 5, dt)
    c = np.empty_like(a0)
    assert not _lapack.potrf(a0, c, lower, 1).any()
    b0 = rand(rng, batch + (5, 3), dt)
    cc, b = matrix_layout(c.copy(), how), matrix_layout(b0.copy(), how)
    keep = b.copy()
    out = np.empty(batch + (5, 3), dt)
    info = _lapack.potrs(cc, b, out, lower, 2)
    assert not info.any()
    np.testing.assert_array_equal(b, keep)
    for i in each(batch):
        ref = sl.cho_solve((c[i], bool(lower)), b0[i])
        close(out[i], ref, dt)
        close(a0[i] @ out[i], b0[i], dt, scale=10)


@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
def test_potrf_info(dt):
    rng = np.random.default_rng(3)
    a = spd(rng, (6,), 4, dt)
    a[3] = -a[3]
    a[3, 0, 0] = 1                   # first minor fine, second not
    out = np.empty_like(a)
    for nt in (1, 2):
        info = _lapack.potrf(a, out, 1, nt)
        assert info[3] > 0
        assert (np.delete(info, 3) == 0).all()


@pytest.fixture(params=["own", "lapack"])
def small_path(request):
    """Run a test with tenferro's own tiny-matrix loops (Cholesky, Jacobi) taking every
    size up to 32, or with LAPACK for every size."""
    n = 32 if request.param == "own" else 0
    old = _lapack._set_tuning(chol_direct_n=n, jacobi_n=n)
    yield request.param
    _lapack._set_tuning(**old)


@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
@pytest.mark.parametrize("n", [1, 2, 3, 4, 7, 8, 13])
@pytest.mark.parametrize("lower", [0, 1])
def test_potrf_small_paths(dt, n, lower, small_path):
    rng = np.random.default_rng(12)
    a = spd(rng, (5,), n, dt)
    out = np.empty_like(a)
    assert not _lapack.potrf(a, out, lower, 2).any()
    for i in range(5):
        close(out[i], sl.cholesky(a[i], lower=bool(lower)), dt, scale=n)
    # LAPACK's info: the order of the first leading minor that is not positive definite
    bad = a.copy()
    k = n // 2
    bad[:, k, k] = -bad[:, k, k]
    bad[1] = np.nan
    info = _lapack.potrf(bad, out, lower, 1)
    assert info[[0, 2, 3, 4]].tolist() == [k + 1] * 4
    # a NaN fails the own loop (reference LAPACK checks it too; OpenBLAS's potrf not)
    assert info[1] == 1 or small_path == "lapack"


def _check_eigh(a, w, v, dt, n):
    for i in each(a.shape[:-2]):
        ref = np.linalg.eigvalsh(a[i].astype(np.complex128))
        scale = max(1.0, float(np.abs(ref).max(initial=0)))
        close(w[i], ref, dt, scale=scale)
        if v is not None:
            close((v[i] * w[i]) @ H(v[i]), a[i], dt, scale=scale)
            close(H(v[i]) @ v[i], np.eye(n), dt)


@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 8, 11])
@pytest.mark.parametrize("lower", [0, 1])
def test_heevd_small_paths(dt, n, lower, small_path):
    rng = np.random.default_rng(13)
    cases = [herm(rng, (3,), n, dt),
             np.broadcast_to(np.eye(n, dtype=dt), (2, n, n)),              # one eigenvalue
             np.zeros((1, n, n), dt),
             np.diag(rng.standard_normal(n)).astype(dt)[None],             # already diagonal
             (1e-30 if real_of(dt) == np.float32 else 1e-300) * herm(rng, (1,), n, dt),
             (1e30 if real_of(dt) == np.float32 else 1e300) * herm(rng, (1,), n, dt)]
    # repeated eigenvalues in a random basis: Q diag(1, 1, 2, 2, ...) Q^H
    q = np.linalg.qr(rand(rng, (n, n), np.dtype(np.complex128) if dt.kind == "c"
                          else np.dtype(np.float64)))[0]
    cases.append(((q * (1 + np.arange(n) // 2)) @ H(q)).astype(dt)[None])
    for a in cases:
        a = np.ascontiguousarray(a)
        w = np.empty(a.shape[:-1], real_of(dt))
        v = np.empty(a.shape, dt)
        w2 = np.empty_like(w)
        assert not _lapack.heevd(a, w, v, lower, 2).any()
        assert not _lapack.heevd(a, w2, None, lower, 1).any()
        assert (np.diff(w, axis=-1) >= 0).all()
        _check_eigh(a, w, v, dt, n)
        _check_eigh(a, w2, None, dt, n)
    nan = herm(rng, (2,), n, dt)
    nan[1, 0, 0] = np.nan
    info = _lapack.heevd(nan, np.empty((2, n), real_of(dt)), np.empty_like(nan), lower, 1)
    assert info[0] == 0 and (info[1] > 0 or small_path == "lapack")


# ---------------------------------------------------------------- trtrs

@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
@pytest.mark.parametrize("lower", [0, 1])
@pytest.mark.parametrize("trans", [0, 1, 2])
@pytest.mark.parametrize("unit", [0, 1])
def test_trtrs(dt, lower, trans, unit):
    rng = np.random.default_rng(4)
    batch = (3, 2)
    a0 = rand(rng, batch + (5, 5), dt) + 4 * np.eye(5, dtype=dt)
    b0 = rand(rng, batch + (5, 2), dt)
    for how in LAYOUTS:
        a, b = matrix_layout(a0.copy(), how), matrix_layout(b0.copy(), how)
        keep = (a.copy(), b.copy())
        out = np.empty(batch + (5, 2), dt)
        info = _lapack.trtrs(a, b, out, lower, trans, unit, 2)
        assert not info.any()
        np.testing.assert_array_equal(a, keep[0])
        np.testing.assert_array_equal(b, keep[1])
        for i in each(batch):
            ref = sl.solve_triangular(a0[i], b0[i], trans=trans, lower=bool(lower),
                                      unit_diagonal=bool(unit))
            close(out[i], ref, dt)


@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
def test_trtrs_singular_info(dt):
    a = np.broadcast_to(np.eye(3, dtype=dt), (4, 3, 3)).copy()
    a[2, 1, 1] = 0
    b = np.ones((4, 3, 1), dt)
    info = _lapack.trtrs(a, b, np.empty_like(b), 1, 0, 0, 1)
    np.testing.assert_array_equal(info, [0, 0, 2, 0])


# ---------------------------------------------------------------- getrf / getrs

@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
@pytest.mark.parametrize("batch", BATCHES, ids=str)
@pytest.mark.parametrize("how", LAYOUTS)
def test_getrf_getrs(dt, batch, how):
    rng = np.random.default_rng(5)
    a0 = rand(rng, batch + (5, 5), dt)
    a, keep = laid_out(a0, how)
    lu = np.empty(batch + (5, 5), dt)
    piv = np.empty(batch + (5,), np.int32)
    assert not _lapack.getrf(a, lu, piv, 2).any()
    np.testing.assert_array_equal(a, keep)
    b0 = rand(rng, batch + (5, 3), dt)
    b = matrix_layout(b0.copy(), how)
    for i in each(batch):
        rlu, rpiv = sl.lu_factor(a0[i])
        close(lu[i], rlu, dt)
        np.testing.assert_array_equal(piv[i], rpiv)
    for trans in (0, 1, 2):
        out = np.empty(batch + (5, 3), dt)
        lul, pivl = matrix_layout(lu.copy(), how), piv[..., ::-1].copy()[..., ::-1]
        assert not _lapack.getrs(lul, pivl, b, out, trans, 2).any()
        for i in each(batch):
            ref = sl.lu_solve((lu[i], piv[i]), b0[i], trans=trans)
            close(out[i], ref, dt, scale=10)


@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
@pytest.mark.parametrize("batch", BATCHES, ids=str)
@pytest.mark.parametrize("how", LAYOUTS)
def test_gesv(dt, batch, how):
    rng = np.random.default_rng(15)
    a0, b0 = rand(rng, batch + (5, 5), dt), rand(rng, batch + (5, 3), dt)
    a, b = matrix_layout(a0.copy(), how), matrix_layout(b0.copy(), how)
    keep_a, keep_b = a.copy(), b.copy()
    lu = matrix_layout(np.empty(batch + (5, 5), dt), how)
    piv = np.empty(batch + (5,), np.int32)
    out = matrix_layout(np.empty(batch + (5, 3), dt), how)
    assert not _lapack.gesv(a, b, lu, piv, out, 2).any()
    np.testing.assert_array_equal(a, keep_a)
    np.testing.assert_array_equal(b, keep_b)
    for i in each(batch):
        rlu, rpiv = sl.lu_factor(a0[i])
        close(lu[i], rlu, dt)
        np.testing.assert_array_equal(piv[i], rpiv)
        close(out[i], sl.solve(a0[i], b0[i]), dt, scale=10)
    # a singular matrix of the batch: its info, the others solved
    a1 = rand(rng, (3, 4, 4), dt)
    a1[1, :, 2] = 0
    out = np.full((3, 4, 2), 7, dt)
    info = _lapack.gesv(a1, np.ones((3, 4, 2), dt), np.empty_like(a1),
                        np.empty((3, 4), np.int32), out, 1)
    assert info[0] == info[2] == 0 and info[1] > 0
    close(out[0], sl.solve(a1[0], np.ones((4, 2))), dt, scale=10)
    with pytest.raises(ValueError, match="gesv: b has shape"):
        _lapack.gesv(a1, np.ones((3, 5, 2), dt), np.empty_like(a1),
                     np.empty((3, 4), np.int32), out, 1)


@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
def test_getrf_singular_info(dt):
    rng = np.random.default_rng(6)
    a = rand(rng, (5, 4, 4), dt)
    a[2, :, 1] = a[2, :, 0]          # rank deficient
    a[2, :, 3] = 0
    lu = np.empty_like(a)
    piv = np.empty((5, 4), np.int32)
    info = _lapack.getrf(a, lu, piv, 1)
    assert info[2] > 0
    assert (np.delete(info, 2) == 0).all()


# ---------------------------------------------------------------- heevd

@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
@pytest.mark.parametrize("batch", BATCHES, ids=str)
@pytest.mark.parametrize("lower", [0, 1])
@pytest.mark.parametrize("how", LAYOUTS)
def test_heevd(dt, batch, lower, how):
    rng = np.random.default_rng(7)
    a0 = herm(rng, batch, 5, dt)
    a, keep = laid_out(a0, how)
    w = np.empty(batch + (5,), real_of(dt))
    v = np.empty(batch + (5, 5), dt)
    assert not _lapack.heevd(a, w, v, lower, 2).any()
    np.testing.assert_array_equal(a, keep)
    w2 = np.empty_like(w)
    assert not _lapack.heevd(a, w2, None, lower, 2).any()
    for i in each(batch):
        ref = sl.eigh(a0[i], eigvals_only=True)
        close(w[i], ref, dt, scale=5)
        close(w2[i], ref, dt, scale=5)
        close((v[i] * w[i]) @ H(v[i]), a0[i], dt, scale=5)
        close(H(v[i]) @ v[i], np.eye(5), dt)


# ---------------------------------------------------------------- gesdd

@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
@pytest.mark.parametrize("mn", [(5, 5), (6, 3), (3, 6)], ids=str)
@pytest.mark.parametrize("full", [0, 1])
@pytest.mark.parametrize("how", LAYOUTS)
@pytest.mark.parametrize("driver", ["gesdd", "gesvd"])
def test_gesdd(dt, mn, full, how, driver):
    rng = np.random.default_rng(8)
    m, n = mn
    k = min(m, n)
    batch = (3, 2)
    a0 = rand(rng, batch + (m, n), dt)
    a, keep = laid_out(a0, how)
    s = np.empty(batch + (k,), real_of(dt))
    u = np.empty(batch + ((m, m) if full else (m, k)), dt)
    vt = np.empty(batch + ((n, n) if full else (k, n)), dt)
    kernel = getattr(_lapack, driver)
    assert not kernel(a, s, u, vt, full, 2).any()
    np.testing.assert_array_equal(a, keep)
    s2 = np.empty_like(s)
    assert not kernel(a, s2, None, None, full, 2).any()
    for i in each(batch):
        ref = sl.svd(a0[i], compute_uv=False)
        if driver == "gesvd":  # the same routine as scipy's: the same vectors
            ru, _, rvt = sl.svd(a0[i], full_matrices=bool(full), lapack_driver="gesvd")
            close(u[i], ru, dt)
            close(vt[i], rvt, dt)
        close(s[i], ref, dt, scale=5)
        close(s2[i], ref, dt, scale=5)
        close((u[i][:, :k] * s[i]) @ vt[i][:k], a0[i], dt, scale=5)
        close(H(u[i]) @ u[i], np.eye(u.shape[-1]), dt)
        close(vt[i] @ H(vt[i]), np.eye(vt.shape[-2]), dt)


# ---------------------------------------------------------------- edge cases

@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
def test_zero_stride_batch(dt):
    rng = np.random.default_rng(9)
    a1 = spd(rng, (), 4, dt)
    a = np.broadcast_to(a1, (3, 4, 4))
    b = np.broadcast_to(rand(rng, (4, 2), dt), (3, 4, 2))
    c = np.empty((3, 4, 4), dt)
    assert not _lapack.potrf(a, c, 1, 2).any()
    ref = sl.cholesky(a1, lower=True)
    for i in range(3):
        close(c[i], ref, dt)
    out = np.empty((3, 4, 2), dt)
    assert not _lapack.potrs(np.broadcast_to(c[0], (3, 4, 4)), b, out, 1, 2).any()
    close(out, np.broadcast_to(sl.cho_solve((ref, True), b[0]), (3, 4, 2)), dt)
    w = np.empty((3, 4), real_of(dt))
    v = np.empty((3, 4, 4), dt)
    assert not _lapack.heevd(a, w, v, 0, 2).any()
    close(w, np.broadcast_to(sl.eigh(a1, eigvals_only=True), (3, 4)), dt, scale=10)
    s = np.empty((3, 4), real_of(dt))
    assert not _lapack.gesdd(a, s, None, None, 0, 2).any()
    close(s, np.broadcast_to(sl.svd(a1, compute_uv=False), (3, 4)), dt, scale=10)
    lu = np.empty((3, 4, 4), dt)
    piv = np.empty((3, 4), np.int32)
    assert not _lapack.getrf(a, lu, piv, 2).any()
    rlu, rpiv = sl.lu_factor(a1)
    close(lu, np.broadcast_to(rlu, (3, 4, 4)), dt, scale=10)
    out = np.empty((3, 4, 2), dt)
    assert not _lapack.getrs(lu, np.broadcast_to(piv[0], (3, 4)), b, out, 0, 2).any()
    close(out, np.broadcast_to(sl.lu_solve((rlu, rpiv), b[0]), (3, 4, 2)), dt, scale=10)


@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
@pytest.mark.parametrize("batch,n", [((), 0), ((3,), 0), ((0,), 4), ((2, 0), 3)], ids=str)
def test_empty(dt, batch, n):
    a = np.ones(batch + (n, n), dt)
    b = np.ones(batch + (n, 2), dt)
    r = real_of(dt)
    for info in [
        _lapack.potrf(a, np.empty_like(a), 1, 2),
        _lapack.potrs(a, b, np.empty_like(b), 0, 2),
        _lapack.trtrs(a, b, np.empty_like(b), 0, 1, 0, 2),
        _lapack.getrf(a, np.empty_like(a), np.empty(batch + (n,), np.int32), 2),
        _lapack.getrs(a, np.zeros(batch + (n,), np.int32), b, np.empty_like(b), 0, 2),
        _lapack.heevd(a, np.empty(batch + (n,), r), np.empty_like(a), 1, 2),
        _lapack.heevd(a, np.empty(batch + (n,), r), None, 1, 2),
        _lapack.gesdd(a, np.empty(batch + (n,), r), np.empty_like(a), np.empty_like(a), 1, 2),
    ]:
        assert info.shape == batch and info.dtype == np.int32 and not info.any()


@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
def test_gesdd_empty_dim_full(dt):
    a = np.ones((2, 3, 0), dt)
    u = np.empty((2, 3, 3), dt)
    vt = np.empty((2, 0, 0), dt)
    info = _lapack.gesdd(a, np.empty((2, 0), real_of(dt)), u, vt, 1, 1)
    assert not info.any()
    np.testing.assert_array_equal(u, np.broadcast_to(np.eye(3), (2, 3, 3)))


@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
def test_parallel_equals_serial(dt):
    rng = np.random.default_rng(10)
    a = spd(rng, (64,), 4, dt)
    res = {}
    for nt in (1, 2):
        w = np.empty((64, 4), real_of(dt))
        v = np.empty((64, 4, 4), dt)
        c = np.empty((64, 4, 4), dt)
        s = np.empty((64, 4), real_of(dt))
        u = np.empty((64, 4, 4), dt)
        vt = np.empty((64, 4, 4), dt)
        lu = np.empty((64, 4, 4), dt)
        piv = np.empty((64, 4), np.int32)
        infos = [_lapack.heevd(a, w, v, 1, nt), _lapack.potrf(a, c, 1, nt),
                 _lapack.gesdd(a, s, u, vt, 0, nt), _lapack.getrf(a, lu, piv, nt)]
        assert not any(i.any() for i in infos)
        res[nt] = (w, v, c, s, u, vt, lu, piv)
    for x1, x2 in zip(res[1], res[2]):
        np.testing.assert_array_equal(x1, x2)
    for i in range(64):
        close(res[2][2][i], sl.cholesky(a[i], lower=True), dt)


def test_parallel_path_taken_for_small_batches():
    """The 64 x 4 x 4 batch is above the work threshold (it runs batch-parallel)."""
    t = _lapack._set_tuning()
    assert t["small_n"] >= 4 and 64 * (4 ** 3 + 512) >= t["par_min_work"]


def test_errors():
    a = np.eye(3)
    with pytest.raises(TypeError, match="_lapack.potrf: no loop for int64"):
        _lapack.potrf(np.eye(3, dtype=np.int64), np.empty((3, 3), np.int64), 1, 1)
    with pytest.raises(TypeError, match="_lapack.potrf"):
        _lapack.potrf(a, np.empty((3, 3), np.float32), 1, 1)
    with pytest.raises(ValueError, match="_lapack.potrf: a must be square"):
        _lapack.potrf(np.ones((3, 4)), np.empty((3, 4)), 1, 1)
    with pytest.raises(ValueError, match="_lapack.potrs"):
        _lapack.potrs(a, np.ones((4, 2)), np.empty((4, 2)), 1, 1)
    with pytest.raises(ValueError, match="_lapack.trtrs: trans"):
        _lapack.trtrs(a, np.ones((3, 1)), np.empty((3, 1)), 1, 3, 0, 1)
    with pytest.raises(TypeError, match="_lapack.getrf: piv"):
        _lapack.getrf(a, np.empty((3, 3)), np.empty(3, np.int64), 1)
    with pytest.raises(TypeError, match="_lapack.heevd: w"):
        _lapack.heevd(a, np.empty(3, np.complex128), None, 1, 1)
    with pytest.raises(ValueError, match="_lapack.gesdd"):
        _lapack.gesdd(a, np.empty(3), np.empty((3, 3)), None, 1, 1)
    with pytest.raises(ValueError, match="_lapack.heevd: v has shape"):
        _lapack.heevd(np.ones((2, 3, 3)), np.empty((2, 3)), np.empty((3, 3, 3)), 1, 1)
    ro = np.empty((3, 3))
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        _lapack.potrf(a, ro, 1, 1)


@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
@pytest.mark.parametrize("mid_n", [0, 256])
def test_large_matrices(dt, mid_n):
    """Matrices above SMALL_N: with mid_n 0 the batch is looped serially and LAPACK
    gets nthreads threads; with 256 (the default) a batch >= nthreads goes over threads."""
    rng = np.random.default_rng(11)
    n = 90
    a = spd(rng, (2,), n, dt)
    c = np.empty_like(a)
    w = np.empty((2, n), real_of(dt))
    v = np.empty_like(a)
    s = np.empty((2, n), real_of(dt))
    u = np.empty_like(a)
    vt = np.empty_like(a)
    old = _lapack._set_tuning(mid_n=mid_n)
    try:
        assert not _lapack.potrf(a, c, 0, 2).any()
        assert not _lapack.heevd(a, w, v, 1, 2).any()
        assert not _lapack.gesdd(a, s, u, vt, 1, 2).any()
    finally:
        _lapack._set_tuning(**old)
    for i in range(2):
        scale = float(np.abs(a[i]).max())
        close(H(c[i]) @ c[i], a[i], dt, scale=scale)
        close((v[i] * w[i]) @ H(v[i]), a[i], dt, scale=scale * n)
        close((u[i] * s[i]) @ vt[i], a[i], dt, scale=scale * n)
        close(s[i], w[i][::-1], dt, scale=scale * n)


# ---------------------------------------------------------------- gelsd (least squares)

@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
@pytest.mark.parametrize("mn", [(6, 3), (3, 6), (4, 4)], ids=str)
@pytest.mark.parametrize("batch", [(), (3, 2)], ids=str)
@pytest.mark.parametrize("how", LAYOUTS)
def test_gelsd(dt, mn, batch, how):
    rng = np.random.default_rng(10)
    m, n = mn
    a0, b0 = rand(rng, batch + (m, n), dt), rand(rng, batch + (m, 2), dt)
    a, b = matrix_layout(a0.copy(), how), matrix_layout(b0.copy(), how)
    keep_a, keep_b = a.copy(), b.copy()
    x = matrix_layout(np.full(batch + (n, 2), 7, dt), how)
    s = np.empty(batch + (min(m, n),), real_of(dt))
    rank = np.full(batch, -1, np.int32)
    info = _lapack.gelsd(a, b, x, s, rank, -1.0, 2)
    assert info.shape == batch and info.dtype == np.int32 and not info.any()
    np.testing.assert_array_equal(a, keep_a)
    np.testing.assert_array_equal(b, keep_b)
    for i in each(batch):
        rx, _, rr, rs = sl.lstsq(a0[i], b0[i], lapack_driver="gelsd")
        close(x[i], rx, dt, scale=10)
        close(s[i], rs, dt, scale=10)
        assert rank[i] == rr == min(m, n)


@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
@pytest.mark.parametrize("mn", [(6, 4), (4, 6)], ids=str)
def test_gelsd_rank_deficient(dt, mn):
    rng = np.random.default_rng(11)
    m, n = mn
    a0 = (rand(rng, (3, m, 2), dt) @ rand(rng, (3, 2, n), dt)).astype(dt)  # rank 2
    b0 = rand(rng, (3, m, 3), dt)
    x = np.empty((3, n, 3), dt)
    s = np.empty((3, min(m, n)), real_of(dt))
    rank = np.empty(3, np.int32)
    assert not _lapack.gelsd(a0, b0, x, s, rank, 1e-4, 2).any()
    np.testing.assert_array_equal(rank, 2)
    for i in range(3):
        rx, _, rr, rs = sl.lstsq(a0[i], b0[i], cond=1e-4, lapack_driver="gelsd")
        assert rr == 2
        close(x[i], rx, dt, scale=10)       # the minimum-norm solution, as scipy's
        close(x[i], np.linalg.pinv(a0[i], rcond=1e-4) @ b0[i], dt, scale=10)
        close(s[i], rs, dt, scale=10)
    # rcond < 0: LAPACK's machine precision (?lamch('E') = finfo.eps / 2): every singular
    # value above it * s_max counts (scipy passes finfo.eps instead; the wrapper does too)
    _lapack.gelsd(a0, b0, x, s, rank, -1.0, 2)
    eps = np.finfo(real_of(dt)).eps / 2
    np.testing.assert_array_equal(rank, (s > eps * s[:, :1]).sum(-1))


@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
def test_gelsd_zero_stride_and_empty(dt):
    rng = np.random.default_rng(12)
    a1, b1 = rand(rng, (5, 3), dt), rand(rng, (5, 2), dt)
    x = np.empty((4, 3, 2), dt)
    s = np.empty((4, 3), real_of(dt))
    rank = np.empty(4, np.int32)
    assert not _lapack.gelsd(np.broadcast_to(a1, (4, 5, 3)), np.broadcast_to(b1, (4, 5, 2)),
                             x, s, rank, -1.0, 2).any()
    close(x, np.broadcast_to(sl.lstsq(a1, b1)[0], (4, 3, 2)), dt, scale=10)
    for batch, m, n, k in [((), 0, 3, 2), ((2,), 3, 0, 2), ((0,), 3, 2, 1), ((2,), 3, 2, 0)]:
        x = np.full(batch + (n, k), 7, dt)
        rank = np.full(batch, -1, np.int32)
        info = _lapack.gelsd(np.ones(batch + (m, n), dt), np.ones(batch + (m, k), dt), x,
                             np.empty(batch + (min(m, n),), real_of(dt)), rank, -1.0, 2)
        assert info.shape == batch and not info.any()
        if min(m, n) == 0:
            assert not x.any() and not rank.any()
        else:
            np.testing.assert_array_equal(rank, 1)   # ones((3, 2)) has rank 1


def test_gelsd_argument_errors():
    a, b = np.ones((4, 3)), np.ones((4, 2))
    s, rank = np.empty(3), np.empty((), np.int32)
    with pytest.raises(ValueError, match=r"gelsd: x has shape \(4, 2\), expected \(3, 2\)"):
        _lapack.gelsd(a, b, np.empty((4, 2)), s, rank, -1.0, 1)
    with pytest.raises(TypeError, match="gelsd: s has dtype float32, expected float64"):
        _lapack.gelsd(a, b, np.empty((3, 2)), s.astype(np.float32), rank, -1.0, 1)
    with pytest.raises(ValueError, match=r"gelsd: b has shape \(3, 2\), expected \(4, 2\)"):
        _lapack.gelsd(a, np.ones((3, 2)), np.empty((3, 2)), s, rank, -1.0, 1)


# ---------------------------------------------------------------- geqrf (QR), rectangular getrf

@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
@pytest.mark.parametrize("mn", [(5, 5), (6, 3), (3, 6)], ids=str)
@pytest.mark.parametrize("full", [0, 1])
@pytest.mark.parametrize("how", LAYOUTS)
def test_geqrf(dt, mn, full, how):
    rng = np.random.default_rng(12)
    m, n = mn
    k = min(m, n)
    batch = (3, 2)
    a0 = rand(rng, batch + (m, n), dt)
    a, keep = laid_out(a0, how)
    rows = m if full else k
    q = matrix_layout(np.empty(batch + (m, rows), dt), how)
    r = matrix_layout(np.empty(batch + (rows, n), dt), how)
    assert not _lapack.geqrf(a, q, r, full, 2).any()
    np.testing.assert_array_equal(a, keep)
    r2 = np.empty_like(r)
    assert not _lapack.geqrf(a, None, r2, full, 2).any()
    np.testing.assert_array_equal(r2, r)
    for i in each(batch):
        rq, rr = sl.qr(a0[i], mode="full" if full else "economic")
        close(q[i], rq, dt)     # the same LAPACK routines as scipy: the same signs
        close(r[i], rr, dt, scale=5)
        close(q[i] @ r[i], a0[i], dt, scale=5)


@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
@pytest.mark.parametrize("mn", [(6, 3), (3, 6)], ids=str)
@pytest.mark.parametrize("how", LAYOUTS)
def test_getrf_rectangular(dt, mn, how):
    rng = np.random.default_rng(13)
    a0 = rand(rng, (2,) + mn, dt)
    a = matrix_layout(a0.copy(), how)
    lu = matrix_layout(np.empty((2,) + mn, dt), how)
    piv = np.empty((2, 3), np.int32)
    assert not _lapack.getrf(a, lu, piv, 2).any()
    for i in range(2):
        rlu, rpiv = sl.lu_factor(a0[i])
        close(lu[i], rlu, dt)
        np.testing.assert_array_equal(piv[i], rpiv)
    a0[1, :, 1] = 0                    # U[1, 1] == 0: info 2 for that matrix
    a0[1, :, 0] = np.arange(1, mn[0] + 1)
    info = _lapack.getrf(a0, lu, piv, 1)
    assert info[0] == 0 and info[1] == 2


@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
@pytest.mark.parametrize("shape", [(2, 3, 0), (2, 0, 3), (0, 4, 2)], ids=str)
def test_geqrf_getrf_empty(dt, shape):
    m, n = shape[-2:]
    k = min(m, n)
    a = np.ones(shape, dt)
    q = np.full(shape[:-2] + (m, m), 7, dt)
    r = np.full(shape[:-2] + (m, n), 7, dt)
    assert not _lapack.geqrf(a, q, r, 1, 2).any()
    np.testing.assert_array_equal(q, np.broadcast_to(np.eye(m), q.shape))
    np.testing.assert_array_equal(r, np.zeros(r.shape))
    info = _lapack.getrf(a, np.empty(shape, dt), np.empty(shape[:-2] + (k,), np.int32), 2)
    assert info.shape == shape[:-2] and not info.any()


@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
def test_geqrf_parallel_equals_serial_and_large(dt):
    rng = np.random.default_rng(14)
    a = rand(rng, (64, 5, 4), dt)
    res = []
    for nt in (1, 2):
        q, r = np.empty((64, 5, 4), dt), np.empty((64, 4, 4), dt)
        assert not _lapack.geqrf(a, q, r, 0, nt).any()
        res.append((q, r))
    for x1, x2 in zip(*res):
        np.testing.assert_array_equal(x1, x2)
    big = rand(rng, (2, 90, 70), dt)   # above SMALL_N: blocked LAPACK, serial batch loop
    q, r = np.empty((2, 90, 90), dt), np.empty((2, 90, 70), dt)
    assert not _lapack.geqrf(big, q, r, 1, 2).any()
    for i in range(2):
        close(q[i] @ r[i], big[i], dt, scale=90)
        close(H(q[i]) @ q[i], np.eye(90), dt, scale=90)


def test_geqrf_errors():
    a = np.ones((4, 3))
    with pytest.raises(TypeError, match="_lapack.geqrf: no loop for int64"):
        _lapack.geqrf(np.ones((4, 3), np.int64), None, np.empty((4, 3), np.int64), 1, 1)
    with pytest.raises(TypeError, match="_lapack.geqrf: r has dtype float32, expected float64"):
        _lapack.geqrf(a, None, np.empty((4, 3), np.float32), 1, 1)
    with pytest.raises(TypeError, match="_lapack.geqrf: q has dtype"):
        _lapack.geqrf(a, np.empty((4, 4), np.complex128), np.empty((4, 3)), 1, 1)
    with pytest.raises(ValueError, match=r"_lapack.geqrf: r has shape \(4, 3\), expected "
                                         r"\(3, 3\)"):
        _lapack.geqrf(a, None, np.empty((4, 3)), 0, 1)
    with pytest.raises(ValueError, match=r"_lapack.geqrf: q has shape \(4, 3\), expected "
                                         r"\(4, 4\)"):
        _lapack.geqrf(a, np.empty((4, 3)), np.empty((4, 3)), 1, 1)
    with pytest.raises(ValueError, match=r"_lapack.getrf: piv has shape \(4,\), expected "
                                         r"\(3,\)"):
        _lapack.getrf(a, np.empty((4, 3)), np.empty(4, np.int32), 1)
    ro = np.empty((4, 3))
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="_lapack.geqrf: r is read-only"):
        _lapack.geqrf(a, None, ro, 1, 1)


# ---------------------------------------------------------------- geev

def cplx_of(dt):
    return np.dtype(np.complex64) if dt in (np.float32, np.complex64) else np.dtype(np.complex128)


def geev_all(a, nt=2, left=True, right=True, b=None):
    """(w, vl, vr) from geev (ggev with b), each output asked for unless left/right
    say no, and info checked to be all zero."""
    dt = cplx_of(a.dtype)
    w = np.empty(a.shape[:-1], dt)
    vl = np.empty(a.shape, dt) if left else None
    vr = np.empty(a.shape, dt) if right else None
    info = (_lapack.geev(a, w, vl, vr, nt) if b is None else
            _lapack.ggev(a, b, w, vl, vr, nt))
    assert info.shape == a.shape[:-2] and info.dtype == np.int32 and not info.any()
    return w, vl, vr


@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
@pytest.mark.parametrize("batch", BATCHES, ids=str)
@pytest.mark.parametrize("how", LAYOUTS)
def test_geev(dt, batch, how):
    # the same LAPACK routine as scipy.linalg.eig: the same values in the same order,
    # the same vectors (unit norm, largest component real; real input's pairs unpacked)
    rng = np.random.default_rng(12)
    a0 = rand(rng, batch + (5, 5), dt)
    a, keep = laid_out(a0, how)
    w, vl, vr = geev_all(a)
    np.testing.assert_array_equal(a, keep)
    w2, _, vr2 = geev_all(a, left=False)
    w3, vl3, _ = geev_all(a, right=False)
    w4, _, _ = geev_all(a, left=False, right=False)
    for i in each(batch):
        ws, vls, vrs = sl.eig(a0[i], left=True)
        for x in (w, w2, w3, w4):
            close(x[i], ws, dt, scale=5)
        for x in (vr, vr2):
            close(x[i], vrs, dt, scale=10)
        for x in (vl, vl3):
            close(x[i], vls, dt, scale=10)
        close(a0[i] @ vr[i], vr[i] * w[i], dt, scale=10)
        close(H(vl[i]) @ a0[i], w[i][:, None] * H(vl[i]), dt, scale=10)


@pytest.mark.parametrize("dt", DTYPES[:2], ids=IDS[:2])
def test_geev_real_pairs_unpacked(dt):
    a = np.array([[0, -2, 0], [2, 0, 0], [0, 0, 1]], dt)   # eigenvalues +-2i, 1
    w, vl, vr = geev_all(a)
    np.testing.assert_allclose(np.sort_complex(w), [-2j, 2j, 1], atol=1e-6)
    p, q = np.flatnonzero(w.imag > 0)[0], np.flatnonzero(w.imag < 0)[0]
    np.testing.assert_array_equal(vr[:, q], np.conj(vr[:, p]))
    np.testing.assert_array_equal(vl[:, q], np.conj(vl[:, p]))
    close(a @ vr, vr * w, dt)


@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
def test_geev_batch_edge_cases(dt):
    rng = np.random.default_rng(13)
    a1 = rand(rng, (4, 4), dt)
    w, vl, vr = geev_all(np.broadcast_to(a1, (3, 4, 4)))    # zero-stride batch
    ws, vls, vrs = sl.eig(a1, left=True)
    for i in range(3):
        close(w[i], ws, dt, scale=5)
        close(vr[i], vrs, dt, scale=10)
    for batch, n in [((), 0), ((3,), 0), ((0,), 4), ((2, 0), 3)]:
        w, vl, vr = geev_all(np.ones(batch + (n, n), dt))
        assert w.shape == batch + (n,) and vr.shape == vl.shape == batch + (n, n)
    # a matrix with infs or NaNs: NaN outputs for it only, info 0
    a = np.stack([a1, a1])
    a[1, 2, 1] = np.nan if dt.kind == "f" else complex(np.inf, 0)
    w, vl, vr = geev_all(a)
    assert np.isnan(w[1]).all() and np.isnan(vl[1]).all() and np.isnan(vr[1]).all()
    close(w[0], ws, dt, scale=5)


@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
@pytest.mark.parametrize("mid_n", [0, 256])
def test_geev_parallel_serial_and_large(dt, mid_n):
    rng = np.random.default_rng(14)
    a = rand(rng, (64, 4, 4), dt)
    r1, r2 = geev_all(a, nt=1), geev_all(a, nt=2)
    for x1, x2 in zip(r1, r2):
        np.testing.assert_array_equal(x1, x2)
    big = rand(rng, (2, 70, 70), dt)
    old = _lapack._set_tuning(mid_n=mid_n)
    try:
        w, vl, vr = geev_all(big)
    finally:
        _lapack._set_tuning(**old)
    for i in range(2):
        close(big[i] @ vr[i], vr[i] * w[i], dt, scale=70)
        close(H(vl[i]) @ big[i], w[i][:, None] * H(vl[i]), dt, scale=70)


def test_geev_errors():
    a = np.eye(3)
    with pytest.raises(TypeError, match="_lapack.geev: w has dtype float64, expected "
                                        "complex128"):
        _lapack.geev(a, np.empty(3), None, None, 1)
    with pytest.raises(TypeError, match="_lapack.geev: vr has dtype complex64"):
        _lapack.geev(a, np.empty(3, np.complex128), None, np.empty((3, 3), np.complex64), 1)
    with pytest.raises(ValueError, match="_lapack.geev: vl has shape"):
        _lapack.geev(a, np.empty(3, np.complex128), np.empty((3, 2), np.complex128), None, 1)
    with pytest.raises(ValueError, match="_lapack.geev: a must be square"):
        _lapack.geev(np.ones((3, 4)), np.empty(3, np.complex128), None, None, 1)
    with pytest.raises(TypeError, match="_lapack.geev: no loop for int64"):
        _lapack.geev(np.eye(3, dtype=np.int64), np.empty(3, np.complex128), None, None, 1)


# ---------------------------------------------------------------- ggev

def ggev_all(a, b, nt=2, left=True, right=True):
    return geev_all(a, nt, left, right, b=b)


@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
@pytest.mark.parametrize("batch", BATCHES, ids=str)
@pytest.mark.parametrize("how", LAYOUTS)
def test_ggev(dt, batch, how):
    # as scipy.linalg.eig(a, b): the same values in the same order, the same vectors
    # (scipy scales ?ggev's vectors to unit norm too)
    rng = np.random.default_rng(15)
    a0 = rand(rng, batch + (5, 5), dt)
    b0 = rand(rng, batch + (5, 5), dt)
    a, b = matrix_layout(a0.copy(), how), matrix_layout(b0.copy(), how)
    keep = (a.copy(), b.copy())
    w, vl, vr = ggev_all(a, b)
    np.testing.assert_array_equal(a, keep[0])
    np.testing.assert_array_equal(b, keep[1])
    w2, _, vr2 = ggev_all(a, b, left=False)
    w3, vl3, _ = ggev_all(a, b, right=False)
    w4, _, _ = ggev_all(a, b, left=False, right=False)
    for i in each(batch):
        ws, vls, vrs = sl.eig(a0[i], b0[i], left=True)
        s = 5 * max(1, np.abs(ws).max())
        for x in (w, w2, w3, w4):
            close(x[i], ws, dt, scale=s)
        for x in (vr, vr2):
            close(x[i], vrs, dt, scale=s)
        for x in (vl, vl3):
            close(x[i], vls, dt, scale=s)
        close(np.linalg.norm(vr[i], axis=0), np.ones(5), dt)
        close(a0[i] @ vr[i], b0[i] @ vr[i] * w[i], dt, scale=s)
        close(H(vl[i]) @ a0[i], w[i][:, None] * (H(vl[i]) @ b0[i]), dt, scale=s)


@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
def test_ggev_edge_cases(dt):
    # infinite eigenvalues (singular b) and 0 / 0 as scipy; NaN input; empty; zero strides
    a = np.array([[1, 2, 0], [0, 3, 1], [1, 0, 2]], dt)
    b = np.diag([1, 0, 0]).astype(dt)
    w, _, vr = ggev_all(a, b)
    ws = sl.eigvals(a, b)
    assert np.isinf(w.real).sum() == np.isinf(ws.real).sum() == 2
    close(w[np.isfinite(w)], ws[np.isfinite(ws)], dt, scale=5)
    w, _, _ = ggev_all(np.zeros((2, 2), dt), np.zeros((2, 2), dt))
    np.testing.assert_array_equal(w, sl.eigvals(np.zeros((2, 2), dt), np.zeros((2, 2), dt)))
    rng = np.random.default_rng(16)
    a1, b1 = rand(rng, (4, 4), dt), rand(rng, (4, 4), dt)
    aa, bb = np.stack([a1, a1]), np.stack([b1, b1])
    bb[1, 0, 0] = np.nan
    w, vl, vr = ggev_all(aa, bb)
    assert np.isnan(w[1]).all() and np.isnan(vl[1]).all() and np.isnan(vr[1]).all()
    close(w[0], sl.eigvals(a1, b1), dt, scale=10 * max(1, np.abs(w[0]).max()))
    w, vl, vr = ggev_all(np.broadcast_to(a1, (3, 4, 4)), np.broadcast_to(b1, (3, 4, 4)))
    for i in range(3):
        np.testing.assert_array_equal(w[i], w[0])
    for batch, n in [((), 0), ((3,), 0), ((0,), 4), ((2, 0), 3)]:
        w, vl, vr = ggev_all(np.ones(batch + (n, n), dt), np.ones(batch + (n, n), dt))
        assert w.shape == batch + (n,) and vr.shape == vl.shape == batch + (n, n)


@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
def test_ggev_parallel_equals_serial(dt):
    rng = np.random.default_rng(17)
    a, b = rand(rng, (64, 4, 4), dt), rand(rng, (64, 4, 4), dt)
    for x1, x2 in zip(ggev_all(a, b, nt=1), ggev_all(a, b, nt=2)):
        np.testing.assert_array_equal(x1, x2)


def test_ggev_errors():
    a = np.eye(3)
    c = np.empty(3, np.complex128)
    with pytest.raises(TypeError, match="_lapack.ggev: b has dtype float32, expected float64"):
        _lapack.ggev(a, np.eye(3, dtype=np.float32), c, None, None, 1)
    with pytest.raises(ValueError, match="_lapack.ggev: b has shape"):
        _lapack.ggev(a, np.eye(2), c, None, None, 1)
    with pytest.raises(TypeError, match="_lapack.ggev: w has dtype complex64"):
        _lapack.ggev(a, a, np.empty(3, np.complex64), None, None, 1)
    with pytest.raises(ValueError, match="_lapack.ggev: vr has shape"):
        _lapack.ggev(a, a, c, None, np.empty((2, 3, 3), np.complex128), 1)
