"""Creating tensors: from data, filled, ranges, identity, diagonals, triangles."""
from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import _dtypes
from .._tensor import Tensor
from ..devices import device as _dev
from ._common import shape_tuple

if TYPE_CHECKING:
    from .._tensor import ArrayLike, DeviceLike, DTypeLike, ScalarLike, ShapeLike


def _device(device):
    return _dev("cpu" if device is None else device)


_NUMPY_DEFAULTS = frozenset({_dtypes.bool_, _dtypes.int64, _dtypes.float64,
                             _dtypes.complex128})


def _python_data(obj):
    """Whether ``obj`` is Python data, whose dtype NumPy's defaults merely guess."""
    return isinstance(obj, (bool, int, float, complex, list, tuple)) and \
        not isinstance(obj, np.generic)


def _device_default(d, dev):
    """``d``, a dtype NumPy inferred from Python data, as ``dev``'s default for its kind
    (``Driver.default_dtypes``): float64 becomes float32 on a device without float64."""
    return dev.driver.default_dtypes[d.kind] if d in _NUMPY_DEFAULTS else d


def _default_float(device):
    return _device(device).driver.default_dtypes["f"]


def _wrap_host(arr, device):
    """Put a host ndarray (already of a tenferro dtype) on ``device``."""
    dev = _device(device)
    return Tensor._wrap(dev.driver.from_numpy(arr, dev), dev)


def _host_array(obj, dtype, copy, dev=None):
    """``obj`` as an ndarray of a tenferro dtype, copying only when needed or asked;
    Python data without ``dtype`` gets ``dev``'s default dtypes (when ``dev`` is given)."""
    if isinstance(obj, np.ndarray):
        arr = obj
    else:
        try:   # copy=False: NumPy raises where Python data (a list) must be copied
            arr = np.asarray(obj, copy=False if copy is False else None)
        except ValueError as e:
            raise ValueError("tenferro.asarray: cannot build a tensor from %r: %s"
                             % (type(obj).__name__, str(e).splitlines()[0])) from None
        if arr.dtype == object:
            raise TypeError("tenferro.asarray: cannot build a tensor from objects of type %s"
                            % type(obj).__name__)
    if dtype is not None:
        target = _dtypes.dtype(dtype)
    else:
        target = _dtypes.from_numpy_dtype(arr.dtype)
        if dev is not None and _python_data(obj):
            target = _device_default(target, dev)
    # kernels step in whole elements: a byte stride that is no multiple of the itemsize
    # (a field of a packed record array) is copied, as an unaligned array is
    odd = any(s % arr.itemsize for s in arr.strides) if arr.itemsize > 1 else False
    need = arr.dtype != target or not arr.dtype.isnative or not arr.flags.aligned or odd
    if need:
        if copy is False:
            raise ValueError("tenferro.asarray: copy=False but a copy is needed to convert "
                             "%s to %s%s" % (arr.dtype, target, "" if arr.dtype != target
                                             else " (the array is unaligned, byte-swapped or "
                                             "has strides %s that are no multiple of its "
                                             "itemsize)" % (arr.strides,)))
        return arr.astype(target)
    if copy:
        return arr.copy()
    return arr


