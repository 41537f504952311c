"""Shared helpers of the public ops: operand conversion, axis normalisation, shapes."""
import numpy as np

from .. import _dtypes
from .._catalog import broadcast_shapes  # noqa: F401  (re-exported for the ops)
from .._errors import DeviceMismatchError
from .._primitive import bind
from .._tensor import Tensor

WEAK = _dtypes.WEAK_TYPES


class NotATensor(TypeError):
    """An operand tenferro cannot turn into a tensor (operators return NotImplemented)."""


def cpu():
    from ..devices import device

    return device("cpu")


def to_tensor(x, device=None, dtype=None):
    """Turn ``x`` (Tensor, ndarray, NumPy scalar, Python scalar or nested list) into a Tensor."""
    if isinstance(x, Tensor):
        if dtype is not None and x.dtype != dtype:
            from .elementwise import astype

            x = astype(x, dtype)
        return x
    from .creation import asarray

    try:
        return asarray(x, dtype=dtype, device=device)
    except (TypeError, ValueError) as e:
        raise NotATensor(str(e)) from None


def common_device(op, tensors):
    dev = None
    for t in tensors:
        if isinstance(t, Tensor):
            if dev is None:
                dev = t._device
            elif t._device is not dev:
                raise DeviceMismatchError(op, [x._device for x in tensors if isinstance(x, Tensor)])
    return dev


def normalize_axis(op, axis, ndim):
    try:
        a = axis.__index__()
    except AttributeError:
        raise TypeError("tenferro.%s: axis must be an integer, got %r" % (op, axis)) from None
    if not -ndim <= a < ndim:
        raise AxisError("tenferro.%s: axis %d is out of bounds for a tensor of dimension %d"
                        % (op, a, ndim))
    return a + ndim if a < 0 else a


def normalize_axes(op, axis, ndim):
    """axis None/int/tuple -> sorted tuple of unique non-negative axes."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (tuple, list)):
        axes = tuple(normalize_axis(op, a, ndim) for a in axis)
        if len(set(axes)) != len(axes):
            raise ValueError("tenferro.%s: repeated axis in %r" % (op, tuple(axis)))
        return tuple(sorted(axes))
    return (normalize_axis(op, axis, ndim),)


class AxisError(np.exceptions.AxisError):
    """An axis argument is out of range for the tensor's number of dimensions.

    A ``numpy.exceptions.AxisError``, and so both a ``ValueError`` and an
    ``IndexError``, as NumPy raises: existing ``except`` clauses keep working.  Valid
    axes of an ``n``-dimensional tensor are ``-n`` to ``n - 1``; the message names the
    function, the axis and the number of dimensions.

    See Also
    --------
    numpy.exceptions.AxisError
    """


def shape_tuple(op, shape):
    if hasattr(shape, "__index__") and not isinstance(shape, (tuple, list)):
        shape = (shape,)  # an int (Python, NumPy or 0-d tensor)
    try:
        shape = tuple(int(s.__index__()) for s in shape)
    except (AttributeError, TypeError):
        raise TypeError("tenferro.%s: expected a shape (tuple of ints), got %r"
                        % (op, shape)) from None
    for s in shape:
        if s < 0:
            raise ValueError("tenferro.%s: negative dimensions are not allowed, got shape %s"
                             % (op, shape))
    return shape


def numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


__all__ = ["bind", "Tensor", "np", "_dtypes"]
