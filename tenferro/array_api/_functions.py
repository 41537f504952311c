"""The Array API functions whose signature or semantics differ from tenferro's NumPy ones.

Each wraps tenferro's op (so it stays differentiable and runs on every device);
functions tenferro does not have yet come from :func:`._host.pick`.
"""
import math
from collections import namedtuple

from .. import _dtypes, _ops
from .._tensor import Tensor
from ._host import pick


def _dtype_of(x):
    return x.dtype if isinstance(x, Tensor) else _dtypes.dtype(x)


# ---------------------------------------------------------------- creation

def meshgrid(*arrays, indexing="xy"):
    """NumPy's meshgrid as the standard's list (NumPy returns a tuple)."""
    return list(_ops.meshgrid(*arrays, indexing=indexing))


# ---------------------------------------------------------------- data types

def astype(x, dtype, /, *, copy=True, device=None):
    out = _ops.astype(x, dtype, copy=copy)
    return out if device is None else _ops.to_device(out, device)


def can_cast(from_, to, /):
    return _dtypes.can_cast(_dtype_of(from_), _dtypes.dtype(to))


finfo_object = namedtuple("finfo_object", "bits eps max min smallest_normal dtype")
iinfo_object = namedtuple("iinfo_object", "bits max min dtype")


def finfo(type, /):
    f = _dtypes.finfo(_dtype_of(type))
    return finfo_object(int(f.bits), float(f.eps), float(f.max), float(f.min),
                        float(f.smallest_normal), _dtypes.dtype(f.dtype))


def iinfo(type, /):
    i = _dtypes.iinfo(_dtype_of(type))
    return iinfo_object(int(i.bits), int(i.max), int(i.min), _dtypes.dtype(i.dtype))


KINDS = {"bool": "b", "signed integer": "i", "unsigned integer": "u", "integral": "iu",
          "real floating": "f", "complex floating": "c", "numeric": "iufc"}


def isdtype(dtype, kind):
    dtype = _dtypes.dtype(dtype)
    if isinstance(kind, tuple):
        return any(isdtype(dtype, k) for k in kind)
    if isinstance(kind, str):
        if kind not in KINDS:
            raise ValueError("tenferro.array_api.isdtype: unknown kind %r; expected one of %s"
                             % (kind, ", ".join(KINDS)))
        return dtype.kind in KINDS[kind]
    return dtype == _dtypes.dtype(kind)


def result_type(*arrays_and_dtypes):
    if not arrays_and_dtypes:
        raise ValueError("tenferro.array_api.result_type: at least one array or dtype needed")
    return _dtypes.result_type(*arrays_and_dtypes)


# ---------------------------------------------------------------- elementwise

def clip(x, /, min=None, max=None):
    """Clamp to [min, max]; the result keeps ``x``'s dtype (NumPy would promote)."""
    out = x
    for bound, beyond in ((min, _ops.less), (max, _ops.greater)):
        if bound is not None:
            if isinstance(bound, Tensor):
                bound = _ops.astype(bound, x.dtype, copy=False)
            out = _ops.where(beyond(out, bound), bound, out)
    return _ops.astype(out, x.dtype, copy=False)


def signbit(x, /):
    return _ops.less(_ops.copysign(_ops.ones((), dtype=x.dtype, device=x.device), x), 0)


def floor_divide(x1, x2, /):
    """NumPy's floor_divide, except with an infinite operand, where the standard wants
    floor(x1 / x2) (inf // 2 is inf, not NumPy's nan; 1 // -inf is -0, not -1)."""
    out = _ops.floor_divide(x1, x2)
    if out.dtype.kind != "f":
        return out
    inf = [_ops.isinf(v) if isinstance(v, Tensor) else math.isinf(v) for v in (x1, x2)]
    return _ops.where(inf[0] | inf[1], _ops.floor(_ops.divide(x1, x2)), out)


def expm1(x, /):
    """exp(x) - 1; for complex ``x`` the standard's special values: those of exp(x) - 1
    where ``x`` is not finite (NumPy's complex expm1 gives nan), and +0 + 0j (not
    NumPy's -0 + 0j) at -0 + 0j."""
    out = _ops.expm1(x)
    if x.dtype.kind != "c":
        return out
    out = _ops.where(_ops.isfinite(x), out, _ops.subtract(_ops.exp(x), 1))
    return _ops.where(_ops.equal(x, 0), _ops.subtract(x, _ops.real(x)), out)


nextafter = pick("nextafter")


# ---------------------------------------------------------------- statistics

def std(x, /, *, axis=None, correction=0.0, keepdims=False):
    return _ops.std(x, axis=_axis(axis), ddof=correction, keepdims=keepdims)


def var(x, /, *, axis=None, correction=0.0, keepdims=False):
    return _ops.var(x, axis=_axis(axis), ddof=correction, keepdims=keepdims)


def _axis(axis):
    return tuple(axis) if isinstance(axis, list) else axis


def _cumulative(name, op, fill):
    def cumulative(x, /, *, axis=None, dtype=None, include_initial=False):
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

def concat(arrays, /, *, axis=0):
    if axis is None:
        arrays = [_ops.reshape(a, (-1,)) for a in arrays]
        axis = 0
    return _ops.concat(list(arrays), axis=axis)


def unstack(x, /, *, axis=0):
    if x.ndim == 0:
        raise ValueError("tenferro.array_api.unstack: needs at least one dimension")
    x = _ops.moveaxis(x, axis, 0)
    return tuple(x[i] for i in range(x.shape[0]))


def vecdot(x1, x2, /, *, axis=-1):
    if min(x1.ndim, x2.ndim) < -axis or x1.shape[axis] != x2.shape[axis]:
        raise ValueError("tenferro.array_api.vecdot: axis %d has sizes %s and %s"
                         % (axis, x1.shape, x2.shape))
    prod = _ops.multiply(_ops.conj(x1), x2)
    return _ops.sum(prod, axis=axis, dtype=prod.dtype)


def take_along_axis(x, indices, /, *, axis=-1):
    return _ops.take_along_axis(x, indices, axis)


def diff(x, /, *, axis=-1, n=1, prepend=None, append=None):
    kw = {k: v for k, v in [("prepend", prepend), ("append", append)] if v is not None}
    return _ops.diff(x, n=n, axis=axis, **kw)


def argsort(x, /, *, axis=-1, descending=False, stable=True):
    return _ops.argsort(x, axis=axis, stable=stable, descending=descending)


def sort(x, /, *, axis=-1, descending=False, stable=True):
    return _ops.sort(x, axis=axis, stable=stable, descending=descending)


# ---------------------------------------------------------------- constants
e, pi, inf, nan, newaxis = math.e, math.pi, math.inf, math.nan, None
