"""cuBLAS and cuSOLVER for the CUDA driver, through nvmath-python's bindings, and their
host twin for the simulator.

:func:`get` gives a backend's library object: :class:`GPULibs` on a GPU, whose methods
call ``cublas<t>...`` / ``cusolverDn<t>...`` with handles per device and thread bound
to the thread's current stream and workspaces from the backend's stream-ordered
allocator,
or :class:`SimLibs` on the host simulator, whose methods do the same work with NumPy
and LAPACK (``scipy.linalg.lapack``) on the simulator's host memory.  Both take the
same arguments -- device addresses, sizes and leading dimensions of COLUMN-MAJOR
matrices exactly as cuBLAS and cuSOLVER define them, ``info`` addresses of int32
arrays -- and check the preconditions cuSOLVER documents (``gesvd`` needs m >= n, the
Jacobi batches n <= 32, ``ld >= rows``), so everything above this module (the row-major
to column-major tricks, leading dimensions, batching, the reading of ``info``) is the
code the simulator tests.

``info`` stays on the device (cuSOLVER writes it there); :mod:`.linalg` reads it back
and reports a positive value the way the CPU's LAPACK calls do (cuBLAS's
``getrsBatched`` alone reports on the host, argument checks only: raised here).
"""
import ctypes
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


def _check_ld(what, ld, rows):
    if ld < max(1, rows):
        raise ValueError("tenferro.devices.cuda.libs.%s: leading dimension %d < rows %d"
                         % (what, ld, rows))


def check_arguments(what, info):
    """RuntimeError when ``info`` says an argument was wrong (info < 0)."""
    if info < 0:
        raise RuntimeError("tenferro.devices.cuda.libs.%s: argument %d rejected (a bug in "
                           "tenferro)" % (what, -info))


def _check_jacobi(what, *dims):
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
        al, be = _scalar(alpha, dtype), _scalar(beta, dtype)
        self._blas("gemm", dtype, ta, tb, m, n, k, al.ctypes.data, a, lda, b, ldb,
                   be.ctypes.data, c, ldc)

    def gemm_strided_batched(self, dtype, ta, tb, m, n, k, a, lda, sa, b, ldb, sb, c, ldc,
                             sc, count, alpha=1, beta=0):
        al, be = _scalar(alpha, dtype), _scalar(beta, dtype)
        self._blas("gemm_strided_batched", dtype, ta, tb, m, n, k, al.ctypes.data, a, lda,
                   sa, b, ldb, sb, be.ctypes.data, c, ldc, sc, count)

    def trsm(self, dtype, side, uplo, trans, diag, m, n, a, lda, b, ldb, alpha=1):
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
        lw = self._solver("potrf_buffer_size", dtype, uplo, n, a, lda)
        w = self._work(lw, dtype)
        self._solver("potrf", dtype, uplo, n, a, lda, w.ptr, lw, info)

    def potrf_batched(self, dtype, uplo, n, aarray, lda, info, count):
        self._solver("potrf_batched", dtype, uplo, n, aarray, lda, info, count)

    def getrf(self, dtype, m, n, a, lda, ipiv, info):
        lw = self._solver("getrf_buffer_size", dtype, m, n, a, lda)
        w = self._work(lw, dtype)
        self._solver("getrf", dtype, m, n, a, lda, w.ptr, ipiv, info)

    def getrs(self, dtype, trans, n, nrhs, a, lda, ipiv, b, ldb, info):
        self._solver("getrs", dtype, trans, n, nrhs, a, lda, ipiv, b, ldb, info)

    def geqrf(self, dtype, m, n, a, lda, tau, info):
        lw = self._solver("geqrf_buffer_size", dtype, m, n, a, lda)
        w = self._work(lw, dtype)
        self._solver("geqrf", dtype, m, n, a, lda, tau, w.ptr, lw, info)

    def orgqr(self, dtype, m, n, k, a, lda, tau, info):
        lw = self._solver("orgqr_buffer_size", dtype, m, n, k, a, lda, tau)
        w = self._work(lw, dtype)
        self._solver("orgqr", dtype, m, n, k, a, lda, tau, w.ptr, lw, info)

    def syevd(self, dtype, jobz, uplo, n, a, lda, w, info):
        lw = self._solver("syevd_buffer_size", dtype, jobz, uplo, n, a, lda, w)
        ws = self._work(lw, dtype)
        self._solver("syevd", dtype, jobz, uplo, n, a, lda, w, ws.ptr, lw, info)

    def syevj_batched(self, dtype, jobz, uplo, n, a, lda, w, info, count):
        _check_jacobi("syevj_batched", n)
        prm = self._jacobi_params("syevj")
        lw = self._solver("syevj_batched_buffer_size", dtype, jobz, uplo, n, a, lda, w,
                          prm, count)
        ws = self._work(lw, dtype)
        self._solver("syevj_batched", dtype, jobz, uplo, n, a, lda, w, ws.ptr, lw, info,
                     prm, count)

    def gesvd(self, dtype, jobu, jobvt, m, n, a, lda, s, u, ldu, vt, ldvt, info):
        if m < n:
            raise ValueError("tenferro.devices.cuda.libs.gesvd: cuSOLVER's gesvd needs "
                             "m >= n")
        lw = self._solver("gesvd_buffer_size", dtype, m, n)
        ws = self._work(lw, dtype)
        self._solver("gesvd", dtype, ord(jobu), ord(jobvt), m, n, a, lda, s, u, ldu, vt,
                     ldvt, ws.ptr, lw, 0, info)

    def gesvdj_batched(self, dtype, jobz, m, n, a, lda, s, u, ldu, v, ldv, info, count):
        _check_jacobi("gesvdj_batched", m, n)
        prm = self._jacobi_params("gesvdj")
        lw = self._solver("gesvdj_batched_buffer_size", dtype, jobz, m, n, a, lda, s, u,
                          ldu, v, ldv, prm, count)
        ws = self._work(lw, dtype)
        self._solver("gesvdj_batched", dtype, jobz, m, n, a, lda, s, u, ldu, v, ldv,
                     ws.ptr, lw, info, prm, count)


# -- the simulator's twin ----------------------------------------------------------------

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
        _check_ld(what, ld, rows)
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
        _check_jacobi("syevj_batched", n)
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
        _check_jacobi("gesvdj_batched", m, n)
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


_libs = {}
_lock = threading.Lock()


def get(be):
    """The library object of backend ``be`` (:class:`GPULibs` or :class:`SimLibs`)."""
    lib = _libs.get(id(be))
    if lib is None:
        with _lock:
            lib = _libs.get(id(be))
            if lib is None:
                lib = _libs[id(be)] = (SimLibs if be.simulated else GPULibs)(be)
    return lib
