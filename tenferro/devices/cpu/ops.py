"""The CPU driver's implementations of the primitives: tenferro's Cython kernels.

``impl`` maps primitive names to functions over ndarrays (the CPU's device arrays).
Every computation goes to ``tenferro._kernels``; NumPy is used for allocation and view
metadata only.
"""
import numpy as np

from ..._catalog import ARG_REDUCTIONS, BINARY, COMPLEX_PARTS, REDUCTIONS, SCANS, UNARY, \
    broadcast_shapes
from ..._kernels import _elementwise as _ew, _reduce as _red, _index as _ix
from ..._kernels import _alloc, _views
from ..._kernels._alloc import empty as _empty
from . import blas_kernels, threads as _threads

impl = {}
_INT64 = np.dtype(np.int64)


def _register(*names):
    def deco(fn):
        for n in names:
            impl[n] = fn
        return fn
    return deco


# -- elementwise ----------------------------------------------------------------------

def out_like(x, dtype):
    # Keep a transposed (F-ordered) input's layout, as NumPy's order='K' does.
    if x.ndim > 1:
        flags = x.flags
        if flags.f_contiguous and not flags.c_contiguous:
            return _empty(x.shape, dtype, "F")
    return _empty(x.shape, dtype)


def _partial_overlap(out, x):
    """``out`` shares memory with ``x`` other than as the very same view (kernels
    support exact aliasing only: in-place ops)."""
    return (np.may_share_memory(out, x) and not (
        out.__array_interface__["data"][0] == x.__array_interface__["data"][0]
        and out.strides == x.strides and out.shape == x.shape))


def _safe_out(out, *inputs):
    """A buffer the kernel may write: ``out`` itself, or a temporary when it overlaps."""
    for x in inputs:
        if x is not out and _partial_overlap(out, x):
            return _empty(out.shape, out.dtype)
    return out


def _unary(op):
    kernel = _ew.unary

    def run(x, *, out_dtype, out=None):
        if out is None:
            out = out_like(x, out_dtype)
            kernel(op, x, out, _threads.current)
            return out
        buf = _safe_out(out, x)
        kernel(op, x, buf, _threads.current)
        if buf is not out:
            _ew.cast(buf, out, _threads.current)
        return out
    return run


def _binary(op):
    kernel = _ew.binary

    def run(a, b, *, out_dtype, out=None):
        if a.shape != b.shape:
            shape = _views.broadcast_shape(a.shape, b.shape)
            if shape is None:
                broadcast_shapes(op, a.shape, b.shape)  # raises the user-facing error
            if a.shape != shape:
                a = _views.broadcast_to(a, shape)
            if b.shape != shape:
                b = _views.broadcast_to(b, shape)
        if out is None:
            out = out_like(a, out_dtype)
            kernel(op, a, b, out, _threads.current)
            return out
        buf = _safe_out(out, a, b)
        kernel(op, a, b, buf, _threads.current)
        if buf is not out:
            _ew.cast(buf, out, _threads.current)
        return out
    return run


def _allocating(kind, op, run):
    """Give ``run`` (op's implementation) the eager fast path's hook:
    ``run.allocating(dtype, out_dtype)`` is ``f(*inputs) -> new array`` for inputs of
    ``dtype`` (the op's loop resolved once, the output allocated in Cython; broadcasting
    and large outputs go back to ``run``), or None where the kernel has no such loop."""
    def allocating(dtype, out_dtype):
        try:
            k = _ew.Allocating(kind, op, dtype, _threads, run)
        except (TypeError, ValueError):
            return None
        if k.out_dtype != out_dtype:
            return None
        return k.unary if kind == "unary" else k.binary
    run.allocating = allocating
    return run


for _n in UNARY:
    impl[_n] = _allocating("unary", _n, _unary(_n))
for _n in COMPLEX_PARTS:
    impl[_n] = _unary(_n)
for _n in BINARY:
    impl[_n] = _allocating("binary", _n, _binary(_n))
# The implementations that take out= (Driver.inplace_ops)
OUT_OPS = frozenset(UNARY) | frozenset(COMPLEX_PARTS) | frozenset(BINARY)


