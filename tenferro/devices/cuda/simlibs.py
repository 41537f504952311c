"""The host simulator's twin of :mod:`.libs`: cuBLAS's and cuSOLVER's calls, with the
same arguments (device addresses, sizes, leading dimensions of column-major matrices,
``info`` addresses), done by NumPy and LAPACK (``scipy.linalg.lapack``) on the
simulator's memory, which is host memory.  cuSOLVER's documented preconditions are
checked as the GPU would refuse them, so the code above runs here as it runs there.
"""
import ctypes

import numpy as np

from .libs import (LEFT, LOWER, OP_N, OP_T, UNIT, VECTOR, check_arguments, check_jacobi,
                   check_ld)


def host_matrix(ptr, dtype, rows, cols, ld):
    """The column-major ``rows`` x ``cols`` matrix at host address ``ptr`` (leading
    dimension ``ld``) as a writeable ndarray view."""
    dtype = np.dtype(dtype)
    if rows == 0 or cols == 0:
        return np.empty((rows, cols), dtype, order="F")
    n = (cols - 1) * ld + rows
    flat = np.frombuffer((ctypes.c_char * (n * dtype.itemsize)).from_address(ptr), dtype)
    return np.lib.stride_tricks.as_strided(flat, (rows, cols),
                                           (dtype.itemsize, ld * dtype.itemsize))


def host_vector(ptr, dtype, n):
    """The ``n`` contiguous elements at host address ``ptr`` (a writeable view)."""
    return host_matrix(ptr, dtype, n, 1, max(n, 1))[:, 0]


def _lapack(name, dtype):
    from scipy.linalg import lapack
    return lapack.get_lapack_funcs(name, dtype=np.dtype(dtype))


def _pointers(array, count):
    """The ``count`` addresses of the device array of pointers at ``array``."""
    return [int(p) for p in host_vector(array, np.uint64, count)]


def _sizes(dtype):
    """The item sizes of ``dtype`` and of its real part (eigenvalues, singular values)."""
    dtype = np.dtype(dtype)
    return dtype.itemsize, dtype.itemsize // (2 if dtype.kind == "c" else 1)


def _op(x, trans):
    return x if trans == OP_N else (x.T if trans == OP_T else x.conj().T)


