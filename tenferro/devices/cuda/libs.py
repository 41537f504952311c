"""cuBLAS and cuSOLVER for the CUDA driver, through nvmath-python's bindings.

:func:`get` gives a backend's library object: :class:`GPULibs` on a GPU, whose methods
call ``cublas<t>...`` / ``cusolverDn<t>...`` with handles per device and thread bound
to the thread's current stream and workspaces from the backend's stream-ordered
allocator, or :class:`.simlibs.SimLibs` on the host simulator, whose methods do the same
work with NumPy and LAPACK on the simulator's host memory.  Both take the same
arguments -- device addresses, sizes and leading dimensions of COLUMN-MAJOR matrices
exactly as cuBLAS and cuSOLVER define them, ``info`` addresses of int32 arrays -- and
check the preconditions cuSOLVER documents (``gesvd`` needs m >= n, the Jacobi batches
n <= 32, ``ld >= rows``; on a GPU also that sizes fit in 32 bits), so everything above this module (the row-major to
column-major tricks, leading dimensions, batching, the reading of ``info``) is the code
the simulator tests.

``info`` stays on the device (cuSOLVER writes it there); :mod:`.linalg` reads it back
and reports a positive value the way the CPU's LAPACK calls do (cuBLAS's
``getrsBatched`` alone reports on the host, argument checks only: raised here).
"""
import threading

import numpy as np

from .array import Memory

# cuBLAS / cuSOLVER enumerations (cublasOperation_t, cublasFillMode_t, ...)
OP_N, OP_T, OP_C = 0, 1, 2
LOWER, UPPER = 0, 1
LEFT, RIGHT = 0, 1
NON_UNIT, UNIT = 0, 1
NOVECTOR, VECTOR = 0, 1           # cusolverEigMode_t

JACOBI_MAX = 32                   # syevjBatched / gesvdjBatched: n (and m) <= 32
_PREFIX = {"f": "s", "d": "d", "F": "c", "D": "z"}
# the names of real routines whose complex twins are named otherwise
_COMPLEX_NAME = {"syevd": "heevd", "syevj_batched": "heevj_batched", "orgqr": "ungqr"}


def routine(base, dtype):
    """The nvmath binding name of ``base`` for ``dtype``: ``routine("syevd", c128)`` is
    ``"zheevd"``, ``routine("orgqr_buffer_size", c64)`` ``"cungqr_buffer_size"``."""
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        for real, cplx in _COMPLEX_NAME.items():   # also their ``_buffer_size``
            if base == real or base.startswith(real + "_buffer"):
                base = cplx + base[len(real):]
    return _PREFIX[dtype.char] + base


INT32_MAX = 2**31 - 1


def check_ld(what, ld, rows):
    if ld < max(1, rows):
        raise ValueError("tenferro.devices.cuda.libs.%s: leading dimension %d < rows %d"
                         % (what, ld, rows))


def check_int32(what, *values):
    """ValueError unless every size and leading dimension fits cuBLAS's/cuSOLVER's
    ``int`` (their 64-bit variants are not used here)."""
    if max(values) > INT32_MAX:
        raise ValueError("tenferro.devices.cuda.libs.%s: a size or leading dimension of "
                         "%d exceeds the 32-bit range these routines take"
                         % (what, max(values)))


def check_arguments(what, info):
    """RuntimeError when ``info`` says an argument was wrong (info < 0)."""
    if info < 0:
        raise RuntimeError("tenferro.devices.cuda.libs.%s: argument %d rejected (a bug in "
                           "tenferro)" % (what, -info))


def check_jacobi(what, *dims):
    if max(dims) > JACOBI_MAX:
        raise ValueError("tenferro.devices.cuda.libs.%s: the batched Jacobi solver takes "
                         "matrices up to %d x %d" % (what, JACOBI_MAX, JACOBI_MAX))


def _scalar(value, dtype):
    """A host scalar (cuBLAS's alpha/beta in host pointer mode; the caller keeps it
    alive for the call)."""
    return np.array(value, dtype)


class _Handles(threading.local):
    """One thread's cuBLAS and cuSOLVER handles on one GPU (cuBLAS wants a handle per
    thread; each thread has its own current stream), opened on the thread's first
    call."""
    blas = solver = stream = None
    syevj = gesvdj = None


