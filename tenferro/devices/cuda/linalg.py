"""tenferro.linalg's primitives on CUDA, through cuSOLVER and cuBLAS (:mod:`.libs`).

tenferro.linalg registers these with ``def_impl(prim, "cuda", ...)`` beside its CPU
implementations and imports this module at the first call.  Each function takes the
primitive's device arrays and parameters; those whose LAPACK call can fail return
``(outputs, info)``, ``info`` a host int32 array over the batch that tenferro.linalg
turns into the CPU's LinAlgError (a negative ``info`` -- a wrong argument, a bug here
-- raises RuntimeError at once).  Results are what the CPU's functions return: the
same shapes and dtypes, C-contiguous, factors packed the same way, pivots 0-based.

cuSOLVER is column-major.  A matrix is handed to it as a column-major copy
(:func:`fortran`), except where the transpose is as good: Cholesky of the row-major
copy (the transpose of a Hermitian matrix, factored from the other triangle, is the
row-major factor), triangular solves from the right on the transposed right-hand
sides, and the SVD of a wide matrix (the SVD of its transpose, whose factors, read
row-major, are the wide matrix's).  Small matrices in batches go to the batched
routines (``potrfBatched``, ``syevjBatched``, ``gesvdjBatched``), others one matrix at
a time.  tenferro.linalg's primitives with no function here (eig, lstsq, pinv,
vector_norm) raise UnsupportedOperation on CUDA: there is no host fallback.
"""
import functools
import itertools

import numpy as np

from ... import _dtypes
from .array import from_numpy, new, to_numpy, zeros
from .cmath import CTYPE
from .elementwise import assign, contiguous_copy, full, op_expr, run_elementwise
from .kernels import LOOP, kernel, launch
from .libs import (JACOBI_MAX, LEFT, LOWER, NON_UNIT, NOVECTOR, OP_N, RIGHT, UNIT, UPPER,
                   VECTOR)
from . import libs
from .matmul import blas_operand

I32 = _dtypes.int32
_REAL = {_dtypes.complex64: _dtypes.float32, _dtypes.complex128: _dtypes.float64}
_FLOATS = (_dtypes.float32, _dtypes.float64, _dtypes.complex64, _dtypes.complex128)
BATCHED_MAX = 32     # potrfBatched for batches of matrices up to this size


# -- layouts and small helpers --------------------------------------------------------------

def _count(shape):
    return int(np.prod(shape, dtype=np.int64))


def fortran_view(buf, rows, cols):
    """``buf`` (a new C-contiguous [batch..., cols, rows] array) as [batch..., rows,
    cols]: each matrix column-major with leading dimension ``rows``."""
    batch = buf.shape[:-2]
    return buf.view(batch + (rows, cols), buf.estrides[:-2] + (1, max(rows, 1)), 0)


def fortran_new(batch, rows, cols, dtype, device, op):
    """A new uninitialised stack of column-major matrices [batch..., rows, cols]."""
    return fortran_view(new(batch + (cols, rows), dtype, device, op), rows, cols)


def fortran(x):
    """A column-major copy of the matrices ``x`` [..., m, n] (leading dimension m,
    consecutive in the batch's C order)."""
    t = x.view(x.shape[:-2] + x.shape[:-3:-1], x.estrides[:-2] + x.estrides[:-3:-1],
               x.offset)
    return fortran_view(contiguous_copy(t), *x.shape[-2:])


def transposed(x):
    """The view of ``x`` [..., m, n] as [..., n, m]."""
    return x.view(x.shape[:-2] + x.shape[:-3:-1], x.estrides[:-2] + x.estrides[:-3:-1],
                  x.offset)


def _matrices(x):
    """The device addresses of the matrices of ``x`` [batch..., m, n], in the batch's C
    order."""
    isz = x.dtype.itemsize
    bs = x.estrides[:-2]
    return [x.ptr + isz * sum(i * s for i, s in zip(idx, bs))
            for idx in itertools.product(*map(range, x.shape[:-2]))]


def _vectors(x):
    """The addresses of the rows of ``x`` [batch..., k] (C-contiguous)."""
    k = x.shape[-1] if x.ndim else 1
    return [x.ptr + i * k * x.dtype.itemsize for i in range(_count(x.shape[:-1]))]


