"""The one place that decides how many threads tenferro's kernels use.

Resolution order: ``set_num_threads(n)`` > ``OMP_NUM_THREADS`` > the number of
cores OpenMP sees.  Kernels receive this number and themselves stay on one thread
below a size threshold.  BLAS (used by matmul, einsum and linalg) is given the same
count, so OpenMP teams and BLAS threads never oversubscribe the cores together.
"""
import contextlib
import os
import threading

from ..._kernels import _openmp
from . import blas

_lock = threading.Lock()
_num_threads = None   # what the user set (None: default)
current = 1           # the resolved count kernels use (read directly on hot paths)


def max_threads():
    """The largest thread count tenferro accepts: max(1024, the number of cores).  A
    larger one is a typo (2**31 threads would stop every later op), never a setting."""
    return max(1024, _openmp.num_procs())


def _default():
    raw = os.environ.get("OMP_NUM_THREADS", "")
    env = raw.split(",")[0].strip()
    if env:
        if env.isdigit() and 0 < int(env) <= max_threads():
            return int(env)
        # as OpenMP runtimes do: an invalid value is reported and ignored
        import warnings

        warnings.warn("tenferro: ignoring OMP_NUM_THREADS=%r (expected a thread count from "
                      "1 to %d); using the number of cores" % (raw, max_threads()),
                      RuntimeWarning, stacklevel=2)
    return max(1, _openmp.num_procs())


def have_openmp():
    return _openmp.have_openmp()


def _resolve():
    global current
    n = _num_threads if _num_threads is not None else _default()
    current = n if _openmp.have_openmp() else 1


def get_num_threads():
    """Threads tenferro's CPU kernels may use (1 when built without OpenMP)."""
    return current


def set_num_threads(n):
    """Set the thread count for tenferro's kernels and BLAS; ``None`` restores the default.

    Negative ``n`` counts back from the number of cores, as in scikit-learn
    (-1: all cores, -2: all but one; at least 1).  ``abs(n)`` must be at most
    :func:`max_threads` (max(1024, the number of cores)).
    """
    global _num_threads
    if n is not None:
        n = _checked(n)
        if n < 0:
            n = max(1, _openmp.num_procs() + 1 + n)
    with _lock:
        _num_threads = n
        _resolve()
    _sync_blas()


def _checked(n):
    if isinstance(n, bool) or not hasattr(n, "__index__") or n == 0:
        raise ValueError("tenferro.set_num_threads: expected a non-zero int or None, "
                         "got %r" % (n,))
    n = n.__index__()
    if abs(n) > max_threads():
        raise ValueError("tenferro.set_num_threads: %d threads is out of range; expected a "
                         "count from 1 to %d (negative: counted back from the number of "
                         "cores), or None" % (n, max_threads()))
    return n


def _sync_blas():
    blas.set_blas_threads(get_num_threads())


@contextlib.contextmanager
def num_threads(n):
    """Context manager: ``with tenferro.num_threads(1): ...``."""
    global _num_threads
    old = _num_threads
    set_num_threads(n)
    try:
        yield
    finally:
        with _lock:
            _num_threads = old
            _resolve()
        _sync_blas()


_resolve()
