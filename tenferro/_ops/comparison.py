"""NumPy's whole-array comparisons: ``isclose`` (elementwise, within tolerances),
``allclose``, ``array_equal`` and ``array_equiv`` (one Python bool).

Each is NumPy's own formula written with tenferro's elementwise ops and ``all``, so it
runs on every device that runs those (on the operands' device: tensors on different
devices raise DeviceMismatchError) and traces into graphs.  ``isclose`` returns a bool
tensor; the other three return a Python bool, as NumPy's do, which is a read of a value
on the host: it raises ConcretizationError while the operands are traced into a graph
(``tenferro.jit``) or batched (``tenferro.vmap``), as ``bool(x)`` does.  Under
``tenferro.grad`` the values are known and a bool carries no derivative, so it answers
(as ``bool(tenferro.all(x > 0))`` does there).

Where NumPy computes in float64 (``isclose`` of integers), a device without float64
(WebGPU) uses its default float.
"""
from __future__ import annotations

import cmath
import warnings
from typing import TYPE_CHECKING

import numpy as np

from .. import _dtypes
from .._tensor import Tensor
from ._common import NotATensor, broadcast_shapes, common_device, to_tensor
from .elementwise import (abs as _abs, astype, equal, isfinite, isnan, less_equal,
                          logical_and, logical_or)
from .reduction import all as _all

if TYPE_CHECKING:
    from .._tensor import ArrayLike

__all__ = ["isclose", "allclose", "array_equal", "array_equiv"]

_PY_SCALARS = (int, float, complex)   # NumPy's isclose keeps these weak (bool is an int)


def _tensors(op, values, keep_scalars=False):
    """``values`` as tensors on their common device (DeviceMismatchError naming ``op``
    when tensors disagree); Python numbers stay as they are with ``keep_scalars``."""
    dev = common_device(op, values)
    out = []
    for v in values:
        if not isinstance(v, Tensor) and not (keep_scalars and isinstance(v, _PY_SCALARS)):
            try:
                v = to_tensor(v, device=dev)
            except NotATensor as e:
                raise TypeError("tenferro.%s: expected tensors or array_like numbers, got "
                                "%s (%s)" % (op, type(v).__name__, e)) from None
        out.append(v)
    return out


def _convertible(op, a1, a2):
    """``a1`` and ``a2`` as tensors, or None where NumPy's ``asarray`` fails too (ragged
    lists: NumPy's array_equal and array_equiv then answer False); data NumPy holds
    but tenferro cannot (strings, objects) raise TypeError naming ``op``."""
    try:
        return _tensors(op, [a1, a2])
    except TypeError:
        try:
            for a in (a1, a2):
                if not isinstance(a, Tensor):
                    np.asarray(a)
        except (TypeError, ValueError):
            return None
        raise


def _inexact(t, other):
    """Integer or bool tensor ``t`` in the float type NumPy computes ``t`` and ``other``
    in (float64: the device's default float where it has no float64)."""
    if t.dtype.kind not in "biu":
        return t
    dt = _dtypes.result_type(t, other)
    driver = t._device.driver
    if dt not in driver.dtypes:
        dt = driver.default_dtypes[dt.kind]
    return astype(t, dt)


def _isnan(v):
    return isnan(v) if isinstance(v, Tensor) else cmath.isnan(v)


def _check_tolerance(rtol, atol):
    """NumPy's check of the tolerances (under ``np.seterr(invalid=...)``): a warning for
    a NaN or infinite one.  Tensors are not read (their values may be traced)."""
    try:
        host = [np.asarray(t) for t in (atol, rtol) if not isinstance(t, Tensor)]
    except (TypeError, ValueError):
        return   # (not numbers: the conversion to tensors names the function)
    if all(h.dtype.kind not in "fc" or np.all(np.isfinite(h)) for h in host):
        return
    msg = "One of rtol or atol is not valid, atol: %s, rtol: %s" % (atol, rtol)
    mode = np.geterr()["invalid"]
    if mode == "warn":
        warnings.warn(msg, RuntimeWarning, stacklevel=4)
    elif mode == "raise":
        raise FloatingPointError(msg)
    elif mode == "print":
        print(msg)


