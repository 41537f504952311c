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


# Chunks per thread for a batch of independent items (matrices): more than the
# elementwise kernels' TF_POOL_CHUNKS_PER_THREAD, since cutting a batch finer costs
# nothing in locality, and a caller whose worker woke late then takes up only a small
# part of the worker's share (4 per thread left batched 4x4 matmuls 10-20% slower than
# OpenMP in a tight loop; 32 per thread measured even).
DEF BATCH_CHUNKS_PER_THREAD = 32


cdef inline Py_ssize_t pool_batch_chunks(Py_ssize_t n, int nthreads) noexcept nogil:
    """Chunks for a batch of n items on nthreads: BATCH_CHUNKS_PER_THREAD each, at most
    n.  Each item is computed alone, so the chunking changes no result."""
    cdef Py_ssize_t nch = <Py_ssize_t>nthreads * BATCH_CHUNKS_PER_THREAD
    return nch if nch < n else n
