"""tenferro.linalg's primitives on CUDA, through cuSOLVER and cuBLAS (:mod:`.libs`).

tenferro.linalg registers these with ``def_impl(prim, "cuda", ...)`` beside its CPU
implementations and imports this module at the first call.  Each function takes the
primitive's device arrays and parameters; those whose LAPACK call can fail return
``(outputs, info)``, ``info`` a host int32 array over the batch that tenferro.linalg
turns into the CPU's LinAlgError (a negative ``info`` -- a wrong argument, a bug here
-- raises RuntimeError at once).  Results are what the CPU's functions return: the
same shapes and dtypes, C-contiguous, factors packed the same way, pivots 0-based.

cuSOLVER is column-major.  A matrix is handed to it as a column-major copy
(:func:`.matrices.fortran`), except where the transpose is as good: Cholesky of the row-major
copy (the transpose of a Hermitian matrix, factored from the other triangle, is the
row-major factor), triangular solves from the right on the transposed right-hand
sides, and the SVD of a wide matrix (the SVD of its transpose, whose factors, read
row-major, are the wide matrix's).  Small matrices in batches go to the batched
routines (``potrfBatched``, ``syevjBatched``, ``gesvdjBatched``), others one matrix at
a time.  ``vector_norm`` is the driver's own kernels (:mod:`.norm`).  tenferro.linalg's
primitives with no function here (eig, lstsq, pinv) raise UnsupportedOperation on
CUDA: there is no host fallback.
"""
import functools
import itertools
import math

import numpy as np

from ... import _dtypes
from . import matrices as mx
from .array import from_numpy, new, zeros
from .cmath import CTYPE
from .elementwise import assign, contiguous_copy, full
from .kernels import LOOP, kernel, launch
from .libs import JACOBI_MAX, LOWER, NON_UNIT, NOVECTOR, OP_N, RIGHT, UNIT, UPPER, VECTOR
from .matmul import blas_operand
from . import norm
from .norm import vector_norm  # noqa: F401 (tenferro.linalg finds it here)

I32 = mx.I32
_REAL = {_dtypes.complex64: _dtypes.float32, _dtypes.complex128: _dtypes.float64}
_FLOATS = (_dtypes.float32, _dtypes.float64, _dtypes.complex64, _dtypes.complex128)
BATCHED_MAX = 32     # the batched routines for batches of matrices up to this size


# -- kernels ------------------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def _det_kernel(dtype):
    """det from column-major LU factors [batch, n, n] and 1-based pivots [batch, n]:
    the product of U's diagonal, negated per row swap.  Words: lu, ipiv, out; batch,
    n."""
    body = ("    typedef %s T;\n" % CTYPE[dtype]
            + LOOP
            + "        const long long k = p.m[1];\n"
              "        const T* a = (const T*)p.p[0] + i * k * k;\n"
              "        const int* piv = (const int*)p.p[1] + i * k;\n"
              "        T d = a[0];\n"
              "        bool neg = piv[0] != 1;\n"
              "        for (long long j = 1; j < k; ++j) {\n"
              "            d = tf_multiply(d, a[j * (k + 1)]);\n"
              "            if (piv[j] != j + 1) neg = !neg;\n"
              "        }\n"
              "        ((T*)p.p[2])[i] = neg ? tf_negative(d) : d;\n    }\n")
    return kernel("k_det_" + dtype.name, body, 3, 2)


@functools.lru_cache(maxsize=None)
def _permutation_kernel():
    """The row permutation [batch, m] (int64) of 0-based pivots [batch, k] (int32), or
    its inverse (m[3]).  Words: piv, work, out; batch, m, k, inverse."""
    body = LOOP + r"""        const long long m = p.m[1], k = p.m[2];
        const int* piv = (const int*)p.p[0] + i * k;
        long long* w = (long long*)p.p[1] + i * m;
        for (long long j = 0; j < m; ++j) w[j] = j;
        for (long long j = 0; j < k; ++j) {
            const long long t = w[j]; w[j] = w[piv[j]]; w[piv[j]] = t;
        }
        if (p.m[3]) {
            long long* o = (long long*)p.p[2] + i * m;
            for (long long j = 0; j < m; ++j) o[w[j]] = j;
        }
    }
"""
    return kernel("k_lu_permutation", body, 3, 4)


def all_kernels():
    """The kernels of this module and :mod:`.norm` (for ``compile_all``)."""
    return ([mx.triangle_kernel(s) for s in (4, 8, 16)]
            + [_det_kernel(d) for d in _FLOATS] + [_permutation_kernel()]
            + norm.all_kernels())


# -- Cholesky and triangular solves -----------------------------------------------------------

