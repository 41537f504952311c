"""The Array API's creation, manipulation, linear algebra and sorting functions whose
signatures differ from tenferro's NumPy ones: ``meshgrid`` (a list), ``concat``,
``unstack``, ``vecdot``, ``take_along_axis``, ``diff``, ``argsort`` and ``sort``."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .. import _ops
from .._tensor import Tensor

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Literal

__all__ = ["meshgrid", "concat", "unstack", "vecdot", "take_along_axis", "diff", "argsort",
           "sort"]


def meshgrid(*arrays: Tensor, indexing: Literal["xy", "ij"] = "xy") -> list[Tensor]:
    """Coordinate grids from 1-D coordinate vectors (the standard's ``meshgrid``).

    As :func:`tenferro.meshgrid`, but returns a list (NumPy and tenferro return a
    tuple).

    Parameters
    ----------
    *arrays : Tensor
        1-D coordinate vectors, of one dtype, on one device.
    indexing : {"xy", "ij"}, default "xy"
        "xy": Cartesian (the first two output axes swapped, as in plotting); "ij":
        matrix indexing (output axis ``k`` follows ``arrays[k]``).

    Returns
    -------
    list of Tensor
        One grid per input, each of the full grid shape.

    Examples
    --------
    >>> xp = tf.array_api
    >>> X, Y = xp.meshgrid(xp.asarray([1, 2]), xp.asarray([3, 4, 5]))
    >>> X
    tensor([[1, 2],
            [1, 2],
            [1, 2]])
    >>> Y.shape
    (3, 2)
    """
    return list(_ops.meshgrid(*arrays, indexing=indexing))


def concat(arrays: Sequence[Tensor], /, *, axis: int | None = 0) -> Tensor:
    """Tensors joined along an existing axis (the standard's name for
    :func:`tenferro.concatenate`).

    Parameters
    ----------
    arrays : sequence of Tensor
        Tensors of one number of dimensions, equal in shape except along ``axis``,
        on one device.
    axis : int or None, default 0
        The axis joined along; None: the tensors are flattened first.

    Returns
    -------
    Tensor
        The promoted dtype; ``axis`` as long as the inputs' together.

    Raises
    ------
    ValueError
        If the shapes do not fit or ``arrays`` is empty.

    Notes
    -----
    Differentiable: yes, forward and reverse (the cotangent is split back).

    Examples
    --------
    >>> xp = tf.array_api
    >>> x = xp.asarray([[1, 2], [3, 4]])
    >>> xp.concat([x, x], axis=1)
    tensor([[1, 2, 1, 2],
            [3, 4, 3, 4]])
    >>> xp.concat([x, x], axis=None)
    tensor([1, 2, 3, 4, 1, 2, 3, 4])
    """
    if axis is None:
        arrays = [_ops.reshape(a, (-1,)) for a in arrays]
        axis = 0
    return _ops.concat(list(arrays), axis=axis)


def unstack(x: Tensor, /, *, axis: int = 0) -> tuple[Tensor, ...]:
    """The slices of ``x`` along ``axis``, as a tuple (the standard's ``unstack``; the
    inverse of :func:`tenferro.stack`).

    Parameters
    ----------
    x : Tensor
        At least 1-D.
    axis : int, default 0
        The axis taken apart.

    Returns
    -------
    tuple of Tensor
        ``x.shape[axis]`` tensors of ``x``'s shape without ``axis`` (views).

    Raises
    ------
    ValueError
        If ``x`` is 0-d.
    AxisError
        If ``axis`` is out of range.

    Notes
    -----
    Differentiable: yes, forward and reverse (each slice is a view).

    Examples
    --------
    >>> xp = tf.array_api
    >>> xp.unstack(xp.asarray([[1, 2], [3, 4]]), axis=1)
    (tensor([1, 3]), tensor([2, 4]))
    """
    if x.ndim == 0:
        raise ValueError("tenferro.array_api.unstack: needs at least one dimension")
    x = _ops.moveaxis(x, axis, 0)
    return tuple(x[i] for i in range(x.shape[0]))


def vecdot(x1: Tensor, x2: Tensor, /, *, axis: int = -1) -> Tensor:
    """Dot products of vectors along ``axis``, the first conjugated (the standard's
    ``vecdot``; NumPy 2's ``vecdot``).

    ``sum(conj(x1) * x2, axis=axis)``, the other axes broadcast (batches of
    vectors).

    Parameters
    ----------
    x1 : Tensor
        The conjugated vectors.
    x2 : Tensor
        The other vectors, broadcast against ``x1``, of equal size along ``axis``.
    axis : int, default -1
        The axis of the vectors (negative: from the end; counted in both operands).

    Returns
    -------
    Tensor
        The promoted dtype; the broadcast shape without ``axis``.

    Raises
    ------
    ValueError
        If the sizes along ``axis`` differ or ``axis`` is out of range.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex (a product and a
    sum).

    Examples
    --------
    >>> xp = tf.array_api
    >>> xp.vecdot(xp.asarray([[1.0, 2.0], [3.0, 4.0]]), xp.asarray([1.0, 1.0]))
    tensor([3., 7.])
    >>> xp.vecdot(xp.asarray([1j, 2.0]), xp.asarray([1j, 1.0]))
    tensor(3.+0.j)
    """
    if not -min(x1.ndim, x2.ndim) <= axis < min(x1.ndim, x2.ndim):
        raise ValueError("tenferro.array_api.vecdot: axis %d is out of range for shapes %s "
                         "and %s" % (axis, x1.shape, x2.shape))
    if x1.shape[axis] != x2.shape[axis]:
        raise ValueError("tenferro.array_api.vecdot: axis %d has sizes %s and %s"
                         % (axis, x1.shape, x2.shape))
    prod = _ops.multiply(_ops.conj(x1), x2)
    return _ops.sum(prod, axis=axis, dtype=prod.dtype)


def take_along_axis(x: Tensor, indices: Tensor, /, *, axis: int = -1) -> Tensor:
    """Elements of ``x`` picked along ``axis`` by ``indices`` (the standard's
    ``take_along_axis``: :func:`tenferro.take_along_axis` with ``axis`` keyword-only,
    default -1).

    Parameters
    ----------
    x : Tensor
        The source.
    indices : Tensor
        Integer indices, with ``x``'s number of dimensions, broadcast against ``x``
        except along ``axis``; negative ones count from the end.
    axis : int, default -1
        The axis indexed.

    Returns
    -------
    Tensor
        ``x``'s dtype, the broadcast shape with ``indices``' length along ``axis``.

    Raises
    ------
    IndexError
        If an index is out of bounds.

    Notes
    -----
    Differentiable: yes in ``x``, forward and reverse (the adjoint scatter-adds);
    the indices are integers.

    Examples
    --------
    >>> xp = tf.array_api
    >>> x = xp.asarray([[10, 30, 20], [60, 40, 50]])
    >>> xp.take_along_axis(x, xp.argsort(x, axis=1), axis=1)
    tensor([[10, 20, 30],
            [40, 50, 60]])
    """
    return _ops.take_along_axis(x, indices, axis)


def diff(x: Tensor, /, *, axis: int = -1, n: int = 1, prepend: Tensor | None = None,
         append: Tensor | None = None) -> Tensor:
    """``n``-th forward differences along ``axis`` (the standard's ``diff``:
    :func:`tenferro.diff` with keyword-only arguments).

    Parameters
    ----------
    x : Tensor
        At least 1-D.
    axis : int, default -1
        The axis differenced.
    n : int, default 1
        How many times to difference.
    prepend : Tensor, optional
        Values put before ``x`` along ``axis`` first.
    append : Tensor, optional
        Values put after ``x`` along ``axis`` first.

    Returns
    -------
    Tensor
        ``out[i] = x[i + 1] - x[i]`` (repeated ``n`` times): ``n`` shorter along
        ``axis`` (after ``prepend``/``append``).

    Raises
    ------
    ValueError
        If ``x`` is 0-d or ``n`` is negative.

    Notes
    -----
    Differentiable: yes, forward and reverse (linear).

    Examples
    --------
    >>> xp = tf.array_api
    >>> xp.diff(xp.asarray([1, 4, 9, 16]))
    tensor([3, 5, 7])
    """
    kw = {k: v for k, v in [("prepend", prepend), ("append", append)] if v is not None}
    return _ops.diff(x, n=n, axis=axis, **kw)


_SORTING = """{what} along ``axis`` (the standard's ``{name}``: :func:`tenferro.{name}` with
    ``descending`` and a stable sort by default).

    NaNs sort last (first with ``descending``), as in NumPy; ties keep their order
    (stable), also when descending.

    Parameters
    ----------
    x : Tensor
        Real values (bool, integer or floating), at least 1-D.
    axis : int, default -1
        The axis sorted along.
    descending : bool, default False
        Largest first.
    stable : bool, default True
        Keep equal elements in their order (tenferro's sorts always are).

    Returns
    -------
    Tensor
        {returns}

    Raises
    ------
    AxisError
        If ``axis`` is out of range (a 0-d ``x`` has none).

    Notes
    -----
    Differentiable: {differentiable}

    Examples
    --------
    >>> xp = tf.array_api
    >>> xp.{name}(xp.asarray([3, 1, 2]), descending=True)
    {example}
    """


def argsort(x: Tensor, /, *, axis: int = -1, descending: bool = False,
            stable: bool = True) -> Tensor:
    return _ops.argsort(x, axis=axis, stable=stable, descending=descending)


def sort(x: Tensor, /, *, axis: int = -1, descending: bool = False,
         stable: bool = True) -> Tensor:
    return _ops.sort(x, axis=axis, stable=stable, descending=descending)


argsort.__doc__ = _SORTING.format(
    what="The indices that sort ``x``", name="argsort",
    returns="int64 indices, ``x``'s shape.",
    differentiable="no (integer indices).", example="tensor([0, 2, 1])")
sort.__doc__ = _SORTING.format(
    what="``x`` sorted", name="sort", returns="``x``'s dtype and shape.",
    differentiable="yes, forward and reverse (a gather by the sorting permutation).",
    example="tensor([3, 2, 1])")
