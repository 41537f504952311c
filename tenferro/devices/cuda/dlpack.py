"""DLPack for CUDA arrays, both ways, zero copy and stream-aware: ``CUDAArray.__dlpack__``
/ ``__dlpack_device__`` (so ``torch.from_dlpack(t)`` and ``cupy.from_dlpack(t)`` read a
tenferro CUDA tensor's memory) and :func:`from_dlpack` (a tenferro tensor over a
PyTorch or CuPy CUDA tensor's memory).

The structs are DLPack's (``dlpack.h``), built and read with ctypes: an exported array
is a ``DLManagedTensor`` (capsule ``"dltensor"``) or, when the consumer asks for
``max_version >= (1, 0)``, a ``DLManagedTensorVersioned`` (``"dltensor_versioned"``);
its deleter keeps the array, hence its :class:`.array.Memory`, alive until the consumer
lets go (or the capsule dies unconsumed).  An imported one keeps the producer's managed
tensor until the last tenferro array over it dies, then calls its deleter.

Streams follow the protocol: the consumer names the stream it will use (``1``: the
legacy default stream, ``2``: the per-thread default, ``-1``: no synchronisation) and
the producer makes that stream wait, on the device, for the work queued on its current
stream (:func:`.stream.order`).

The simulator (``TENFERRO_CUDA_SIMULATOR=1``) keeps its arrays in host memory while
calling them ``cuda``: exporting them as CUDA memory, or as CPU memory of a CUDA
device, would mislead a consumer, so ``__dlpack__`` and :func:`from_dlpack` raise
BufferError there.  :func:`export_capsule` and :func:`import_capsule` are the layout's
two halves without that check (the tests round-trip through them).
"""
import ctypes

import numpy as np

from ..._tensor import Tensor
from .array import CUDAArray, Memory, backend_of, span
from .stream import order

kDLCPU, kDLCUDA, kDLCUDAManaged = 1, 2, 13
_READ_ONLY = 1   # DLPack 1.0 flag bits
_DTYPE_CODE = {"b": 6, "i": 0, "u": 1, "f": 2, "c": 5}   # kDLBool, kDLInt, kDLUInt, ...
_DTYPE_OF = {(6, 8): np.dtype(bool), (0, 32): np.dtype("int32"),
             (0, 64): np.dtype("int64"), (2, 32): np.dtype("float32"),
             (2, 64): np.dtype("float64"), (5, 64): np.dtype("complex64"),
             (5, 128): np.dtype("complex128")}


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", DELETER)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p),
                ("deleter", DELETER), ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]


_NAMES = {b"dltensor": DLManagedTensor, b"dltensor_versioned": DLManagedTensorVersioned}


def _api(name, restype, *argtypes):
    return ctypes.PYFUNCTYPE(restype, *argtypes)((name, ctypes.pythonapi))


_new = _api("PyCapsule_New", ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p,
            ctypes.c_void_p)
_is_valid = _api("PyCapsule_IsValid", ctypes.c_int, ctypes.py_object, ctypes.c_char_p)
_pointer = _api("PyCapsule_GetPointer", ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)
_set_name = _api("PyCapsule_SetName", ctypes.c_int, ctypes.py_object, ctypes.c_char_p)
# the capsule destructor gets the dying capsule as a bare address (no new reference)
_is_valid_raw = _api("PyCapsule_IsValid", ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)
_pointer_raw = _api("PyCapsule_GetPointer", ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)

# address of an exported managed tensor -> what it keeps alive (the struct, its shape
# and strides, the array and so its memory), until its deleter runs
_exported = {}


@DELETER
def _deleter(addr):
    _exported.pop(addr, None)


@ctypes.CFUNCTYPE(None, ctypes.c_void_p)
def _capsule_destructor(capsule):
    for name in _NAMES:   # still so named: never consumed, so the deleter is ours to run
        if _is_valid_raw(capsule, name):
            _exported.pop(_pointer_raw(capsule, name), None)


def export_capsule(x, versioned=False):
    """A DLPack capsule over CUDA array ``x``'s memory (no copy, no stream work)."""
    m = (DLManagedTensorVersioned if versioned else DLManagedTensor)()
    nd = x.ndim
    shape = (ctypes.c_int64 * max(nd, 1))(*x.shape)
    strides = (ctypes.c_int64 * max(nd, 1))(*x.estrides)
    t = m.dl_tensor
    t.data, t.byte_offset = x.storage.ptr, x.offset * x.dtype.itemsize
    t.device = DLDevice(kDLCUDA, x.device.index if x.device is not None else 0)
    t.ndim = nd
    t.dtype = DLDataType(_DTYPE_CODE[x.dtype.kind], x.dtype.itemsize * 8, 1)
    t.shape, t.strides = shape, strides
    m.deleter = _deleter
    if versioned:
        m.version = DLPackVersion(1, 0)
        m.flags = 0 if x.writeable else _READ_ONLY
    addr = ctypes.addressof(m)
    _exported[addr] = (m, shape, strides, x)
    name = b"dltensor_versioned" if versioned else b"dltensor"
    return _new(addr, name, ctypes.cast(_capsule_destructor, ctypes.c_void_p))


def _refuse_simulated(be, what):
    if be.simulated:
        raise BufferError("tenferro (cuda): %s needs a GPU: the simulator "
                          "(TENFERRO_CUDA_SIMULATOR=1) keeps its arrays in host memory, which "
                          "is neither CUDA memory nor a CPU device's" % what)


