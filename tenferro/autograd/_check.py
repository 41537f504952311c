"""Runtime checks: a value-dependent error (a rule's "this input has no derivative")
that stays an error under :func:`tenferro.make_graph`.

Eagerly, :func:`check` tests its condition at once and raises as plain Python would.
On values being traced (no data yet) it records the ``check`` primitive instead: the
node passes its guarded value through and raises when the compiled program runs with
values that fail the condition.  The rule must go on with the value ``check``
returns, so that the node feeds the result and dead-code elimination keeps it.
"""
from __future__ import annotations

import numpy as np

from .._ir import is_abstract
from .._primitive import Primitive
from .._tensor import Tensor, _wrap

__all__ = ["check"]


check_p = Primitive(
    "check", lambda x, ok, *, error, message: x,
    doc="check(x, ok; error, message): x, after raising error(message) if any element "
        "of the bool tensor ok is false (a runtime check kept in traced programs).")


def _check_impl(x, ok, *, error, message):
    from .._ops import all as _all
    if not bool(_all(ok)):
        raise error(message)
    return _wrap(x._data, x._device)   # a new Tensor on the same data (x passes through)


check_p.impl = _check_impl
# x passes through unchanged: its tangent and cotangent too; ok has no derivative
check_p.def_jvp(lambda tangents, primals, out, params: tangents[0])
check_p.def_vjp(lambda ct, primals, out, params, needs: (ct if needs[0] else None, None))
check_p.vjp.uses_out = False


def check(x: Tensor, ok: bool | np.bool_ | Tensor, error: type[BaseException],
          message: str) -> Tensor:
    """``x``, once ``ok`` holds; else ``error(message)`` is raised, also in traced programs.

    A value-dependent error for rules and ops (e.g. "this input has no derivative")
    that stays an error under :func:`tenferro.make_graph` and ``jit``: a tensor
    condition is tested now when its value is known, and when the program runs when it
    is being traced -- then the returned value, not ``x``, carries the check: go on
    with it.

    Parameters
    ----------
    x : Tensor
        The guarded value.
    ok : bool or Tensor
        A Python or NumPy bool, or a bool tensor all of whose elements must be true.
    error : type
        The exception class to raise.
    message : str
        Its message.

    Returns
    -------
    Tensor
        ``x`` (a new tensor on ``x``'s data when traced).

    Raises
    ------
    error
        If the condition fails (now, or when the traced program runs).
    TypeError
        If ``ok`` is a tensor that is not bool.

    Examples
    --------
    >>> from tenferro.autograd.extend import check
    >>> x = tf.asarray([1.0, 4.0])
    >>> check(x, x > 0, ValueError, "x must be positive")
    tensor([1., 4.])
    >>> check(x, x > 2, ValueError, "x must be > 2")
    Traceback (most recent call last):
    ...
    ValueError: x must be > 2
    """
    if isinstance(ok, Tensor):
        if ok.dtype != np.dtype(bool):
            raise TypeError("tenferro.check: the condition must be a bool tensor, got "
                            "dtype %s (shape %s)" % (ok.dtype, ok.shape))
        if is_abstract(ok):
            return check_p.bind(x, ok, error=error, message=message)
        from .._ops import all as _all
        ok = bool(_all(ok))
    if not ok:
        raise error(message)
    return x
