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
    """Join tensors column-wise: along axis 1, or axis 0 when they are all 1-D."""
    ts = [_atleast(t, 1) for t in _tensors("hstack", tup)]
    return _join("hstack", ts, 0 if ts[0].ndim == 1 else 1, dtype, casting)


def vstack(tup: Sequence[ArrayLike], *, dtype: DTypeLike = None,
           casting: str = "same_kind") -> Tensor:
    """Join tensors row-wise (along axis 0, 1-D ones as rows)."""
    ts = _tensors("vstack", tup)
    if dtype is None and ts[0].ndim == 1 and all(t.shape == ts[0].shape for t in ts):
        from .joining import stack

        return stack(ts)     # (rows of one length: one concatenate and one reshape)
    return _join("vstack", [_atleast(t, 2) for t in ts], 0, dtype, casting)


def dstack(tup: Sequence[ArrayLike]) -> Tensor:
    """Join tensors depth-wise (along axis 2, after making them at least 3-D)."""
    return _join("dstack", [_atleast(t, 3) for t in _tensors("dstack", tup)], 2, None,
                 "same_kind")


def column_stack(tup: Sequence[ArrayLike]) -> Tensor:
    """Join 1-D tensors as columns (and 2-D ones as they are) into a 2-D tensor."""
    from .joining import _view, stack

    ts = _tensors("column_stack", tup)
    if ts[0].ndim == 1 and all(t.shape == ts[0].shape for t in ts):
        return stack(ts, axis=1)
    ts = [_view(t, (t.size, 1)) if t.ndim < 2 else t for t in ts]
    return _join("column_stack", ts, 1, None, "same_kind")


def array_split(ary: ArrayLike, indices_or_sections: int | Sequence[int],
                axis: SupportsIndex = 0) -> list[Tensor]:
    """``ary`` split along ``axis`` into ``indices_or_sections`` nearly equal parts (the
    first ones one longer), or at the given indices; a list of views."""
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
    """``ary`` split along ``axis`` into ``indices_or_sections`` equal parts (an error when
    they cannot be), or at the given indices; a list of views."""
    ary = to_tensor(ary)
    if not hasattr(indices_or_sections, "__len__") and \
            not getattr(indices_or_sections, "ndim", 0):
        n = ary.shape[normalize_axis("split", axis, ary.ndim)]
        if int(indices_or_sections) <= 0 or n % int(indices_or_sections):
            raise ValueError("tenferro.split: array split does not result in an equal "
                             "division: %d elements into %s sections" % (n, indices_or_sections))
    return array_split(ary, indices_or_sections, axis)


def _split_at_least(op, ary, indices_or_sections, nd, axis):
    ary = to_tensor(ary)
    if ary.ndim < nd:
        raise ValueError("tenferro.%s: only works on arrays of %d or more dimensions, got %d"
                         % (op, nd, ary.ndim))
    return split(ary, indices_or_sections, axis)


def hsplit(ary: ArrayLike, indices_or_sections: int | Sequence[int]) -> list[Tensor]:
    """Split along axis 1 (axis 0 for 1-D tensors)."""
    ary = to_tensor(ary)
    return _split_at_least("hsplit", ary, indices_or_sections, 1, 1 if ary.ndim > 1 else 0)


def vsplit(ary: ArrayLike, indices_or_sections: int | Sequence[int]) -> list[Tensor]:
    """Split along axis 0 (tensors of at least 2 dimensions)."""
    return _split_at_least("vsplit", ary, indices_or_sections, 2, 0)


def dsplit(ary: ArrayLike, indices_or_sections: int | Sequence[int]) -> list[Tensor]:
    """Split along axis 2 (tensors of at least 3 dimensions)."""
    return _split_at_least("dsplit", ary, indices_or_sections, 3, 2)


def meshgrid(*xi: ArrayLike, copy: bool = True, sparse: bool = False,
             indexing: str = "xy") -> list[Tensor]:
    """Coordinate tensors from 1-D coordinate vectors, as ``numpy.meshgrid``: a tuple,
    Cartesian (``"xy"``: the first two axes swapped) or matrix (``"ij"``) indexed;
    ``sparse=True`` keeps size-1 axes instead of broadcasting; ``copy=False`` returns
    broadcast views."""
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
    """The grid of indices of a tensor of shape ``dimensions``, as ``numpy.indices``: one
    tensor of shape ``(len(dimensions),) + dimensions`` (int64 by default), or a tuple
    of broadcastable ones for ``sparse=True``."""
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
