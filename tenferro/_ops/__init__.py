"""tenferro's public ops (re-exported at the top level)."""
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
from .einsum import (einsum, einsum_path, einsum_cache_info, einsum_cache_clear,  # noqa
                     einsum_cache_resize, tensordot, inner, kron, trace)

from . import _methods  # noqa: F401,E402  (Tensor's constructor, operators, op methods)

# NumPy ufuncs that dispatch to tenferro when called on tensors (Tensor.__array_ufunc__).
NUMPY_UFUNCS = {n: globals()[n] for n in list(UNARY) + list(BINARY) if n in globals()}
NUMPY_UFUNCS.update({"absolute": _ew.abs, "conjugate": _ew.conj, "true_divide": _ew.divide,
                     "invert": _ew.bitwise_invert, "rint": _ew.rint, "matmul": matmul,
                     "multiply": _ew.multiply, "fmod": None})
NUMPY_UFUNCS = {k: v for k, v in NUMPY_UFUNCS.items() if v is not None}

__all__ = [n for n in globals() if not n.startswith("_") and n not in (
    "NotATensor", "NUMPY_UFUNCS", "UNARY", "BINARY", "inplace", "copy_into", "to_numpy",
    "store_out", "broadcast_shapes",
    "getitem", "setitem", "conversion", "creation", "elementwise", "shape", "indexing",
    "reduction", "joining", "sorting", "structural", "stacking")]