class SimLibs:
    """cuBLAS's and cuSOLVER's calls done on the host (NumPy, LAPACK), on the
    simulator's memory: same arguments, same results up to rounding."""

    def __init__(self, be):
        self.be = be

    def _mat(self, what, ptr, dtype, rows, cols, ld):
        check_ld(what, ld, rows)
        return host_matrix(ptr, dtype, rows, cols, ld)

    # cuBLAS ----------------------------------------------------------------------------
    def gemm(self, dtype, ta, tb, m, n, k, a, lda, b, ldb, c, ldc, alpha=1, beta=0):
        A = self._mat("gemm", a, dtype, *((m, k) if ta == OP_N else (k, m)), lda)
        B = self._mat("gemm", b, dtype, *((k, n) if tb == OP_N else (n, k)), ldb)
        C = self._mat("gemm", c, dtype, m, n, ldc)
        r = alpha * (_op(A, ta) @ _op(B, tb))
        C[...] = r if beta == 0 else r + beta * C      # beta 0: C is not read

    def gemm_strided_batched(self, dtype, ta, tb, m, n, k, a, lda, sa, b, ldb, sb, c, ldc,
                             sc, count, alpha=1, beta=0):
        isz = np.dtype(dtype).itemsize
        for i in range(count):
            self.gemm(dtype, ta, tb, m, n, k, a + i * sa * isz, lda, b + i * sb * isz, ldb,
                      c + i * sc * isz, ldc, alpha, beta)

    def trsm(self, dtype, side, uplo, trans, diag, m, n, a, lda, b, ldb, alpha=1):
        na = m if side == LEFT else n
        T = self._mat("trsm", a, dtype, na, na, lda)
        T = np.tril(T) if uplo == LOWER else np.triu(T)
        if diag == UNIT:
            np.fill_diagonal(T, 1)
        B = self._mat("trsm", b, dtype, m, n, ldb)
        M = _op(T, trans)
        B[...] = (np.linalg.solve(M, alpha * B) if side == LEFT
                  else np.linalg.solve(M.T, alpha * B.T).T)

    # cuSOLVER --------------------------------------------------------------------------
    def potrf(self, dtype, uplo, n, a, lda, info):
        A = self._mat("potrf", a, dtype, n, n, lda)
        c, inf = _lapack("potrf", dtype)(A, lower=uplo == LOWER, clean=0)
        A[...] = c
        host_vector(info, np.int32, 1)[0] = inf

    def potrf_batched(self, dtype, uplo, n, aarray, lda, info, count):
        for i, pa in enumerate(_pointers(aarray, count)):
            self.potrf(dtype, uplo, n, pa, lda, info + 4 * i)

    def trsm_batched(self, dtype, side, uplo, trans, diag, m, n, aarray, lda, barray, ldb,
                     count, alpha=1):
        for pa, pb in zip(_pointers(aarray, count), _pointers(barray, count)):
            self.trsm(dtype, side, uplo, trans, diag, m, n, pa, lda, pb, ldb, alpha)

    def getrf_batched(self, dtype, n, aarray, lda, ipiv, info, count):
        for i, pa in enumerate(_pointers(aarray, count)):   # pivots n apart
            self.getrf(dtype, n, n, pa, lda, ipiv + 4 * n * i, info + 4 * i)

    def getrs_batched(self, dtype, trans, n, nrhs, aarray, lda, ipiv, barray, ldb, count):
        info = np.zeros(1, np.int32)
        for i, (pa, pb) in enumerate(zip(_pointers(aarray, count),
                                         _pointers(barray, count))):
            self.getrs(dtype, trans, n, nrhs, pa, lda, ipiv + 4 * n * i, pb, ldb,
                       info.ctypes.data)
            check_arguments("getrs_batched", info[0])

    def getrf(self, dtype, m, n, a, lda, ipiv, info):
        A = self._mat("getrf", a, dtype, m, n, lda)
        lu, piv, inf = _lapack("getrf", dtype)(A)
        A[...] = lu
        host_vector(ipiv, np.int32, min(m, n))[:] = piv + 1     # 1-based as cuSOLVER's
        host_vector(info, np.int32, 1)[0] = inf

    def getrs(self, dtype, trans, n, nrhs, a, lda, ipiv, b, ldb, info):
        A = self._mat("getrs", a, dtype, n, n, lda)
        B = self._mat("getrs", b, dtype, n, nrhs, ldb)
        piv = host_vector(ipiv, np.int32, n) - 1
        x, inf = _lapack("getrs", dtype)(A, piv, B, trans=trans)
        B[...] = x
        host_vector(info, np.int32, 1)[0] = inf

    def geqrf(self, dtype, m, n, a, lda, tau, info):
        A = self._mat("geqrf", a, dtype, m, n, lda)
        qr, t, _, inf = _lapack("geqrf", dtype)(A)
        A[...] = qr
        host_vector(tau, dtype, min(m, n))[:] = t
        host_vector(info, np.int32, 1)[0] = inf

    def orgqr(self, dtype, m, n, k, a, lda, tau, info):
        A = self._mat("orgqr", a, dtype, m, n, lda)
        name = "ungqr" if np.dtype(dtype).kind == "c" else "orgqr"
        q, _, inf = _lapack(name, dtype)(A, host_vector(tau, dtype, k).copy())
        A[...] = q
        host_vector(info, np.int32, 1)[0] = inf

    def syevd(self, dtype, jobz, uplo, n, a, lda, w, info):
        A = self._mat("syevd", a, dtype, n, n, lda)
        name = "heevd" if np.dtype(dtype).kind == "c" else "syevd"
        ev, v, inf = _lapack(name, dtype)(A, compute_v=int(jobz == VECTOR),
                                          lower=int(uplo == LOWER))
        host_vector(w, ev.dtype, n)[:] = ev
        if jobz == VECTOR:
            A[...] = v
        host_vector(info, np.int32, 1)[0] = inf

    def syevj_batched(self, dtype, jobz, uplo, n, a, lda, w, info, count):
        check_jacobi("syevj_batched", n)
        isz, rsz = _sizes(dtype)
        for i in range(count):     # the matrices lie lda * n apart, as cuSOLVER's
            self.syevd(dtype, jobz, uplo, n, a + i * lda * n * isz, lda, w + i * n * rsz,
                       info + 4 * i)

    def gesvd(self, dtype, jobu, jobvt, m, n, a, lda, s, u, ldu, vt, ldvt, info):
        if m < n:
            raise ValueError("tenferro.devices.cuda.libs.gesvd: cuSOLVER's gesvd needs "
                             "m >= n")
        A = self._mat("gesvd", a, dtype, m, n, lda)
        k = min(m, n)
        vectors = jobu != "N"
        uu, ss, vv, inf = _lapack("gesvd", dtype)(A, compute_uv=int(vectors),
                                                  full_matrices=int(jobu == "A"))
        host_vector(s, ss.dtype, k)[:] = ss
        if vectors:
            self._mat("gesvd", u, dtype, m, uu.shape[1], ldu)[...] = uu
            self._mat("gesvd", vt, dtype, vv.shape[0], n, ldvt)[...] = vv
        host_vector(info, np.int32, 1)[0] = inf

    def gesvdj_batched(self, dtype, jobz, m, n, a, lda, s, u, ldu, v, ldv, info, count):
        check_jacobi("gesvdj_batched", m, n)
        dt, k = np.dtype(dtype), min(m, n)
        isz, rsz = _sizes(dt)
        for i in range(count):   # A, U, V lie ld * cols apart, s k apart, as cuSOLVER's
            A = self._mat("gesvdj_batched", a + i * lda * n * isz, dt, m, n, lda)
            if jobz == VECTOR:
                uu, ss, vh = np.linalg.svd(A, full_matrices=True)
                self._mat("gesvdj_batched", u + i * ldu * m * isz, dt, m, m, ldu)[...] = uu
                self._mat("gesvdj_batched", v + i * ldv * n * isz, dt, n, n, ldv)[...] = \
                    vh.conj().T
            else:
                ss = np.linalg.svd(A, compute_uv=False)
            host_vector(s + i * k * rsz, ss.dtype, k)[:] = ss
            host_vector(info + 4 * i, np.int32, 1)[0] = 0