def asarray(obj: Any, dtype: DTypeLike = None, device: DeviceLike = None,
            copy: bool | None = None) -> Tensor:
    """Convert ``obj`` to a Tensor, without copying when possible (``numpy.asarray``).

    Tensors pass through (moved to ``device`` or cast to ``dtype`` if asked), CPU
    ndarrays are wrapped zero-copy (the tensor shares their memory), objects with
    ``__dlpack__`` but no ``__array__`` are imported through DLPack, and anything
    NumPy can turn into an array (scalars, nested lists, buffers, objects with
    ``__array__``) is converted.
    Python data gets NumPy's default dtypes (int64, float64, complex128), or the
    device's defaults where it has no float64 (float32 on WebGPU); NumPy dtypes that
    tenferro lacks are widened (float16 to float32, int8/int16/uint8/uint16 to int32,
    uint32 to int64).  A nested list holding tensors that autodiff or a trace follows
    is stacked with ops, so derivatives flow through it.  Mirrors ``numpy.asarray``
    and the Array API's ``asarray``, including ``copy=``.

    Parameters
    ----------
    obj : Tensor, ndarray, scalar, nested sequence or DLPack/buffer object
        The data.
    dtype : dtype or str, optional
        The result's dtype (one of tenferro's seven); inferred from ``obj`` if None.
    device : Device or str, optional
        Where the result lives (``"cpu"``, ``"webgpu"``, ``"cuda:0"``, ...); a tensor
        keeps its own device and other data goes to the CPU if None.
    copy : bool, optional
        ``True`` always copies; ``False`` never copies (and raises if a copy is
        needed); ``None`` (default) copies only when needed.

    Returns
    -------
    Tensor
        A tensor of ``obj``'s shape; ``obj`` itself when it is a tensor that needs no
        change.

    Raises
    ------
    TypeError
        If ``obj`` holds objects or strings, or ``dtype`` is not a tenferro dtype.
    ValueError
        If the nested sequence is ragged, or ``copy=False`` but a copy is needed.

    Notes
    -----
    Differentiable: yes for tensors (a cast is the ``convert`` rule, PyTorch's
    ``_to_copy_backward``; a device move is ``device_put``'s) and for lists of tensors
    (stacked with ``concatenate``/``reshape``); NumPy and Python data are constants.

    See Also
    --------
    numpy.asarray, tensor, from_numpy, from_dlpack

    Examples
    --------
    >>> tf.asarray([[1, 2], [3, 4]])
    tensor([[1, 2],
            [3, 4]])
    >>> a = np.zeros(3)
    >>> t = tf.asarray(a)           # shares a's memory
    >>> a[0] = 7.0
    >>> t
    tensor([7., 0., 0.])
    """
    if isinstance(obj, Tensor):
        t = obj
        if device is not None and _device(device) is not t._device:
            t = t.to(device)
            copy = False if copy is None else copy
        if dtype is not None and _dtypes.dtype(dtype) != t.dtype:
            if copy is False:
                raise ValueError("tenferro.asarray: copy=False but casting %s to %s copies"
                                 % (t.dtype, _dtypes.dtype(dtype)))
            return t.astype(dtype)
        return t.copy() if copy else t
    if hasattr(obj, "__dlpack__") and not isinstance(obj, np.ndarray) \
            and not hasattr(obj, "__array__"):
        obj = np.from_dlpack(obj)
    dev = _device(device) if device is not None else None
    try:
        arr = _host_array(obj, dtype, copy, dev)
    except (RuntimeError, TypeError, ValueError):
        # NumPy refuses to read tensors that autodiff or a trace follows: a list of them
        # is stacked with ops instead (looked for only then: walking a long list of
        # numbers costs more than converting it)
        if isinstance(obj, (list, tuple)) and _followed(obj):
            return _stack_nested(obj, dtype, device)
        raise
    return _wrap_host(arr, device)


def _followed(obj):
    """Whether ``obj`` is (or nests, in lists and tuples) a tensor that autodiff or a
    trace follows: such data is built with ops, never read on the host."""
    if isinstance(obj, Tensor):
        return obj._trace is not None or obj._ad is not None
    return isinstance(obj, (list, tuple)) and any(_followed(o) for o in obj)


def _leaves(obj):
    if isinstance(obj, (list, tuple)):
        for o in obj:
            yield from _leaves(o)
    else:
        yield obj


def _stack_nested(obj, dtype, device):
    """Nested lists/tuples holding tensors that autodiff or a trace follows, stacked
    with ops so that their derivatives flow (NumPy's dtype and shape rules)."""
    from ._common import common_device
    from .joining import stack

    leaves = list(_leaves(obj))
    dev = _device(device) if device is not None else common_device("asarray", leaves)
    if dtype is not None:
        target = _dtypes.dtype(dtype)
    else:   # what np.asarray(obj) would give: Python numbers are not weak here
        target = _device_default(_dtypes.from_numpy_dtype(np.result_type(
            *[v.dtype if isinstance(v, Tensor) else np.asarray(v).dtype for v in leaves])),
            dev)

    def build(o):
        if not isinstance(o, (list, tuple)):
            return asarray(o, dtype=target, device=dev)
        parts = [build(e) for e in o]
        if not parts:
            raise ValueError("tenferro.asarray: cannot build a tensor from a nested sequence "
                             "with an empty list beside tensors")
        if any(p.shape != parts[0].shape for p in parts):
            raise ValueError("tenferro.asarray: the nested sequence has an inhomogeneous shape "
                             "(elements of shapes %s at one level)"
                             % sorted({p.shape for p in parts}))
        return stack(parts)
    return build(obj)


def tensor(data: ArrayLike, dtype: DTypeLike = None, device: DeviceLike = None,
           requires_grad: bool = False) -> Tensor:
    """A new tensor holding a copy of ``data`` (``torch.tensor``).

    Like :func:`asarray` with ``copy=True``: the result never shares memory with
    ``data``.  ``requires_grad=True`` makes it a leaf whose ``.grad`` ``backward()``
    fills, as in PyTorch.

    Parameters
    ----------
    data : Tensor, ndarray, scalar or nested sequence
        The values (converted as :func:`asarray` converts them).
    dtype : dtype or str, optional
        The result's dtype; inferred from ``data`` if None.
    device : Device or str, optional
        Where the result lives; the CPU (or a tensor's own device) if None.
    requires_grad : bool, default False
        Whether eager autodiff records operations on the result.

    Returns
    -------
    Tensor
        A new tensor of ``data``'s shape.

    Raises
    ------
    TypeError
        If ``data`` holds objects or strings, or ``dtype`` is not a tenferro dtype.
    ValueError
        If the nested sequence is ragged.

    Notes
    -----
    Differentiable: yes for tensor ``data`` (a copy, whose rule passes the cotangent
    through); Python and NumPy data are constants.

    See Also
    --------
    asarray, torch.tensor

    Examples
    --------
    >>> x = tf.tensor([1.0, 2.0], requires_grad=True)
    >>> x
    tensor([1., 2.], requires_grad=True)
    """
    t = asarray(data, dtype=dtype, device=device, copy=True)
    if requires_grad:
        t.requires_grad_(True)
    return t


