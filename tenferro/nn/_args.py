"""Argument handling shared by tenferro.nn's convolutions and poolings, with PyTorch's
rules and errors that name the tenferro function."""
import operator

import numpy as np

from .._errors import UnsupportedOperation
from .._ops._common import to_tensor


def name(fn):
    return "tenferro.nn." + fn


def ints(fn, what, v, n, minimum):
    """``v`` (an int or a sequence of ``n`` ints) as a tuple of ``n`` ints >= ``minimum``."""
    try:
        t = (operator.index(v),) * n if np.ndim(v) == 0 else tuple(operator.index(a) for a in v)
    except TypeError:
        raise TypeError("%s: %s must be an int or a tuple of %d ints, got %r"
                        % (name(fn), what, n, v)) from None
    if len(t) == 1 and n > 1:
        t = t * n
    if len(t) != n:
        raise ValueError("%s: %s must be an int or a tuple of %d ints, got %r"
                         % (name(fn), what, n, v))
    if any(a < minimum for a in t):
        raise ValueError("%s: %s must be %s, got %r" % (
            name(fn), what, "positive" if minimum == 1 else "non-negative", v))
    return t


def on_cpu(fn, x):
    """``x`` as a Tensor, UnsupportedOperation naming ``fn`` unless it is on the CPU."""
    x = to_tensor(x)
    if x.device.type != "cpu":
        raise UnsupportedOperation(x.device, name(fn), x.dtype,
                                   "tenferro.nn's convolutions and poolings have CPU "
                                   "kernels only; move the tensor with .to('cpu')")
    return x


def batched(fn, x, nsd, what="input"):
    """``(x with a batch axis, whether one was added)``: PyTorch takes (C, *spatial)
    unbatched or (N, C, *spatial) batched inputs."""
    if x.ndim not in (nsd + 1, nsd + 2):
        raise ValueError("%s: expected %dD (unbatched) or %dD (batched) %s, but got %s of "
                         "shape %s" % (name(fn), nsd + 1, nsd + 2, what, what, x.shape))
    if x.ndim == nsd + 1:
        return x.reshape((1,) + x.shape), True
    return x, False


def float_dtype(fn, x, what="input", complex_ok=True):
    """Refuse integer and bool inputs (PyTorch's CPU kernels do too)."""
    kinds = "fc" if complex_ok else "f"
    if x.dtype.kind not in kinds:
        raise TypeError("%s: %s must be %s, got %s" % (
            name(fn), what, "floating point or complex" if complex_ok else "floating point",
            x.dtype))
