"""The CUDA driver's views and indexing: reshape, permute, broadcast, basic-index and
diagonal views (no copy), their adjoints and concatenate (writes into zeros), as
WebGPU's (:mod:`tenferro.devices._views`), and integer-array indexing: gathers, atomic
scatter-adds, nonzero and put.

The kernels (:mod:`.index_kernels`) walk their iterated shape as the elementwise kernel
does (dimensions merged, :func:`.kernels.elementwise_layout`): a gather's or
scatter's *target* view has stride 0 along the index dimensions, where the index
supplies the position (times the target's stride along ``axis``, the last metadata
word), and the index view has stride 0 along the others.
"""
import math
import numpy as np

from ... import _dtypes
from .. import _views
from .._layout import c_strides
from .array import check_dtype, new, to_numpy, zeros
from .elementwise import _same_device, assign, contiguous_copy
from .index_kernels import MAXDIM, gather_kernel, nonzero_kernel, put_kernel, \
    scatter_kernel, win_dtype
from .index_kernels import all_kernels  # noqa: F401  (compile_all's list)
from .kernels import elementwise_layout, launch

I64 = _dtypes.int64
# -- views and their adjoints (shared with WebGPU) ------------------------------------------

implementations = _views.implementations(contiguous_copy, assign, zeros, new)
reshape = implementations["reshape"]


# -- integer-array indexing: gathers, atomic scatter-adds ---------------------------------

def _check_index(op, x, idx):
    check_dtype(x.dtype, op, x.device)
    if idx.dtype != I64 or idx.device != x.device:
        raise TypeError("tenferro.%s (cuda): indices must be an int64 array on %s, got %s "
                        "on %s" % (op, x.device, idx.dtype, idx.device))


def _layout(shape, last, operands):
    """:func:`.kernels.elementwise_layout` over ``operands`` then ``last``, one element
    (no dimension left, ``nd`` 0) walked as a contiguous range (``nd`` -1, the same
    offsets): one kernel less per op and dtype."""
    nd, meta = elementwise_layout(shape, last, operands)
    return (-1 if nd == 0 else nd), meta


def _gather(op, along):
    """take / take_along_axis: out[i] = x[o0 + idx[o1] * x's axis stride], elements
    moved as bits (one thread per output element)."""
    def run(x, idx, *, axis):
        _check_index(op, x, idx)
        tv, iv = _views.paired(x, idx, axis, along)
        out = new(tv.shape, x.dtype, x.device, op)
        if out.size == 0:
            return out
        nd, meta = _layout(tv.shape, out, [tv, iv])
        launch(out.storage.backend, gather_kernel(x.dtype.itemsize, nd), out.size,
               [x.ptr, idx.ptr, out.ptr], meta + [x.estrides[axis]])
        return out
    return run


