"""Sorting and searching: sort, argsort, searchsorted, digitize, unique (NumPy's semantics).

Two primitives carry the comparisons, both non-differentiable (their outputs are
integer positions) and int64-valued:

* ``argsort``: a stable sort's permutation along one axis, NaN last (complex numbers
  lexicographically, real part first, NaNs last in NumPy's extended order
  ``R + Rj < R + nanj < nan + Rj < nan + nanj``); ``descending=True`` keeps the
  stable order of ties (the Array API's rule) and puts NaN first.
* ``searchsorted``: insertion points of values into a sorted 1-D tensor.

Their CPU implementations are NumPy's on the CPU driver's device arrays, which are
ndarrays (tenferro/_ops/_order_cpu.py, with the values-only ``sort_values`` and
``unique_sorted`` that ``sort`` and ``unique`` use outside autodiff).  The WebGPU
driver implements ``argsort`` and ``searchsorted`` with its own shaders
(tenferro/devices/webgpu/sort.py); on CUDA they raise ``UnsupportedOperation``
(docs/devices.md), never a silent copy to the host.

Everything else is a composition: ``sort`` is ``take_along_axis(a, argsort(a))``, so it
is differentiable through the permutation (a gather; its VJP scatters back);
``digitize`` is ``searchsorted`` on monotonic bins; ``unique`` sorts, marks where the
sorted values change and gathers those positions with ``nonzero``.  ``unique``'s output
size depends on the data, so (as ``nonzero`` and ``x[mask]``) it reads the mask on the
host and cannot be traced; its values are differentiable (a gather).
"""
from __future__ import annotations

from collections import namedtuple
from typing import TYPE_CHECKING

from .. import _dtypes
from .._primitive import bind
from ._common import normalize_axis, numel, to_tensor
from ._order_cpu import argsort_p, plain, searchsorted_p, sort_values_p, unique_sorted_p
from .shape import basic_index_p, flip, moveaxis, reshape

if TYPE_CHECKING:
    from typing import Any, SupportsIndex

    from .._tensor import ArrayLike, Tensor


def _sort_args(op, a, axis, kind, stable):
    """(tensor, normalised axis): ``axis=None`` (or a 0-d ``a`` in argsort) sorts the
    flattened tensor.  Every kind NumPy names (quicksort, heapsort, mergesort, stable,
    by first letter as NumPy reads them) is accepted and sorts stably: a stable order is
    a valid answer for the unstable kinds, and for ``stable=False``."""
    if kind is not None and (not isinstance(kind, str) or not kind
                             or kind[0].lower() not in "qhms"):
        raise ValueError("tenferro.%s: sort kind must be one of 'quicksort', 'heapsort', "
                         "'mergesort' or 'stable', got %r" % (op, kind))
    if kind is not None and stable is not None:
        raise ValueError("tenferro.%s: `kind` and `stable` cannot be given together; use "
                         "one of them" % op)
    if stable not in (None, True, False):
        raise ValueError("tenferro.%s: stable must be a bool or None, got %r" % (op, stable))
    a = to_tensor(a)
    if axis is None or (op == "argsort" and a.ndim == 0):
        return reshape(a, (-1,)), 0
    return a, normalize_axis(op, axis, a.ndim)


def argsort(a: ArrayLike, axis: SupportsIndex | None = -1, kind: str | None = None,
            order: None = None, *, stable: bool | None = None,
            descending: bool = False) -> Tensor:
    """Indices (int64) that sort ``a`` along ``axis`` (``None``: the flattened tensor), as
    ``numpy.argsort``; always stable; ``descending=True`` (the Array API's) sorts from
    largest to smallest keeping ties in input order.  Not differentiable."""
    if order is not None:
        raise ValueError("tenferro.argsort: order= applies to structured arrays, which "
                         "tenferro does not have")
    a, axis = _sort_args("argsort", a, axis, kind, stable)
    return bind(argsort_p, (a,), {"axis": axis, "descending": bool(descending)})


def sort(a: ArrayLike, axis: SupportsIndex | None = -1, kind: str | None = None,
         order: None = None, *, stable: bool | None = None,
         descending: bool = False) -> Tensor:
    """``a`` sorted along ``axis`` (``None``: flattened), as ``numpy.sort`` (NaN last,
    complex lexicographic); ``descending=True`` as the Array API's ``sort``.
    Differentiable: a gather through ``argsort``'s permutation (in range by
    construction: no bounds check, so it can be traced)."""
    from .indexing import take_in_range

    if order is not None:
        raise ValueError("tenferro.sort: order= applies to structured arrays, which "
                         "tenferro does not have")
    a, axis = _sort_args("sort", a, axis, kind, stable)
    if a.shape[axis] <= 1:
        return a.copy()
    if not descending and plain(a, sort_values_p):
        return bind(sort_values_p, (a,), {"axis": axis})
    perm = bind(argsort_p, (a,), {"axis": axis, "descending": bool(descending)})
    return take_in_range(a, perm, axis)


