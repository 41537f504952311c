"""The Array API's elementwise functions whose semantics differ from tenferro's NumPy
ones (``clip``, ``floor_divide``, complex ``expm1`` and ``tanh`` special values) or that
tenferro lacks (``signbit``, ``nextafter``)."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

from .. import _ops
from .._tensor import Tensor
from ._host import pick

if TYPE_CHECKING:
    from typing import Union

    Scalar = Union[int, float]

__all__ = ["clip", "signbit", "floor_divide", "expm1", "tanh", "nextafter"]


def clip(x: Tensor, /, min: Scalar | Tensor | None = None,
         max: Scalar | Tensor | None = None) -> Tensor:
    """Each element clamped to [``min``, ``max``] (the standard's ``clip``).

    Unlike NumPy the result keeps ``x``'s dtype (bounds of another dtype are cast to
    it; NumPy would promote), and either bound may be None.

    Parameters
    ----------
    x : Tensor
        The values.
    min : scalar or Tensor, optional
        Lower bound, broadcast against ``x``; None: none.
    max : scalar or Tensor, optional
        Upper bound, broadcast against ``x``; None: none.

    Returns
    -------
    Tensor
        ``x``'s shape and dtype.

    Raises
    ------
    ValueError
        If a bound does not broadcast to ``x``.

    Notes
    -----
    Differentiable: yes, forward and reverse (through :func:`tenferro.where`): the
    gradient flows to ``x`` where it is inside the bounds, to a tensor bound where
    it clamps.

    Examples
    --------
    >>> xp = tf.array_api
    >>> xp.clip(xp.asarray([1, 5, 9], dtype=xp.int32), 2.5, 6)
    tensor([2, 5, 6], dtype=int32)
    """
    out = x
    for bound, beyond in ((min, _ops.less), (max, _ops.greater)):
        if bound is not None:
            if isinstance(bound, Tensor):
                bound = _ops.astype(bound, x.dtype, copy=False)
            out = _ops.where(beyond(out, bound), bound, out)
    return _ops.astype(out, x.dtype, copy=False)


def signbit(x: Tensor, /) -> Tensor:
    """True where the sign bit is set: negative numbers, -0.0 and -inf, and NaNs with
    the bit set (the standard's ``signbit``; NumPy's).

    Parameters
    ----------
    x : Tensor
        Real floating values.

    Returns
    -------
    Tensor
        bool, ``x``'s shape.

    Notes
    -----
    Differentiable: no (a bool result).

    Examples
    --------
    >>> xp = tf.array_api
    >>> xp.signbit(xp.asarray([-1.0, -0.0, 0.0, 2.0]))
    tensor([ True,  True, False, False])
    """
    return _ops.less(_ops.copysign(_ops.ones((), dtype=x.dtype, device=x.device), x), 0)


def floor_divide(x1: Tensor | Scalar, x2: Tensor | Scalar, /) -> Tensor:
    """``floor(x1 / x2)`` elementwise, broadcast (the standard's ``floor_divide``).

    NumPy's ``floor_divide``, except with an infinite operand, where the standard
    wants ``floor(x1 / x2)``: ``inf // 2`` is inf (NumPy: nan) and ``1 // -inf`` is
    -0.0 (NumPy: -1).

    Parameters
    ----------
    x1 : Tensor or scalar
        Dividend.
    x2 : Tensor or scalar
        Divisor, broadcast against ``x1``.

    Returns
    -------
    Tensor
        The promoted dtype, the broadcast shape.

    Raises
    ------
    ValueError
        If the shapes do not broadcast.

    Notes
    -----
    Differentiable: no (piecewise constant; the gradient is zero almost everywhere).

    Examples
    --------
    >>> xp = tf.array_api
    >>> xp.floor_divide(xp.asarray([7.0, -7.0, xp.inf]), 2.0)
    tensor([ 3., -4., inf])
    """
    out = _ops.floor_divide(x1, x2)
    if out.dtype.kind != "f":
        return out
    inf = [_ops.isinf(v) if isinstance(v, Tensor) else math.isinf(v) for v in (x1, x2)]
    return _ops.where(inf[0] | inf[1], _ops.floor(_ops.divide(x1, x2)), out)


def expm1(x: Tensor, /) -> Tensor:
    """``exp(x) - 1``, accurate near 0 (the standard's ``expm1``).

    As :func:`tenferro.expm1`, with the standard's special values for complex ``x``:
    those of ``exp(x) - 1`` where ``x`` is not finite (NumPy's complex expm1 gives
    nan), and +0 + 0j (not NumPy's -0 + 0j) at -0 + 0j.

    Parameters
    ----------
    x : Tensor
        Floating or complex values.

    Returns
    -------
    Tensor
        ``x``'s shape and dtype.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex (``d/dx = exp(x)``).

    Examples
    --------
    >>> xp = tf.array_api
    >>> xp.expm1(xp.asarray([0.0, 1e-10]))
    tensor([0.e+00, 1.e-10])
    """
    out = _ops.expm1(x)
    if x.dtype.kind != "c":
        return out
    out = _ops.where(_ops.isfinite(x), out, _ops.subtract(_ops.exp(x), 1))
    return _ops.where(_ops.equal(x, 0), _ops.subtract(x, _ops.real(x)), out)


def tanh(x: Tensor, /) -> Tensor:
    """Hyperbolic tangent (the standard's ``tanh``).

    As :func:`tenferro.tanh`; for complex ``x`` with an infinite real part and a
    finite imaginary one the standard's +-1 + 0j, the zero signed as ``imag(x)``
    (NumPy's and C99's sign is that of ``sin(2 imag(x))``).

    Parameters
    ----------
    x : Tensor
        Floating or complex values.

    Returns
    -------
    Tensor
        ``x``'s shape and dtype.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex
    (``d/dx = 1 - tanh(x)^2``).

    Examples
    --------
    >>> xp = tf.array_api
    >>> xp.tanh(xp.asarray([0.0, 1.0]))
    tensor([0.        , 0.76159416])
    """
    out = _ops.tanh(x)
    if x.dtype.kind != "c":
        return out
    b = _ops.imag(x)
    wrong = _ops.isinf(_ops.real(x)) & _ops.isfinite(b) & (signbit(_ops.imag(out)) != signbit(b))
    return _ops.where(wrong, _ops.conj(out), out)


_nextafter = pick("nextafter")


def nextafter(x1: Tensor | Scalar, x2: Tensor | Scalar, /) -> Tensor:
    """The next representable value after ``x1`` towards ``x2`` (the standard's
    ``nextafter``; NumPy's).

    tenferro has no native ``nextafter`` yet: NumPy's runs on host copies and the
    result is put back on the input's device (tenferro/array_api/_host.py).

    Parameters
    ----------
    x1 : Tensor or scalar
        Starting values (real floating).
    x2 : Tensor or scalar
        Directions, broadcast against ``x1``.

    Returns
    -------
    Tensor
        The promoted dtype, the broadcast shape.

    Raises
    ------
    TypeError
        If an operand requires grad (the host detour would cut the gradient).

    Notes
    -----
    Differentiable: no (a host computation; refused for tensors that require grad).

    Examples
    --------
    >>> xp = tf.array_api
    >>> float(xp.nextafter(xp.asarray(1.0), 2.0)) - 1.0 == 2.0 ** -52
    True
    """
    return _nextafter(x1, x2)
