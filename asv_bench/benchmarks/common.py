"""Shared helpers for the tenferro benchmarks.

* Seeded, cached inputs: every benchmark asks for its arrays through
  :func:`get_array`, which builds them once per process from a fixed seed, so all
  libraries see the same bits and setup cost is not paid per parameter.
* One thread policy: :func:`set_threads` puts tenferro (its OpenMP kernels and its
  BLAS) and PyTorch on the same number of threads (``N_THREADS``, 2 by default,
  override with ``TENFERRO_BENCH_THREADS``).  NumPy's elementwise ufuncs and
  reductions are single-threaded; its BLAS uses what OpenBLAS/MKL decide, which we
  cap with threadpoolctl when it is installed.
* :func:`torch_or_none` returns the ``torch`` module, or None when it is not
  installed; benchmarks then raise ``NotImplementedError`` in setup, which asv
  records as "skipped" (n/a).
"""
import functools
import os
import sys

import numpy as np

try:
    import tenferro  # noqa: F401
except ImportError:
    # With environment_type "existing" asv benchmarks the interpreter as it is; an
    # in-place build (`python setup.py build_ext --inplace`) lives in the repository
    # root, two levels above this file, which is not on sys.path when asv runs.
    sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
    import tenferro  # noqa: F401

N_THREADS = int(os.environ.get("TENFERRO_BENCH_THREADS", "2"))
SEED = 20240601

LIBS = ["tenferro", "numpy", "torch"]


@functools.lru_cache(maxsize=None)
def torch_or_none():
    """The torch module, or None when PyTorch is not installed."""
    try:
        import torch
    except ImportError:
        return None
    return torch


def set_threads(n=N_THREADS):
    """Give tenferro, PyTorch and (when possible) NumPy's BLAS ``n`` threads."""
    import tenferro as tf

    tf.set_num_threads(n)
    torch = torch_or_none()
    if torch is not None:
        torch.set_num_threads(n)
    _limit_numpy_blas(n)


@functools.lru_cache(maxsize=None)
def _limit_numpy_blas(n):
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return None
    # Keep the limiter alive for the process lifetime.
    return threadpool_limits(limits=n, user_api="blas")


@functools.lru_cache(maxsize=None)
def get_array(shape, dtype="float64", kind="normal", seed=SEED):
    """A cached, seeded NumPy array (C-contiguous); do not modify it in place."""
    rng = np.random.default_rng(seed)
    shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    dt = np.dtype(dtype)
    if kind == "normal":
        a = rng.standard_normal(shape)
    elif kind == "uniform":  # (0.5, 1.5): safe for log, division, etc.
        a = rng.uniform(0.5, 1.5, shape)
    elif kind == "int":
        a = rng.integers(-100, 100, shape)
    else:
        raise ValueError(kind)
    a = np.ascontiguousarray(a.astype(dt, copy=False))
    a.setflags(write=False)
    return a


def convert(a, lib):
    """Wrap the NumPy array ``a`` for ``lib`` ('tenferro', 'numpy' or 'torch')."""
    if lib == "numpy":
        return a
    if lib == "tenferro":
        import tenferro as tf

        return tf.asarray(np.array(a))  # writable private copy, zero-copy wrap
    if lib == "torch":
        torch = torch_or_none()
        if torch is None:
            raise NotImplementedError("PyTorch is not installed")
        return torch.from_numpy(np.array(a))
    raise ValueError(lib)


def module(lib):
    """The NumPy-like namespace of ``lib`` (raises NotImplementedError if absent)."""
    if lib == "numpy":
        return np
    if lib == "tenferro":
        import tenferro as tf

        return tf
    if lib == "torch":
        torch = torch_or_none()
        if torch is None:
            raise NotImplementedError("PyTorch is not installed")
        return torch
    raise ValueError(lib)


def empty_like(x, lib):
    """A preallocated output for ``out=``."""
    if lib == "numpy":
        return np.empty_like(x)
    return module(lib).empty_like(x)


def sync(r, lib):
    """Ensure device work behind ``r`` is finished (all CPU today: a no-op hook).

    tenferro and PyTorch on CPU are eager and synchronous; when a GPU device is
    benchmarked this is where ``torch.cuda.synchronize()`` / the tenferro device's
    synchronize go, so the timed body includes the device work.
    """
    return r


class FactoryBench:
    """Base of the asv classes whose cases come from a ``make(lib, case)`` factory
    returning a zero-argument callable (subclasses set ``params``, ``make`` as a
    staticmethod, and a ``time_*`` method calling ``self.fn()``)."""

    param_names = ["lib", "case"]
    timeout = 300
    make = None

    def setup(self, lib, case):
        set_threads()
        self.lib = lib
        self.fn = type(self).make(lib, case)
        self.fn()  # warm-up (plan caches, workspace queries, allocator, thread team)
