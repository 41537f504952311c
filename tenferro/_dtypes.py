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
    """The tenferro dtype named by ``obj`` (``numpy.dtype``, restricted to tenferro's seven).

    tenferro's dtypes are NumPy dtype objects (``tf.float64 is np.dtype("float64")``):
    bool, int32, int64, float32, float64, complex64 and complex128.  Names, Python
    types (``float`` is float64, ``int`` int64, ``complex`` complex128), NumPy types
    and dtypes are accepted, as are NumPy's aliases ``"double"``, ``"single"``,
    ``"cfloat"`` and ``"cdouble"``.

    Parameters
    ----------
    obj : str, type or numpy.dtype
        What names the dtype.

    Returns
    -------
    numpy.dtype
        One of tenferro's seven dtypes.

    Raises
    ------
    TypeError
        If ``obj`` names no dtype, or one tenferro does not have (float16, int8,
        uint8, ...; :func:`asarray` widens such arrays).

    Notes
    -----
    Differentiable: no; it works on dtypes, not values.

    See Also
    --------
    numpy.dtype, result_type, finfo, iinfo

    Examples
    --------
    >>> tf.dtype("float")
    dtype('float64')
    >>> tf.dtype(np.complex64) is tf.complex64
    True
    """
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
    """The dtype that NumPy 2's type promotion gives for ``args`` (``numpy.result_type``).

    Tensors, ndarrays and dtypes count by their dtype; Python scalars are weakly typed,
    as in NumPy 2 and the Array API: ``float32 tensor + 1.0`` stays float32, while
    ``int32 + float32`` gives float64.  NumPy dtypes tenferro lacks are widened
    (int8 to int32, ...).

    Parameters
    ----------
    *args : Tensor, ndarray, dtype, str or Python scalar
        The operands (at least one).

    Returns
    -------
    numpy.dtype
        One of tenferro's seven dtypes.

    Raises
    ------
    ValueError
        If no argument is given.
    TypeError
        If an argument names no tenferro dtype.

    Notes
    -----
    Differentiable: no; it works on dtypes, not values.

    See Also
    --------
    numpy.result_type, can_cast, dtype

    Examples
    --------
    >>> tf.result_type(tf.zeros(2, dtype="float32"), 1.0)
    dtype('float32')
    >>> tf.result_type("int32", "float32")
    dtype('float64')
    """
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
    """Whether a cast from ``from_`` to ``to`` is allowed under ``casting``
    (``numpy.can_cast`` on dtypes).

    Parameters
    ----------
    from_ : dtype, str or type
        The source dtype.
    to : dtype, str or type
        The target dtype.
    casting : {"no", "equiv", "safe", "same_kind", "unsafe"}, default "safe"
        NumPy's casting rule: ``"safe"`` keeps every value, ``"same_kind"`` allows
        float64 to float32, ``"unsafe"`` anything.

    Returns
    -------
    bool
        Whether the cast is allowed.

    Raises
    ------
    TypeError
        If a dtype is not a tenferro dtype.
    ValueError
        If ``casting`` is not one of the five rules.

    Notes
    -----
    Differentiable: no; it works on dtypes, not values.

    See Also
    --------
    numpy.can_cast, astype, result_type

    Examples
    --------
    >>> tf.can_cast("int32", "float64"), tf.can_cast("float64", "float32")
    (True, False)
    >>> tf.can_cast("float64", "float32", casting="same_kind")
    True
    """
    return np.can_cast(dtype(from_), dtype(to), casting=casting)


def finfo(d: Any) -> np.finfo[Any]:
    """Machine limits of a floating-point or complex dtype (``numpy.finfo``).

    Parameters
    ----------
    d : dtype, str or type
        float32, float64, complex64 or complex128 (a complex dtype gives its real
        part's limits).

    Returns
    -------
    numpy.finfo
        With ``eps``, ``tiny``/``smallest_normal``, ``max``, ``min``, ``resolution``,
        ``bits``, ``dtype``, ...

    Raises
    ------
    TypeError
        If ``d`` is not a tenferro dtype.
    ValueError
        If ``d`` is an integer or bool dtype (use :func:`iinfo`).

    Notes
    -----
    Differentiable: no; it works on dtypes, not values.

    See Also
    --------
    numpy.finfo, iinfo

    Examples
    --------
    >>> float(tf.finfo("float32").eps)
    1.1920928955078125e-07
    """
    return np.finfo(dtype(d))


def iinfo(d: Any) -> np.iinfo[Any]:
    """Machine limits of an integer dtype (``numpy.iinfo``).

    Parameters
    ----------
    d : dtype, str or type
        int32 or int64.

    Returns
    -------
    numpy.iinfo
        With ``min``, ``max``, ``bits`` and ``dtype``.

    Raises
    ------
    TypeError
        If ``d`` is not a tenferro dtype.
    ValueError
        If ``d`` is not an integer dtype (use :func:`finfo`).

    Notes
    -----
    Differentiable: no; it works on dtypes, not values.

    See Also
    --------
    numpy.iinfo, finfo

    Examples
    --------
    >>> tf.iinfo("int32").max
    2147483647
    """
    return np.iinfo(dtype(d))
