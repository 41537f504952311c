"""The error functions: ``erf``, ``erfc``, ``erfcx``, ``erfinv``.

``erf`` of real input is tenferro's own ``erf`` (SIMD kernels, every device), and
``erfc`` of real input tenferro's own CPU kernel (``_fast``: C99's erfc, libmvec's SIMD
variant); complex ``erf`` and ``erfc`` and the others run scipy.special's kernels on the
CPU.  Their derivatives are
compositions of ``exp`` and themselves, so every order is available."""
from __future__ import annotations

from typing import TYPE_CHECKING

import math

import scipy.special as sc

from .. import _ops
from ._base import apply, holomorphic, kernel_primitive, operands, ufunc_kernel
from ._fast import cpu_kernel

if TYPE_CHECKING:
    from .._tensor import ArrayLike, Tensor

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_SQRT_PI_OVER_TWO = math.sqrt(math.pi) / 2.0

erf_p = kernel_primitive("erf", ufunc_kernel(sc.erf),
                         "The error function of complex z (real x: tenferro.erf).")
erfc_p = kernel_primitive("erfc", cpu_kernel("erfc", ufunc_kernel(sc.erfc)),
                          "1 - erf(z) (real or complex).",
                          "tenferro's (real), scipy.special (complex)")
erfcx_p = kernel_primitive("erfcx", ufunc_kernel(sc.erfcx),
                           "exp(z^2) erfc(z) (real or complex).")
erfinv_p = kernel_primitive("erfinv", ufunc_kernel(sc.erfinv),
                            "The inverse of erf on (-1, 1) (real).")


def erf(z: ArrayLike) -> Tensor:
    """scipy.special.erf: 2/sqrt(pi) * integral of exp(-t^2) from 0 to z, real or
    complex."""
    z, = operands("erf", sc.erf, z)
    if z.dtype.kind != "c":
        return _ops.erf(z)
    return apply(erf_p, z)


def erfc(z: ArrayLike) -> Tensor:
    """scipy.special.erfc: 1 - erf(z), accurate where erf(z) is close to 1."""
    z, = operands("erfc", sc.erfc, z)
    return apply(erfc_p, z)


def erfcx(z: ArrayLike) -> Tensor:
    """scipy.special.erfcx: exp(z^2) erfc(z), the scaled complementary error function."""
    z, = operands("erfcx", sc.erfcx, z)
    return apply(erfcx_p, z)


def erfinv(y: ArrayLike) -> Tensor:
    """scipy.special.erfinv: x with erf(x) = y, for real y in [-1, 1] (+-inf at +-1, NaN
    outside); its derivative sqrt(pi)/2 exp(erfinv(y)^2) is inf at +-1."""
    y, = operands("erfinv", sc.erfinv, y)
    return apply(erfinv_p, y)


def _gauss(z):
    return _ops.exp(-(z * z))


# erf' = 2/sqrt(pi) exp(-z^2)  (DLMF 7.2.1; PyTorch derivatives.yaml erf)
holomorphic(erf_p, lambda z, out: _TWO_OVER_SQRT_PI * _gauss(z))
# erfc' = -2/sqrt(pi) exp(-z^2)  (DLMF 7.2.2; PyTorch derivatives.yaml erfc)
holomorphic(erfc_p, lambda z, out: -_TWO_OVER_SQRT_PI * _gauss(z))
# erfcx' = 2 z erfcx(z) - 2/sqrt(pi)  (product rule on exp(z^2) erfc(z), DLMF 7.2.2;
# PyTorch derivatives.yaml special_erfcx)
holomorphic(erfcx_p, lambda z, out: 2.0 * z * out - _TWO_OVER_SQRT_PI)
# erfinv' = sqrt(pi)/2 exp(erfinv(y)^2)  (inverse-function rule on DLMF 7.2.1; PyTorch
# derivatives.yaml erfinv)
holomorphic(erfinv_p, lambda y, out: _SQRT_PI_OVER_TWO * _ops.exp(out * out))
