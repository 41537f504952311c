# _pool.pxi: the declarations of _pool.h (tenferro's claim-based parallel-for) for the
# kernel modules that include it, and the attach at import that makes every module
# share one set of worker threads (kept on the tenferro._kernels package).

cdef extern from "_pool.h" nogil:
    ctypedef int (*tf_chunk_fn)(void *ctx, Py_ssize_t chunk) noexcept nogil
    int tf_parallel_for(Py_ssize_t nchunks, int nthreads, tf_chunk_fn fn, void *ctx)
    enum:
        TF_POOL_CHUNKS_PER_THREAD
cdef extern from "_pool.h":
    int tf_pool_attach(object holder) except -1

import sys as _sys
tf_pool_attach(_sys.modules.get(__name__.rpartition(".")[0]) or _sys.modules[__name__])


cdef inline Py_ssize_t pool_chunks(Py_ssize_t n, int nthreads, int per_thread) noexcept nogil:
    """Chunks for n independent items on nthreads: per_thread each (a late thread's
    chunks go to the others), at most n.  Each item is computed alone, so the chunking
    changes no result."""
    cdef Py_ssize_t nch = <Py_ssize_t>nthreads * per_thread
    return nch if nch < n else n
