"""The WebGPU driver's views and indexing: reshape, permute, broadcast and basic-index
views (no copy), their adjoints and concatenate (writes into zeros), as CUDA's
(:mod:`tenferro.devices._views`), and integer-array indexing: gathers, atomic scatter-adds, nonzero and put.
"""

import numpy as np

from ... import _caches
from .. import _views
from . import wgsl
from .array import I32, I64, STORE, check_dtype, from_numpy, kind, new, to_numpy
from .context import device_name
from .elementwise import assign, full
from .render import contiguous_copy, offset_lines, strided_layout
from .wgsl import MAXDIM, WORKGROUP as WG

# views and their adjoints: metadata and writes through views, as CUDA's
implementations = _views.implementations(
    contiguous_copy, assign, lambda shape, dtype, device, op: full(shape, dtype, 0, device, op),
    new)
reshape = implementations["reshape"]


# -- integer-array indexing: gathers, atomic scatter-adds, nonzero --------------------------

def _check_index(op, x, idx):
    check_dtype(x.dtype, op, x.device)
    if idx.dtype != I64 or idx.device != x.device:
        raise TypeError("tenferro.%s (webgpu): indices must be an int64 array on %s, got %s "
                        "on %s" % (op, device_name(x.device), idx.dtype,
                                   device_name(idx.device)))


def _paired(op, target, idx, axis, along):
    """:func:`tenferro.devices._views.paired`, within WebGPU's dimension limit."""
    nd = idx.ndim if along else target.ndim - 1 + idx.ndim
    if nd > MAXDIM:
        raise ValueError("tenferro.%s (webgpu): at most %d dimensions, got %d (x of shape %s, "
                         "indices of shape %s)" % (op, MAXDIM, nd, target.shape, idx.shape))
    return _views.paired(target, idx, axis, along)


@_caches.memoize("webgpu.index_sources", maxsize=64)
def _index_source(template, nin, body, **fmt):
    init, step = offset_lines(nin)
    return template.format(wg=WG, at=0, offsets_init=init, offsets_step=step, body=body,
                           **fmt)


def _gather(op, along):
    """take / take_along_axis: out[i] = x[o0 + idx[o1] * x's axis stride]."""
    def run(x, idx, *, axis):
        _check_index(op, x, idx)
        tv, iv = _paired(op, x, idx, axis, along)
        out = new(tv.shape, x.dtype, x.device, op)
        if out.size == 0:
            return out
        meta = strided_layout(tv.shape, [0] * tv.ndim, 0, [tv, iv]) + [x.estrides[axis]]
        src = _index_source(wgsl.GATHER, 2, "    out[i] = x[o0 + i32(idx[o1].x) * lay[%d]];"
                            % (len(meta) - 1), store=STORE[x.dtype])
        out.storage.ctx.dispatch(src, [x.storage, idx.storage, out.storage], meta, meta[0])
        return out
    return run


def _scatter(op, along):
    """scatter_add(_along_axis): zeros(shape), then values[i] added atomically at
    out[o0 + idx[o1] * out's axis stride] (duplicates accumulate; float32 sums in
    whatever order the threads land, like any parallel scatter-add)."""
    def run(values, idx, *, axis, shape):
        _check_index(op, values, idx)
        out = full(shape, values.dtype, 0, values.device, op)
        tv, iv = _paired(op, out, idx, axis, along)
        if tv.shape != values.shape:
            raise ValueError("tenferro.%s (webgpu): values of shape %s, expected %s (indices "
                             "of shape %s into shape %s along axis %d)"
                             % (op, values.shape, tv.shape, idx.shape, tuple(shape), axis))
        if values.size == 0:
            return out
        meta = (strided_layout(tv.shape, [0] * tv.ndim, 0, [tv, iv, values])
                + [out.estrides[axis]])
        atom, add = wgsl.SCATTER_ADD[kind(values.dtype)]
        src = _index_source(wgsl.SCATTER, 3,
                            "    add_at(o0 + i32(idx[o1].x) * lay[%d], values[o2]);"
                            % (len(meta) - 1), store=STORE[values.dtype], atom=atom, add=add)
        out.storage.ctx.dispatch(src, [values.storage, idx.storage, out.storage], meta,
                                 meta[0])
        return out
    return run


def _nonzero(x):
    """The (nnz, ndim) int64 C-order coordinates of x's nonzeros, as the CPU driver's.
    The output's shape depends on the data, so the mask is read back and the indices
    computed on the host and uploaded: a sync point (as PyTorch's nonzero on CUDA)."""
    check_dtype(x.dtype, "nonzero", x.device)
    return from_numpy(np.argwhere(to_numpy(x)).astype(np.int64), x.device)


def _put(dst, positions, values):
    """dst.flat[positions] = values (C-order positions, normalised by the core; values
    broadcast to their shape), the last of duplicate positions winning as in NumPy:
    one pass marks each position's last writer (atomicMax), a second writes."""
    check_dtype(dst.dtype, "put", dst.device)
    load = {I64: "i32(idx[o0].x)", I32: "idx[o0]"}.get(positions.dtype)
    if load is None or values.dtype != dst.dtype or values.shape != positions.shape:
        raise ValueError("tenferro.put (webgpu): expected int32/int64 positions and values "
                         "of dtype %s and the positions' shape, got positions %s %s and "
                         "values %s %s" % (dst.dtype, positions.dtype, positions.shape,
                                           values.dtype, values.shape))
    if not dst.writeable:
        raise ValueError("tenferro.setitem: assignment destination is read-only")
    if positions.size == 0:
        return
    target = dst if dst.c_contiguous else contiguous_copy(dst)
    if values.storage is target.storage:   # no buffer both read and written in a pass
        values = contiguous_copy(values)
    ctx = target.storage.ctx
    win = full((dst.size,), I32, 0, dst.device, "put")
    meta = strided_layout(positions.shape, [0] * positions.ndim, 0, [positions, values])
    istore = STORE[positions.dtype]
    ctx.dispatch(_index_source(wgsl.PUT_WINNER, 2, "    atomicMax(&win[%s], i + 1);" % load,
                               istore=istore),
                 [positions.storage, win.storage], meta, meta[0])
    body = ("    let p = %s;\n"
            "    if (win[p] == i + 1) { out[lay[%d] + p] = values[o1]; }" % (load, len(meta)))
    ctx.dispatch(_index_source(wgsl.PUT, 2, body, store=STORE[dst.dtype], istore=istore),
                 [positions.storage, values.storage, win.storage, target.storage],
                 meta + [target.offset], meta[0])
    if target is not dst:   # a strided destination: write the result back
        assign(dst, target)


implementations["take"] = _gather("take", along=False)
implementations["take_along_axis"] = _gather("take_along_axis", along=True)
implementations["scatter_add"] = _scatter("scatter_add", along=False)
implementations["scatter_add_along_axis"] = _scatter("scatter_add_along_axis", along=True)
implementations["nonzero"] = _nonzero
implementations["put"] = _put