class GPULibs:
    """cuBLAS and cuSOLVER on one GPU."""

    def __init__(self, be, bindings=None):
        """``bindings``: (cublas, cusolverDn) modules other than nvmath's (a test's
        recorder)."""
        if bindings is None:
            from nvmath.bindings import cublas, cusolverDn
        else:
            cublas, cusolverDn = bindings
        self.be = be
        self.cublas, self.cusolver = cublas, cusolverDn
        self._h = _Handles()

    def _handles(self):
        """This thread's handles, made to run on the device's current stream."""
        h = self._h
        self.be.make_current()
        if h.blas is None:
            h.blas, h.solver = self.cublas.create(), self.cusolver.create()
            # cuBLAS's own workspace (32 MiB, NVIDIA's advice for Hopper), kept as long
            # as the handle
            h.workspace = Memory(self.be, 32 << 20)
            self.cublas.set_workspace(h.blas, h.workspace.ptr, h.workspace.nbytes)
        s = int(self.be.stream)
        if s != h.stream:
            self.cublas.set_stream(h.blas, s)
            self.cusolver.set_stream(h.solver, s)
            h.stream = s
        return h

    def _blas(self, base, dtype, *args):
        h = self._handles()
        return getattr(self.cublas, routine(base, dtype))(h.blas, *args)

    def _solver(self, base, dtype, *args):
        h = self._handles()
        return getattr(self.cusolver, routine(base, dtype))(h.solver, *args)

    def _work(self, lwork, dtype):
        """A workspace of ``lwork`` elements (freed, stream-ordered, when dropped)."""
        return Memory(self.be, max(int(lwork), 1) * np.dtype(dtype).itemsize)

    def _jacobi_params(self, kind):
        """This thread's syevj / gesvdj parameters (cuSOLVER's defaults: tolerance at
        machine precision, at most 100 sweeps; values sorted)."""
        h, c = self._h, self.cusolver
        if kind == "syevj":
            if h.syevj is None:
                h.syevj = c.create_syevj_info()
                c.xsyevj_set_sort_eig(h.syevj, 1)
            return h.syevj
        if h.gesvdj is None:
            h.gesvdj = c.create_gesvdj_info()
            c.xgesvdj_set_sort_eig(h.gesvdj, 1)
        return h.gesvdj

    # cuBLAS ----------------------------------------------------------------------------
    def gemm(self, dtype, ta, tb, m, n, k, a, lda, b, ldb, c, ldc, alpha=1, beta=0):
        check_int32("gemm", m, n, k, lda, ldb, ldc)
        check_ld("gemm", ldc, m)
        al, be = _scalar(alpha, dtype), _scalar(beta, dtype)
        self._blas("gemm", dtype, ta, tb, m, n, k, al.ctypes.data, a, lda, b, ldb,
                   be.ctypes.data, c, ldc)

    def gemm_strided_batched(self, dtype, ta, tb, m, n, k, a, lda, sa, b, ldb, sb, c, ldc,
                             sc, count, alpha=1, beta=0):
        check_int32("gemm_strided_batched", m, n, k, lda, ldb, ldc, count)
        check_ld("gemm_strided_batched", ldc, m)
        al, be = _scalar(alpha, dtype), _scalar(beta, dtype)
        self._blas("gemm_strided_batched", dtype, ta, tb, m, n, k, al.ctypes.data, a, lda,
                   sa, b, ldb, sb, be.ctypes.data, c, ldc, sc, count)

    def trsm(self, dtype, side, uplo, trans, diag, m, n, a, lda, b, ldb, alpha=1):
        check_int32("trsm", m, n, lda, ldb)
        check_ld("trsm", ldb, m)
        al = _scalar(alpha, dtype)
        self._blas("trsm", dtype, side, uplo, trans, diag, m, n, al.ctypes.data, a, lda, b,
                   ldb)

    def trsm_batched(self, dtype, side, uplo, trans, diag, m, n, aarray, lda, barray, ldb,
                     count, alpha=1):
        al = _scalar(alpha, dtype)
        self._blas("trsm_batched", dtype, side, uplo, trans, diag, m, n, al.ctypes.data,
                   aarray, lda, barray, ldb, count)

    def getrf_batched(self, dtype, n, aarray, lda, ipiv, info, count):
        self._blas("getrf_batched", dtype, n, aarray, lda, ipiv, info, count)

    def getrs_batched(self, dtype, trans, n, nrhs, aarray, lda, ipiv, barray, ldb, count):
        info = np.zeros(1, np.int32)   # a host int here: argument checks only
        self._blas("getrs_batched", dtype, trans, n, nrhs, aarray, lda, ipiv, barray, ldb,
                   info.ctypes.data, count)
        check_arguments("getrs_batched", info[0])

    # cuSOLVER --------------------------------------------------------------------------
    def potrf(self, dtype, uplo, n, a, lda, info):
        check_int32("potrf", n, lda)
        check_ld("potrf", lda, n)
        lw = self._solver("potrf_buffer_size", dtype, uplo, n, a, lda)
        w = self._work(lw, dtype)
        self._solver("potrf", dtype, uplo, n, a, lda, w.ptr, lw, info)

    def potrf_batched(self, dtype, uplo, n, aarray, lda, info, count):
        self._solver("potrf_batched", dtype, uplo, n, aarray, lda, info, count)

    def getrf(self, dtype, m, n, a, lda, ipiv, info):
        check_int32("getrf", m, n, lda)
        check_ld("getrf", lda, m)
        lw = self._solver("getrf_buffer_size", dtype, m, n, a, lda)
        w = self._work(lw, dtype)
        self._solver("getrf", dtype, m, n, a, lda, w.ptr, ipiv, info)

    def getrs(self, dtype, trans, n, nrhs, a, lda, ipiv, b, ldb, info):
        self._solver("getrs", dtype, trans, n, nrhs, a, lda, ipiv, b, ldb, info)

    def geqrf(self, dtype, m, n, a, lda, tau, info):
        check_int32("geqrf", m, n, lda)
        check_ld("geqrf", lda, m)
        lw = self._solver("geqrf_buffer_size", dtype, m, n, a, lda)
        w = self._work(lw, dtype)
        self._solver("geqrf", dtype, m, n, a, lda, tau, w.ptr, lw, info)

    def orgqr(self, dtype, m, n, k, a, lda, tau, info):
        lw = self._solver("orgqr_buffer_size", dtype, m, n, k, a, lda, tau)
        w = self._work(lw, dtype)
        self._solver("orgqr", dtype, m, n, k, a, lda, tau, w.ptr, lw, info)

    def syevd(self, dtype, jobz, uplo, n, a, lda, w, info):
        check_int32("syevd", n, lda)
        check_ld("syevd", lda, n)
        lw = self._solver("syevd_buffer_size", dtype, jobz, uplo, n, a, lda, w)
        ws = self._work(lw, dtype)
        self._solver("syevd", dtype, jobz, uplo, n, a, lda, w, ws.ptr, lw, info)

    def syevj_batched(self, dtype, jobz, uplo, n, a, lda, w, info, count):
        check_jacobi("syevj_batched", n)
        prm = self._jacobi_params("syevj")
        lw = self._solver("syevj_batched_buffer_size", dtype, jobz, uplo, n, a, lda, w,
                          prm, count)
        ws = self._work(lw, dtype)
        self._solver("syevj_batched", dtype, jobz, uplo, n, a, lda, w, ws.ptr, lw, info,
                     prm, count)

    def gesvd(self, dtype, jobu, jobvt, m, n, a, lda, s, u, ldu, vt, ldvt, info):
        check_int32("gesvd", m, n, lda, ldu, ldvt)
        check_ld("gesvd", lda, m)
        if m < n:
            raise ValueError("tenferro.devices.cuda.libs.gesvd: cuSOLVER's gesvd needs "
                             "m >= n")
        lw = self._solver("gesvd_buffer_size", dtype, m, n)
        ws = self._work(lw, dtype)
        self._solver("gesvd", dtype, ord(jobu), ord(jobvt), m, n, a, lda, s, u, ldu, vt,
                     ldvt, ws.ptr, lw, 0, info)

    def gesvdj_batched(self, dtype, jobz, m, n, a, lda, s, u, ldu, v, ldv, info, count):
        check_jacobi("gesvdj_batched", m, n)
        prm = self._jacobi_params("gesvdj")
        lw = self._solver("gesvdj_batched_buffer_size", dtype, jobz, m, n, a, lda, s, u,
                          ldu, v, ldv, prm, count)
        ws = self._work(lw, dtype)
        self._solver("gesvdj_batched", dtype, jobz, m, n, a, lda, s, u, ldu, v, ldv,
                     ws.ptr, lw, info, prm, count)


_libs = {}
_lock = threading.Lock()


def get(be):
    """The library object of backend ``be``: :class:`GPULibs`, or the simulator's
    :class:`.simlibs.SimLibs`."""
    lib = _libs.get(id(be))
    if lib is None:
        with _lock:
            lib = _libs.get(id(be))
            if lib is None:
                if be.simulated:
                    from .simlibs import SimLibs   # (the module after this one)
                    lib = _libs[id(be)] = SimLibs(be)
                else:
                    lib = _libs[id(be)] = GPULibs(be)
    return lib
