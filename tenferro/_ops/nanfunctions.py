"""NumPy's NaN-ignoring functions: ``nan_to_num`` and the ``nan*`` reductions and scans.

Each is the plain reduction of the input with its NaNs replaced (``where``), as NumPy's
``_replace_nan`` does, so each is differentiable wherever the plain one is: the gradient
reaches the non-NaN elements and is zero at the NaNs.  Integer and bool inputs have no
NaNs and go straight to the plain reduction (with its result dtype).  All-NaN slices
behave as NumPy's: ``nanmean``/``nanvar``/``nanstd`` give NaN with a RuntimeWarning,
``nanmax``/``nanmin`` NaN with a RuntimeWarning, ``nanargmax``/``nanargmin`` raise
ValueError.  Those warnings and errors read one boolean back to the host; while
tracing, where the values are not known, they are skipped (the NaN results stay).
"""
from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

from .. import _dtypes
from .._ir import is_abstract
from ._common import normalize_axes, to_tensor
from ._nan_doc import document
from .conversion import check_inplace, copy_into, store_out
from .elementwise import conj, imag, isnan, logical_not, multiply, real, sqrt, where
from .reduction import all as _all, any as _any, argmax, argmin, cumprod, cumsum, max as _max, \
    mean, min as _min, prod, sum as _sum, var
from .shape import reshape, zero_d_axis

if TYPE_CHECKING:
    from typing import SupportsIndex

    from .._tensor import ArrayLike, AxisLike, DTypeLike, Tensor

__all__ = ["nan_to_num", "nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax",
           "nanmin", "nanargmax", "nanargmin", "nancumsum", "nancumprod"]


def _inexact(a):
    return a.dtype.kind in "fc"


def _replace_nan(a, value):
    """(``a`` with its NaNs replaced by ``value``, the NaN mask); the mask is None for
    integer and bool ``a``, which has none."""
    if not _inexact(a):
        return a, None
    mask = isnan(a)
    return where(mask, value, a), mask


def host_any(mask):
    """Whether any element of the bool tensor ``mask`` is true: a host read, False for a
    traced (abstract) tensor, whose values are not known."""
    if is_abstract(mask):
        return False
    return bool(_any(mask).to("cpu"))


def _axes(name, a, axis):
    """Validate ``axis`` for ``a`` in ``name``'s own words; the normalised axes."""
    if zero_d_axis(axis, a.ndim):
        return ()
    return normalize_axes(name, axis, a.ndim)


def _out(name, r, out):
    return r if out is None else store_out(name, r, out)


def _check_inexact(name, dtype):
    if dtype is not None and _dtypes.dtype(dtype).kind not in "fc":
        raise TypeError("tenferro.%s: if a is inexact, then dtype must be inexact, got %s"
                        % (name, _dtypes.dtype(dtype)))


# -- nan_to_num ---------------------------------------------------------------------------

def nan_to_num(x: ArrayLike, copy: bool = True, nan: float = 0.0,
               posinf: float | None = None, neginf: float | None = None) -> Tensor:
    t = to_tensor(x)
    if not _inexact(t):
        return t.copy() if copy else t   # (an ndarray x is wrapped, not copied)
    import numpy as np

    info = np.finfo(_dtypes.real_dtype(t.dtype))
    posinf = float(info.max) if posinf is None else posinf
    neginf = float(info.min) if neginf is None else neginf

    def fix(v):   # (the masks from v itself: a replacement is never replaced again)
        r = where(isnan(v), nan, v)
        r = where(v == float("inf"), posinf, r)
        return where(v == float("-inf"), neginf, r)

    if t.dtype.kind == "c":
        r = fix(real(t)) + multiply(fix(imag(t)), 1j)
        r = r.astype(t.dtype, copy=False)
    else:
        r = fix(t).astype(t.dtype, copy=False)
    if copy or t is not x:
        return r
    check_inplace("nan_to_num", x)   # a write into a tensor autodiff follows: refused
    copy_into(x, r)
    return x


# -- sums, products, scans ----------------------------------------------------------------

def nansum(a: ArrayLike, axis: AxisLike = None, dtype: DTypeLike = None,
           out: Tensor | None = None, keepdims: bool = False) -> Tensor:
    a = to_tensor(a)
    _axes("nansum", a, axis)
    r = _sum(_replace_nan(a, 0)[0], axis=axis, dtype=dtype, keepdims=keepdims)
    return _out("nansum", r, out)


def nanprod(a: ArrayLike, axis: AxisLike = None, dtype: DTypeLike = None,
            out: Tensor | None = None, keepdims: bool = False) -> Tensor:
    a = to_tensor(a)
    _axes("nanprod", a, axis)
    r = prod(_replace_nan(a, 1)[0], axis=axis, dtype=dtype, keepdims=keepdims)
    return _out("nanprod", r, out)


def _scan_axis(name, a, axis):
    if axis is not None and not zero_d_axis(axis, a.ndim):
        normalize_axes(name, axis, a.ndim)


def nancumsum(a: ArrayLike, axis: SupportsIndex | None = None, dtype: DTypeLike = None,
              out: Tensor | None = None) -> Tensor:
    a = to_tensor(a)
    _scan_axis("nancumsum", a, axis)
    return _out("nancumsum", cumsum(_replace_nan(a, 0)[0], axis=axis, dtype=dtype), out)


def nancumprod(a: ArrayLike, axis: SupportsIndex | None = None, dtype: DTypeLike = None,
               out: Tensor | None = None) -> Tensor:
    a = to_tensor(a)
    _scan_axis("nancumprod", a, axis)
    return _out("nancumprod", cumprod(_replace_nan(a, 1)[0], axis=axis, dtype=dtype), out)