def _scatter(op, along):
    """scatter_add(_along_axis): zeros(shape), then values[i] added atomically at
    out[o0 + idx[o1] * out's axis stride] (duplicates accumulate; floats sum in
    whatever order the atomics land, like any parallel scatter-add)."""
    def run(values, idx, *, axis, shape):
        _check_index(op, values, idx)
        shape = tuple(shape)
        n = math.prod(shape)
        # bools are or-ed into their 32-bit word: round the allocation up to whole words
        out = zeros((-(-n // 4) * 4 if values.dtype == _dtypes.bool_ else n,),
                    values.dtype, values.device, op)
        out = out.view(shape, c_strides(shape), 0)
        tv, iv = _views.paired(out, idx, axis, along)
        if tv.shape != values.shape:
            raise ValueError("tenferro.%s (cuda): values of shape %s, expected %s (indices "
                             "of shape %s into shape %s along axis %d)"
                             % (op, values.shape, tv.shape, idx.shape, shape, axis))
        if values.size == 0:
            return out
        nd, meta = _layout(tv.shape, values, [tv, iv])
        launch(out.storage.backend, scatter_kernel(values.dtype, nd), values.size,
               [out.ptr, idx.ptr, values.ptr], meta + [out.estrides[axis]])
        return out
    return run


implementations["take"] = _gather("take", along=False)
implementations["take_along_axis"] = _gather("take_along_axis", along=True)
implementations["scatter_add"] = _scatter("scatter_add", along=False)
implementations["scatter_add_along_axis"] = _scatter("scatter_add_along_axis", along=True)


# -- nonzero, put ---------------------------------------------------------------------------

CHUNKS = 65536   # nonzero's chunks (threads) at most; each counts, then writes, a range


def _nonzero(x):
    """The (nnz, ndim) int64 C-order coordinates of x's nonzeros, as the CPU driver's.
    The flat range is cut in chunks; pass 0 counts each chunk's nonzeros, the counts
    are read back (the output's shape depends on them: a sync point, as PyTorch's
    nonzero on CUDA) and their exclusive prefix sums uploaded, and pass 1 writes each
    chunk's coordinates from its offset on: C order, whatever the parallelism."""
    check_dtype(x.dtype, "nonzero", x.device)
    if x.ndim > MAXDIM:
        raise ValueError("tenferro.nonzero (cuda): at most %d dimensions, got %d"
                         % (MAXDIM, x.ndim))
    n = x.size
    if n == 0:
        return new((0, x.ndim), I64, x.device, "nonzero")
    chunk = max(64, -(-n // CHUNKS))
    nch = -(-n // chunk)
    nd, meta = _layout(x.shape, x, [])
    k = nonzero_kernel(x.dtype, nd)
    counts = new((nch,), I64, x.device, "nonzero")
    be = counts.storage.backend

    def run(mode, res):
        launch(be, k, nch, [x.ptr, counts.ptr, res], meta + [chunk, mode, x.ndim]
               + list(x.shape) + [0] * (MAXDIM - x.ndim))

    run(0, counts.ptr)
    c = to_numpy(counts)
    nnz = int(c.sum())
    res = new((nnz, x.ndim), I64, x.device, "nonzero")
    if nnz and x.ndim:
        starts = np.zeros_like(c)
        np.cumsum(c[:-1], out=starts[1:])
        be.upload(counts.ptr, starts)
        run(1, res.ptr)
    return res


def _put(dst, positions, values):
    """dst.flat[positions] = values (C-order positions, normalised by the core; values
    broadcast to their shape), the last of duplicate positions winning as in NumPy.
    A winner mark per element of ``dst`` (uninitialised: only the positions' marks are
    cleared, so the work is the positions', not dst's); pass 1 raises each position's
    mark to its last writer's C-order index + 1 (an atomic max), pass 2 lets only that
    writer store."""
    check_dtype(dst.dtype, "put", dst.device)
    _same_device("put", dst, positions, values)
    if positions.dtype not in (_dtypes.int32, I64) or values.dtype != dst.dtype \
            or values.shape != positions.shape:
        raise ValueError("tenferro.put (cuda): expected int32/int64 positions and values "
                         "of dtype %s and the positions' shape, got positions %s %s and "
                         "values %s %s" % (dst.dtype, positions.dtype, positions.shape,
                                           values.dtype, values.shape))
    if not dst.writeable:
        raise ValueError("tenferro.setitem: assignment destination is read-only")
    if positions.size == 0:
        return
    target = dst if dst.c_contiguous else contiguous_copy(dst)
    if values.storage is target.storage:    # pass 2 must not read what it writes
        values = contiguous_copy(values)
    if positions.storage is target.storage:
        positions = contiguous_copy(positions)
    wdt = win_dtype(positions.size)
    win = new((target.size,), wdt, dst.device, "put")
    nd, meta = _layout(positions.shape, values, [positions])
    k = put_kernel(dst.dtype.itemsize, positions.dtype, wdt, nd)
    for mode in (0, 1, 2):
        launch(win.storage.backend, k, positions.size,
               [positions.ptr, values.ptr, target.ptr, win.ptr], meta + [mode])
    if target is not dst:   # a strided destination: write the result back
        assign(dst, target)


implementations["nonzero"] = _nonzero
implementations["put"] = _put


