"""``max_pool2d`` and ``avg_pool2d``: torch.nn.functional's 2-d poolings (kernel,
stride, padding, dilation for max, ceil_mode, count_include_pad; unbatched inputs too).

Max pooling is a gather: the primitive ``nn.max_pool_argmax`` (not differentiable: it
returns indices; its CPU kernel is ``_kernels/_conv.pyx``'s ``pool_argmax``) finds each
window's maximum in the input flattened over (H, W), and
``take_along_axis``'s primitive picks the values there, so the JVP gathers the tangent and the VJP
scatters the cotangent to one element per window (rules of tenferro's own ops, to any
order).  The element is PyTorch's: the first maximum of the window in row-major order,
or its last NaN (NaN propagates); padding never wins over an input element, not even
over -inf.  Average pooling is the ``nn.conv`` primitive with a kernel of ones on every
channel apart, divided by the window sizes PyTorch uses.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import _ops
from .._kernels import _conv as _kernel
from .._ops.indexing import take_in_range
from ..autograd.extend import Primitive, bind, def_batch_rule, def_impl
from ..devices.cpu import threads as _threads
from ._args import batched, float_dtype, ints, name, on_cpu
from ._conv_prim import conv_p

if TYPE_CHECKING:
    from typing import Optional, Sequence, Union

    from .._tensor import Tensor

    IntOrTuple = Union[int, Sequence[int]]


def _out_size(fn, size, k, s, p, d, ceil_mode):
    """PyTorch's ``pooling_output_shape``: in ceil mode the last window must start
    inside the input or its left padding."""
    span = size + 2 * p - d * (k - 1) - 1
    o = (span + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (o - 1) * s >= size + p:
        o -= 1
    return o


def _geometry(fn, x, kernel_size, stride, padding, dilation, ceil_mode):
    """The checked (batched x, unbatched, kernel, strides, pads, dilation, out sizes)."""
    x, unbatched = batched(fn, x, 2)
    ks = ints(fn, "kernel_size", kernel_size, 2, 1)
    ss = ks if stride is None or (np.ndim(stride) == 1 and len(stride) == 0) else \
        ints(fn, "stride", stride, 2, 1)
    ps = ints(fn, "padding", padding, 2, 0)
    ds = ints(fn, "dilation", dilation, 2, 1)
    if any(2 * p > k for p, k in zip(ps, ks)):
        raise ValueError("%s: pad should be at most half of the kernel size, but got "
                         "padding=%s and kernel_size=%s" % (name(fn), ps, ks))
    outs = tuple(_out_size(fn, *a, bool(ceil_mode)) for a in zip(x.shape[2:], ks, ss, ps, ds))
    if any(o < 1 for o in outs):
        raise ValueError("%s: given input of shape %s, the calculated output size %s is "
                         "too small" % (name(fn), x.shape, outs))
    return x, unbatched, ks, ss, ps, ds, outs


def _starts(size, k, s, p, d, o):
    """Per output position along one axis: the window's input coordinates (o, k)."""
    return np.arange(o)[:, None] * s - p + np.arange(k)[None, :] * d


# -- max pooling ------------------------------------------------------------------------

def _argmax_abstract(x, *, kernel, strides, padding, dilation, out):
    return x[0][:-2] + out, np.dtype(np.int64)


argmax_p = Primitive(
    "nn.max_pool_argmax", _argmax_abstract, differentiable=False,
    nondiff_reason="it returns integer indices",
    doc="The flat (H*W) index of each 2-d pooling window's maximum over x's last two "
        "axes (params kernel, strides, padding, dilation, out).")


def _argmax_cpu(x, *, kernel, strides, padding, dilation, out):
    """The CPU kernel (``_kernels/_conv.pyx``'s ``pool_argmax``: PyTorch's rules, a
    window row and tap at a time along the output columns)."""
    lead, (h, w) = x.shape[:-2], x.shape[-2:]
    res = np.empty(lead + tuple(out), np.int64)
    _kernel.pool_argmax(x.reshape((-1, h, w)), res.reshape((-1,) + tuple(out)), kernel,
                        strides, padding, dilation, _threads.current)
    return res


