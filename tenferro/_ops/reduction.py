"""Reductions and scans (NumPy semantics: dtypes, NaN handling, empty inputs).

``sum``, ``prod``, ``max``, ``min``, ``any``, ``all`` (and ``mean``, a sum divided) take
the compiled fast path (``_fastpath.reduction``) for a Tensor reduced over all axes or
one int axis, without ``dtype``/``keepdims``/``out``; the Tensor methods call the same.
"""
from __future__ import annotations

import inspect
from typing import TYPE_CHECKING

from .. import _dtypes
from .._primitive import Primitive, bind
from .._tensor import Tensor
from . import _fastpath
from ._common import normalize_axes, normalize_axis, numel, to_tensor
from ._reduction_doc import document
from .conversion import store_out

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import SupportsIndex

    from .._tensor import ArrayLike, AxisLike, DTypeLike
from .shape import reshape, zero_d_axis


def _reduce_aval(x, *, axes, out_dtype):
    return (tuple(n for i, n in enumerate(x[0]) if i not in axes), out_dtype)


def _arg_aval(x, *, axis):
    return (tuple(n for i, n in enumerate(x[0]) if i != axis), _dtypes.int64)


def _scan_aval(x, *, axis, out_dtype):
    return (x[0], out_dtype)


sum_p = Primitive("sum", _reduce_aval)
prod_p = Primitive("prod", _reduce_aval)
max_p = Primitive("max", _reduce_aval)
min_p = Primitive("min", _reduce_aval)
any_p = Primitive("any", _reduce_aval, differentiable=False, nondiff_reason="boolean output")
all_p = Primitive("all", _reduce_aval, differentiable=False, nondiff_reason="boolean output")
argmax_p = Primitive("argmax", _arg_aval, differentiable=False, nondiff_reason="integer output")
argmin_p = Primitive("argmin", _arg_aval, differentiable=False, nondiff_reason="integer output")
cumsum_p = Primitive("cumsum", _scan_aval)
cumprod_p = Primitive("cumprod", _scan_aval)

_ACC = {_dtypes.bool_: _dtypes.int64, _dtypes.int32: _dtypes.int64}


def _keep(r, x, axes, keepdims):
    if keepdims:
        r = reshape(r, tuple(1 if i in axes else n for i, n in enumerate(x.shape)))
    return r


def _sum_like(prim, name, x, axis, dtype, keepdims):
    x = to_tensor(x)
    axes = () if zero_d_axis(axis, x.ndim) else normalize_axes(name, axis, x.ndim)
    x, acc, want = _accumulate(x, dtype)
    r = bind(prim, (x,), {"axes": axes, "out_dtype": acc})
    return _keep(r if want == acc else r.astype(want), x, axes, keepdims)


def _accumulate(x, dtype):
    """(input for the kernel, kernel accumulator dtype, result dtype) of sum-like ops.

    The kernels accumulate bool and int32 in int64 only; a requested ``dtype=int32``
    (or bool) is cast to after accumulating, which wraps exactly as NumPy's int32 sum.
    """
    if dtype is None:
        acc = _ACC.get(x.dtype, x.dtype)
        return x, acc, acc
    want = _dtypes.dtype(dtype)
    if x.dtype != want and not (want == _dtypes.int64 and x.dtype in _ACC):
        x = x.astype(want)
    return x, _ACC.get(want, want), want


def _sum(x, axis, dtype, keepdims):
    return _sum_like(sum_p, "sum", x, axis, dtype, keepdims)


def _prod(x, axis, dtype, keepdims):
    return _sum_like(prod_p, "prod", x, axis, dtype, keepdims)


def _reduce(prim, name, x, axis, keepdims, out_dtype=None, identity=True):
    """A reduction whose output dtype is fixed (``out_dtype``) or the input's."""
    x = to_tensor(x)
    axes = () if zero_d_axis(axis, x.ndim) else normalize_axes(name, axis, x.ndim)
    if not identity:
        for a in axes:
            if x.shape[a] == 0:
                raise ValueError("tenferro.%s: zero-size reduction along axis %d of shape %s "
                                 "has no identity" % (name, a, x.shape))
    params = {"axes": axes, "out_dtype": out_dtype or x.dtype}
    return _keep(bind(prim, (x,), params), x, axes, keepdims)