def cholesky(a, *, lower):
    """``(factor, info)``.  The row-major copy of ``a`` is, column-major, its transpose:
    factored from the other triangle it gives the row-major factor itself."""
    n = a.shape[-1]
    out = contiguous_copy(a)
    info = zeros(a.shape[:-2], I32, a.device)
    lib, dt, uplo = mx.lib_of(a), a.dtype, UPPER if lower else LOWER
    mats = mx.matrices(out)
    if n and 1 < len(mats) and n <= BATCHED_MAX:
        ptrs = mx.pointer_array(mats, a.device)   # (alive until the call is queued)
        lib.potrf_batched(dt, uplo, n, ptrs.ptr, n, info.ptr, len(mats))
    elif n:
        for p, q in zip(mats, mx.entries(info)):
            lib.potrf(dt, uplo, n, p, n, q)
    mx.zero_triangle(out, upper=lower)
    return out, mx.infos(info)


def triangular_solve(a, b, *, lower, trans, unit_diagonal):
    """``(x, info)``: op(T) X = B solved as X^T op(T)^T = B^T, trsm from the right on
    the row-major copy of b (column-major: B^T); row-major a is, column-major, T^T,
    whose other triangle and the same ``trans`` give op(T)^T."""
    n, k = b.shape[-2:]
    info = np.zeros(a.shape[:-2], np.int32) if unit_diagonal else mx.diagonal_info(a)
    out = contiguous_copy(b)
    if not out.size or info.any():
        return out, info
    how = blas_operand(n, n, *a.estrides[-2:])
    if how is None or how[0] != OP_N:      # read in place when row-major, else copied
        a = contiguous_copy(a)
        how = blas_operand(n, n, *a.estrides[-2:])
    lib, lda = mx.lib_of(b), how[1]
    flags = (RIGHT, UPPER if lower else LOWER, trans, UNIT if unit_diagonal else NON_UNIT)
    pas, pbs = mx.matrices(a), mx.matrices(out)
    if len(pas) > 1:
        aptrs, bptrs = mx.pointer_array(pas, a.device), mx.pointer_array(pbs, a.device)
        lib.trsm_batched(b.dtype, *flags, k, n, aptrs.ptr, lda, bptrs.ptr, k, len(pas))
    else:
        lib.trsm(b.dtype, *flags, k, n, pas[0], lda, pbs[0], k)
    return out, info


# -- LU ---------------------------------------------------------------------------------------

def _getrf(a):
    """(column-major LU factors, 1-based int32 pivots, host info) of each a[..., m, n]."""
    m, n = a.shape[-2:]
    f = mx.fortran(a)
    ipiv = new(a.shape[:-2] + (min(m, n),), I32, a.device, "lu_factor")
    info = zeros(a.shape[:-2], I32, a.device)
    lib, mats = mx.lib_of(a), mx.matrices(f)
    if m == n and 1 < len(mats) and n <= BATCHED_MAX:
        ptrs = mx.pointer_array(mats, a.device)
        lib.getrf_batched(a.dtype, n, ptrs.ptr, n, ipiv.ptr, info.ptr, len(mats))
    elif m and n:
        for p, q, r in zip(mats, mx.rows(ipiv), mx.entries(info)):
            lib.getrf(a.dtype, m, n, p, m, q, r)
    return f, ipiv, mx.infos(info)


def lu_factor(a):
    """(lu, piv) as the CPU's: packed factors row-major, pivots 0-based (a zero pivot is
    kept, never raised)."""
    f, ipiv, _ = _getrf(a)
    return contiguous_copy(f), mx.shift(ipiv, -1)


def _getrs(f, ipiv, b, trans):
    """X (column-major) with op(A) X = B for A's column-major LU factors ``f``."""
    n, k = b.shape[-2:]
    x = mx.fortran(b)
    if not (n and k):
        return x
    lib, fs, xs = mx.lib_of(b), mx.matrices(f), mx.matrices(x)
    if 1 < len(fs) and n <= BATCHED_MAX:
        fptrs, xptrs = mx.pointer_array(fs, b.device), mx.pointer_array(xs, b.device)
        lib.getrs_batched(b.dtype, trans, n, k, fptrs.ptr, n, ipiv.ptr, xptrs.ptr, n,
                          len(fs))
        return x
    info = zeros(b.shape[:-2], I32, b.device)
    for p, q, r, s in zip(fs, mx.rows(ipiv), xs, mx.entries(info)):
        lib.getrs(b.dtype, trans, n, k, p, n, q, r, n, s)
    mx.infos(info)
    return x


def lu_solve(lu, piv, b, *, trans):
    """``(x, info)``; info 1 for a matrix with a zero on U's diagonal, as the CPU's."""
    info = (mx.diagonal_info(lu) > 0).astype(np.int32)
    if info.any():
        return contiguous_copy(b), info
    return contiguous_copy(_getrs(mx.fortran(lu), mx.shift(piv, 1), b, trans)), info


