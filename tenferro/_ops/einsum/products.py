"""NumPy's contractions built on the einsum engine: ``tensordot``, ``inner``, ``kron``
(each one :func:`~.api.einsum` call, so they share its plans, devices and rules)."""
from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any

import numpy as np

from .._common import normalize_axis
from ..matmul import operands
from .api import einsum

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..._tensor import ArrayLike, Tensor


def tensordot(a: ArrayLike, b: ArrayLike, axes: int | Sequence[Any] = 2) -> Tensor:
    """Sum of products over chosen axes of two tensors (NumPy's ``tensordot``).

    With ``axes=N`` the last ``N`` axes of ``a`` are contracted with the first ``N``
    of ``b``: ``out[i..., k...] = sum_j... a[i..., j...] b[j..., k...]``; with a pair
    ``(axes_a, axes_b)`` the listed axes are contracted pairwise, in that order.
    The result has ``a``'s remaining axes, then ``b``'s.  It runs as one pairwise step
    of the einsum engine (one batched matrix product, no transposed copies where the
    strides allow).

    Parameters
    ----------
    a : Tensor or array_like
        The first operand.
    b : Tensor or array_like
        The second operand, on the same device.
    axes : int or (sequence of int, sequence of int), default 2
        How many trailing axes of ``a`` meet leading axes of ``b``, or the axes of
        each (an int for one axis; negative axes count from the end).

    Returns
    -------
    Tensor
        Shape ``a``'s uncontracted axes + ``b``'s uncontracted axes, in the promoted
        dtype.

    Raises
    ------
    ValueError
        If ``axes`` is out of range, the two axis lists differ in length or repeat an
        axis, or contracted axes differ in size.
    TypeError
        If ``axes`` is neither an int nor a pair of axis sequences.
    AxisError
        If an axis is out of bounds (a ValueError and IndexError).
    DeviceMismatchError
        If the operands are on different devices.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order (it is
    an :func:`einsum`; see there for the rules).

    See Also
    --------
    numpy.tensordot, einsum, matmul, inner

    Examples
    --------
    >>> a = tf.arange(6.0).reshape(2, 3)
    >>> b = tf.arange(12.0).reshape(3, 4)
    >>> tf.tensordot(a, b, axes=1)
    tensor([[20., 23., 26., 29.],
            [56., 68., 80., 92.]])
    >>> tf.tensordot(tf.ones((3, 4, 5)), tf.ones((4, 3, 2)), axes=([0, 1], [1, 0])).shape
    (5, 2)
    """
    a, b = operands("tensordot", a, b)
    try:
        n = operator.index(axes)
    except TypeError:
        try:
            xa, xb = axes
        except (TypeError, ValueError):
            raise TypeError("tenferro.tensordot: axes must be an int or a pair of axis "
                            "sequences, got %r" % (axes,)) from None
        xa = [xa] if np.ndim(xa) == 0 else list(xa)
        xb = [xb] if np.ndim(xb) == 0 else list(xb)
    else:
        if n < 0 or n > min(a.ndim, b.ndim):
            raise ValueError("tenferro.tensordot: axes=%d is out of range for operands of "
                             "%d and %d dimensions" % (n, a.ndim, b.ndim))
        xa, xb = list(range(a.ndim - n, a.ndim)), list(range(n))
    if len(xa) != len(xb):
        raise ValueError("tenferro.tensordot: axes of a %s and of b %s differ in number"
                         % (xa, xb))
    xa = [normalize_axis("tensordot", i, a.ndim) for i in xa]
    xb = [normalize_axis("tensordot", i, b.ndim) for i in xb]
    if len(set(xa)) != len(xa) or len(set(xb)) != len(xb):
        raise ValueError("tenferro.tensordot: repeated axis in axes %r" % (axes,))
    for i, j in zip(xa, xb):
        if a.shape[i] != b.shape[j]:
            raise ValueError("tenferro.tensordot: shape mismatch for sum: axis %d of a "
                             "(shape %s) has %d elements, axis %d of b (shape %s) has %d"
                             % (i, a.shape, a.shape[i], j, b.shape, b.shape[j]))
    la = list(range(a.ndim))
    lb = list(range(a.ndim, a.ndim + b.ndim))
    for i, j in zip(xa, xb):
        lb[j] = la[i]
    out = [l for i, l in enumerate(la) if i not in xa] + \
        [l for j, l in enumerate(lb) if j not in xb]
    return einsum(a, la, b, lb, out)


