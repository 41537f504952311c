"""The one place that decides how many threads tenferro's kernels use.

Resolution order: ``set_num_threads(n)`` > ``OMP_NUM_THREADS`` > the number of
cores OpenMP sees.  Kernels receive this number and themselves stay on one thread
below a size threshold.  BLAS (used by matmul, einsum and linalg) is given the same
count, so the kernels' thread pool (``_kernels/_pool.h``) and BLAS threads never
oversubscribe the cores together.
"""
from __future__ import annotations

import contextlib
import os
import threading
from typing import TYPE_CHECKING

from ..._kernels import _elementwise, _index, _openmp, _reduce, _special
from . import blas, blas_kernels

if TYPE_CHECKING:
    from collections.abc import Iterator

_lock = threading.Lock()
_num_threads = None   # what the user set (None: default)
current = 1           # the resolved count kernels use (read directly on hot paths)
_blas_sync_due = False  # a thread count was set before the BLAS kernels loaded


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


# -- grain sizes -----------------------------------------------------------------------
# Per kernel family, the size from which a call runs on more than one thread (PyTorch's
# GRAIN_SIZE idea): below it, waking a thread team and joining it costs more than the
# second thread saves -- and on a machine whose other core is busy (another process,
# NumPy's OpenBLAS threads spinning after a call) a team waits for a core.  Sizes are
# elements, except the two "work" families (sum over a batch of n^3 per matrix plus a
# per-call cost; see _lapack/_matmul).  Measured with asv_bench/thread_sweep.py
# (docs/performance.md has the figures).
GRAIN = {
    "elementwise": 65536,        # add, multiply, compare, cast, where, ...
    "transcendental": 4096,      # exp, sin, log, tanh, ... (per-element cost ~10x)
    "reduce": 32768,             # sum/prod/max/min/any/all, scans, argmax/argmin
    "index": 32768,              # take, take_along_axis, scatter-adds (put: one thread)
    "batched_linalg_work": 16384.0,  # batches of small matrices on the pool (LAPACK)
    "batched_matmul_work": 32768.0,  # batches of small matrix products
}


def _apply_grain(g):
    _elementwise.set_grain(cheap=g["elementwise"], transcendental=g["transcendental"])
    _special.set_grain(transcendental=g["transcendental"])
    _reduce.set_grain(g["reduce"])
    _index.set_grain(g["index"])
    if blas_kernels.modules is not None:   # else blas_kernels_loaded applies them
        _tune_blas_kernels(blas_kernels.modules, g)


def _tune_blas_kernels(mods, g):
    mods["_lapack"]._set_tuning(par_min_work=g["batched_linalg_work"])
    mods["_matmul"]._set_tuning(par_min_work=g["batched_matmul_work"])


def blas_kernels_loaded(mods):
    """Give the BLAS kernels, just imported (``blas_kernels.load``), the grain sizes in
    force, and the BLAS the thread count a ``set_num_threads`` before asked for."""
    with _lock:
        _tune_blas_kernels(mods, GRAIN)
    if _blas_sync_due:
        _sync_blas()


def get_grain():
    """The grain sizes in force (a copy of the table: family -> size)."""
    return dict(GRAIN)


def set_grain(**sizes):
    """Set grain sizes (``elementwise=``, ``transcendental=``, ``reduce=``, ``index=``,
    ``batched_linalg_work=``, ``batched_matmul_work=``): the size from which that kernel
    family uses more than one thread.  Returns the old table (pass it back with
    ``set_grain(**old)``).  For tuning and benchmarks; the defaults are measured."""
    unknown = sorted(set(sizes) - set(GRAIN))
    if unknown:
        raise ValueError("tenferro.set_grain: unknown kernel families %s; expected some "
                         "of %s" % (unknown, sorted(GRAIN)))
    for k, v in sizes.items():
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not v >= 1:
            raise ValueError("tenferro.set_grain: %s must be a number >= 1, got %r" % (k, v))
    sizes = {k: float(v) if k.endswith("_work") else int(min(v, 2 ** 62))
             for k, v in sizes.items()}
    with _lock:
        old = dict(GRAIN)
        GRAIN.update(sizes)
        _apply_grain(GRAIN)
    return old


@contextlib.contextmanager
def grain(**sizes):
    """Context manager: ``with grain(elementwise=10**9): ...`` (restores on exit)."""
    old = set_grain(**sizes)
    try:
        yield
    finally:
        set_grain(**old)


def have_openmp():
    return _openmp.have_openmp()


def _resolve():
    global current
    n = _num_threads if _num_threads is not None else _default()
    current = n if _openmp.have_openmp() else 1


def get_num_threads() -> int:
    """The number of threads tenferro's CPU kernels may use (``torch.get_num_threads``).

    Returns
    -------
    int
        The thread count in force (1 when built without OpenMP).  The default is the
        number of cores (``OMP_NUM_THREADS`` where set).

    See Also
    --------
    set_num_threads, num_threads, show_config

    Examples
    --------
    >>> tf.get_num_threads() >= 1
    True
    """
    return current


def set_num_threads(n: int | None) -> None:
    """Set the thread count of tenferro's CPU kernels and BLAS (``torch.set_num_threads``).

    Process-wide.  Negative ``n`` counts back from the number of cores, as in
    scikit-learn (-1: all cores, -2: all but one; at least 1).

    Parameters
    ----------
    n : int or None
        The thread count (``abs(n)`` at most max(1024, the number of cores)); None
        restores the default.

    Returns
    -------
    None

    Raises
    ------
    ValueError
        If ``n`` is 0, not an int, or out of range.

    See Also
    --------
    num_threads, get_num_threads

    Examples
    --------
    >>> tf.set_num_threads(1)
    >>> tf.get_num_threads()
    1
    >>> tf.set_num_threads(None)     # the default again
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
    """BLAS gets tenferro's thread count; before the BLAS kernels load (the first
    matmul or linalg call), when they load: probing the BLAS here would load it."""
    global _blas_sync_due
    if not blas.loaded():
        _blas_sync_due = True
        return
    blas.set_blas_threads(get_num_threads())


@contextlib.contextmanager
def num_threads(n: int | None) -> Iterator[None]:
    """Context manager: tenferro's kernels and BLAS on ``n`` threads inside the block.

    As :func:`set_num_threads`, restoring the previous setting on exit.

    Parameters
    ----------
    n : int or None
        The thread count (negative: counted back from the number of cores; None: the
        default).

    Yields
    ------
    None

    Raises
    ------
    ValueError
        If ``n`` is 0, not an int, or out of range.

    Examples
    --------
    >>> with tf.num_threads(1):
    ...     tf.get_num_threads()
    1
    """
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
_apply_grain(GRAIN)