def _infos(info):
    """The host copy of the int32 ``info`` array cuSOLVER wrote; RuntimeError when it
    reports a wrong argument (info < 0)."""
    h = to_numpy(info)
    if h.size and h.min() < 0:
        raise RuntimeError("tenferro.devices.cuda.linalg: cuSOLVER rejected argument %d "
                           "(a bug in tenferro)" % -h.min())
    return h


def _lib(x):
    return libs.get(x.storage.backend)


def _conj(x):
    """A C-contiguous copy of ``x``, conjugated when complex."""
    if x.dtype.kind != "c":
        return contiguous_copy(x)
    return run_elementwise("conj", op_expr("conj", 1), [x], x.dtype)


def _shift(ipiv, by):
    """Pivots ``ipiv`` + ``by`` (cuSOLVER's are 1-based, tenferro's 0-based), a new
    C-contiguous int32 array."""
    return run_elementwise("pivots", "(v0 + (%d))" % by, [ipiv], I32)


@functools.lru_cache(maxsize=None)
def _triangle_kernel(itemsize):
    """Zero the strictly upper (m[3] = 1) or strictly lower (0) part of C-contiguous
    [batch, rows (m[1]), cols (m[2])] matrices of ``itemsize``-byte elements (all-zero
    bytes are zero in every dtype)."""
    word = {4: "unsigned int", 8: "unsigned long long", 16: "tf_zero16"}[itemsize]
    body = ("    typedef %s W;\n" % word + LOOP
            + "        const long long c = i % p.m[2], r = (i / p.m[2]) % p.m[1];\n"
              "        if (p.m[3] ? c > r : c < r) ((W*)p.p[0])[i] = W();\n    }\n")
    return kernel("k_triangle_%d" % itemsize, body, 1, 4,
                  prelude="struct tf_zero16 { unsigned long long a, b; };\n")


def zero_triangle(x, upper):
    """Zero the strictly upper (``upper``) or lower triangle of C-contiguous ``x``, in
    place."""
    if x.size:
        launch(x.storage.backend, _triangle_kernel(x.dtype.itemsize), x.size, [x.ptr],
               [x.size, x.shape[-2], x.shape[-1], int(upper)])


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
    """The kernels of this module (for ``compile_all``)."""
    return ([_triangle_kernel(s) for s in (4, 8, 16)]
            + [_det_kernel(d) for d in _FLOATS] + [_permutation_kernel()])


# -- Cholesky and triangular solves -----------------------------------------------------------

def cholesky(a, *, lower):
    """``(factor, info)``.  The row-major copy of ``a`` is, column-major, its transpose:
    factored from the other triangle it gives the row-major factor itself."""
    n = a.shape[-1]
    out = contiguous_copy(a)
    info = zeros(a.shape[:-2], I32, a.device)
    lib, dt, uplo = _lib(a), a.dtype, UPPER if lower else LOWER
    mats = _matrices(out)
    if n and 1 < len(mats) and n <= BATCHED_MAX:
        ptrs = from_numpy(np.array(mats, np.int64), a.device)   # void*[]
        lib.potrf_batched(dt, uplo, n, ptrs.ptr, n, info.ptr, len(mats))
    elif n:
        for p, q in zip(mats, _info_rows(info)):
            lib.potrf(dt, uplo, n, p, n, q)
    zero_triangle(out, upper=lower)
    return out, _infos(info)


def _info_rows(info):
    """The addresses of the entries of the C-contiguous int32 array ``info``."""
    return [info.ptr + 4 * i for i in range(info.size)]


def _diagonal_info(a):
    """Per matrix of ``a`` [..., n, n]: 1 + the index of the first zero on its diagonal,
    or 0 (LAPACK's ?trtrs info), read on the host."""
    n = a.shape[-1]
    d = to_numpy(a.view(a.shape[:-1], a.estrides[:-2] + (a.estrides[-2] + a.estrides[-1],),
                        a.offset))
    zero = d == 0
    return np.where(zero.any(axis=-1), zero.argmax(axis=-1) + 1, 0).astype(np.int32) \
        if n else np.zeros(a.shape[:-2], np.int32)