def _broadcast3(*arrays):
    shape = arrays[0].shape
    for a in arrays[1:]:
        shape = _views.broadcast_shape(shape, a.shape)
    return shape, [a if a.shape == shape else _views.broadcast_to(a, shape) for a in arrays]


def _ternary(kernel):
    def run(a, b, c, *, out_dtype):
        shape, arrays = _broadcast3(a, b, c)
        out = _empty(shape, out_dtype)
        kernel(*arrays, out, _threads.current)
        return out
    return run


impl["where"] = _ternary(_ew.where)
impl["clip"] = _ternary(_ew.clip)


# -- casts and copies ---------------------------------------------------------------

@_register("convert")
def _convert(x, *, dtype):
    out = out_like(x, dtype)
    _ew.cast(x, out, _threads.current)
    return out


@_register("copy")
def _copy(x):
    out = _empty(x.shape, x.dtype)
    _ew.cast(x, out, _threads.current)
    return out


@_register("assign")
def _assign(dst, src):
    if src.shape != dst.shape:
        b = _views.broadcast_to(src, dst.shape)
        if b is None:
            raise ValueError("tenferro.setitem: could not broadcast a value of shape %s into "
                             "shape %s" % (src.shape, dst.shape))
        src = b
    if not dst.flags.writeable:
        raise ValueError("tenferro.setitem: assignment destination is read-only (a broadcast "
                         "or diagonal view)")
    if np.may_share_memory(dst, src):
        src = _copy(src)
    _ew.cast(src, dst, _threads.current)


@_register("put")
def _put(dst, positions, values):
    """dst.flat[positions] = values (C-order positions), last write wins as in NumPy."""
    if not dst.flags.writeable:
        raise ValueError("tenferro.setitem: assignment destination is read-only")
    target = dst if dst.flags.c_contiguous else _copy(dst)
    _ix.put_flat(target.reshape(-1), _reshape(positions, shape=(positions.size,)),
                 _reshape(values, shape=(values.size,)))
    if target is not dst:  # a strided destination: write the result back
        _ew.cast(target, dst, _threads.current)


# -- views ------------------------------------------------------------------------------

@_register("reshape")
def _reshape(x, *, shape, copy=None):
    if not copy:
        v = x.view()
        try:
            v.shape = shape
            return v
        except AttributeError:
            if copy is False:
                raise ValueError("tenferro.reshape: cannot reshape a tensor of shape %s and "
                                 "strides %s to %s without copying (copy=False)"
                                 % (x.shape, x.strides, shape)) from None
    return _copy(x).reshape(shape)


@_register("permute_dims")
def _permute(x, *, axes):
    return x.transpose(axes)


@_register("broadcast_to")
def _broadcast_to(x, *, shape):
    return _views.broadcast_to(x, shape)


@_register("basic_index")
def _basic_index(x, *, key):
    k = []
    for e in key:
        if e[0] == "i":
            k.append(e[1])
        elif e[0] == "s":
            _, start, stop, step = e
            if len(range(start, stop, step)) == 0:
                # e.g. (-1, -1, -1) from slice(-5, None, -1).indices(3): NumPy would read
                # start -1 as the last element, so spell the empty range explicitly
                k.append(slice(0, 0, 1))
            else:
                k.append(slice(start, None if stop < 0 else stop, step))
        else:
            k.append(None)
    # The trailing Ellipsis keeps an all-integer key a 0-d *view* (x[i, j] alone would
    # give a NumPy scalar: not an ndarray, and not writable through for setitem).
    return x[tuple(k) + (Ellipsis,)]


@_register("diagonal")
def _diagonal(x, *, offset, axis1, axis2):
    return x.diagonal(offset, axis1, axis2)


@_register("basic_index_transpose")
def _basic_index_transpose(ct, *, key, shape):
    out = np.zeros(shape, ct.dtype)  # calloc, as Driver.full(.., 0)
    _assign(_basic_index(out, key=key), ct)
    return out


@_register("diagonal_transpose")
def _diagonal_transpose(ct, *, offset, axis1, axis2, shape):
    out = np.zeros(shape, ct.dtype)
    view = out.diagonal(offset, axis1, axis2)
    view.flags.writeable = True  # NumPy hands diagonals out read-only; out is our own
    _assign(view, ct)
    return out