def from_numpy(array: np.ndarray[Any, Any]) -> Tensor:
    """Wrap a NumPy array as a CPU tensor sharing its memory (``torch.from_numpy``).

    It never copies: writes to the array are seen through the tensor and back.  An
    array that would need a copy (a dtype tenferro widens, such as int8 or float16,
    or unaligned or byte-swapped memory) raises; :func:`asarray` converts those.

    Parameters
    ----------
    array : numpy.ndarray
        The array to wrap.

    Returns
    -------
    Tensor
        A CPU tensor of ``array``'s shape and dtype.

    Raises
    ------
    TypeError
        If ``array`` is not a ``numpy.ndarray`` (use :func:`asarray` for other data),
        or its dtype has no tenferro counterpart (strings, objects, float128, ...).
    ValueError
        If the array needs a copy (an unaligned or byte-swapped one, or a dtype that is
        widened).

    Notes
    -----
    Differentiable: no; the result is a new leaf (call ``requires_grad_()`` on it to
    differentiate with respect to it).

    See Also
    --------
    asarray, torch.from_numpy

    Examples
    --------
    >>> a = np.arange(3.0)
    >>> tf.from_numpy(a)
    tensor([0., 1., 2.])
    """
    if not isinstance(array, np.ndarray):
        raise TypeError("tenferro.from_numpy: expected a numpy.ndarray, got %s"
                        % type(array).__name__)
    return asarray(array, copy=False)


_DLPACK_DEVICES = {2: "cuda", 13: "cuda"}   # DLPack device type -> tenferro's (CPU: 1)


def from_dlpack(x: Any, device: DeviceLike = None, copy: bool | None = None) -> Tensor:
    """Import a DLPack-capable array (``numpy.from_dlpack``, ``torch.from_dlpack``).

    Host memory is shared (zero-copy), and so is CUDA memory when tenferro's CUDA device
    for it is available; ``device`` and ``copy`` then act as in :func:`asarray`.

    Parameters
    ----------
    x : object with ``__dlpack__``
        The array to import (a NumPy array, a PyTorch or JAX CPU/CUDA tensor, ...).
    device : Device or str, optional
        Move the result there (its own device if None).
    copy : bool, optional
        As :func:`asarray`'s.

    Returns
    -------
    Tensor
        A tensor sharing ``x``'s memory unless a move, cast or ``copy=True`` asked for
        a copy.

    Raises
    ------
    TypeError
        If ``x`` lives on a device other than the host or CUDA.
    ValueError
        If ``copy=False`` but a copy is needed.

    Notes
    -----
    Differentiable: no; the result is a new leaf (a tenferro tensor passes through as
    in :func:`asarray`).

    See Also
    --------
    numpy.from_dlpack, asarray

    Examples
    --------
    >>> tf.from_dlpack(np.arange(3))
    tensor([0, 1, 2])
    """
    if isinstance(x, Tensor):
        return asarray(x, device=device, copy=copy)
    dev_type, index = x.__dlpack_device__() if hasattr(x, "__dlpack_device__") else (1, 0)
    if dev_type in _DLPACK_DEVICES:
        dev = _device("%s:%d" % (_DLPACK_DEVICES[dev_type], index))
        t = Tensor._wrap(dev.driver.from_dlpack(x, dev), dev)
        return asarray(t, device=device, copy=copy)
    if dev_type != 1:
        raise TypeError("tenferro.from_dlpack: only host (CPU) and CUDA DLPack tensors are "
                        "supported, got DLPack device type %d" % dev_type)
    return asarray(np.from_dlpack(x), device=device, copy=copy)


def from_col_major(data: ArrayLike, shape: ShapeLike, dtype: DTypeLike = None,
                   device: DeviceLike = None) -> Tensor:
    """Build a tensor of ``shape`` from column-major (Fortran/Julia order) flat ``data``.

    The element ``t[i, j, ...]`` is the one a column-major language (Fortran, Julia,
    MATLAB, tenferro-rs's ``from_vec_col_major``) would find at those indices: the
    result is ``numpy.reshape(data, shape, order="F")``, a Fortran-ordered view of the
    data when no conversion is needed.  ``from_vec_col_major`` is the same function.

    Parameters
    ----------
    data : ndarray or sequence
        The values in column-major order (flattened if not 1-D).
    shape : int or tuple of ints
        The result's shape; its size must equal ``data``'s.
    dtype : dtype or str, optional
        The result's dtype; inferred from ``data`` if None.
    device : Device or str, optional
        Where the result lives; the CPU if None.

    Returns
    -------
    Tensor
        A tensor of ``shape``.

    Raises
    ------
    ValueError
        If ``data``'s size is not the product of ``shape``, or ``shape`` is negative.
    TypeError
        If ``shape`` is not a tuple of ints or ``dtype`` is not a tenferro dtype.

    Notes
    -----
    Differentiable: no; host data becomes a new leaf.

    See Also
    --------
    numpy.reshape

    Examples
    --------
    >>> tf.from_col_major([1, 2, 3, 4, 5, 6], (2, 3))
    tensor([[1, 3, 5],
            [2, 4, 6]])
    """
    shape = shape_tuple("from_col_major", shape)
    arr = _host_array(data, dtype, None, _device(device)).reshape(-1)
    n = int(np.prod(shape))
    if arr.size != n:
        raise ValueError("tenferro.from_col_major: %d values do not fill shape %s (%d needed)"
                         % (arr.size, shape, n))
    return _wrap_host(arr.reshape(shape, order="F"), device)