def triangular_solve(a, b, *, lower, trans, unit_diagonal):
    """``(x, info)``: op(T) X = B solved as X^T op(T)^T = B^T, trsm from the right on
    the row-major copy of b (column-major: B^T); row-major a is, column-major, T^T,
    whose other triangle and the same ``trans`` give op(T)^T."""
    n, k = b.shape[-2:]
    info = np.zeros(a.shape[:-2], np.int32) if unit_diagonal else _diagonal_info(a)
    out = contiguous_copy(b)
    if not out.size or info.any():
        return out, info
    if blas_operand(n, n, *a.estrides[-2:]) != (OP_N, a.estrides[-2]) or n == 1:
        a = contiguous_copy(a)
    lib, lda = _lib(b), max(a.estrides[-2], 1)
    for pa, pb in zip(_matrices(a), _matrices(out)):
        lib.trsm(b.dtype, RIGHT, UPPER if lower else LOWER, trans,
                 UNIT if unit_diagonal else NON_UNIT, k, n, pa, lda, pb, k)
    return out, info


# -- LU ---------------------------------------------------------------------------------------

def _getrf(a):
    """(column-major LU factors, 1-based int32 pivots, host info) of each a[..., m, n]."""
    m, n = a.shape[-2:]
    f = fortran(a)
    ipiv = new(a.shape[:-2] + (min(m, n),), I32, a.device, "lu_factor")
    info = zeros(a.shape[:-2], I32, a.device)
    if m and n:
        lib = _lib(a)
        for p, q, r in zip(_matrices(f), _vectors(ipiv), _info_rows(info)):
            lib.getrf(a.dtype, m, n, p, m, q, r)
    return f, ipiv, _infos(info)


def lu_factor(a):
    """(lu, piv) as the CPU's: packed factors row-major, pivots 0-based (a zero pivot is
    kept, never raised)."""
    f, ipiv, _ = _getrf(a)
    return contiguous_copy(f), _shift(ipiv, -1)


def _getrs(f, ipiv, b, trans):
    """X (column-major) with op(A) X = B for A's column-major LU factors ``f``."""
    n, k = b.shape[-2:]
    x = fortran(b)
    info = zeros(b.shape[:-2], I32, b.device)
    if n and k:
        lib = _lib(b)
        for p, q, r, s in zip(_matrices(f), _vectors(ipiv), _matrices(x), _info_rows(info)):
            lib.getrs(b.dtype, trans, n, k, p, n, q, r, n, s)
    _infos(info)
    return x


def lu_solve(lu, piv, b, *, trans):
    """``(x, info)``; info 1 for a matrix with a zero on U's diagonal, as the CPU's."""
    info = (_diagonal_info(lu) > 0).astype(np.int32)
    if info.any():
        return contiguous_copy(b), info
    return contiguous_copy(_getrs(fortran(lu), _shift(piv, 1), b, trans)), info


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
    return (x, contiguous_copy(f), _shift(ipiv, -1)), info


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
        launch(piv.storage.backend, _permutation_kernel(), _count(piv.shape[:-1]),
               [piv.ptr, work.ptr, out.ptr],
               [_count(piv.shape[:-1]), m, piv.shape[-1], int(inverse)])
    return out


# -- QR -----------------------------------------------------------------------------------

def qr(a, *, mode):
    """``((q, r) or (r,), info)`` as the CPU's: geqrf on a column-major copy, R its
    upper triangle, Q formed by orgqr/ungqr from the reflectors."""
    m, n = a.shape[-2:]
    k = min(m, n)
    rows = k if mode == "economic" else m
    batch, dt, lib = a.shape[:-2], a.dtype, _lib(a)
    f = fortran(a)
    tau = new(batch + (k,), dt, a.device, "qr")
    info = zeros(batch, I32, a.device)
    if k:
        for p, t, r in zip(_matrices(f), _vectors(tau), _info_rows(info)):
            lib.geqrf(dt, m, n, p, m, t, r)
    r = contiguous_copy(f.view(batch + (rows, n), f.estrides, f.offset))
    zero_triangle(r, upper=False)
    if mode == "r":
        return (r,), _infos(info)
    q = fortran_new(batch, m, rows, dt, a.device, "qr")
    c = min(rows, n)
    if c:
        assign(q.view(batch + (m, c), q.estrides, q.offset),
               f.view(batch + (m, c), f.estrides, f.offset))
    if m and rows:
        for p, t, r_ in zip(_matrices(q), _vectors(tau), _info_rows(info)):
            lib.orgqr(dt, m, rows, k, p, m, t, r_)
    return (contiguous_copy(q), r), _infos(info)


def qr_r(a):
    (r,), info = qr(a, mode="r")
    return r, info


# -- eigh -----------------------------------------------------------------------------------

