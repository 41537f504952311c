"""The Tensor type: storage on a device plus shape, strides, offset and dtype.

A Tensor wraps its driver's device array (``_data``; on the CPU a NumPy ndarray
view, so ``np.asarray(t)`` is zero-copy) and its :class:`~tenferro.devices.Device`.
This module holds the storage, the metadata and the conversions to host values; it
imports nothing above it (docs/design.md).  The layers above attach the rest, as
JAX's ``array_methods`` does: the ops layer the constructor, operators and op methods
(``tenferro/_ops/_methods.py``), autodiff ``backward``, the hooks and the writable
``requires_grad``/``grad`` (``tenferro/autograd/_engine.py``).

The public API's type hints (PEP 561, ``py.typed``) use the aliases below; what the
layers above attach is declared for type checkers in ``Tensor``'s ``TYPE_CHECKING``
block (tests/test_packaging.py checks it against what is attached).
"""
from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any, Iterator

import numpy as np

from . import _dtypes
from ._errors import ConcretizationError

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from types import EllipsisType, ModuleType
    from typing import SupportsIndex, Union

    import numpy.typing as npt

    # What tenferro.asarray takes: tensors and anything NumPy turns into an array.
    ArrayLike = Union["Tensor", npt.ArrayLike]
    DTypeLike = Union[npt.DTypeLike, None]     # a dtype, its name or type; None: the default
    DeviceLike = Any                           # a tenferro.Device (a layer up) or its name
    ScalarLike = Union[complex, np.generic, "Tensor"]   # a number (int, float: complex's)
    ShapeLike = Union[SupportsIndex, Sequence[SupportsIndex]]
    AxisLike = Union[None, SupportsIndex, Sequence[SupportsIndex]]
    # An index (Tensor.__getitem__/__setitem__; NumPy's basic and advanced indexing): an
    # int (a bool: a 0-d mask), a slice, None, ..., an integer or boolean tensor or
    # ndarray, a (nested) list of ints or bools, or a tuple of those.
    IndexItem = Union[SupportsIndex, slice, None, EllipsisType, "Tensor", npt.NDArray[Any],
                      Sequence[SupportsIndex], Sequence[Sequence[SupportsIndex]]]
    IndexKey = Union[IndexItem, tuple[IndexItem, ...]]


