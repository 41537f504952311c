# BLAS thread control shared by the kernel modules (``include "_blas_threads.pxi"``).
#
# ``tenferro.devices.cpu.blas`` hands out C pointers (installed by the CPU driver) to the BLAS's own ``set/get_num_threads``;
# kernels that spread a batch over the pool's threads hold BLAS/LAPACK at one thread with
# them (and give it ``nthreads`` when they loop serially), so the two never run at once.
# Every change of the count goes through the BLAS gate (_blas_gate.h, shared by the
# modules through _pool.h's state): ``blas_enter(want)`` before the BLAS calls that
# need ``want`` threads, ``blas_leave(entered)`` after, in the same nogil section with
# no early return between.  Callers wanting another count wait, so every call runs
# with the count it would have alone, whatever other threads do.  Without the
# pointers (unknown BLAS) both stay NULL and the calls do nothing.

ctypedef void (*blas_set_fn)(int) noexcept nogil
ctypedef int (*blas_get_fn)() noexcept nogil
cdef blas_set_fn _blas_set = NULL
cdef blas_get_fn _blas_get = NULL

cdef extern from "_pool.h" nogil:
    ctypedef struct tf_blas_gate_t:
        pass
    tf_blas_gate_t* tf_blas_gate()
    void tf_blas_enter(tf_blas_gate_t* g, int want, blas_get_fn get, blas_set_fn set)
    void tf_blas_leave(tf_blas_gate_t* g, blas_set_fn set)
    void tf_blas_set_rest(tf_blas_gate_t* g, int n, blas_set_fn set)
    int tf_blas_get_rest(tf_blas_gate_t* g, blas_get_fn get)


cdef inline bint blas_enter(int want) noexcept nogil:
    """Enter the BLAS gate with BLAS at ``want`` threads (waits for callers that run
    another count); False, doing nothing, without thread control."""
    cdef tf_blas_gate_t* g = tf_blas_gate()
    if _blas_get == NULL or _blas_set == NULL or g == NULL:
        return False
    tf_blas_enter(g, want, _blas_get, _blas_set)
    return True


cdef inline void blas_leave(bint entered) noexcept nogil:
    """Leave the gate ``blas_enter`` entered (the last caller out restores the count)."""
    if entered:
        tf_blas_leave(tf_blas_gate(), _blas_set)


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


def set_blas_threads(int n):
    """Set BLAS's thread count to ``n`` once the kernels' BLAS calls in flight (other
    threads') have finished, so none of them runs with it and none restores an older
    count over it.  False without thread control."""
    cdef tf_blas_gate_t* g = tf_blas_gate()
    if _blas_set == NULL or g == NULL:
        return False
    with nogil:
        tf_blas_set_rest(g, n, _blas_set)
    return True


def get_blas_threads():
    """BLAS's thread count between the kernels' calls (a batched call in flight holds
    BLAS at one thread for a while: that count is not reported); None without thread
    control."""
    cdef tf_blas_gate_t* g = tf_blas_gate()
    cdef int n
    if _blas_get == NULL or g == NULL:
        return None
    with nogil:
        n = tf_blas_get_rest(g, _blas_get)
    return n
