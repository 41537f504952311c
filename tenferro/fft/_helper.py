"""scipy.fft's helpers: the sample frequencies (fftfreq, rfftfreq) and the half-space
swaps (fftshift, ifftshift, differentiable rolls); next_fast_len/prev_fast_len are
scipy's own (integer arithmetic, nothing to wrap)."""
from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Optional, Sequence, Union

import numpy as np

from .. import _ops
from .._ops._common import to_tensor
from . import _util as u

if TYPE_CHECKING:
    from .._tensor import ArrayLike, DeviceLike, DTypeLike, Tensor

    # scipy's own (scipy ships no type information): declared for type checkers
    def next_fast_len(target: int, real: bool = False) -> int: ...
    def prev_fast_len(target: int, real: bool = False) -> int: ...
else:
    from scipy.fft import next_fast_len, prev_fast_len  # noqa: F401  (re-exported)


def _freq_args(op, n, d):
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError("%s: n must be an integer, got %r" % (u.name(op), n)) from None
    if n < 1:
        raise ValueError("%s: n must be positive, got %d" % (u.name(op), n))
    return n, 1.0 / (n * d)


def _freqs(k, scale, dtype, device):
    dtype = np.float64 if dtype is None else dtype
    return _ops.asarray((k * scale).astype(dtype), device=device)


def fftfreq(n: int, d: float = 1.0, *, dtype: DTypeLike = None,
            device: DeviceLike = None) -> Tensor:
    """scipy.fft.fftfreq: the sample frequencies [0, 1, ..., -1] / (d*n) of an n-point
    DFT (float64 unless ``dtype``)."""
    n, scale = _freq_args("fftfreq", n, d)
    k = np.concatenate([np.arange(0, (n - 1) // 2 + 1), np.arange(-(n // 2), 0)])
    return _freqs(k, scale, dtype, device)


def rfftfreq(n: int, d: float = 1.0, *, dtype: DTypeLike = None,
            device: DeviceLike = None) -> Tensor:
    """scipy.fft.rfftfreq: the sample frequencies [0, 1, ..., n//2] / (d*n) of rfft's
    bins (float64 unless ``dtype``)."""
    n, scale = _freq_args("rfftfreq", n, d)
    return _freqs(np.arange(0, n // 2 + 1), scale, dtype, device)


def _shift(op, x, axes, sign):
    x = to_tensor(x)
    if axes is None:
        axes = tuple(range(x.ndim))
    elif isinstance(axes, (int, np.integer)):
        axes = (int(axes),)
    axes = tuple(u.normalize_axis("fft." + op, a, x.ndim) for a in axes)
    if not axes:
        return _ops.copy(x)
    return _ops.roll(x, tuple(sign * (x.shape[a] // 2) for a in axes), axes)


def fftshift(x: ArrayLike, axes: Union[int, Sequence[int], None] = None) -> Tensor:
    """scipy.fft.fftshift: the zero frequency moved to the centre (all ``axes`` by
    default)."""
    return _shift("fftshift", x, axes, 1)


def ifftshift(x: ArrayLike, axes: Optional[Union[int, Sequence[int]]] = None) -> Tensor:
    """scipy.fft.ifftshift: the inverse of fftshift."""
    return _shift("ifftshift", x, axes, -1)
