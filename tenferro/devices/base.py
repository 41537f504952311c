"""The device-driver interface.

A driver is one object per device *type*.  It owns

* memory: ``empty``, ``from_numpy`` (host -> device), ``to_numpy`` (device -> host),
  ``synchronize``;
* ``implementations``: a dict from primitive name to a callable taking the inputs'
  device arrays and the primitive's parameters and returning device array(s).  A
  driver class declares its own as a class attribute; each instance's dict also holds
  what extensions registered for its device type with
  :func:`tenferro.autograd.extend.def_impl` (before or after the driver loaded), and
  :meth:`Driver.lookup` is the one way every layer finds an implementation;
* ``dtypes``: the dtypes it can hold, and optionally ``supports(op, dtype)``;
* optionally, for buffer reuse in compiled programs: ``view_ops`` and ``inplace_ops``.

A *device array* is the driver's own storage object.  It must expose ``shape``,
``dtype``, ``strides`` (bytes), ``ndim`` and ``size`` like an ndarray (the CPU
driver's device arrays *are* ndarrays).  Everything else -- dtype promotion,
broadcasting rules, argument checking, autodiff -- lives above the driver, so a
driver is only compute and memory.
"""
from __future__ import annotations

import inspect
from typing import Any, Callable, Dict, FrozenSet, Mapping, Optional, Protocol, Tuple, Union

import numpy as np

from .. import _dtypes, _primitive
from .._errors import UnsupportedOperation

#: An implementation: device arrays in (positionally), the primitive's parameters as
#: keywords, device array(s) out.
Implementation = Callable[..., Any]


class DeviceArray(Protocol):
    """The ndarray-like metadata every driver's storage has (a structural type).

    A device array is a driver's own storage object: NumPy arrays on the CPU, device
    buffers elsewhere.  Everything above the driver reads only these attributes; a
    tensor's device array is its ``_data``.  This is a :class:`typing.Protocol`: it is
    not instantiated, a driver's class just has the attributes.

    Attributes
    ----------
    shape : tuple of int
        The shape.
    dtype : numpy.dtype
        The dtype.
    strides : tuple of int
        The strides, in bytes.
    ndim : int
        The number of axes.
    size : int
        The number of elements.

    See Also
    --------
    Driver

    Examples
    --------
    >>> data = tf.ones((2, 3))._data          # the CPU driver's device arrays are ndarrays
    >>> data.shape, data.dtype, data.strides
    ((2, 3), dtype('float64'), (24, 8))
    """

    shape: Tuple[int, ...]
    dtype: np.dtype
    strides: Tuple[int, ...]
    ndim: int
    size: int


# (a Protocol is not instantiated: its signature is empty, not Protocol's *args, **kwargs)
DeviceArray.__signature__ = inspect.Signature()


