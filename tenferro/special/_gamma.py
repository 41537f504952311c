"""The gamma family: ``gammaln``, ``digamma`` (``psi``), ``polygamma``, ``betaln``,
``gammainc``, ``gammaincc``; scipy.special's kernels on the CPU, derivatives to any
order through each other (gammaln' = digamma, digamma' = polygamma(1, .),
polygamma(n, .)' = polygamma(n + 1, .))."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import scipy.special as sc

from .. import _ops
from .._tensor import Tensor
from ._base import (apply, holomorphic, kernel_primitive, no_derivative, operands,
                    partial_rules, ufunc_kernel)
from ._logistic import xlogy

if TYPE_CHECKING:
    from .._tensor import ArrayLike


def _polygamma_kernel(x, *, n):
    with np.errstate(all="ignore"):
        return np.asarray(sc.polygamma(n, x), dtype=x.dtype)


gammaln_p = kernel_primitive("gammaln", ufunc_kernel(sc.gammaln),
                             "log|Gamma(x)| (real x).")
digamma_p = kernel_primitive("digamma", ufunc_kernel(sc.psi),
                             "psi(x) = Gamma'(x)/Gamma(x) (real or complex x).")
polygamma_p = kernel_primitive("polygamma", _polygamma_kernel,
                               "psi^(n)(x), the n-th derivative of digamma (param n >= 0, "
                               "real x; float32 kept).")
betaln_p = kernel_primitive("betaln", ufunc_kernel(sc.betaln), "log|B(a, b)| (real).")
gammainc_p = kernel_primitive("gammainc", ufunc_kernel(sc.gammainc),
                              "P(a, x), the regularized lower incomplete gamma function.")
gammaincc_p = kernel_primitive("gammaincc", ufunc_kernel(sc.gammaincc),
                               "Q(a, x) = 1 - P(a, x), the regularized upper one.")


def gammaln(x: ArrayLike) -> Tensor:
    """scipy.special.gammaln: log|Gamma(x)| for real ``x`` (inf at the poles 0, -1, ...)."""
    x, = operands("gammaln", sc.gammaln, x)
    return apply(gammaln_p, x)


def digamma(x: ArrayLike) -> Tensor:
    """scipy.special.digamma (alias ``psi``): Gamma'(x)/Gamma(x), real or complex ``x``
    (derivatives for real ``x`` only: scipy has no complex polygamma)."""
    x, = operands("digamma", sc.psi, x)
    return apply(digamma_p, x)


psi = digamma


def polygamma(n: ArrayLike, x: ArrayLike) -> Tensor:
    """scipy.special.polygamma: psi^(n)(x), the n-th derivative of digamma, for real
    ``x`` and integer orders ``n >= 0`` (an int or an integer array broadcast against
    ``x``; not differentiable in ``n``).  float32 ``x`` gives float32 (scipy's Python
    implementation returns float64)."""
    x, = operands("polygamma", sc.gammaln, x)
    n = np.asarray(_ops.to_numpy(n) if isinstance(n, Tensor) else n)
    if n.dtype.kind not in "biuf" or not np.all(np.isfinite(n)) or np.any(n < 0) \
            or np.any(n != np.floor(n)):
        raise ValueError("tenferro.special.polygamma: n must be an integer >= 0 (or an "
                         "array of them), got %r" % (n.tolist(),))
    if n.ndim == 0:
        return apply(polygamma_p, x, n=int(n))
    shape = np.broadcast_shapes(n.shape, x.shape)
    x = _ops.broadcast_to(x, shape)
    n = np.broadcast_to(n, shape)
    out = None
    for k in np.unique(n):
        v = apply(polygamma_p, x, n=int(k))
        out = v if out is None else _ops.where(_ops.asarray(n == k, device=x.device), v, out)
    return out


def betaln(a: ArrayLike, b: ArrayLike) -> Tensor:
    """scipy.special.betaln: log|B(a, b)| = log|Gamma(a) Gamma(b) / Gamma(a + b)| (real),
    scipy's kernel (accurate where the difference of gammaln's would cancel)."""
    a, b = operands("betaln", sc.betaln, a, b)
    return apply(betaln_p, a, b)


def gammainc(a: ArrayLike, x: ArrayLike) -> Tensor:
    """scipy.special.gammainc: P(a, x), the regularized lower incomplete gamma function
    (a > 0, x >= 0; NaN elsewhere).  Differentiable in ``x`` only."""
    a, x = operands("gammainc", sc.gammainc, a, x)
    return apply(gammainc_p, a, x)


def gammaincc(a: ArrayLike, x: ArrayLike) -> Tensor:
    """scipy.special.gammaincc: Q(a, x) = 1 - P(a, x), the regularized upper incomplete
    gamma function.  Differentiable in ``x`` only."""
    a, x = operands("gammaincc", sc.gammaincc, a, x)
    return apply(gammaincc_p, a, x)


# -- rules ---------------------------------------------------------------------------------

def _real_only(op, x):
    if x.dtype.kind == "c":
        raise NotImplementedError(
            "tenferro.special.%s: no derivative for complex input (it is polygamma(1, z), "
            "and scipy.special.polygamma takes real arguments only)" % op)


def _d_digamma(x, out):
    _real_only("digamma", x)
    return apply(polygamma_p, x, n=1)


# gammaln' = digamma  (DLMF 5.2.2: psi = Gamma'/Gamma; d log|Gamma| = psi for real x too)
holomorphic(gammaln_p, lambda x, out: apply(digamma_p, x))
# digamma' = polygamma(1, .)  (DLMF 5.15.1)
holomorphic(digamma_p, _d_digamma)
# polygamma(n, .)' = polygamma(n + 1, .)  (DLMF 5.15: psi^(n) = d^n psi / dz^n)
holomorphic(polygamma_p, lambda x, out, *, n: apply(polygamma_p, x, n=n + 1))
# d betaln / da = psi(a) - psi(a + b), and symmetric  (DLMF 5.12.1 with 5.2.2)
partial_rules(betaln_p, lambda a, b: apply(digamma_p, a) - apply(digamma_p, a + b),
              lambda a, b: apply(digamma_p, b) - apply(digamma_p, a + b))


def _d_gammainc_dx(a, x):
    # x^(a-1) e^-x / Gamma(a)  (DLMF 8.2.1, 8.2.4; JAX lax/special.py igamma_gradx),
    # xlogy so that a = 1, x = 0 gives 1 (not 0 * -inf)
    return _ops.exp(xlogy(a - 1.0, x) - x - apply(gammaln_p, a))


_NO_A = "the a-derivative of the incomplete gamma function needs a series tenferro " \
        "does not have"
partial_rules(gammainc_p, no_derivative("gammainc", "a", _NO_A), _d_gammainc_dx)
# Q = 1 - P  (DLMF 8.2.4)
partial_rules(gammaincc_p, no_derivative("gammaincc", "a", _NO_A),
              lambda a, x: -_d_gammainc_dx(a, x))
