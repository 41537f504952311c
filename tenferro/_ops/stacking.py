"""Stacking, splitting and grids: hstack, vstack, dstack, column_stack, the split family,
meshgrid and indices, with NumPy's semantics.

All are views, broadcasts and ``concatenate``: differentiable, and on every device
where those run.  The split functions return lists of views, as NumPy's.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .. import _dtypes
from ._common import normalize_axis, shape_tuple, to_tensor
from .shape import broadcast_tensors, broadcast_to, reshape
from .structural import along

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import SupportsIndex

    from .._tensor import ArrayLike, DeviceLike, DTypeLike, Tensor


def _tensors(op, tup):
    """The tensors of a sequence (a tensor or ndarray is one of its rows, as NumPy's);
    a generator or non-sequence is a TypeError, as NumPy's."""
    if not hasattr(tup, "__getitem__") or not hasattr(tup, "__len__"):
        raise TypeError("tenferro.%s: arrays to stack must be passed as a sequence type "
                        "such as list or tuple, got %s" % (op, type(tup).__name__))
    ts = [to_tensor(t) for t in tup]
    if not ts:
        raise ValueError("tenferro.%s: need at least one tensor to concatenate" % op)
    return ts


def _atleast(t, nd):
    """NumPy's atleast_1d/2d/3d: 0-d -> (1,)*nd; 1-d (N,) -> (1, N) or (1, N, 1);
    2-d (M, N) -> (M, N, 1)."""
    if t.ndim >= nd:
        return t
    from .joining import _view

    if t.ndim == 0:
        return _view(t, (1,) * nd)
    if t.ndim == 1:
        return _view(t, (1,) + t.shape + (1,) * (nd - 2))
    return _view(t, t.shape + (1,))


def _join(op, ts, axis, dtype, casting):
    from .joining import check_casting, concatenate

    if dtype is not None:   # (the error names op)
        check_casting(op, ts, dtype, casting)
    return concatenate(ts, axis=axis, dtype=dtype, casting=casting)


def hstack(tup: Sequence[ArrayLike], *, dtype: DTypeLike = None,
           casting: str = "same_kind") -> Tensor:
    """Join tensors column-wise (``numpy.hstack``).

    1-D tensors are joined along their only axis; others along axis 1 (0-d ones count as
    1-D).  Shapes must match off the joined axis.

    Parameters
    ----------
    tup : sequence of Tensor or array_like
        The tensors (a list or tuple; not a generator).
    dtype : dtype or str, optional
        Cast the inputs to this dtype (keyword-only); the promoted dtype if None.
    casting : {"no", "equiv", "safe", "same_kind", "unsafe"}, default "same_kind"
        The rule ``dtype``'s cast must obey (keyword-only), as NumPy's.

    Returns
    -------
    Tensor
        The joined tensor.

    Raises
    ------
    TypeError
        If ``tup`` is not a sequence, or a cast breaks the ``casting`` rule.
    ValueError
        If ``tup`` is empty or the shapes do not match off the joined axis.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order (views and
    ``concatenate``, whose VJP slices the cotangent).

    See Also
    --------
    numpy.hstack, vstack, concatenate, stack

    Examples
    --------
    >>> tf.hstack([tf.asarray([1, 2]), tf.asarray([3, 4])])
    tensor([1, 2, 3, 4])
    """
    ts = [_atleast(t, 1) for t in _tensors("hstack", tup)]
    return _join("hstack", ts, 0 if ts[0].ndim == 1 else 1, dtype, casting)


def vstack(tup: Sequence[ArrayLike], *, dtype: DTypeLike = None,
           casting: str = "same_kind") -> Tensor:
    """Join tensors row-wise, along axis 0 (``numpy.vstack``).

    1-D tensors of length ``N`` become rows ``(1, N)`` first (0-d ones ``(1, 1)``);
    shapes must match off axis 0.

    Parameters
    ----------
    tup : sequence of Tensor or array_like
        The tensors (a list or tuple; not a generator).
    dtype : dtype or str, optional
        Cast the inputs to this dtype (keyword-only); the promoted dtype if None.
    casting : {"no", "equiv", "safe", "same_kind", "unsafe"}, default "same_kind"
        The rule ``dtype``'s cast must obey (keyword-only), as NumPy's.

    Returns
    -------
    Tensor
        At least 2-D.

    Raises
    ------
    TypeError
        If ``tup`` is not a sequence, or a cast breaks the ``casting`` rule.
    ValueError
        If ``tup`` is empty or the shapes do not match off axis 0.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order (views and
    ``concatenate``, whose VJP slices the cotangent).

    See Also
    --------
    numpy.vstack, hstack, concatenate, stack

    Examples
    --------
    >>> tf.vstack([tf.asarray([1, 2]), tf.asarray([3, 4])])
    tensor([[1, 2],
            [3, 4]])
    """
    ts = _tensors("vstack", tup)
    if dtype is None and ts[0].ndim == 1 and all(t.shape == ts[0].shape for t in ts):
        from .joining import stack

        return stack(ts)     # (rows of one length: one concatenate and one reshape)
    return _join("vstack", [_atleast(t, 2) for t in ts], 0, dtype, casting)


def dstack(tup: Sequence[ArrayLike]) -> Tensor:
    """Join tensors depth-wise, along axis 2 (``numpy.dstack``).

    Tensors are made at least 3-D first: ``(N,)`` becomes ``(1, N, 1)`` and ``(M, N)``
    becomes ``(M, N, 1)``.

    Parameters
    ----------
    tup : sequence of Tensor or array_like
        The tensors (a list or tuple; not a generator).

    Returns
    -------
    Tensor
        At least 3-D.

    Raises
    ------
    TypeError
        If ``tup`` is not a sequence.
    ValueError
        If ``tup`` is empty or the shapes do not match off axis 2.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order (views and
    ``concatenate``, whose VJP slices the cotangent).

    See Also
    --------
    numpy.dstack, hstack, vstack

    Examples
    --------
    >>> tf.dstack([tf.asarray([1, 2]), tf.asarray([3, 4])]).shape
    (1, 2, 2)
    """
    return _join("dstack", [_atleast(t, 3) for t in _tensors("dstack", tup)], 2, None,
                 "same_kind")


def column_stack(tup: Sequence[ArrayLike]) -> Tensor:
    """Join 1-D tensors as the columns of a 2-D tensor (``numpy.column_stack``).

    1-D (and 0-d) tensors become columns; 2-D ones are joined as they are, along axis 1.

    Parameters
    ----------
    tup : sequence of Tensor or array_like
        The tensors (a list or tuple; not a generator).

    Returns
    -------
    Tensor, 2-D
        The columns side by side.

    Raises
    ------
    TypeError
        If ``tup`` is not a sequence.
    ValueError
        If ``tup`` is empty or the number of rows differs.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order (views and
    ``concatenate``, whose VJP slices the cotangent).

    See Also
    --------
    numpy.column_stack, hstack, stack

    Examples
    --------
    >>> tf.column_stack([tf.asarray([1, 2]), tf.asarray([3, 4])])
    tensor([[1, 3],
            [2, 4]])
    """
    from .joining import _view, stack

    ts = _tensors("column_stack", tup)
    if ts[0].ndim == 1 and all(t.shape == ts[0].shape for t in ts):
        return stack(ts, axis=1)
    ts = [_view(t, (t.size, 1)) if t.ndim < 2 else t for t in ts]
    return _join("column_stack", ts, 1, None, "same_kind")


def array_split(ary: ArrayLike, indices_or_sections: int | Sequence[int],
                axis: SupportsIndex = 0) -> list[Tensor]:
    """Split ``ary`` along ``axis`` into nearly equal parts or at given indices
    (``numpy.array_split``).

    With ``N`` sections of an axis of length ``L``, the first ``L % N`` parts have
    ``L // N + 1`` elements and the rest ``L // N`` (unlike :func:`split`, which needs
    an equal division).

    Parameters
    ----------
    %(split_parameters)s

    Returns
    -------
    list of Tensor
        Views of ``ary``.

    Raises
    ------
    ValueError
        If the number of sections is not positive.
    AxisError
        If ``axis`` is out of range.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order (slices:
    JAX's ``_slice_transpose_rule``).

    See Also
    --------
    numpy.array_split, split

    Examples
    --------
    >>> tf.array_split(tf.arange(5), 3)
    [tensor([0, 1]), tensor([2, 3]), tensor([4])]
    """
    ary = to_tensor(ary)
    axis = normalize_axis("array_split", axis, ary.ndim)
    n = ary.shape[axis]
    if hasattr(indices_or_sections, "__len__") or getattr(indices_or_sections, "ndim", 0):
        bounds = [0] + [int(i) for i in indices_or_sections] + [n]
    else:
        sections = int(indices_or_sections)
        if sections <= 0:
            raise ValueError("tenferro.array_split: number sections must be larger than 0, "
                             "got %d" % sections)
        each, extra = divmod(n, sections)
        sizes = [0] + extra * [each + 1] + (sections - extra) * [each]
        bounds = [sum(sizes[:i + 1]) for i in range(len(sizes))]
    return [along(ary, axis, a, b) for a, b in zip(bounds[:-1], bounds[1:])]


def split(ary: ArrayLike, indices_or_sections: int | Sequence[int],
          axis: SupportsIndex = 0) -> list[Tensor]:
    """Split ``ary`` along ``axis`` into equal parts or at given indices (``numpy.split``).

    Parameters
    ----------
    %(split_parameters)s

    Returns
    -------
    list of Tensor
        Views of ``ary``.

    Raises
    ------
    ValueError
        If a number of sections does not divide the axis's length.
    AxisError
        If ``axis`` is out of range.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order (slices:
    JAX's ``_slice_transpose_rule``).

    See Also
    --------
    numpy.split, array_split, hsplit, vsplit, dsplit

    Examples
    --------
    >>> tf.split(tf.arange(6), 3)
    [tensor([0, 1]), tensor([2, 3]), tensor([4, 5])]
    >>> tf.split(tf.arange(6), [1, 4])
    [tensor([0]), tensor([1, 2, 3]), tensor([4, 5])]
    """
    ary = to_tensor(ary)
    if not hasattr(indices_or_sections, "__len__") and \
            not getattr(indices_or_sections, "ndim", 0):
        n = ary.shape[normalize_axis("split", axis, ary.ndim)]
        if int(indices_or_sections) <= 0 or n % int(indices_or_sections):
            raise ValueError("tenferro.split: array split does not result in an equal "
                             "division: %d elements into %s sections" % (n, indices_or_sections))
    return array_split(ary, indices_or_sections, axis)


# array_split and split take the same arguments
_SPLIT_PARAMETERS = """ary : Tensor or array_like
    The tensor to split.
indices_or_sections : int or sequence of ints
    A number of sections, or the sorted indices at which to split (``[2, 3]``
    gives ``ary[:2]``, ``ary[2:3]``, ``ary[3:]``).
axis : int, default 0
    The axis to split along."""
for _fn in (array_split, split):
    if _fn.__doc__:   # (python -OO)
        _fn.__doc__ = _fn.__doc__.replace("%(split_parameters)s",
                                          _SPLIT_PARAMETERS.replace("\n", "\n    "))


def _split_at_least(op, ary, indices_or_sections, nd, axis):
    ary = to_tensor(ary)
    if ary.ndim < nd:
        raise ValueError("tenferro.%s: only works on arrays of %d or more dimensions, got %d"
                         % (op, nd, ary.ndim))
    return split(ary, indices_or_sections, axis)


def hsplit(ary: ArrayLike, indices_or_sections: int | Sequence[int]) -> list[Tensor]:
    ary = to_tensor(ary)
    return _split_at_least("hsplit", ary, indices_or_sections, 1, 1 if ary.ndim > 1 else 0)


def vsplit(ary: ArrayLike, indices_or_sections: int | Sequence[int]) -> list[Tensor]:
    return _split_at_least("vsplit", ary, indices_or_sections, 2, 0)


def dsplit(ary: ArrayLike, indices_or_sections: int | Sequence[int]) -> list[Tensor]:
    return _split_at_least("dsplit", ary, indices_or_sections, 3, 2)


_SPLIT_AT_DOC = """Split ``ary`` along axis {axis} into equal parts or at given indices
(``numpy.{name}``).

``{name}(ary, n)`` is ``split(ary, n, axis={axis})``{one_d}; ``ary`` needs at least
{nd} dimension{s}.

Parameters
----------
ary : Tensor or array_like
    The tensor to split.
indices_or_sections : int or sequence of ints
    A number of sections (it must divide the axis's length), or the sorted indices
    at which to split.

Returns
-------
list of Tensor
    Views of ``ary``.

Raises
------
ValueError
    If ``ary`` has fewer than {nd} dimension{s}, or the sections do not divide the
    axis equally.

Notes
-----
Differentiable: yes, forward and reverse, real and complex, to any order (slices:
JAX's ``_slice_transpose_rule``).

See Also
--------
numpy.{name}, split, array_split

Examples
--------
>>> parts = tf.{name}(tf.zeros({shape}), 2)
>>> [p.shape for p in parts]
{out}
"""
for _fn, _axis, _nd, _one_d, _shape, _out in (
        (hsplit, 1, 1, " (axis 0 for a 1-D ``ary``)", "(2, 4)", "[(2, 2), (2, 2)]"),
        (vsplit, 0, 2, "", "(4, 2)", "[(2, 2), (2, 2)]"),
        (dsplit, 2, 3, "", "(1, 1, 4)", "[(1, 1, 2), (1, 1, 2)]")):
    _fn.__doc__ = _SPLIT_AT_DOC.format(name=_fn.__name__, axis=_axis, nd=_nd,
                                       s="s" if _nd > 1 else "", one_d=_one_d,
                                       shape=_shape, out=_out)


def meshgrid(*xi: ArrayLike, copy: bool = True, sparse: bool = False,
             indexing: str = "xy") -> list[Tensor]:
    """Coordinate tensors from 1-D coordinate vectors (``numpy.meshgrid``).

    For vectors of lengths ``N1, N2, ..., Nn`` each output has shape
    ``(N2, N1, N3, ..., Nn)`` with Cartesian indexing (``"xy"``, the default: the
    first two axes swapped, as for plotting) or ``(N1, N2, ..., Nn)`` with matrix
    indexing (``"ij"``).

    Parameters
    ----------
    *xi : Tensor or array_like
        The coordinate vectors (flattened).
    copy : bool, default True
        Return new tensors; ``False`` returns broadcast (read-only) views.
    sparse : bool, default False
        Keep size-1 axes instead of broadcasting (outputs broadcast against each
        other).
    indexing : {"xy", "ij"}, default "xy"
        Cartesian or matrix indexing.

    Returns
    -------
    tuple of Tensor
        One coordinate tensor per input.

    Raises
    ------
    ValueError
        If ``indexing`` is not ``"xy"`` or ``"ij"``.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order (reshapes
    and broadcasts: JAX's ``_broadcast_in_dim_transpose_rule``).

    See Also
    --------
    numpy.meshgrid, indices

    Examples
    --------
    >>> X, Y = tf.meshgrid(tf.asarray([1, 2, 3]), tf.asarray([4, 5]))
    >>> X
    tensor([[1, 2, 3],
            [1, 2, 3]])
    >>> Y
    tensor([[4, 4, 4],
            [5, 5, 5]])
    """
    if indexing not in ("xy", "ij"):
        raise ValueError("tenferro.meshgrid: valid values for `indexing` are 'xy' and 'ij', "
                         "got %r" % (indexing,))
    nd = len(xi)
    ones = (1,) * nd
    out = [reshape(to_tensor(x), ones[:i] + (-1,) + ones[i + 1:]) for i, x in enumerate(xi)]
    if indexing == "xy" and nd > 1:
        out[0] = reshape(out[0], (1, -1) + ones[2:])
        out[1] = reshape(out[1], (-1, 1) + ones[2:])
    if not sparse:
        out = broadcast_tensors(*out)
    if copy:
        out = [x.copy() for x in out]
    return tuple(out)


def indices(dimensions: Sequence[int], dtype: DTypeLike = int, sparse: bool = False, *,
            device: DeviceLike = None) -> Tensor | tuple[Tensor, ...]:
    """The grid of indices of a tensor of shape ``dimensions`` (``numpy.indices``).

    ``out[k][i0, i1, ...]`` is ``ik``.

    Parameters
    ----------
    dimensions : sequence of ints
        The shape of the grid.
    dtype : dtype or str, default int
        The dtype of the indices (int64).
    sparse : bool, default False
        Return a tuple of broadcastable tensors (the ``k``-th of shape 1 except along
        axis ``k``) instead of one dense tensor.
    device : Device or str, optional
        Where the result lives (keyword-only); the CPU if None.

    Returns
    -------
    Tensor or tuple of Tensor
        Shape ``(len(dimensions),) + dimensions``, or a tuple for ``sparse=True``.

    Raises
    ------
    ValueError
        If a dimension is negative.
    TypeError
        If ``dtype`` is not a tenferro dtype.

    Notes
    -----
    Differentiable: no; integer constants.

    See Also
    --------
    numpy.indices, meshgrid

    Examples
    --------
    >>> tf.indices((2, 3))
    tensor([[[0, 0, 0],
             [1, 1, 1]],
    <BLANKLINE>
            [[0, 1, 2],
             [0, 1, 2]]])
    """
    from .creation import arange
    from .joining import stack

    dims = shape_tuple("indices", dimensions)
    dt = _dtypes.dtype(dtype)
    nd = len(dims)
    grids = [reshape(arange(n, dtype=dt, device=device), (1,) * i + (n,) + (1,) * (nd - i - 1))
             for i, n in enumerate(dims)]
    if sparse:
        return tuple(grids)
    if not grids:
        from .creation import empty

        return empty((0,), dtype=dt, device=device)
    return stack([broadcast_to(g, dims) for g in grids])
