"""The CPU driver: NumPy buffers for storage, tenferro's Cython kernels for compute.

Device arrays are ndarrays, so views are NumPy's own (metadata only) and host transfer
is free.  The package owns all of the CPU's device code: ``ops`` (the primitives'
implementations), ``fused`` (the fused-group kernel of compiled programs), ``threads``
(the one place deciding thread counts), ``blas`` (scipy's BLAS/LAPACK threads) and
``blas_kernels`` (the kernels calling them, imported with the first matmul or linalg
call).
"""
import os
import platform

import numpy as np

from ... import _caches, _dtypes
from ..._kernels import _alloc
from ..._kernels._alloc import empty as _empty
from ..base import Driver as _Base
from . import blas, fused, threads as _threads
from .ops import OUT_OPS, impl


def _configure_cache_from_env():
    mb = os.environ.get("TENFERRO_BUFFER_CACHE_MB")
    if mb is not None:
        try:
            limit = int(mb)
        except ValueError:
            raise ValueError("TENFERRO_BUFFER_CACHE_MB must be an integer number of MiB, got "
                             "%r" % mb) from None
        _alloc.configure(enabled=limit > 0, limit_bytes=max(limit, 0) << 20)


_configure_cache_from_env()


def buffer_cache_info():
    """The CPU output-buffer cache: bytes held, limit, hits, misses.

    tenferro's CPU kernels write large outputs (>= 1 MiB) into buffers that are kept
    when their tensor dies and reused for the next output of the same size, saving
    the page faults of fresh memory.  ``TENFERRO_BUFFER_CACHE_MB`` sets the limit
    (default 1024; 0 disables it).
    """
    return _alloc.cache_info()


def clear_buffer_cache():
    """Return the cached CPU output buffers to the system."""
    _alloc.clear()


def _buffer_stats():
    i = _alloc.cache_info()
    return _caches.CacheStats(i["hits"], i["misses"], i["cached_bytes"],
                              i["limit_bytes"] if i["enabled"] else 0, "bytes")


_caches.register("cpu buffers", _buffer_stats, clear_buffer_cache)


class Driver(_Base):
    """The host CPU: always present, every tenferro dtype."""

    name = "cpu"
    dtypes = frozenset(_dtypes.DTYPES)
    implementations = dict(impl, fused_elementwise=fused.fused_elementwise)
    view_ops = frozenset({"reshape", "permute_dims", "broadcast_to", "basic_index",
                          "diagonal"})
    inplace_ops = OUT_OPS

    def device_count(self):
        return 1

    def info(self, index=0):
        cache = _alloc.cache_info()
        return {"processor": platform.processor() or platform.machine(),
                "cores": os.cpu_count(), "openmp": _threads.have_openmp(),
                "threads": _threads.get_num_threads(),
                "buffer_cache_MiB": (cache["limit_bytes"] >> 20) if cache["enabled"] else 0}

    def empty(self, shape, dtype, device):
        return _empty(tuple(shape), np.dtype(dtype))

    def full(self, shape, dtype, value, device):
        if (value.__class__ is int and value == 0) or (
                value == 0 and not np.signbit(np.real(value)) and not np.signbit(np.imag(value))):
            return np.zeros(shape, dtype)  # calloc: pages arrive zeroed, lazily (not -0.0)
        out = _empty(tuple(shape), np.dtype(dtype))
        out.fill(value)
        return out

    def from_numpy(self, array, device):
        return array

    def to_numpy(self, data):
        return data
