"""The order primitives (``argsort``, ``searchsorted``, ``sort_values``,
``unique_sorted``, ``partition``) and their CPU implementations, NumPy's on the CPU
driver's arrays (which are ndarrays).

``argsort`` and ``searchsorted`` carry every sort and search (tenferro/_ops/sorting.py).
``sort_values``, ``unique_sorted`` and ``partition`` compute values only: they are what
``sort``, ``unique``, ``median`` and ``quantile`` use for tensors outside autodiff and
tracing (:func:`plain`), where no permutation is needed for a gradient, so NumPy's
fastest sort, its hashed unique and its introselect replace a stable argsort followed by
a gather.  Their results are those of the stable sort, bit for bit, but for
``partition`` (below):

* ``argsort`` (always stable) first tries NumPy's unstable (SIMD) argsort, and keeps it
  when the sorted values have no two equal neighbours and no NaN: the order is then
  unique, so every sort gives the same permutation.  Otherwise it sorts stably.
* ``sort_values`` and ``unique_sorted`` use NumPy's unstable sort (and unique) when equal
  values are identical: integers and bools always, floating point (and complex) when
  there is no NaN (NaNs of different bits) and no ``-0.0`` (which compares equal to
  ``0.0``); else the stable sort.
* ``partition`` (NumPy's ``partition``, NaN last) is used only to pick order
  statistics, which equal the sort's at the ``kth`` positions whatever the ties; where
  equal elements differ in their bits (``-0.0`` beside ``0.0``, NaNs of different
  payloads) the one picked may be another than the stable sort's (a zero of the other
  sign, another NaN) -- as NumPy's median and quantile, which partition too; a tensor
  that requires grad takes the sort (its gradient goes to the stable order's element).

Devices without them (WebGPU, CUDA) take the argsort path.
"""
import numpy as np

from .. import _dtypes
from .._primitive import Primitive, def_impl

argsort_p = Primitive(
    "argsort", lambda a, *, axis, descending: (a[0], _dtypes.int64),
    differentiable=False, nondiff_reason="its output is integer positions",
    doc="The stable sort's permutation along ``axis`` (int64), NaN last.")
searchsorted_p = Primitive(
    "searchsorted", lambda a, v, *, side: (v[0], _dtypes.int64),
    differentiable=False, nondiff_reason="its output is integer positions",
    doc="Insertion points (int64) of ``v`` into the sorted 1-D ``a``.")
_VALUES_ONLY = ("bound only for tensors outside autodiff; differentiable sorts are a "
                "gather through argsort's permutation")
sort_values_p = Primitive(
    "sort_values", lambda a, *, axis: (a[0], a[1]), differentiable=False,
    nondiff_reason=_VALUES_ONLY,
    doc="``a`` sorted along ``axis`` (NaN last), the stable sort's values.")
unique_sorted_p = Primitive(
    "unique_sorted", None, differentiable=False, nondiff_reason=_VALUES_ONLY,
    doc="The sorted distinct values of the 1-D ``a``, the first of each run of equal ones "
        "in the stable order; ``equal_nan``: one NaN (its output size depends on the data: "
        "never traced).")
partition_p = Primitive(
    "partition", lambda a, *, kth, axis: (a[0], a[1]), differentiable=False,
    nondiff_reason=_VALUES_ONLY,
    doc="``a`` partitioned along ``axis`` around the sorted positions ``kth`` (a tuple): "
        "those hold the sort's values, NaN last, as ``numpy.partition``.")


def plain(a, prim):
    """Whether ``a`` is outside autodiff and tracing and its device implements ``prim``:
    then a values-only primitive may replace a permutation and a gather."""
    return a._ad is None and a._trace is None and prim.name in a._device.driver.implementations


def _ties_possible(a):
    """Whether equal elements of the host array ``a`` may differ in their bits (NaNs,
    ``-0.0`` beside ``0.0``): only then does an unstable sort's order show."""
    if a.dtype.kind not in "fc":
        return False
    parts = (a.real, a.imag) if a.dtype.kind == "c" else (a,)
    return any(np.isnan(p).any() or (np.signbit(p) & (p == 0)).any() for p in parts)


# Below this many elements along the axis the stable sort costs the unstable one's (both
# insertion sorts) and spares the check of the ties.
_SMALL = 128


def _sort_values_cpu(a, *, axis):
    kind = "stable" if a.shape[axis] <= _SMALL or _ties_possible(a) else None
    return np.sort(a, axis=axis, kind=kind)


def _unique_order(a, p, axis):
    """Whether the permutation ``p`` sorts ``a`` into strictly increasing values (no ties,
    no NaN), so that it is the stable one."""
    n = a.shape[axis]
    if n < 2:
        return True
    s = np.take_along_axis(a, p, axis=axis)
    lo = s[(slice(None),) * axis + (slice(0, n - 1),)]
    hi = s[(slice(None),) * axis + (slice(1, n),)]
    return not (lo == hi).any() and not (a.dtype.kind in "fc" and np.isnan(hi).any())


def _argsort_cpu(a, *, axis, descending):
    """The stable argsort: NumPy's unstable one where the order is unique, else its stable
    one.  Descending: the ascending stable sort of the reversed axis, reversed, keeps
    ties in input order."""
    if not descending:
        if a.dtype.kind != "b" and a.shape[axis] > _SMALL:
            p = np.argsort(a, axis=axis)
            if _unique_order(a, p, axis):
                return np.asarray(p, dtype=np.int64, order="C")
        return np.asarray(np.argsort(a, axis=axis, kind="stable"), dtype=np.int64, order="C")
    n = a.shape[axis]
    p = np.flip(np.argsort(np.flip(a, axis), axis=axis, kind="stable"), axis)
    return np.asarray((n - 1) - p, dtype=np.int64, order="C")


def _unique_sorted_cpu(a, *, equal_nan):
    """NumPy's unique (for integers a hash table, then a sort of the distinct values only,
    NumPy 2.3+) where equal values are identical; else (NaN, ``-0.0``) the stable sort's
    first of each run, as tenferro's composition keeps."""
    if not _ties_possible(a):
        return np.unique(a)
    s = np.sort(a, kind="stable")
    first = np.ones(s.shape, bool)
    np.not_equal(s[1:], s[:-1], out=first[1:])
    if equal_nan:      # (NaNs sort last: one run)
        first[1:] &= ~(np.isnan(s[1:]) & np.isnan(s[:-1]))
    return s[first]


def _partition_cpu(a, *, kth, axis):
    return np.partition(a, kth, axis=axis)


def _searchsorted_cpu(a, v, *, side):
    """NumPy's searchsorted (binary search; NaN sorts last, as in argsort)."""
    return np.asarray(np.searchsorted(a, v, side=side), dtype=np.int64, order="C")


def_impl(argsort_p, "cpu", _argsort_cpu)
def_impl(searchsorted_p, "cpu", _searchsorted_cpu)
def_impl(sort_values_p, "cpu", _sort_values_cpu)
def_impl(partition_p, "cpu", _partition_cpu)
def_impl(unique_sorted_p, "cpu", _unique_sorted_cpu)
