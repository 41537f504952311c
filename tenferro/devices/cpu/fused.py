"""The CPU driver's ``fused_elementwise``: a fused group (:mod:`tenferro._fused`) run as
one kernel.

The group's nodes run as one ``FusedKernel`` (``_kernels/_elementwise``): the nodes' own
loops, applied block by block (64 elements) to registers held in per-thread scratch
memory, so intermediates never reach main memory.  Results are those of the unfused
program: the same loops on the same values (a transcendental function may differ by
its SIMD variant's few ulp where the unfused loop takes a scalar path: a broadcast or
strided operand).  A group ending in a reduction is computed chunk by chunk into a
cache-sized buffer, each chunk reduced while in cache.
"""
import weakref

import numpy as np

from ..._fused import KINDS, REDUCTIONS, tail as _tail
from ..._kernels import _elementwise as _ew, _views
from ..._kernels._alloc import empty as _empty
from . import threads as _threads
from .ops import impl, out_like

CHUNK = 1 << 17    # elements computed per kernel call before a fused reduction runs

# sub-graph -> its kernel, built on first run and kept as long as the sub-graph lives
_kernels = weakref.WeakKeyDictionary()


class _CpuFused:
    """A sub-graph ready to run on the CPU: its ``FusedKernel`` (the elementwise nodes;
    the value a final reduction reads is the last output operand), the iteration
    shape, the final reduction node (or None) and the dtypes of the other outputs."""
    __slots__ = ("kernel", "shape", "tail", "dtypes")

    def __init__(self, graph):
        tail = _tail(graph)
        nodes = graph.nodes[:-1] if tail is not None else graph.nodes
        outs = [o for o in graph.outs if tail is None or o is not tail.outputs[0]]
        self.dtypes = tuple(o.dtype for o in outs)
        if tail is not None:
            outs.append(tail.inputs[0])
        nin = len(graph.in_vars)
        reg = {id(v): i for i, v in enumerate(graph.in_vars)}
        for i, o in enumerate(outs):
            reg[id(o)] = nin + i
        code, temp = [], nin + len(outs)
        for n in nodes:
            o = n.outputs[0]
            if id(o) not in reg:
                reg[id(o)] = temp
                temp += 1
            kind = KINDS[n.prim.name]
            src = n.inputs[1] if kind == "where" else n.inputs[0]
            code.append((kind, n.prim.name if kind in ("unary", "binary") else None,
                         (src.dtype, o.dtype), tuple(reg[id(i)] for i in n.inputs), reg[id(o)]))
        self.kernel = _ew.FusedKernel(code, nin, len(outs))
        self.tail = tail
        self.shape = outs[-1].shape


def kernel(graph):
    """``graph`` ready to run on the CPU (built once per sub-graph)."""
    f = _kernels.get(graph)
    if f is None:
        f = _kernels[graph] = _CpuFused(graph)
    return f


def fused_elementwise(*arrays, graph):
    """Outputs allocated in the layout of the first full-shape input (as the unfused
    loops would), one kernel call (it broadcasts the inputs) -- or, with a final
    reduction, one per chunk of at most ``CHUNK`` elements, each reduced by the
    reduction kernel while in cache."""
    f = kernel(graph)
    shape = f.shape
    like = None
    for a in arrays:
        if a.shape == shape:
            like = a
            break
    if f.tail is None:
        outs = tuple(out_like(like, d) for d in f.dtypes) if like is not None else \
            tuple(_empty(shape, d) for d in f.dtypes)
        f.kernel.run(arrays + outs, _threads.current)
        return outs
    ins = tuple(a if a.shape == shape else _views.broadcast_to(a, shape) for a in arrays)
    outs = tuple(out_like(like, d) if like is not None else _empty(shape, d)
                 for d in f.dtypes)
    reduced = _reduce_chunks(f.kernel, ins, outs, shape, f.tail)
    res = iter(outs)
    return tuple(reduced if o is f.tail.outputs[0] else next(res) for o in graph.outs)


def _reduce_chunks(k, ins, outs, shape, tail):
    """Run kernel ``k`` chunk by chunk into a cache-sized buffer and reduce each chunk
    with ``tail``'s reduction kernel (pairwise sums within a chunk); where chunks cut a
    reduced axis, their partial results are combined pairwise.  Equal to the unfused
    program to rounding."""
    axes = tail.params["axes"]
    op = tail.prim.name
    reduce_fn, combine = impl[op], impl[REDUCTIONS[op]]
    src = tail.inputs[0]
    out_dtype = tail.outputs[0].dtype
    buf = _empty((min(CHUNK, int(np.prod(shape, dtype=np.int64))),), src.dtype)
    result = _empty(tail.outputs[0].shape, out_dtype)
    partials = {}
    kept = [d for d in range(len(shape)) if d not in axes]
    for sl in _chunks(shape):
        cshape = tuple(len(range(*s.indices(n))) for s, n in zip(sl, shape))
        view = buf[:int(np.prod(cshape, dtype=np.int64))].reshape(cshape)
        k.run(tuple(a[sl] for a in ins) + tuple(o[sl] for o in outs) + (view,),
              _threads.current)
        part = reduce_fn(view, axes=axes, out_dtype=out_dtype)
        key = tuple((sl[d].start, sl[d].stop) for d in kept)
        partials.setdefault(key, []).append(part)
    for key, parts in partials.items():
        while len(parts) > 1:          # pairwise: the error grows with log(chunks)
            parts = [combine(parts[i], parts[i + 1], out_dtype=out_dtype)
                     if i + 1 < len(parts) else parts[i] for i in range(0, len(parts), 2)]
        _ew.cast(parts[0], result[tuple(slice(a, b) for a, b in key) + (Ellipsis,)],
                 _threads.current)
    return result


def _chunks(shape):
    """Index tuples (slices, ndim kept) cutting ``shape`` into C-order blocks of at most
    ``CHUNK`` elements: the trailing dims that fit whole, the next one in runs, the
    leading ones an index at a time."""
    n, inner, d = len(shape), 1, len(shape)
    while d > 0 and inner * shape[d - 1] <= CHUNK:
        d -= 1
        inner *= shape[d]
    whole = (slice(None),) * (n - d)
    if d == 0:
        yield whole if n else (Ellipsis,)     # a 0-d array's view, not its scalar
        return
    step = max(CHUNK // inner, 1)
    for idx in np.ndindex(*shape[:d - 1]):
        head = tuple(slice(i, i + 1) for i in idx)
        for a in range(0, shape[d - 1], step):
            yield head + (slice(a, min(a + step, shape[d - 1])),) + whole
