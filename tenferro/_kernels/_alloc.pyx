# cython: language_level=3
"""Output allocation for the CPU driver: large buffers come from a cache of freed ones.

See ``_bufcache.h``.  ``empty`` allocates with the cache's NumPy memory handler only
for arrays of at least 1 MiB; everything else is a plain ``np.empty``.
"""
cimport numpy as cnp
import numpy as np

cnp.import_array()

cdef extern from "numpy/arrayobject.h":
    ctypedef struct PyDataMem_Handler:
        pass
    object PyDataMem_SetHandler(object handler)

cdef extern from "_bufcache.h":
    PyDataMem_Handler tf_cache_handler
    size_t tf_cached, tf_cache_limit, tf_hits, tf_misses
    size_t TF_CACHE_MIN
    void tf_cache_clear()
    void tf_cache_set_limit(size_t limit)

from cpython.pycapsule cimport PyCapsule_New

_handler = PyCapsule_New(&tf_cache_handler, "mem_handler", NULL)
#: Bytes from which outputs come from the buffer cache (smaller ones: NumPy's allocator).
CACHE_MIN = TF_CACHE_MIN
cdef bint _enabled = True


def empty(tuple shape, cnp.dtype dtype not None, order="C"):
    """``np.empty(shape, dtype, order)``, drawing large buffers from the cache."""
    cdef Py_ssize_t n = dtype.itemsize
    for s in shape:
        n *= s
    if not _enabled or n < <Py_ssize_t>TF_CACHE_MIN:
        return np.empty(shape, dtype, order)
    old = PyDataMem_SetHandler(_handler)
    try:
        return np.empty(shape, dtype, order)
    finally:
        PyDataMem_SetHandler(old)


def cache_info():
    """Bytes held, limit, hits and misses of the buffer cache."""
    return {"enabled": _enabled, "cached_bytes": tf_cached, "limit_bytes": tf_cache_limit,
            "hits": tf_hits, "misses": tf_misses}


def clear():
    """Return every cached buffer to the system."""
    tf_cache_clear()


def configure(enabled=None, limit_bytes=None):
    global _enabled
    if enabled is not None:
        _enabled = bool(enabled)
        if not _enabled:
            tf_cache_clear()
    if limit_bytes is not None:
        if limit_bytes < 0:
            raise ValueError("tenferro buffer cache: limit must be >= 0, got %r" % limit_bytes)
        tf_cache_set_limit(limit_bytes)
