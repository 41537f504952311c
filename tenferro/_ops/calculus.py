"""NumPy's small numerical helpers: ``trapezoid`` (integration), ``cross`` (vector
product), ``polyval`` (polynomials by Horner's scheme).

Each is NumPy's own formula written with tenferro's differentiable ops, in the same
order of operations (so results round as NumPy's do), and so differentiable in every
floating-point or complex argument, on every device that runs the elementwise ops.
"""
import warnings

from .. import _dtypes
from .._errors import DeviceMismatchError
from ._common import broadcast_shapes, normalize_axis, to_tensor
from .elementwise import multiply, negative, subtract
from .joining import stack
from .reduction import sum as _sum
from .shape import broadcast_to, moveaxis, reshape

__all__ = ["trapezoid", "cross", "polyval"]


def _along(x, axis, sl):
    """``x[..., sl, ...]`` with ``sl`` on ``axis``."""
    return x[(slice(None),) * axis + (sl,)]


def _same_device(name, *ts):
    for t in ts[1:]:
        if t._device is not ts[0]._device:
            raise DeviceMismatchError(name, [u._device for u in ts])


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """Integral of ``y`` along ``axis`` by the trapezoidal rule, at sample points ``x``
    (1-D along ``axis``, or ``y``'s shape) or spaced ``dx`` apart (NumPy's
    ``trapezoid``: ``sum(d * (y[1:] + y[:-1]) / 2)``)."""
    y = to_tensor(y)
    if y.ndim == 0:
        raise ValueError("tenferro.trapezoid: y must have at least one dimension, got a 0-d "
                         "tensor")
    axis = normalize_axis("trapezoid", axis, y.ndim)
    if x is None:
        d = dx
    else:
        x = to_tensor(x, device=y._device)
        _same_device("trapezoid", y, x)
        if x.ndim == 1:
            d = _diff(x, 0)
            d = reshape(d, tuple(d.shape[0] if i == axis else 1 for i in range(y.ndim)))
        else:
            d = _diff(x, normalize_axis("trapezoid", axis - y.ndim, x.ndim))
    s = _along(y, axis, slice(1, None)) + _along(y, axis, slice(None, -1))
    return _sum(d * s / 2.0, axis=axis)


def _diff(x, axis):
    return subtract(_along(x, axis, slice(1, None)), _along(x, axis, slice(None, -1)))


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """Cross product of 3-vectors (and of 2-vectors, which NumPy 2 deprecates: their
    z-component, or a 3-vector when the other is one) along ``axisa``/``axisb``,
    broadcast over the other axes, the result's vectors along ``axisc`` (NumPy's
    ``cross``; ``axis`` sets all three)."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = to_tensor(a), to_tensor(b)
    _same_device("cross", a, b)
    if a.ndim < 1 or b.ndim < 1:
        raise ValueError("tenferro.cross: at least one array has zero dimension")
    a = moveaxis(a, normalize_axis("cross", axisa, a.ndim), -1)
    b = moveaxis(b, normalize_axis("cross", axisb, b.ndim), -1)
    na, nb = a.shape[-1], b.shape[-1]
    if na not in (2, 3) or nb not in (2, 3):
        raise ValueError("tenferro.cross: incompatible dimensions for cross product "
                         "(dimension must be 2 or 3), got %d and %d" % (na, nb))
    dtype = _dtypes.result_type(a.dtype, b.dtype)
    if dtype == _dtypes.bool_:
        raise TypeError("tenferro.cross: not supported for boolean vectors (their "
                        "difference is undefined)")
    if na == 2 or nb == 2:
        warnings.warn("Arrays of 2-dimensional vectors are deprecated. Use arrays of "
                      "3-dimensional vectors instead. (deprecated in NumPy 2.0)",
                      DeprecationWarning, stacklevel=2)
    shape = broadcast_shapes("cross", a.shape[:-1], b.shape[:-1])
    a, b = a.astype(dtype, copy=False), b.astype(dtype, copy=False)
    a0, a1, b0, b1 = a[..., 0], a[..., 1], b[..., 0], b[..., 1]
    z = a0 * b1 - a1 * b0
    if na == 2 and nb == 2:
        return z
    if na == 2:        # a2 = 0
        b2 = b[..., 2]
        x, y = multiply(a1, b2), negative(multiply(a0, b2))
    elif nb == 2:      # b2 = 0
        a2 = a[..., 2]
        x, y = negative(multiply(a2, b1)), multiply(a2, b0)
    else:
        a2, b2 = a[..., 2], b[..., 2]
        x, y = a1 * b2 - a2 * b1, a2 * b0 - a0 * b2
    axisc = normalize_axis("cross", axisc, len(shape) + 1)
    parts = [t if t.shape == shape else broadcast_to(t, shape) for t in (x, y, z)]
    return moveaxis(stack(parts, axis=-1), -1, axisc)


def polyval(p, x):
    """The polynomial with coefficients ``p`` (highest power first) at ``x``, by
    Horner's scheme ``y = y * x + p[i]`` from ``y = zeros_like(x)`` (NumPy's
    ``polyval``: the result dtype is ``x``'s promoted with ``p``'s)."""
    from .creation import zeros_like

    p = to_tensor(p)
    x = to_tensor(x, device=p._device)
    _same_device("polyval", p, x)
    if p.ndim == 0:
        raise TypeError("tenferro.polyval: p must be a sequence of coefficients, got a 0-d "
                        "tensor")
    y = zeros_like(x)
    for i in range(p.shape[0]):
        y = y * x + p[i]
    return y
