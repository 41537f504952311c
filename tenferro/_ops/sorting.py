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
from .shape import basic_index_p, flip, moveaxis, reshape, zero_d_axis

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
    if axis is None or (op == "argsort" and zero_d_axis(axis, a.ndim)):
        return reshape(a, (-1,)), 0
    return a, normalize_axis(op, axis, a.ndim)


def argsort(a: ArrayLike, axis: SupportsIndex | None = -1, kind: str | None = None,
            order: None = None, *, stable: bool | None = None,
            descending: bool = False) -> Tensor:
    """The indices that sort ``a`` along ``axis`` (``numpy.argsort``; the Array API's
    ``argsort``).

    ``take_along_axis(a, argsort(a, axis), axis)`` is ``sort(a, axis)``.  The order is
    NumPy's (NaN last, complex lexicographic) and stable: equal elements keep their
    input order.

    Parameters
    ----------
    %(sort_parameters)s

    Returns
    -------
    Tensor
        int64 indices of ``a``'s shape (1-D for ``axis=None``).

    Raises
    ------
    %(sort_raises)s

    Notes
    -----
    Differentiable: no; its output is integer positions.

    See Also
    --------
    numpy.argsort, sort, take_along_axis

    Examples
    --------
    >>> tf.argsort(tf.asarray([3.0, 1.0, np.nan, 2.0]))
    tensor([1, 3, 0, 2])
    """
    if order is not None:
        raise ValueError("tenferro.argsort: order= applies to structured arrays, which "
                         "tenferro does not have")
    a, axis = _sort_args("argsort", a, axis, kind, stable)
    return bind(argsort_p, (a,), {"axis": axis, "descending": bool(descending)})


def sort(a: ArrayLike, axis: SupportsIndex | None = -1, kind: str | None = None,
         order: None = None, *, stable: bool | None = None,
         descending: bool = False) -> Tensor:
    """``a`` sorted along ``axis`` (``numpy.sort``; the Array API's ``sort``).

    NaNs sort last (first with ``descending=True``); complex numbers sort
    lexicographically, real part first, as NumPy's.  The sort is stable.

    Parameters
    ----------
    %(sort_parameters)s

    Returns
    -------
    Tensor
        A new tensor of ``a``'s shape and dtype (1-D for ``axis=None``).

    Raises
    ------
    %(sort_raises)s

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order: a gather
    through :func:`argsort`'s permutation (the cotangent is scattered back: JAX's
    ``_gather_transpose_rule``).  Ties pass the derivative to the element that lands
    in each place.

    See Also
    --------
    numpy.sort, argsort, searchsorted

    Examples
    --------
    >>> tf.sort(tf.asarray([3.0, 1.0, np.nan, 2.0]))
    tensor([ 1.,  2.,  3., nan])
    >>> tf.sort(tf.asarray([3, 1, 2]), descending=True)
    tensor([3, 2, 1])
    """
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


# sort and argsort take the same arguments and raise the same errors
_SORT_DOC_PARTS = {
    "%(sort_parameters)s": """a : Tensor or array_like
    The tensor.
axis : int or None, default -1
    The axis to sort along; the flattened tensor if None.
kind : {"quicksort", "mergesort", "heapsort", "stable"}, optional
    Accepted for NumPy compatibility: every kind sorts stably (a valid answer for
    all of them).
order : None
    NumPy's field order for structured arrays, which tenferro does not have: must
    be None.
stable : bool, optional
    The Array API's keyword (keyword-only); the sort is always stable.
descending : bool, default False
    Sort from largest to smallest (keyword-only; the Array API's), ties kept in
    input order and NaN first.""",
    "%(sort_raises)s": """ValueError
    If ``kind`` is not one of NumPy's, both ``kind`` and ``stable`` are given, or
    ``order`` is not None.
AxisError
    If ``axis`` is out of range.
UnsupportedOperation
    On a device without a sort (CUDA).""",
}
for _fn in (sort, argsort):
    for _key, _text in _SORT_DOC_PARTS.items() if _fn.__doc__ else ():   # (python -OO)
        _fn.__doc__ = _fn.__doc__.replace(_key, _text.replace("\n", "\n    "))