def _eigh(a, lower, vectors):
    """(w, v or None, info): syevjBatched for batches of small matrices, syevd/heevd
    one matrix at a time otherwise."""
    n = a.shape[-1]
    batch, dt, lib = a.shape[:-2], a.dtype, _lib(a)
    f = fortran(a)
    w = new(batch + (n,), _REAL.get(dt, dt), a.device, "eigh")
    info = zeros(batch, I32, a.device)
    jobz, uplo = VECTOR if vectors else NOVECTOR, LOWER if lower else UPPER
    mats = _matrices(f)
    if n and 1 < len(mats) and n <= JACOBI_MAX:
        lib.syevj_batched(dt, jobz, uplo, n, f.ptr, n, w.ptr, info.ptr, len(mats))
    elif n:
        for p, q, r in zip(mats, _vectors(w), _info_rows(info)):
            lib.syevd(dt, jobz, uplo, n, p, n, q, r)
    return w, (contiguous_copy(f) if vectors else None), _infos(info)


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
    batch, dt, lib = a.shape[:-2], a.dtype, _lib(a)
    f = fortran(a)
    s = new(batch + (k,), _REAL.get(dt, dt), a.device, "svd")
    info = zeros(batch, I32, a.device)
    u = fortran_new(batch, m, m, dt, a.device, "svd")
    v = fortran_new(batch, n, n, dt, a.device, "svd")
    lib.gesvdj_batched(dt, VECTOR if vectors else NOVECTOR, m, n, f.ptr, m, s.ptr, u.ptr,
                       m, v.ptr, n, info.ptr, _count(batch))
    if not vectors:
        return None, s, None, _infos(info)
    uc, vr = (m, n) if full_matrices else (k, k)
    u = contiguous_copy(u.view(batch + (m, uc), u.estrides, u.offset))
    vh = _conj(transposed(v.view(batch + (n, vr), v.estrides, v.offset)))
    return u, s, vh, _infos(info)


def _gesvd(a, full_matrices, vectors):
    """(u, s, vh, info) by gesvd, one matrix at a time.  cuSOLVER's gesvd needs m >= n:
    a wide matrix's row-major copy is its tall transpose A^T = U' S V'^H, and then
    A = conj(V') S U'^T -- U' read row-major is vh, V'^H read row-major is u."""
    m, n = a.shape[-2:]
    wide = m < n
    if wide:
        m, n = n, m
    k = min(m, n)
    batch, dt, lib = a.shape[:-2], a.dtype, _lib(a)
    f = contiguous_copy(a) if wide else fortran(a)
    s = new(batch + (k,), _REAL.get(dt, dt), a.device, "svd")
    info = zeros(batch, I32, a.device)
    uc, vr = (m, n) if full_matrices else (k, k)
    job = ("A" if full_matrices else "S") if vectors else "N"
    # column-major U [m, uc] and VT [vr, n] (new C-contiguous [uc, m] and [n, vr]);
    # for a wide matrix they are vh and u as they lie
    u = new(batch + (uc, m), dt, a.device, "svd") if vectors else None
    vt = new(batch + (n, vr), dt, a.device, "svd") if vectors else None
    ups = _matrices(u) if vectors else itertools.repeat(0)
    vps = _matrices(vt) if vectors else itertools.repeat(0)
    for p, q, pu, pv, r in zip(_matrices(f), _vectors(s), ups, vps, _info_rows(info)):
        lib.gesvd(dt, job, job, m, n, p, m, q, pu, m, pv, vr, r)
    if not vectors:
        return None, s, None, _infos(info)
    if wide:
        return vt, s, u, _infos(info)
    return (contiguous_copy(fortran_view(u, m, uc)), s,
            contiguous_copy(fortran_view(vt, vr, n)), _infos(info))


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
    small = len(a.shape) > 2 and _count(a.shape[:-2]) > 1 and max(m, n) <= JACOBI_MAX
    return (_gesvdj if small else _gesvd)(a, full_matrices, vectors)


def svd(a, *, full_matrices, broadening, driver):
    """``((u, s, vh), info)``, s descending (``driver`` is the CPU's LAPACK choice;
    cuSOLVER's routines are picked by size)."""
    u, s, vh, info = _svd(a, full_matrices, True)
    return (u, s, vh), info


def svdvals(a, *, broadening, driver):
    _, s, _, info = _svd(a, False, False)
    return s, info