from_vec_col_major = from_col_major


def empty(shape: ShapeLike, dtype: DTypeLike = None, device: DeviceLike = None) -> Tensor:
    shape = shape_tuple("empty", shape)
    dev = _device(device)
    d = _dtypes.dtype(dtype) if dtype is not None else _default_float(dev)
    return Tensor._wrap(dev.driver.empty(shape, d, dev), dev)


def full(shape: ShapeLike, fill_value: ScalarLike, dtype: DTypeLike = None,
         device: DeviceLike = None) -> Tensor:
    """A tensor of ``shape`` filled with ``fill_value`` (``numpy.full``).

    Without ``dtype`` the dtype is inferred from ``fill_value`` as NumPy does (a Python
    int gives int64, a float float64 or the device's default float, a bool bool).

    Parameters
    ----------
    shape : int or tuple of ints
        The result's shape.
    fill_value : scalar or 0-d Tensor
        The value of every element.
    dtype : dtype or str, optional
        The result's dtype; inferred from ``fill_value`` if None.
    device : Device or str, optional
        Where the result lives; the CPU if None.
    requires_grad : bool, default False
        Make the result a leaf that eager autodiff follows (PyTorch's keyword).

    Returns
    -------
    Tensor
        A new tensor of ``shape``.

    Raises
    ------
    ValueError
        If ``shape`` has a negative dimension.
    TypeError
        If ``shape`` is not a tuple of ints or ``dtype`` is not a tenferro dtype.

    Notes
    -----
    Differentiable: yes in ``fill_value`` when it is a tensor autodiff or a trace
    follows (a ``broadcast_to``, whose VJP sums the cotangent, JAX's
    ``_broadcast_in_dim_transpose_rule``); a Python scalar is a constant.

    See Also
    --------
    numpy.full, full_like, zeros, ones

    Examples
    --------
    >>> tf.full((2, 2), 7)
    tensor([[7, 7],
            [7, 7]])
    >>> tf.full(2, 0.5, dtype="float32")
    tensor([0.5, 0.5], dtype=float32)
    """
    return _full(shape_tuple("full", shape), fill_value, dtype, device)


def _full(shape, fill_value, dtype, device):
    """:func:`full` of a checked shape tuple."""
    if _followed(fill_value):   # a value being differentiated or traced: keep it in the graph
        from .shape import broadcast_to

        fill = asarray(fill_value, dtype=dtype, device=device)
        return broadcast_to(fill, shape).copy()
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    dev = _device(device)
    if dtype is None:
        d = _dtypes.from_numpy_dtype(np.asarray(fill_value).dtype)
        if _python_data(fill_value):
            d = _device_default(d, dev)
    else:
        d = _dtypes.dtype(dtype)
    return Tensor._wrap(dev.driver.full(shape, d, fill_value, dev), dev)


def zeros(shape: ShapeLike, dtype: DTypeLike = None, device: DeviceLike = None) -> Tensor:
    shape = shape_tuple("zeros", shape)
    return _full(shape, 0, dtype if dtype is not None else _default_float(device), device)


def ones(shape: ShapeLike, dtype: DTypeLike = None, device: DeviceLike = None) -> Tensor:
    shape = shape_tuple("ones", shape)
    return _full(shape, 1, dtype if dtype is not None else _default_float(device), device)


def _like(x, dtype, device, shape):
    if not isinstance(x, Tensor):   # array_like, as NumPy's *_like accept
        # with a dtype given, x gives only its shape: read on the host, not sent to the
        # device (which may lack x's dtype); else the device's defaults apply to it
        x = asarray(x) if dtype is not None else asarray(x, device=device)
    return (x.shape if shape is None else shape,
            x.dtype if dtype is None else dtype,
            x.device if device is None else device)


def empty_like(x: ArrayLike, dtype: DTypeLike = None, device: DeviceLike = None,
               shape: ShapeLike | None = None) -> Tensor:
    return empty(*_like(x, dtype, device, shape))


def zeros_like(x: ArrayLike, dtype: DTypeLike = None, device: DeviceLike = None,
               shape: ShapeLike | None = None) -> Tensor:
    s, d, dev = _like(x, dtype, device, shape)
    return full(s, 0, d, dev)


