"""The Array API's data type functions: ``astype``, ``can_cast``, ``finfo``, ``iinfo``,
``isdtype``, ``result_type`` (NumPy's rules, the standard's signatures and results)."""
from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from .. import _dtypes, _ops
from .._tensor import Tensor

if TYPE_CHECKING:
    from typing import Any, Union

    import numpy as np

    from .._tensor import DeviceLike, DTypeLike

    DTypeKind = Union[DTypeLike, str, tuple[Union[DTypeLike, str], ...]]

__all__ = ["astype", "can_cast", "finfo", "iinfo", "isdtype", "result_type"]


def _dtype_of(x: Any) -> np.dtype[Any]:
    return x.dtype if isinstance(x, Tensor) else _dtypes.dtype(x)


def astype(x: Tensor, dtype: DTypeLike, /, *, copy: bool = True,
           device: DeviceLike = None) -> Tensor:
    """``x`` cast to ``dtype`` and, if asked, moved to ``device`` (the standard's
    ``astype``; NumPy's is the method ``x.astype``).

    Parameters
    ----------
    x : Tensor
        The tensor to cast.
    dtype : dtype
        The target dtype; casts follow NumPy's ``unsafe`` rule (float to int
        truncates towards zero).
    copy : bool, default True
        False: return ``x`` itself when it already has ``dtype`` (and ``device``).
    device : Device or str, optional
        Move the result there too.

    Returns
    -------
    Tensor
        ``x``'s values in ``dtype`` on ``device``.

    Raises
    ------
    TypeError
        If ``dtype`` is not a tenferro dtype.

    Notes
    -----
    Differentiable: yes between floating and complex dtypes (the rule casts the
    cotangent back); integer and bool results carry no gradient.

    Examples
    --------
    >>> xp = tf.array_api
    >>> xp.astype(xp.asarray([1.7, -1.7]), xp.int32)
    tensor([ 1, -1], dtype=int32)
    """
    out = _ops.astype(x, dtype, copy=copy)
    return out if device is None else _ops.to_device(out, device)


def can_cast(from_: DTypeLike | Tensor, to: DTypeLike, /) -> bool:
    """Whether ``from_`` casts to ``to`` without loss under the standard's type
    promotion (NumPy's ``can_cast`` with ``casting="safe"``).

    Parameters
    ----------
    from_ : dtype or Tensor
        The source dtype, or a tensor of it.
    to : dtype
        The target dtype.

    Returns
    -------
    bool
        True if every value of ``from_`` is representable in ``to``.

    Raises
    ------
    TypeError
        If a dtype is not a tenferro dtype.

    Examples
    --------
    >>> xp = tf.array_api
    >>> xp.can_cast(xp.int32, xp.float64), xp.can_cast(xp.float64, xp.float32)
    (True, False)
    """
    return _dtypes.can_cast(_dtype_of(from_), _dtypes.dtype(to))


class finfo_object(NamedTuple):
    """What :func:`finfo` returns (the standard's fields, as Python numbers)."""

    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: np.dtype[Any]


class iinfo_object(NamedTuple):
    """What :func:`iinfo` returns (the standard's fields, as Python ints)."""

    bits: int
    max: int
    min: int
    dtype: np.dtype[Any]


def finfo(type: DTypeLike | Tensor, /) -> finfo_object:
    """Machine limits of a floating or complex dtype (the standard's ``finfo``).

    Parameters
    ----------
    type : dtype or Tensor
        A floating or complex dtype, or a tensor of one (complex gives its real
        part's limits).

    Returns
    -------
    finfo_object
        A named tuple ``(bits, eps, max, min, smallest_normal, dtype)``, the numbers
        as Python floats.

    Raises
    ------
    ValueError
        If ``type`` is not a floating or complex dtype.

    Examples
    --------
    >>> xp = tf.array_api
    >>> f = xp.finfo(xp.float32)
    >>> f.bits, f.eps == 2.0 ** -23
    (32, True)
    """
    dt = _dtype_of(type)
    if dt.kind not in "fc":
        raise ValueError("tenferro.array_api.finfo: expected a floating or complex dtype, "
                         "got %s" % dt)
    f = _dtypes.finfo(dt)
    return finfo_object(int(f.bits), float(f.eps), float(f.max), float(f.min),
                        float(f.smallest_normal), _dtypes.dtype(f.dtype))


def iinfo(type: DTypeLike | Tensor, /) -> iinfo_object:
    """Limits of an integer dtype (the standard's ``iinfo``).

    Parameters
    ----------
    type : dtype or Tensor
        An integer dtype, or a tensor of one.

    Returns
    -------
    iinfo_object
        A named tuple ``(bits, max, min, dtype)``.

    Raises
    ------
    ValueError
        If ``type`` is not an integer dtype.

    Examples
    --------
    >>> xp = tf.array_api
    >>> xp.iinfo(xp.int32).max
    2147483647
    """
    dt = _dtype_of(type)
    if dt.kind not in "iu":
        raise ValueError("tenferro.array_api.iinfo: expected an integer dtype, got %s" % dt)
    i = _dtypes.iinfo(dt)
    return iinfo_object(int(i.bits), int(i.max), int(i.min), _dtypes.dtype(i.dtype))


KINDS = {"bool": "b", "signed integer": "i", "unsigned integer": "u", "integral": "iu",
          "real floating": "f", "complex floating": "c", "numeric": "iufc"}


def isdtype(dtype: DTypeLike, kind: DTypeKind) -> bool:
    """Whether ``dtype`` is of ``kind`` (the standard's ``isdtype``).

    Parameters
    ----------
    dtype : dtype
        The dtype to test.
    kind : str, dtype or tuple of them
        A kind name ("bool", "signed integer", "unsigned integer", "integral", "real
        floating", "complex floating", "numeric"), a dtype (equality), or a tuple of
        these (any matches).

    Returns
    -------
    bool
        True if ``dtype`` is of ``kind``.

    Raises
    ------
    ValueError
        If a kind name is not one of the above.

    Examples
    --------
    >>> xp = tf.array_api
    >>> xp.isdtype(xp.float32, "real floating"), xp.isdtype(xp.int64, ("bool", "numeric"))
    (True, True)
    >>> xp.isdtype(xp.complex64, "real floating")
    False
    """
    dtype = _dtypes.dtype(dtype)
    if isinstance(kind, tuple):
        return any(isdtype(dtype, k) for k in kind)
    if isinstance(kind, str):
        if kind not in KINDS:
            raise ValueError("tenferro.array_api.isdtype: unknown kind %r; expected one of %s"
                             % (kind, ", ".join(KINDS)))
        return dtype.kind in KINDS[kind]
    return dtype == _dtypes.dtype(kind)


def result_type(*arrays_and_dtypes: Tensor | complex | DTypeLike) -> np.dtype[Any]:
    """The dtype the standard's type promotion gives for these arrays, dtypes and
    Python scalars (NumPy's ``result_type``; Python scalars are weak, NEP 50).

    Parameters
    ----------
    *arrays_and_dtypes : Tensor, dtype or Python scalar
        At least one.

    Returns
    -------
    numpy.dtype
        The promoted dtype.

    Raises
    ------
    ValueError
        If nothing is given.

    Examples
    --------
    >>> xp = tf.array_api
    >>> xp.result_type(xp.int32, xp.float32)
    dtype('float64')
    >>> xp.result_type(xp.ones(2, dtype=xp.float32), 1.0)
    dtype('float32')
    """
    if not arrays_and_dtypes:
        raise ValueError("tenferro.array_api.result_type: at least one array or dtype needed")
    return _dtypes.result_type(*arrays_and_dtypes)