def _first_inside(rows, n):
    """Per window (row of ``rows``): its first coordinate inside [0, n), else -1."""
    inside = (rows >= 0) & (rows < n)
    return np.where(inside.any(axis=1), rows[np.arange(len(rows)), inside.argmax(axis=1)], -1)


def_impl(argmax_p, "cpu", _argmax_cpu)
# the windows are over the last two axes: a batch is one more leading axis
def_batch_rule(argmax_p, lambda args, batched, params, size: bind(argmax_p, args, params))


def max_pool2d(input: Tensor, kernel_size: IntOrTuple, stride: Optional[IntOrTuple] = None,
               padding: IntOrTuple = 0, dilation: IntOrTuple = 1, ceil_mode: bool = False,
               return_indices: bool = False) -> Tensor:
    """2-d max pooling (torch.nn.functional.max_pool2d).

    The maximum of each window of ``input`` (N, C, H, W) or unbatched (C, H, W).
    ``ceil_mode`` rounds the output size up (the last window starts inside the input or
    its left padding).  Ties and NaN as PyTorch: a window holding NaN gives NaN.

    Parameters
    ----------
    input : Tensor, shape (N, C, H, W) or (C, H, W)
        The input, float32 or float64.
    kernel_size : int or tuple of two int
        The window's height and width.
    stride : int or tuple of two int, optional
        The step between windows (default: ``kernel_size``).
    padding : int or tuple of two int, default 0
        Added on both sides, at most half the kernel; padded elements never win.
    dilation : int or tuple of two int, default 1
        The spacing between window taps.
    ceil_mode : bool, default False
        Round the output size up instead of down.
    return_indices : bool, default False
        Also return each maximum's flat index into H*W (int64), as PyTorch.

    Returns
    -------
    Tensor, shape (N, C, H_out, W_out) or (C, H_out, W_out)
        The maxima, in ``input``'s dtype (and the indices with ``return_indices``).

    Raises
    ------
    TypeError
        If ``input`` is not floating point, or an int argument is not an int.
    ValueError
        If ``input`` is not 3-d or 4-d, an int argument is out of range, the padding
        exceeds half the kernel, or the output would be empty.
    UnsupportedOperation
        If ``input`` is on a device other than the CPU.

    Notes
    -----
    Differentiable: yes, forward and reverse, to any order: a gather at each window's
    argmax (the primitive ``nn.max_pool_argmax``, not differentiable itself) whose rules
    are ``take_along_axis``'s, so the derivative goes to one element per window, the
    first maximum in row-major order (or the last NaN), as PyTorch's
    ``max_pool2d_with_indices_backward`` (tenferro's ``max`` reduction splits ties
    instead).

    See Also
    --------
    torch.nn.functional.max_pool2d, avg_pool2d

    Examples
    --------
    >>> x = np.arange(16.0).reshape(1, 1, 4, 4)
    >>> tf.nn.max_pool2d(x, 2)
    tensor([[[[ 5.,  7.],
              [13., 15.]]]])
    """
    fn = "max_pool2d"
    x = on_cpu(fn, input)
    float_dtype(fn, x, complex_ok=False)
    x, unbatched, ks, ss, ps, ds, outs = _geometry(fn, x, kernel_size, stride, padding,
                                                   dilation, ceil_mode)
    (n, c, h, w), (oh, ow) = x.shape, outs
    idx = bind(argmax_p, (x,),
               dict(kernel=ks, strides=ss, padding=ps, dilation=ds, out=outs))
    flat = _ops.reshape(idx, (n, c, oh * ow))
    y = take_in_range(_ops.reshape(x, (n, c, h * w)), flat, axis=2)   # no host read
    y = _ops.reshape(y, (n, c, oh, ow))
    empty = np.logical_or.outer(*(_first_inside(_starts(*a), a[0]) < 0
                                  for a in zip((h, w), ks, ss, ps, ds, outs)))
    if empty.any():   # windows of padding only (possible with dilation): -inf, as PyTorch
        y = _ops.where(_ops.asarray(empty), _ops.asarray(-np.inf, dtype=x.dtype), y)
    if unbatched:
        y, idx = y[0], idx[0]
    return (y, idx) if return_indices else y