class Tensor:
    """An n-dimensional array of numbers on a device: tenferro's array type.

    A tensor has a ``shape``, a ``dtype`` (bool, int32, int64, float32, float64,
    complex64 or complex128: NumPy's dtypes) and a ``device`` (``cpu``, ``cuda:0``,
    ``webgpu:0``, ...), and behaves like a NumPy ``ndarray``: the operators,
    indexing (basic and advanced), the methods below, and every ``tenferro``
    function take it; NumPy functions called on a CPU tensor dispatch to tenferro
    (``__array_function__``), and ``np.asarray(t)`` is a zero-copy view of a CPU
    tensor's memory.  Unlike an ndarray it can take part in automatic
    differentiation (``requires_grad``, ``backward()`` and ``.grad`` as in PyTorch,
    or the functional transforms :func:`tenferro.grad`, :func:`tenferro.jacfwd`,
    ...), and it never moves between devices silently (``t.to("cpu")``).

    Tensors are usually made by :func:`tenferro.asarray` (no copy where possible),
    :func:`tenferro.tensor` (always a copy) or the creation functions
    (:func:`tenferro.zeros`, :func:`tenferro.arange`, ...); calling the class does
    what :func:`tenferro.asarray` does, then sets ``requires_grad``.

    Parameters
    ----------
    data : array_like or Tensor
        The values: a Tensor, an ndarray (a CPU ndarray is shared, not copied), a
        (nested) sequence of numbers or tensors, a scalar, or anything with
        ``__array__`` or ``__dlpack__``.  A tensor that requires grad or is being
        traced is refused (a new object cannot take over its derivative).
    dtype : dtype, optional
        The dtype (a tenferro/NumPy dtype or its name); default: ``data``'s, or
        NumPy's default for Python numbers (the device's default, e.g. float32 on
        WebGPU).
    device : Device or str, optional
        Where the values live (``"cpu"``, ``"cuda:0"``, ``"webgpu"``, a
        :class:`tenferro.devices.Device`); default: ``data``'s device, else the CPU.
    copy : bool, optional
        True: always copy; False: never (raise where a copy is needed); None (the
        default): copy only where needed, as :func:`numpy.asarray`.
    requires_grad : bool, default False
        Record the operations on this tensor for :meth:`backward` (floating and
        complex dtypes only).

    See Also
    --------
    tenferro.asarray, tenferro.tensor, numpy.ndarray, torch.Tensor

    Examples
    --------
    >>> t = tf.Tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> t.shape, t.dtype, t.device
    ((2, 2), dtype('float64'), device('cpu'))
    >>> (t @ t).sum()
    tensor(54.)
    >>> x = tf.Tensor([1.0, 2.0, 3.0], requires_grad=True)
    >>> (x ** 2).sum().backward()
    >>> x.grad
    tensor([2., 4., 6.])
    """

    __slots__ = ("_data", "_device", "_ad", "__weakref__")
    _data: Any     # the driver's device array (a NumPy ndarray on the CPU)
    _device: Any   # the tenferro.Device
    _ad: Any       # the AutogradMeta, or None
    # NumPy defers binary operators (ndarray + Tensor) to us.
    __array_priority__ = 1000
    # The autodiff trace owning this value; tracers (tenferro.autograd) override it.
    _trace = None

    # -- autodiff state, read-only here (tenferro.autograd attaches the writers) -----
    # ``_ad`` is the AutogradMeta of a tensor taking part in eager autodiff, else None.
    if TYPE_CHECKING:   # tenferro.autograd attaches the setters
        @property
        def requires_grad(self) -> bool: ...
        @requires_grad.setter
        def requires_grad(self, value: bool) -> None: ...
        @property
        def grad(self) -> Tensor | None: ...
        @grad.setter
        def grad(self, value: Tensor | None) -> None: ...
    else:
        @property
        def requires_grad(self):
            """Whether operations on this tensor are recorded for :meth:`backward`
            (settable on a leaf, as :meth:`requires_grad_`)."""
            return self._ad is not None and self._ad.requires_grad

        @property
        def grad(self):
            """The gradient :meth:`backward` accumulated into this leaf (or a tensor
            that called :meth:`retain_grad`), else None; assignable."""
            return None if self._ad is None else self._ad.grad

    @property
    def grad_fn(self) -> Any:
        """The node that made this tensor (its name, ``next_functions`` and ``inputs``
        can be inspected), or None for a leaf."""
        return None if self._ad is None else self._ad.grad_fn

    @property
    def is_leaf(self) -> bool:
        """True for tensors not made by a recorded operation (their ``.grad`` fills)."""
        return self._ad is None or self._ad.grad_fn is None

    @property
    def retains_grad(self) -> bool:
        """True for a non-leaf tensor whose ``.grad`` is kept (:meth:`retain_grad`)."""
        return self._ad is not None and self._ad.retains_grad

    # -- metadata ------------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        """The size of each axis (a tuple of ints; ``()`` for a 0-d tensor)."""
        return self._data.shape

    @property
    def ndim(self) -> int:
        """The number of axes, ``len(shape)``."""
        return self._data.ndim

    @property
    def size(self) -> int:
        """The number of elements, the product of ``shape`` (an int, as NumPy's)."""
        return self._data.size

    @property
    def dtype(self) -> np.dtype[Any]:
        """The element type, a :class:`numpy.dtype` (``tf.float64`` is NumPy's)."""
        return self._data.dtype

    @property
    def device(self) -> DeviceLike:
        """The :class:`~tenferro.devices.Device` holding the values (``str()`` gives
        its name, e.g. ``"cpu"`` or ``"webgpu:0"``)."""
        return self._device

    @property
    def strides(self) -> tuple[int, ...]:
        """Strides in bytes, as NumPy reports them."""
        return self._data.strides

    @property
    def itemsize(self) -> int:
        """Bytes per element, ``dtype.itemsize``."""
        return self._data.dtype.itemsize

    @property
    def nbytes(self) -> int:
        """Bytes of the elements, ``size * itemsize`` (not of a view's whole buffer)."""
        return self._data.size * self._data.dtype.itemsize

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self) -> Iterator[Tensor]:
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        for i in range(self.shape[0]):
            yield self[i]

    # -- conversion ------------------------------------------------------------------
    def _host(self, what):
        """The values as a host ndarray (a CPU tensor's own array): the one path every
        read of values takes.  Tracers (tenferro.autograd) override it to raise
        ``ConcretizationError`` naming ``what``."""
        if self._device.type == "cpu":
            return self._data
        return self._device.driver.to_numpy(self._data)

    def _numpy(self, what, exporting=False):
        """``numpy()``'s checks, for ``what`` (``numpy()``, ``np.asarray``, ...);
        ``exporting`` (DLPack): a device array that speaks DLPack itself is returned."""
        if self._trace is not None:
            return self._host(what)
        m = self._ad
        if m is not None and (m.requires_grad or m.grad_fn is not None):
            raise RuntimeError("tenferro: can't call %s on a tensor that requires grad (shape "
                               "%s, dtype %s): the NumPy array would leave the autograd graph. "
                               "Use t.detach().numpy() (or np.asarray(t.detach())) instead"
                               % (what, self.shape, self.dtype))
        if self._device.type != "cpu":
            if exporting and hasattr(self._data, "__dlpack__"):
                return self._data
            raise TypeError("Tensor.numpy: tensor is on %r; copy it to the host first with "
                            ".to('cpu')" % str(self._device))
        return self._data

    def numpy(self) -> npt.NDArray[Any]:
        """The CPU tensor's data as a NumPy array (zero-copy); other devices must
        ``.to('cpu')`` first, a tensor that requires grad must be ``detach()``-ed first."""
        return self._numpy("numpy()")

    def __array__(self, dtype: DTypeLike = None,
                  copy: bool | None = None) -> npt.NDArray[Any]:
        a = self._numpy("numpy.asarray() (__array__)")
        if dtype is not None and np.dtype(dtype) != a.dtype:
            if copy is False:
                raise ValueError("Tensor.__array__: a cast to %s needs a copy but copy=False"
                                 % np.dtype(dtype))
            return a.astype(dtype)
        return a.copy() if copy else a

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        kw = {k: v for k, v in [("stream", stream), ("max_version", max_version),
                                ("dl_device", dl_device), ("copy", copy)] if v is not None}
        return self._numpy("__dlpack__()", True).__dlpack__(**kw)

    def __dlpack_device__(self):
        return self._numpy("__dlpack_device__()", True).__dlpack_device__()

    def item(self) -> Any:
        """The value of a one-element tensor as a Python scalar (``float``, ``int``,
        ``bool`` or ``complex``); ValueError for other sizes."""
        if self.size != 1:
            raise ValueError("Tensor.item: only a tensor with one element can be converted to "
                             "a Python scalar, got shape %s" % (self.shape,))
        return self._host("item()").reshape(()).item()

    def tolist(self) -> Any:
        """The values as nested Python lists of Python scalars (a scalar for 0-d)."""
        return self._host("tolist()").tolist()

    def _scalar(self, what):
        if self.size != 1:
            raise TypeError("%s: only a tensor with one element can be converted to a Python "
                            "scalar, got shape %s" % (what, self.shape))
        return self._host(what).reshape(())[()]

    def __bool__(self) -> bool:
        if self.size != 1:
            raise ValueError("The truth value of a tensor with %s elements is ambiguous; use "
                             ".any() or .all()" % self.size)
        return bool(self._scalar("bool()"))

    def __float__(self) -> float:
        return float(self._scalar("float()"))

    def __int__(self) -> int:
        return int(self._scalar("int()"))

    def __complex__(self) -> complex:
        return complex(self._scalar("complex()"))

    def __index__(self) -> int:
        if self.dtype.kind not in "biu":
            raise TypeError("only integer tensors with one element can be used as an index, "
                            "got dtype %s" % self.dtype)
        return operator.index(self._scalar("__index__"))

    __hash__ = object.__hash__

    # -- pickling and copies (see docs/tensors.md) ---------------------------------------
    def _host_copyable(self, what):
        """The check before pickling or copying: a concrete CPU tensor."""
        if self._trace is not None:   # a tracer of a transform or a graph: no value to copy
            raise ConcretizationError(
                "%s of a traced tensor (shape %s, dtype %s) inside a transform: its value is "
                "not known here; return it from the transformed function instead"
                % (what, self.shape, self.dtype))
        if self._device.type != "cpu":
            raise TypeError("%s: the tensor is on %r; move it to the host first with "
                            ".to('cpu')" % (what, str(self._device)))

    def __reduce_ex__(self, protocol):
        """Pickled as its values (a NumPy array: C order, or Fortran order when the
        tensor is Fortran-contiguous), its device by name and ``requires_grad``; the
        autodiff graph and ``.grad`` are not pickled (as ``torch.save``)."""
        self._host_copyable("pickle")
        state = getattr(self, "__dict__", None) or None   # a subclass's attributes
        return (_rebuild, (type(self), self._data, self._device, self.requires_grad),
                state)

    def _copy_leaf(self, what):
        self._host_copyable(what)
        if not self.is_leaf:
            raise RuntimeError(
                "%s: only tensors made by the user (graph leaves) can be copied, as in "
                "PyTorch; this one was computed by %s: use t.detach() for its value, or "
                "the op t.copy() to copy it inside the graph" % (what, self.grad_fn.name))
        return _rebuild(type(self), self._data.copy(order="K"), self._device,
                        self.requires_grad)

    def __copy__(self):
        """A new leaf with a copy of the values (NumPy's ``copy.copy`` copies too)."""
        return self._copy_leaf("copy.copy")

    def __deepcopy__(self, memo):
        """A new leaf with a copy of the values and of ``.grad`` (PyTorch's deepcopy;
        a non-leaf raises RuntimeError as there)."""
        import copy as _copy
        t = self._copy_leaf("copy.deepcopy")
        memo[id(self)] = t
        if self.grad is not None:
            t.grad = _copy.deepcopy(self.grad, memo)
        state = getattr(self, "__dict__", None)
        if state:
            t.__dict__.update(_copy.deepcopy(state, memo))
        return t

    def __repr__(self) -> str:
        a = host_array(self)
        prefix = "tensor("
        body = np.array2string(a, separator=", ", prefix=prefix, threshold=1000)
        extra = ""
        if a.size == 0 and a.shape != (0,):  # as NumPy: "[]" alone would lose the shape
            extra += ", shape=%s" % (a.shape,)
        if a.dtype not in (_dtypes.float64, _dtypes.int64, _dtypes.bool_, _dtypes.complex128) \
                or a.size == 0:
            extra += ", dtype=%s" % a.dtype.name
        if self._device.type != "cpu":
            extra += ", device='%s'" % self._device
        if self.requires_grad:
            extra += ", requires_grad=True"
        return prefix + body + extra + ")"

    def __str__(self) -> str:
        return np.array2string(host_array(self), threshold=1000)

    def __format__(self, spec: str) -> str:
        if self.ndim == 0:
            return format(self._scalar("format()").item(), spec)
        return format(str(self), spec)

    if TYPE_CHECKING:
        # Attached by the layers above (tenferro/_ops/_methods.py: the constructor,
        # operators and op methods; tenferro/autograd/_engine.py: backward & co.),
        # declared here for type checkers only.
        def __init__(self, data: ArrayLike, dtype: DTypeLike = None,
                     device: DeviceLike = None, copy: bool | None = None,
                     requires_grad: bool = False) -> None: ...
        @property
        def T(self) -> Tensor: ...
        @property
        def mT(self) -> Tensor: ...
        @property
        def mH(self) -> Tensor: ...
        @property
        def real(self) -> Tensor: ...
        @property
        def imag(self) -> Tensor: ...
        def to(self, device: DeviceLike = None, dtype: DTypeLike = None,
               copy: bool = False) -> Tensor: ...
        def cpu(self) -> Tensor: ...
        # tenferro/array_api/__init__.py: the Array API standard's
        def __array_namespace__(self, /, *,
                                api_version: str | None = None) -> ModuleType: ...
        def to_device(self, device: DeviceLike, /, *, stream: None = None) -> Tensor: ...
        def astype(self, dtype: DTypeLike, copy: bool = True,
                   casting: str = "unsafe") -> Tensor: ...
        def copy(self) -> Tensor: ...
        def contiguous(self) -> Tensor: ...
        def reshape(self, *shape: ShapeLike, copy: bool | None = None) -> Tensor: ...
        def view(self, *shape: ShapeLike) -> Tensor: ...
        def flatten(self) -> Tensor: ...
        def ravel(self) -> Tensor: ...
        def transpose(self, *axes: ShapeLike | None) -> Tensor: ...
        def swapaxes(self, a: SupportsIndex, b: SupportsIndex) -> Tensor: ...
        def squeeze(self, axis: AxisLike = None) -> Tensor: ...
        def conj(self) -> Tensor: ...
        def sum(self, axis: AxisLike = None, dtype: DTypeLike = None,
                out: Tensor | None = None, keepdims: bool = False) -> Tensor: ...
        def prod(self, axis: AxisLike = None, dtype: DTypeLike = None,
                 out: Tensor | None = None, keepdims: bool = False) -> Tensor: ...
        def mean(self, axis: AxisLike = None, dtype: DTypeLike = None,
                 out: Tensor | None = None, keepdims: bool = False) -> Tensor: ...
        def max(self, axis: AxisLike = None, out: Tensor | None = None,
                keepdims: bool = False) -> Tensor: ...
        def min(self, axis: AxisLike = None, out: Tensor | None = None,
                keepdims: bool = False) -> Tensor: ...
        def argmax(self, axis: SupportsIndex | None = None, out: Tensor | None = None,
                   keepdims: bool = False) -> Tensor: ...
        def any(self, axis: AxisLike = None, out: Tensor | None = None,
                keepdims: bool = False) -> Tensor: ...
        def all(self, axis: AxisLike = None, out: Tensor | None = None,
                keepdims: bool = False) -> Tensor: ...
        def copy_(self, src: ArrayLike) -> Tensor: ...
        def fill_(self, value: ArrayLike) -> Tensor: ...
        def zero_(self) -> Tensor: ...
        def __getitem__(self, key: IndexKey) -> Tensor: ...
        def __setitem__(self, key: IndexKey, value: ArrayLike) -> None: ...
        # operators: a tensor with a tensor, an array or a Python/NumPy scalar
        def __add__(self, other: ArrayLike) -> Tensor: ...
        def __radd__(self, other: ArrayLike) -> Tensor: ...
        def __iadd__(self, other: ArrayLike) -> Tensor: ...
        def __sub__(self, other: ArrayLike) -> Tensor: ...
        def __rsub__(self, other: ArrayLike) -> Tensor: ...
        def __isub__(self, other: ArrayLike) -> Tensor: ...
        def __mul__(self, other: ArrayLike) -> Tensor: ...
        def __rmul__(self, other: ArrayLike) -> Tensor: ...
        def __imul__(self, other: ArrayLike) -> Tensor: ...
        def __truediv__(self, other: ArrayLike) -> Tensor: ...
        def __rtruediv__(self, other: ArrayLike) -> Tensor: ...
        def __itruediv__(self, other: ArrayLike) -> Tensor: ...
        def __floordiv__(self, other: ArrayLike) -> Tensor: ...
        def __rfloordiv__(self, other: ArrayLike) -> Tensor: ...
        def __mod__(self, other: ArrayLike) -> Tensor: ...
        def __rmod__(self, other: ArrayLike) -> Tensor: ...
        def __pow__(self, other: ArrayLike) -> Tensor: ...
        def __rpow__(self, other: ArrayLike) -> Tensor: ...
        def __matmul__(self, other: ArrayLike) -> Tensor: ...
        def __rmatmul__(self, other: ArrayLike) -> Tensor: ...
        def __and__(self, other: ArrayLike) -> Tensor: ...
        def __rand__(self, other: ArrayLike) -> Tensor: ...
        def __or__(self, other: ArrayLike) -> Tensor: ...
        def __ror__(self, other: ArrayLike) -> Tensor: ...
        def __xor__(self, other: ArrayLike) -> Tensor: ...
        def __rxor__(self, other: ArrayLike) -> Tensor: ...
        def __lt__(self, other: ArrayLike) -> Tensor: ...
        def __le__(self, other: ArrayLike) -> Tensor: ...
        def __gt__(self, other: ArrayLike) -> Tensor: ...
        def __ge__(self, other: ArrayLike) -> Tensor: ...
        def __eq__(self, other: object) -> Tensor: ...  # type: ignore[override]
        def __ne__(self, other: object) -> Tensor: ...  # type: ignore[override]
        def __neg__(self) -> Tensor: ...
        def __pos__(self) -> Tensor: ...
        def __abs__(self) -> Tensor: ...
        def __invert__(self) -> Tensor: ...
        # autodiff
        def requires_grad_(self, requires_grad: bool = True) -> Tensor: ...
        def backward(self, gradient: ArrayLike | None = None,
                     retain_graph: bool | None = None, create_graph: bool = False,
                     inputs: Sequence[Tensor] | None = None,
                     num_workers: int | None = None) -> None: ...
        def detach(self) -> Tensor: ...
        def zero_grad(self, set_to_none: bool = True) -> None: ...
        def register_hook(self, hook: Callable[[Tensor], Tensor | None]) -> Any: ...
        def retain_grad(self) -> None: ...


def _wrap(data, device, _new=object.__new__):
    """A Tensor over a device array (the one constructor every op uses)."""
    t = _new(Tensor)
    t._data = data
    t._device = device
    t._ad = None
    return t


Tensor._wrap = staticmethod(_wrap)


def _rebuild(cls, data, device, requires_grad):
    """A tensor of class ``cls`` over host array ``data`` on ``device`` (unpickling)."""
    t = object.__new__(cls)
    t._data, t._device, t._ad = data, device, None
    if requires_grad:
        t.requires_grad_(True)
    return t


def host_array(x):
    """Host copy (or the CPU tensor's own array) as a NumPy array, for tenferro's own
    reads that steer a computation (checks, host-side algorithms, printing): the value
    of a tensor being differentiated by a transform is read as a constant (its primal);
    a tensor being traced into a graph has none (``ConcretizationError``).  Users'
    reads go through ``Tensor._host``, which refuses every tracer."""
    while x._trace is not None and x.primal is not None:
        x = x.primal
    return x._host("reading its values")
