"""Batching rules of the indexing and searching primitives (tenferro/_ops/indexing.py,
``searchsorted``): the batch is axis 0 of every batched input and output (see
:mod:`._core`).

* ``take``/``scatter_add``: indices shared by the batch shift the operand's axis;
  batched indices become one gather from (one scatter into) the batch-flattened
  operand, each example's indices offset by its number times the axis length;
  ``take_along_axis`` and its scatter take the batch as one more leading axis;
* ``nonzero`` (``x[mask]``, ``argwhere``): one call on the whole batch when every
  example has as many nonzero elements (the batch's rows come example by example),
  else an ``IndexError`` naming the counts, as JAX refuses such masks;
* ``searchsorted`` with a batched sorted array: a bisection of ``log2(n) + 1`` rounds of
  a gather and a comparison in NumPy's sort order (NaN last, complex lexicographic),
  the same insertion points as the kernel, for every example at once.

The public ops check indices on the host before they bind these primitives: under
``vmap`` they read the whole batch (``BatchTracer.concrete_values``), so the rules
receive indices already in range and made non-negative.
"""
import numpy as np

from .. import _dtypes
from .._ops import arange, count_nonzero, moveaxis, permute_dims, reshape, where, zeros
from .._ops.elementwise import imag, isnan, logical_and, logical_not, logical_or, real
from .._ops.indexing import (nonzero_p, scatter_add_along_axis_p, scatter_add_p,
                             take_along_axis_p, take_in_range, take_p)
from .._ops.sorting import searchsorted_p
from .._primitive import bind, concrete_values
from ._core import def_batch_rule, loop_rule, materialize


def _offsets(idx, n, size):
    """``idx`` (batched, axis 0) plus ``n`` times its example's number: positions into
    the batch-flattened operand."""
    off = reshape(arange(size, dtype=_dtypes.int64, device=idx.device) * n,
                  (size,) + (1,) * (idx.ndim - 1))
    return idx + off


def _take(args, batched, params, size):
    x, idx = args
    axis = params["axis"]
    if not batched[1]:
        return bind(take_p, (x, idx), {"axis": axis + 1})
    if not batched[0]:   # x[:axis] + (B, *I) + x[axis+1:]
        return moveaxis(bind(take_p, (x, idx), params), axis, 0)
    n = x.shape[axis + 1]
    xm = moveaxis(x, axis + 1, 1)                        # (B, n, *pre, *post)
    flat = reshape(xm, (size * n,) + tuple(xm.shape[2:]))
    out = bind(take_p, (flat, _offsets(idx, n, size)), {"axis": 0})   # (B, *I, *pre, *post)
    k = idx.ndim - 1
    return permute_dims(out, (0,) + tuple(range(1 + k, 1 + k + axis)) + tuple(range(1, 1 + k))
                        + tuple(range(1 + k + axis, out.ndim)))


def _scatter_add(args, batched, params, size):
    v, idx = args
    axis, shape = params["axis"], tuple(params["shape"])
    if not batched[1]:
        return bind(scatter_add_p, (v, idx), {"axis": axis + 1, "shape": (size,) + shape})
    v = materialize(v, batched[0], size)                 # (B, *pre, *I, *post)
    k, n = idx.ndim - 1, shape[axis]
    v = permute_dims(v, (0,) + tuple(range(1 + axis, 1 + axis + k)) + tuple(range(1, 1 + axis))
                     + tuple(range(1 + axis + k, v.ndim)))   # (B, *I, *pre, *post)
    rest = shape[:axis] + shape[axis + 1:]
    out = bind(scatter_add_p, (v, _offsets(idx, n, size)),
               {"axis": 0, "shape": (size * n,) + rest})
    return moveaxis(reshape(out, (size, n) + rest), 1, 1 + axis)


def _along_axis(prim):
    def rule(args, batched, params, size):
        p = dict(params, axis=params["axis"] + 1)
        if "shape" in p:
            p["shape"] = (size,) + tuple(p["shape"])
        return bind(prim, tuple(materialize(x, b, size) for x, b in zip(args, batched)), p)
    return def_batch_rule(prim, rule)


def _nonzero(args, batched, params, size):
    (m,) = args
    counts = concrete_values(count_nonzero(m, axis=tuple(range(1, m.ndim))))
    if counts is None:   # values unknown (traced): the primitive raises its own error
        return loop_rule(nonzero_p)(args, batched, params, size)
    counts = np.unique(np.asarray(counts.tolist(), dtype=np.int64))
    if counts.size > 1:
        raise IndexError(
            "tenferro.vmap: nonzero (x[mask], argwhere, flatnonzero) gives as many positions "
            "as the mask has true elements, and the examples of the batch have %s: a batched "
            "result needs one size (use tenferro.where with a fixed-size result, or loop over "
            "the examples)" % " and ".join(str(c) for c in counts[:5]))
    k = int(counts[0]) if counts.size else 0
    rows = bind(nonzero_p, (m,), {})   # (size * k, 1 + ndim): example by example
    return reshape(rows, (size, k, m.ndim))[:, :, 1:]


def _less(a, b):
    """``a < b`` in NumPy's sort order (npysort's ``LT``): NaN after every number;
    complex lexicographically, real part first, with NumPy's NaN rules."""
    if a.dtype.kind == "c":
        ar, ai, br, bi = real(a), imag(a), real(b), imag(b)
        ai_ok, bi_nan = logical_not(isnan(ai)), isnan(bi)
        lt_imag = logical_or(ai < bi, logical_and(bi_nan, ai_ok))
        both_nan = logical_and(isnan(ar), isnan(br))
        return where(ar < br, logical_or(ai_ok, bi_nan),
                     where(ar > br, logical_and(bi_nan, ai_ok),
                           where(logical_or(ar == br, both_nan), lt_imag, isnan(br))))
    if a.dtype.kind == "f":
        return logical_or(a < b, logical_and(isnan(b), logical_not(isnan(a))))
    if a.dtype == _dtypes.bool_:
        return logical_and(logical_not(a), b)
    return a < b


def _searchsorted(args, batched, params, size):
    a, v = args
    if not batched[0]:
        return bind(searchsorted_p, args, params)
    v = materialize(v, batched[1], size)
    shape, n = v.shape, a.shape[1]
    q = reshape(v, (size, int(np.prod(shape[1:], dtype=np.int64))))   # (B, m) queries
    # (int32 positions where they fit: WebGPU divides no int64)
    pos = _dtypes.int32 if 2 * n < 2 ** 31 else _dtypes.int64
    lo = zeros(q.shape, dtype=pos, device=q.device)
    hi = lo + n
    for _ in range(n.bit_length()):   # the first position p with not a[p] < q (left),
        mid = (lo + hi) // 2          # with q < a[p] (right)
        open_ = lo < hi
        am = take_in_range(a, where(open_, mid, 0), 1)
        go = _less(am, q) if params["side"] == "left" else logical_not(_less(q, am))
        go = logical_and(open_, go)
        lo = where(go, mid + 1, lo)
        hi = where(logical_and(open_, logical_not(go)), mid, hi)
    return reshape(lo.astype(_dtypes.int64), shape)


def_batch_rule(take_p, _take)
def_batch_rule(scatter_add_p, _scatter_add)
_along_axis(take_along_axis_p)
_along_axis(scatter_add_along_axis_p)
def_batch_rule(nonzero_p, _nonzero)
def_batch_rule(searchsorted_p, _searchsorted)
