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
from .sorting import (sort, argsort, searchsorted, digitize, unique, unique_values,  # noqa
                      unique_counts, unique_inverse, unique_all)
from .structural import (diff, ediff1d, gradient, roll, repeat, tile, flipud, fliplr,  # noqa
                         rot90, append, insert, delete)
from .stacking import (hstack, vstack, dstack, column_stack, split, array_split, hsplit,  # noqa
                       vsplit, dsplit, meshgrid, indices)
from .matmul import matmul, dot, vdot, outer  # noqa: F401
from .comparison import isclose, allclose, array_equal, array_equiv  # noqa: F401
from .einsum import (einsum, einsum_path, einsum_cache_info, einsum_cache_clear,  # noqa
                     einsum_cache_resize, tensordot, inner, kron, trace)

from .statistics import *  # noqa: F401,F403  (statistics, nan-reductions, calculus)
if _typing.TYPE_CHECKING:   # what statistics re-exports (mypy cannot add up its __all__)
    from .calculus import *  # noqa: F401,F403
    from .nanfunctions import *  # noqa: F401,F403
    from .quantiles import *  # noqa: F401,F403

from . import _methods  # noqa: F401,E402  (Tensor's constructor, operators, op methods)

# NumPy ufuncs that dispatch to tenferro when called on tensors (Tensor.__array_ufunc__).
NUMPY_UFUNCS = {n: globals()[n] for n in list(UNARY) + list(BINARY) if n in globals()}
NUMPY_UFUNCS.update({"absolute": _ew.abs, "conjugate": _ew.conj, "true_divide": _ew.divide,
                     "invert": _ew.bitwise_invert, "rint": _ew.rint, "matmul": matmul,
                     "multiply": _ew.multiply, "fmod": None})
NUMPY_UFUNCS = {k: v for k, v in NUMPY_UFUNCS.items() if v is not None}

if _typing.TYPE_CHECKING:   # the list below, for type checkers (tests/test_packaging.py compares)
    __all__ = [
        "AxisError", "abs", "absolute", "add", "all", "allclose", "amax", "amin", "angle",
        "any", "append", "arange", "arccos", "arccosh", "arcsin", "arcsinh",
        "arctan", "arctan2", "arctanh", "argmax", "argmin", "argsort", "argwhere",
        "array_equal", "array_equiv", "array_split", "asarray", "ascontiguousarray", "astype", "atan2", "average",
        "bincount", "bitwise_and", "bitwise_invert", "bitwise_left_shift",
        "bitwise_not", "bitwise_or", "bitwise_right_shift", "bitwise_xor",
        "broadcast_arrays", "broadcast_tensors", "broadcast_to", "ceil", "clip",
        "column_stack", "concat", "concatenate", "conj", "conjugate", "copy",
        "copysign", "corrcoef", "cos", "cosh", "count_nonzero", "cov", "cross",
        "cumprod", "cumsum", "delete", "diag", "diagonal", "diff", "digitize",
        "divide", "dot", "dsplit", "dstack", "ediff1d", "einsum",
        "einsum_cache_clear", "einsum_cache_info", "einsum_cache_resize",
        "einsum_path", "empty", "empty_like", "equal", "erf", "exp", "exp2",
        "expand_dims", "expm1", "eye", "flatnonzero", "flip", "fliplr", "flipud",
        "floor", "floor_divide", "fmax", "fmin", "from_col_major", "from_dlpack",
        "from_numpy", "from_vec_col_major", "full", "full_like", "gradient",
        "greater", "greater_equal", "histogram", "hsplit", "hstack", "hypot",
        "identity", "imag", "indices", "inner", "insert", "interp", "invert",
        "is_contiguous", "isclose", "isfinite", "isinf", "isnan", "kron", "left_shift", "less",
        "less_equal", "linspace", "log", "log10", "log1p", "log2", "logaddexp",
        "logical_and", "logical_not", "logical_or", "logical_xor", "logsumexp",
        "matmul", "matrix_transpose", "max", "maximum", "mean", "median",
        "meshgrid", "min", "minimum", "mod", "moveaxis", "multiply", "nan_to_num",
        "nanargmax", "nanargmin", "nancumprod", "nancumsum", "nanmax", "nanmean",
        "nanmedian", "nanmin", "nanpercentile", "nanprod", "nanquantile", "nanstd",
        "nansum", "nanvar", "negative", "nonzero", "not_equal", "ones", "ones_like",
        "outer", "pad", "percentile", "permute_dims", "polyval", "positive", "pow",
        "power", "prod", "quantile", "ravel", "real", "reciprocal", "remainder",
        "repeat", "reshape", "right_shift", "rint", "roll", "rot90", "round",
        "rsqrt", "scatter_add", "scatter_add_along_axis", "searchsorted", "sigmoid",
        "sign", "sin", "sinh", "sort", "split", "sqrt", "square", "squeeze",
        "stack", "std", "subtract", "sum", "swapaxes", "take", "take_along_axis",
        "tan", "tanh", "tensor", "tensordot", "tile", "to_device", "trace",
        "transpose", "trapezoid", "tril", "triu", "true_divide", "trunc", "unique",
        "unique_all", "unique_counts", "unique_inverse", "unique_values", "var",
        "vdot", "vsplit", "vstack", "where", "zeros", "zeros_like"]
else:
    __all__ = [n for n in globals() if not n.startswith("_") and n not in (
        "NotATensor", "NUMPY_UFUNCS", "UNARY", "BINARY", "inplace", "copy_into", "to_numpy",
        "store_out", "broadcast_shapes",
        "getitem", "setitem", "conversion", "creation", "elementwise", "shape", "indexing",
        "reduction", "joining", "sorting", "structural", "stacking", "statistics",
        "nanfunctions", "calculus", "quantiles", "comparison")]
