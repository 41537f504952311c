"""The Array API functions whose signature or semantics differ from tenferro's NumPy ones.

Each wraps tenferro's op (so it stays differentiable and runs on every device);
functions tenferro does not have yet come from :func:`._host.pick`.  The annotations
are the standard's (its ``array`` is :class:`tenferro.Tensor`).
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, NamedTuple

from .. import _dtypes, _ops
from .._tensor import Tensor
from ._host import pick

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any, Literal, Protocol, Union

    import numpy as np

    from .._tensor import DeviceLike, DTypeLike

    Scalar = Union[int, float]
    DTypeKind = Union[DTypeLike, str, tuple[Union[DTypeLike, str], ...]]

    class _Cumulative(Protocol):
        """cumulative_sum's and cumulative_prod's signature (the standard's)."""
        def __call__(self, x: Tensor, /, *, axis: int | None = None,
                     dtype: DTypeLike = None, include_initial: bool = False) -> Tensor: ...

__all__ = ["meshgrid", "astype", "can_cast", "finfo", "iinfo", "isdtype", "result_type",
           "clip", "signbit", "floor_divide", "expm1", "tanh", "nextafter", "std", "var",
           "cumulative_sum", "cumulative_prod", "concat", "unstack", "vecdot",
           "take_along_axis", "diff", "argsort", "sort", "e", "pi", "inf", "nan", "newaxis"]


def _dtype_of(x: Any) -> np.dtype[Any]:
    return x.dtype if isinstance(x, Tensor) else _dtypes.dtype(x)


# ---------------------------------------------------------------- creation

def meshgrid(*arrays: Tensor, indexing: Literal["xy", "ij"] = "xy") -> list[Tensor]:
    """NumPy's meshgrid as the standard's list (NumPy returns a tuple)."""
    return list(_ops.meshgrid(*arrays, indexing=indexing))


# ---------------------------------------------------------------- data types

def astype(x: Tensor, dtype: DTypeLike, /, *, copy: bool = True,
           device: DeviceLike = None) -> Tensor:
    out = _ops.astype(x, dtype, copy=copy)
    return out if device is None else _ops.to_device(out, device)


def can_cast(from_: DTypeLike | Tensor, to: DTypeLike, /) -> bool:
    return _dtypes.can_cast(_dtype_of(from_), _dtypes.dtype(to))


class finfo_object(NamedTuple):
    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: np.dtype[Any]


class iinfo_object(NamedTuple):
    bits: int
    max: int
    min: int
    dtype: np.dtype[Any]


def finfo(type: DTypeLike | Tensor, /) -> finfo_object:
    f = _dtypes.finfo(_dtype_of(type))
    return finfo_object(int(f.bits), float(f.eps), float(f.max), float(f.min),
                        float(f.smallest_normal), _dtypes.dtype(f.dtype))


def iinfo(type: DTypeLike | Tensor, /) -> iinfo_object:
    i = _dtypes.iinfo(_dtype_of(type))
    return iinfo_object(int(i.bits), int(i.max), int(i.min), _dtypes.dtype(i.dtype))


KINDS = {"bool": "b", "signed integer": "i", "unsigned integer": "u", "integral": "iu",
          "real floating": "f", "complex floating": "c", "numeric": "iufc"}


def isdtype(dtype: DTypeLike, kind: DTypeKind) -> bool:
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
    if not arrays_and_dtypes:
        raise ValueError("tenferro.array_api.result_type: at least one array or dtype needed")
    return _dtypes.result_type(*arrays_and_dtypes)


# ---------------------------------------------------------------- elementwise

def clip(x: Tensor, /, min: Scalar | Tensor | None = None,
         max: Scalar | Tensor | None = None) -> Tensor:
    """Clamp to [min, max]; the result keeps ``x``'s dtype (NumPy would promote)."""
    out = x
    for bound, beyond in ((min, _ops.less), (max, _ops.greater)):
        if bound is not None:
            if isinstance(bound, Tensor):
                bound = _ops.astype(bound, x.dtype, copy=False)
            out = _ops.where(beyond(out, bound), bound, out)
    return _ops.astype(out, x.dtype, copy=False)


def signbit(x: Tensor, /) -> Tensor:
    return _ops.less(_ops.copysign(_ops.ones((), dtype=x.dtype, device=x.device), x), 0)


def floor_divide(x1: Tensor | Scalar, x2: Tensor | Scalar, /) -> Tensor:
    """NumPy's floor_divide, except with an infinite operand, where the standard wants
    floor(x1 / x2) (inf // 2 is inf, not NumPy's nan; 1 // -inf is -0, not -1)."""
    out = _ops.floor_divide(x1, x2)
    if out.dtype.kind != "f":
        return out
    inf = [_ops.isinf(v) if isinstance(v, Tensor) else math.isinf(v) for v in (x1, x2)]
    return _ops.where(inf[0] | inf[1], _ops.floor(_ops.divide(x1, x2)), out)


def expm1(x: Tensor, /) -> Tensor:
    """exp(x) - 1; for complex ``x`` the standard's special values: those of exp(x) - 1
    where ``x`` is not finite (NumPy's complex expm1 gives nan), and +0 + 0j (not
    NumPy's -0 + 0j) at -0 + 0j."""
    out = _ops.expm1(x)
    if x.dtype.kind != "c":
        return out
    out = _ops.where(_ops.isfinite(x), out, _ops.subtract(_ops.exp(x), 1))
    return _ops.where(_ops.equal(x, 0), _ops.subtract(x, _ops.real(x)), out)


def tanh(x: Tensor, /) -> Tensor:
    """tanh(x); for complex ``x`` with an infinite real part and a finite imaginary one
    the standard's +-1 + 0j with the zero signed as imag(x) (NumPy's and C99's sign is
    that of sin(2 imag(x)))."""
    out = _ops.tanh(x)
    if x.dtype.kind != "c":
        return out
    b = _ops.imag(x)
    wrong = _ops.isinf(_ops.real(x)) & _ops.isfinite(b) & (signbit(_ops.imag(out)) != signbit(b))
    return _ops.where(wrong, _ops.conj(out), out)


_nextafter = pick("nextafter")


def nextafter(x1: Tensor | Scalar, x2: Tensor | Scalar, /) -> Tensor:
    """The next representable value after ``x1`` towards ``x2`` (tenferro has no
    nextafter yet: NumPy's on host copies, see :mod:`._host`; not differentiable)."""
    return _nextafter(x1, x2)


# ---------------------------------------------------------------- statistics

def std(x: Tensor, /, *, axis: int | tuple[int, ...] | None = None,
        correction: Scalar = 0.0, keepdims: bool = False) -> Tensor:
    return _ops.std(x, axis=_axis(axis), ddof=correction, keepdims=keepdims)


def var(x: Tensor, /, *, axis: int | tuple[int, ...] | None = None,
        correction: Scalar = 0.0, keepdims: bool = False) -> Tensor:
    return _ops.var(x, axis=_axis(axis), ddof=correction, keepdims=keepdims)


def _axis(axis: Any) -> Any:
    return tuple(axis) if isinstance(axis, list) else axis


def _cumulative(name: str, op: Callable[..., Tensor],
                fill: int) -> _Cumulative:
    def cumulative(x: Tensor, /, *, axis: int | None = None, dtype: DTypeLike = None,
                   include_initial: bool = False) -> Tensor:
        if axis is None:
            if x.ndim > 1:
                raise ValueError("tenferro.array_api.%s: axis is required for a %d-d array"
                                 % (name, x.ndim))
            axis = 0
        if x.ndim == 0:
            raise ValueError("tenferro.array_api.%s: needs at least one dimension" % name)
        out = op(x, axis=axis, dtype=dtype)
        if include_initial:
            shape = list(out.shape)
            shape[axis] = 1
            out = _ops.concat([_ops.full(tuple(shape), fill, dtype=out.dtype,
                                         device=out.device), out], axis=axis)
        return out
    cumulative.__name__ = cumulative.__qualname__ = name
    return cumulative


cumulative_sum = _cumulative("cumulative_sum", _ops.cumsum, 0)
cumulative_prod = _cumulative("cumulative_prod", _ops.cumprod, 1)


# ---------------------------------------------------------------- manipulation

def concat(arrays: Sequence[Tensor], /, *, axis: int | None = 0) -> Tensor:
    if axis is None:
        arrays = [_ops.reshape(a, (-1,)) for a in arrays]
        axis = 0
    return _ops.concat(list(arrays), axis=axis)


def unstack(x: Tensor, /, *, axis: int = 0) -> tuple[Tensor, ...]:
    if x.ndim == 0:
        raise ValueError("tenferro.array_api.unstack: needs at least one dimension")
    x = _ops.moveaxis(x, axis, 0)
    return tuple(x[i] for i in range(x.shape[0]))


def vecdot(x1: Tensor, x2: Tensor, /, *, axis: int = -1) -> Tensor:
    if min(x1.ndim, x2.ndim) < -axis or x1.shape[axis] != x2.shape[axis]:
        raise ValueError("tenferro.array_api.vecdot: axis %d has sizes %s and %s"
                         % (axis, x1.shape, x2.shape))
    prod = _ops.multiply(_ops.conj(x1), x2)
    return _ops.sum(prod, axis=axis, dtype=prod.dtype)


def take_along_axis(x: Tensor, indices: Tensor, /, *, axis: int = -1) -> Tensor:
    return _ops.take_along_axis(x, indices, axis)


def diff(x: Tensor, /, *, axis: int = -1, n: int = 1, prepend: Tensor | None = None,
         append: Tensor | None = None) -> Tensor:
    kw = {k: v for k, v in [("prepend", prepend), ("append", append)] if v is not None}
    return _ops.diff(x, n=n, axis=axis, **kw)


def argsort(x: Tensor, /, *, axis: int = -1, descending: bool = False,
            stable: bool = True) -> Tensor:
    return _ops.argsort(x, axis=axis, stable=stable, descending=descending)


def sort(x: Tensor, /, *, axis: int = -1, descending: bool = False,
         stable: bool = True) -> Tensor:
    return _ops.sort(x, axis=axis, stable=stable, descending=descending)


# ---------------------------------------------------------------- constants
e, pi, inf, nan, newaxis = math.e, math.pi, math.inf, math.nan, None
