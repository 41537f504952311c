"""NumPy's small numerical helpers: ``trapezoid`` (integration), ``cross`` (vector
product), ``polyval`` (polynomials by Horner's scheme), ``interp`` (piecewise-linear
interpolation), and ``count_le``, the sorted search they and ``histogram`` share.

Each is NumPy's own formula written with tenferro's differentiable ops, in the same
order of operations (so results round as NumPy's do), and so differentiable in every
floating-point or complex argument, on every device that runs the elementwise ops.
"""
from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

from .. import _dtypes, _primitive
from .._primitive import bind
from ._order_cpu import searchsorted_p
from ._common import broadcast_shapes, common_device, normalize_axis, to_tensor
from .elementwise import multiply, negative, true_divide
from .indexing import take_in_range
from .joining import stack
from .reduction import sum as _sum
from .shape import broadcast_to, moveaxis, reshape
from .structural import along, diff

if TYPE_CHECKING:
    from typing import SupportsIndex

    from .._tensor import ArrayLike, ScalarLike, Tensor

__all__ = ["trapezoid", "cross", "polyval", "interp"]

# Elements from which trapezoid halves in place (out= costs a few us more per call than a
# fresh result; from here on a fresh result's page faults cost more)
_IN_PLACE = 1 << 16
# Values from which count_le bisects on the CPU rather than binding searchsorted: NumPy's
# search takes one value at a time, a chain of dependent loads (245 ms for 1e6 random
# values in 1e6 sorted ones); the bisection's rounds gather for all values at once, on
# two threads (95 ms).  At 1e4 the search is faster (0.9 ms against 1.2), at 1e5 even.
_CPU_SEARCH_MAX = 1 << 16


def trapezoid(y: ArrayLike, x: ArrayLike | None = None, dx: float = 1.0,
              axis: SupportsIndex = -1) -> Tensor:
    """Integral of ``y`` along ``axis`` by the trapezoidal rule, at sample points ``x``
    (1-D along ``axis``, or ``y``'s shape) or spaced ``dx`` apart (NumPy's
    ``trapezoid``: ``sum(d * (y[1:] + y[:-1]) / 2)``)."""
    y = to_tensor(y)
    if y.ndim == 0:
        raise ValueError("tenferro.trapezoid: y must have at least one dimension, got a 0-d "
                         "tensor")
    axis = normalize_axis("trapezoid", axis, y.ndim)
    if x is None:
        d = dx
    else:
        x = to_tensor(x, device=y._device)
        common_device("trapezoid", [y, x])
        if x.ndim == 1:
            d = diff(x, axis=0)
            d = reshape(d, tuple(d.shape[0] if i == axis else 1 for i in range(y.ndim)))
        else:
            d = diff(x, axis=normalize_axis("trapezoid", axis - y.ndim, x.ndim))
    s = along(y, axis, 1) + along(y, axis, None, -1)
    # (1.0 * s is s bit for bit for real floats: that pass is skipped; outside autodiff
    # a large product is halved in place: an allocation of fresh pages less, same bits)
    p = s if type(d) is float and d == 1.0 and s.dtype.kind == "f" else d * s
    if p.size >= _IN_PLACE and p.dtype.kind in "fc" and not p.requires_grad \
            and not _primitive.state.interpreters:
        return _sum(true_divide(p, 2.0, out=p), axis=axis)
    return _sum(p / 2.0, axis=axis)


