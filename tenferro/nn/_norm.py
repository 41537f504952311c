"""torch.nn.functional's normalizations over the trailing dimensions: ``layer_norm``
and ``rms_norm`` (PyTorch 2.4's): the argument checks and PyTorch's signatures in
front of the primitives ``nn.layer_norm`` and ``nn.rms_norm`` (:mod:`._norm_prim`: a
row kernel on the CPU, the composition of tenferro's ops elsewhere, PyTorch's backward
formulas as rules, so derivatives of any order in the input, the weight and the
bias).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from .. import _dtypes, _ops
from .._tensor import Tensor
from ._activations import operand
from ._norm_prim import PRIMS

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


def _bind(rms, x, ndim, weight, bias, eps):
    """The primitive on x, weight and bias (None: absent) brought to one dtype (NumPy's
    promotion; PyTorch would refuse mixed dtypes)."""
    parts = [p for p in (x, weight, bias) if p is not None]
    dt = _dtypes.result_type(*parts)
    parts = [p if p.dtype == dt else _ops.astype(p, dt) for p in parts]
    return PRIMS[rms].bind(*parts, ndim=ndim, eps=float(eps), weighted=weight is not None,
                           biased=bias is not None)


def layer_norm(input: ArrayLike, normalized_shape: int | Sequence[int],
               weight: ArrayLike | None = None, bias: ArrayLike | None = None,
               eps: float = 1e-5) -> Tensor:
    """Layer normalization over the trailing dimensions (torch.nn.functional.layer_norm).

    ``(x - mean) / sqrt(var + eps) * weight + bias``, the mean and the biased variance
    taken over the trailing dimensions ``normalized_shape``.  A CPU row kernel (the
    statistics in double) for float32 and float64; the composition of tenferro's ops
    elsewhere (and fused under ``jit``).

    Parameters
    ----------
    input : Tensor or array_like, shape ``(..., *normalized_shape)``
        The input, real (ints and bools become float64).
    normalized_shape : int or sequence of int
        The trailing dimensions to normalize over (an int: the last one).
    weight : Tensor or array_like, shape normalized_shape, optional
        The scale (default 1).
    bias : Tensor or array_like, shape normalized_shape, optional
        The shift (default 0).
    eps : float, default 1e-5
        Added to the variance.

    Returns
    -------
    Tensor
        ``input``'s shape, in the operands' common dtype.

    Raises
    ------
    TypeError
        If ``input`` is complex (as PyTorch) or not numeric, or ``normalized_shape`` is
        not an int or a tuple of ints.
    ValueError
        If ``normalized_shape`` is empty or does not match the trailing dimensions of
        ``input``, or ``weight`` or ``bias`` does not have exactly that shape.

    Notes
    -----
    Differentiable: yes in ``input``, ``weight`` and ``bias``, forward and reverse, real,
    to any order: PyTorch's backward formulas (torch/_decomp's
    ``native_layer_norm_backward``: ``dx = rstd / N (N g - sum(g) - xhat sum(g xhat))``
    with ``g = ct * weight``) as the rule, bound as a backward primitive (one CPU kernel
    call) that is itself differentiable; the JVP uses the Jacobian's symmetry.

    See Also
    --------
    torch.nn.functional.layer_norm, rms_norm

    Examples
    --------
    >>> x = [[1.0, 2.0, 3.0], [0.0, 0.0, 3.0]]
    >>> tf.round(tf.nn.layer_norm(x, 3), 6)
    tensor([[-1.224736,  0.      ,  1.224736],
            [-0.707105, -0.707105,  1.41421 ]])
    """
    x = operand("layer_norm", input)
    shape, axes = _normalized("layer_norm", x, normalized_shape)
    weight = _param("layer_norm", "weight", weight, shape, x)
    bias = _param("layer_norm", "bias", bias, shape, x)
    return _bind(False, x, len(axes), weight, bias, eps)


def rms_norm(input: ArrayLike, normalized_shape: int | Sequence[int],
             weight: ArrayLike | None = None, eps: float | None = None) -> Tensor:
    """Root-mean-square normalization (torch.nn.functional.rms_norm, PyTorch 2.4).

    ``x / sqrt(mean(x^2) + eps) * weight``, the mean over the trailing dimensions
    ``normalized_shape``.  Real input only (PyTorch squares complex input without
    conjugating, which is no norm).

    Parameters
    ----------
    input, normalized_shape
        As for :func:`layer_norm`.
    weight : Tensor or array_like, shape normalized_shape, optional
        The scale (default 1).
    eps : float, optional
        Added to the mean square (default: the machine epsilon of the dtype,
        ``tenferro.finfo(dtype).eps``, as PyTorch).

    Returns
    -------
    Tensor
        ``input``'s shape, in the operands' common dtype.

    Raises
    ------
    TypeError, ValueError
        As for :func:`layer_norm` (``weight`` only).

    Notes
    -----
    Differentiable: yes in ``input`` and ``weight``, forward and reverse, real, to any
    order, as :func:`layer_norm` with the mean taken as 0 and no ``sum(g)`` (the
    derivative of PyTorch 2.4's composition ``x * rsqrt(mean(x^2) + eps) * w``).

    See Also
    --------
    torch.nn.functional.rms_norm, layer_norm

    Examples
    --------
    >>> x = [[1.0, 2.0, 3.0], [0.0, 0.0, 3.0]]
    >>> tf.round(tf.nn.rms_norm(x, 3), 6)
    tensor([[0.46291 , 0.92582 , 1.38873 ],
            [0.      , 0.      , 1.732051]])
    """
    x = operand("rms_norm", input)
    shape, axes = _normalized("rms_norm", x, normalized_shape)
    weight = _param("rms_norm", "weight", weight, shape, x)
    if eps is None:
        eps = float(_dtypes.finfo(_dtypes.result_type(x, weight) if weight is not None
                                  else x.dtype).eps)
    return _bind(True, x, len(axes), weight, None, eps)