def inner(a: ArrayLike, b: ArrayLike) -> Tensor:
    """Inner product over the last axes (NumPy's ``inner``).

    ``out[i..., j...] = sum_k a[i..., k] b[j..., k]``: for vectors their dot product,
    for matrices ``a @ b.T``; no complex conjugation (see :func:`vdot`).  A 0-d
    operand multiplies the other elementwise.

    Parameters
    ----------
    a : Tensor or array_like
        The first operand.
    b : Tensor or array_like
        The second operand, with ``a``'s last dimension (unless one is 0-d), on the
        same device.

    Returns
    -------
    Tensor
        Shape ``a.shape[:-1] + b.shape[:-1]``, in the promoted dtype.

    Raises
    ------
    ValueError
        If the last dimensions differ.
    DeviceMismatchError
        If the operands are on different devices.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order (an
    :func:`einsum`).

    See Also
    --------
    numpy.inner, vdot, dot, tensordot

    Examples
    --------
    >>> tf.inner(tf.asarray([1.0, 2.0, 3.0]), tf.asarray([0.0, 1.0, 0.0]))
    tensor(2.)
    >>> tf.inner(tf.ones((2, 3)), tf.ones((4, 3))).shape
    (2, 4)
    """
    a, b = operands("inner", a, b)
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    if a.shape[-1] != b.shape[-1]:
        raise ValueError("tenferro.inner: the last dimensions differ: shapes %s and %s "
                         "(%d != %d)" % (a.shape, b.shape, a.shape[-1], b.shape[-1]))
    return tensordot(a, b, ([-1], [-1]))


def kron(a: ArrayLike, b: ArrayLike) -> Tensor:
    """Kronecker product (NumPy's ``kron``).

    The result is made of blocks ``a[i, j, ...] * b``: ``out[i*p + k, j*q + l] =
    a[i, j] b[k, l]`` for matrices, and the same along every axis for N-D operands,
    the one with fewer dimensions padded with leading size-1 axes.  It is computed as
    one einsum (an outer product) and a reshape.

    Parameters
    ----------
    a : Tensor or array_like
        The first operand (the block pattern).
    b : Tensor or array_like
        The second operand (the block), on the same device.

    Returns
    -------
    Tensor
        Shape ``a.shape[i] * b.shape[i]`` along each axis (after padding), in the
        promoted dtype.

    Raises
    ------
    DeviceMismatchError
        If the operands are on different devices.
    TypeError
        If an operand cannot be made a tensor.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order (an
    :func:`einsum` and a reshape).

    See Also
    --------
    numpy.kron, outer, einsum

    Examples
    --------
    >>> tf.kron(tf.asarray([1, 2]), tf.asarray([1, 10, 100]))
    tensor([  1,  10, 100,   2,  20, 200])
    >>> tf.kron(tf.eye(2), tf.asarray([[1.0, 2.0], [3.0, 4.0]]))
    tensor([[1., 2., 0., 0.],
            [3., 4., 0., 0.],
            [0., 0., 1., 2.],
            [0., 0., 3., 4.]])
    """
    a, b = operands("kron", a, b)
    nd = max(a.ndim, b.ndim)
    a = a.reshape((1,) * (nd - a.ndim) + a.shape)
    b = b.reshape((1,) * (nd - b.ndim) + b.shape)
    interleaved = [l for i in range(nd) for l in (i, nd + i)]
    r = einsum(a, list(range(nd)), b, list(range(nd, 2 * nd)), interleaved)
    return r.reshape(tuple(m * n for m, n in zip(a.shape, b.shape)))
