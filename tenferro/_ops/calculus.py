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
    """Integral of ``y`` along ``axis`` by the trapezoidal rule (numpy.trapezoid).

    :math:`\\sum_i (x_{i+1} - x_i) (y_{i+1} + y_i) / 2`, at the sample points ``x`` or
    spaced ``dx`` apart, in NumPy's order of operations (so it rounds as NumPy's).
    Fewer than two samples integrate to 0.

    Parameters
    ----------
    y : Tensor or array_like
        The values to integrate (at least 1-D).
    x : Tensor, array_like or None, default None
        The sample points: 1-D of ``y``'s length along ``axis``, or of ``y``'s shape.
        None: spaced ``dx`` apart.
    dx : float, default 1.0
        The spacing when ``x`` is None.
    axis : int, default -1
        The axis to integrate along.

    Returns
    -------
    Tensor
        ``y``'s shape without ``axis``, in the promoted dtype of ``y``, ``x`` and ``dx``.

    Raises
    ------
    ValueError
        If ``y`` is 0-d, or ``x``'s shape does not broadcast against ``y``'s.
    AxisError
        If ``axis`` is out of bounds.
    DeviceMismatchError
        If ``x`` is a tensor on another device than ``y`` (a ValueError).

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order, in ``y``
    and in ``x`` (NumPy's formula written with tenferro's differentiable ops).

    See Also
    --------
    numpy.trapezoid, scipy.integrate.trapezoid, cumsum, diff

    Examples
    --------
    >>> tf.trapezoid(tf.asarray([1.0, 2.0, 3.0]))
    tensor(4.)
    >>> tf.trapezoid(tf.asarray([1.0, 2.0, 3.0]), x=[0.0, 1.0, 3.0])
    tensor(6.5)
    """
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
    """Cross product of 3-vectors, :math:`a \\times b` (numpy.cross).

    The vectors lie along ``axisa`` of ``a`` and ``axisb`` of ``b``; the other axes
    broadcast.  2-vectors (deprecated in NumPy 2, with a DeprecationWarning here too)
    are taken with a zero z-component: two of them give the scalar z-component of
    their product.  The result dtype is NumPy's promotion of ``a``'s and ``b``'s.

    Parameters
    ----------
    a : Tensor or array_like
        The first vectors (length 3, or 2).
    b : Tensor or array_like
        The second vectors (length 3, or 2).
    axisa : int, default -1
        The axis of ``a`` holding the vectors.
    axisb : int, default -1
        The axis of ``b`` holding the vectors.
    axisc : int, default -1
        The axis of the result holding the vectors (ignored for two 2-vectors).
    axis : int or None, default None
        If given, overrides ``axisa``, ``axisb`` and ``axisc``.

    Returns
    -------
    Tensor
        The cross products: the broadcast batch shape with the 3-vectors along
        ``axisc`` (no vector axis for two 2-vectors).

    Raises
    ------
    ValueError
        If an input is 0-d, a vector length is not 2 or 3, or the batch shapes do not
        broadcast.
    TypeError
        If both inputs are bool.
    AxisError
        If an axis is out of bounds.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order, in ``a``
    and ``b`` (bilinear: products and differences of the components).

    See Also
    --------
    numpy.cross, vdot, outer

    Examples
    --------
    >>> tf.cross(tf.asarray([1.0, 0.0, 0.0]), tf.asarray([0.0, 1.0, 0.0]))
    tensor([0., 0., 1.])
    >>> tf.cross(tf.asarray([[1, 2, 3]]), tf.asarray([[4, 5, 6]]))
    tensor([[-3,  6, -3]])
    """
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
    """Evaluate the polynomial with coefficients ``p`` at ``x`` (numpy.polyval).

    :math:`p_0 x^{n-1} + p_1 x^{n-2} + \\dots + p_{n-1}` (highest power first), by
    Horner's scheme ``y = y * x + p[i]`` from ``y = zeros_like(x)``, as NumPy; the
    result dtype is ``x``'s promoted with ``p``'s.

    Parameters
    ----------
    p : Tensor or array_like, shape (n,)
        The coefficients, highest power first.
    x : Tensor, array_like or scalar
        Where to evaluate the polynomial.

    Returns
    -------
    Tensor
        The values, of ``x``'s shape.

    Raises
    ------
    TypeError
        If ``p`` is 0-d.
    DeviceMismatchError
        If ``p`` and ``x`` are tensors on different devices (a ValueError).

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order, in ``p``
    and ``x`` (Horner's scheme written with tenferro's ops).

    See Also
    --------
    numpy.polyval

    Examples
    --------
    >>> tf.polyval(tf.asarray([3.0, 0.0, 1.0]), tf.asarray([0.0, 1.0, 2.0]))
    tensor([ 1.,  4., 13.])
    """
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
    """Piecewise-linear interpolation of the points (``xp``, ``fp``) at ``x``
    (numpy.interp).

    ``xp`` must be increasing (not checked, as in NumPy) unless ``period`` is given,
    when ``x`` and ``xp`` are reduced modulo it and ``xp`` is sorted.  Beyond the ends
    the result is ``left`` and ``right``.  The result is float64 (complex128 for complex
    ``fp``; the device's default float where it has no float64).

    Parameters
    ----------
    x : Tensor or array_like
        Where to evaluate the interpolant.
    xp : Tensor or array_like, shape (n,)
        The sample points, increasing.
    fp : Tensor or array_like, shape (n,)
        The values at ``xp`` (real or complex).
    left : scalar or None, default None
        The value for ``x < xp[0]``; None: ``fp[0]``.
    right : scalar or None, default None
        The value for ``x > xp[-1]``; None: ``fp[-1]``.
    period : float or None, default None
        The period of ``x`` for periodic interpolation (``left``/``right`` then unused).

    Returns
    -------
    Tensor
        The interpolated values, of ``x``'s shape.

    Raises
    ------
    ValueError
        If ``xp`` or ``fp`` is not 1-D, they differ in length, they are empty, or
        ``period`` is 0.
    DeviceMismatchError
        If the tensors are on different devices (a ValueError).

    Notes
    -----
    Differentiable: yes, forward and reverse, to any order, in ``x``, ``xp`` and ``fp``
    (real or complex ``fp``; NumPy's formula written with differentiable ops, so
    piecewise linear in ``x``).

    See Also
    --------
    numpy.interp, searchsorted

    Examples
    --------
    >>> tf.interp(tf.asarray([0.5, 1.5, 3.0]), [0.0, 1.0, 2.0], [0.0, 10.0, 20.0])
    tensor([ 5., 15., 20.])
    """
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