def solve(a, b):
    """``((x, lu, piv), info)``: a X = b by getrf + getrs, b [..., n, k] or (a one
    matrix) [n]."""
    vec = b.ndim == 1
    if vec:
        b = b.view(b.shape + (1,), b.estrides + (1,), b.offset)
    f, ipiv, info = _getrf(a)
    x = contiguous_copy(b if info.any() else _getrs(f, ipiv, b, 0))
    if vec:
        x = x.view(x.shape[:-1], x.estrides[:-1], 0)
    return (x, contiguous_copy(f), mx.shift(ipiv, -1)), info


def det(a):
    """The determinant of each a[..., n, n] from its LU factors (0 when singular)."""
    n = a.shape[-1]
    if n == 0 or a.size == 0:
        return full(a.shape[:-2], a.dtype, 1, a.device)
    f, ipiv, _ = _getrf(a)
    out = new(a.shape[:-2], a.dtype, a.device, "det")
    launch(a.storage.backend, _det_kernel(a.dtype), out.size, [f.ptr, ipiv.ptr, out.ptr],
           [out.size, n])
    return out


def lu_permutation(piv, *, m, inverse):
    """The row permutation (int64 [..., m]) of 0-based pivots [..., k], or its inverse."""
    piv = piv if piv.c_contiguous else contiguous_copy(piv)
    shape = piv.shape[:-1] + (m,)
    work = new(shape, _dtypes.int64, piv.device, "lu_permutation")
    out = new(shape, _dtypes.int64, piv.device, "lu_permutation") if inverse else work
    if work.size:
        launch(piv.storage.backend, _permutation_kernel(), math.prod(piv.shape[:-1]),
               [piv.ptr, work.ptr, out.ptr],
               [math.prod(piv.shape[:-1]), m, piv.shape[-1], int(inverse)])
    return out


# -- QR -----------------------------------------------------------------------------------

def qr(a, *, mode):
    """``((q, r) or (r,), info)`` as the CPU's: geqrf on a column-major copy, R its
    upper triangle, Q formed by orgqr/ungqr from the reflectors."""
    m, n = a.shape[-2:]
    k = min(m, n)
    rows = k if mode == "economic" else m
    batch, dt, lib = a.shape[:-2], a.dtype, mx.lib_of(a)
    f = mx.fortran(a)
    tau = new(batch + (k,), dt, a.device, "qr")
    info = zeros(batch, I32, a.device)
    if k:
        for p, t, r in zip(mx.matrices(f), mx.rows(tau), mx.entries(info)):
            lib.geqrf(dt, m, n, p, m, t, r)
    r = contiguous_copy(f.view(batch + (rows, n), f.estrides, f.offset))
    mx.zero_triangle(r, upper=False)
    if mode == "r":
        return (r,), mx.infos(info)
    q = mx.fortran_new(batch, m, rows, dt, a.device, "qr")
    c = min(rows, n)
    if c:
        assign(q.view(batch + (m, c), q.estrides, q.offset),
               f.view(batch + (m, c), f.estrides, f.offset))
    if m and rows:
        for p, t, r_ in zip(mx.matrices(q), mx.rows(tau), mx.entries(info)):
            lib.orgqr(dt, m, rows, k, p, m, t, r_)
    return (contiguous_copy(q), r), mx.infos(info)


def qr_r(a):
    (r,), info = qr(a, mode="r")
    return r, info


# -- eigh -----------------------------------------------------------------------------------

def _eigh(a, lower, vectors):
    """(w, v or None, info): syevjBatched for batches of small matrices, syevd/heevd
    one matrix at a time otherwise."""
    n = a.shape[-1]
    batch, dt, lib = a.shape[:-2], a.dtype, mx.lib_of(a)
    f = mx.fortran(a)
    w = new(batch + (n,), _REAL.get(dt, dt), a.device, "eigh")
    info = zeros(batch, I32, a.device)
    jobz, uplo = VECTOR if vectors else NOVECTOR, LOWER if lower else UPPER
    mats = mx.matrices(f)
    if n and 1 < len(mats) and n <= JACOBI_MAX:
        lib.syevj_batched(dt, jobz, uplo, n, f.ptr, n, w.ptr, info.ptr, len(mats))
    elif n:
        for p, q, r in zip(mats, mx.rows(w), mx.entries(info)):
            lib.syevd(dt, jobz, uplo, n, p, n, q, r)
    return w, (contiguous_copy(f) if vectors else None), mx.infos(info)


def eigh(a, *, lower, broadening):
    """``((w, v), info)``: eigenvalues ascending, eigenvectors in columns."""
    w, v, info = _eigh(a, lower, True)
    return (w, v), info


def eigvalsh(a, *, lower, broadening):
    w, _, info = _eigh(a, lower, False)
    return w, info


