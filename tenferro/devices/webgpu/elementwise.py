"""The WebGPU driver's elementwise ops and casts: the WGSL body of each (op, dtype
kind), the unary and binary functions (with ``out=``), where, clip, integer power,
convert, copy and assign.

The bodies are also what the fused kernels (:mod:`.fused`) inline, so a fused
program computes exactly what the unfused one does.
"""
import numpy as np

from ..._catalog import BINARY, UNARY
from .._layout import binary_operands, overlaps
from .array import BOOL, F32, I32, I64, STORE, WGPUArray, check_dtype, from_numpy, kind, \
    new, to_numpy, unsupported
from .reduce import reduce_op
from .render import broadcast_shape, broadcast_view, contiguous_copy, run_elementwise

# op -> {input kind: WGSL body in x (y, z)}; the value types are f32 / i32 / bool and
# the body's result has the value type of the op's out_dtype.
_F_UNARY = {
    "negative": "-x", "positive": "x", "abs": "abs(x)", "sign": "f_sign(x)",
    "exp": "exp(x)", "expm1": "f_expm1(x)", "exp2": "exp2(x)", "log": "f_log(x)",
    "log1p": "f_log1p(x)", "log2": "f_log(x) * 1.4426950408889634",
    "log10": "f_log(x) * 0.4342944819032518", "sqrt": "f_sqrt(x)",
    "rsqrt": "1.0 / f_sqrt(x)", "square": "x * x", "reciprocal": "1.0 / x",
    "sin": "sin(x)", "cos": "cos(x)", "tan": "tan(x)", "arcsin": "f_asin(x)",
    "arccos": "f_acos(x)", "arctan": "atan(x)", "sinh": "sinh(x)", "cosh": "cosh(x)",
    "tanh": "f_tanh(x)", "arcsinh": "f_asinh(x)", "arccosh": "f_acosh(x)",
    "arctanh": "f_atanh(x)", "sigmoid": "1.0 / (1.0 + exp(-x))", "floor": "floor(x)",
    "erf": "f_erf(x)",
    "ceil": "ceil(x)", "trunc": "trunc(x)", "round": "round(x)", "conj": "x",
    "isnan": "f_isnan(x)", "isinf": "f_isinf(x)", "isfinite": "f_isfinite(x)",
    "logical_not": "x == 0.0", "real": "x", "imag": "0.0",
    "angle": "select(select(0.0, 3.141592653589793, (bitcast<u32>(x) & 0x80000000u) != 0u),"
             " x, f_isnan(x))",  # atan2(0, x): pi for x < 0 and -0.0, NaN stays NaN
}
_I_UNARY = {
    "negative": "-x", "positive": "x", "abs": "abs(x)", "sign": "sign(x)",
    "square": "x * x", "conj": "x", "floor": "x",
    "ceil": "x", "trunc": "x", "round": "x",
    "reciprocal": "select(select(0, x, abs(x) == 1), -2147483647 - 1, x == 0)",
    "isnan": "false", "isinf": "false", "isfinite": "true", "logical_not": "x == 0",
    "bitwise_invert": "~x", "real": "x", "imag": "0",
}
_B_UNARY = {
    "positive": "x", "abs": "x", "conj": "x", "isnan": "false", "isinf": "false",
    "isfinite": "true", "logical_not": "!x", "bitwise_invert": "!x", "real": "x",
    "imag": "false", "floor": "x", "ceil": "x", "trunc": "x", "round": "x", "sign": "x",
    "square": "x",
}
_CMP = {"equal": "==", "not_equal": "!=", "less": "<", "less_equal": "<=", "greater": ">",
        "greater_equal": ">="}
_F_BINARY = {
    "add": "x + y", "subtract": "x - y", "multiply": "x * y", "divide": "x / y",
    "floor_divide": "f_floor_divide(x, y)", "remainder": "f_remainder(x, y)",
    "power": "f_power(x, y)", "maximum": "f_max(x, y)", "minimum": "f_min(x, y)",
    "fmax": "f_fmax(x, y)", "fmin": "f_fmin(x, y)", "arctan2": "f_atan2(x, y)",
    "hypot": "f_hypot(x, y)", "copysign": "f_copysign(x, y)",
    "logaddexp": "f_logaddexp(x, y)",
    # NaN is true: !(x == 0.0), as some compilers treat x != 0.0 as ordered
    "logical_and": "!(x == 0.0) && !(y == 0.0)", "logical_or": "!(x == 0.0) || !(y == 0.0)",
    "logical_xor": "(x == 0.0) != (y == 0.0)",
}
_I_BINARY = {
    "add": "x + y", "subtract": "x - y", "multiply": "x * y",
    "floor_divide": "i_floor_divide(x, y)", "remainder": "i_remainder(x, y)",
    "maximum": "max(x, y)", "minimum": "min(x, y)", "fmax": "max(x, y)",
    "fmin": "min(x, y)", "logical_and": "x != 0 && y != 0",
    "logical_or": "x != 0 || y != 0", "logical_xor": "(x != 0) != (y != 0)",
    "bitwise_and": "x & y", "bitwise_or": "x | y", "bitwise_xor": "x ^ y",
    "left_shift": "i_left_shift(x, y)", "right_shift": "i_right_shift(x, y)",
    "power": "i_power(x, y)",  # y >= 0 checked by _int_power
}
_B_BINARY = {
    "add": "x || y", "multiply": "x && y", "maximum": "x || y", "minimum": "x && y",
    "fmax": "x || y", "fmin": "x && y", "logical_and": "x && y", "logical_or": "x || y",
    "logical_xor": "x != y", "bitwise_and": "x && y", "bitwise_or": "x || y",
    "bitwise_xor": "x != y", "equal": "x == y", "not_equal": "x != y",
    "less": "!x && y", "less_equal": "!x || y", "greater": "x && !y",
    "greater_equal": "x || !y",
}
for _op, _sym in _CMP.items():
    _F_BINARY[_op] = "x %s y" % _sym
    _I_BINARY[_op] = "x %s y" % _sym