def searchsorted(a: ArrayLike, v: ArrayLike, side: str = "left",
                 sorter: ArrayLike | None = None) -> Tensor:
    """Where to insert ``v`` into the sorted ``a`` to keep it sorted
    (``numpy.searchsorted``).

    With ``side="left"`` the index ``i`` satisfies ``a[i-1] < v <= a[i]``; with
    ``"right"``, ``a[i-1] <= v < a[i]``.  ``a`` must be sorted ascending, or
    ``sorter`` must hold the permutation that sorts it.

    Parameters
    ----------
    a : Tensor or array_like, 1-D
        The sorted values.
    v : Tensor, array_like or scalar
        The values to insert.
    side : {"left", "right"}, default "left"
        The first or the last suitable index.
    sorter : Tensor or array_like of ints, optional
        The indices that sort ``a`` (e.g. from :func:`argsort`).

    Returns
    -------
    Tensor
        int64 indices of ``v``'s shape.

    Raises
    ------
    ValueError
        If ``a`` is not 1-D, ``side`` is invalid, or ``sorter`` has another size than
        ``a`` or indices out of range.
    UnsupportedOperation
        On a device without it (CUDA).

    Notes
    -----
    Differentiable: no; its output is integer positions.

    See Also
    --------
    numpy.searchsorted, digitize, sort

    Examples
    --------
    >>> tf.searchsorted(tf.asarray([1, 2, 3, 4]), [2, 5])
    tensor([1, 4])
    >>> tf.searchsorted(tf.asarray([1, 2, 3, 4]), 2, side="right")
    tensor(2)
    """
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
    """The indices of the bins that the values of ``x`` fall into (``numpy.digitize``).

    For increasing ``bins``, ``i`` satisfies ``bins[i-1] <= x < bins[i]`` (with
    ``right=True``: ``bins[i-1] < x <= bins[i]``); values below the first edge get 0
    and above the last ``len(bins)``.  Decreasing bins are handled as NumPy does.  The
    monotonicity check reads ``bins`` on the host, so it cannot be traced.

    Parameters
    ----------
    x : Tensor or array_like
        The values (real).
    bins : Tensor or array_like, 1-D
        Monotonically increasing or decreasing bin edges.
    right : bool, default False
        Whether the bins are closed on the right instead of the left.

    Returns
    -------
    Tensor
        int64 indices of ``x``'s shape.

    Raises
    ------
    ValueError
        If ``bins`` is not 1-D or not monotonic.
    TypeError
        If ``x`` or ``bins`` is complex.

    Notes
    -----
    Differentiable: no; its output is integer positions.

    See Also
    --------
    numpy.digitize, searchsorted, histogram

    Examples
    --------
    >>> tf.digitize(tf.asarray([0.2, 6.4, 3.0]), tf.asarray([0.0, 1.0, 2.5, 4.0]))
    tensor([1, 4, 3])
    """
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
    """The sorted unique elements of ``ar`` (``numpy.unique``).

    Optionally also the index of each unique value's first occurrence, the inverse
    indices that rebuild ``ar`` (``values[inverse]`` is ``ar``; of ``ar``'s shape for
    ``axis=None``, as NumPy 2) and each value's count.  With ``axis`` the unique
    slices along that axis are found.  The output's size depends on the data, so it is
    read on the host: ``unique`` cannot be traced (``jit``).

    Parameters
    ----------
    ar : Tensor or array_like
        The input (flattened if ``axis`` is None).
    return_index : bool, default False
        Also return the indices of the first occurrences.
    return_inverse : bool, default False
        Also return the inverse indices.
    return_counts : bool, default False
        Also return the counts.
    axis : int, optional
        The axis whose slices are compared; the flattened ``ar`` if None.
    equal_nan : bool, default True
        Count all NaNs as one value (keyword-only).
    sorted : bool, default True
        Accepted for NumPy 2 compatibility (keyword-only); the result is always
        sorted.

    Returns
    -------
    Tensor or tuple of Tensor
        The unique values, followed (as a tuple) by the int64 indices, inverse and
        counts that were asked for, in that order.

    Raises
    ------
    AxisError
        If ``axis`` is out of range.
    UnsupportedOperation
        On a device without a sort (CUDA).
    ConcretizationError
        If ``ar`` is traced.

    Notes
    -----
    Differentiable: yes for the values (a gather: JAX's ``_gather_transpose_rule``);
    the indices, inverse and counts are integers.

    See Also
    --------
    numpy.unique, unique_values, unique_counts, unique_inverse, unique_all

    Examples
    --------
    >>> values, counts = tf.unique(tf.asarray([1, 1, 2, 3, 3, 3]), return_counts=True)
    >>> values, counts
    (tensor([1, 2, 3]), tensor([2, 1, 3]))
    """
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
    return unique(x, equal_nan=False)


