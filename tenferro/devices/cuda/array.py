"""CUDA device arrays (:class:`CUDAArray`): a strided view of device memory, and the
transfers between host and device.

Every dtype is stored as NumPy stores it (bool one byte, complex as (re, im) pairs), so
transfers are byte copies and DLPack can hand the memory to CuPy or PyTorch as is.
``offset`` and ``estrides`` are in elements; ``strides`` is in bytes, exactly what
NumPy would report for the same layout.
"""
import math
import numpy as np

from ... import _dtypes
from ..._errors import UnsupportedOperation
from .._layout import StridedArray
from . import backend

DTYPES = frozenset(_dtypes.DTYPES)


class Memory:
    """One allocation; returned to its backend's pool when the last array using it
    dies (on the stream it was allocated on: stream-ordered, so work already queued
    that reads it finishes first)."""

    __slots__ = ("backend", "ptr", "nbytes", "stream", "__weakref__")

    def __init__(self, be, nbytes):
        self.backend = be
        self.nbytes = nbytes
        self.stream = be.stream
        self.ptr = be.alloc(nbytes, self.stream)   # (the stream read once)

    def __del__(self):
        try:
            self.backend.free(self.ptr, self.stream)
        except Exception:   # interpreter shutdown: the context is going anyway
            pass


class CUDAArray(StridedArray):
    """A strided view of :class:`Memory` (see :class:`~tenferro.devices._layout.
    StridedArray`)."""

    __slots__ = ()

    @property
    def ptr(self):
        """The device address of element ``[0, ..., 0]``."""
        return self.storage.ptr + self.offset * self.dtype.itemsize


def backend_of(device):
    """The backend (:mod:`.backend`) of a Device ``cuda:N`` (``None``: ``cuda:0``)."""
    return backend.get(device.index if device is not None else 0)


def check_dtype(dtype, op, device):
    if dtype not in DTYPES:
        raise UnsupportedOperation(device, op, dtype)


def new(shape, dtype, device, op="empty"):
    """A new (uninitialised) C-contiguous array."""
    check_dtype(dtype, op, device)
    n = math.prod(shape)
    mem = Memory(backend_of(device), dtype.itemsize * n)
    return CUDAArray(mem, shape, dtype, device=device)


def zeros(shape, dtype, device, op="zeros"):
    """A new C-contiguous array of zeros (all-zero bytes are zero in every dtype)."""
    out = new(tuple(shape), dtype, device, op)
    if out.size:
        out.storage.backend.memset(out.ptr, out.size * dtype.itemsize)
    return out


def span(x):
    """``(lo, hi)``: the element range ``x`` touches, relative to its storage (empty
    axes touch nothing)."""
    lo = x.offset + sum(s * (n - 1) for n, s in zip(x.shape, x.estrides) if s < 0 and n)
    hi = x.offset + sum(s * (n - 1) for n, s in zip(x.shape, x.estrides) if s > 0 and n)
    return lo, hi


def to_numpy(x):
    """The values of ``x`` as a NumPy array (waits for the queued work)."""
    if x.size == 0:
        return np.empty(x.shape, x.dtype)
    lo, hi = span(x)
    isz = x.dtype.itemsize
    flat = np.empty(hi - lo + 1, x.dtype)
    x.storage.backend.download(flat, x.storage.ptr + lo * isz)
    view = np.lib.stride_tricks.as_strided(flat[x.offset - lo:], x.shape,
                                           tuple(isz * s for s in x.estrides))
    return np.array(view)


def from_numpy(array, device):
    """A new device array holding ``array``'s values (an upload)."""
    array = np.asarray(array)
    out = new(array.shape, array.dtype, device, "device_put")
    if out.size:
        out.storage.backend.upload(out.ptr, np.ascontiguousarray(array))
    return out
