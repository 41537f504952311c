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
    """The same data with a new shape (``numpy.reshape``); a view unless the strides make
    that impossible.

    One dimension of ``shape`` may be -1: it is inferred from the size.  Elements are
    read in C (row-major) order, as NumPy's default ``order="C"``; for Fortran order see
    :func:`from_col_major`.

    Parameters
    ----------
    x : Tensor or array_like
        The tensor to reshape.
    shape : int or tuple of ints
        The new shape, of the same size as ``x``'s.
    copy : bool, optional
        ``True`` always copies; ``False`` raises when a copy would be needed; ``None``
        (default) copies only then (NumPy 2's ``copy=``).

    Returns
    -------
    Tensor
        ``x`` with shape ``shape`` (``x`` itself if the shape is unchanged).

    Raises
    ------
    ValueError
        If the sizes differ, ``shape`` has more than one -1, or ``copy=False`` and a
        copy is needed.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order (the
    cotangent is reshaped back: JAX's ``_reshape_transpose_rule``).

    See Also
    --------
    numpy.reshape, ravel, Tensor.reshape

    Examples
    --------
    >>> tf.reshape(tf.arange(6), (2, -1))
    tensor([[0, 1, 2],
            [3, 4, 5]])
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
    """Reorder the axes of ``x`` (the Array API's ``permute_dims``; ``numpy.transpose``
    with ``axes``); a view.

    Axis ``i`` of the result is axis ``axes[i]`` of ``x``.

    Parameters
    ----------
    x : Tensor or array_like
        The tensor.
    axes : sequence of ints
        A permutation of ``range(x.ndim)`` (negative values count from the end).

    Returns
    -------
    Tensor
        A view with shape ``tuple(x.shape[a] for a in axes)``.

    Raises
    ------
    ValueError
        If ``axes`` is not a permutation of the axes.
    AxisError
        If an axis is out of range.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order (the
    inverse permutation: JAX's ``_transpose_transpose_rule``).

    See Also
    --------
    numpy.permute_dims, transpose, moveaxis, swapaxes

    Examples
    --------
    >>> tf.permute_dims(tf.zeros((1, 2, 3)), (2, 0, 1)).shape
    (3, 1, 2)
    """
    x = to_tensor(x)
    axes = tuple(normalize_axis("permute_dims", a, x.ndim) for a in axes)
    if sorted(axes) != list(range(x.ndim)):
        raise ValueError("tenferro.permute_dims: axes %s are not a permutation of the %d axes "
                         "of a tensor of shape %s" % (axes, x.ndim, x.shape))
    if axes == tuple(range(x.ndim)):
        return x
    return bind(permute_dims_p, (x,), {"axes": axes})


def transpose(x: ArrayLike, axes: Sequence[SupportsIndex] | None = None) -> Tensor:
    """Reverse or permute the axes of ``x`` (``numpy.transpose``); a view.

    Without ``axes`` the order of all axes is reversed (a matrix's transpose; for the
    transpose of a batch of matrices use :func:`matrix_transpose`).

    Parameters
    ----------
    x : Tensor or array_like
        The tensor.
    axes : sequence of ints, optional
        A permutation of ``range(x.ndim)``; reversed order if None.

    Returns
    -------
    Tensor
        A view with the axes permuted.

    Raises
    ------
    ValueError
        If ``axes`` is not a permutation of the axes.
    AxisError
        If an axis is out of range.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order (the
    inverse permutation: JAX's ``_transpose_transpose_rule``).

    See Also
    --------
    numpy.transpose, permute_dims, matrix_transpose

    Examples
    --------
    >>> tf.transpose(tf.asarray([[1, 2, 3], [4, 5, 6]]))
    tensor([[1, 4],
            [2, 5],
            [3, 6]])
    """
    x = to_tensor(x)
    if axes is None:
        axes = tuple(range(x.ndim - 1, -1, -1))
    return permute_dims(x, axes)


def swapaxes(x: ArrayLike, axis1: SupportsIndex, axis2: SupportsIndex) -> Tensor:
    """Interchange two axes of ``x`` (``numpy.swapaxes``); a view.

    Parameters
    ----------
    x : Tensor or array_like
        The tensor.
    axis1, axis2 : int
        The axes to swap (negative values count from the end).

    Returns
    -------
    Tensor
        A view of ``x`` with the two axes swapped.

    Raises
    ------
    AxisError
        If an axis is out of range.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order (the
    inverse permutation: JAX's ``_transpose_transpose_rule``).

    See Also
    --------
    numpy.swapaxes, moveaxis, permute_dims

    Examples
    --------
    >>> tf.swapaxes(tf.zeros((1, 2, 3)), 0, 2).shape
    (3, 2, 1)
    """
    x = to_tensor(x)
    a = normalize_axis("swapaxes", axis1, x.ndim)
    b = normalize_axis("swapaxes", axis2, x.ndim)
    axes = list(range(x.ndim))
    axes[a], axes[b] = axes[b], axes[a]
    return permute_dims(x, axes)


def matrix_transpose(x: ArrayLike) -> Tensor:
    """Transpose the last two axes of ``x`` (``numpy.matrix_transpose``, the Array API's
    ``matrix_transpose``; ``x.mT``); a view.

    Leading axes are a batch.  There is no conjugation: the conjugate transpose is
    ``tf.conj(tf.matrix_transpose(x))``.

    Parameters
    ----------
    x : Tensor or array_like, shape (..., M, N)
        The matrices.

    Returns
    -------
    Tensor, shape (..., N, M)
        A view.

    Raises
    ------
    AxisError
        If ``x`` has fewer than 2 dimensions (a ValueError).

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order (the
    inverse permutation: JAX's ``_transpose_transpose_rule``).

    See Also
    --------
    numpy.matrix_transpose, transpose, swapaxes

    Examples
    --------
    >>> tf.matrix_transpose(tf.zeros((5, 2, 3))).shape
    (5, 3, 2)
    """
    return swapaxes(x, -1, -2)


def moveaxis(x: ArrayLike, source: SupportsIndex | Sequence[SupportsIndex],
             destination: SupportsIndex | Sequence[SupportsIndex]) -> Tensor:
    """Move axes of ``x`` to new positions (``numpy.moveaxis``); a view.

    The other axes keep their order.

    Parameters
    ----------
    x : Tensor or array_like
        The tensor.
    source : int or sequence of ints
        The axes to move.
    destination : int or sequence of ints
        Their positions in the result (as many as ``source``).

    Returns
    -------
    Tensor
        A view with the axes moved.

    Raises
    ------
    ValueError
        If ``source`` and ``destination`` have different lengths, or repeat an axis.
    AxisError
        If an axis is out of range.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order (the
    inverse permutation: JAX's ``_transpose_transpose_rule``).

    See Also
    --------
    numpy.moveaxis, permute_dims, swapaxes

    Examples
    --------
    >>> tf.moveaxis(tf.zeros((1, 2, 3)), 0, -1).shape
    (2, 3, 1)
    """
    x = to_tensor(x)
    src = tuple(normalize_axis("moveaxis", s, x.ndim) for s in
                (source if isinstance(source, (tuple, list)) else (source,)))
    dst = tuple(normalize_axis("moveaxis", d, x.ndim) for d in
                (destination if isinstance(destination, (tuple, list)) else (destination,)))
    if len(src) != len(dst):
        raise ValueError("tenferro.moveaxis: source %s and destination %s must have the same "
                         "number of elements" % (source, destination))
    for what, axes in (("source", src), ("destination", dst)):
        if len(set(axes)) != len(axes):   # (a repeated destination gave a wrong result)
            raise ValueError("tenferro.moveaxis: repeated axis in `%s` argument, got %s"
                             % (what, source if what == "source" else destination))
    order = [n for n in range(x.ndim) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return permute_dims(x, order)


def broadcast_to(x: ArrayLike, shape: ShapeLike) -> Tensor:
    """A read-only view of ``x`` broadcast to ``shape`` (``numpy.broadcast_to``).

    NumPy's broadcasting rules: axes are matched from the end, and a size-1 (or
    missing) axis is repeated by a zero stride, without copying.  Write to a copy
    (``.copy()``) if you need to.

    Parameters
    ----------
    x : Tensor or array_like
        The tensor.
    shape : int or tuple of ints
        The target shape.

    Returns
    -------
    Tensor
        A view of shape ``shape`` (``x`` itself if its shape is ``shape``).

    Raises
    ------
    ValueError
        If ``x`` cannot be broadcast to ``shape``.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order (the
    cotangent is summed over the broadcast axes: JAX's
    ``_broadcast_in_dim_transpose_rule``).

    See Also
    --------
    numpy.broadcast_to, broadcast_tensors, numpy.broadcast_shapes

    Examples
    --------
    >>> tf.broadcast_to(tf.asarray([1, 2]), (2, 2))
    tensor([[1, 2],
            [1, 2]])
    """
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
    """Broadcast tensors against each other (``numpy.broadcast_arrays``,
    ``torch.broadcast_tensors``).

    Every input becomes a read-only view of the common broadcast shape.
    ``broadcast_arrays`` is the same function.

    Parameters
    ----------
    *tensors : Tensor or array_like
        The tensors.

    Returns
    -------
    list of Tensor
        One view per input, all of the broadcast shape.

    Raises
    ------
    ValueError
        If the shapes do not broadcast together.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order (each is a
    :func:`broadcast_to`: JAX's ``_broadcast_in_dim_transpose_rule``).

    See Also
    --------
    numpy.broadcast_arrays, broadcast_to, numpy.broadcast_shapes

    Examples
    --------
    >>> a, b = tf.broadcast_tensors(tf.zeros((3, 1)), tf.zeros(4))
    >>> a.shape, b.shape
    ((3, 4), (3, 4))
    """
    from ._common import broadcast_shapes

    ts = [to_tensor(t) for t in tensors]
    shape = broadcast_shapes("broadcast_tensors", *[t.shape for t in ts])
    return [broadcast_to(t, shape) for t in ts]


broadcast_arrays = broadcast_tensors


def expand_dims(x: ArrayLike, axis: SupportsIndex | Sequence[SupportsIndex]) -> Tensor:
    """Insert size-1 axes into ``x`` (``numpy.expand_dims``); a view.

    Parameters
    ----------
    x : Tensor or array_like
        The tensor.
    axis : int or tuple of ints
        The positions of the new axes in the result (negative values count from its
        end).

    Returns
    -------
    Tensor
        A view with ``x.ndim + len(axis)`` dimensions.

    Raises
    ------
    AxisError
        If a position is out of range for the result.
    ValueError
        If a position is repeated.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order (a
    :func:`reshape`: JAX's ``_reshape_transpose_rule``).

    See Also
    --------
    numpy.expand_dims, squeeze, reshape

    Examples
    --------
    >>> tf.expand_dims(tf.zeros(3), (0, 2)).shape
    (1, 3, 1)
    """
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
    """Remove size-1 axes from ``x`` (``numpy.squeeze``); a view.

    Parameters
    ----------
    x : Tensor or array_like
        The tensor.
    axis : int or tuple of ints, optional
        The axes to remove (each must have size 1); all size-1 axes if None.

    Returns
    -------
    Tensor
        A view without those axes (``x`` itself if there are none).

    Raises
    ------
    ValueError
        If a selected axis has a size other than 1, or is repeated.
    AxisError
        If an axis is out of range.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order (a
    :func:`reshape`: JAX's ``_reshape_transpose_rule``).

    See Also
    --------
    numpy.squeeze, expand_dims

    Examples
    --------
    >>> tf.squeeze(tf.zeros((1, 3, 1))).shape
    (3,)
    """
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
    """The ``offset``-th diagonal of the (``axis1``, ``axis2``) planes of ``x``
    (``numpy.diagonal``); a view.

    The diagonal becomes the last axis of the result, after the remaining axes, and the
    view is read-only, as NumPy's (``.copy()`` it to write).

    Parameters
    ----------
    x : Tensor or array_like
        A tensor with at least 2 dimensions.
    offset : int, default 0
        The diagonal: 0 the main one, positive above it, negative below.
    axis1, axis2 : int, default 0 and 1
        The axes of the planes.

    Returns
    -------
    Tensor
        A view of shape ``rest + (d,)``, ``d`` the diagonal's length.

    Raises
    ------
    ValueError
        If ``x`` has fewer than 2 dimensions or ``axis1`` and ``axis2`` are the same.
    AxisError
        If an axis is out of range.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order (zeros
    with the cotangent on the diagonal: PyTorch's ``diagonal_backward``).

    See Also
    --------
    numpy.diagonal, diag, trace

    Examples
    --------
    >>> tf.diagonal(tf.asarray([[1, 2], [3, 4]]))
    tensor([1, 4])
    """
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
    """Reverse the order of the elements of ``x`` along ``axis`` (``numpy.flip``); a view
    with negative strides.

    Parameters
    ----------
    x : Tensor or array_like
        The tensor.
    axis : int or tuple of ints, optional
        The axes to reverse; all of them if None.

    Returns
    -------
    Tensor
        A view of ``x``'s shape.

    Raises
    ------
    AxisError
        If an axis is out of range.
    ValueError
        If an axis is repeated.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order (a slice:
    JAX's ``_slice_transpose_rule``).

    See Also
    --------
    numpy.flip, flipud, fliplr, rot90

    Examples
    --------
    >>> tf.flip(tf.asarray([[1, 2], [3, 4]]), axis=1)
    tensor([[2, 1],
            [4, 3]])
    """
    x = to_tensor(x)
    axes = normalize_axes("flip", axis, x.ndim)
    # Normalised slices are (start, stop, step) as slice.indices() gives them: a
    # reversed full axis is (n - 1, -1, -1).
    key = tuple(("s", n - 1, -1, -1) if i in axes else ("s", 0, n, 1)
                for i, n in enumerate(x.shape))
    return bind(basic_index_p, (x,), {"key": key})


def ravel(x: ArrayLike) -> Tensor:
    """The elements of ``x`` as a 1-D tensor, in C order (``numpy.ravel``); a view when the
    strides allow one.

    Parameters
    ----------
    x : Tensor or array_like
        The tensor.

    Returns
    -------
    Tensor, shape (x.size,)
        The flattened tensor.

    Raises
    ------
    TypeError
        If ``x`` cannot be converted to a tensor.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order (a
    :func:`reshape`: JAX's ``_reshape_transpose_rule``).

    See Also
    --------
    numpy.ravel, reshape, Tensor.flatten

    Examples
    --------
    >>> tf.ravel(tf.asarray([[1, 2], [3, 4]]))
    tensor([1, 2, 3, 4])
    """
    return reshape(x, (-1,))