@_register("concatenate")
def _concatenate(*xs, axis):
    shape = list(xs[0].shape)
    shape[axis] = sum(x.shape[axis] for x in xs)
    out = _empty(tuple(shape), xs[0].dtype)
    start = 0
    key = [slice(None)] * out.ndim
    nt = _threads.current
    for x in xs:
        n = x.shape[axis]
        key[axis] = slice(start, start + n)
        _ew.cast(x, out[tuple(key)], nt)
        start += n
    return out


# -- indexing ---------------------------------------------------------------------------

@_register("take")
def _take(x, idx, *, axis):
    out = _empty(x.shape[:axis] + idx.shape + x.shape[axis + 1:], x.dtype)
    _ix.take(x, idx, axis, out, _threads.current)
    return out


@_register("take_along_axis")
def _take_along_axis(x, idx, *, axis):
    out = _empty(idx.shape, x.dtype)
    _ix.take_along_axis(x, idx, axis, out, _threads.current)
    return out


@_register("scatter_add")
def _scatter_add(values, idx, *, axis, shape):
    out = np.zeros(shape, values.dtype)
    _ix.scatter_add(out, idx, axis, values, _threads.current)
    return out


@_register("scatter_add_along_axis")
def _scatter_add_along_axis(values, idx, *, axis, shape):
    out = np.zeros(shape, values.dtype)
    _ix.scatter_add_along_axis(out, idx, axis, values, _threads.current)
    return out


@_register("nonzero")
def _nonzero(x):
    return _ix.nonzero(x)


# -- reductions ---------------------------------------------------------------------------

def _reduction(op):
    kernel = _red.reduce

    def run(x, *, axes, out_dtype):
        out = _empty(tuple(n for i, n in enumerate(x.shape) if i not in axes), out_dtype)
        kernel(op, x, axes, out, _threads.current)
        return out
    return run


def _argreduction(op):
    def run(x, *, axis):
        out = _empty(x.shape[:axis] + x.shape[axis + 1:], _INT64)
        _red.argreduce(op, x, axis, out, _threads.current)
        return out
    return run


def _scan(op):
    def run(x, *, axis, out_dtype):
        out = _empty(x.shape, out_dtype)
        _red.scan(op, x, axis, out, _threads.current)
        return out
    return run


for _n in REDUCTIONS:
    impl[_n] = _reduction(_n)
for _n in ARG_REDUCTIONS:
    impl[_n] = _argreduction(_n)
for _n in SCANS:
    impl[_n] = _scan(_n)


# -- matmul --------------------------------------------------------------------------------
# _matmul loads SciPy's BLAS (scipy.linalg): imported with the first product, when _mm's
# first attribute read puts the module itself here (blas_kernels.Lazy)
_mm = blas_kernels.Lazy("_matmul", globals(), "_mm")


@_register("matmul")
def _matmul(a, b):
    out = _empty(a.shape[:-1] + b.shape[-1:], a.dtype)
    _mm.matmul(a, b, out, _threads.current)
    return out


@_register("contract")
def _contract(a, b, *, nb, nm, nk, nn):
    """einsum's pairwise step over axis groups (see _matmul.contract)."""
    out = _empty(a.shape[:nb + nm] + b.shape[nb + nk:], a.dtype)
    _mm.contract(a, b, out, nb, nm, nk, nn, _threads.current)
    return out


def _contract_prepared(nb, nm, nk, nn, shape):
    """``_contract`` for operands whose groups are fixed and whose result has ``shape``
    (einsum's plans build it once per pairwise step)."""
    shape = tuple(shape)
    kernel = _mm.contract
    # below the buffer cache's threshold (16-byte elements at most): NumPy's allocation
    alloc = np.empty if int(np.prod(shape, dtype=np.int64)) * 16 < _alloc.CACHE_MIN \
        else _empty

    def run(a, b):
        out = alloc(shape, a.dtype)
        kernel(a, b, out, nb, nm, nk, nn, _threads.current)
        return out
    return run


_contract.prepared = _contract_prepared
