"""torch.nn.functional's normalizations over the trailing dimensions: ``layer_norm``
and ``rms_norm`` (PyTorch 2.4's), compositions of tenferro's reductions and
elementwise ops, so they run on every device, differentiate to any order in the
input, the weight and the bias, and fuse under ``jit`` (each reduction with the
elementwise work before it); a plain eager call on the CPU runs them so compiled
(:func:`._kernel.compiled`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from .. import _dtypes, _ops
from .._tensor import Tensor
from ._activations import operand
from ._kernel import compiled

if TYPE_CHECKING:
    from .._tensor import ArrayLike


def _normalized(name, x, normalized_shape):
    """``normalized_shape`` as a tuple, checked against the trailing dimensions of
    ``x``; returns (shape, the reduced axes)."""
    try:
        shape = (normalized_shape,) if isinstance(normalized_shape, int) \
            else tuple(normalized_shape)
    except TypeError:
        shape = (None,)
    if not all(isinstance(n, int) and not isinstance(n, bool) for n in shape):
        raise TypeError("tenferro.nn.%s: normalized_shape must be an int or a tuple of "
                        "ints, got %r" % (name, normalized_shape))
    if not shape:
        raise ValueError("tenferro.nn.%s: normalized_shape must have at least one "
                         "dimension, got ()" % name)
    if len(shape) > x.ndim or tuple(x.shape[x.ndim - len(shape):]) != shape:
        raise ValueError("tenferro.nn.%s: normalized_shape %s does not match the trailing "
                         "dimensions of the input of shape %s"
                         % (name, shape, tuple(x.shape)))
    return shape, tuple(range(x.ndim - len(shape), x.ndim))


def _param(name, what, p, shape, x):
    """The weight or bias ``p`` (None: absent) as a tensor of ``x``'s device, of
    exactly ``shape`` (PyTorch's check)."""
    if p is None:
        return None
    p = operand(name, p) if isinstance(p, Tensor) else \
        operand(name, _ops.asarray(p, device=x.device))
    if tuple(p.shape) != shape:
        raise ValueError("tenferro.nn.%s: %s must have the normalized shape %s, got shape %s"
                         % (name, what, shape, tuple(p.shape)))
    return p


def layer_norm(input: ArrayLike, normalized_shape: int | Sequence[int],
               weight: ArrayLike | None = None, bias: ArrayLike | None = None,
               eps: float = 1e-5) -> Tensor:
    """torch.nn.functional.layer_norm: ``(x - mean) / sqrt(var + eps) * weight + bias``,
    the mean and the (biased) variance taken over the trailing dimensions
    ``normalized_shape`` (an int: the last one); ``weight`` and ``bias`` have exactly
    that shape.  Real input only, as PyTorch's."""
    x = operand("layer_norm", input)
    shape, axes = _normalized("layer_norm", x, normalized_shape)
    weight = _param("layer_norm", "weight", weight, shape, x)
    bias = _param("layer_norm", "bias", bias, shape, x)
    return _layer_norm(x, axes, weight, bias, float(eps))


@compiled
def _layer_norm(x, axes, weight, bias, eps):
    xc = x - _ops.mean(x, axis=axes, keepdims=True)
    y = xc * _ops.rsqrt(_ops.mean(xc * xc, axis=axes, keepdims=True) + eps)
    if weight is not None:
        y = y * weight
    if bias is not None:
        y = y + bias
    return y


def rms_norm(input: ArrayLike, normalized_shape: int | Sequence[int],
             weight: ArrayLike | None = None, eps: float | None = None) -> Tensor:
    """torch.nn.functional.rms_norm (PyTorch 2.4): ``x / sqrt(mean(x^2) + eps) *
    weight``, the mean over the trailing dimensions ``normalized_shape``; ``eps=None``
    is the machine epsilon of the input's dtype (``tenferro.finfo(dtype).eps``).  Real
    input only (PyTorch squares complex input without conjugating, which is no norm)."""
    x = operand("rms_norm", input)
    shape, axes = _normalized("rms_norm", x, normalized_shape)
    weight = _param("rms_norm", "weight", weight, shape, x)
    if eps is None:
        eps = float(_dtypes.finfo(x.dtype).eps)
    return _rms_norm(x, axes, weight, float(eps))


@compiled
def _rms_norm(x, axes, weight, eps):
    y = x * _ops.rsqrt(_ops.mean(x * x, axis=axes, keepdims=True) + eps)
    return y if weight is None else y * weight