_F_BINARY["not_equal"] = "!(x == y) || f_isnan(x) || f_isnan(y)"
# int64 (value type vec2<u32>, the l_ helpers of wgsl_math.PRELUDE64); no division,
# remainder, power, shifts or reciprocal: those raise (declared in supports)
_L_UNARY = {
    "negative": "l_neg(x)", "positive": "x", "abs": "l_abs(x)", "sign": "l_sign(x)",
    "square": "l_mul(x, x)", "conj": "x", "floor": "x", "ceil": "x", "trunc": "x",
    "round": "x", "isnan": "false", "isinf": "false", "isfinite": "true",
    "logical_not": "!l_nz(x)", "bitwise_invert": "~x", "real": "x",
    "imag": "vec2<u32>(0u, 0u)",
}
_L_BINARY = {
    "add": "l_add(x, y)", "subtract": "l_sub(x, y)", "multiply": "l_mul(x, y)",
    "maximum": "l_max(x, y)", "minimum": "l_min(x, y)", "fmax": "l_max(x, y)",
    "fmin": "l_min(x, y)", "logical_and": "l_nz(x) && l_nz(y)",
    "logical_or": "l_nz(x) || l_nz(y)", "logical_xor": "l_nz(x) != l_nz(y)",
    "bitwise_and": "x & y", "bitwise_or": "x | y", "bitwise_xor": "x ^ y",
    "equal": "l_eq(x, y)", "not_equal": "!l_eq(x, y)", "less": "l_lt(x, y)",
    "less_equal": "l_le(x, y)", "greater": "l_lt(y, x)", "greater_equal": "l_le(y, x)",
}
UNARY_BODIES = {"f": _F_UNARY, "i": _I_UNARY, "b": _B_UNARY, "l": _L_UNARY}
BINARY_BODIES = {"f": _F_BINARY, "i": _I_BINARY, "b": _B_BINARY, "l": _L_BINARY}


def _body(table, op, dtype, out_dtype, device):
    k = kind(dtype)
    body = table.get(k, {}).get(op) if k is not None else None
    if body is None or out_dtype not in STORE:
        raise unsupported(device, op, dtype if k is None or body is None else out_dtype)
    return body


def _check_out(op, out, shape, dtype):
    if not isinstance(out, WGPUArray) or out.shape != tuple(shape) or out.dtype != dtype:
        raise ValueError("tenferro.%s (webgpu): out must be a WebGPU array of shape %s and "
                         "dtype %s" % (op, shape, dtype))


def _unary(op):
    def run(x, *, out_dtype, out=None):
        body = _body(UNARY_BODIES, op, x.dtype, out_dtype, x.device)
        if out is None:
            return run_elementwise(op, body, [x], out_dtype)
        _check_out(op, out, x.shape, out_dtype)
        if overlaps(out, x):
            x = contiguous_copy(x)
        return run_elementwise(op, body, [x], out_dtype, out=out)
    return run


def _binary(op):
    def run(a, b, *, out_dtype, out=None):
        if a.device != b.device or a.dtype != b.dtype:
            raise TypeError("tenferro.%s (webgpu): operands must share a device and dtype, "
                            "got %s and %s" % (op, a.dtype, b.dtype))
        body = _body(BINARY_BODIES, op, a.dtype, out_dtype, a.device)
        a, b, shape = binary_operands(op, a, b, out, contiguous_copy)
        if out is not None:
            _check_out(op, out, shape, out_dtype)
        return run_elementwise(op, body, [a, b], out_dtype, out=out, shape=shape)
    return run


implementations = {}   # op -> the driver function
for _n in UNARY:
    if any(_n in t for t in UNARY_BODIES.values()):
        implementations[_n] = _unary(_n)