def searchsorted(a: ArrayLike, v: ArrayLike, side: str = "left",
                 sorter: ArrayLike | None = None) -> Tensor:
    """Indices (int64) where ``v``'s elements would be inserted into the 1-D ``a`` (sorted
    ascending, or through ``sorter``'s permutation) to keep it sorted, as
    ``numpy.searchsorted``: ``side="left"`` the first such index, ``"right"`` the last."""
    from .indexing import take

    if side not in ("left", "right"):
        raise ValueError("tenferro.searchsorted: side must be 'left' or 'right', got %r"
                         % (side,))
    a = to_tensor(a)
    if a.ndim != 1:
        raise ValueError("tenferro.searchsorted: a must be 1-dimensional, got %d dimensions"
                         % a.ndim)
    if sorter is not None:
        sorter = to_tensor(sorter, device=a._device)
        if sorter.size != a.size:
            raise ValueError("tenferro.searchsorted: sorter.size must equal a.size, got %d "
                             "and %d" % (sorter.size, a.size))
        try:
            a = take(a, sorter)
        except IndexError:
            raise ValueError("tenferro.searchsorted: sorter index out of range") from None
    v = to_tensor(v, device=a._device)
    dt = _dtypes.result_type(a, v)
    a, v = (t if t.dtype == dt else t.astype(dt) for t in (a, v))
    return bind(searchsorted_p, (a, v), {"side": side})


def digitize(x: ArrayLike, bins: ArrayLike, right: bool = False) -> Tensor:
    """Indices (int64) of the bins each value of ``x`` falls into, as ``numpy.digitize``:
    ``bins`` is 1-D and monotonically increasing or decreasing (checked on the host, so
    digitize cannot be traced); ``right`` says which side of each bin is closed."""
    from .elementwise import greater_equal, less_equal, subtract
    from .reduction import all as _all

    x = to_tensor(x)
    bins = to_tensor(bins, device=x._device)
    if x.dtype.kind == "c" or bins.dtype.kind == "c":
        raise TypeError("tenferro.digitize: x and bins may not be complex")
    if bins.ndim != 1:
        raise ValueError("tenferro.digitize: bins must be 1-dimensional, got %d dimensions"
                         % bins.ndim)
    side = "left" if right else "right"
    if bins.shape[0] < 2:
        return searchsorted(bins, x, side=side)
    d = subtract(bins[1:], bins[:-1]) if bins.dtype != _dtypes.bool_ else \
        subtract(bins[1:].astype(_dtypes.int64), bins[:-1].astype(_dtypes.int64))
    if bool(_all(greater_equal(d, 0))):
        return searchsorted(bins, x, side=side)
    if bool(_all(less_equal(d, 0))):
        return subtract(bins.shape[0], searchsorted(flip(bins), x, side=side))
    raise ValueError("tenferro.digitize: bins must be monotonically increasing or decreasing")


# -- unique ------------------------------------------------------------------------------

UniqueAllResult = namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices",
                                                 "counts"])
UniqueCountsResult = namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = namedtuple("UniqueInverseResult", ["values", "inverse_indices"])


def _first(x, n):
    """``x[:n]`` along axis 0 (``x[n:]`` for negative ``n``) as a view."""
    s = ("s", 0, n, 1) if n >= 0 else ("s", x.shape[0] + n, x.shape[0], 1)
    return bind(basic_index_p, (x,), {"key": (s,) + tuple(("s", 0, m, 1) for m in x.shape[1:])})


def _lexsort_rows(rows):
    """The stable permutation sorting the rows of 2-D ``rows`` lexicographically: a
    stable argsort per column, last column first (a least-significant-digit sort)."""
    from .creation import arange
    from .indexing import take

    n, m = rows.shape
    perm = arange(n, device=rows.device)
    for j in reversed(range(m)):
        col = take(take(rows, j, axis=1), perm)
        perm = take(perm, bind(argsort_p, (col,), {"axis": 0, "descending": False}))
    return perm