def ones_like(x: ArrayLike, dtype: DTypeLike = None, device: DeviceLike = None,
              shape: ShapeLike | None = None) -> Tensor:
    s, d, dev = _like(x, dtype, device, shape)
    return full(s, 1, d, dev)


def full_like(x: ArrayLike, fill_value: ScalarLike, dtype: DTypeLike = None,
              device: DeviceLike = None, shape: ShapeLike | None = None) -> Tensor:
    s, d, dev = _like(x, dtype, device, shape)
    return full(s, fill_value, d, dev)


def arange(start: ScalarLike, stop: ScalarLike | None = None, step: ScalarLike = 1,
           dtype: DTypeLike = None, device: DeviceLike = None) -> Tensor:
    """Evenly spaced values in the half-open interval ``[start, stop)`` (``numpy.arange``).

    ``arange(n)`` is ``0, 1, ..., n - 1``; with a step, ``start + k * step`` for
    ``k = 0, 1, ...`` while below ``stop`` (above, for a negative step).  The dtype is
    NumPy's (int64 for integer arguments, float64, or the device's default float).  As
    with NumPy, a non-integer step can give one element more or less than expected
    from rounding: prefer :func:`linspace` there.

    Parameters
    ----------
    start : scalar or 0-d Tensor
        The first value; the end ``stop`` (and 0 the start) if ``stop`` is None.
    stop : scalar or 0-d Tensor, optional
        The end, excluded.
    step : scalar or 0-d Tensor, default 1
        The spacing.
    dtype : dtype or str, optional
        The result's dtype; inferred from the arguments if None.
    device : Device or str, optional
        Where the result lives; the CPU if None.
    requires_grad : bool, default False
        Make the result a leaf that eager autodiff follows (PyTorch's keyword).

    Returns
    -------
    Tensor, shape (N,)
        ``N = ceil((stop - start) / step)`` values (none if that is not positive).

    Raises
    ------
    ValueError
        If ``step`` is zero.
    TypeError
        If a tensor argument is not 0-d.
    ConcretizationError
        If an argument is traced by ``jit`` or differentiated by a transform such as
        ``grad``: the length depends on its value, which is read on the host.

    Notes
    -----
    Differentiable: yes in ``start`` and ``step`` under eager autodiff (tensors with
    ``requires_grad``): the values are ``start + k * step`` (elementwise rules);
    under transforms see Raises.

    See Also
    --------
    numpy.arange, linspace

    Examples
    --------
    >>> tf.arange(5)
    tensor([0, 1, 2, 3, 4])
    >>> tf.arange(0, 1, 0.25)
    tensor([0.  , 0.25, 0.5 , 0.75])
    """
    if stop is None:
        start, stop = 0, start
    if _followed([start, stop, step]):
        return _arange_graph(start, stop, step, dtype, device)
    if step == 0:
        raise ValueError("tenferro.arange: step must be non-zero")
    a = np.arange(start, stop, step)
    if dtype is None:
        dtype = _device_default(a.dtype, _device(device))
    return asarray(a, dtype=dtype, device=device)


def linspace(start: ScalarLike, stop: ScalarLike, num: int = 50, endpoint: bool = True,
             dtype: DTypeLike = None, device: DeviceLike = None) -> Tensor:
    """``num`` evenly spaced values from ``start`` to ``stop`` (``numpy.linspace``).

    The values are ``start + k * (stop - start) / div`` with ``div = num - 1`` (``num``
    with ``endpoint=False``); with ``endpoint`` the last value is exactly ``stop``.
    Array-valued ends give one line per element, along a new first axis (NumPy's
    ``axis=0``).

    Parameters
    ----------
    start, stop : scalar, array_like or Tensor
        The ends (broadcast together).
    num : int, default 50
        The number of values.
    endpoint : bool, default True
        Whether ``stop`` is the last value.
    dtype : dtype or str, optional
        The result's dtype; float64 (or the device's default float) if None.
    device : Device or str, optional
        Where the result lives; the CPU if None.
    requires_grad : bool, default False
        Make the result a leaf that eager autodiff follows (PyTorch's keyword).

    Returns
    -------
    Tensor, shape (num, ...)
        The values.

    Raises
    ------
    ValueError
        If ``num`` is negative.

    Notes
    -----
    Differentiable: yes in ``start`` and ``stop`` when they are tensors autodiff or a
    trace follows (an affine combination of them: elementwise rules).

    See Also
    --------
    numpy.linspace, arange

    Examples
    --------
    >>> tf.linspace(0, 1, 5)
    tensor([0.  , 0.25, 0.5 , 0.75, 1.  ])
    """
    if num < 0:
        raise ValueError("tenferro.linspace: num must be non-negative, got %d" % num)
    if _followed([start, stop]):
        return _linspace_graph(start, stop, num, endpoint, dtype, device)
    a = np.linspace(start, stop, num, endpoint=endpoint)
    if dtype is None:
        dtype = _device_default(a.dtype, _device(device))
    return asarray(a, dtype=dtype, device=device)


