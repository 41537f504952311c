"""tenferro's public ops (re-exported at the top level)."""
import typing as _typing

from ._common import NotATensor, AxisError, broadcast_shapes  # noqa: F401
from .conversion import (astype, copy, ascontiguousarray, is_contiguous, to_device,  # noqa
                         to_numpy, copy_into, store_out)
from .creation import (asarray, tensor, from_numpy, from_dlpack, from_col_major,  # noqa
                       from_vec_col_major, empty, full, zeros, ones, empty_like, zeros_like,
                       ones_like, full_like, arange, linspace, eye, identity, diag, tril, triu)
from .elementwise import UNARY, BINARY, where, clip, real, imag, angle, round, logsumexp, \
    inplace  # noqa: F401
from .elementwise import *  # noqa: F401,F403  (one function per table entry)
from . import elementwise as _ew
from .shape import (reshape, permute_dims, transpose, swapaxes, matrix_transpose,  # noqa
                    moveaxis, broadcast_to, broadcast_tensors, broadcast_arrays, expand_dims,
                    squeeze, diagonal, flip, ravel)
from .indexing import (take, take_along_axis, scatter_add, scatter_add_along_axis,  # noqa
                       nonzero, argwhere, flatnonzero, count_nonzero, getitem, setitem)
from .reduction import (sum, prod, max, min, amax, amin, any, all, argmax, argmin,  # noqa
                        cumsum, cumprod, mean, var, std)
from .joining import concatenate, concat, stack, pad  # noqa: F401
from .matmul import matmul, dot, vdot, outer  # noqa: F401
from .einsum import (einsum, einsum_path, einsum_cache_info, einsum_cache_clear,  # noqa
                     einsum_cache_resize, tensordot, inner, kron, trace)

from . import _methods  # noqa: F401,E402  (Tensor's constructor, operators, op methods)

# NumPy ufuncs that dispatch to tenferro when called on tensors (Tensor.__array_ufunc__).
NUMPY_UFUNCS = {n: globals()[n] for n in list(UNARY) + list(BINARY) if n in globals()}
NUMPY_UFUNCS.update({"absolute": _ew.abs, "conjugate": _ew.conj, "true_divide": _ew.divide,
                     "invert": _ew.bitwise_invert, "rint": _ew.rint, "matmul": matmul,
                     "multiply": _ew.multiply, "fmod": None})
NUMPY_UFUNCS = {k: v for k, v in NUMPY_UFUNCS.items() if v is not None}

if _typing.TYPE_CHECKING:   # the list below, for type checkers (tests/test_packaging.py compares)
    __all__ = [
        "AxisError", "abs", "absolute", "add", "all", "amax", "amin", "angle", "any",
        "arange", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctan2", "arctanh",
        "argmax", "argmin", "argwhere", "asarray", "ascontiguousarray", "astype", "atan2",
        "bitwise_and", "bitwise_invert", "bitwise_left_shift", "bitwise_not", "bitwise_or",
        "bitwise_right_shift", "bitwise_xor", "broadcast_arrays", "broadcast_tensors",
        "broadcast_to", "ceil", "clip", "concat", "concatenate", "conj", "conjugate",
        "copy", "copysign", "cos", "cosh", "count_nonzero", "cumprod", "cumsum", "diag",
        "diagonal", "divide", "dot", "einsum", "einsum_cache_clear", "einsum_cache_info",
        "einsum_cache_resize", "einsum_path", "empty", "empty_like", "equal", "erf", "exp",
        "exp2", "expand_dims", "expm1", "eye", "flatnonzero", "flip", "floor",
        "floor_divide", "fmax", "fmin", "from_col_major", "from_dlpack", "from_numpy",
        "from_vec_col_major", "full", "full_like", "greater", "greater_equal", "hypot",
        "identity", "imag", "inner", "invert", "is_contiguous", "isfinite", "isinf",
        "isnan", "kron", "left_shift", "less", "less_equal", "linspace", "log", "log10",
        "log1p", "log2", "logaddexp", "logical_and", "logical_not", "logical_or",
        "logical_xor", "logsumexp", "matmul", "matrix_transpose", "max", "maximum", "mean",
        "min", "minimum", "mod", "moveaxis", "multiply", "negative", "nonzero", "not_equal",
        "ones", "ones_like", "outer", "pad", "permute_dims", "positive", "pow", "power",
        "prod", "ravel", "real", "reciprocal", "remainder", "reshape", "right_shift",
        "rint", "round", "rsqrt", "scatter_add", "scatter_add_along_axis", "sigmoid",
        "sign", "sin", "sinh", "sqrt", "square", "squeeze", "stack", "std", "subtract",
        "sum", "swapaxes", "take", "take_along_axis", "tan", "tanh", "tensor", "tensordot",
        "to_device", "trace", "transpose", "tril", "triu", "true_divide", "trunc", "var",
        "vdot", "where", "zeros", "zeros_like"]
else:
    __all__ = [n for n in globals() if not n.startswith("_") and n not in (
        "NotATensor", "NUMPY_UFUNCS", "UNARY", "BINARY", "inplace", "copy_into", "to_numpy",
        "store_out", "broadcast_shapes",
        "getitem", "setitem", "conversion", "creation", "elementwise", "shape", "indexing",
        "reduction", "joining")]