# isclose's and allclose's parameters, for their docstrings (filled in at the end)
_CLOSE_PARAMETERS = """a, b : Tensor or array_like
        The values to compare; ``b`` is the reference value.
    rtol : float or Tensor or array_like, default 1e-05
        The relative tolerance, times ``absolute(b)``.
    atol : float or Tensor or array_like, default 1e-08
        The absolute tolerance.
    equal_nan : bool, default False
        Whether a NaN in ``a`` is close to a NaN in ``b``."""
# what the Python-bool functions raise, for their docstrings
_READ_RAISES = """DeviceMismatchError
        If the tensors are on different devices.
    ConcretizationError
        Inside ``tenferro.jit``/``make_graph`` tracing or ``tenferro.vmap``.
    TypeError
        If an input is data tenferro has no dtype for (strings, objects)."""


def _truth(t, op):
    """The 0-d bool tensor ``t`` as a Python bool (a host read, named ``op``)."""
    return bool(t._scalar("tenferro.%s" % op))


def isclose(a: ArrayLike, b: ArrayLike, rtol: ArrayLike = 1e-05, atol: ArrayLike = 1e-08,
            equal_nan: bool = False) -> Tensor:
    """Where ``a`` and ``b`` are equal within a tolerance, elementwise (numpy.isclose).

    ``absolute(a - b) <= atol + rtol * absolute(b)`` for finite ``b``, or ``a == b``
    (so infinities of the same sign are close, and an infinity is never close to a
    finite number).  NaN is close to nothing, unless ``equal_nan`` makes it close to
    NaN (a complex number is NaN when either part is).  Not symmetric: ``b`` is the
    reference.  As NumPy 2: integer and bool ``b`` is compared as float64 (the device's
    default float where it has no float64, as on WebGPU), Python numbers stay weakly
    typed (``isclose(x32, 0.1)`` compares in float32), complex numbers by the absolute
    value of their difference.  The inputs and tolerances broadcast together.

    Parameters
    ----------
    %(close_parameters)s

    Returns
    -------
    Tensor of bool
        The broadcast shape of the inputs (0-d for scalars, where NumPy gives a NumPy
        bool), on the inputs' device.

    Raises
    ------
    ValueError
        If the shapes do not broadcast (the message names ``isclose`` and the shapes).
    DeviceMismatchError
        If the tensors are on different devices.
    TypeError
        If an input is data tenferro has no dtype for (strings, objects).

    Warns
    -----
    RuntimeWarning
        If ``rtol`` or ``atol``, given as Python numbers or NumPy arrays, is NaN or
        infinite (as NumPy, under ``np.seterr(invalid=...)``).

    See Also
    --------
    allclose, array_equal, numpy.isclose

    Notes
    -----
    Differentiable: no (boolean result).

    Examples
    --------
    >>> tf.isclose([1e10, 1e-7], [1.00001e10, 1e-8])
    tensor([ True, False])
    >>> tf.isclose([1.0, np.nan], [1.0, np.nan], equal_nan=True)
    tensor([ True,  True])
    """
    return _close("isclose", a, b, rtol, atol, equal_nan)


def _close(op, a, b, rtol, atol, equal_nan):
    """``isclose`` for ``op`` (named in its errors)."""
    _check_tolerance(rtol, atol)
    x, y, rtol, atol = _tensors(op, [a, b, rtol, atol], keep_scalars=True)
    if isinstance(y, _PY_SCALARS):
        if not isinstance(y, complex):
            y = float(y)
        if not isinstance(x, Tensor):   # two Python numbers: compute as NumPy, in float64
            y = to_tensor(y)
    else:
        y = _inexact(y, 1.0)
    if isinstance(x, Tensor):
        x = _inexact(x, y)
    broadcast_shapes(op, *[v.shape for v in (x, y, rtol, atol) if isinstance(v, Tensor)])
    close = less_equal(_abs(x - y), atol + rtol * abs(y))
    finite = isfinite(y) if isinstance(y, Tensor) else cmath.isfinite(y)
    result = logical_or(logical_and(close, finite), equal(x, y))
    if equal_nan:
        result = logical_or(result, logical_and(_isnan(x), _isnan(y)))
    return result