def unique_counts(x: ArrayLike) -> UniqueCountsResult:
    return UniqueCountsResult(*unique(x, return_counts=True, equal_nan=False))


def unique_inverse(x: ArrayLike) -> UniqueInverseResult:
    return UniqueInverseResult(*unique(x, return_inverse=True, equal_nan=False))


def unique_all(x: ArrayLike) -> UniqueAllResult:
    return UniqueAllResult(*unique(x, return_index=True, return_inverse=True,
                                   return_counts=True, equal_nan=False))


_UNIQUE_DOC = """The Array API's ``{name}``: {what} of the flattened ``x``.

``unique(x, {args}equal_nan=False)``: each NaN counts as a distinct value, as the
Array API asks, and the values are sorted (the Array API leaves their order
unspecified; NumPy's ``numpy.{name}`` no longer sorts them since NumPy 2.3).{more}

Parameters
----------
x : Tensor or array_like
    The input (flattened).

Returns
-------
{returns}

Raises
------
UnsupportedOperation
    On a device without a sort (CUDA).
ConcretizationError
    If ``x`` is traced (the output's size depends on the data).

Notes
-----
Differentiable: yes for the values (a gather: JAX's ``_gather_transpose_rule``);
the integer fields are not.

See Also
--------
numpy.{name}, unique

Examples
--------
>>> tf.{name}(tf.asarray([1, 1, 2, 3, 3, 3]))
{out}
"""
_INVERSE = " ``values[inverse_indices]`` is ``x``."
for _fn, _what, _args, _more, _returns, _out in (
        (unique_values, "the sorted unique elements", "", "",
         "Tensor\n    The unique values, 1-D.", "tensor([1, 2, 3])"),
        (unique_counts, "the unique elements and their counts", "return_counts=True, ", "",
         "UniqueCountsResult\n    A named tuple ``(values, counts)``; counts are int64.",
         "UniqueCountsResult(values=tensor([1, 2, 3]), counts=tensor([2, 1, 3]))"),
        (unique_inverse, "the unique elements and the inverse indices",
         "return_inverse=True, ", _INVERSE,
         "UniqueInverseResult\n    A named tuple ``(values, inverse_indices)``; the "
         "int64 inverse has ``x``'s\n    shape.",
         "UniqueInverseResult(values=tensor([1, 2, 3]),\n"
         "                    inverse_indices=tensor([0, 0, 1, 2, 2, 2]))"),
        (unique_all, "the unique elements, first indices, inverse indices and counts",
         "return_index=True, return_inverse=True,\nreturn_counts=True, ", _INVERSE,
         "UniqueAllResult\n    A named tuple ``(values, indices, inverse_indices, counts)``, "
         "the last\n    three int64.",
         "UniqueAllResult(values=tensor([1, 2, 3]), indices=tensor([0, 2, 3]),\n"
         "                inverse_indices=tensor([0, 0, 1, 2, 2, 2]),\n"
         "                counts=tensor([2, 1, 3]))")):
    _fn.__doc__ = _UNIQUE_DOC.format(name=_fn.__name__, what=_what, args=_args, more=_more,
                                     returns=_returns, out=_out)
