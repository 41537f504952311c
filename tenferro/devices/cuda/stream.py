"""CUDA streams and synchronisation, with the current-stream semantics of CuPy and
PyTorch.

Every allocation, copy and kernel launch of ``cuda:N`` is ordered on that device's
*current stream*, which is per thread: the legacy default stream (handle ``0``) unless
the thread has entered a :class:`Stream`::

    s = tenferro.devices.cuda.Stream()
    with s:                       # this thread's work on cuda:0 now queues on s
        y = x * 2 + 1
    s.synchronize()               # wait for it

:func:`current_stream` is the calling thread's current stream; :func:`synchronize`
waits for everything queued on a device, on every stream.  Work on two streams is
ordered only where the user orders it (``Stream.wait``, a synchronisation), as in
CuPy: an array made on one stream and read on another must be waited for.  In the
simulator (``TENFERRO_CUDA_SIMULATOR=1``) every operation completes before it returns,
so streams are trivially ordered; the API is the same.
"""
import itertools

from . import backend
from .backend import check

_sim_handles = itertools.count(0x1000)   # the simulator's stream handles (no real ones)


def _index(device):
    """The device index of ``device`` (None: 0; an int; a Device or a name 'cuda:N')."""
    if device is None:
        return 0
    if isinstance(device, int):
        return device
    if isinstance(device, str):
        from .. import device as _device
        device = _device(device)
    if getattr(device, "type", None) != "cuda":
        raise ValueError("tenferro.devices.cuda: %r is not a CUDA device" % (device,))
    return device.index


class Stream:
    """A CUDA stream of ``device`` (default ``cuda:0``): created here (``non_blocking``:
    it does not synchronise with the legacy default stream; ``priority``: lower is more
    urgent) and destroyed when the object dies, or, given ``ptr``, a stream someone else
    owns (a ``cudaStream_t`` from CuPy or PyTorch), which is never destroyed here.
    ``with stream:`` makes it the current stream of its device on this thread."""

    def __init__(self, device=None, non_blocking=False, priority=0, ptr=None):
        self.device_index = _index(device)
        be = self._backend = backend.get(self.device_index)
        self._owned = ptr is None
        self._entered = []
        if ptr is not None:
            self.ptr = int(ptr)
        elif be.simulated:
            self.ptr = next(_sim_handles)
        else:
            cu = be.cu
            be.make_current()
            flags = int(cu.CUstream_flags.CU_STREAM_NON_BLOCKING if non_blocking
                        else cu.CUstream_flags.CU_STREAM_DEFAULT)
            self.ptr = int(check(cu.cuStreamCreateWithPriority(flags, priority),
                                 "cuStreamCreateWithPriority"))

    def __enter__(self):
        self._entered.append(backend.current_stream(self.device_index))
        backend.set_current_stream(self.device_index, self.ptr)
        return self

    def __exit__(self, *exc):
        backend.set_current_stream(self.device_index, self._entered.pop())

    def synchronize(self):
        """Wait for the work queued on this stream."""
        be = self._backend
        if not be.simulated:
            be.make_current()
            check(be.cu.cuStreamSynchronize(self.ptr), "cuStreamSynchronize")

    @property
    def done(self):
        """Whether the work queued on this stream has finished (without waiting)."""
        be = self._backend
        if be.simulated:
            return True
        err = be.cu.cuStreamQuery(self.ptr)[0]
        if err == be.cu.CUresult.CUDA_ERROR_NOT_READY:
            return False
        check((err,), "cuStreamQuery")
        return True

    def wait(self, other):
        """Order the work queued on this stream from now on after the work queued on
        ``other`` so far (a Stream or a raw handle), without blocking the host."""
        order(self._backend, self.ptr, other.ptr if isinstance(other, Stream) else int(other))

    def __eq__(self, other):
        return isinstance(other, Stream) and (other.ptr, other.device_index) == (
            self.ptr, self.device_index)

    def __hash__(self):
        return hash((self.ptr, self.device_index))

    def __repr__(self):
        return "<tenferro.devices.cuda.Stream %#x on cuda:%d>" % (self.ptr, self.device_index)

    def __del__(self):
        be = getattr(self, "_backend", None)
        if getattr(self, "_owned", False) and be is not None and not be.simulated:
            try:
                be.cu.cuStreamDestroy(self.ptr)   # queued work still completes
            except Exception:   # interpreter shutdown
                pass


def order(be, waiter, producer):
    """Make stream handle ``waiter`` wait (on the device) for the work queued on stream
    handle ``producer`` so far; nothing when they are one stream or in the simulator."""
    if be.simulated or waiter == producer:
        return
    cu = be.cu
    be.make_current()
    ev = check(cu.cuEventCreate(int(cu.CUevent_flags.CU_EVENT_DISABLE_TIMING)), "cuEventCreate")
    try:
        check(cu.cuEventRecord(ev, producer), "cuEventRecord")
        check(cu.cuStreamWaitEvent(waiter, ev, 0), "cuStreamWaitEvent")
    finally:
        cu.cuEventDestroy(ev)   # released once the wait has happened


def current_stream(device=None):
    """The calling thread's current :class:`Stream` of ``device`` (default ``cuda:0``):
    the legacy default stream (``ptr == 0``) unless a Stream was entered."""
    i = _index(device)
    return Stream(i, ptr=backend.current_stream(i))


def synchronize(device=None):
    """Wait for all the work queued on ``device`` (default ``cuda:0``), on every stream
    (``torch.cuda.synchronize``)."""
    be = backend.get(_index(device))
    if not be.simulated:
        be.make_current()
        check(be.cu.cuCtxSynchronize(), "cuCtxSynchronize")