def _arange_graph(start, stop, step, dtype, device):
    """``arange`` with a start or step that autodiff follows: ``start + k * step``.  The
    length depends on the values, read on the host (a traced value raises
    ``ConcretizationError``: its length is unknown until the program runs)."""
    ends = [asarray(v, device=device) for v in (start, stop, step)]
    for v, what in zip(ends, ("start", "stop", "step")):
        if v.ndim:
            raise TypeError("tenferro.arange: %s must be a scalar, got shape %s"
                            % (what, v.shape))
    values = [v._scalar("tenferro.arange's length (from %s)" % w)
              for v, w in zip(ends, ("start", "stop", "step"))]
    if values[2] == 0:
        raise ValueError("tenferro.arange: step must be non-zero")
    n = np.arange(*values).size
    if dtype is None:
        dtype = _device_default(_dtypes.from_numpy_dtype(np.result_type(
            *[v.dtype for v in ends])), ends[0].device)
    k = asarray(np.arange(n), dtype=dtype, device=ends[0].device)
    return (ends[0].astype(dtype) + k * ends[2].astype(dtype)).astype(dtype)


def _linspace_graph(start, stop, num, endpoint, dtype, device):
    """``linspace`` with ends that autodiff follows: ``start + (k / div) (stop - start)``
    along a new first axis (NumPy's layout, its exact ``stop`` with ``endpoint``)."""
    from .shape import broadcast_to, reshape
    from .joining import concatenate

    start, stop = asarray(start, device=device), asarray(stop, device=device)
    target = np.result_type(start.dtype, stop.dtype, float)
    start, stop = start.astype(target, copy=False), stop.astype(target, copy=False)
    div = num - 1 if endpoint else num
    shape = np.broadcast_shapes(start.shape, stop.shape)
    frac = np.arange(num, dtype=np.float64) / div if div > 0 else np.zeros(num)
    frac = asarray(frac.reshape((num,) + (1,) * len(shape)), dtype=np.finfo(target).dtype,
                   device=start.device)
    y = start + frac * (stop - start)
    if endpoint and num > 1:
        y = concatenate([y[:-1], reshape(broadcast_to(stop, shape), (1,) + shape)])
    return y if dtype is None else y.astype(dtype)


def eye(N: int, M: int | None = None, k: int = 0, dtype: DTypeLike = None,
        device: DeviceLike = None) -> Tensor:
    """An ``N`` x ``M`` matrix with ones on the ``k``-th diagonal (``numpy.eye``).

    Parameters
    ----------
    N : int
        Number of rows.
    M : int, optional
        Number of columns; ``N`` if None.
    k : int, default 0
        The diagonal: 0 the main one, positive above it, negative below.
    dtype : dtype or str, optional
        The result's dtype; float64 (or the device's default float) if None.
    device : Device or str, optional
        Where the result lives; the CPU if None.
    requires_grad : bool, default False
        Make the result a leaf that eager autodiff follows (PyTorch's keyword).

    Returns
    -------
    Tensor, shape (N, M)
        Ones on the diagonal, zeros elsewhere.

    Raises
    ------
    ValueError
        If ``N`` or ``M`` is negative.
    TypeError
        If ``dtype`` is not a tenferro dtype.

    Notes
    -----
    Differentiable: no; a constant.

    See Also
    --------
    numpy.eye, identity, diag

    Examples
    --------
    >>> tf.eye(2, 3, k=1)
    tensor([[0., 1., 0.],
            [0., 0., 1.]])
    """
    shape_tuple("eye", (N, N if M is None else M))   # NumPy's message names no function
    a = np.eye(N, M, k, dtype=_dtypes.dtype(dtype) if dtype is not None
               else _default_float(device))
    return asarray(a, device=device)


def identity(n: int, dtype: DTypeLike = None, device: DeviceLike = None) -> Tensor:
    """The ``n`` x ``n`` identity matrix (``numpy.identity``; ``eye(n)``).

    Parameters
    ----------
    n : int
        Number of rows and columns.
    dtype : dtype or str, optional
        The result's dtype; float64 (or the device's default float) if None.
    device : Device or str, optional
        Where the result lives; the CPU if None.
    requires_grad : bool, default False
        Make the result a leaf that eager autodiff follows (PyTorch's keyword).

    Returns
    -------
    Tensor, shape (n, n)
        Ones on the diagonal, zeros elsewhere.

    Raises
    ------
    ValueError
        If ``n`` is negative.
    TypeError
        If ``dtype`` is not a tenferro dtype.

    Notes
    -----
    Differentiable: no; a constant.

    See Also
    --------
    numpy.identity, eye

    Examples
    --------
    >>> tf.identity(2, dtype=int)
    tensor([[1, 0],
            [0, 1]])
    """
    shape_tuple("identity", (n, n))
    return eye(n, dtype=dtype, device=device)