def allclose(a: ArrayLike, b: ArrayLike, rtol: ArrayLike = 1e-05, atol: ArrayLike = 1e-08,
             equal_nan: bool = False) -> bool:
    """Whether all of ``a`` and ``b`` are equal within a tolerance (numpy.allclose).

    ``all(isclose(a, b, rtol, atol, equal_nan))`` as a Python bool, as NumPy returns
    (see :func:`isclose` for the comparison; empty inputs are all close).  Reading the
    answer is a host read: it raises ConcretizationError while the inputs are traced into
    a graph or batched by ``vmap`` (compute ``tenferro.all(tenferro.isclose(a, b))``
    there, a bool tensor).

    Parameters
    ----------
    %(close_parameters)s

    Returns
    -------
    bool
        True when every element is close.

    Raises
    ------
    ValueError
        If the shapes do not broadcast (the message names ``allclose`` and the shapes).
    %(read_raises)s

    See Also
    --------
    isclose, array_equal, numpy.allclose

    Notes
    -----
    Differentiable: no (boolean result).

    Examples
    --------
    >>> tf.allclose(tf.asarray([1e10, 1e-8]), [1.00001e10, 1e-9])
    True
    >>> tf.allclose([1.0, np.nan], [1.0, np.nan])
    False
    """
    return _truth(_all(_close("allclose", a, b, rtol, atol, equal_nan)), "allclose")


def array_equal(a1: ArrayLike, a2: ArrayLike, equal_nan: bool = False) -> bool:
    """Whether ``a1`` and ``a2`` have the same shape and elements (numpy.array_equal).

    A Python bool, as NumPy returns: False for different shapes (no error) and for
    inputs NumPy cannot make an array of (ragged lists).  With ``equal_nan``, NaNs in
    the same places are equal (a complex number is NaN when either part is).  Reading
    the answer is a host read: it raises ConcretizationError while the inputs are traced
    into a graph or batched by ``vmap`` (unless the shapes already differ).

    Parameters
    ----------
    a1, a2 : Tensor or array_like
        The values to compare.
    equal_nan : bool, default False
        Whether NaNs in the same places count as equal.

    Returns
    -------
    bool
        True when the shapes and all elements agree.

    Raises
    ------
    %(read_raises)s

    See Also
    --------
    array_equiv, allclose, numpy.array_equal

    Notes
    -----
    Differentiable: no (boolean result).

    Examples
    --------
    >>> tf.array_equal(tf.asarray([1, 2]), [1, 2])
    True
    >>> tf.array_equal([1.0, np.nan], [1.0, np.nan], equal_nan=True)
    True
    >>> tf.array_equal([1, 2], [[1, 2]])
    False
    """
    both = _convertible("array_equal", a1, a2)
    if both is None:
        return False
    x, y = both
    if x.shape != y.shape:
        return False
    if equal_nan and x is y:   # (NumPy's shortcut: NaN is then in the same places)
        return True
    same = equal(x, y)
    if equal_nan and x.dtype.kind in "fc" and y.dtype.kind in "fc":
        same = logical_or(same, logical_and(isnan(x), isnan(y)))
    return _truth(_all(same), "array_equal")


def array_equiv(a1: ArrayLike, a2: ArrayLike) -> bool:
    """Whether ``a1`` and ``a2`` are equal after broadcasting (numpy.array_equiv).

    A Python bool, as NumPy returns: False for shapes that do not broadcast (no error)
    and for inputs NumPy cannot make an array of (ragged lists); NaN is never equal.
    Reading the answer is a host read: it raises ConcretizationError while the inputs
    are traced into a graph or batched by ``vmap``.

    Parameters
    ----------
    a1, a2 : Tensor or array_like
        The values to compare.

    Returns
    -------
    bool
        True when the shapes broadcast and all elements agree.

    Raises
    ------
    %(read_raises)s

    See Also
    --------
    array_equal, numpy.array_equiv

    Notes
    -----
    Differentiable: no (boolean result).

    Examples
    --------
    >>> tf.array_equiv(tf.asarray([1, 2]), [[1, 2], [1, 2]])
    True
    >>> tf.array_equiv([1, 2], [[1, 2, 1, 2]])
    False
    """
    both = _convertible("array_equiv", a1, a2)
    if both is None:
        return False
    x, y = both
    try:
        broadcast_shapes("array_equiv", x.shape, y.shape)
    except ValueError:
        return False
    return _truth(_all(equal(x, y)), "array_equiv")


for _f in (isclose, allclose, array_equal, array_equiv):
    if _f.__doc__:   # (None under python -OO)
        _f.__doc__ = _f.__doc__ % {"close_parameters": _CLOSE_PARAMETERS,
                                   "read_raises": _READ_RAISES}
