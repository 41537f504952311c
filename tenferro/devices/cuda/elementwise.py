"""The CUDA driver's elementwise ops and casts: every unary and binary op of the
catalog for every dtype :mod:`.cmath` implements (with ``out=``), where, clip, integer
power, convert, copy, assign and fill.

An op's kernel stores ``tf_convert<OUT>(tf_<op>(v0[, v1]))``: :mod:`.cmath` defines
``tf_<op>`` per C type with NumPy's semantics, and the result is converted to the
dtype the core asked for (``out_dtype``), so one function per (op, input type) serves
every output dtype.  The same expressions are what fused kernels (:mod:`.fused`)
inline, so a fused program computes exactly what the unfused ops do.
"""
import numpy as np

from ..._catalog import BINARY, COMPLEX_PARTS, UNARY, broadcast_shapes
from ..._errors import UnsupportedOperation
from .._layout import binary_operands, broadcast_view, overlaps
from .array import CUDAArray, check_dtype, from_numpy, new, to_numpy
from .cmath import BINARY_SUPPORT, UNARY_SUPPORT
from .kernels import elementwise_kernel, elementwise_layout, launch
from .reduce import reduce_op

BOOL = np.dtype(bool)


def op_expr(op, nin):
    """The C expression of catalog op ``op`` over the values ``v0 ..``."""
    return "tf_%s(%s)" % (op, ", ".join("v%d" % k for k in range(nin)))


def run_elementwise(op, expr, inputs, out_dtype, out=None, shape=None):
    """Evaluate ``expr`` (C, in ``v0, v1, ...``) elementwise over ``inputs`` (already
    broadcast to ``shape``) into a new C-contiguous array, or into ``out`` (which may be
    one of the inputs exactly: in-place)."""
    shape = tuple(inputs[0].shape if shape is None else shape)
    if out is None:
        dev = inputs[0].device if inputs else None
        out = new(shape, out_dtype, dev, op)
    n = out.size
    if n == 0:
        return out
    nd, meta = elementwise_layout(shape, out, inputs)
    k = elementwise_kernel("k_" + op, expr, tuple(x.dtype for x in inputs), out.dtype, nd)
    launch(out.storage.backend, k, n, [x.ptr for x in inputs] + [out.ptr], meta)
    return out


def contiguous_copy(x):
    """A new C-contiguous copy of ``x``."""
    return run_elementwise("copy", "v0", [x], x.dtype)


def _supported(table, op, dtype, device):
    if dtype not in table.get(op, ()):
        raise UnsupportedOperation(device, op, dtype)


def _check_out(op, out, shape, dtype):
    if not isinstance(out, CUDAArray) or out.shape != tuple(shape) or out.dtype != dtype:
        raise ValueError("tenferro.%s (cuda): out must be a CUDA array of shape %s and "
                         "dtype %s" % (op, tuple(shape), dtype))
    if not out.writeable:   # a broadcast or diagonal view: threads would race on it
        raise ValueError("tenferro.%s (cuda): out is a read-only view" % op)


def _same_device(op, *xs):
    dev = xs[0].device
    for x in xs[1:]:
        if x.device != dev:
            raise ValueError("tenferro.%s (cuda): operands on %s and %s; move one with "
                             ".to(...) first" % (op, dev, x.device))


def _unary(op):
    expr = op_expr(op, 1)

    def run(x, *, out_dtype, out=None):
        _supported(UNARY_SUPPORT, op, x.dtype, x.device)
        if out is None:
            return run_elementwise(op, expr, [x], out_dtype)
        _check_out(op, out, x.shape, out_dtype)
        if overlaps(out, x):
            x = contiguous_copy(x)
        return run_elementwise(op, expr, [x], out_dtype, out=out)
    return run


