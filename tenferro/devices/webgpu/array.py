"""WebGPU device arrays (:class:`WGPUArray`), how each dtype is stored, and transfers.

dtype -> (WGSL storage element type, WGSL value type in expressions, the host dtype
whose bytes the buffer holds, expression kind: the key of the op tables of
:mod:`.elementwise`).  An element is ``HOST[dtype].itemsize`` bytes on the device (4,
or 8 for int64: two u32 words, low word first).
"""
import numpy as np

from ... import _dtypes
from ..._errors import UnsupportedOperation
from .._layout import StridedArray, c_strides  # noqa: F401 (c_strides: for index)
from .context import device_name, get_context

F32, I32, BOOL, I64 = _dtypes.float32, _dtypes.int32, _dtypes.bool_, _dtypes.int64
TYPES = {
    F32: ("f32", "f32", np.dtype(np.float32), "f"),
    I32: ("i32", "i32", np.dtype(np.int32), "i"),
    BOOL: ("u32", "bool", np.dtype(np.uint32), "b"),
    I64: ("vec2<u32>", "vec2<u32>", np.dtype(np.int64), "l"),   # (lo, hi) words
}
STORE = {d: t[0] for d, t in TYPES.items()}
VALUE = {d: t[1] for d, t in TYPES.items()}
HOST = {d: t[2] for d, t in TYPES.items()}
_WHY = {
    _dtypes.float64: "WebGPU has no standard float64; use float32, e.g. x.astype(tf.float32)",
    _dtypes.complex64: "no complex arithmetic on WebGPU yet",
    _dtypes.complex128: "WebGPU has no standard float64",
    I64: "int64 is emulated with 32-bit words on WebGPU and this op has no exact "
         "emulation (64-bit division, shifts, matmul)",
}


def unsupported(device, op, dtype):
    """The error for ``op`` on ``dtype`` here, saying why where the dtype explains it."""
    return UnsupportedOperation(device_name(device), op, dtype, _WHY.get(dtype))


def kind(dtype):
    """The expression kind of ``dtype`` (``"f"``, ``"i"``, ``"b"``, ``"l"``), or None."""
    t = TYPES.get(dtype)
    return t[3] if t else None


def check_dtype(dtype, op, device):
    """Raise :func:`unsupported` unless arrays of ``dtype`` exist here."""
    if dtype not in STORE:
        raise unsupported(device, op, dtype)


class WGPUArray(StridedArray):
    """A strided view of a pooled GPU buffer (see :class:`~tenferro.devices._layout.
    StridedArray`).  ``offset`` and ``estrides`` are in device elements
    (``HOST[dtype].itemsize`` bytes: 4, or 8 for int64); ``strides`` is in bytes of the
    logical dtype (see the package docstring)."""

    __slots__ = ()


def new(shape, dtype, device, op):
    """A new (uninitialised) C-contiguous array from the pool."""
    check_dtype(dtype, op, device)
    ctx = get_context()
    n = int(np.prod(shape, dtype=np.int64))
    return WGPUArray(ctx.alloc(HOST[dtype].itemsize * max(n, 1), op, device), shape, dtype,
                     device=device)


def to_numpy(data):
    """The values of ``data`` as a NumPy array (a read: waits for the queue)."""
    shape, st, off = data.shape, data.estrides, data.offset
    dtype = data.dtype
    if data.size == 0:
        return np.empty(shape, dtype)
    lo = off + sum(s * (n - 1) for n, s in zip(shape, st) if s < 0)
    hi = off + sum(s * (n - 1) for n, s in zip(shape, st) if s > 0)
    isz = HOST[dtype].itemsize
    raw = data.storage.ctx.read(data.storage, isz * lo, isz * (hi - lo + 1))
    flat = np.frombuffer(raw, dtype=HOST[dtype])
    view = np.lib.stride_tricks.as_strided(
        flat[off - lo:], shape, tuple(isz * s for s in st), writeable=False)
    if dtype == BOOL:
        out = np.empty(shape, BOOL)   # an array also for 0-d (view != 0 is a scalar)
        np.not_equal(view, 0, out=out)
        return out
    return np.array(view, dtype=dtype)


def from_numpy(array, device):
    """A new device array holding ``array``'s values (an upload)."""
    array = np.asarray(array)
    dtype = array.dtype
    check_dtype(dtype, "device_put", device)
    ctx = get_context()
    host = np.ascontiguousarray(array, dtype=HOST[dtype])
    st = ctx.upload(host.reshape(-1).view(np.uint8).tobytes(), "device_put", device)
    return WGPUArray(st, array.shape, dtype, device=device)
