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
    """Threads an eager backward pass runs on when ``num_workers`` is not given.

    Returns
    -------
    int
        The process-wide setting (1, serial, by default).

    See Also
    --------
    set_backward_workers, backward_workers

    Examples
    --------
    >>> tf.get_backward_workers()
    1
    """
    return _workers


def set_backward_workers(n: int | None) -> None:
    """Run eager backward passes on ``n`` threads (ferrotorch's ``backward_parallel``).

    Independent branches of the backward graph run on the calling thread and ``n - 1``
    threads started for the pass.  The results are those of the serial pass, bit for
    bit.  It pays on graphs with independent heavy branches on the CPU; keep ``n``
    times the kernels' thread count (:func:`tenferro.num_threads`) within the cores,
    as the workers do not divide it.  See docs/autodiff.md, "Parallel backward".

    Parameters
    ----------
    n : int or None
        Threads, from 1 to the machine's thread limit; None or 1: serial (the default).

    Returns
    -------
    None

    Raises
    ------
    ValueError
        If ``n`` is not an int in range.

    See Also
    --------
    backward_workers, get_backward_workers

    Examples
    --------
    >>> tf.set_backward_workers(2)
    >>> tf.get_backward_workers()
    2
    >>> tf.set_backward_workers(None)
    """
    global _workers
    n = 1 if n is None else _checked("set_backward_workers", n)
    with _lock:
        _workers = n


@contextlib.contextmanager
def backward_workers(n: int | None) -> Iterator[None]:
    """Context manager: run eager backward passes on ``n`` threads inside the block.

    As :func:`set_backward_workers`, restoring the previous setting on exit.

    Parameters
    ----------
    n : int or None
        Threads for the passes inside the block; None or 1: serial.

    Yields
    ------
    None

    Raises
    ------
    ValueError
        If ``n`` is not an int in range.

    Examples
    --------
    >>> x = tf.asarray([1.0, 2.0]).requires_grad_()
    >>> with tf.backward_workers(2):
    ...     (tf.sin(x) * tf.cos(x)).sum().backward()
    >>> tf.get_backward_workers()
    1
    """
    global _workers
    old = _workers
    set_backward_workers(n)
    try:
        yield
    finally:
        with _lock:
            _workers = old
