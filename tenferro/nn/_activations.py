"""The activations of torch.nn.functional: ``relu``, ``leaky_relu``, ``elu``,
``softplus``, ``gelu`` (exact and tanh), ``silu``; ``softmax`` and ``log_softmax``
along an axis (tenferro.special's); ``affine`` (``x * scale + shift`` in one pass).

Each elementwise activation is a primitive ``nn.<name>`` registered through
:mod:`tenferro.autograd.extend` like an extension's, with

* its value: a composition of tenferro's elementwise ops written in PyTorch's order of
  operations (so PyTorch's edge values: NaN propagates, ``gelu(-inf)`` is NaN as
  there), run eagerly on the CPU as one fused kernel (:mod:`._kernel`) and on other
  devices op by op;
* its derivative: PyTorch's backward formula (its ``*_backward`` kernels), written with
  tenferro ops, so the gradients at the kinks are PyTorch's (``relu'(0) = 0``,
  ``leaky_relu'(0) = negative_slope``, ``elu'(0) = alpha``, ``softplus`` linear only
  strictly above the threshold) and derivatives of every order exist;
* a rewrite rule that splices the composition into a compiled graph, so ``jit`` fuses
  an activation with its neighbours; and the elementwise batching rule (``vmap``).

Complex input is refused where PyTorch refuses it (all but ``silu``, holomorphic).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import math

from .. import _dtypes, _ops
from .._ops._common import to_tensor
from .._tensor import Tensor
from ..autograd import stop_gradient
from ..autograd._rules._util import conj
from ..autograd.extend import Primitive, batch_elementwise, def_jvp_rule, def_vjp_rule
from ..graph import TensorSpec, make_graph
from ..graph.rewrite import Splice, register_rewrite
from ..special import _logsumexp
from . import _kernel

if TYPE_CHECKING:
    from .._tensor import ArrayLike, DTypeLike

_FLOAT = frozenset("fd")
_SQRT1_2 = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_TANH_BETA = math.sqrt(2.0 / math.pi)   # PyTorch's kBeta = M_SQRT2 * M_2_SQRTPI * 0.5
_TANH_KAPPA = 0.044715


def operand(name, x, complex_ok=False, keep_int=False):
    """``x`` as a tensor of a real float dtype (complex where ``complex_ok``); ints and
    bools become float64 (NumPy's rule for such functions), or stay with ``keep_int``;
    complex elsewhere is a TypeError naming the function, as PyTorch refuses it."""
    x = to_tensor(x)
    kind = x.dtype.kind
    if kind == "c" and not complex_ok:
        raise TypeError("tenferro.nn.%s: complex input (%s) is not supported "
                        "(torch.nn.functional.%s refuses it too)" % (name, x.dtype, name))
    if kind in "biu" and not (keep_int and kind in "iu"):
        x = _ops.astype(x, _dtypes.float64)
    return x


def _aval(x, **params):
    return x


# -- the primitives -----------------------------------------------------------------------

_PRIMS = {}   # name -> (primitive, its composition, its backward formula)


def _activation(name, value, back, complex_ok=False):
    """Register ``nn.<name>``: ``value(x, **params)`` its composition, ``back(g, x,
    **params)`` PyTorch's backward (``g`` times the derivative at ``x``, real x; for a
    complex x the VJP is ``back(ct, conj(x))``, the conjugate derivative of a function
    with real coefficients)."""
    prim = Primitive("nn." + name, _aval,
                     doc="torch.nn.functional.%s, elementwise (tenferro.nn.%s)." % (name, name))
    prim.impl = lambda x, **params: _kernel.run(value, (x,), params, plain=False)

    # the rules run as one kernel too in a plain eager backward pass
    def jvp(tangents, primals, out, params):
        t = tangents[0]
        return None if t is None else _kernel.run(back, (t, primals[0]), params)

    def vjp(ct, primals, out, params, needs):
        x = primals[0]
        return (_kernel.run(back, (ct, conj(x) if complex_ok else x), params),)
    vjp.uses_out = False   # the tape need not keep the output
    def_jvp_rule(prim, jvp)
    def_vjp_rule(prim, vjp)
    batch_elementwise(prim)

    def splice(node, inputs, ctx):
        x = inputs[0]
        spec = TensorSpec(x.shape, x.dtype, ctx.device)
        return Splice(make_graph(lambda x: value(x, **node.params), spec), inputs)
    register_rewrite(prim, splice)
    _PRIMS[name] = (prim, value, back)
    return prim


def _bind(name, x, **params):
    return _PRIMS[name][0].bind(x, **params)


# relu: clamp_min(x, 0) -- maximum passes NaN and -0.0 as it does; derivative:
# threshold_backward, 0 where x <= 0 (so relu'(0) = 0), the gradient itself elsewhere
# (NaN included)
_activation("relu", lambda x: _ops.maximum(x, 0), lambda g, x: _ops.where(x <= 0, 0, g))

# leaky_relu: x > 0 ? x : x * slope; leaky_relu_backward: slope where x <= 0 (and at NaN)
_activation("leaky_relu",
            lambda x, negative_slope: _ops.where(x > 0, x, x * negative_slope),
            lambda g, x, negative_slope: _ops.where(x > 0, g, g * negative_slope))


def _elu_slope(x, alpha):
    # alpha * exp(x) for x <= 0: elu'(0) = alpha (elu_backward's x <= 0 branch), NaN at
    # NaN; its own derivative is 0 at x = 0 (elu_double_backward tests x < 0): the
    # exponent's dependence on x is cut there
    return alpha * _ops.exp(_ops.where(x < 0, x, stop_gradient(x)))


# elu: x > 0 ? x : alpha * expm1(x)  (-0.0 stays -0.0, NaN passes)
_activation("elu", lambda x, alpha: _ops.where(x <= 0, alpha * _ops.expm1(x), x),
            lambda g, x, alpha: _ops.where(x > 0, g, g * _elu_slope(x, alpha)))


# softplus: x * beta > threshold ? x : log1p(exp(x * beta)) / beta; softplus_backward:
# the gradient itself above the threshold (strictly), g * sigmoid(x * beta) at and below
# it (PyTorch's z / (z + 1), z = exp(x * beta), written without overflow); the
# derivative of that is 0 at the threshold itself (softplus_double_backward tests
# x * beta < threshold)
def _softplus(x, beta, threshold):
    xb = x * beta
    return _ops.where(xb > threshold, x, _ops.log1p(_ops.exp(xb)) / beta)


def _softplus_back(g, x, beta, threshold):
    xb = x * beta
    s = _ops.sigmoid(_ops.where(xb < threshold, xb, stop_gradient(xb)))
    return _ops.where(xb > threshold, g, g * s)


_activation("softplus", _softplus, _softplus_back)


# gelu, exact: x * 0.5 * (1 + erf(x / sqrt 2)); gelu_backward: g * (cdf + x * pdf)
def _gelu(x, approximate):
    if approximate == "tanh":
        inner = _TANH_BETA * (x + _TANH_KAPPA * (x * x * x))
        return 0.5 * x * (1.0 + _ops.tanh(inner))
    return x * 0.5 * (1.0 + _ops.erf(x * _SQRT1_2))


def _gelu_back(g, x, approximate):
    if approximate == "tanh":   # PyTorch's GeluBackwardKernel, tanh branch, term by term
        x_sq = x * x
        tanh_inner = _ops.tanh(_TANH_BETA * (x + _TANH_KAPPA * (x_sq * x)))
        left_derivative = 0.5 * (1.0 + tanh_inner)
        right_derivative = (0.5 * x) * (1.0 - tanh_inner * tanh_inner) \
            * (_TANH_BETA * (1.0 + 3.0 * _TANH_KAPPA * x_sq))
        return g * (left_derivative + right_derivative)
    cdf = 0.5 * (1.0 + _ops.erf(x * _SQRT1_2))
    pdf = _INV_SQRT_2PI * _ops.exp(-0.5 * (x * x))
    return g * (cdf + x * pdf)


_activation("gelu", _gelu, _gelu_back)


# silu: x * sigmoid(x) (-inf gives NaN, as PyTorch's x / (1 + exp(-x)));
# silu_backward: g * s * (1 + x * (1 - s)), s = sigmoid(x)
def _silu_back(g, x):
    s = _ops.sigmoid(x)
    return g * (s * (1.0 + x * (1.0 - s)))


_activation("silu", lambda x: x * _ops.sigmoid(x), _silu_back, complex_ok=True)


# -- the public functions -----------------------------------------------------------------

def relu(input: ArrayLike) -> Tensor:
    """torch.nn.functional.relu: max(x, 0), elementwise.  NaN and -0.0 pass through;
    the derivative is 0 for x <= 0 (0 at x = 0) and 1 elsewhere (NaN included), as
    PyTorch's.  Integer input keeps its dtype (bool becomes float64); complex is
    refused."""
    x = operand("relu", input, keep_int=True)
    return _bind("relu", x)


def leaky_relu(input: ArrayLike, negative_slope: float = 0.01) -> Tensor:
    """torch.nn.functional.leaky_relu: x for x > 0, ``negative_slope * x`` otherwise;
    the derivative at 0 is ``negative_slope``."""
    x = operand("leaky_relu", input)
    return _bind("leaky_relu", x, negative_slope=float(negative_slope))


def elu(input: ArrayLike, alpha: float = 1.0) -> Tensor:
    """torch.nn.functional.elu: x for x > 0, ``alpha * (exp(x) - 1)`` otherwise
    (expm1: accurate near 0); the derivative at 0 is ``alpha``."""
    x = operand("elu", input)
    return _bind("elu", x, alpha=float(alpha))


def softplus(input: ArrayLike, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """torch.nn.functional.softplus: ``log(1 + exp(beta * x)) / beta``, and x itself
    where ``beta * x > threshold`` (strictly: at the threshold the log form, and its
    derivative sigmoid(beta * x), still apply)."""
    x = operand("softplus", input)
    if beta == 0:
        raise ValueError("tenferro.nn.softplus: beta must be nonzero, got 0")
    return _bind("softplus", x, beta=float(beta), threshold=float(threshold))


def gelu(input: ArrayLike, approximate: str = "none") -> Tensor:
    """torch.nn.functional.gelu: ``x * Phi(x)`` with Phi the standard normal CDF
    (``approximate="none"``: through erf), or its tanh approximation
    ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`` (``approximate="tanh"``)."""
    if approximate not in ("none", "tanh"):
        raise ValueError("tenferro.nn.gelu: approximate must be 'none' or 'tanh', got %r"
                         % (approximate,))
    x = operand("gelu", input)
    return _bind("gelu", x, approximate=approximate)


def silu(input: ArrayLike) -> Tensor:
    """torch.nn.functional.silu (swish): ``x * sigmoid(x)``; real or complex."""
    x = operand("silu", input, complex_ok=True)
    return _bind("silu", x)


def _axis(name, axis, dim):
    if dim is not None:
        if axis is not None:
            raise TypeError("tenferro.nn.%s: give axis or dim (PyTorch's name), not both"
                            % name)
        return dim
    return -1 if axis is None else axis


def _softmax_operand(name, input, dtype):
    x = operand(name, input)
    if dtype is not None:
        dtype = _dtypes.dtype(dtype)
        if dtype.char not in _FLOAT:
            raise TypeError("tenferro.nn.%s: dtype must be float32 or float64, got %s"
                            % (name, dtype))
        x = _ops.astype(x, dtype)
    return x


def softmax(input: ArrayLike, axis: int | tuple[int, ...] | None = None, *,
            dim: int | None = None, dtype: DTypeLike = None) -> Tensor:
    """Softmax along an axis (torch.nn.functional.softmax).

    ``exp(x) / sum(exp(x))`` along ``axis`` (default -1, the last), shifted by the
    maximum.  tenferro.special.softmax's implementation (a one-pass row kernel eagerly on
    the CPU); real only, as PyTorch's.

    Parameters
    ----------
    input : Tensor or array_like
        The input, real (ints and bools become float64).
    axis : int or tuple of int, optional
        The axis (or axes, normalized together) to normalize over; default -1, the last.
    dim : int, optional
        PyTorch's name for ``axis`` (give one of the two).
    dtype : dtype, optional
        Cast the input to this float dtype first (as PyTorch's ``dtype=``).

    Returns
    -------
    Tensor
        ``input``'s shape; each slice along ``axis`` sums to 1.

    Raises
    ------
    TypeError
        If ``input`` is complex (use :func:`tenferro.special.softmax`), both ``axis`` and
        ``dim`` are given, or ``dtype`` is not float32 or float64.
    AxisError
        If an axis is out of range.

    Notes
    -----
    Differentiable: yes, forward and reverse, to any order (composed of tenferro's
    ``exp``, ``sum`` and division, whose rules give ``s * (g - sum(g s))``).

    See Also
    --------
    torch.nn.functional.softmax, jax.nn.softmax, tenferro.special.softmax, log_softmax

    Examples
    --------
    >>> tf.round(tf.nn.softmax([[1.0, 2.0, 3.0]], dim=1), 6)
    tensor([[0.090031, 0.244728, 0.665241]])
    """
    x = _softmax_operand("softmax", input, dtype)
    return _logsumexp.softmax(x, axis=_axis("softmax", axis, dim))


def log_softmax(input: ArrayLike, axis: int | tuple[int, ...] | None = None, *,
                dim: int | None = None, dtype: DTypeLike = None) -> Tensor:
    """Logarithm of softmax along an axis (torch.nn.functional.log_softmax).

    ``x - logsumexp(x)`` along ``axis`` (default -1), computed as
    ``(x - max) - log(sum(exp(x - max)))``; tenferro.special.log_softmax's implementation.

    Parameters
    ----------
    input, axis, dim, dtype
        As for :func:`softmax`.

    Returns
    -------
    Tensor
        ``input``'s shape.

    Raises
    ------
    TypeError, AxisError
        As for :func:`softmax` (for complex input use
        :func:`tenferro.special.log_softmax`).

    Notes
    -----
    Differentiable: yes, forward and reverse, to any order (composed of tenferro's
    ``exp``, ``sum`` and ``log``: the gradient is ``g - softmax(x) sum(g)``).

    See Also
    --------
    torch.nn.functional.log_softmax, jax.nn.log_softmax, tenferro.special.log_softmax,
    softmax

    Examples
    --------
    >>> tf.round(tf.nn.log_softmax([1.0, 2.0, 3.0]), 6)
    tensor([-2.407606, -1.407606, -0.407606])
    """
    x = _softmax_operand("log_softmax", input, dtype)
    return _logsumexp.log_softmax(x, axis=_axis("log_softmax", axis, dim))


def _affine(x, scale, shift):
    return x * scale + shift


def affine(x: ArrayLike, scale: ArrayLike, shift: ArrayLike) -> Tensor:
    """``x * scale + shift`` in one pass over memory.

    NumPy's broadcasting and dtype rules (the same values as ``x * scale + shift``);
    eagerly on the CPU one fused kernel instead of two passes and a temporary, under
    ``jit`` fused with its neighbours.  The usual last step of a normalization layer.

    Parameters
    ----------
    x : Tensor or array_like
        The input.
    scale : Tensor or array_like
        The factor, broadcast against ``x``.
    shift : Tensor or array_like
        The offset, broadcast against ``x * scale``.

    Returns
    -------
    Tensor
        The broadcast shape, in the operands' promoted dtype.

    Raises
    ------
    ValueError
        If the shapes do not broadcast.
    TypeError
        If an operand is not numeric.

    Notes
    -----
    Differentiable: yes in all three, forward and reverse, real and complex, to any
    order: the rules of tenferro's ``multiply`` and ``add`` (gradients summed over
    broadcast axes).

    See Also
    --------
    numpy.multiply, numpy.add, layer_norm

    Examples
    --------
    >>> tf.nn.affine([1.0, 2.0], 2.0, [0.5, -1.0])
    tensor([2.5, 3. ])
    """
    if type(x) is Tensor and type(scale) is Tensor and type(shift) is Tensor:
        return _kernel.run(_affine, (x, scale, shift), {})
    return _ops.add(_ops.multiply(x, scale), shift)   # array-likes, weak Python scalars
