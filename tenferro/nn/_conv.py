"""``conv1d``, ``conv2d``, ``conv3d``: torch.nn.functional's convolutions (NCW, NCHW,
NCDHW layouts, stride, padding including "same" and "valid", dilation, groups, bias;
unbatched inputs too), written on the ``nn.conv`` primitive (``_conv_prim``)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .. import _ops
from ._args import batched, float_dtype, ints, name, on_cpu
from ._conv_prim import conv_p, dilate

if TYPE_CHECKING:
    from typing import Optional, Sequence, Union

    from .._tensor import Tensor

    IntOrTuple = Union[int, Sequence[int]]


def _padding(fn, padding, ks, strides, dilation, nsd):
    """PyTorch's padding argument as (lo, hi) pairs."""
    if isinstance(padding, str):
        if padding == "valid":
            return ((0, 0),) * nsd
        if padding != "same":
            raise ValueError('%s: invalid padding string %r, should be "valid" or "same"'
                             % (name(fn), padding))
        if any(s != 1 for s in strides):
            raise ValueError("%s: padding='same' is not supported for strided convolutions"
                             % name(fn))
        # the extra element of an odd total goes after, as in PyTorch
        total = [dilate(k, d) - 1 for k, d in zip(ks, dilation)]
        return tuple((t // 2, t - t // 2) for t in total)
    return tuple((p, p) for p in ints(fn, "padding", padding, nsd, 0))


def _convnd(fn, nsd, input, weight, bias, stride, padding, dilation, groups):
    x = on_cpu(fn, input)
    w = on_cpu(fn, weight)
    float_dtype(fn, x)
    if w.dtype != x.dtype:
        raise TypeError("%s: input (%s) and weight (%s) must have the same dtype (nothing "
                        "is promoted, as in PyTorch)" % (name(fn), x.dtype, w.dtype))
    x, unbatched = batched(fn, x, nsd)
    if w.ndim != nsd + 2:
        raise ValueError("%s: weight must be %d-d (out_channels, in_channels / groups, "
                         "*kernel_size), got shape %s" % (name(fn), nsd + 2, w.shape))
    strides = ints(fn, "stride", stride, nsd, 1)
    dil = ints(fn, "dilation", dilation, nsd, 1)
    groups = ints(fn, "groups", groups, 1, 1)[0]
    ks = tuple(w.shape[2:])
    pads = _padding(fn, padding, ks, strides, dil, nsd)
    (c, o) = x.shape[1], w.shape[0]
    if o % groups:
        raise ValueError("%s: out_channels (weight.shape[0] = %d) must be divisible by "
                         "groups = %d" % (name(fn), o, groups))
    if w.shape[1] * groups != c:
        raise ValueError("%s: given groups=%d and weight of shape %s, expected input of "
                         "shape %s to have %d channels (weight.shape[1] * groups), but got "
                         "%d channels instead" % (name(fn), groups, w.shape, x.shape,
                                                  w.shape[1] * groups, c))
    padded = tuple(s + lo + hi for s, (lo, hi) in zip(x.shape[2:], pads))
    dk = tuple(dilate(k, d) for k, d in zip(ks, dil))
    if any(k > p for k, p in zip(dk, padded)) or 0 in ks:
        raise ValueError("%s: calculated padded input size per channel %s is smaller than "
                         "the (dilated) kernel size %s" % (name(fn), padded, dk))
    y = conv_p.bind(x, w, strides=strides, padding=pads, lhs_dilation=(1,) * nsd,
                    rhs_dilation=dil, groups=groups)
    if bias is not None:
        b = on_cpu(fn, bias)
        if b.dtype != x.dtype or b.shape != (o,):
            raise ValueError("%s: bias must be a 1-d tensor of %d elements (out_channels) "
                             "and dtype %s, got shape %s and dtype %s"
                             % (name(fn), o, x.dtype, b.shape, b.dtype))
        y = y + _ops.reshape(b, (o,) + (1,) * nsd)
    return _ops.reshape(y, y.shape[1:]) if unbatched else y


def conv1d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None,
           stride: IntOrTuple = 1, padding: Union[str, IntOrTuple] = 0,
           dilation: IntOrTuple = 1, groups: int = 1) -> Tensor:
    """torch.nn.functional.conv1d: the 1-d cross-correlation of ``input`` (N, C, L) or
    unbatched (C, L) with ``weight`` (O, C / groups, K), plus ``bias`` (O,).

    ``stride``, ``padding`` (an int, a 1-tuple, ``"valid"`` or ``"same"``: output length
    = input length, only for stride 1, the odd extra zero after), ``dilation``: ints >= 1
    (padding >= 0); ``groups`` splits the channels into independent convolutions
    (``groups == C``: depthwise).  Input, weight and bias share one float or complex
    dtype.  Differentiable to any order in input, weight and bias.  CPU only."""
    return _convnd("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None,
           stride: IntOrTuple = 1, padding: Union[str, IntOrTuple] = 0,
           dilation: IntOrTuple = 1, groups: int = 1) -> Tensor:
    """torch.nn.functional.conv2d: the 2-d cross-correlation of ``input`` (N, C, H, W) or
    unbatched (C, H, W) with ``weight`` (O, C / groups, kH, kW), plus ``bias`` (O,).

    ``stride``, ``padding`` and ``dilation`` are ints or pairs (padding also ``"valid"``
    or ``"same"``, the latter for stride 1 only); ``groups`` as in :func:`conv1d`.
    Differentiable to any order in input, weight and bias.  CPU only."""
    return _convnd("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


def conv3d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None,
           stride: IntOrTuple = 1, padding: Union[str, IntOrTuple] = 0,
           dilation: IntOrTuple = 1, groups: int = 1) -> Tensor:
    """torch.nn.functional.conv3d: as :func:`conv2d` for (N, C, D, H, W) inputs and
    (O, C / groups, kD, kH, kW) weights."""
    return _convnd("conv3d", 3, input, weight, bias, stride, padding, dilation, groups)
