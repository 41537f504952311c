# BLAS thread control shared by the kernel modules (``include "_blas_threads.pxi"``).
#
# ``tenferro._blas`` hands out C pointers to the BLAS's own ``set/get_num_threads``;
# kernels that spread a batch over OpenMP threads hold BLAS/LAPACK at one thread with
# them (and give it ``nthreads`` when they loop serially), so the two never run at once.
# Without them (unknown BLAS) both pointers stay NULL and callers skip the calls.

ctypedef void (*blas_set_fn)(int) noexcept nogil
ctypedef int (*blas_get_fn)() noexcept nogil
cdef blas_set_fn _blas_set = NULL
cdef blas_get_fn _blas_get = NULL


def _init_blas_threading():
    """Fetch the BLAS thread set/get C pointers from tenferro._blas (no-op if absent)."""
    global _blas_set, _blas_get
    cdef size_t s = 0, g = 0
    try:
        from tenferro import _blas
        s, g = _blas._thread_fn_addresses()
    except Exception:
        s = g = 0
    if s and g:
        _blas_set = <blas_set_fn>s
        _blas_get = <blas_get_fn>g
    else:
        _blas_set = NULL
        _blas_get = NULL
    return bool(s and g)


_init_blas_threading()
