# BLAS thread control shared by the kernel modules (``include "_blas_threads.pxi"``).
#
# ``tenferro.devices.cpu.blas`` hands out C pointers (installed by the CPU driver) to the BLAS's own ``set/get_num_threads``;
# kernels that spread a batch over the pool's threads hold BLAS/LAPACK at one thread with
# them (and give it ``nthreads`` when they loop serially), so the two never run at once.
# Without them (unknown BLAS) both pointers stay NULL and callers skip the calls.

ctypedef void (*blas_set_fn)(int) noexcept nogil
ctypedef int (*blas_get_fn)() noexcept nogil
cdef blas_set_fn _blas_set = NULL
cdef blas_get_fn _blas_get = NULL


def set_blas_thread_functions(size_t set_fn, size_t get_fn):
    """Install the C addresses of the BLAS's own ``set/get_num_threads`` (0, 0: none).
    The CPU driver calls this when it loads (``tenferro.devices.cpu``: it finds the BLAS
    scipy uses); kernels import nothing from tenferro."""
    global _blas_set, _blas_get
    if set_fn and get_fn:
        _blas_set = <blas_set_fn>set_fn
        _blas_get = <blas_get_fn>get_fn
    else:
        _blas_set = NULL
        _blas_get = NULL
    return bool(set_fn and get_fn)
