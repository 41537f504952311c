"""Batching rules of the ops' primitives (tenferro/_ops): the batch is axis 0 of every
batched input and output (see :mod:`._core`).

* elementwise ops, casts, ``where``/``clip``: inputs broadcast, batched ones aligned;
* reductions, scans, sorts, diagonals: their axes shift by one;
* views: ``reshape``/``broadcast_to`` gain the batch dimension, ``permute_dims`` keeps
  it first, ``basic_index`` takes all of it (a leading full slice);
* ``matmul`` and ``einsum``: their native batch dimensions (einsum: a fresh label);
  a batch of matrices times one shared matrix is one GEMM, the batch in its rows or
  columns;
* gathers, scatters, ``nonzero`` and ``searchsorted``: in :mod:`._rules_index`.
"""
from .._catalog import BINARY, COMPLEX_PARTS, UNARY
from .._ops import einsum, moveaxis, reshape
from .._ops.conversion import convert_p, copy_p, device_put_p
from .._ops.elementwise import PRIMS, clip_p, where_p
from .._ops.joining import concatenate_p
from .._ops.matmul import matmul_p
from .._ops.einsum import einsum_p
from .._ops.reduction import (all_p, any_p, argmax_p, argmin_p, cumprod_p, cumsum_p, max_p,
                              min_p, prod_p, sum_p)
from .._ops.shape import (basic_index_p, basic_index_transpose_p, broadcast_to_p,
                          diagonal_p, diagonal_transpose_p, permute_dims_p, reshape_p)
from .._ops._counts_cpu import bincount_p, histogram_counts_p
from .._ops._order_cpu import argsort_p, partition_p, sort_values_p, unique_sorted_p
from .._primitive import bind
from ._core import align, batch_elementwise, def_batch_loop, def_batch_rule, materialize

for _name in list(UNARY) + list(BINARY) + list(COMPLEX_PARTS):
    batch_elementwise(PRIMS[_name])
for _p in (where_p, clip_p, convert_p, copy_p, device_put_p):
    batch_elementwise(_p)


def shifted(prim, *names):
    """The rule of a primitive on one batched input whose parameters ``names`` are axes
    (an int or a tuple of ints): they shift past the batch axis (negative ones, counted
    from the end, stay)."""
    def shift(i):
        return i + 1 if i >= 0 else i

    def rule(args, batched, params, size):
        p = dict(params)
        for n in names:
            a = p[n]
            p[n] = shift(a) if isinstance(a, int) else tuple(shift(i) for i in a)
        return bind(prim, tuple(materialize(x, b, size) for x, b in zip(args, batched)), p)
    return def_batch_rule(prim, rule)


for _p in (sum_p, prod_p, max_p, min_p, any_p, all_p):
    shifted(_p, "axes")
for _p in (argmax_p, argmin_p, cumsum_p, cumprod_p, argsort_p, sort_values_p, partition_p,
           concatenate_p):
    shifted(_p, "axis")
shifted(diagonal_p, "axis1", "axis2")


def _with_batch(prim, shift=()):
    """The rule of a view-like primitive whose ``shape``/``key`` parameters gain the
    batch (``shift``: the names of its axis parameters, which move past the batch)."""
    def rule(args, batched, params, size):
        p = dict(params)
        if "shape" in p:
            p["shape"] = (size,) + tuple(p["shape"])
        if "key" in p:
            p["key"] = (("s", 0, size, 1),) + tuple(p["key"])
        for n in shift:
            p[n] += 1
        x = args[0]
        if prim is broadcast_to_p:   # the example's rank may grow: align it first
            x = align(x, len(params["shape"]))
        return bind(prim, (x,) + tuple(args[1:]), p)
    return def_batch_rule(prim, rule)


for _p in (reshape_p, broadcast_to_p, basic_index_p, basic_index_transpose_p):
    _with_batch(_p)
_with_batch(diagonal_transpose_p, shift=("axis1", "axis2"))


def _permute(args, batched, params, size):
    return bind(permute_dims_p, args, {"axes": (0,) + tuple(a + 1 for a in params["axes"])})


def_batch_rule(permute_dims_p, _permute)


def _matmul(args, batched, params, size):
    a, b = args
    if batched[0] and not batched[1] and b.ndim == 2:   # one GEMM: (B*M, K) @ (K, N)
        out = bind(matmul_p, (reshape(a, (-1, a.shape[-1])), b), params)
        return reshape(out, a.shape[:-1] + (b.shape[-1],))
    if batched[1] and not batched[0] and a.ndim == 2:   # one GEMM: (M, K) @ (K, B*N)
        n = b.shape[-1]
        out = bind(matmul_p, (a, reshape(moveaxis(b, 0, 1), (b.shape[1], size * n))), params)
        return moveaxis(reshape(out, (a.shape[0], size, n)), 1, 0)
    return bind(matmul_p, (materialize(a, batched[0], size), materialize(b, batched[1], size)),
                params)


def_batch_rule(matmul_p, _matmul)


def _einsum(args, batched, params, size):
    ins, out = params["ins"], params["out"]
    fresh = 1 + max([l for labels in ins for l in labels] + list(out) + [-1])
    operands = []
    for x, b, labels in zip(args, batched, ins):
        operands += [x, ([fresh] if b else []) + list(labels)]
    return einsum(*operands, [fresh] + list(out))


def_batch_rule(einsum_p, _einsum)

# The values-only primitives are bound only outside tracing (``_order_cpu.plain``), so
# they never meet a BatchTracer; their rules keep the registry complete all the same:
# sort_values and partition shift their axis (above), the data-sized ones loop.
for _p in (unique_sorted_p, bincount_p, histogram_counts_p):
    def_batch_loop(_p)