class Driver:
    """Base class for device drivers: subclass it, set ``name``, fill ``implementations``.

    A driver is one object per device type (:func:`get_driver`).  It owns memory
    (``empty``, ``from_numpy``, ``to_numpy``, ``synchronize``) and compute: the
    ``implementations`` dict maps a primitive name to a callable taking the inputs'
    device arrays and the primitive's parameters; extensions add to it with
    :func:`tenferro.autograd.extend.def_impl`.  Everything else (dtype promotion,
    broadcasting, argument checks, autodiff) lives above the driver.  A third-party
    driver is found through an entry point in the group ``tenferro.devices``
    (docs/devices.md).

    Attributes
    ----------
    name : str
        The device type this driver serves (``"cpu"``, ``"webgpu"``, ...).
    dtypes : frozenset of numpy.dtype
        The dtypes its tensors can hold.
    implementations : dict
        Primitive name -> implementation.
    default_dtypes : dict
        The dtype per kind (``"b"``, ``"i"``, ``"f"``, ``"c"``) tensors get when nothing
        fixes one (a device without float64 picks float32).
    view_ops : frozenset of str
        Primitives whose implementation may return views of its inputs.
    inplace_ops : frozenset of str
        Primitives whose implementation also takes ``out=`` (for in-place reuse in
        compiled programs).

    See Also
    --------
    Device, get_driver, DeviceArray

    Examples
    --------
    >>> drv = tf.device("cpu").driver
    >>> drv.name, drv.device_count()
    ('cpu', 1)
    >>> d = drv.from_numpy(np.arange(3.0), tf.device("cpu"))
    >>> drv.to_numpy(d)
    array([0., 1., 2.])
    """

    #: The device type this driver serves ("cpu", "webgpu", ...).
    name: Optional[str] = None
    #: The dtypes its tensors can hold.
    dtypes: FrozenSet[np.dtype] = frozenset()
    #: primitive name -> implementation (per instance; see :meth:`__init__`).
    implementations: Dict[str, Implementation]
    #: The dtype per kind ("b", "i", "f", "c") that tensors get here when nothing fixes
    #: one: creation functions without ``dtype=`` and Python data (scalars, lists).
    #: NumPy's defaults; a device without float64 picks float32 (as JAX does, and
    #: PyTorch on MPS).  Data that has a dtype of its own (an ndarray) keeps it.
    default_dtypes: Mapping[str, np.dtype] = {
        "b": _dtypes.bool_, "i": _dtypes.int64, "f": _dtypes.float64,
        "c": _dtypes.complex128}

    # -- buffer reuse in compiled programs (tenferro.compile) -----------------------
    #: Primitives whose implementation may return device arrays sharing memory with
    #: its inputs (views); every other implementation must return new device arrays.
    view_ops: FrozenSet[str] = frozenset()
    #: Primitives whose (single-result) implementation also takes ``out=``: a device
    #: array of exactly the output's shape and dtype that it writes the result into and
    #: returns; ``out`` may be the very same device array as one of the inputs (never
    #: a partial overlap).  A compiled program then passes an input that dies at that
    #: step as ``out`` (in-place).  Empty: no in-place reuse on this driver.
    inplace_ops: FrozenSet[str] = frozenset()

    def __init__(self) -> None:
        # The table of this device type's implementations: the class's own, under what
        # extensions registered for the type (tenferro._primitive.def_impl), which
        # keeps reaching this instance as later registrations arrive.
        table = _primitive.device_implementations(self.name)
        for op, fn in (getattr(type(self), "implementations", None) or {}).items():
            table.setdefault(op, fn)
        self.implementations = table

    # -- discovery ---------------------------------------------------------------
    def device_count(self) -> int:
        """How many devices of this type this machine has (0 if the runtime is missing)."""
        return 0

    def unavailable_reason(self) -> str:
        """Why this machine has no device of this type (a missing runtime, ...)."""
        return "no %s device found" % self.name

    def info(self, index: int = 0) -> Dict[str, Any]:
        """A dict describing device ``index`` (shown by ``tenferro.show_config()``)."""
        return {}

    # -- memory ------------------------------------------------------------------
    def empty(self, shape: Tuple[int, ...], dtype: np.dtype, device: Device) -> DeviceArray:
        """A new, uninitialised device array on ``device``."""
        raise NotImplementedError

    def full(self, shape: Tuple[int, ...], dtype: np.dtype, value: Any,
             device: Device) -> DeviceArray:
        """A new device array on ``device`` filled with ``value``."""
        out = self.empty(shape, dtype, device)
        fill = self.from_numpy(np.full((), value, dtype), device)
        self.lookup("assign", device, dtype)(out, fill)
        return out

    def from_numpy(self, array: np.ndarray, device: Device) -> DeviceArray:
        """A device array on ``device`` holding a copy of ``array`` (host to device)."""
        raise NotImplementedError

    def to_numpy(self, data: DeviceArray) -> np.ndarray:
        """A NumPy array holding ``data``'s values (device to host)."""
        raise NotImplementedError

    def synchronize(self, device: Device) -> None:
        """Wait until the work queued on ``device`` has finished."""
        pass

    # -- ops -----------------------------------------------------------------------
    def supports(self, op: str, dtype: np.dtype) -> bool:
        """Whether primitive ``op`` runs here on inputs of ``dtype``."""
        return op in self.implementations and dtype in self.dtypes

    def __reduce__(self):   # by name: the registered driver of the unpickling process
        from . import get_driver
        return get_driver, (self.name,)

    def lookup(self, op: str, device: Union[Device, str],
               dtype: Optional[np.dtype] = None) -> Implementation:
        """The implementation of primitive ``op`` on ``device`` (a Device, or the device
        type for what is planned per driver, as einsum's plans) for inputs of ``dtype``;
        UnsupportedOperation naming them if there is none.  The one lookup every layer
        uses (eager ``bind``, the ops' ``out=``, einsum plans, compiled programs); hot
        paths inline its dict probe of :attr:`implementations` and call it for the
        error."""
        fn = self.implementations.get(op)
        if fn is None:
            raise UnsupportedOperation(device, op, dtype)
        return fn


class Device:
    """A concrete device: a driver plus an index (``torch.device``).

    Obtain one with :func:`tenferro.device` (``tf.device("cuda:0")``); each name has
    one Device object, which tensors hold and ops compare by identity.  A device
    compares equal to its name (``tf.device("cpu") == "cpu"``) and pickles by name.

    Parameters
    ----------
    driver : Driver
        The driver of its type.
    type : str
        The device type (``"cpu"``, ``"cuda"``, ``"webgpu"``).
    index : int, default 0
        Which device of that type.

    See Also
    --------
    device, Driver

    Examples
    --------
    >>> d = tf.device("cpu")
    >>> d, d.type, d.index, d == "cpu"
    (device('cpu'), 'cpu', 0, True)
    >>> d.synchronize()
    """

    __slots__ = ("driver", "type", "index", "_name", "_fast")

    def __init__(self, driver: Driver, type: str, index: int = 0) -> None:
        self.driver = driver
        self.type = type
        self.index = index
        # (op, dtypes...) -> (implementation, output dtype) | False: the eager fast
        # path's cache (tenferro._ops.elementwise), kept here so lookups hash no Device.
        self._fast = {}
        self._name = type if (type == "cpu" and index == 0) else "%s:%d" % (type, index)

    def __str__(self):
        return self._name

    def __repr__(self):
        return "device(%r)" % self._name

    def __eq__(self, other):
        if isinstance(other, str):
            return other == self._name or (other == self.type and self.index == 0)
        return isinstance(other, Device) and other._name == self._name

    def __hash__(self):
        return hash(self._name)

    def __reduce__(self):
        # by name: unpickled, it is the registered Device of that name (the very object
        # tensors made here hold; ops compare devices by identity), never a copy
        from . import device
        return device, (self._name,)

    def synchronize(self) -> None:
        """Wait until the work queued on this device has finished (a no-op on the CPU)."""
        self.driver.synchronize(self)
