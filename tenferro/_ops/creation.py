"""Creating tensors: from data, filled, ranges, identity, diagonals, triangles."""
from __future__ import annotations

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
    """Convert ``obj`` to a Tensor, without copying when possible (``copy=`` as NumPy's).

    Tensors pass through (moved/cast if asked), CPU ndarrays are wrapped zero-copy,
    and anything NumPy can turn into an array (scalars, nested lists, buffers,
    objects with ``__array__``) is converted with NumPy's default dtypes.
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
    """A new tensor holding a copy of ``data`` (like ``torch.tensor``)."""
    t = asarray(data, dtype=dtype, device=device, copy=True)
    if requires_grad:
        t.requires_grad_(True)
    return t


def from_numpy(array: np.ndarray[Any, Any]) -> Tensor:
    """Wrap a NumPy array as a CPU tensor sharing its memory (no copy)."""
    if not isinstance(array, np.ndarray):
        raise TypeError("tenferro.from_numpy: expected a numpy.ndarray, got %s"
                        % type(array).__name__)
    return asarray(array, copy=False)


_DLPACK_DEVICES = {2: "cuda", 13: "cuda"}   # DLPack device type -> tenferro's (CPU: 1)


def from_dlpack(x: Any, device: DeviceLike = None, copy: bool | None = None) -> Tensor:
    """Import a DLPack-capable array (zero-copy for host memory, and for CUDA memory on
    the CUDA device it is on)."""
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
    """Build a tensor of ``shape`` from column-major (Fortran/Julia-order) flat ``data``.

    The result is a Fortran-ordered view of the data (tenferro-rs's
    ``from_vec_col_major``); values read as ``t[i, j, ...]`` like in the source language.
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
    """A tensor of ``shape`` filled with ``fill_value`` (dtype inferred as NumPy does)."""
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
    """Evenly spaced values in [start, stop) (NumPy's ``arange`` and dtype inference)."""
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
    """Ones on the ``k``-th diagonal of an N x M matrix."""
    a = np.eye(N, M, k, dtype=_dtypes.dtype(dtype) if dtype is not None
               else _default_float(device))
    return asarray(a, device=device)


def identity(n: int, dtype: DTypeLike = None, device: DeviceLike = None) -> Tensor:
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
    """Extract the k-th diagonal of a matrix, or build a matrix with ``v`` on it (NumPy's)."""
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


def _requires_grad_keyword(fn):
    """Give a factory PyTorch's ``requires_grad=`` keyword."""
    def wrapper(*args, requires_grad=False, **kwargs):
        t = fn(*args, **kwargs)
        return t.requires_grad_() if requires_grad else t
    wrapper.__name__ = wrapper.__qualname__ = fn.__name__
    wrapper.__doc__ = fn.__doc__
    wrapper.__wrapped__ = fn
    return wrapper


for _fn in (empty, full, zeros, ones, empty_like, zeros_like, ones_like, full_like, arange,
            linspace, eye, identity):
    globals()[_fn.__name__] = _requires_grad_keyword(_fn)
