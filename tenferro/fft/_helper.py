"""scipy.fft's helpers: the sample frequencies (fftfreq, rfftfreq) and the half-space
swaps (fftshift, ifftshift, differentiable rolls); next_fast_len/prev_fast_len call
scipy's own (integer arithmetic) under tenferro's name and docstring."""
from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Optional, Sequence, Union

import numpy as np

from .. import _ops
from .._ops._common import to_tensor
from . import _util as u

from scipy import fft as _sfft

if TYPE_CHECKING:
    from .._tensor import ArrayLike, DeviceLike, DTypeLike, Tensor


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
    n, scale = _freq_args("fftfreq", n, d)
    k = np.concatenate([np.arange(0, (n - 1) // 2 + 1), np.arange(-(n // 2), 0)])
    return _freqs(k, scale, dtype, device)


def rfftfreq(n: int, d: float = 1.0, *, dtype: DTypeLike = None,
            device: DeviceLike = None) -> Tensor:
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
    return _shift("fftshift", x, axes, 1)


def ifftshift(x: ArrayLike, axes: Optional[Union[int, Sequence[int]]] = None) -> Tensor:
    return _shift("ifftshift", x, axes, -1)


# -- docstrings: one template per pair -------------------------------------------------

_FREQ_DOC = """The sample frequencies of %(what)s (scipy.fft.%(name)s).

    %(formula)s

    Parameters
    ----------
    n : int
        The number of points%(of)s, >= 1.
    d : float, default 1.0
        The sample spacing (the inverse of the sampling rate).
    dtype : dtype, optional
        The result's dtype (default float64).
    device : Device or str, optional
        The result's device (default: the default device).

    Returns
    -------
    Tensor, shape %(shape)s
        The frequencies.

    Raises
    ------
    TypeError
        If ``n`` is not an integer.
    ValueError
        If ``n`` is below 1.

    Notes
    -----
    Differentiable: no (constants: no tensor input).

    See Also
    --------
    scipy.fft.%(name)s, numpy.fft.%(name)s, %(other)s

    Examples
    --------
    >>> tf.fft.%(example)s
    %(result)s
    """
fftfreq.__doc__ = _FREQ_DOC % dict(
    what="an ``n``-point discrete Fourier transform", name="fftfreq", of="", shape="(n,)",
    formula="``[0, 1, ..., (n-1)//2, -(n//2), ..., -1] / (d*n)``: the frequency of each "
            "bin\n    of :func:`fft`'s output, in cycles per unit of the sample spacing "
            "``d``.",
    other="rfftfreq", example="fftfreq(4, d=0.5)", result="tensor([ 0. ,  0.5, -1. , -0.5])")
rfftfreq.__doc__ = _FREQ_DOC % dict(
    what=":func:`rfft`'s bins", name="rfftfreq", of=" of the real signal",
    shape="(n//2 + 1,)", formula="``[0, 1, ..., n//2] / (d*n)``: the non-negative "
                                 "frequencies of an ``n``-point\n    transform of real input.",
    other="fftfreq", example="rfftfreq(5, d=0.1)", result="tensor([0., 2., 4.])")

_SHIFT_DOC = """%(summary)s (scipy.fft.%(name)s).

    A roll of each axis in ``axes`` by %(by)s.  Runs on every device.

    Parameters
    ----------
    x : Tensor or array_like
        The %(what)s (any dtype).
    axes : int or sequence of int, optional
        The axes to shift (default: all).

    Returns
    -------
    Tensor
        ``x`` rolled, same shape and dtype.

    Raises
    ------
    AxisError
        If an axis is out of range.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order (a
    permutation: :func:`tenferro.roll`'s rule, the opposite roll).

    See Also
    --------
    scipy.fft.%(name)s, numpy.fft.%(name)s, %(other)s

    Examples
    --------
    >>> tf.fft.%(example)s
    %(result)s
    """
fftshift.__doc__ = _SHIFT_DOC % dict(
    summary="Move the zero-frequency bin to the centre", name="fftshift", what="spectrum",
    by="half its length (``n//2``), so that\n    :func:`fftfreq`'s frequencies come out "
       "ascending", other="ifftshift", example="fftshift(tf.fft.fftfreq(5))",
    result="tensor([-0.4, -0.2,  0. ,  0.2,  0.4])")
ifftshift.__doc__ = _SHIFT_DOC % dict(
    summary="The inverse of :func:`fftshift`", name="ifftshift", what="centred spectrum",
    by="``-(n//2)``: it undoes :func:`fftshift` for odd lengths too", other="fftshift",
    example="ifftshift([-2, -1, 0, 1, 2])", result="tensor([ 0,  1,  2, -2, -1])")

_FAST_LEN_DOC = """The %(dir)s fast transform length from ``target`` (scipy.fft.%(name)s).

    The %(dir)s integer %(cmp)s ``target`` whose only prime factors are 2, 3, 5, 7
    and 11 (2, 3 and 5 with ``real=True``): pocketfft's fast sizes, to zero-pad (crop)
    an input to.  It calls scipy's own function.

    Parameters
    ----------
    target : int
        The length to start from.
    real : bool, default False
        Whether the transform is of real input (:func:`rfft`, :func:`dct`, ...).

    Returns
    -------
    int
        The fast length (0 for ``target`` 0).

    Raises
    ------
    ValueError
        If ``target`` is negative.
    TypeError
        If ``target`` is not an integer.

    Notes
    -----
    Differentiable: no (integer arithmetic on a length, not on data).

    See Also
    --------
    scipy.fft.%(name)s

    Examples
    --------
    >>> tf.fft.%(name)s(97)
    %(result)d
    """


def next_fast_len(target: int, real: bool = False) -> int:
    return _sfft.next_fast_len(target, real)


def prev_fast_len(target: int, real: bool = False) -> int:
    return _sfft.prev_fast_len(target, real)


next_fast_len.__doc__ = _FAST_LEN_DOC % dict(dir="next", name="next_fast_len", cmp=">=",
                                             result=98)
prev_fast_len.__doc__ = _FAST_LEN_DOC % dict(dir="previous", name="prev_fast_len", cmp="<=",
                                             result=96)
