"""The WebGPU driver's GPU context: adapter and device, buffer pool, pipeline and
bind-group caches, and the batched command encoder every kernel is recorded into.

One context is opened per process, on first use (:func:`get_context`); without
``wgpu`` or an adapter there is none and :func:`unavailable_reason` says why.
"""
import os
import struct
import threading
import weakref

from .quiet import quiet_discovery
from .wgsl import WORKGROUP as WG

MAX_GROUPS_X = 65535  # workgroups in one dimension of a dispatch grid
BATCH = 64            # dispatches recorded before the encoder is submitted
FRESH_UPLOAD_MAX = 1 << 16  # uploads up to this size never force a submit
BIND_GROUPS = 512     # cached bind groups (see Context.bind_group)


def device_name(device):
    """``device`` as error messages name it (``None``: the one WebGPU device)."""
    return device if device is not None else "webgpu:0"


class Storage:
    """One pooled GPU buffer; goes back to the pool when the last array using it dies.

    The return is a weakref callback held by the context, not ``__del__``: when a
    storage dies in a reference cycle, the GPU buffer stays reachable from the
    callback, so wgpu never finalises (releases) a buffer the pool then hands out.
    """

    __slots__ = ("buffer", "nbytes", "ctx", "__weakref__")

    def __init__(self, ctx, buffer, nbytes):
        self.ctx = ctx
        self.buffer = buffer
        self.nbytes = nbytes