def _binary(op):
    expr = op_expr(op, 2)

    def run(a, b, *, out_dtype, out=None):
        if a.dtype != b.dtype:
            raise TypeError("tenferro.%s (cuda): operands must share a dtype, got %s and %s"
                            % (op, a.dtype, b.dtype))
        _same_device(op, a, b)
        _supported(BINARY_SUPPORT, op, a.dtype, a.device)
        a, b, shape = binary_operands(op, a, b, out, contiguous_copy)
        if out is not None:
            _check_out(op, out, shape, out_dtype)
        return run_elementwise(op, expr, [a, b], out_dtype, out=out, shape=shape)
    return run


implementations = {}   # op -> the driver function
for _n in tuple(UNARY) + COMPLEX_PARTS:
    if _n in UNARY_SUPPORT:
        implementations[_n] = _unary(_n)
for _n in BINARY:
    if _n in BINARY_SUPPORT:
        implementations[_n] = _binary(_n)
OUT_OPS = frozenset(implementations)   # the ops taking ``out=``


def _ternary(op, expr, check):
    def run(a, b, c, *, out_dtype):
        _same_device(op, a, b, c)
        check_dtype(out_dtype, op, a.device)
        check(a, b, c, out_dtype)
        shape = broadcast_shapes(op, a.shape, b.shape, c.shape)
        args = [broadcast_view(v, shape, op) for v in (a, b, c)]
        return run_elementwise(op, expr, args, out_dtype, shape=shape)
    return run


def _where_check(c, x, y, out_dtype):
    if c.dtype != BOOL or x.dtype != out_dtype or y.dtype != out_dtype:
        raise UnsupportedOperation(x.device, "where", x.dtype if x.dtype != out_dtype
                                   else y.dtype)


def _clip_check(x, lo, hi, out_dtype):
    if out_dtype == BOOL or not (
            x.dtype == lo.dtype == hi.dtype == out_dtype):
        raise UnsupportedOperation(x.device, "clip", x.dtype)


#: the C expressions of where and clip (shared with the fused kernels, :mod:`.fused`);
#: clip is NumPy's (cmath's tf_clip: NaN in x or a bound gives NaN)
TERNARY_EXPR = {"where": "(v0 ? v1 : v2)", "clip": "tf_clip(v0, v1, v2)"}   # NumPy's clip
implementations["where"] = _ternary("where", TERNARY_EXPR["where"], _where_check)
implementations["clip"] = _ternary("clip", TERNARY_EXPR["clip"], _clip_check)


def _int_power(run):
    """``power`` checking NumPy's rule for integers first: a negative exponent raises
    the CPU kernel's ValueError.  A kernel cannot raise, so the exponent's minimum is
    read back to the host: integer power is a sync point, like any read."""
    def power(a, b, *, out_dtype, out=None):
        if a.dtype.kind == "i" and b.dtype.kind == "i" and b.size:
            lowest = b if b.size == 1 else reduce_op("min", b, tuple(range(b.ndim)), b.dtype)
            if to_numpy(lowest).min() < 0:
                raise ValueError("Integers to negative integer powers are not allowed.")
        return run(a, b, out_dtype=out_dtype, out=out)
    return power


if "power" in implementations:
    implementations["power"] = _int_power(implementations["power"])


def _convert(x, *, dtype):
    check_dtype(dtype, "convert", x.device)
    return run_elementwise("convert", "v0", [x], dtype)


def assign(dst, src):
    """dst[...] = src (broadcast to dst's shape, converted to its dtype), through any
    strided view."""
    if src.shape != dst.shape:
        src = broadcast_view(src, dst.shape, "setitem")
    if not dst.writeable:
        raise ValueError("tenferro.setitem: assignment destination is read-only (a broadcast "
                         "or diagonal view)")
    if src.storage is dst.storage:
        src = contiguous_copy(src)
    run_elementwise("assign", "v0", [src], dst.dtype, out=dst, shape=dst.shape)


def full(shape, dtype, value, device):
    """A new array of ``shape`` filled with ``value``."""
    out = new(tuple(shape), dtype, device, "full")
    assign(out, from_numpy(np.full((), value, dtype), device))
    return out


implementations["convert"] = _convert
implementations["copy"] = contiguous_copy
implementations["assign"] = assign
