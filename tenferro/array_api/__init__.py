"""tenferro.array_api: the Array API standard (2024.12) namespace for tenferro tensors.

``t.__array_namespace__()`` returns this module, so libraries written against the
standard (scikit-learn with ``array_api_dispatch=True``, array-api-compat, SciPy's
array-API paths) run on tenferro tensors.  Where NumPy's semantics and the standard's
differ, this namespace follows the standard and the top-level ``tenferro`` keeps
NumPy's; docs/array_api.md lists the differences and the conformance figures.
The ``linalg`` and ``fft`` extensions are here (imported on first use).  Everything is
annotated with the standard's signatures (its ``array`` is :class:`tenferro.Tensor`).
"""
from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from .. import _ops
from .._dtypes import bool_ as bool, int32, int64, float32, float64, complex64, complex128  # noqa
from .._tensor import Tensor
from ._functions import *  # noqa: F401,F403
from ._info import __array_namespace_info__  # noqa: F401

__array_api_version__ = "2024.12"

# tenferro's ops whose NumPy signature and semantics are the standard's
_SAME = """abs add atan2 bitwise_and bitwise_left_shift bitwise_invert bitwise_or
bitwise_right_shift bitwise_xor ceil conj copysign cos cosh divide equal exp floor
greater greater_equal hypot imag isfinite isinf isnan less less_equal log
log1p log2 log10 logaddexp logical_and logical_not logical_or logical_xor maximum minimum
multiply negative not_equal positive pow real reciprocal remainder sign sin sinh square
sqrt subtract tan trunc all any max mean min prod sum argmax argmin count_nonzero
nonzero where empty full ones zeros tril triu broadcast_arrays broadcast_to expand_dims
flip moveaxis permute_dims reshape squeeze stack take matmul matrix_transpose
tensordot repeat roll tile searchsorted unique_all unique_counts unique_inverse
unique_values asarray arange eye linspace empty_like zeros_like ones_like full_like
from_dlpack round""".split()
globals().update({n: getattr(_ops, n) for n in _SAME})
# ... and those the standard names differently
_RENAMED = {"acos": "arccos", "acosh": "arccosh", "asin": "arcsin", "asinh": "arcsinh",
            "atan": "arctan", "atanh": "arctanh"}
globals().update({std_name: getattr(_ops, np_name) for std_name, np_name in _RENAMED.items()})

if TYPE_CHECKING:
    # Type checkers do not run the globals().update above: the same names, imported
    # (tests/test_packaging.py checks them against _SAME and _RENAMED).
    import types

    from .._ops import (  # noqa: F401
        abs, add, all, any, arange, argmax, argmin, asarray, atan2, bitwise_and,
        bitwise_invert, bitwise_left_shift, bitwise_or, bitwise_right_shift, bitwise_xor,
        broadcast_arrays, broadcast_to, ceil, conj, copysign, cos, cosh, count_nonzero,
        divide, empty, empty_like, equal, exp, expand_dims, eye, flip, floor, from_dlpack,
        full, full_like, greater, greater_equal, hypot, imag, isfinite, isinf, isnan, less,
        less_equal, linspace, log, log1p, log2, log10, logaddexp, logical_and, logical_not,
        logical_or, logical_xor, matmul, matrix_transpose, max, maximum, mean, min, minimum,
        moveaxis, multiply, negative, nonzero, not_equal, ones, ones_like, permute_dims,
        positive, pow, prod, real, reciprocal, remainder, repeat, reshape, roll, round,
        searchsorted, sign, sin, sinh, sqrt, square, squeeze, stack, subtract, sum, take,
        tan, tensordot, tile, tril, triu, trunc, unique_all, unique_counts,
        unique_inverse, unique_values, where, zeros, zeros_like)
    from .._ops import (  # noqa: F401
        arccos as acos, arccosh as acosh, arcsin as asin, arcsinh as asinh, arctan as atan,
        arctanh as atanh)
    from .._tensor import DeviceLike
    from . import fft, linalg  # noqa: F401

