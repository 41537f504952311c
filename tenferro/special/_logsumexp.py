"""``logsumexp`` (with scipy's weights ``b`` and ``return_sign``), ``softmax`` and
``log_softmax``: reductions written with tenferro's ops, so they run on every device
those ops run on and differentiate to any order.

The shift by the maximum cancels exactly, so it is taken from the detached input and
carries no derivative (as tenferro.logsumexp).  A plain eager call of softmax or
log_softmax on the CPU runs tenferro's row kernel instead (``_fast``: one pass for the
maximum, one for exp and the sum, one for the result, in C).  Where scipy's edge values come from
the order of its operations (softmax of a slice holding +inf is NaN throughout; an
all -inf slice gives -inf for logsumexp, NaN for softmax), the same order is kept.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Literal, overload

from .. import _dtypes, _ops
from .._ops._common import normalize_axes, to_tensor
from ..autograd._engine import detach
from ._fast import eager

if TYPE_CHECKING:
    from .._tensor import ArrayLike, AxisLike, Tensor

_INEXACT = (_dtypes.float32, _dtypes.float64, _dtypes.complex64, _dtypes.complex128)


def _floating(*xs):
    """The inputs as tensors of one inexact dtype (ints and bools promote to float64)."""
    xs = [to_tensor(x) for x in xs]
    dt = _dtypes.result_type(*xs) if len(xs) > 1 else xs[0].dtype
    if dt not in _INEXACT:
        dt = _dtypes.float64
    return [x if x.dtype == dt else _ops.astype(x, dt) for x in xs]


def _shift(x, axes, finite):
    """The detached maximum of Re x over ``axes`` (kept), 0 where not finite if
    ``finite``."""
    r = detach(x)
    m = _ops.max(_ops.real(r) if r.dtype.kind == "c" else r, axis=axes, keepdims=True)
    return _ops.where(_ops.isfinite(m), m, 0.0) if finite else m


@overload
def logsumexp(a: ArrayLike, axis: AxisLike = None, b: ArrayLike | None = None,
              keepdims: bool = False, return_sign: Literal[False] = False) -> Tensor: ...
@overload
def logsumexp(a: ArrayLike, axis: AxisLike, b: ArrayLike | None, keepdims: bool,
              return_sign: Literal[True]) -> tuple[Tensor, Tensor]: ...
@overload
def logsumexp(a: ArrayLike, axis: AxisLike = None, b: ArrayLike | None = None,
              keepdims: bool = False, *, return_sign: Literal[True]
              ) -> tuple[Tensor, Tensor]: ...


def logsumexp(a: ArrayLike, axis: AxisLike = None, b: ArrayLike | None = None,
              keepdims: bool = False, return_sign: bool = False
              ) -> Tensor | tuple[Tensor, Tensor]:
    """scipy.special.logsumexp: log(sum(b * exp(a))) over ``axis`` (None: all), stably.

    ``b`` (broadcast against ``a``) weights the terms and may be negative; where it is
    0 the term is left out even if ``a`` is inf or NaN (so the derivative in ``b`` is 0
    there).  A negative sum gives NaN, or with ``return_sign=True`` the pair
    ``(log|sum|, sign)`` (for complex input the sign is the phase ``sum/|sum|``).  0-d input
    counts as 1-d (``keepdims`` then gives shape (1,)); an empty reduction gives -inf.
    """
    if b is None:
        a, = _floating(a)
    else:
        a, b = _ops.broadcast_arrays(*_floating(a, b))
    if a.ndim == 0:
        a = _ops.reshape(a, (1,))
        b = None if b is None else _ops.reshape(b, (1,))
    axes = normalize_axes("special.logsumexp", axis, a.ndim)
    if a.size == 0:
        shape = tuple(1 if i in axes else n for i, n in enumerate(a.shape))
        out = _ops.full(shape, -float("inf"), dtype=a.dtype, device=a.device)
        sgn = _ops.sign(out)
    else:
        if b is not None:
            a = _ops.where(b != 0, a, -float("inf"))
        m = _shift(a, axes, True)
        e = _ops.exp(a - m)
        s = _ops.sum(e if b is None else b * e, axis=axes, keepdims=True)
        if return_sign:
            mag = _ops.abs(s)
            sgn = _ops.sign(s) if s.dtype.kind != "c" else s / _ops.where(mag == 0, 1.0, mag)
            out = _ops.log(mag) + m
        else:
            out = _ops.log(s) + m
    if not keepdims:
        out = _ops.squeeze(out, axes)
        sgn = _ops.squeeze(sgn, axes) if return_sign else None
    return (out, sgn) if return_sign else out


def softmax(x: ArrayLike, axis: AxisLike = None) -> Tensor:
    """scipy.special.softmax: exp(x) / sum(exp(x)) over ``axis`` (None: all elements)."""
    x, = _floating(x)
    axes = normalize_axes("special.softmax", axis, x.ndim)
    return eager("softmax", lambda x: _softmax(x, axes), x, axes=axes)


def _softmax(x, axes):
    e = _ops.exp(x - _shift(x, axes, False))
    return e / _ops.sum(e, axis=axes, keepdims=True)


def log_softmax(x: ArrayLike, axis: AxisLike = None) -> Tensor:
    """scipy.special.log_softmax: x - logsumexp(x) over ``axis`` (None: all elements),
    computed as (x - max) - log(sum(exp(x - max))) for accuracy."""
    x, = _floating(x)
    axes = normalize_axes("special.log_softmax", axis, x.ndim)
    return eager("log_softmax", lambda x: _log_softmax(x, axes), x, axes=axes)


def _log_softmax(x, axes):
    t = x - _shift(x, axes, True)
    return t - _ops.log(_ops.sum(_ops.exp(t), axis=axes, keepdims=True))