# -- mean, variance, standard deviation ---------------------------------------------------

def _count(mask, axis, keepdims, like):
    """The number of non-NaN elements per slice, in the real dtype of ``like``."""
    n = _sum(logical_not(mask), axis=axis, keepdims=keepdims)
    return n.astype(_dtypes.real_dtype(like.dtype))


def nanmean(a: ArrayLike, axis: AxisLike = None, dtype: DTypeLike = None,
            out: Tensor | None = None, keepdims: bool = False) -> Tensor:
    a = to_tensor(a)
    _axes("nanmean", a, axis)
    arr, mask = _replace_nan(a, 0)
    if mask is None:
        return mean(arr, axis=axis, dtype=dtype, keepdims=keepdims, out=out)
    _check_inexact("nanmean", dtype)
    tot = _sum(arr, axis=axis, dtype=dtype, keepdims=keepdims)
    cnt = _count(mask, axis, keepdims, tot)
    if host_any(cnt == 0):
        warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=2)
    return _out("nanmean", tot / cnt, out)


def nanvar(a: ArrayLike, axis: AxisLike = None, dtype: DTypeLike = None,
           out: Tensor | None = None, ddof: float = 0, keepdims: bool = False, *,
           correction: float | None = None) -> Tensor:
    return _nanvar("nanvar", a, axis, dtype, out, ddof, keepdims, correction, False)


def nanstd(a: ArrayLike, axis: AxisLike = None, dtype: DTypeLike = None,
           out: Tensor | None = None, ddof: float = 0, keepdims: bool = False, *,
           correction: float | None = None) -> Tensor:
    return _nanvar("nanstd", a, axis, dtype, out, ddof, keepdims, correction, True)


def _nanvar(name, a, axis, dtype, out, ddof, keepdims, correction, root):
    a = to_tensor(a)
    axes = _axes(name, a, axis)
    if correction is not None:
        if ddof != 0:
            raise ValueError("tenferro.%s: ddof and correction can't be provided "
                             "simultaneously" % name)
        ddof = correction
    arr, mask = _replace_nan(a, 0)
    if mask is None:
        r = var(arr, axis=axis, ddof=ddof, keepdims=keepdims, dtype=dtype)
        return _out(name, sqrt(r) if root else r, out)
    _check_inexact(name, dtype)
    if dtype is not None:
        arr = arr.astype(dtype, copy=False)
    cnt = _count(mask, axes, True, arr)
    d = where(mask, 0, arr - _sum(arr, axis=axes, keepdims=True) / cnt)
    sq = real(multiply(d, conj(d))) if d.dtype.kind == "c" else multiply(d, d)
    dof = cnt if keepdims else reshape(cnt, tuple(n for i, n in enumerate(cnt.shape)
                                                   if i not in axes))
    dof = dof - ddof
    r = _sum(sq, axis=axes, keepdims=keepdims) / dof
    bad = dof <= 0
    if host_any(bad):
        warnings.warn("Degrees of freedom <= 0 for slice.", RuntimeWarning, stacklevel=3)
    r = where(bad, float("nan"), r)
    return _out(name, sqrt(r) if root else r, out)


# -- max, min and their positions ---------------------------------------------------------

def _nan_extreme(name, reduce, fill, a, axis, out, keepdims):
    a = to_tensor(a)
    axes = _axes(name, a, axis)
    for ax in axes:
        if a.shape[ax] == 0:
            raise ValueError("tenferro.%s: zero-size reduction along axis %d of shape %s has "
                             "no identity" % (name, ax, a.shape))
    arr, mask = _replace_nan(a, fill)
    r = reduce(arr, axis=axis, keepdims=keepdims)
    if mask is not None:
        allnan = _all(mask, axis=axis, keepdims=keepdims)
        if host_any(allnan):
            warnings.warn("All-NaN slice encountered", RuntimeWarning, stacklevel=3)
        r = where(allnan, float("nan"), r)      # (unconditionally: also when traced)
    return _out(name, r, out)


def nanmax(a: ArrayLike, axis: AxisLike = None, out: Tensor | None = None,
           keepdims: bool = False) -> Tensor:
    return _nan_extreme("nanmax", _max, float("-inf"), a, axis, out, keepdims)


def nanmin(a: ArrayLike, axis: AxisLike = None, out: Tensor | None = None,
           keepdims: bool = False) -> Tensor:
    return _nan_extreme("nanmin", _min, float("inf"), a, axis, out, keepdims)


def _nan_arg(name, reduce, fill, a, axis, out, keepdims):
    a = to_tensor(a)
    if axis is not None and not zero_d_axis(axis, a.ndim):
        normalize_axes(name, axis, a.ndim)
    arr, mask = _replace_nan(a, fill)
    if mask is not None and mask.size and host_any(_all(mask, axis=axis)):
        raise ValueError("tenferro.%s: All-NaN slice encountered" % name)
    try:
        r = reduce(arr, axis=axis, keepdims=keepdims)
    except ValueError as e:
        raise ValueError(str(e).replace(reduce.__name__, name, 1)) from None
    return _out(name, r, out)


def nanargmax(a: ArrayLike, axis: SupportsIndex | None = None, out: Tensor | None = None, *,
              keepdims: bool = False) -> Tensor:
    return _nan_arg("nanargmax", argmax, float("-inf"), a, axis, out, keepdims)


def nanargmin(a: ArrayLike, axis: SupportsIndex | None = None, out: Tensor | None = None, *,
              keepdims: bool = False) -> Tensor:
    return _nan_arg("nanargmin", argmin, float("inf"), a, axis, out, keepdims)


for _name in __all__:   # (docstrings: one template with the reductions', _reduction_doc)
    document(globals()[_name])
