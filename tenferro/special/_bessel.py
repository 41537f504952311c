"""Modified Bessel functions of the first kind of orders 0 and 1 and their
exponentially scaled forms: ``i0``, ``i0e``, ``i1``, ``i1e`` (real), scipy.special's
kernels on the CPU.  Each derivative is a composition of the four, so every order
is available."""
from __future__ import annotations

from typing import TYPE_CHECKING

import scipy.special as sc

from .. import _ops
from ._base import apply, holomorphic, kernel_primitive, operands, polynomial, ufunc_kernel

if TYPE_CHECKING:
    from collections.abc import Callable

    from .._tensor import ArrayLike, Tensor
    from ..autograd.extend import Primitive

i0_p = kernel_primitive("i0", ufunc_kernel(sc.i0), "I_0(x) (real).")
i0e_p = kernel_primitive("i0e", ufunc_kernel(sc.i0e), "exp(-|x|) I_0(x) (real).")
i1_p = kernel_primitive("i1", ufunc_kernel(sc.i1), "I_1(x) (real).")
i1e_p = kernel_primitive("i1e", ufunc_kernel(sc.i1e), "exp(-|x|) I_1(x) (real).")


def _unary(name: str, prim: Primitive, what: str) -> Callable[[ArrayLike], Tensor]:
    def f(x: ArrayLike) -> Tensor:
        x, = operands(name, getattr(sc, name), x)
        return apply(prim, x)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = "scipy.special.%s: %s, for real x." % (name, what)
    return f


i0 = _unary("i0", i0_p, "the modified Bessel function of the first kind of order 0")
i0e = _unary("i0e", i0e_p, "``exp(-|x|) i0(x)``, the exponentially scaled i0")
i1 = _unary("i1", i1_p, "the modified Bessel function of the first kind of order 1")
i1e = _unary("i1e", i1e_p, "``exp(-|x|) i1(x)``, the exponentially scaled i1")


# i1'(x) = sum_k (2k+1)/2 (x/2)^2k / (k! (k+1)!) to x^6 (DLMF 10.25.2, differentiated):
# exact to rounding for |x| < 1e-2, where i0 - i1/x would cancel (and 1/x is 1/0 at 0)
_SERIES = (0.5, 3.0 / 16.0, 5.0 / 384.0, 7.0 / 18432.0)
_SERIES_BELOW = 1e-2


def _near_0(x):
    """(|x| < 1e-2, i1'(x) there by its series, 1/x elsewhere, 1 there)."""
    small = _ops.abs(x) < _SERIES_BELOW
    xs = _ops.where(small, x, 0.0)
    return small, polynomial(_SERIES, xs * xs), 1.0 / _ops.where(small, 1.0, x)


def _d_i1(x, out):
    small, series, inv = _near_0(x)
    return _ops.where(small, series, apply(i0_p, x) - out * inv)


def _d_i1e(x, out):
    # near 0: (exp(-|x|) i1)' = exp(-|x|) (i1' - sign(x) i1)
    small, series, inv = _near_0(x)
    sign = _ops.sign(x)
    near = _ops.exp(-_ops.abs(x)) * (series - sign * apply(i1_p, x))
    return _ops.where(small, near, apply(i0e_p, x) - out * (sign + inv))


# i0' = i1  (DLMF 10.29.3; PyTorch derivatives.yaml i0)
holomorphic(i0_p, lambda x, out: apply(i1_p, x))
# i0e' = i1e - sign(x) i0e  (product rule on exp(-|x|) i0 with DLMF 10.29.3; PyTorch
# derivatives.yaml special_i0e)
holomorphic(i0e_p, lambda x, out: apply(i1e_p, x) - _ops.sign(x) * out)
# i1' = i0 - i1/x, its series near 0 (1/2 at 0)  (DLMF 10.29.2 with nu = 1; PyTorch
# derivatives.yaml special_i1 / FunctionsManual.cpp i1_backward)
holomorphic(i1_p, _d_i1)
# i1e' = i0e - i1e (sign(x) + 1/x), the series near 0 (1/2 at 0)  (PyTorch
# FunctionsManual.cpp i1e_backward)
holomorphic(i1e_p, _d_i1e)
