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
from .. import _dtypes, _primitive
from .._errors import UnsupportedOperation


class DeviceArray:
    """Protocol documentation only: ndarray-like metadata every driver's storage has."""

    shape: tuple
    dtype: object
    strides: tuple
    ndim: int
    size: int


class Driver:
    """Base class for device drivers (subclass it, set ``name``, fill ``implementations``)."""

    name = None
    dtypes = frozenset()
    #: The dtype per kind ("b", "i", "f", "c") that tensors get here when nothing fixes
    #: one: creation functions without ``dtype=`` and Python data (scalars, lists).
    #: NumPy's defaults; a device without float64 picks float32 (as JAX does, and
    #: PyTorch on MPS).  Data that has a dtype of its own (an ndarray) keeps it.
    default_dtypes = {"b": _dtypes.bool_, "i": _dtypes.int64, "f": _dtypes.float64,
                      "c": _dtypes.complex128}

    # -- buffer reuse in compiled programs (tenferro.compile) -----------------------
    #: Primitives whose implementation may return device arrays sharing memory with
    #: its inputs (views); every other implementation must return new device arrays.
    view_ops = frozenset()
    #: Primitives whose (single-result) implementation also takes ``out=``: a device
    #: array of exactly the output's shape and dtype that it writes the result into and
    #: returns; ``out`` may be the very same device array as one of the inputs (never
    #: a partial overlap).  A compiled program then passes an input that dies at that
    #: step as ``out`` (in-place).  Empty: no in-place reuse on this driver.
    inplace_ops = frozenset()

    def __init__(self):
        # The table of this device type's implementations: the class's own, under what
        # extensions registered for the type (tenferro._primitive.def_impl), which
        # keeps reaching this instance as later registrations arrive.
        table = _primitive.device_implementations(self.name)
        for op, fn in (getattr(type(self), "implementations", None) or {}).items():
            table.setdefault(op, fn)
        self.implementations = table

    # -- discovery ---------------------------------------------------------------
    def device_count(self):
        """How many devices of this type this machine has (0 if the runtime is missing)."""
        return 0

    def unavailable_reason(self):
        return "no %s device found" % self.name

    def info(self, index=0):
        """A dict describing device ``index`` (shown by ``tenferro.show_config()``)."""
        return {}

    # -- memory ------------------------------------------------------------------
    def empty(self, shape, dtype, device):
        raise NotImplementedError

    def full(self, shape, dtype, value, device):
        import numpy as np

        out = self.empty(shape, dtype, device)
        fill = self.from_numpy(np.full((), value, dtype), device)
        self.lookup("assign", device, dtype)(out, fill)
        return out

    def from_numpy(self, array, device):
        raise NotImplementedError

    def to_numpy(self, data):
        raise NotImplementedError

    def synchronize(self, device):
        pass

    # -- ops -----------------------------------------------------------------------
    def supports(self, op, dtype):
        return op in self.implementations and dtype in self.dtypes

    def __reduce__(self):   # by name: the registered driver of the unpickling process
        from . import get_driver
        return get_driver, (self.name,)

    def lookup(self, op, device, dtype=None):
        """The implementation of primitive ``op``; UnsupportedOperation if there is none."""
        fn = self.implementations.get(op)
        if fn is None:
            raise UnsupportedOperation(device, op, dtype)
        return fn


class Device:
    """A concrete device: a driver plus an index.  Obtain with ``tenferro.device(name)``."""

    __slots__ = ("driver", "type", "index", "_name", "_fast")

    def __init__(self, driver, type, index=0):
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

    def synchronize(self):
        self.driver.synchronize(self)
