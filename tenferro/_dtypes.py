"""tenferro's dtypes and NumPy 2 type promotion.

tenferro's dtypes *are* NumPy dtype objects (``tenferro.float64 is
numpy.dtype('float64')``), restricted to the seven that tenferro (and tenferro-rs)
support.  Promotion follows NumPy 2 exactly -- Python scalars are weakly typed, as in
NumPy 2 and the Array API -- because it is computed by NumPy's own ufunc type
resolution and cached.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from typing import Any, Literal

bool_ = np.dtype(np.bool_)
int32 = np.dtype(np.int32)
int64 = np.dtype(np.int64)
float32 = np.dtype(np.float32)
float64 = np.dtype(np.float64)
complex64 = np.dtype(np.complex64)
complex128 = np.dtype(np.complex128)

DTYPES = (bool_, int32, int64, float32, float64, complex64, complex128)
_SUPPORTED = frozenset(DTYPES)
_NAMES = {d.name: d for d in DTYPES}
_NAMES.update({"bool_": bool_, "float": float64, "int": int64, "complex": complex128,
               "double": float64, "single": float32, "cfloat": complex64,
               "cdouble": complex128})

# NumPy dtypes tenferro does not have, mapped to the nearest one that holds them.
_WIDEN = {np.dtype(t): d for t, d in [
    (np.float16, float32), (np.int8, int32), (np.int16, int32), (np.uint8, int32),
    (np.uint16, int32), (np.uint32, int64)]}

_PYTYPES = {bool: bool_, int: int64, float: float64, complex: complex128}

WEAK_TYPES = (bool, int, float, complex)

_KIND_RANK = {"b": 0, "i": 1, "u": 1, "f": 2, "c": 3}

_cache = {}


def dtype(obj: Any) -> np.dtype[Any]:
    """Return the tenferro dtype named by ``obj`` (a dtype, name, type or NumPy dtype)."""
    try:
        return _cache[obj]
    except (KeyError, TypeError):
        pass
    if isinstance(obj, str) and obj in _NAMES:
        d = _NAMES[obj]
    elif obj in _PYTYPES:
        d = _PYTYPES[obj]
    else:
        try:
            d = np.dtype(obj)
        except TypeError:
            raise TypeError("tenferro.dtype: cannot interpret %r as a dtype; expected one "
                            "of %s" % (obj, ", ".join(x.name for x in DTYPES))) from None
        if d not in _SUPPORTED:
            raise TypeError("tenferro.dtype: %s is not a tenferro dtype; expected one of %s"
                            % (d, ", ".join(x.name for x in DTYPES)))
    try:
        _cache[obj] = d
    except TypeError:
        pass
    return d


def from_numpy_dtype(d):
    """The tenferro dtype that stores a NumPy array of dtype ``d`` (widening if needed)."""
    if d in _SUPPORTED:
        return d
    if not d.isnative:  # byte-swapped data is stored (converted) in native order
        return from_numpy_dtype(d.newbyteorder("="))
    w = _WIDEN.get(d)
    if w is None:
        raise TypeError("tenferro: NumPy dtype %s has no tenferro counterpart; expected one "
                        "of %s" % (d, ", ".join(x.name for x in DTYPES)))
    return w


def canon(d):
    """Map a dtype NumPy's resolution produced onto tenferro's set (float16 -> float32)."""
    return d if d in _SUPPORTED else _WIDEN[d]


def real_dtype(d):
    """float32 for complex64, float64 for complex128, the dtype itself otherwise."""
    if d.kind == "c":
        return float32 if d == complex64 else float64
    return d


def result_type(*args: Any) -> np.dtype[Any]:
    """NumPy 2 promotion over tensors, dtypes and weakly-typed Python scalars."""
    from ._tensor import Tensor

    ops = []
    for a in args:
        if isinstance(a, Tensor):
            ops.append(a.dtype)
        elif isinstance(a, WEAK_TYPES) and not isinstance(a, np.generic):
            ops.append(type(a))
        elif isinstance(a, (np.ndarray, np.generic)):
            ops.append(from_numpy_dtype(a.dtype))
        else:
            ops.append(dtype(a))
    if not ops:
        raise ValueError("tenferro.result_type: at least one array or dtype is required")
    return canon(np.result_type(*[_np_operand(o) for o in ops]))


def _np_operand(o):
    # np.result_type treats Python scalar *values* weakly, not Python types.
    if o is bool:
        return False
    if o is int:
        return 0
    if o is float:
        return 0.0
    if o is complex:
        return 0j
    return o


def can_cast(from_: Any, to: Any,
             casting: Literal["no", "equiv", "safe", "same_kind", "unsafe"] = "safe") -> bool:
    return np.can_cast(dtype(from_), dtype(to), casting=casting)


def finfo(d: Any) -> np.finfo[Any]:
    return np.finfo(dtype(d))


def iinfo(d: Any) -> np.iinfo[Any]:
    return np.iinfo(dtype(d))