def _tri_mask(op, x, k, upper):
    from ._common import to_tensor

    x = to_tensor(x)
    if x.ndim < 2:
        raise ValueError("tenferro.%s: expected a tensor with at least 2 dimensions, got "
                         "shape %s" % (op, x.shape))
    n, m = x.shape[-2:]
    mask = np.tri(n, m, k - 1 if upper else k, dtype=bool)
    if upper:
        mask = ~mask
    return x, asarray(mask, device=x.device)


def _zero(x):
    """A 0-d zero of ``x``'s dtype (a Python 0 would promote bool to int64)."""
    return zeros((), dtype=x.dtype, device=x.device)


def tril(x: ArrayLike, k: int = 0) -> Tensor:
    """Lower triangle of the last two axes (elements above the k-th diagonal zeroed)."""
    from .elementwise import where

    x, mask = _tri_mask("tril", x, k, upper=False)
    return where(mask, x, _zero(x))


def triu(x: ArrayLike, k: int = 0) -> Tensor:
    """Upper triangle of the last two axes (elements below the k-th diagonal zeroed)."""
    from .elementwise import where

    x, mask = _tri_mask("triu", x, k, upper=True)
    return where(mask, x, _zero(x))


def diag(v: ArrayLike, k: int = 0) -> Tensor:
    """Extract a diagonal of a matrix, or build a matrix with ``v`` on a diagonal
    (``numpy.diag``).

    For 2-D ``v`` the ``k``-th diagonal is returned (a copy; :func:`diagonal` gives a
    view).  For 1-D ``v`` the result is the square matrix of size ``len(v) + abs(k)``
    with ``v`` on its ``k``-th diagonal and zeros elsewhere.

    Parameters
    ----------
    v : Tensor or array_like, 1-D or 2-D
        The diagonal's values, or the matrix.
    k : int, default 0
        The diagonal: 0 the main one, positive above it, negative below.

    Returns
    -------
    Tensor
        1-D for a matrix ``v``, 2-D for a vector ``v``.

    Raises
    ------
    ValueError
        If ``v`` is not 1-D or 2-D.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order (a
    ``diagonal`` view, or a gather and ``where``: JAX's gather and PyTorch's
    ``diagonal_backward`` rules).

    See Also
    --------
    numpy.diag, diagonal, eye

    Examples
    --------
    >>> tf.diag([1, 2])
    tensor([[1, 0],
            [0, 2]])
    >>> tf.diag(tf.asarray([[1, 2], [3, 4]]))
    tensor([1, 4])
    """
    from ._common import to_tensor
    from .shape import diagonal
    from .indexing import take

    v = to_tensor(v)
    if v.ndim == 2:
        return diagonal(v, k).copy()
    if v.ndim != 1:
        raise ValueError("tenferro.diag: expected a 1-D or 2-D tensor, got shape %s"
                         % (v.shape,))
    n = v.shape[0] + abs(k)
    if v.shape[0] == 0:
        return zeros((n, n), dtype=v.dtype, device=v.device)
    rows, cols = np.indices((n, n))
    idx = np.minimum(rows if k >= 0 else cols, v.shape[0] - 1)
    mask = np.eye(n, k=k, dtype=bool)
    from .elementwise import where

    return where(asarray(mask, device=v.device), take(v, asarray(idx, device=v.device)),
                 _zero(v))


# -- docstrings of the families: one template each ----------------------------------------

_REQUIRES_GRAD = """requires_grad : bool, default False
    Make the result a leaf that eager autodiff follows (PyTorch's keyword)."""

_FILLED_DOC = """{what} of shape ``shape`` (``numpy.{name}``).

{detail}

Parameters
----------
shape : int or tuple of ints
    The result's shape.
dtype : dtype or str, optional
    The result's dtype; float64 (float32 on a device without float64) if None.
device : Device or str, optional
    Where the result lives; the CPU if None.
{requires_grad}

Returns
-------
Tensor
    A new tensor of ``shape``.

Raises
------
ValueError
    If ``shape`` has a negative dimension.
TypeError
    If ``shape`` is not a tuple of ints or ``dtype`` is not a tenferro dtype.

Notes
-----
Differentiable: no; a constant, which ``requires_grad=True`` makes a leaf.

See Also
--------
numpy.{name}, {name}_like, full

Examples
--------
{example}
"""

_LIKE_DOC = """A new tensor {what} with the shape, dtype and device of ``x`` (``numpy.{name}``).

Each of ``dtype``, ``device`` and ``shape`` overrides ``x``'s; ``x`` may be any
array_like (converted as :func:`asarray` converts it).{detail}

Parameters
----------
x : Tensor or array_like
    The tensor whose shape, dtype and device the result takes.{fill}
dtype : dtype or str, optional
    The result's dtype; ``x``'s if None.
device : Device or str, optional
    Where the result lives; ``x``'s device if None.
shape : int or tuple of ints, optional
    The result's shape; ``x``'s if None.
{requires_grad}

Returns
-------
Tensor
    A new tensor; it shares no memory with ``x``.

Raises
------
ValueError
    If ``shape`` has a negative dimension.
TypeError
    If ``dtype`` is not a tenferro dtype.

Notes
-----
Differentiable: {diff}

See Also
--------
numpy.{name}, {base}

Examples
--------
{example}
"""