class Context:
    """The adapter's device with its buffer pool (:meth:`alloc`, :meth:`upload`), the
    compiled pipelines (:meth:`pipeline`), and the command encoder that
    :meth:`dispatch` records into and :meth:`flush` submits."""

    def __init__(self, wgpu, adapter):
        self.wgpu = wgpu
        self.adapter = adapter
        # Ask for the adapter's full buffer limits (the defaults are 128 MiB / 256 MiB).
        limits = adapter.limits
        self.device = adapter.request_device_sync(required_limits={
            k: limits[k] for k in ("max-storage-buffer-binding-size", "max-buffer-size")
            if k in limits})
        self.limits = {k.replace("-", "_"): v for k, v in self.device.limits.items()}
        self.max_binding = min(self.limits.get("max_storage_buffer_binding_size", 1 << 27),
                               self.limits.get("max_buffer_size", 1 << 30))
        self.queue = self.device.queue
        self.usage = (wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC
                      | wgpu.BufferUsage.COPY_DST)
        self.pool = {}           # size class (bytes) -> [free GPUBuffer]
        self.pool_hits = 0
        self.pool_misses = 0
        self.pool_bytes = 0
        self.pool_limit = 1 << 30
        self.live = set()        # weak references to live storages (see Storage)
        self.pipelines = {}      # WGSL source -> (compute pipeline, its bind group layout)
        self.compiles = 0
        self.meta_cache = {}     # layout bytes -> GPUBuffer
        # (pipeline, bound buffers, meta buffer) ids -> (bind group, the objects behind
        # the ids): see dispatch.  Cleared whenever the pool lets buffers go.
        self.bind_groups = {}
        self.encoder = None
        # The open compute pass of ``encoder`` (one per batch; anything else recorded
        # into ``encoder``, a copy say, must end it first).
        self.cpass = None
        self.cpass_pipe = None   # the pipeline last set on it
        self.pending = []        # objects the recorded commands use, kept until submit
        self.ndispatch = 0
        self.submits = 0

    # memory -----------------------------------------------------------------------
    @staticmethod
    def size_class(nbytes):
        n = max(int(nbytes), 16)
        if n <= 4096:
            return 1 << (n - 1).bit_length()
        # Powers of two, split in quarters above 4 KiB (at most 25% waste).
        p = 1 << (n - 1).bit_length() - 3
        return -(-n // p) * p

    def alloc(self, nbytes, op, device):
        if nbytes > self.max_binding:
            raise MemoryError(
                "tenferro.%s: a WebGPU buffer of %d bytes exceeds the device's limit of %d "
                "bytes (max_storage_buffer_binding_size / max_buffer_size) on %s"
                % (op, nbytes, self.max_binding, device_name(device)))
        cls = min(self.size_class(nbytes), self.max_binding)
        free = self.pool.get(cls)
        if free:
            self.pool_hits += 1
            self.pool_bytes -= cls
            buf = free.pop()
        else:
            self.pool_misses += 1
            buf = self.device.create_buffer(size=cls, usage=self.usage)
        return self._track(Storage(self, buf, cls))

    def _track(self, st):
        buf, cls = st.buffer, st.nbytes
        self.live.add(weakref.ref(st, lambda r, b=buf, c=cls: self._release(r, b, c)))
        return st

    def _release(self, ref, buffer, nbytes):
        self.live.discard(ref)
        if self.pool_bytes + nbytes > self.pool_limit:
            self.bind_groups.clear()  # cached bind groups would keep it alive
            return  # let wgpu free it
        self.pool.setdefault(nbytes, []).append(buffer)
        self.pool_bytes += nbytes

    def clear_pool(self):
        self.flush()
        self.bind_groups.clear()
        self.pool.clear()
        self.pool_bytes = 0

    def upload(self, data, op, device):
        """A storage holding the bytes ``data``, without submitting recorded work.

        queue.write_buffer runs before any later submit, so writing a recycled buffer
        while commands that still read its previous contents are recorded would need a
        flush.  With work pending, small uploads (scalars, ...) therefore go to a fresh
        buffer mapped at creation instead; large ones flush and reuse the pool.
        """
        nbytes = max(len(data), 4)
        if self.encoder is None or nbytes > FRESH_UPLOAD_MAX:
            st = self.alloc(nbytes, op, device)
            self.flush()
            if len(data):
                self.queue.write_buffer(st.buffer, 0, data)
            return st
        if nbytes > self.max_binding:
            self.alloc(nbytes, op, device)  # raises the size error
        cls = self.size_class(nbytes)
        padded = bytes(data) + bytes(cls - len(data))
        self.pool_misses += 1
        buf = self.device.create_buffer_with_data(data=padded, usage=self.usage)
        return self._track(Storage(self, buf, cls))

    def read(self, storage, offset, nbytes):
        self.flush()
        return self.queue.read_buffer(storage.buffer, offset, nbytes)

    def sync(self):
        self.flush()
        # queue.on_submitted_work_done_sync is broken in wgpu 0.32: a tiny read waits.
        st = self.alloc(16, "synchronize", None)
        self.queue.read_buffer(st.buffer, 0, 4)

    # kernels ----------------------------------------------------------------------
    def pipeline(self, source):
        """The compiled pipeline of ``source`` and its bind group layout (compiled once;
        one context has one device, so the source alone is the key)."""
        p = self.pipelines.get(source)
        if p is None:
            module = self.device.create_shader_module(code=source)
            pipe = self.device.create_compute_pipeline(
                layout="auto", compute={"module": module, "entry_point": "main"})
            p = self.pipelines[source] = (pipe, pipe.get_bind_group_layout(0))
            self.compiles += 1
        return p

    def meta(self, values):
        data = struct.pack("<%di" % len(values), *values)
        buf = self.meta_cache.get(data)
        if buf is None:
            if len(self.meta_cache) > 4096:
                self.flush()
                self.meta_cache.clear()
            buf = self.device.create_buffer_with_data(
                data=data, usage=self.wgpu.BufferUsage.STORAGE)
            self.meta_cache[data] = buf
        return buf

    def bind_group(self, pipe, layout, buffers, mbuf):
        """The bind group of ``buffers`` (bound 0..) then ``mbuf``, cached.

        Creating one costs about as much Python time as the rest of a dispatch, and a
        loop of small ops binds the same few pooled buffers again and again (a freed
        result's buffer is the next result's).  The key is object ids; the entry holds
        the objects themselves, so no id is reused while its entry lives.  A cached
        group keeps its buffers alive, hence the bound (oldest entry out first) and
        the clearing where the pool lets buffers go (_release, clear_pool).
        """
        key = (id(pipe), id(mbuf)) + tuple(map(id, buffers))
        hit = self.bind_groups.get(key)
        if hit is not None:
            return hit[0]
        entries = [{"binding": i, "resource": {"buffer": b, "offset": 0, "size": b.size}}
                   for i, b in enumerate(buffers)]
        entries.append({"binding": len(buffers),
                        "resource": {"buffer": mbuf, "offset": 0, "size": mbuf.size}})
        bg = self.device.create_bind_group(layout=layout, entries=entries)
        if len(self.bind_groups) >= BIND_GROUPS:
            self.bind_groups.pop(next(iter(self.bind_groups)), None)
        self.bind_groups[key] = (bg, pipe, buffers, mbuf)
        return bg

    def dispatch(self, source, storages, meta, n, groups=None):
        """Record one dispatch of ``n`` threads (or of the workgroup grid ``groups``):
        ``storages`` bound 0.., then ``meta``.

        All dispatches of a batch go into one compute pass (wgpu orders the storage
        accesses of successive dispatches in a pass, each dispatch being its own usage
        scope); ``flush`` ends the pass before submitting.
        """
        if n == 0:
            return
        pipe, layout = self.pipeline(source)
        buffers = tuple([s.buffer for s in storages])
        mbuf = self.meta(meta)
        bg = self.bind_group(pipe, layout, buffers, mbuf)
        if groups is None:
            total = -(-n // WG)
            gx = min(total, MAX_GROUPS_X)
            groups = (gx, -(-total // gx), 1)
        cp = self.cpass
        if cp is None:
            if self.encoder is None:
                self.encoder = self.device.create_command_encoder()
            cp = self.cpass = self.encoder.begin_compute_pass()
            self.cpass_pipe = None
        if self.cpass_pipe is not pipe:
            cp.set_pipeline(pipe)
            self.cpass_pipe = pipe
        cp.set_bind_group(0, bg)
        cp.dispatch_workgroups(*groups)
        # Keep the GPU buffers (not their Storage) alive until submitted: a freed
        # array's buffer goes back to the pool at once and may be reused by the next
        # dispatch in this encoder, which runs after the earlier ones (in order).
        self.pending.append((buffers, bg, mbuf))
        self.ndispatch += 1
        if self.ndispatch >= BATCH:
            self.flush()

    def flush(self):
        enc, cp = self.encoder, self.cpass
        if enc is not None:
            # reset first: a failed finish/submit must not poison later work
            self.encoder = self.cpass = self.cpass_pipe = None
            if cp is not None:
                cp.end()
            self.ndispatch = 0
            self.submits += 1
            try:
                self.queue.submit([enc.finish()])
            finally:
                self.pending = []


_ctx = None
_ctx_error = None
_ctx_lock = threading.Lock()   # one discovery, even when threads ask at once


def _new_lock():
    """A fresh lock in a forked child (the parent's may have been held by another of
    its threads at the fork, and would never be released in the child)."""
    global _ctx_lock
    _ctx_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_lock)


def get_context():
    """The shared GPU context, or None (:func:`unavailable_reason` says why)."""
    global _ctx, _ctx_error
    if _ctx is not None or _ctx_error is not None:
        return _ctx
    with _ctx_lock:
        if _ctx is None and _ctx_error is None:
            _discover()
    return _ctx


def _discover():
    """Sets ``_ctx`` or ``_ctx_error``."""
    global _ctx, _ctx_error
    try:
        import wgpu
    except ImportError as e:
        _ctx_error = ("the wgpu package is not installed (pip install tenferro[webgpu]): %s"
                      % e)
        return
    with quiet_discovery(wgpu.logger):   # without the lines wgpu and Vulkan print on the way
        _ctx, _ctx_error = _open(wgpu)


def _open(wgpu):
    """``(context, None)``, or ``(None, why not)``."""
    try:
        adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
    except Exception as e:  # no backend / driver at all
        adapter = None
        err = e
    else:
        err = None
    if adapter is None:
        return None, "wgpu found no WebGPU adapter%s" % (": %s" % err if err else "")
    try:
        return Context(wgpu, adapter), None
    except Exception as e:
        return None, "could not open the WebGPU device: %s" % e


def unavailable_reason():
    """Why there is no context (None while there is one, or before the first try)."""
    return _ctx_error