def _unique_parts(ar, axis, equal_nan, need_perm):
    """(sorted, perm, first): ``ar`` with ``axis`` first, flattened to rows (or to 1-D for
    ``axis=None``), sorted by the stable permutation ``perm``, and the bool mask
    ``first`` of the sorted positions that start a new unique value.  Without
    ``need_perm`` (values only), ``perm`` is None where a values-only sort applies."""
    from .creation import full
    from .elementwise import isnan, logical_and, logical_not, not_equal
    from .indexing import take
    from .joining import concatenate
    from .reduction import any as _any

    if axis is None:
        flat = reshape(ar, (-1,))
        if not need_perm and plain(flat, sort_values_p):
            perm, s = None, bind(sort_values_p, (flat,), {"axis": 0})
        else:
            perm = argsort(flat)
    else:
        rest = ar.shape[:axis] + ar.shape[axis + 1:]
        flat = reshape(moveaxis(ar, axis, 0), (ar.shape[axis], numel(rest)))
        perm = _lexsort_rows(flat)
    if perm is not None:
        s = take(flat, perm, axis=0)
    n = s.shape[0]
    if n == 0:
        return s, perm, full((0,), True, device=ar.device)
    later, earlier = _first(s, -(n - 1)), _first(s, n - 1)
    change = not_equal(later, earlier)
    if axis is not None:
        change = _any(change, axis=1) if s.ndim == 2 and s.shape[1] else \
            full((n - 1,), False, device=ar.device)
    elif equal_nan and s.dtype.kind in "fc":
        # NaNs sort last (complex ones too): one unique NaN, as NumPy's equal_nan
        change = logical_and(change, logical_not(logical_and(isnan(later), isnan(earlier))))
    return s, perm, concatenate([full((1,), True, device=ar.device), change])


def unique(ar: ArrayLike, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False, axis: SupportsIndex | None = None, *,
           equal_nan: bool = True, sorted: bool = True) -> Any:
    """The sorted unique elements of ``ar`` (flattened, or the unique slices along
    ``axis``), as ``numpy.unique``, optionally with the index of each one's first
    occurrence, the inverse indices that rebuild ``ar`` (``ar``'s shape for
    ``axis=None``, as NumPy 2) and the counts, all int64.  ``equal_nan`` (default True)
    counts all NaNs as one value.  The output size depends on the data: the mask of
    changes is read on the host (a sync point; not traceable).  The values are
    differentiable; on devices without ``argsort`` (CUDA) it raises
    ``UnsupportedOperation``."""
    from .creation import full
    from .elementwise import subtract
    from .indexing import flatnonzero, scatter_add, take
    from .joining import concatenate
    from .reduction import cumsum

    ar = to_tensor(ar)
    if axis is not None:
        axis = normalize_axis("unique", axis, ar.ndim)
    elif not (return_index or return_inverse or return_counts) and plain(ar, unique_sorted_p):
        return bind(unique_sorted_p, (reshape(ar, (-1,)),), {"equal_nan": bool(equal_nan)})
    s, perm, first = _unique_parts(ar, axis, equal_nan,
                                   return_index or return_inverse)
    starts = flatnonzero(first)
    values = take(s, starts, axis=0)
    if axis is not None:
        rest = ar.shape[:axis] + ar.shape[axis + 1:]
        values = moveaxis(reshape(values, (values.shape[0],) + rest), 0, axis)
    if not (return_index or return_inverse or return_counts):
        return values
    out = [values]
    if return_index:
        out.append(take(perm, starts))
    if return_inverse:
        inv = subtract(cumsum(first.astype(_dtypes.int64)), 1)
        inv = scatter_add((perm.shape[0],), perm, inv, 0)
        out.append(reshape(inv, ar.shape) if axis is None else inv)
    if return_counts:
        n = full((1,), s.shape[0], dtype=_dtypes.int64, device=ar.device)
        bounds = concatenate([starts, n])
        out.append(subtract(_first(bounds, -(bounds.shape[0] - 1)),
                            _first(bounds, bounds.shape[0] - 1)))
    return tuple(out)


def unique_values(x: ArrayLike) -> Tensor:
    """The Array API's ``unique_values``: sorted unique elements of flattened ``x``
    (each NaN distinct)."""
    return unique(x, equal_nan=False)


def unique_counts(x: ArrayLike) -> UniqueCountsResult:
    """The Array API's ``unique_counts``: ``(values, counts)``."""
    return UniqueCountsResult(*unique(x, return_counts=True, equal_nan=False))


def unique_inverse(x: ArrayLike) -> UniqueInverseResult:
    """The Array API's ``unique_inverse``: ``(values, inverse_indices)``, the inverse of
    ``x``'s shape."""
    return UniqueInverseResult(*unique(x, return_inverse=True, equal_nan=False))


def unique_all(x: ArrayLike) -> UniqueAllResult:
    """The Array API's ``unique_all``: ``(values, indices, inverse_indices, counts)``."""
    return UniqueAllResult(*unique(x, return_index=True, return_inverse=True,
                                   return_counts=True, equal_nan=False))
