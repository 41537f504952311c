"""The functions that are compositions of tenferro's own ops, so they run on every
device those ops run on: ``expit``, ``logit``, ``log_expit``, ``xlogy``, ``xlog1py``,
``entr``, ``rel_entr``, ``kl_div`` and NumPy's normalized ``sinc``.

Their values follow scipy's formulas (scipy.special's edge values: ``xlogy(0, y) = 0``
for every y but NaN, ``entr(x < 0) = -inf``, ``rel_entr`` and ``kl_div`` infinite off
their domain).  Masked entries are replaced by safe values *before* the masked
formula, so no NaN leaks into a derivative; ``entr`` and ``rel_entr`` are primitives
with their own rules so that their derivatives at x = 0 are the one-sided limits.

A plain eager call on the CPU (real input, no transform, no tape) runs tenferro's own
one-pass kernel instead (``_fast.eager``: the same formulas in C, SIMD); the
composition is what transforms, the tape and the other devices see.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import math

import numpy as np
import scipy.special as sc

from .. import _dtypes, _ops
from .._ops._common import to_tensor
from ._base import composite_primitive, holomorphic, operands, partial_rules, polynomial
from ._fast import eager

if TYPE_CHECKING:
    from .._tensor import ArrayLike, Tensor

_INF = float("inf")
_NAN = float("nan")


def _safe_log_arg(x, y, pole):
    """``y`` where ``x == 0`` and log(y - pole) is not finite (y at or below the pole, or
    infinite) replaced by pole + 1: there scipy gives 0, and so does x * log(pole + 1 -
    pole), with finite derivatives (NaN ``y`` stays: the result is NaN, as scipy's)."""
    bad = (y == pole) | _ops.isinf(y)
    if y.dtype.kind != "c":
        bad = bad | (y < pole)
    return _ops.where((x == 0) & bad, pole + 1.0, y)


def xlogy(x: ArrayLike, y: ArrayLike) -> Tensor:
    """scipy.special.xlogy: x * log(y), 0 where x == 0 (unless y is NaN).  Derivatives:
    log(y) in x (JAX's; at x = y = 0 it is 0, not -inf) and x / y in y (0 at x = 0)."""
    x, y = operands("xlogy", sc.xlogy, x, y)
    return eager("xlogy", lambda x, y: x * _ops.log(_safe_log_arg(x, y, 0.0)), x, y)


def xlog1py(x: ArrayLike, y: ArrayLike) -> Tensor:
    """scipy.special.xlog1py: x * log1p(y), 0 where x == 0 (unless y is NaN)."""
    x, y = operands("xlog1py", sc.xlog1py, x, y)
    return eager("xlog1py", lambda x, y: x * _ops.log1p(_safe_log_arg(x, y, -1.0)), x, y)


def expit(x: ArrayLike) -> Tensor:
    """scipy.special.expit: the logistic sigmoid 1 / (1 + exp(-x)) (tenferro.sigmoid)."""
    x, = operands("expit", sc.expit, x)
    return _ops.sigmoid(x)


def log_expit(x: ArrayLike) -> Tensor:
    """scipy.special.log_expit: log(expit(x)) = -log(1 + exp(-x)), accurate for large ``|x|``."""
    x, = operands("log_expit", sc.log_expit, x)
    return eager("log_expit", lambda x: -_ops.logaddexp(0.0, -x), x)


def logit(x: ArrayLike) -> Tensor:
    """scipy.special.logit: log(x / (1 - x)), -inf at 0, inf at 1, NaN outside [0, 1];
    scipy's formula log1p(s) - log1p(-s), s = 2x - 1, on [0.3, 0.65] (no cancellation
    near 1/2), log(x) - log1p(-x) elsewhere (derivative 1/(x(1 - x)): inf at 0 and 1)."""
    x, = operands("logit", sc.logit, x)
    return eager("logit", _logit, x)


def _logit(x):
    mid = (x >= 0.3) & (x <= 0.65)
    s = 2.0 * (_ops.where(mid, x, 0.5) - 0.5)
    xo = _ops.where(mid, 0.1, x)
    return _ops.where(mid, _ops.log1p(s) - _ops.log1p(-s), _ops.log(xo) - _ops.log1p(-xo))


# x log x as a primitive: its derivative log(x) + 1 is -inf at 0 (the one-sided limit)
xlogx_p = composite_primitive(
    "xlogx", lambda x: x * _ops.log(_ops.where(x == 0, 1.0, x)), "x log x, 0 at x = 0.")
# d(x log x) = log(x) + 1  (JAX jax/_src/scipy/special.py _xlogx_jvp)
holomorphic(xlogx_p, lambda x, out: _ops.log(x) + 1.0)


def entr(x: ArrayLike) -> Tensor:
    """scipy.special.entr: -x log x for x > 0, 0 at 0, -inf for x < 0 (real).  Its
    derivative -(log x + 1) is +inf at 0 (JAX's and PyTorch's), 0 for x < 0."""
    x, = operands("entr", sc.entr, x)
    return eager("entr", _entr, x)


def _entr(x):
    neg = x < 0
    return _ops.where(neg, -_INF, -xlogx_p.bind(_ops.where(neg, 1.0, x)))


def _rel_entr(x, y):
    # scipy's branches: x log1p((x - y)/y) for x/y in (1/2, 2) (accurate near x = y),
    # x (log x - log y) where x/y over- or underflows, x log(x/y) otherwise
    both = (x > 0) & (y > 0)
    xs, ys = _ops.where(both, x, 1.0), _ops.where(both, y, 1.0)
    ratio = xs / ys
    tiny = float(_dtypes.finfo(x.dtype).tiny)
    v = _ops.where((ratio > 0.5) & (ratio < 2.0), xs * _ops.log1p((xs - ys) / ys),
                   _ops.where((ratio > tiny) & (ratio < _INF), xs * _ops.log(ratio),
                              xs * (_ops.log(xs) - _ops.log(ys))))
    r = _ops.where(both, v, _ops.where((x == 0) & (y >= 0), 0.0, _ops.full_like(v, _INF)))
    return _ops.where(_ops.isnan(x) | _ops.isnan(y), _NAN, r)


rel_entr_p = composite_primitive(
    "rel_entr", _rel_entr, "x log(x / y) for x, y > 0; 0 for x = 0, y >= 0; inf elsewhere.")


def _rel_entr_domain(x, y):
    """(mask, x, y): where the derivatives are log(x/y) + 1 and -x/y (x >= 0, y > 0),
    and x, y with 1 elsewhere (masked, finite)."""
    ok = (x >= 0) & (y > 0)
    return ok, _ops.where(ok, x, 1.0), _ops.where(ok, y, 1.0)


def _d_rel_entr_dx(x, y):
    ok, xs, ys = _rel_entr_domain(x, y)
    return _ops.where(ok, _ops.log(xs / ys) + 1.0, 0.0)


def _d_rel_entr_dy(x, y):
    ok, xs, ys = _rel_entr_domain(x, y)
    return _ops.where(ok, -xs / ys, 0.0)


# d/dx x log(x/y) = log(x/y) + 1, d/dy = -x/y  (elementary calculus, as JAX's
# autodiff of jax/_src/scipy/special.py rel_entr); 0 where the value is a constant
partial_rules(rel_entr_p, _d_rel_entr_dx, _d_rel_entr_dy)


def rel_entr(x: ArrayLike, y: ArrayLike) -> Tensor:
    """scipy.special.rel_entr: x log(x / y) for x, y > 0, 0 for x = 0 and y >= 0, inf
    elsewhere (real).  The x-derivative log(x / y) + 1 is -inf at x = 0."""
    x, y = operands("rel_entr", sc.rel_entr, x, y)
    return eager("rel_entr", rel_entr_p.bind, x, y)


def kl_div(x: ArrayLike, y: ArrayLike) -> Tensor:
    """scipy.special.kl_div: x log(x / y) - x + y for x, y > 0, y for x = 0 and y >= 0,
    inf elsewhere (real).  Where x / y over- or underflows scipy's x log(x / y) is
    infinite; here it is rel_entr's finite value (kl_div(1e-300, 1e300) = 1e300)."""
    x, y = operands("kl_div", sc.kl_div, x, y)
    return eager("kl_div", _kl_div, x, y)


def _kl_div(x, y):
    if x.dtype == _dtypes.float32 and _dtypes.float64 in x._device.driver.dtypes:
        # rel_entr - (x - y) cancels where x ~ y: float32 in double, rounded once (as
        # scipy's float32 loop, which calls its double function, and the kernel)
        wide = _kl_div(x.astype(_dtypes.float64), y.astype(_dtypes.float64))
        return wide.astype(_dtypes.float32)
    ok = (x >= 0) & (y >= 0) & ((x == 0) | (y > 0))   # rel_entr(0, y >= 0) = 0
    # (x - y is exact where x ~ y: only rel_entr's rounding meets the cancellation)
    # (at x = 0 this is y, but +0 for y = -0, where the kernel and scipy give -0: a select
    # of y there would cut the derivative in x, -inf at x = 0)
    return _ops.where(ok | _ops.isnan(x) | _ops.isnan(y), rel_entr_p.bind(x, y) - (x - y), _INF)


# sin(z)/z = sum_k (-1)^k z^2k / (2k+1)!, to z^8: exact to rounding for |z| < 0.15
_TAYLOR = tuple((-1) ** k / math.factorial(2 * k + 1) for k in range(5))
_TAYLOR_BELOW = 0.04


def sinc(x: ArrayLike) -> Tensor:
    """NumPy's (normalized) sinc: sin(pi x) / (pi x), 1 at 0 (numpy.sinc, not the
    unnormalized sin(x)/x).  Near 0 a Taylor polynomial, so derivatives of every order
    are right at and around 0 (sinc''(0) = -pi^2/3)."""
    x = to_tensor(x)
    if x.dtype.kind in "biu":
        x = _ops.astype(x, _dtypes.float64)   # numpy.sinc's dtype (np.sin would give float16)
    x, = operands("sinc", np.sin, x)
    return eager("sinc", _sinc, x)


def _sinc(x):
    small = _ops.abs(x) < _TAYLOR_BELOW
    y = math.pi * _ops.where(small, 1.0, x)
    z = math.pi * _ops.where(small, x, 0.0)
    return _ops.where(small, polynomial(_TAYLOR, z * z), _ops.sin(y) / y)
