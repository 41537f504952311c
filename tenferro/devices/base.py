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

from typing import Any, Callable, Dict, FrozenSet, Mapping, Optional, Protocol, Tuple, Union

import numpy as np

from .. import _dtypes, _primitive
from .._errors import UnsupportedOperation

#: An implementation: device arrays in (positionally), the primitive's parameters as
#: keywords, device array(s) out.
Implementation = Callable[..., Any]


class DeviceArray(Protocol):
    """The ndarray-like metadata every driver's storage has (a structural type)."""

    shape: Tuple[int, ...]
    dtype: np.dtype
    strides: Tuple[int, ...]
    ndim: int
    size: int


class Driver:
    """Base class for device drivers (subclass it, set ``name``, fill ``implementations``)."""

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
        return "no %s device found" % self.name

    def info(self, index: int = 0) -> Dict[str, Any]:
        """A dict describing device ``index`` (shown by ``tenferro.show_config()``)."""
        return {}

    # -- memory ------------------------------------------------------------------
    def empty(self, shape: Tuple[int, ...], dtype: np.dtype, device: Device) -> DeviceArray:
        raise NotImplementedError

    def full(self, shape: Tuple[int, ...], dtype: np.dtype, value: Any,
             device: Device) -> DeviceArray:
        out = self.empty(shape, dtype, device)
        fill = self.from_numpy(np.full((), value, dtype), device)
        self.lookup("assign", device, dtype)(out, fill)
        return out

    def from_numpy(self, array: np.ndarray, device: Device) -> DeviceArray:
        raise NotImplementedError

    def to_numpy(self, data: DeviceArray) -> np.ndarray:
        raise NotImplementedError

    def synchronize(self, device: Device) -> None:
        pass

    # -- ops -----------------------------------------------------------------------
    def supports(self, op: str, dtype: np.dtype) -> bool:
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
    """A concrete device: a driver plus an index.  Obtain with ``tenferro.device(name)``."""

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
        self.driver.synchronize(self)