def cross(a: ArrayLike, b: ArrayLike, axisa: SupportsIndex = -1, axisb: SupportsIndex = -1,
          axisc: SupportsIndex = -1, axis: SupportsIndex | None = None) -> Tensor:
    """Cross product of 3-vectors (and of 2-vectors, which NumPy 2 deprecates: their
    z-component, or a 3-vector when the other is one) along ``axisa``/``axisb``,
    broadcast over the other axes, the result's vectors along ``axisc`` (NumPy's
    ``cross``; ``axis`` sets all three)."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = to_tensor(a), to_tensor(b)
    common_device("cross", [a, b])
    if a.ndim < 1 or b.ndim < 1:
        raise ValueError("tenferro.cross: at least one array has zero dimension")
    a = moveaxis(a, normalize_axis("cross", axisa, a.ndim), -1)
    b = moveaxis(b, normalize_axis("cross", axisb, b.ndim), -1)
    na, nb = a.shape[-1], b.shape[-1]
    if na not in (2, 3) or nb not in (2, 3):
        raise ValueError("tenferro.cross: incompatible dimensions for cross product "
                         "(dimension must be 2 or 3), got %d and %d" % (na, nb))
    dtype = _dtypes.result_type(a.dtype, b.dtype)
    if dtype == _dtypes.bool_:
        raise TypeError("tenferro.cross: not supported for boolean vectors (their "
                        "difference is undefined)")
    if na == 2 or nb == 2:
        warnings.warn("Arrays of 2-dimensional vectors are deprecated. Use arrays of "
                      "3-dimensional vectors instead. (deprecated in NumPy 2.0)",
                      DeprecationWarning, stacklevel=2)
    shape = broadcast_shapes("cross", a.shape[:-1], b.shape[:-1])
    a, b = a.astype(dtype, copy=False), b.astype(dtype, copy=False)
    a0, a1, b0, b1 = a[..., 0], a[..., 1], b[..., 0], b[..., 1]
    z = a0 * b1 - a1 * b0
    if na == 2 and nb == 2:
        return z
    if na == 2:        # a2 = 0
        b2 = b[..., 2]
        x, y = multiply(a1, b2), negative(multiply(a0, b2))
    elif nb == 2:      # b2 = 0
        a2 = a[..., 2]
        x, y = negative(multiply(a2, b1)), multiply(a2, b0)
    else:
        a2, b2 = a[..., 2], b[..., 2]
        x, y = a1 * b2 - a2 * b1, a2 * b0 - a0 * b2
    axisc = normalize_axis("cross", axisc, len(shape) + 1)
    parts = [t if t.shape == shape else broadcast_to(t, shape) for t in (x, y, z)]
    return moveaxis(stack(parts, axis=-1), -1, axisc)


def polyval(p: ArrayLike, x: ArrayLike) -> Tensor:
    """The polynomial with coefficients ``p`` (highest power first) at ``x``, by
    Horner's scheme ``y = y * x + p[i]`` from ``y = zeros_like(x)`` (NumPy's
    ``polyval``: the result dtype is ``x``'s promoted with ``p``'s)."""
    from .creation import zeros_like

    p = to_tensor(p)
    x = to_tensor(x, device=p._device)
    common_device("polyval", [p, x])
    if p.ndim == 0:
        raise TypeError("tenferro.polyval: p must be a sequence of coefficients, got a 0-d "
                        "tensor")
    y = zeros_like(x)
    for i in range(p.shape[0]):
        y = y * x + p[i]
    return y


def count_le(s, v):
    """How many elements of the ascending 1-D tensor ``s`` are ``<= v``, for each element
    of ``v`` (``searchsorted(s, v, side="right")``; NaN in ``v`` counts 0).  The
    ``searchsorted`` primitive where ``s``'s device has it (int64; one bind, and a
    product with ``v == v`` for NaN, which it would put last), else (CUDA, and the CPU
    beyond ``_CPU_SEARCH_MAX`` values) a vectorised bisection: ``log2(len(s))`` rounds
    of a gather and a comparison over all of ``v`` (int32)."""
    from .creation import zeros
    from .elementwise import equal, floor_divide, less_equal, logical_and, where

    dev = s._device
    if searchsorted_p.name in dev.driver.implementations and (
            dev.type != "cpu" or v.size <= _CPU_SEARCH_MAX):
        dt = s.dtype if s.dtype == v.dtype else _dtypes.result_type(s, v)
        s, v = s.astype(dt, copy=False), v.astype(dt, copy=False)
        pos = bind(searchsorted_p, (s, v), {"side": "right"})
        return pos * equal(v, v) if dt.kind in "fc" else pos     # (NaN: 0)
    m = s.shape[0]
    lo = zeros(v.shape, dtype=_dtypes.int32, device=v._device)
    hi = lo + m
    for _ in range(int(m).bit_length()):
        mid = floor_divide(lo + hi, 2)
        open_ = lo < hi
        go = logical_and(open_, less_equal(take_in_range(s, where(open_, mid, 0)), v))
        lo = where(go, mid + 1, lo)
        hi = where(logical_and(open_, ~go), mid, hi)
    return lo


def interp(x: ArrayLike, xp: ArrayLike, fp: ArrayLike, left: ScalarLike | None = None,
           right: ScalarLike | None = None, period: float | None = None) -> Tensor:
    """Piecewise-linear interpolant of the points (``xp``, ``fp``) at ``x`` (NumPy's
    ``interp``: ``xp`` increasing, ``left``/``right`` beyond its ends (default
    ``fp[0]``/``fp[-1]``), or ``period`` for periodic ``x``).  float64 (complex128 for
    complex ``fp``; the device's default float where it has no float64), differentiable
    in ``x``, ``xp`` and ``fp``."""
    from .creation import _default_float

    x = to_tensor(x)
    xp, fp = to_tensor(xp, device=x._device), to_tensor(fp, device=x._device)
    common_device("interp", [x, xp, fp])
    if xp.ndim != 1 or fp.ndim != 1:
        raise ValueError("tenferro.interp: xp and fp must be 1-D, got shapes %s and %s"
                         % (xp.shape, fp.shape))
    if xp.shape[0] == 0:
        raise ValueError("tenferro.interp: array of sample points is empty")
    if xp.shape[0] != fp.shape[0]:
        raise ValueError("tenferro.interp: fp and xp are not of the same length (%d and %d)"
                         % (fp.shape[0], xp.shape[0]))
    ft = _default_float(x._device)
    x, xp = x.astype(ft, copy=False), xp.astype(ft, copy=False)
    if period is not None:
        x, xp, fp = _periodic(x, xp, fp, period)
        left = right = None
    if fp.dtype.kind == "c":
        from .elementwise import imag, real

        part = (lambda v, f: None if v is None else f(to_tensor(v)))
        return _interp(x, xp, real(fp).astype(ft), part(left, real), part(right, real)) + \
            multiply(_interp(x, xp, imag(fp).astype(ft), part(left, imag), part(right, imag)),
                     1j)
    return _interp(x, xp, fp.astype(ft, copy=False), left, right)


def _periodic(x, xp, fp, period):
    """``x`` and ``xp`` reduced modulo ``period``, ``xp`` sorted (``fp`` with it) and
    extended by one point at each end, as NumPy's ``interp``."""
    from .elementwise import remainder
    from .joining import concatenate
    from .sorting import argsort

    if period == 0:
        raise ValueError("tenferro.interp: period must be a non-zero value")
    period = abs(period)
    x, xp = remainder(x, period), remainder(xp, period)
    order = argsort(xp)
    xp, fp = take_in_range(xp, order), take_in_range(fp, order)
    xp = concatenate((xp[-1:] - period, xp, xp[0:1] + period))
    fp = concatenate((fp[-1:], fp, fp[0:1]))
    return x, xp, fp


def _interp(x, xp, fp, left, right):
    """NumPy's interp loop for real ``fp``, written elementwise (its exact-hit and
    NaN-slope fallbacks included)."""
    from .elementwise import equal, greater, isnan, less, logical_and, maximum, minimum, where

    n = xp.shape[0]
    lval = fp[0] if left is None else left
    rval = fp[-1] if right is None else right
    if n == 1:     # (NumPy's special case: a NaN x gets fp[0] too)
        r = where(less(x, xp[0]), lval, where(greater(x, xp[0]), rval, fp[0]))
        return r.astype(fp.dtype, copy=False)
    j = count_le(xp, x) - 1                      # xp[j] <= x < xp[j + 1]
    jc = minimum(maximum(j, 0), n - 2)          # (clip's, without its dtype checks)
    x0, x1 = take_in_range(xp, jc), take_in_range(xp, jc + 1)
    y0, y1 = take_in_range(fp, jc), take_in_range(fp, jc + 1)
    slope = (y1 - y0) / (x1 - x0)
    r = slope * (x - x0) + y0
    r = where(isnan(r), slope * (x - x1) + y1, r)
    r = where(logical_and(isnan(r), equal(y0, y1)), y0, r)
    r = where(equal(x, x0), y0, r)
    r = where(j == n - 1, where(greater(x, xp[-1]), rval, fp[-1]), r)
    r = where(j < 0, lval, r)
    return where(isnan(x), x, r).astype(fp.dtype, copy=False)