_FILL_PARAM = """
fill_value : scalar or 0-d Tensor
    The value of every element."""

_TRI_DOC = """The {which} triangle of ``x``'s last two axes (``numpy.{name}``).

Elements {cond} the ``k``-th diagonal are set to zero; positive ``k`` is above the
main diagonal, negative below.  Leading axes are a batch.  NumPy turns a 1-D input
into a square matrix first; tenferro (as the Array API) asks for at least 2-D.

Parameters
----------
x : Tensor or array_like, shape (..., M, N)
    The matrices.
k : int, default 0
    The diagonal that bounds the triangle (it is kept).

Returns
-------
Tensor, shape (..., M, N)
    A new tensor of ``x``'s dtype.

Raises
------
ValueError
    If ``x`` has fewer than 2 dimensions.

Notes
-----
Differentiable: yes, forward and reverse, real and complex, to any order (a
``where`` with a constant mask: PyTorch's ``where`` rule).

See Also
--------
numpy.{name}, {other}

Examples
--------
>>> tf.{name}(tf.ones((3, 3)), {k})
{out}
"""

_LEAF = ("``requires_grad=True`` makes it a leaf to differentiate with respect to (say, "
         "the\nstarting parameters of a fit).")
_NO_GRAD = "no; a constant, which ``requires_grad=True`` makes a leaf."
for _fn, _what, _detail, _example in (
        (zeros, "A tensor of zeros", _LEAF,
         ">>> tf.zeros((2, 3))\ntensor([[0., 0., 0.],\n        [0., 0., 0.]])"),
        (ones, "A tensor of ones", _LEAF,
         ">>> tf.ones(3, dtype=int)\ntensor([1, 1, 1])"),
        (empty, "An uninitialised tensor",
         "Its memory is uninitialised (any values may be there), as ``numpy.empty``'s: "
         "write every\nelement before reading one.",
         ">>> tf.empty((2, 3)).shape\n(2, 3)")):
    _fn.__doc__ = _FILLED_DOC.format(name=_fn.__name__, what=_what, detail=_detail,
                                     requires_grad=_REQUIRES_GRAD, example=_example)
for _fn, _what, _detail, _diff, _example in (
        (zeros_like, "of zeros", "", _NO_GRAD,
         ">>> tf.zeros_like(tf.asarray([[1, 2]]))\ntensor([[0, 0]])"),
        (ones_like, "of ones", "", _NO_GRAD,
         ">>> tf.ones_like([1.0, 2.0], dtype=\"int32\")\ntensor([1, 1], dtype=int32)"),
        (empty_like, "with uninitialised values",
         "  Write every element before reading one.", _NO_GRAD,
         ">>> tf.empty_like(tf.zeros((2, 2))).shape\n(2, 2)"),
        (full_like, "filled with ``fill_value``", "", "yes in ``fill_value`` when it is a "
         "tensor autodiff\nor a trace follows (as in :func:`full`); ``x`` only gives the "
         "shape.",
         ">>> tf.full_like(tf.zeros(3), 0.5)\ntensor([0.5, 0.5, 0.5])")):
    _base = _fn.__name__[:-len("_like")]
    _fn.__doc__ = _LIKE_DOC.format(
        name=_fn.__name__, base=_base, what=_what, detail=_detail, diff=_diff,
        fill=_FILL_PARAM if _fn is full_like else "", requires_grad=_REQUIRES_GRAD,
        example=_example)
for _fn, _which, _cond, _other, _k, _out in (
        (tril, "lower", "above", "triu", 0,
         "tensor([[1., 0., 0.],\n        [1., 1., 0.],\n        [1., 1., 1.]])"),
        (triu, "upper", "below", "tril", 1,
         "tensor([[0., 1., 1.],\n        [0., 0., 1.],\n        [0., 0., 0.]])")):
    _fn.__doc__ = _TRI_DOC.format(name=_fn.__name__, which=_which, cond=_cond, other=_other,
                                  k=_k, out=_out)


def _requires_grad_keyword(fn):
    """Give a factory PyTorch's ``requires_grad=`` keyword."""
    def wrapper(*args, requires_grad=False, **kwargs):
        t = fn(*args, **kwargs)
        return t.requires_grad_() if requires_grad else t
    wrapper.__name__ = wrapper.__qualname__ = fn.__name__
    wrapper.__doc__ = fn.__doc__
    wrapper.__wrapped__ = fn
    sig = inspect.signature(fn)
    wrapper.__signature__ = sig.replace(parameters=list(sig.parameters.values()) + [
        inspect.Parameter("requires_grad", inspect.Parameter.KEYWORD_ONLY, default=False,
                          annotation="bool")])
    return wrapper


for _fn in (empty, full, zeros, ones, empty_like, zeros_like, ones_like, full_like, arange,
            linspace, eye, identity):
    globals()[_fn.__name__] = _requires_grad_keyword(_fn)