for _n in ("real", "imag", "angle"):
    implementations[_n] = _unary(_n)
for _n in BINARY:
    if any(_n in t for t in BINARY_BODIES.values()):
        implementations[_n] = _binary(_n)
OUT_OPS = frozenset(implementations)   # the ops taking ``out=``


# where(c, x, y) and clip(x, lo, hi) in x, y, z (clip: not for bool)
WHERE_BODY = "select(z, y, x)"
CLIP_BODIES = {F32: "f_min(f_max(x, y), z)", I32: "min(max(x, y), z)",
               I64: "l_min(l_max(x, y), z)"}


def _where(c, x, y, *, out_dtype):
    dev = x.device
    check_dtype(out_dtype, "where", dev)
    if c.dtype != BOOL or x.dtype != out_dtype or y.dtype != out_dtype:
        raise unsupported(dev, "where", x.dtype if x.dtype != out_dtype else y.dtype)
    shape = broadcast_shape("where", c.shape, x.shape, y.shape)
    args = [broadcast_view(v, shape, "where") for v in (c, x, y)]
    return run_elementwise("where", WHERE_BODY, args, out_dtype, shape=shape)


def _clip(x, lo, hi, *, out_dtype):
    dev = x.device
    check_dtype(out_dtype, "clip", dev)
    if kind(out_dtype) == "b" or not (x.dtype == lo.dtype == hi.dtype == out_dtype):
        raise unsupported(dev, "clip", x.dtype)
    body = CLIP_BODIES[out_dtype]
    shape = broadcast_shape("clip", x.shape, lo.shape, hi.shape)
    args = [broadcast_view(v, shape, "clip") for v in (x, lo, hi)]
    return run_elementwise("clip", body, args, out_dtype, shape=shape)


def _int_power(run):
    """``power`` checking NumPy's rule for integers first: a negative exponent raises
    the CPU kernel's ValueError.  A shader cannot raise, so the exponent's minimum (one
    ``min`` reduction, none for a single element) is read back to the host: integer
    power is a sync point, like any read."""
    def power(a, b, *, out_dtype, out=None):
        if a.dtype == b.dtype == I32 and b.size:   # (run() rejects mixed dtypes)
            lowest = b if b.size == 1 else reduce_op("min", b, tuple(range(b.ndim)), I32)
            if to_numpy(lowest).min() < 0:   # a read: waits for the queue
                raise ValueError("Integers to negative integer powers are not allowed.")
        return run(a, b, out_dtype=out_dtype, out=out)
    return power


implementations["power"] = _int_power(implementations["power"])
implementations["where"] = _where
implementations["clip"] = _clip


def _convert(x, *, dtype):
    check_dtype(dtype, "convert", x.device)
    if dtype == x.dtype:
        return contiguous_copy(x)
    return run_elementwise("convert", convert_body(x.dtype, dtype), [x], dtype)


def convert_body(src, dst):
    """The WGSL body casting x of dtype ``src`` to ``dst`` (NumPy's values)."""
    if src == dst:
        return "x"
    if dst == I64:
        return {F32: "l_from_f32(x)", I32: "l_from_i32(x)", BOOL: "l_from_bool(x)"}[src]
    if src == I64:  # int64 -> int32 keeps the low word (wraps, as NumPy's astype)
        return {F32: "l_to_f32(x)", I32: "bitcast<i32>(x.x)", BOOL: "l_nz(x)"}[dst]
    if src == F32 and dst == BOOL:
        return "!(x == 0.0)"  # NaN is true
    if src == F32 and dst == I32:
        # NumPy (C) truncates; out-of-range and NaN give INT_MIN on x86.
        return "select(i32(x), -2147483647 - 1, f_isnan(x) || abs(x) >= 2147483648.0)"
    return {F32: "f32(x)", I32: "i32(x)", BOOL: "bool(x)"}[dst]


def assign(dst, src):
    """dst[...] = src (broadcast to dst's shape), through any strided view."""
    if src.dtype != dst.dtype:
        raise unsupported(dst.device, "assign", src.dtype)
    if src.shape != dst.shape:
        src = broadcast_view(src, dst.shape, "setitem")
    if not dst.writeable:
        raise ValueError("tenferro.setitem: assignment destination is read-only (a broadcast "
                         "view)")
    if src.storage is dst.storage:
        src = contiguous_copy(src)
    run_elementwise("assign", "x", [src], dst.dtype, out=dst, shape=dst.shape)


def fill(out, value):
    """Set every element of ``out`` to ``value``; returns ``out``."""
    assign(out, from_numpy(np.full((), value, out.dtype), out.device))
    return out


def full(shape, dtype, value, device, op="full"):
    """A new array of ``shape`` filled with ``value``."""
    return fill(new(tuple(shape), dtype, device, op), value)


implementations["convert"] = _convert
implementations["copy"] = contiguous_copy
implementations["assign"] = assign