# -- average pooling --------------------------------------------------------------------

def _divisor(size, k, s, p, o, count_include_pad):
    """PyTorch's per-window count along one axis: the window clipped to the padded
    input (count_include_pad) or to the input."""
    start = np.arange(o) * s - p
    end = np.minimum(start + k, size + p)
    if count_include_pad:
        return end - start
    return np.minimum(end, size) - np.maximum(start, 0)


def avg_pool2d(input: Tensor, kernel_size: IntOrTuple, stride: Optional[IntOrTuple] = None,
               padding: IntOrTuple = 0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: Optional[int] = None
               ) -> Tensor:
    """2-d average pooling (torch.nn.functional.avg_pool2d).

    The mean of each window of ``input`` (N, C, H, W) or unbatched (C, H, W): each
    window's sum divided by ``divisor_override`` if given, else by its number of elements
    inside the padded input (``count_include_pad=True``) or inside the input.

    Parameters
    ----------
    input : Tensor, shape (N, C, H, W) or (C, H, W)
        The input, float or complex.
    kernel_size, stride
        As for :func:`max_pool2d`.
    padding : int or tuple of two int, default 0
        Added on both sides, at most half the kernel; zeros.
    ceil_mode : bool, default False
        Round the output size up instead of down (as :func:`max_pool2d`).
    count_include_pad : bool, default True
        Count the padding zeros in each window's divisor.
    divisor_override : int, optional
        Divide every window's sum by this instead.

    Returns
    -------
    Tensor, shape (N, C, H_out, W_out) or (C, H_out, W_out)
        The means, in ``input``'s dtype.

    Raises
    ------
    TypeError, ValueError, UnsupportedOperation
        As for :func:`max_pool2d` (but complex input is accepted).

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order: a linear
    map, the ``nn.conv`` primitive with a kernel of ones per channel (whose VJPs are
    ``nn.conv`` again, JAX's ``conv_general_dilated`` transposes), divided by the window
    sizes PyTorch uses.

    See Also
    --------
    torch.nn.functional.avg_pool2d, max_pool2d

    Examples
    --------
    >>> x = np.arange(16.0).reshape(1, 1, 4, 4)
    >>> tf.nn.avg_pool2d(x, 2)
    tensor([[[[ 2.5,  4.5],
              [10.5, 12.5]]]])
    """
    fn = "avg_pool2d"
    x = on_cpu(fn, input)
    float_dtype(fn, x)
    x, unbatched, ks, ss, ps, _, outs = _geometry(fn, x, kernel_size, stride, padding, 1,
                                                  ceil_mode)
    (n, c, h, w) = x.shape
    # ceil mode's last window may reach past the padding: pad (with zeros) further
    pads = tuple((p, max(p, (o - 1) * s + k - size - p))
                 for size, k, s, p, o in zip((h, w), ks, ss, ps, outs))
    ones = _ops.ones((1, 1) + ks, dtype=x.dtype)
    y = conv_p.bind(_ops.reshape(x, (n * c, 1, h, w)), ones, strides=ss, padding=pads,
                    lhs_dilation=(1, 1), rhs_dilation=(1, 1), groups=1)
    if divisor_override is not None:
        d = ints(fn, "divisor_override", divisor_override, 1, 1)[0]
        y = y / d
    else:
        dh, dw = (_divisor(size, k, s, p, o, bool(count_include_pad))
                  for size, k, s, p, o in zip((h, w), ks, ss, ps, outs))
        real = np.empty(0, x.dtype).real.dtype
        y = y * _ops.asarray((1.0 / np.outer(dh, dw)).astype(real))
    y = _ops.reshape(y, (n, c) + outs)
    return y[0] if unbatched else y
