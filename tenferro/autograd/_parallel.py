"""How many threads the eager backward pass runs on (ferrotorch's ``backward_parallel``).

``backward(num_workers=k)``, ``autograd.grad(..., num_workers=k)`` or the process-wide
setting (:func:`set_backward_workers`, the :func:`backward_workers` context manager,
following :func:`tenferro.set_num_threads`'s conventions) run the independent branches
of the backward graph on ``k`` threads: the calling thread and ``k - 1`` started for
the pass and joined before it returns.  The scheduler is compiled with the serial one
(``_backward_parallel.pxi``, in ``_tape``); it sums every cotangent in the serial pass's
order, so the results are the serial pass's bit for bit.  The default is 1 (serial).
"""
from __future__ import annotations

import contextlib
import threading
from typing import TYPE_CHECKING

from ..devices.cpu.threads import max_threads

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["set_backward_workers", "get_backward_workers", "backward_workers"]

_lock = threading.Lock()
_workers = 1   # the process-wide setting


def _checked(op, n):
    if isinstance(n, bool) or not hasattr(n, "__index__") or not 1 <= n.__index__() \
            <= max_threads():
        raise ValueError("tenferro.%s: num_workers must be an int from 1 (serial) to %d, "
                         "or None (the setting of tenferro.set_backward_workers), got %r"
                         % (op, max_threads(), n))
    return n.__index__()


def workers(op: str, num_workers: int | None) -> int:
    """The thread count for one backward pass of ``op`` (``num_workers`` checked; None:
    the process-wide setting)."""
    return _workers if num_workers is None else _checked(op, num_workers)


def get_backward_workers() -> int:
    """Threads an eager backward pass runs on when ``num_workers`` is not given."""
    return _workers


def set_backward_workers(n: int | None) -> None:
    """Run eager backward passes on ``n`` threads (``None`` or 1: serially, the default).

    The results are those of the serial pass, bit for bit.  It pays on graphs with
    independent heavy branches on the CPU; keep ``n`` times the kernels' thread count
    (:func:`tenferro.num_threads`) within the cores, as the workers do not divide it.
    See docs/autodiff.md, "Parallel backward"."""
    global _workers
    n = 1 if n is None else _checked("set_backward_workers", n)
    with _lock:
        _workers = n


@contextlib.contextmanager
def backward_workers(n: int | None) -> Iterator[None]:
    """Context manager: ``with tenferro.backward_workers(2): loss.backward()``."""
    global _workers
    old = _workers
    set_backward_workers(n)
    try:
        yield
    finally:
        with _lock:
            _workers = old
