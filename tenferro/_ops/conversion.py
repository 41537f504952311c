"""Casts, copies, device transfers and host conversion."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import _dtypes
from .. import _primitive
from .._primitive import Primitive, bind
from .._tensor import Tensor, host_array as to_numpy  # noqa: F401  (re-exported)
from .. import _versions
from ._common import to_tensor

if TYPE_CHECKING:
    from .._tensor import ArrayLike, DeviceLike, DTypeLike


def _same_aval(x, **params):
    return (x[0], params.get("dtype", x[1]))


convert_p = Primitive("convert", _same_aval, doc="Cast to another dtype (params: dtype).")
copy_p = Primitive("copy", _same_aval, doc="A C-contiguous copy.")
device_put_p = Primitive("device_put", _same_aval, doc="Move to another device (params: device).")


def _device_put_impl(x, *, device):
    src = x._device
    host = src.driver.to_numpy(x._data)
    return Tensor._wrap(device.driver.from_numpy(host, device), device)


device_put_p.impl = _device_put_impl


def astype(x: ArrayLike, dtype: DTypeLike, copy: bool = True,
           casting: str = "unsafe") -> Tensor:
    """Cast ``x`` to ``dtype`` (``numpy.ndarray.astype``, the Array API's ``astype``).

    Casts follow NumPy: float to int truncates toward zero, complex to real keeps the
    real part, and out-of-range values wrap or are undefined as in NumPy.  ``casting``
    restricts which casts are allowed.

    Parameters
    ----------
    x : Tensor or array_like
        The tensor.
    dtype : dtype or str
        The target dtype (one of tenferro's seven).
    copy : bool, default True
        When ``dtype`` is ``x``'s: ``True`` returns a copy, ``False`` ``x`` itself.
        A cast always makes a new tensor.
    casting : {"no", "equiv", "safe", "same_kind", "unsafe"}, default "unsafe"
        NumPy's casting rule.

    Returns
    -------
    Tensor
        ``x``'s values in ``dtype``.

    Raises
    ------
    TypeError
        If ``dtype`` is not a tenferro dtype, or the cast breaks ``casting``.

    Notes
    -----
    Differentiable: yes, forward and reverse, between inexact dtypes (the cotangent is
    cast back, the real part for a real ``x``: PyTorch's ``_to_copy_backward``); casts
    to integer or bool dtypes give no gradient.

    See Also
    --------
    numpy.ndarray.astype, can_cast, result_type

    Examples
    --------
    >>> tf.astype(tf.asarray([1.7, -2.5]), "int32")
    tensor([ 1, -2], dtype=int32)
    """
    x = to_tensor(x)
    d = _dtypes.dtype(dtype)
    if d == x.dtype:
        return bind(copy_p, (x,), {}) if copy else x
    if casting != "unsafe" and not np.can_cast(x.dtype, d, casting=casting):
        raise TypeError("tenferro.astype: cannot cast %s to %s under the %r casting rule"
                        % (x.dtype, d, casting))
    return bind(convert_p, (x,), {"dtype": d})


def copy(x: ArrayLike) -> Tensor:
    """A new C-contiguous tensor with the same values (``numpy.copy``).

    Parameters
    ----------
    x : Tensor or array_like
        The tensor.

    Returns
    -------
    Tensor
        A new tensor on ``x``'s device, of its shape and dtype, sharing no memory.

    Raises
    ------
    TypeError
        If ``x`` cannot be converted to a tensor.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order (the
    identity's rule).

    See Also
    --------
    numpy.copy, ascontiguousarray, Tensor.copy

    Examples
    --------
    >>> x = tf.asarray([1.0, 2.0])
    >>> y = tf.copy(x)
    >>> y[0] = 5.0
    >>> x
    tensor([1., 2.])
    """
    return bind(copy_p, (to_tensor(x),), {})


def is_contiguous(x: ArrayLike) -> bool:
    """Whether ``x``'s memory is C-contiguous (``torch.Tensor.is_contiguous``;
    NumPy's ``x.flags.c_contiguous``).

    Views made by transposes, flips or strided slices usually are not; size-1 axes
    never matter.

    Parameters
    ----------
    x : Tensor or array_like
        The tensor.

    Returns
    -------
    bool
        True when the elements lie in memory in row-major order without gaps.

    Raises
    ------
    TypeError
        If ``x`` cannot be converted to a tensor.

    Notes
    -----
    Differentiable: no; a property of the layout.

    See Also
    --------
    ascontiguousarray

    Examples
    --------
    >>> x = tf.zeros((2, 3))
    >>> tf.is_contiguous(x), tf.is_contiguous(tf.transpose(x))
    (True, False)
    """
    x = to_tensor(x)
    s = x._data.strides
    expected = x.itemsize
    for dim, st in zip(reversed(x.shape), reversed(s)):
        if dim != 1 and st != expected:
            return False
        expected *= dim
    return True


def ascontiguousarray(x: ArrayLike) -> Tensor:
    """``x`` itself when it is C-contiguous, else a C-contiguous copy
    (``numpy.ascontiguousarray``).

    Parameters
    ----------
    x : Tensor or array_like
        The tensor.

    Returns
    -------
    Tensor
        A C-contiguous tensor with ``x``'s values.

    Raises
    ------
    TypeError
        If ``x`` cannot be converted to a tensor.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order (the
    identity, or a copy).

    See Also
    --------
    numpy.ascontiguousarray, is_contiguous, copy

    Examples
    --------
    >>> y = tf.ascontiguousarray(tf.transpose(tf.zeros((2, 3))))
    >>> y.shape, tf.is_contiguous(y)
    ((3, 2), True)
    """
    x = to_tensor(x)
    return x if is_contiguous(x) else bind(copy_p, (x,), {})


def to_device(x: ArrayLike, device: DeviceLike, copy: bool = False) -> Tensor:
    """``x`` on ``device`` (the Array API's ``to_device``; ``Tensor.to``).

    A move between devices copies the data; tenferro never moves data implicitly,
    this (or ``Tensor.to``) is the way.  On ``x``'s own device the result is ``x``
    itself (a copy for ``copy=True``).

    Parameters
    ----------
    x : Tensor or array_like
        The tensor.
    device : Device or str
        The target (``"cpu"``, ``"webgpu"``, ``"cuda:0"``, ...).
    copy : bool, default False
        Copy even when ``x`` is already on ``device``.

    Returns
    -------
    Tensor
        A tensor on ``device`` with ``x``'s values, shape and dtype.

    Raises
    ------
    ValueError
        If ``device`` names no known device type.
    UnsupportedOperation
        If the device does not support ``x``'s dtype (float64 on WebGPU).

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order (the
    cotangent moves back: PyTorch's ``grad.to(self.device())``).

    See Also
    --------
    asarray, devices

    Examples
    --------
    >>> tf.to_device(tf.asarray([1.0, 2.0]), "cpu")
    tensor([1., 2.])
    """
    from ..devices import device as _device

    x = to_tensor(x)
    dev = _device(device)
    if dev is x._device:
        return bind(copy_p, (x,), {}) if copy else x
    return bind(device_put_p, (x,), {"device": dev})


def copy_into(dst: Tensor, src: ArrayLike) -> Tensor:
    """Write ``src`` (broadcast, cast unsafely) into ``dst``'s memory. Not differentiable."""
    if not isinstance(src, Tensor):
        src = to_tensor(src, device=dst._device)
    if src._device is not dst._device:
        from .._errors import DeviceMismatchError

        raise DeviceMismatchError("assign", [dst._device, src._device])
    check_mutable("assign", dst, src)
    dev = dst._device
    _primitive.driver_call("assign", dev, dev.driver.lookup("assign", dev, dst.dtype),
                           (dst._data, src._data), {})


def check_mutable(name, dst, src=None):
    """Refuse in-place writes autodiff cannot follow; note the write otherwise."""
    if dst._trace is not None or (isinstance(src, Tensor) and src._trace is not None):
        raise RuntimeError("tenferro.%s: in-place writes are not supported on values being "
                           "differentiated by a transform (grad, jvp, ...); build a new tensor "
                           "(e.g. with where or concatenate) instead" % name)
    if isinstance(src, Tensor) and src._ad is not None and (
            src._ad.requires_grad or src._ad.grad_fn is not None) and not dst.requires_grad \
            and _recording():   # under no_grad the value is what is wanted (PyTorch)
        raise RuntimeError("tenferro.%s: writing a tensor that requires grad into one that "
                           "does not would lose its gradient; build a new tensor (e.g. with "
                           "where or concatenate) instead" % name)
    _versions.note_mutation(dst._data)


def _recording():
    """Whether eager grad mode records in this thread (false under ``no_grad``)."""
    return _primitive.state.enabled


def check_inplace(name, x):
    """PyTorch's rule for an in-place write into a tensor that autodiff follows: while
    grad mode records it is an error (the write cannot be differentiated); under
    ``no_grad`` it is allowed (an optimizer's ``w -= lr * w.grad``), and the version
    bump makes any backward that saved the old value raise."""
    m = x._ad
    if m is None or not (m.requires_grad or m.grad_fn is not None) or not _recording():
        return
    if m.grad_fn is None:
        raise RuntimeError("tenferro.%s: a leaf tensor that requires grad (shape %s) is being "
                           "used in an in-place operation; update it under tenferro.no_grad() "
                           "(as an optimizer step does) or build a new tensor" % (name, x.shape))
    raise RuntimeError("tenferro.%s: in-place operation on a tensor that requires grad (made by "
                       "%s); use the out-of-place form" % (name, m.grad_fn.name))


def check_out(name, out, shape, dtype):
    """Validate NumPy's ``out=``: a Tensor of ``shape`` that ``dtype`` casts into
    (same_kind) and that takes no part in autodiff."""
    if not isinstance(out, Tensor):
        raise TypeError("tenferro.%s: out must be a Tensor, got %s" % (name, type(out).__name__))
    if out.requires_grad:
        raise RuntimeError("tenferro.%s: out= is not supported for tensors that require grad"
                           % name)
    if out.shape != shape:
        raise ValueError("tenferro.%s: out has shape %s but the result has shape %s"
                         % (name, out.shape, shape))
    if not np.can_cast(dtype, out.dtype, casting="same_kind"):
        raise TypeError("tenferro.%s: cannot cast the result from %s to out's dtype %s under "
                        "the same_kind rule" % (name, dtype, out.dtype))


def store_out(name, r, out):
    """NumPy's ``out=`` for ops that compute first: ``r`` written into ``out``; returns it."""
    check_out(name, out, r.shape, r.dtype)
    copy_into(out, r)
    return out