def _max(x, axis, dtype, keepdims):
    return _reduce(max_p, "max", x, axis, keepdims, identity=False)


def _min(x, axis, dtype, keepdims):
    return _reduce(min_p, "min", x, axis, keepdims, identity=False)


def _any(x, axis, dtype, keepdims):
    return _reduce(any_p, "any", x, axis, keepdims, _dtypes.bool_)


def _all(x, axis, dtype, keepdims):
    return _reduce(all_p, "all", x, axis, keepdims, _dtypes.bool_)


def _entry(prim, dev, dtype):
    """The fast path's entry for ``prim`` on ``dev`` and ``dtype`` (see
    ``_fastpath.reduction``): the output dtype of a call without ``dtype=`` (the general
    path's: sum/prod accumulate as ``_accumulate``), whether an empty input is refused
    (no identity)."""
    out = {"sum": _ACC.get(dtype, dtype), "prod": _ACC.get(dtype, dtype),
           "any": _dtypes.bool_, "all": _dtypes.bool_}.get(prim.name, dtype)
    return (out, prim.name in ("max", "min"))


def _fast(prim: Primitive, general: Callable[..., Tensor],
          with_dtype: bool = True) -> Callable[..., Tensor]:
    """The public reduction: ``general(x, axis, dtype, keepdims)`` with NumPy's ``out=``,
    behind the compiled fast path (``fn.fast(x, axis, dtype, keepdims, out)``, which the
    Tensor methods call)."""
    def call(x, axis, dtype, keepdims, out):
        r = general(x, axis, dtype, keepdims)
        return r if out is None else store_out(prim.name, r, out)
    fast = _fastpath.reduction(prim, call, _entry)
    if with_dtype:
        def fn(x: ArrayLike, axis: AxisLike = None, dtype: DTypeLike = None,
               keepdims: bool = False, out: Tensor | None = None) -> Tensor:
            return fast(x, axis, dtype, keepdims, out)
    else:
        def fn(x: ArrayLike, axis: AxisLike = None, keepdims: bool = False,  # type: ignore[misc]
               out: Tensor | None = None) -> Tensor:
            return fast(x, axis, None, keepdims, out)
    fn.__name__ = fn.__qualname__ = prim.name
    fn.fast = fast
    return document(fn)


# (docstrings: _reduction_doc, one template for the reductions, scans and nan-functions)
sum = _fast(sum_p, _sum)
prod = _fast(prod_p, _prod)
max = _fast(max_p, _max, False)
min = _fast(min_p, _min, False)
any = _fast(any_p, _any, False)
all = _fast(all_p, _all, False)


def _arg(prim, name, x, axis, keepdims):
    x = to_tensor(x)
    if axis is None or zero_d_axis(axis, x.ndim):
        flat = reshape(x, (-1,))
        if flat.size == 0:
            raise ValueError("tenferro.%s: attempt to get %s of an empty sequence" % (name, name))
        r = bind(prim, (flat,), {"axis": 0})
        return reshape(r, (1,) * x.ndim) if keepdims else r
    a = normalize_axis(name, axis, x.ndim)
    if x.shape[a] == 0:
        raise ValueError("tenferro.%s: attempt to get %s of an empty sequence (axis %d of shape "
                         "%s)" % (name, name, a, x.shape))
    return _keep(bind(prim, (x,), {"axis": a}), x, (a,), keepdims)


def argmax(x: ArrayLike, axis: SupportsIndex | None = None,
           keepdims: bool = False) -> Tensor:
    return _arg(argmax_p, "argmax", x, axis, keepdims)


def argmin(x: ArrayLike, axis: SupportsIndex | None = None,
           keepdims: bool = False) -> Tensor:
    return _arg(argmin_p, "argmin", x, axis, keepdims)


