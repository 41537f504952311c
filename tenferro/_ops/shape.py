"""View ops (no copies unless strides make a view impossible, as in NumPy)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._primitive import Primitive, bind
from ._common import (normalize_axes, normalize_axis, numel, shape_tuple, to_tensor)

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import SupportsIndex

    from .._tensor import ArrayLike, AxisLike, ShapeLike, Tensor


def _reshape_aval(x, *, shape, copy=False):
    return (shape, x[1])


def _permute_aval(x, *, axes):
    return (tuple(x[0][a] for a in axes), x[1])


def _broadcast_aval(x, *, shape):
    return (shape, x[1])


def _basic_index_aval(x, *, key):
    shape = []
    it = iter(x[0])
    for k in key:
        if k[0] == "n":
            shape.append(1)
            continue
        n = next(it)
        if k[0] == "s":
            _, start, stop, step = k
            shape.append(len(range(start, stop, step)))
    shape.extend(it)
    return (tuple(shape), x[1])


def _diagonal_aval(x, *, offset, axis1, axis2):
    s = x[0]
    n1, n2 = s[axis1], s[axis2]
    d = max(0, min(n1, n2 - offset) if offset >= 0 else min(n1 + offset, n2))
    rest = tuple(n for i, n in enumerate(s) if i not in (axis1, axis2))
    return (rest + (d,), x[1])


reshape_p = Primitive("reshape", _reshape_aval,
                      doc="View with a new shape of the same size (params: shape, copy).")
permute_dims_p = Primitive("permute_dims", _permute_aval, doc="Reorder axes (params: axes).")
broadcast_to_p = Primitive("broadcast_to", _broadcast_aval,
                           doc="Zero-stride view with a broadcast shape (params: shape).")
basic_index_p = Primitive("basic_index", _basic_index_aval,
                          doc="Integers, slices and new axes (params: normalised key).")
diagonal_p = Primitive("diagonal", _diagonal_aval,
                       doc="Diagonal view (params: offset, axis1, axis2).")


def _transpose_aval(ct, *, shape, **params):
    return (shape, ct[1])


# The adjoints of the two views that select part of a tensor (their VJPs): a new
# tensor of zeros with the input written into the selected positions.
basic_index_transpose_p = Primitive(
    "basic_index_transpose", _transpose_aval,
    doc="Adjoint of basic_index: zeros(shape) with the input written at [key] "
        "(params: key, shape).")
diagonal_transpose_p = Primitive(
    "diagonal_transpose", _transpose_aval,
    doc="Adjoint of diagonal: zeros(shape) with the input written on the diagonal "
        "(params: offset, axis1, axis2, shape).")


def reshape(x: ArrayLike, shape: ShapeLike, copy: bool | None = None) -> Tensor:
    """Same data with a new shape; a view unless the strides make that impossible.

    ``copy=True`` always copies; ``copy=False`` raises when a copy would be needed.
    """
    x = to_tensor(x)
    if isinstance(shape, int):
        shape = (shape,)
    shape = list(shape)
    neg = [i for i, s in enumerate(shape) if s == -1]
    if len(neg) > 1:
        raise ValueError("tenferro.reshape: can only specify one unknown dimension (-1), got "
                         "shape %s" % (tuple(shape),))
    if neg:
        known = numel(s for s in shape if s != -1)
        if known == 0 or x.size % known:
            raise ValueError("tenferro.reshape: cannot reshape tensor of size %d into shape %s"
                             % (x.size, tuple(shape)))
        shape[neg[0]] = x.size // known
    shape = shape_tuple("reshape", shape)
    if numel(shape) != x.size:
        raise ValueError("tenferro.reshape: cannot reshape tensor of size %d into shape %s"
                         % (x.size, shape))
    if shape == x.shape and not copy:
        return x
    return bind(reshape_p, (x,), {"shape": shape, "copy": copy})


def permute_dims(x: ArrayLike, axes: Sequence[SupportsIndex]) -> Tensor:
    """Reorder the axes (a view).  ``axes`` must be a permutation of ``range(ndim)``."""
    x = to_tensor(x)
    axes = tuple(normalize_axis("permute_dims", a, x.ndim) for a in axes)
    if sorted(axes) != list(range(x.ndim)):
        raise ValueError("tenferro.permute_dims: axes %s are not a permutation of the %d axes "
                         "of a tensor of shape %s" % (axes, x.ndim, x.shape))
    if axes == tuple(range(x.ndim)):
        return x
    return bind(permute_dims_p, (x,), {"axes": axes})


def transpose(x: ArrayLike, axes: Sequence[SupportsIndex] | None = None) -> Tensor:
    x = to_tensor(x)
    if axes is None:
        axes = tuple(range(x.ndim - 1, -1, -1))
    return permute_dims(x, axes)


def swapaxes(x: ArrayLike, axis1: SupportsIndex, axis2: SupportsIndex) -> Tensor:
    x = to_tensor(x)
    a = normalize_axis("swapaxes", axis1, x.ndim)
    b = normalize_axis("swapaxes", axis2, x.ndim)
    axes = list(range(x.ndim))
    axes[a], axes[b] = axes[b], axes[a]
    return permute_dims(x, axes)


def matrix_transpose(x: ArrayLike) -> Tensor:
    return swapaxes(x, -1, -2)


def moveaxis(x: ArrayLike, source: SupportsIndex | Sequence[SupportsIndex],
             destination: SupportsIndex | Sequence[SupportsIndex]) -> Tensor:
    x = to_tensor(x)
    src = tuple(normalize_axis("moveaxis", s, x.ndim) for s in
                (source if isinstance(source, (tuple, list)) else (source,)))
    dst = tuple(normalize_axis("moveaxis", d, x.ndim) for d in
                (destination if isinstance(destination, (tuple, list)) else (destination,)))
    if len(src) != len(dst):
        raise ValueError("tenferro.moveaxis: source %s and destination %s must have the same "
                         "number of elements" % (source, destination))
    order = [n for n in range(x.ndim) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return permute_dims(x, order)


def broadcast_to(x: ArrayLike, shape: ShapeLike) -> Tensor:
    """A read-only view of ``x`` broadcast to ``shape`` (NumPy's rules)."""
    from ._common import broadcast_shapes

    x = to_tensor(x)
    shape = shape_tuple("broadcast_to", shape)
    if len(shape) < x.ndim or broadcast_shapes("broadcast_to", x.shape, shape) != shape:
        raise ValueError("tenferro.broadcast_to: cannot broadcast a tensor of shape %s to %s"
                         % (x.shape, shape))
    if shape == x.shape:
        return x
    return bind(broadcast_to_p, (x,), {"shape": shape})


def broadcast_tensors(*tensors: ArrayLike) -> list[Tensor]:
    from ._common import broadcast_shapes

    ts = [to_tensor(t) for t in tensors]
    shape = broadcast_shapes("broadcast_tensors", *[t.shape for t in ts])
    return [broadcast_to(t, shape) for t in ts]


broadcast_arrays = broadcast_tensors


def expand_dims(x: ArrayLike, axis: SupportsIndex | Sequence[SupportsIndex]) -> Tensor:
    """Insert size-1 axes at ``axis`` (int or tuple), positions in the result."""
    x = to_tensor(x)
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    nd = x.ndim + len(axes)
    axes = normalize_axes("expand_dims", tuple(axes), nd)
    it = iter(x.shape)
    shape = tuple(1 if i in axes else next(it) for i in range(nd))
    return reshape(x, shape)


def zero_d_axis(axis, ndim):
    """Whether ``axis`` is NumPy's leniency for 0-d input: the reductions, scans,
    ``squeeze`` and ``take`` accept an integer axis 0 or -1 (not a tuple) on a 0-d
    tensor as naming the scalar itself."""
    if ndim or isinstance(axis, (tuple, list, bool)) or not hasattr(axis, "__index__"):
        return False
    return axis.__index__() in (0, -1)


def squeeze(x: ArrayLike, axis: AxisLike = None) -> Tensor:
    """Remove size-1 axes (all of them, or those in ``axis``; others raise)."""
    x = to_tensor(x)
    if axis is None:
        axes = tuple(i for i, n in enumerate(x.shape) if n == 1)
    elif zero_d_axis(axis, x.ndim):
        return x
    else:
        axes = normalize_axes("squeeze", axis, x.ndim)
        for a in axes:
            if x.shape[a] != 1:
                raise ValueError("tenferro.squeeze: cannot select an axis to squeeze out which "
                                 "has size not equal to one (axis %d of shape %s)"
                                 % (a, x.shape))
    if not axes:
        return x
    return reshape(x, tuple(n for i, n in enumerate(x.shape) if i not in axes))


def diagonal(x: ArrayLike, offset: SupportsIndex = 0, axis1: SupportsIndex = 0,
             axis2: SupportsIndex = 1) -> Tensor:
    """The diagonal of the (axis1, axis2) planes, appended as the last axis (a view)."""
    x = to_tensor(x)
    if x.ndim < 2:
        raise ValueError("tenferro.diagonal: expected at least 2 dimensions, got shape %s"
                         % (x.shape,))
    a1 = normalize_axis("diagonal", axis1, x.ndim)
    a2 = normalize_axis("diagonal", axis2, x.ndim)
    if a1 == a2:
        raise ValueError("tenferro.diagonal: axis1 and axis2 cannot be the same (%d)" % a1)
    return bind(diagonal_p, (x,), {"offset": int(offset), "axis1": a1, "axis2": a2})


def flip(x: ArrayLike, axis: AxisLike = None) -> Tensor:
    """Reverse the order of elements along ``axis`` (a negative-stride view)."""
    x = to_tensor(x)
    axes = normalize_axes("flip", axis, x.ndim)
    # Normalised slices are (start, stop, step) as slice.indices() gives them: a
    # reversed full axis is (n - 1, -1, -1).
    key = tuple(("s", n - 1, -1, -1) if i in axes else ("s", 0, n, 1)
                for i, n in enumerate(x.shape))
    return bind(basic_index_p, (x,), {"key": key})


def ravel(x: ArrayLike) -> Tensor:
    return reshape(x, (-1,))
