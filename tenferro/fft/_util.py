"""Argument handling shared by the tenferro.fft functions, as scipy.fft's helpers do it
(``_asfarray``, ``_init_nd_shape_and_axes``, ``_fix_shape``, ``_normalization``,
``_workers``), with errors naming the tenferro function."""
from __future__ import annotations

import operator
import os
from typing import TYPE_CHECKING

import numpy as np

from .. import _ops
from .._errors import UnsupportedOperation
from .._ops._common import AxisError, normalize_axis, to_tensor

if TYPE_CHECKING:
    from typing import Literal, Optional

    Norm = Optional[Literal["backward", "ortho", "forward"]]   # scipy's; None: "backward"

_NORM = {None: 0, "backward": 0, "ortho": 1, "forward": 2}
_FLOAT_OR_COMPLEX = frozenset(np.dtype(t) for t in ("float32", "float64", "complex64",
                                                    "complex128"))
COMPLEX = {np.dtype("float32"): np.dtype("complex64"),
           np.dtype("float64"): np.dtype("complex128")}


def name(op):
    return "tenferro.fft." + op


def as_inexact(op, x):
    """``x`` as a CPU Tensor of a float or complex dtype (bools and integers promoted to
    float64, as scipy.fft does); UnsupportedOperation on another device."""
    x = to_tensor(x)
    if x.device.type != "cpu":
        raise UnsupportedOperation(x.device, name(op), x.dtype,
                                   "tenferro.fft has CPU kernels only; move the tensor "
                                   "with .to('cpu')")
    if x.dtype not in _FLOAT_OR_COMPLEX:
        x = x.astype(np.float64)
    return x


def as_complex(x):
    return x.astype(COMPLEX[x.dtype]) if x.dtype.kind != "c" else x


def require_real(op, x):
    if x.dtype.kind == "c":
        raise TypeError("%s: x must be a real sequence, got %s" % (name(op), x.dtype))


def inorm(op, norm, forward):
    """pocketfft's normalization code for scipy's ``norm`` in direction ``forward``."""
    try:
        code = _NORM[norm]
    except (KeyError, TypeError):
        raise ValueError('%s: invalid norm value %r, should be "backward", "ortho" or '
                         '"forward"' % (name(op), norm)) from None
    return code if forward else 2 - code


def workers(op, w):
    """scipy's ``workers``: None (tenferro's thread count, read at each call), a positive
    count, or -k for os.cpu_count() + 1 - k."""
    if w is None:
        return None
    try:
        w = operator.index(w)
    except TypeError:
        raise TypeError("%s: workers must be an integer or None, got %r"
                        % (name(op), w)) from None
    cpus = os.cpu_count() or 1
    if w < 0:
        if w < -cpus:
            raise ValueError("%s: workers value out of range; got %d, must not be less "
                             "than %d" % (name(op), w, -cpus))
        w += 1 + cpus
    elif w == 0:
        raise ValueError("%s: workers must not be zero" % name(op))
    return w


def no_plan(op, plan):
    if plan is not None:
        raise NotImplementedError("%s: passing a precomputed plan is not supported (nor "
                                  "by scipy.fft)" % name(op))


def _ints(op, what, v):
    if type(v) is int:   # the common case, first
        return [v]
    if isinstance(v, (int, np.integer)) or hasattr(v, "__index__") and np.ndim(v) == 0:
        v = (v,)
    try:
        return [operator.index(a) for a in v]
    except TypeError:
        raise TypeError("%s: %s must be an integer or a sequence of integers, got %r"
                        % (name(op), what, v)) from None


def one_axis(op, x, n, axis):
    """``(shape, axes)`` of a 1-D transform: ``n`` (None: x's length) along ``axis``."""
    (axis,) = _ints(op, "axis", axis)
    axis = normalize_axis("fft." + op, axis, x.ndim)
    if n is None:
        n = x.shape[axis]
    else:
        (n,) = _ints(op, "n", n)
    if n < 1:
        raise ValueError("%s: invalid number of data points (%d) specified" % (name(op), n))
    return (n,), (axis,)


def shape_and_axes(op, x, s, axes):
    """scipy's ``_init_nd_shape_and_axes``: (the transform lengths, the axes), checked."""
    if axes is not None:
        axes = _ints(op, "axes", axes)
        bad = [a for a in axes if not -x.ndim <= a < x.ndim]
        if bad:
            raise AxisError("%s: axes %s exceed the dimension %d of the input"
                            % (name(op), bad, x.ndim))
        axes = [a % x.ndim for a in axes]
        if len(set(axes)) != len(axes):
            raise ValueError("%s: all axes must be unique, got %s" % (name(op), axes))
    if s is not None:
        s = _ints(op, "s", s)
        if axes is not None and len(axes) != len(s):
            raise ValueError("%s: when given, axes and s must have the same length, got "
                             "%d and %d" % (name(op), len(axes), len(s)))
        if axes is None:
            if len(s) > x.ndim:
                raise ValueError("%s: s (%s) has more entries than the input has "
                                 "dimensions (%d)" % (name(op), s, x.ndim))
            axes = list(range(x.ndim - len(s), x.ndim))
        s = [x.shape[a] if k == -1 else k for k, a in zip(s, axes)]
    else:
        axes = list(range(x.ndim)) if axes is None else axes
        s = [x.shape[a] for a in axes]
    if any(k < 1 for k in s):
        raise ValueError("%s: invalid number of data points (%s) specified" % (name(op), s))
    return tuple(s), tuple(axes)


def fix_shape(x, shape, axes):
    """``x`` sliced or zero-padded to ``shape`` along ``axes`` (tenferro ops, so the
    derivative slices or pads back)."""
    xs = x.shape
    if all(xs[ax] == n for n, ax in zip(shape, axes)):
        return x
    index = [slice(None)] * x.ndim
    pad = [(0, 0)] * x.ndim
    for n, ax in zip(shape, axes):
        index[ax] = slice(0, min(n, x.shape[ax]))
        pad[ax] = (0, max(0, n - x.shape[ax]))
    if any(ix.stop is not None and ix.stop < x.shape[i] for i, ix in enumerate(index)):
        x = x[tuple(index)]
    if any(p[1] for p in pad):
        x = _ops.pad(x, pad)
    return x