def _scan(prim, name, x, axis, dtype):
    x = to_tensor(x)
    if axis is None or zero_d_axis(axis, x.ndim):
        x = reshape(x, (-1,))
        axis = 0
    a = normalize_axis(name, axis, x.ndim)
    x, acc, want = _accumulate(x, dtype)
    r = bind(prim, (x,), {"axis": a, "out_dtype": acc})
    return r if want == acc else r.astype(want)


def cumsum(x: ArrayLike, axis: SupportsIndex | None = None,
           dtype: DTypeLike = None) -> Tensor:
    return _scan(cumsum_p, "cumsum", x, axis, dtype)


def cumprod(x: ArrayLike, axis: SupportsIndex | None = None,
            dtype: DTypeLike = None) -> Tensor:
    return _scan(cumprod_p, "cumprod", x, axis, dtype)


def mean(x: ArrayLike, axis: AxisLike = None, dtype: DTypeLike = None, keepdims: bool = False,
         out: Tensor | None = None) -> Tensor:
    if dtype is None and out is None and keepdims is False and type(x) is Tensor \
            and x.dtype.kind in "fc":
        s = _fastpath.reduced(sum_p, _entry, x, axis)   # the sum the general path takes
        if s is not None:
            return _divide(s, x.size if axis is None else x.shape[axis])
    r = _mean(x, axis, dtype, keepdims)
    return r if out is None else store_out("mean", r, out)


def _mean(x, axis, dtype, keepdims):
    x = to_tensor(x)
    axes = normalize_axes("mean", axis, x.ndim)
    if dtype is None:
        dtype = _dtypes.float64 if x.dtype.kind in "biu" else x.dtype
    n = numel(x.shape[a] for a in axes)
    return _divide(sum(x, axis=axes, dtype=dtype, keepdims=keepdims), n)


def _divide(s, n):
    """A mean from its sum ``s`` of ``n`` elements (NaN for none, as NumPy)."""
    return s / n if n else s * float("nan")


def var(x: ArrayLike, axis: AxisLike = None, ddof: float = 0, keepdims: bool = False,
        dtype: DTypeLike = None) -> Tensor:
    from .elementwise import conj, multiply, real, subtract

    x = to_tensor(x)
    axes = normalize_axes("var", axis, x.ndim)
    if dtype is not None:
        x = x.astype(dtype, copy=False)
    elif x.dtype.kind in "biu":
        x = x.astype(_dtypes.float64)
    n = numel(x.shape[a] for a in axes)
    d = subtract(x, mean(x, axis=axes, keepdims=True))
    sq = real(multiply(d, conj(d))) if d.dtype.kind == "c" else multiply(d, d)
    denom = n - ddof
    s = sum(sq, axis=axes, keepdims=keepdims)
    # n - ddof <= 0 divides by zero as NumPy does (inf, or nan for a zero sum)
    return s / (denom if denom > 0 else 0)


def std(x: ArrayLike, axis: AxisLike = None, ddof: float = 0, keepdims: bool = False,
        dtype: DTypeLike = None) -> Tensor:
    from .elementwise import sqrt

    normalize_axes("std", axis, to_tensor(x).ndim)  # errors name std, not var
    return sqrt(var(x, axis=axis, ddof=ddof, keepdims=keepdims, dtype=dtype))


def _with_out(fn):
    """Give a reduction NumPy's ``out=`` keyword (so ``np.sum(tensor)`` works too)."""
    def wrapper(x, *args, out=None, **kwargs):
        r = fn(x, *args, **kwargs)
        return r if out is None else store_out(fn.__name__, r, out)
    wrapper.__name__ = wrapper.__qualname__ = fn.__name__
    wrapper.__wrapped__ = fn
    sig = inspect.signature(fn)
    wrapper.__signature__ = sig.replace(parameters=list(sig.parameters.values()) + [
        inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None,
                          annotation="Tensor | None")])
    return document(wrapper)


document(mean)
for _fn in (argmax, argmin, cumsum, cumprod, var, std):
    globals()[_fn.__name__] = _with_out(_fn)
amax = max
amin = min