_EXTENSIONS = ("linalg", "fft")


def __getattr__(name: str) -> types.ModuleType:
    if name in _EXTENSIONS:   # imported on first use: `import tenferro` stays fast
        import importlib

        return importlib.import_module(__name__ + "." + name)
    raise AttributeError("module 'tenferro.array_api' has no attribute %r" % name)


def _array_namespace(self: Tensor, /, *, api_version: str | None = None) -> types.ModuleType:
    """:mod:`tenferro.array_api`, the Array API namespace of tenferro's tensors."""
    if api_version is not None and api_version not in ("2021.12", "2022.12", "2023.12",
                                                       "2024.12"):
        raise ValueError("Tensor.__array_namespace__: unsupported api_version %r; "
                         "tenferro.array_api implements 2024.12" % (api_version,))
    return sys.modules[__name__]


def _to_device(self: Tensor, device: DeviceLike, /, *, stream: None = None) -> Tensor:
    """The tensor on ``device`` (the Array API standard's name for ``t.to(device)``;
    ``stream`` must be None: tenferro has no streams)."""
    if stream is not None:
        raise ValueError("Tensor.to_device: tenferro has no streams, got stream=%r"
                         % (stream,))
    return _ops.to_device(self, device)


Tensor.__array_namespace__ = _array_namespace
if not hasattr(Tensor, "to_device"):
    Tensor.to_device = _to_device

if TYPE_CHECKING:   # the list below, for type checkers (tests/test_packaging.py compares)
    __all__ = [
        "__array_api_version__", "__array_namespace_info__", "abs", "acos", "acosh", "add",
        "all", "any", "arange", "argmax", "argmin", "argsort", "asarray", "asin", "asinh",
        "astype", "atan", "atan2", "atanh", "bitwise_and", "bitwise_invert",
        "bitwise_left_shift", "bitwise_or", "bitwise_right_shift", "bitwise_xor", "bool",
        "broadcast_arrays", "broadcast_to", "can_cast", "ceil", "clip", "complex128",
        "complex64", "concat", "conj", "copysign", "cos", "cosh", "count_nonzero",
        "cumulative_prod", "cumulative_sum", "diff", "divide", "e", "empty", "empty_like",
        "equal", "exp", "expand_dims", "expm1", "eye", "finfo", "flip", "float32",
        "float64", "floor", "floor_divide", "from_dlpack", "full", "full_like", "greater",
        "greater_equal", "hypot", "iinfo", "imag", "inf", "int32", "int64", "isdtype",
        "isfinite", "isinf", "isnan", "less", "less_equal", "linspace", "log", "log10",
        "log1p", "log2", "logaddexp", "logical_and", "logical_not", "logical_or",
        "logical_xor", "matmul", "matrix_transpose", "max", "maximum", "mean", "meshgrid",
        "min", "minimum", "moveaxis", "multiply", "nan", "negative", "newaxis", "nextafter",
        "nonzero", "not_equal", "ones", "ones_like", "permute_dims", "pi", "positive",
        "pow", "prod", "real", "reciprocal", "remainder", "repeat", "reshape",
        "result_type", "roll", "round", "searchsorted", "sign", "signbit", "sin", "sinh",
        "sort", "sqrt", "square", "squeeze", "stack", "std", "subtract", "sum", "take",
        "take_along_axis", "tan", "tanh", "tensordot", "tile", "tril", "triu", "trunc",
        "unique_all", "unique_counts", "unique_inverse", "unique_values", "unstack", "var",
        "vecdot", "where", "zeros", "zeros_like"]
else:
    __all__ = sorted(n for n in globals() if (not n.startswith("_") or n in (
        "__array_api_version__", "__array_namespace_info__")) and n not in (
        "sys", "Tensor", "annotations", "TYPE_CHECKING"))