def _consumer_stream(be, stream):
    """Order stream ``stream`` (a DLPack stream number) after this thread's current one."""
    if stream == -1:
        return
    if stream == 0:
        raise ValueError("tenferro (cuda): DLPack stream 0 is ambiguous for CUDA; pass 1 "
                         "(the legacy default stream), 2 (per-thread default) or a handle")
    mine = be.stream or 1          # handle 0 is the legacy default stream, DLPack's 1
    theirs = 1 if stream is None else int(stream)
    if theirs != mine:
        order(be, theirs, be.stream)


def _dlpack(self, *, stream=None, max_version=None, dl_device=None, copy=None):
    """``CUDAArray.__dlpack__`` (the array API's signature)."""
    be = self.storage.backend
    _refuse_simulated(be, "exporting a CUDA array through DLPack")
    if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
        raise BufferError("tenferro (cuda): cannot export cuda:%d memory to DLPack device %s"
                          % (self.__dlpack_device__()[1], tuple(dl_device)))
    x = self
    if copy:
        from .elementwise import contiguous_copy
        x = contiguous_copy(self)
    _consumer_stream(be, stream)
    return export_capsule(x, versioned=max_version is not None and max_version[0] >= 1)


def _dlpack_device(self):
    return (kDLCUDA, self.device.index if self.device is not None else 0)


CUDAArray.__dlpack__ = _dlpack
CUDAArray.__dlpack_device__ = _dlpack_device


class Foreign(Memory):
    """Memory another library owns (imported through DLPack): its managed tensor's
    deleter runs when the last array over it dies."""

    __slots__ = ("managed",)

    def __init__(self, be, ptr, nbytes, managed):
        self.backend, self.ptr, self.nbytes, self.stream = be, ptr, nbytes, be.stream
        self.managed = managed

    def __del__(self):
        m = self.managed
        if m is not None and m.deleter:
            self.managed = None
            m.deleter(ctypes.addressof(m))


def import_capsule(capsule, device):
    """A CUDA array on ``device`` over the memory DLPack ``capsule`` describes (renamed
    ``used_...`` as the protocol asks; the producer's deleter runs when it dies)."""
    for name, cls in _NAMES.items():
        if _is_valid(capsule, name):
            break
    else:
        raise BufferError("tenferro (cuda): not an unconsumed DLPack capsule (a capsule named "
                          "'dltensor' or 'dltensor_versioned' is expected)")
    m = cls.from_address(_pointer(capsule, name))
    t = m.dl_tensor
    where = (t.device.device_type, t.device.device_id)
    if where[0] not in (kDLCUDA, kDLCUDAManaged) or where[1] != device.index:
        raise BufferError("tenferro (cuda): the DLPack tensor is on device %s, not CUDA "
                          "device %d" % (where, device.index))
    dtype = _DTYPE_OF.get((t.dtype.code, t.dtype.bits)) if t.dtype.lanes == 1 else None
    if dtype is None:
        raise BufferError("tenferro (cuda): DLPack dtype (code %d, %d bits, %d lanes) has no "
                          "tenferro dtype" % (t.dtype.code, t.dtype.bits, t.dtype.lanes))
    shape = tuple(t.shape[i] for i in range(t.ndim))
    estrides = tuple(t.strides[i] for i in range(t.ndim)) if t.strides else None
    x = CUDAArray(None, shape, dtype, estrides, 0, device)
    lo, hi = span(x)                            # (its offset is 0: lo <= 0 <= hi)
    first = (t.data or 0) + t.byte_offset       # element [0, ..., 0]
    isz = dtype.itemsize
    x.storage = Foreign(backend_of(device), first + lo * isz, (hi - lo + 1) * isz, m)
    x.offset = -lo
    x.writeable = not (cls is DLManagedTensorVersioned and m.flags & _READ_ONLY)
    _set_name(capsule, b"used_" + name)
    return x


def import_array(obj, device=None):
    """A CUDA array over the memory of ``obj`` (an object with ``__dlpack__`` on a CUDA
    device, e.g. a PyTorch or CuPy tensor, or a DLPack capsule); its stream made to wait
    for the producer's work as the protocol says."""
    from .. import device as _device
    if hasattr(obj, "__dlpack_device__"):
        kind, index = obj.__dlpack_device__()
        if kind not in (kDLCUDA, kDLCUDAManaged):
            raise BufferError("tenferro.devices.cuda.from_dlpack: the object is on DLPack "
                              "device type %d, not CUDA (%d)" % (kind, kDLCUDA))
        device = _device("cuda:%d" % index) if device is None else device
    device = _device("cuda") if device is None else device
    be = backend_of(device)
    _refuse_simulated(be, "importing a DLPack tensor")
    if not hasattr(obj, "__dlpack__"):
        return import_capsule(obj, device)
    s = be.stream or 1
    try:
        capsule = obj.__dlpack__(stream=s)
    except TypeError:   # a producer without the stream keyword
        capsule = obj.__dlpack__()
    return import_capsule(capsule, device)


def from_dlpack(obj, device=None):
    """A tenferro tensor sharing the memory of CUDA tensor ``obj`` (PyTorch, CuPy, any
    DLPack producer on a CUDA device), without a copy (``tenferro.from_dlpack`` does the
    same for every device)."""
    x = import_array(obj, device)
    return Tensor._wrap(x, x.device)