# -- SVD ------------------------------------------------------------------------------------

def _gesvdj(a, full_matrices, vectors):
    """(u, s, vh, info) by gesvdjBatched (matrices up to 32 x 32): U [m, m] and V [n, n]
    column-major, cut to the thin factors when asked; vh = V^H."""
    m, n = a.shape[-2:]
    k = min(m, n)
    batch, dt, lib = a.shape[:-2], a.dtype, mx.lib_of(a)
    f = mx.fortran(a)
    s = new(batch + (k,), _REAL.get(dt, dt), a.device, "svd")
    info = zeros(batch, I32, a.device)
    u = mx.fortran_new(batch, m, m, dt, a.device, "svd")
    v = mx.fortran_new(batch, n, n, dt, a.device, "svd")
    lib.gesvdj_batched(dt, VECTOR if vectors else NOVECTOR, m, n, f.ptr, m, s.ptr, u.ptr,
                       m, v.ptr, n, info.ptr, math.prod(batch))
    if not vectors:
        return None, s, None, mx.infos(info)
    uc, vr = (m, n) if full_matrices else (k, k)
    u = contiguous_copy(u.view(batch + (m, uc), u.estrides, u.offset))
    vh = mx.conj(mx.transposed(v.view(batch + (n, vr), v.estrides, v.offset)))
    return u, s, vh, mx.infos(info)


def _gesvd(a, full_matrices, vectors):
    """(u, s, vh, info) by gesvd, one matrix at a time.  cuSOLVER's gesvd needs m >= n:
    a wide matrix's row-major copy is its tall transpose A^T = U' S V'^H, and then
    A = mx.conj(V') S U'^T -- U' read row-major is vh, V'^H read row-major is u."""
    m, n = a.shape[-2:]
    wide = m < n
    if wide:
        m, n = n, m
    k = min(m, n)
    batch, dt, lib = a.shape[:-2], a.dtype, mx.lib_of(a)
    f = contiguous_copy(a) if wide else mx.fortran(a)
    s = new(batch + (k,), _REAL.get(dt, dt), a.device, "svd")
    info = zeros(batch, I32, a.device)
    uc, vr = (m, n) if full_matrices else (k, k)
    job = ("A" if full_matrices else "S") if vectors else "N"
    # column-major U [m, uc] and VT [vr, n] (new C-contiguous [uc, m] and [n, vr]);
    # for a wide matrix they are vh and u as they lie
    u = new(batch + (uc, m), dt, a.device, "svd") if vectors else None
    vt = new(batch + (n, vr), dt, a.device, "svd") if vectors else None
    ups = mx.matrices(u) if vectors else itertools.repeat(0)
    vps = mx.matrices(vt) if vectors else itertools.repeat(0)
    for p, q, pu, pv, r in zip(mx.matrices(f), mx.rows(s), ups, vps, mx.entries(info)):
        lib.gesvd(dt, job, job, m, n, p, m, q, pu, m, pv, vr, r)
    if not vectors:
        return None, s, None, mx.infos(info)
    if wide:
        return vt, s, u, mx.infos(info)
    return (contiguous_copy(mx.fortran_view(u, m, uc)), s,
            contiguous_copy(mx.fortran_view(vt, vr, n)), mx.infos(info))


def _empty_svd(a, full_matrices, vectors):
    """The SVD of [..., m, n] with m or n zero: no singular values; identity (full) or
    empty factors, as LAPACK's."""
    m, n = a.shape[-2:]
    batch, dt = a.shape[:-2], a.dtype
    s = new(batch + (0,), _REAL.get(dt, dt), a.device, "svd")
    info = np.zeros(batch, np.int32)
    if not vectors:
        return None, s, None, info
    eye = lambda r, c: from_numpy(np.broadcast_to(np.eye(r, c, dtype=dt),  # noqa: E731
                                                  batch + (r, c)), a.device)
    return (eye(m, m if full_matrices else 0), s, eye(n if full_matrices else 0, n), info)


def _svd(a, full_matrices, vectors):
    m, n = a.shape[-2:]
    if not (m and n):
        return _empty_svd(a, full_matrices, vectors)
    small = len(a.shape) > 2 and math.prod(a.shape[:-2]) > 1 and max(m, n) <= JACOBI_MAX
    return (_gesvdj if small else _gesvd)(a, full_matrices, vectors)


def svd(a, *, full_matrices, broadening, driver):
    """``((u, s, vh), info)``, s descending (``driver`` is the CPU's LAPACK choice;
    cuSOLVER's routines are picked by size)."""
    u, s, vh, info = _svd(a, full_matrices, True)
    return (u, s, vh), info


def svdvals(a, *, broadening, driver):
    _, s, _, info = _svd(a, False, False)
    return s, info
