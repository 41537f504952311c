"""The WebGPU driver: ``wgpu`` (wgpu-native) compute shaders on any WebGPU adapter.

Install with ``pip install tenferro[webgpu]``.  Without ``wgpu``, or without an
adapter, the driver reports 0 devices and says why (``tenferro.devices.available()``
then omits ``"webgpu"``).  ``WGPU_BACKEND_TYPE=Vulkan`` selects the Vulkan backend
(e.g. Mesa's lavapipe on a machine without a GPU).

dtypes: float32, int32, bool (stored as u32, one 4-byte word an element) and int64
(two u32 words an element, low word first: NumPy's bytes, so transfers are byte
copies; the arithmetic is emulated exactly, wrapping mod 2^64 as NumPy does, see
``_wgsl.PRELUDE64``).  int64 ops that would need 64-bit division, shifts or a 64-bit
matmul raise.  WebGPU has no standard float64, so float64 and complex raise
:class:`~tenferro.UnsupportedOperation` naming the device, the op and the dtype.

Device arrays are :class:`WGPUArray`: a pooled GPU buffer plus an element offset and
element strides.  ``WGPUArray.strides`` reports the strides in bytes *of the logical
dtype* (element strides times ``dtype.itemsize``, so 1 byte per element for bool
although the device stores 4; int64 is 8 bytes on both sides), i.e. exactly what
NumPy would report for the same layout; contiguity checks in the core therefore work
unchanged.

Kernels are WGSL templates (:mod:`tenferro.devices._wgsl`) rendered per (op, dtypes)
and compiled once per device.  Dispatches are recorded into one command encoder and
submitted in batches; the queue is synchronised only where the host reads (integer
``power`` reads its exponent's minimum: NumPy raises for negative integer exponents;
``nonzero``, hence ``x[mask]``, reads the mask: its output's shape depends on the data).
Integer-array indexing gathers with one thread per output element and scatter-adds
with atomics; the core bounds-checks and normalises the indices before binding.
"""
import functools
import struct
import weakref

import numpy as np

from .. import _dtypes
from .._errors import UnsupportedOperation
from . import _wgsl
from .base import Driver as _Base

_F32, _I32, _BOOL, _I64 = _dtypes.float32, _dtypes.int32, _dtypes.bool_, _dtypes.int64
# dtype -> (WGSL storage element type, WGSL value type in expressions, the host dtype
# whose bytes the buffer holds, expression kind: the key of the op tables below).
# An element is _HOST[dtype].itemsize bytes on the device (4, or 8 for int64).
_TYPES = {
    _F32: ("f32", "f32", np.dtype(np.float32), "f"),
    _I32: ("i32", "i32", np.dtype(np.int32), "i"),
    _BOOL: ("u32", "bool", np.dtype(np.uint32), "b"),
    _I64: ("vec2<u32>", "vec2<u32>", np.dtype(np.int64), "l"),   # (lo, hi) words
}
_STORE = {d: t[0] for d, t in _TYPES.items()}
_VALUE = {d: t[1] for d, t in _TYPES.items()}
_HOST = {d: t[2] for d, t in _TYPES.items()}
_WHY = {
    _dtypes.float64: "WebGPU has no standard float64; use float32, e.g. x.astype(tf.float32)",
    _dtypes.complex64: "no complex arithmetic on WebGPU yet",
    _dtypes.complex128: "WebGPU has no standard float64",
    _I64: "int64 is emulated with 32-bit words on WebGPU and this op has no exact "
          "emulation (64-bit division, shifts, matmul)",
}
MAXDIM = _wgsl.MAXDIM
WG = _wgsl.WORKGROUP
_MAX_GROUPS_X = 65535
_BATCH = 64           # dispatches recorded before the encoder is submitted
_FRESH_UPLOAD_MAX = 1 << 16  # uploads up to this size never force a submit
_BIND_GROUPS = 512    # cached bind groups (see _Context.bind_group)


def _device_name(device):
    return device if device is not None else "webgpu:0"


def _unsupported(device, op, dtype):
    return UnsupportedOperation(_device_name(device), op, dtype, _WHY.get(dtype))


# -- the GPU context: adapter, device, buffer pool, pipeline cache, batched encoder ----

class _Storage:
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


class _Context:
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
        self.live = set()        # weak references to live storages (see _Storage)
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
                % (op, nbytes, self.max_binding, _device_name(device)))
        cls = min(self.size_class(nbytes), self.max_binding)
        free = self.pool.get(cls)
        if free:
            self.pool_hits += 1
            self.pool_bytes -= cls
            buf = free.pop()
        else:
            self.pool_misses += 1
            buf = self.device.create_buffer(size=cls, usage=self.usage)
        return self._track(_Storage(self, buf, cls))

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
        if self.encoder is None or nbytes > _FRESH_UPLOAD_MAX:
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
        return self._track(_Storage(self, buf, cls))

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
        if len(self.bind_groups) >= _BIND_GROUPS:
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
            gx = min(total, _MAX_GROUPS_X)
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
        # Keep the GPU buffers (not their _Storage) alive until submitted: a freed
        # array's buffer goes back to the pool at once and may be reused by the next
        # dispatch in this encoder, which runs after the earlier ones (in order).
        self.pending.append((buffers, bg, mbuf))
        self.ndispatch += 1
        if self.ndispatch >= _BATCH:
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


def _context():
    """The shared GPU context, or None (``_ctx_error`` says why)."""
    global _ctx, _ctx_error
    if _ctx is not None or _ctx_error is not None:
        return _ctx
    try:
        import wgpu
    except ImportError as e:
        _ctx_error = ("the wgpu package is not installed (pip install tenferro[webgpu]): %s"
                      % e)
        return None
    try:
        adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
    except Exception as e:  # no backend / driver at all
        adapter = None
        err = e
    else:
        err = None
    if adapter is None:
        _ctx_error = "wgpu found no WebGPU adapter%s" % (": %s" % err if err else "")
        return None
    try:
        _ctx = _Context(wgpu, adapter)
    except Exception as e:
        _ctx_error = "could not open the WebGPU device: %s" % e
    return _ctx


# -- device arrays -------------------------------------------------------------------

class WGPUArray:
    """A strided view of a pooled GPU buffer (ndarray-like metadata).

    ``offset`` and ``estrides`` are in device elements (``_HOST[dtype].itemsize``
    bytes: 4, or 8 for int64); ``strides`` is in bytes of the logical dtype (see the
    module docstring).  ``base`` is the shared storage (used by
    the core to track in-place writes).
    """

    __slots__ = ("storage", "shape", "dtype", "estrides", "offset", "device", "writeable",
                 "__weakref__")
    abstract = False

    def __init__(self, storage, shape, dtype, estrides=None, offset=0, device=None,
                 writeable=True):
        self.storage = storage
        self.shape = tuple(shape)
        self.dtype = dtype
        self.estrides = tuple(estrides) if estrides is not None else _c_strides(self.shape)
        self.offset = offset
        self.device = device
        self.writeable = writeable

    @property
    def base(self):
        return self.storage

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def strides(self):
        return tuple(s * self.dtype.itemsize for s in self.estrides)

    @property
    def c_contiguous(self):
        return _is_c(self.shape, self.estrides)

    def view(self, shape, estrides, offset, writeable=None):
        return WGPUArray(self.storage, shape, self.dtype, estrides, offset, self.device,
                         self.writeable if writeable is None else writeable)

    def __repr__(self):
        return "WGPUArray(shape=%s, dtype=%s, strides=%s, offset=%d)" % (
            self.shape, self.dtype, self.estrides, self.offset)


def _c_strides(shape):
    st = []
    acc = 1
    for n in reversed(shape):
        st.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(st))


def _is_c(shape, estrides):
    acc = 1
    for n, s in zip(reversed(shape), reversed(estrides)):
        if n != 1 and s != acc:
            return False
        acc *= n
    return True


def _check_dtype(dtype, op, device):
    if dtype not in _STORE:
        raise _unsupported(device, op, dtype)


def _new(shape, dtype, device, op):
    _check_dtype(dtype, op, device)
    ctx = _context()
    n = int(np.prod(shape, dtype=np.int64))
    return WGPUArray(ctx.alloc(_HOST[dtype].itemsize * max(n, 1), op, device), shape, dtype,
                     device=device)


# -- kernels ---------------------------------------------------------------------------

def _prelude(body):
    # The helpers are small; include them only when a body calls one.
    if "l_" in body:
        return _wgsl.PRELUDE + _wgsl.PRELUDE64
    return _wgsl.PRELUDE if ("f_" in body or "i_" in body) else ""


def _load(dtype, expr):
    return "(%s != 0u)" % expr if dtype == _BOOL else expr


def _store(dtype, expr):
    return "select(0u, 1u, %s)" % expr if dtype == _BOOL else expr


def _layout(out_shape, out_arr_strides, out_offset, inputs):
    nd = len(out_shape)
    if nd > MAXDIM:
        raise ValueError("tenferro (webgpu): at most %d dimensions are supported, got %d"
                         % (MAXDIM, nd))
    pad = [1] * (MAXDIM - nd)
    zpad = [0] * (MAXDIM - nd)
    meta = [int(np.prod(out_shape, dtype=np.int64)), nd, out_offset]
    meta += list(out_shape) + pad + list(out_arr_strides) + zpad
    for x in inputs:
        meta += [x.offset] + list(x.estrides) + zpad
    return meta


def _offset_lines(nin, at=0):
    """WGSL declaring input k's element offset ``oK`` and stepping it per dimension in
    the ELEMENTWISE/FUSED index loop (input k's layout as :func:`_layout` writes it,
    from ``lay[at]``)."""
    base = at + 3 + 2 * MAXDIM
    init = "\n".join("    var o%d = lay[%d];" % (k, base + k * (MAXDIM + 1))
                     for k in range(nin))
    step = "\n".join("        o%d = o%d + c * lay[%d + d];"
                     % (k, k, base + k * (MAXDIM + 1) + 1) for k in range(nin))
    return init, step


def _fn_body(body):
    """An op body (an expression, or statements that return) as a WGSL function body."""
    return body if body.lstrip().startswith(("return", "let", "var", "if")) \
        else "return %s;" % body


@functools.lru_cache(maxsize=4096)   # rendering costs as much as recording a dispatch
def _elementwise_source(body, in_dtypes, out_dtype, aliased=()):
    """The kernel for ``body``; inputs in ``aliased`` are read from ``out`` itself (an
    in-place op: WebGPU forbids binding one buffer both read-only and read-write)."""
    nin = len(in_dtypes)
    names = "xyz"
    bound = [k for k in range(nin) if k not in aliased]
    bindings = "\n".join(
        "@group(0) @binding(%d) var<storage, read> in%d: array<%s>;"
        % (j, k, _STORE[in_dtypes[k]]) for j, k in enumerate(bound))
    params = ", ".join("%s: %s" % (names[k], _VALUE[d]) for k, d in enumerate(in_dtypes))
    offsets_init, offsets_step = _offset_lines(nin)
    loads = "\n".join("    let v%d = %s;" % (k, _load(d, "%s[o%d]" % (
        "out" if k in aliased else "in%d" % k, k))) for k, d in enumerate(in_dtypes))
    call = "op(%s)" % ", ".join("v%d" % k for k in range(nin))
    return _wgsl.ELEMENTWISE.format(
        prelude=_prelude(body), bindings=bindings, out_binding=len(bound),
        meta_binding=len(bound) + 1,
        out_store=_STORE[out_dtype], out_value=_VALUE[out_dtype], params=params,
        body=_fn_body(body), wg=WG, offsets_init=offsets_init, offsets_step=offsets_step,
        loads=loads, store=_store(out_dtype, call))


def _run_elementwise(op, body, inputs, out_dtype, out=None, shape=None):
    """Evaluate ``body`` (a WGSL expression in x, y, z) elementwise over ``inputs``
    (already broadcast to ``shape``) into a new contiguous array, or into ``out``
    (which may be one of the inputs exactly: in-place)."""
    in_dtypes = tuple(x.dtype for x in inputs)
    shape = inputs[0].shape if shape is None else shape
    dev = inputs[0].device if inputs else (out.device if out is not None else None)
    if out is None:
        out = _new(shape, out_dtype, dev, op)
    ctx = out.storage.ctx
    aliased = tuple(k for k, x in enumerate(inputs) if x.storage is out.storage)
    for k in aliased:
        if inputs[k].dtype != out.dtype:  # cannot read it through out's element type
            inputs = list(inputs)
            inputs[k] = _copy(inputs[k])
    aliased = tuple(k for k, x in enumerate(inputs) if x.storage is out.storage)
    src = _elementwise_source(body, in_dtypes, out.dtype, aliased)
    meta = _layout(shape, out.estrides, out.offset, inputs)
    ctx.dispatch(src, [x.storage for k, x in enumerate(inputs) if k not in aliased]
                 + [out.storage], meta, meta[0])
    return out


def _broadcast_view(x, shape, op="broadcast_to"):
    if x.shape == shape:
        return x
    nd = len(shape)
    if x.ndim > nd:
        raise ValueError("tenferro.%s: cannot broadcast shape %s to %s" % (op, x.shape, shape))
    lead = nd - x.ndim
    st = [0] * lead
    for i, (n, s) in enumerate(zip(x.shape, x.estrides)):
        t = shape[lead + i]
        if n == t:
            st.append(s)
        elif n == 1:
            st.append(0)
        else:
            raise ValueError("tenferro.%s: cannot broadcast shape %s to %s"
                             % (op, x.shape, shape))
    return x.view(shape, st, x.offset, writeable=False)


def _broadcast_shape(op, *shapes):
    from .._catalog import broadcast_shapes

    return tuple(broadcast_shapes(op, *shapes))


def _kind(dtype):
    t = _TYPES.get(dtype)
    return t[3] if t else None


# op -> {input kind: WGSL body in x (y, z)}; the value types are f32 / i32 / bool and
# the body's result has the value type of the op's out_dtype.
_F_UNARY = {
    "negative": "-x", "positive": "x", "abs": "abs(x)", "sign": "f_sign(x)",
    "exp": "exp(x)", "expm1": "f_expm1(x)", "exp2": "exp2(x)", "log": "f_log(x)",
    "log1p": "f_log1p(x)", "log2": "f_log(x) * 1.4426950408889634",
    "log10": "f_log(x) * 0.4342944819032518", "sqrt": "f_sqrt(x)",
    "rsqrt": "1.0 / f_sqrt(x)", "square": "x * x", "reciprocal": "1.0 / x",
    "sin": "sin(x)", "cos": "cos(x)", "tan": "tan(x)", "arcsin": "f_asin(x)",
    "arccos": "f_acos(x)", "arctan": "atan(x)", "sinh": "sinh(x)", "cosh": "cosh(x)",
    "tanh": "f_tanh(x)", "arcsinh": "f_asinh(x)", "arccosh": "f_acosh(x)",
    "arctanh": "f_atanh(x)", "sigmoid": "1.0 / (1.0 + exp(-x))", "floor": "floor(x)",
    "erf": "f_erf(x)",
    "ceil": "ceil(x)", "trunc": "trunc(x)", "round": "round(x)", "conj": "x",
    "isnan": "f_isnan(x)", "isinf": "f_isinf(x)", "isfinite": "f_isfinite(x)",
    "logical_not": "x == 0.0", "real": "x", "imag": "0.0",
    "angle": "select(select(0.0, 3.141592653589793, (bitcast<u32>(x) & 0x80000000u) != 0u),"
             " x, f_isnan(x))",  # atan2(0, x): pi for x < 0 and -0.0, NaN stays NaN
}
_I_UNARY = {
    "negative": "-x", "positive": "x", "abs": "abs(x)", "sign": "sign(x)",
    "square": "x * x", "conj": "x", "floor": "x",
    "ceil": "x", "trunc": "x", "round": "x",
    "reciprocal": "select(select(0, x, abs(x) == 1), -2147483647 - 1, x == 0)",
    "isnan": "false", "isinf": "false", "isfinite": "true", "logical_not": "x == 0",
    "bitwise_invert": "~x", "real": "x", "imag": "0",
}
_B_UNARY = {
    "positive": "x", "abs": "x", "conj": "x", "isnan": "false", "isinf": "false",
    "isfinite": "true", "logical_not": "!x", "bitwise_invert": "!x", "real": "x",
    "imag": "false", "floor": "x", "ceil": "x", "trunc": "x", "round": "x", "sign": "x",
    "square": "x",
}
_CMP = {"equal": "==", "not_equal": "!=", "less": "<", "less_equal": "<=", "greater": ">",
        "greater_equal": ">="}
_F_BINARY = {
    "add": "x + y", "subtract": "x - y", "multiply": "x * y", "divide": "x / y",
    "floor_divide": "f_floor_divide(x, y)", "remainder": "f_remainder(x, y)",
    "power": "f_power(x, y)", "maximum": "f_max(x, y)", "minimum": "f_min(x, y)",
    "fmax": "f_fmax(x, y)", "fmin": "f_fmin(x, y)", "arctan2": "f_atan2(x, y)",
    "hypot": "f_hypot(x, y)", "copysign": "f_copysign(x, y)",
    "logaddexp": "f_logaddexp(x, y)",
    # NaN is true: !(x == 0.0), as some compilers treat x != 0.0 as ordered
    "logical_and": "!(x == 0.0) && !(y == 0.0)", "logical_or": "!(x == 0.0) || !(y == 0.0)",
    "logical_xor": "(x == 0.0) != (y == 0.0)",
}
_I_BINARY = {
    "add": "x + y", "subtract": "x - y", "multiply": "x * y",
    "floor_divide": "i_floor_divide(x, y)", "remainder": "i_remainder(x, y)",
    "maximum": "max(x, y)", "minimum": "min(x, y)", "fmax": "max(x, y)",
    "fmin": "min(x, y)", "logical_and": "x != 0 && y != 0",
    "logical_or": "x != 0 || y != 0", "logical_xor": "(x != 0) != (y != 0)",
    "bitwise_and": "x & y", "bitwise_or": "x | y", "bitwise_xor": "x ^ y",
    "left_shift": "i_left_shift(x, y)", "right_shift": "i_right_shift(x, y)",
    "power": "i_power(x, y)",  # y >= 0 checked by _int_power
}
_B_BINARY = {
    "add": "x || y", "multiply": "x && y", "maximum": "x || y", "minimum": "x && y",
    "fmax": "x || y", "fmin": "x && y", "logical_and": "x && y", "logical_or": "x || y",
    "logical_xor": "x != y", "bitwise_and": "x && y", "bitwise_or": "x || y",
    "bitwise_xor": "x != y", "equal": "x == y", "not_equal": "x != y",
    "less": "!x && y", "less_equal": "!x || y", "greater": "x && !y",
    "greater_equal": "x || !y",
}
for _op, _sym in _CMP.items():
    _F_BINARY[_op] = "x %s y" % _sym
    _I_BINARY[_op] = "x %s y" % _sym
_F_BINARY["not_equal"] = "!(x == y) || f_isnan(x) || f_isnan(y)"
# int64 (value type vec2<u32>, the l_ helpers of _wgsl.PRELUDE64); no division,
# remainder, power, shifts or reciprocal: those raise (declared in supports)
_L_UNARY = {
    "negative": "l_neg(x)", "positive": "x", "abs": "l_abs(x)", "sign": "l_sign(x)",
    "square": "l_mul(x, x)", "conj": "x", "floor": "x", "ceil": "x", "trunc": "x",
    "round": "x", "isnan": "false", "isinf": "false", "isfinite": "true",
    "logical_not": "!l_nz(x)", "bitwise_invert": "~x", "real": "x",
    "imag": "vec2<u32>(0u, 0u)",
}
_L_BINARY = {
    "add": "l_add(x, y)", "subtract": "l_sub(x, y)", "multiply": "l_mul(x, y)",
    "maximum": "l_max(x, y)", "minimum": "l_min(x, y)", "fmax": "l_max(x, y)",
    "fmin": "l_min(x, y)", "logical_and": "l_nz(x) && l_nz(y)",
    "logical_or": "l_nz(x) || l_nz(y)", "logical_xor": "l_nz(x) != l_nz(y)",
    "bitwise_and": "x & y", "bitwise_or": "x | y", "bitwise_xor": "x ^ y",
    "equal": "l_eq(x, y)", "not_equal": "!l_eq(x, y)", "less": "l_lt(x, y)",
    "less_equal": "l_le(x, y)", "greater": "l_lt(y, x)", "greater_equal": "l_le(y, x)",
}
UNARY_BODIES = {"f": _F_UNARY, "i": _I_UNARY, "b": _B_UNARY, "l": _L_UNARY}
BINARY_BODIES = {"f": _F_BINARY, "i": _I_BINARY, "b": _B_BINARY, "l": _L_BINARY}


def _body(table, op, dtype, out_dtype, device):
    k = _kind(dtype)
    body = table.get(k, {}).get(op) if k is not None else None
    if body is None or out_dtype not in _STORE:
        raise _unsupported(device, op, dtype if k is None or body is None else out_dtype)
    return body


def _check_out(op, out, shape, dtype):
    if not isinstance(out, WGPUArray) or out.shape != tuple(shape) or out.dtype != dtype:
        raise ValueError("tenferro.%s (webgpu): out must be a WebGPU array of shape %s and "
                         "dtype %s" % (op, shape, dtype))


def _overlaps(out, x):
    return out is not x and out.storage is x.storage and not (
        out.offset == x.offset and out.estrides == x.estrides and out.shape == x.shape)


def _unary(op):
    def run(x, *, out_dtype, out=None):
        body = _body(UNARY_BODIES, op, x.dtype, out_dtype, x.device)
        if out is None:
            return _run_elementwise(op, body, [x], out_dtype)
        _check_out(op, out, x.shape, out_dtype)
        if _overlaps(out, x):
            x = _copy(x)
        return _run_elementwise(op, body, [x], out_dtype, out=out)
    return run


def _binary(op):
    def run(a, b, *, out_dtype, out=None):
        if a.device != b.device or a.dtype != b.dtype:
            raise TypeError("tenferro.%s (webgpu): operands must share a device and dtype, "
                            "got %s and %s" % (op, a.dtype, b.dtype))
        body = _body(BINARY_BODIES, op, a.dtype, out_dtype, a.device)
        shape = a.shape if a.shape == b.shape else _broadcast_shape(op, a.shape, b.shape)
        a, b = _broadcast_view(a, shape, op), _broadcast_view(b, shape, op)
        if out is None:
            return _run_elementwise(op, body, [a, b], out_dtype, shape=shape)
        _check_out(op, out, shape, out_dtype)
        if _overlaps(out, a):
            a = _copy(a)
        if _overlaps(out, b):
            b = _copy(b)
        return _run_elementwise(op, body, [a, b], out_dtype, out=out, shape=shape)
    return run


impl = {}
from .._catalog import BINARY as _BIN, UNARY as _UN  # noqa: E402

for _n in _UN:
    if any(_n in t for t in UNARY_BODIES.values()):
        impl[_n] = _unary(_n)
for _n in ("real", "imag", "angle"):
    impl[_n] = _unary(_n)
for _n in _BIN:
    if any(_n in t for t in BINARY_BODIES.values()):
        impl[_n] = _binary(_n)
_OUT_OPS = frozenset(impl)


# where(c, x, y) and clip(x, lo, hi) in x, y, z (clip: not for bool)
WHERE_BODY = "select(z, y, x)"
CLIP_BODIES = {_F32: "f_min(f_max(x, y), z)", _I32: "min(max(x, y), z)",
               _I64: "l_min(l_max(x, y), z)"}


def _where(c, x, y, *, out_dtype):
    dev = x.device
    _check_dtype(out_dtype, "where", dev)
    if c.dtype != _BOOL or x.dtype != out_dtype or y.dtype != out_dtype:
        raise _unsupported(dev, "where", x.dtype if x.dtype != out_dtype else y.dtype)
    shape = _broadcast_shape("where", c.shape, x.shape, y.shape)
    args = [_broadcast_view(v, shape, "where") for v in (c, x, y)]
    return _run_elementwise("where", WHERE_BODY, args, out_dtype, shape=shape)


def _clip(x, lo, hi, *, out_dtype):
    dev = x.device
    _check_dtype(out_dtype, "clip", dev)
    if _kind(out_dtype) == "b" or not (x.dtype == lo.dtype == hi.dtype == out_dtype):
        raise _unsupported(dev, "clip", x.dtype)
    body = CLIP_BODIES[out_dtype]
    shape = _broadcast_shape("clip", x.shape, lo.shape, hi.shape)
    args = [_broadcast_view(v, shape, "clip") for v in (x, lo, hi)]
    return _run_elementwise("clip", body, args, out_dtype, shape=shape)


def _int_power(run):
    """``power`` checking NumPy's rule for integers first: a negative exponent raises
    the CPU kernel's ValueError.  A shader cannot raise, so the exponent's minimum (one
    ``min`` reduction, none for a single element) is read back to the host: integer
    power is a sync point, like any read."""
    def power(a, b, *, out_dtype, out=None):
        if a.dtype == b.dtype == _I32 and b.size:   # (run() rejects mixed dtypes)
            lowest = b if b.size == 1 else impl["min"](b, axes=tuple(range(b.ndim)),
                                                      out_dtype=_I32)
            if _to_numpy(lowest).min() < 0:   # a read: waits for the queue
                raise ValueError("Integers to negative integer powers are not allowed.")
        return run(a, b, out_dtype=out_dtype, out=out)
    return power


impl["power"] = _int_power(impl["power"])
impl["where"] = _where
impl["clip"] = _clip


def _convert(x, *, dtype):
    _check_dtype(dtype, "convert", x.device)
    if dtype == x.dtype:
        return _copy(x)
    return _run_elementwise("convert", convert_body(x.dtype, dtype), [x], dtype)


def convert_body(src, dst):
    """The WGSL body casting x of dtype ``src`` to ``dst`` (NumPy's values)."""
    if src == dst:
        return "x"
    if dst == _I64:
        return {_F32: "l_from_f32(x)", _I32: "l_from_i32(x)", _BOOL: "l_from_bool(x)"}[src]
    if src == _I64:  # int64 -> int32 keeps the low word (wraps, as NumPy's astype)
        return {_F32: "l_to_f32(x)", _I32: "bitcast<i32>(x.x)", _BOOL: "l_nz(x)"}[dst]
    if src == _F32 and dst == _BOOL:
        return "!(x == 0.0)"  # NaN is true
    if src == _F32 and dst == _I32:
        # NumPy (C) truncates; out-of-range and NaN give INT_MIN on x86.
        return "select(i32(x), -2147483647 - 1, f_isnan(x) || abs(x) >= 2147483648.0)"
    return {_F32: "f32(x)", _I32: "i32(x)", _BOOL: "bool(x)"}[dst]


def _copy(x):
    return _run_elementwise("copy", "x", [x], x.dtype)


def _assign(dst, src):
    if src.dtype != dst.dtype:
        raise _unsupported(dst.device, "assign", src.dtype)
    if src.shape != dst.shape:
        src = _broadcast_view(src, dst.shape, "setitem")
    if not dst.writeable:
        raise ValueError("tenferro.setitem: assignment destination is read-only (a broadcast "
                         "view)")
    if src.storage is dst.storage:
        src = _copy(src)
    _run_elementwise("assign", "x", [src], dst.dtype, out=dst, shape=dst.shape)


impl["convert"] = _convert
impl["copy"] = _copy
impl["assign"] = _assign


# -- views -------------------------------------------------------------------------------

def _reshape(x, *, shape, copy=None):
    shape = tuple(shape)
    if not copy and x.c_contiguous:
        return x.view(shape, _c_strides(shape), x.offset)
    if copy is False:
        raise ValueError("tenferro.reshape: cannot reshape a tensor of shape %s and strides "
                         "%s to %s without copying (copy=False)" % (x.shape, x.strides, shape))
    c = _copy(x)
    return c.view(shape, _c_strides(shape), c.offset)


def _permute(x, *, axes):
    return x.view(tuple(x.shape[a] for a in axes), tuple(x.estrides[a] for a in axes),
                  x.offset)


def _broadcast_to(x, *, shape):
    return _broadcast_view(x, tuple(shape))


def _basic_index(x, *, key):
    """``key`` as the CPU driver's: ("i", int) | ("s", start, stop, step) | ("n",) per
    entry, applied to the leading axes (the rest kept whole)."""
    shape, st = [], []
    off = x.offset
    ax = 0
    for e in key:
        if e[0] == "i":
            i = e[1]
            if i < 0:
                i += x.shape[ax]
            off += i * x.estrides[ax]
            ax += 1
        elif e[0] == "s":
            _, start, stop, step = e
            n = len(range(start, stop, step))
            if n > 0:
                off += start * x.estrides[ax]
            shape.append(n)
            st.append(x.estrides[ax] * step)
            ax += 1
        else:
            shape.append(1)
            st.append(0)
    shape += x.shape[ax:]
    st += x.estrides[ax:]
    return x.view(tuple(shape), tuple(st), off)


def _diagonal(x, *, offset, axis1, axis2):
    n1, n2 = x.shape[axis1], x.shape[axis2]
    s1, s2 = x.estrides[axis1], x.estrides[axis2]
    if offset >= 0:
        n = max(0, min(n1, n2 - offset))
        off = x.offset + (offset * s2 if n else 0)
    else:
        n = max(0, min(n1 + offset, n2))
        off = x.offset + (-offset * s1 if n else 0)
    keep = [i for i in range(x.ndim) if i not in (axis1, axis2)]
    return x.view(tuple(x.shape[i] for i in keep) + (n,),
                  tuple(x.estrides[i] for i in keep) + (s1 + s2,), off, writeable=False)


impl["reshape"] = _reshape
impl["permute_dims"] = _permute
impl["broadcast_to"] = _broadcast_to
impl["basic_index"] = _basic_index
impl["diagonal"] = _diagonal


# -- reductions (one thread per output element) -------------------------------------------

_I64_MIN, _I64_MAX = "vec2<u32>(0u, 0x80000000u)", "vec2<u32>(0xffffffffu, 0x7fffffffu)"
_RED = {  # op -> {kind: (accumulator init, combine(acc, v))}
    "sum": {"f": ("0.0", "acc + v"), "i": ("0", "acc + v"),
            "l": ("vec2<u32>(0u, 0u)", "l_add(acc, v)")},
    "prod": {"f": ("1.0", "acc * v"), "i": ("1", "acc * v"),
             "l": ("vec2<u32>(1u, 0u)", "l_mul(acc, v)")},
    "max": {"f": ("-f_inf()", "f_max(acc, v)"), "i": ("-2147483647 - 1", "max(acc, v)"),
            "b": ("false", "acc || v"), "l": (_I64_MIN, "l_max(acc, v)")},
    "min": {"f": ("f_inf()", "f_min(acc, v)"), "i": ("2147483647", "min(acc, v)"),
            "b": ("true", "acc && v"), "l": (_I64_MAX, "l_min(acc, v)")},
    "any": {"b": ("false", "acc || v")},
    "all": {"b": ("true", "acc && v")},
}
# The loaded value converted to the accumulator's type (the workgroup tree combines
# loaded values and partials alike): NumPy sums and multiplies bool and int32 in int64;
# any/all test truth (NaN is true: !(v == 0.0), as some compilers treat v != 0.0 as
# ordered).
_WIDEN = {_I32: "l_from_i32(%s)", _BOOL: "l_from_bool(%s)"}
_TRUTH = {_F32: "!(%s == 0.0)", _I32: "(%s != 0)", _I64: "l_nz(%s)"}


def _red_rule(op, dtype, out_dtype, value=None):
    """(init, combine, load) of reduction ``op`` of ``dtype`` into ``out_dtype``
    (None for out_dtype: the one NumPy gives), or None where there is none here.
    ``value``: the WGSL value of element ``off`` (default: the strided input's)."""
    load = _load(dtype, "x[off]") if value is None else value
    if op in ("sum", "prod") and dtype in _WIDEN and out_dtype in (_I64, None):
        dtype, load = _I64, _WIDEN[dtype] % load
    elif op in ("any", "all") and dtype in _TRUTH:
        dtype, load = _BOOL, _TRUTH[dtype] % load
    rule = _RED[op].get(_kind(dtype))
    if rule is None or out_dtype not in (dtype, None):
        return None
    return rule + (load,)


_TREE_MIN = 64  # reduced extents at least this long use the workgroup tree
RED_EXTRA_AT = 38   # where a reduction's layout ends: _reduce's ``extra`` starts there


def _red_layout(x, axes, op):
    """(kept shape, its size, the reduced size, the REDUCE layout ``meta``) of reducing
    ``x`` over ``axes``."""
    axes = tuple(sorted(a % x.ndim for a in axes)) if x.ndim else ()
    keep = [i for i in range(x.ndim) if i not in axes]
    if len(keep) > MAXDIM or len(axes) > MAXDIM:
        raise ValueError("tenferro.%s (webgpu): at most %d dimensions" % (op, MAXDIM))
    out_shape = tuple(x.shape[i] for i in keep)
    nout = int(np.prod(out_shape, dtype=np.int64))
    nred = int(np.prod([x.shape[i] for i in axes], dtype=np.int64))
    pad = lambda v, f: list(v) + [f] * (MAXDIM - len(v))  # noqa: E731
    meta = ([nout, len(keep), len(axes), x.offset]
            + pad([x.shape[i] for i in keep], 1) + pad([x.estrides[i] for i in keep], 0)
            + pad([x.shape[i] for i in axes], 1) + pad([x.estrides[i] for i in axes], 0)
            + [nred])
    return out_shape, nout, nred, meta


def _reduce(op, x, axes, fmt, new_out, store, new_part, part_store, again, head=None,
            extra=()):
    """Reduce ``x`` over ``axes`` with the kernel pieces ``fmt`` (prelude, in_store,
    out_store, acc, init, combine, load): one thread per output for short extents, else
    the workgroup tree over chunks of REDUCE_CHUNK.  ``store`` is the output's WGSL
    store expression in ``%s`` (the accumulator), ``new_out(shape)`` allocates it; with
    several chunks the partials (``new_part``; ``part_store``: their WGSL storage type
    and store expression) are reduced again by ``again(partials, axis)``.

    ``head``: (a rendered kernel head, the storages it binds before the output) in
    place of RED_HEAD's one strided ``x`` (a fused group, whose ``load`` reads element
    ``off`` itself: ``x`` then only gives the shape); ``extra``: layout words from
    ``RED_EXTRA_AT``."""
    out_shape, nout, nred, meta = _red_layout(x, axes, op)
    fmt = dict(fmt, wg=WG)
    top, storages = head if head is not None else (None, [x.storage])

    def source(main, **kw):
        if top is None:
            return (_wgsl.RED_HEAD + main).format(**fmt, **kw)
        return top + main.format(**fmt, **kw)

    ctx = x.storage.ctx
    if nred < _TREE_MIN or nout == 0:
        out = new_out(out_shape)
        ctx.dispatch(source(_wgsl.REDUCE_MAIN, store=store % "acc"),
                     storages + [out.storage], meta + [1] + list(extra), nout)
        return out
    nchunks = -(-nred // _wgsl.REDUCE_CHUNK)
    if nchunks == 1:
        part = new_out(out_shape)
    else:
        part = new_part(out_shape + (nchunks,))
        fmt["out_store"], store = part_store
    src = source(_wgsl.REDUCE_TREE_MAIN, store=store % "sh[0]", chunk=_wgsl.REDUCE_CHUNK,
                 half=WG // 2)
    ctx.dispatch(src, storages + [part.storage], meta + [nchunks] + list(extra),
                 nout * nchunks * WG)
    return part if nchunks == 1 else again(part, len(out_shape))


def reduce_op(op, x, axes, out_dtype, head=None, extra=()):
    """Reduction ``op`` (sum, prod, max, min, any, all) of ``x`` over ``axes`` into
    ``out_dtype``.  ``head``: (a rendered kernel head, the WGSL value of element
    ``off``, the storages it binds) reading a fused group instead of ``x``'s buffer
    (the fused kernels, :mod:`._wgsl_fusion`); ``extra``: its layout words."""
    dev = x.device
    if out_dtype not in _STORE:
        raise _unsupported(dev, op, out_dtype)
    rule = _red_rule(op, x.dtype, out_dtype, None if head is None else head[1])
    if rule is None:
        raise _unsupported(dev, op, x.dtype)
    init, combine, load = rule
    fmt = dict(prelude=_prelude(init + combine + load), in_store=_STORE[x.dtype],
               out_store=_STORE[out_dtype], acc=_VALUE[out_dtype], init=init,
               combine=combine, load=load)
    new = lambda shape: _new(shape, out_dtype, dev, op)  # noqa: E731
    st = _store(out_dtype, "%s")
    return _reduce(op, x, axes, fmt, new, st, new, (_STORE[out_dtype], st),
                   lambda part, ax: reduce_op(op, part, (ax,), out_dtype),
                   None if head is None else (head[0], head[2]), extra)


for _n in _RED:
    impl[_n] = functools.partial(reduce_op, _n)


# -- scans (cumsum / cumprod): one thread per line, sequential along the axis ----------------

_SCAN = {"cumsum": "sum", "cumprod": "prod"}   # the reduction whose rule a scan applies
# input dtype -> accumulator (= output) dtype: NumPy accumulates bool and int32 in int64
_SCAN_ACC = {_F32: _F32, _I32: _I64, _BOOL: _I64, _I64: _I64}


def _scan(op):
    def run(x, *, axis, out_dtype):
        dev = x.device
        acc = _SCAN_ACC.get(x.dtype)
        if acc is None or out_dtype != acc:
            raise _unsupported(dev, op, x.dtype if acc is None else out_dtype)
        axis %= x.ndim
        out = _new(x.shape, acc, dev, op)
        if out.size == 0:
            return out
        _, nlines, _, meta = _red_layout(x, (axis,), op)
        inner = int(np.prod(x.shape[axis + 1:], dtype=np.int64))
        _, combine, load = _red_rule(_SCAN[op], x.dtype, acc)   # load widens to acc
        src = _wgsl.SCAN.format(prelude=_prelude(combine + load), in_store=_STORE[x.dtype],
                                out_store=_STORE[acc], wg=WG, acc=_VALUE[acc],
                                combine=combine, load=load, reload=_load(acc, "out[p]"),
                                store=_store(acc, "acc"))
        m = x.shape[axis]
        for start in range(0, m, _wgsl.SCAN_CHUNK):  # segments, in order (see SCAN)
            x.storage.ctx.dispatch(src, [x.storage, out.storage],
                                   meta + [inner, start, min(start + _wgsl.SCAN_CHUNK, m)],
                                   nlines)
        return out
    return run


for _n in _SCAN:
    impl[_n] = _scan(_n)


# -- argmax / argmin: reductions of (value, index) pairs ------------------------------------

# per kind: (a strictly better than b for argmax, for argmin, a ties b) in a.v, b.v.
# A NaN beats everything (NumPy returns the first NaN); the NaN tests come first since
# some shader compilers fold ordered comparisons as if no NaN existed.
_ARG_CMP = {
    "f": ("!f_isnan(b.v) && (f_isnan(a.v) || a.v > b.v)",
          "!f_isnan(b.v) && (f_isnan(a.v) || a.v < b.v)",
          "select(a.v == b.v, f_isnan(a.v) && f_isnan(b.v), f_isnan(a.v) || f_isnan(b.v))"),
    "i": ("a.v > b.v", "a.v < b.v", "a.v == b.v"),
    "b": ("a.v && !b.v", "!a.v && b.v", "a.v == b.v"),
    "l": ("l_lt(b.v, a.v)", "l_lt(a.v, b.v)", "l_eq(a.v, b.v)"),
}
# per kind: (the worst value for argmax, for argmin): the identity of the combine
_ARG_WORST = {"f": ("-f_inf()", "f_inf()"), "i": ("-2147483647 - 1", "2147483647"),
              "b": ("false", "true"), "l": (_I64_MIN, _I64_MAX)}
# per kind: value <-> its bits as vec2<u32> (partials are vec4<u32>: value bits, index)
_ARG_BITS = {"f": ("vec2<u32>(bitcast<u32>(%s), 0u)", "bitcast<f32>(%s.x)"),
             "i": ("vec2<u32>(bitcast<u32>(%s), 0u)", "bitcast<i32>(%s.x)"),
             "b": ("vec2<u32>(select(0u, 1u, %s), 0u)", "(%s.x != 0u)"),
             "l": ("%s", "%s")}
_ARG_PRELUDE = """
struct P { v: %(val)s, i: i32 }
fn a_better(a: P, b: P) -> bool {
    if (%(better)s) { return true; }
    return (%(tie)s) && a.i < b.i;   // ties: the first index wins (any combine order)
}
fn a_comb(acc: P, v: P) -> P { if (a_better(v, acc)) { return v; } return acc; }
fn a_pack(p: P) -> vec4<u32> { return vec4<u32>(%(enc)s, bitcast<u32>(p.i), 0u); }
fn a_unpack(q: vec4<u32>) -> P { return P(%(dec)s, bitcast<i32>(q.z)); }
"""


def _argreduction(op):
    def run(x, *, axis):
        dev = x.device
        k = _kind(x.dtype)
        if k is None:
            raise _unsupported(dev, op, x.dtype)
        better = _ARG_CMP[k][op == "argmin"]
        enc, dec = _ARG_BITS[k]
        pre = _ARG_PRELUDE % dict(val=_VALUE[x.dtype], better=better, tie=_ARG_CMP[k][2],
                                  enc=enc % "p.v", dec=dec % "q.xy")
        fmt = dict(prelude=_prelude(pre + _ARG_WORST[k][0]) + pre, in_store=_STORE[x.dtype],
                   out_store="vec2<u32>", acc="P", combine="a_comb(acc, v)",
                   init="P(%s, 2147483647)" % _ARG_WORST[k][op == "argmin"],
                   load="P(%s, r)" % _load(x.dtype, "x[off]"))
        new = lambda shape: _new(shape, _I64, dev, op)  # noqa: E731
        index = "vec2<u32>(u32(%s.i), 0u)"

        def new_part(shape):  # 16-byte (vec4<u32>) elements: estrides count those
            return _new(shape + (2,), _I64, dev, op).view(shape, _c_strides(shape), 0)

        def again(part, ax):  # reduce the partial pairs
            f = dict(fmt, in_store="vec4<u32>", load="a_unpack(x[off])")
            return _reduce(op, part, (ax,), f, new, index, new_part, packed, again)

        packed = ("vec4<u32>", "a_pack(%s)")
        return _reduce(op, x, (axis % max(x.ndim, 1),), fmt, new, index, new_part, packed,
                       again)
    return run


for _n in ("argmax", "argmin"):
    impl[_n] = _argreduction(_n)


# -- matmul: tiled, shared memory, register-blocked ------------------------------------------

_MAX_BATCH_DIMS = 6


def _matmul_kernel(M, N):
    """The matmul template and its output tile for M x N products: the register-blocked
    kernel, unless one 16 x 16 tile holds the whole product (there the 64 x 64 tiles
    would compute 16 times the outputs needed: 2x slower on lavapipe for a batch of
    16 x 16 or 8 x 8 products; with M or N alone <= 16 it is still 1.6x faster)."""
    if M <= _wgsl.MATMUL_TILE and N <= _wgsl.MATMUL_TILE:
        return _wgsl.MATMUL, _wgsl.MATMUL_TILE
    return _wgsl.MATMUL_RB, _wgsl.MATMUL_RB_TILE


def _matmul(a, b):
    dev = a.device
    if a.dtype != b.dtype or a.dtype not in (_F32, _I32):
        raise _unsupported(dev, "matmul", a.dtype if a.dtype != _F32 else b.dtype)
    if a.shape[:-2] != b.shape[:-2] or a.shape[-1] != b.shape[-2]:
        raise ValueError("tenferro.matmul (webgpu): shapes %s and %s do not match"
                         % (a.shape, b.shape))
    batch = a.shape[:-2]
    if len(batch) > _MAX_BATCH_DIMS:  # merge the batch axes (copies when strided)
        a = _reshape(a, shape=(int(np.prod(batch)),) + a.shape[-2:])
        b = _reshape(b, shape=(int(np.prod(batch)),) + b.shape[-2:])
    M, K = a.shape[-2:]
    N = b.shape[-1]
    out = _new(a.shape[:-2] + (M, N), a.dtype, dev, "matmul")
    nbatch = int(np.prod(a.shape[:-2], dtype=np.int64))
    if out.size == 0 or K == 0:
        if out.size:
            _assign(out, _drv_from_scalar(0, a.dtype, dev))
        return out.view(batch + (M, N), _c_strides(batch + (M, N)), 0)
    nbd = a.ndim - 2
    pad = lambda v, f: list(v) + [f] * (_MAX_BATCH_DIMS - len(v))  # noqa: E731
    src, t = _matmul_kernel(M, N)
    src = src.format(store=_STORE[a.dtype], tile=t, wg=_wgsl.MATMUL_TILE,  # 16 x 16 threads
                     zero="0.0" if a.dtype == _F32 else "0")
    ctx = out.storage.ctx
    gx, gy = -(-N // t), -(-M // t)   # column and row tiles
    head = [M, N, K, nbd]
    layout = ([a.offset, b.offset, a.estrides[-2], a.estrides[-1], b.estrides[-2],
               b.estrides[-1]]
              + pad(a.shape[:-2], 1) + pad(a.estrides[:-2], 0) + pad(b.estrides[:-2], 0))
    kc = _wgsl.MATMUL_KCHUNK
    # one dispatch per block of at most 65535 workgroups in each grid dimension, and
    # per piece of K (in order: each piece adds to the previous ones' sum)
    for base in range(0, nbatch, _MAX_GROUPS_X):
        for y0 in range(0, gy, _MAX_GROUPS_X):
            for x0 in range(0, gx, _MAX_GROUPS_X):
                for k0 in range(0, K, kc):
                    ctx.dispatch(src, [a.storage, b.storage, out.storage],
                                 head + [base] + layout + [y0, x0, k0, min(K, k0 + kc), k0],
                                 None, groups=(min(_MAX_GROUPS_X, gx - x0),
                                               min(_MAX_GROUPS_X, gy - y0),
                                               min(_MAX_GROUPS_X, nbatch - base)))
    return out.view(batch + (M, N), _c_strides(batch + (M, N)), 0)


def _drv_from_scalar(value, dtype, device):
    return _from_numpy(np.full((), value, dtype), device)


def _zeros(shape, dtype, device, op):
    out = _new(tuple(shape), dtype, device, op)
    _assign(out, _drv_from_scalar(0, dtype, device))
    return out


def _basic_index_transpose(ct, *, key, shape):
    out = _zeros(shape, ct.dtype, ct.device, "basic_index_transpose")
    _assign(_basic_index(out, key=key), ct)
    return out


def _diagonal_transpose(ct, *, offset, axis1, axis2, shape):
    out = _zeros(shape, ct.dtype, ct.device, "diagonal_transpose")
    view = _diagonal(out, offset=offset, axis1=axis1, axis2=axis2)
    view.writeable = True  # distinct elements: safe to write through
    _assign(view, ct)
    return out


def _concatenate(*xs, axis):
    shape = list(xs[0].shape)
    shape[axis] = sum(x.shape[axis] for x in xs)
    out = _new(tuple(shape), xs[0].dtype, xs[0].device, "concatenate")
    start = 0
    for x in xs:
        n = x.shape[axis]
        key = [("s", 0, m, 1) for m in shape[:axis]] + [("s", start, start + n, 1)]
        _assign(_basic_index(out, key=key), x)
        start += n
    return out


impl["basic_index_transpose"] = _basic_index_transpose
impl["diagonal_transpose"] = _diagonal_transpose
impl["concatenate"] = _concatenate


def _contract(a, b, *, nb, nm, nk, nn):
    """einsum's pairwise step: a [batch, m.., k..] x b [batch, k.., n..] as one batched
    matmul over the merged axis groups (merging copies a non-contiguous operand)."""
    p = lambda s: int(np.prod(s, dtype=np.int64))  # noqa: E731
    B, M, K = a.shape[:nb], a.shape[nb:nb + nm], a.shape[nb + nm:]
    N = b.shape[nb + nk:]
    a3 = _reshape(a, shape=(p(B), p(M), p(K)))
    b3 = _reshape(b, shape=(p(B), p(K), p(N)))
    r = _matmul(a3, b3)
    return r.view(B + M + N, _c_strides(B + M + N), r.offset)


impl["matmul"] = _matmul
impl["contract"] = _contract


# -- integer-array indexing: gathers, atomic scatter-adds, nonzero --------------------------

def _check_index(op, x, idx):
    _check_dtype(x.dtype, op, x.device)
    if idx.dtype != _I64 or idx.device != x.device:
        raise TypeError("tenferro.%s (webgpu): indices must be an int64 array on %s, got %s "
                        "on %s" % (op, _device_name(x.device), idx.dtype,
                                   _device_name(idx.device)))


def _paired(op, target, idx, axis, along):
    """(target view, index view) over the iterated shape: ``take``'s
    ``target.shape[:axis] + idx.shape + target.shape[axis + 1:]``, or (``along``, the
    core has broadcast both off ``axis``) ``idx.shape``.  The target's strides are 0
    along the index dims (the index supplies its position there), the index's 0 along
    the others."""
    shape = idx.shape if along else target.shape[:axis] + idx.shape + target.shape[axis + 1:]
    if len(shape) > MAXDIM:
        raise ValueError("tenferro.%s (webgpu): at most %d dimensions, got %d (x of shape %s, "
                         "indices of shape %s)" % (op, MAXDIM, len(shape), target.shape,
                                                   idx.shape))
    if along:
        st = list(target.estrides)
        st[axis] = 0
        return target.view(shape, st, target.offset), idx
    k, rest = idx.ndim, target.ndim - axis - 1
    t = target.view(shape, target.estrides[:axis] + (0,) * k + target.estrides[axis + 1:],
                    target.offset)
    return t, idx.view(shape, (0,) * axis + idx.estrides + (0,) * rest, idx.offset)


@functools.lru_cache(maxsize=64)
def _index_source(template, nin, body, **fmt):
    init, step = _offset_lines(nin)
    return template.format(wg=WG, at=0, offsets_init=init, offsets_step=step, body=body,
                           **fmt)


def _gather(op, along):
    """take / take_along_axis: out[i] = x[o0 + idx[o1] * x's axis stride]."""
    def run(x, idx, *, axis):
        _check_index(op, x, idx)
        tv, iv = _paired(op, x, idx, axis, along)
        out = _new(tv.shape, x.dtype, x.device, op)
        if out.size == 0:
            return out
        meta = _layout(tv.shape, [0] * tv.ndim, 0, [tv, iv]) + [x.estrides[axis]]
        src = _index_source(_wgsl.GATHER, 2, "    out[i] = x[o0 + i32(idx[o1].x) * lay[%d]];"
                            % (len(meta) - 1), store=_STORE[x.dtype])
        out.storage.ctx.dispatch(src, [x.storage, idx.storage, out.storage], meta, meta[0])
        return out
    return run


def _scatter(op, along):
    """scatter_add(_along_axis): zeros(shape), then values[i] added atomically at
    out[o0 + idx[o1] * out's axis stride] (duplicates accumulate; float32 sums in
    whatever order the threads land, like any parallel scatter-add)."""
    def run(values, idx, *, axis, shape):
        _check_index(op, values, idx)
        out = _zeros(shape, values.dtype, values.device, op)
        tv, iv = _paired(op, out, idx, axis, along)
        if tv.shape != values.shape:
            raise ValueError("tenferro.%s (webgpu): values of shape %s, expected %s (indices "
                             "of shape %s into shape %s along axis %d)"
                             % (op, values.shape, tv.shape, idx.shape, tuple(shape), axis))
        if values.size == 0:
            return out
        meta = _layout(tv.shape, [0] * tv.ndim, 0, [tv, iv, values]) + [out.estrides[axis]]
        atom, add = _wgsl.SCATTER_ADD[_kind(values.dtype)]
        src = _index_source(_wgsl.SCATTER, 3,
                            "    add_at(o0 + i32(idx[o1].x) * lay[%d], values[o2]);"
                            % (len(meta) - 1), store=_STORE[values.dtype], atom=atom, add=add)
        out.storage.ctx.dispatch(src, [values.storage, idx.storage, out.storage], meta,
                                 meta[0])
        return out
    return run


def _nonzero(x):
    """The (nnz, ndim) int64 C-order coordinates of x's nonzeros, as the CPU driver's.
    The output's shape depends on the data, so the mask is read back and the indices
    computed on the host and uploaded: a sync point (as PyTorch's nonzero on CUDA)."""
    _check_dtype(x.dtype, "nonzero", x.device)
    return _from_numpy(np.argwhere(_to_numpy(x)).astype(np.int64), x.device)


def _put(dst, positions, values):
    """dst.flat[positions] = values (C-order positions, normalised by the core; values
    broadcast to their shape), the last of duplicate positions winning as in NumPy:
    one pass marks each position's last writer (atomicMax), a second writes."""
    _check_dtype(dst.dtype, "put", dst.device)
    load = {_I64: "i32(idx[o0].x)", _I32: "idx[o0]"}.get(positions.dtype)
    if load is None or values.dtype != dst.dtype or values.shape != positions.shape:
        raise ValueError("tenferro.put (webgpu): expected int32/int64 positions and values "
                         "of dtype %s and the positions' shape, got positions %s %s and "
                         "values %s %s" % (dst.dtype, positions.dtype, positions.shape,
                                           values.dtype, values.shape))
    if not dst.writeable:
        raise ValueError("tenferro.setitem: assignment destination is read-only")
    if positions.size == 0:
        return
    target = dst if dst.c_contiguous else _copy(dst)
    if values.storage is target.storage:   # no buffer both read and written in a pass
        values = _copy(values)
    ctx = target.storage.ctx
    win = _zeros((dst.size,), _I32, dst.device, "put")
    meta = _layout(positions.shape, [0] * positions.ndim, 0, [positions, values])
    istore = _STORE[positions.dtype]
    ctx.dispatch(_index_source(_wgsl.PUT_WINNER, 2, "    atomicMax(&win[%s], i + 1);" % load,
                               istore=istore),
                 [positions.storage, win.storage], meta, meta[0])
    body = ("    let p = %s;\n"
            "    if (win[p] == i + 1) { out[lay[%d] + p] = values[o1]; }" % (load, len(meta)))
    ctx.dispatch(_index_source(_wgsl.PUT, 2, body, store=_STORE[dst.dtype], istore=istore),
                 [positions.storage, values.storage, win.storage, target.storage],
                 meta + [target.offset], meta[0])
    if target is not dst:   # a strided destination: write the result back
        _assign(dst, target)


impl["take"] = _gather("take", along=False)
impl["take_along_axis"] = _gather("take_along_axis", along=True)
impl["scatter_add"] = _scatter("scatter_add", along=False)
impl["scatter_add_along_axis"] = _scatter("scatter_add_along_axis", along=True)
impl["nonzero"] = _nonzero
impl["put"] = _put


def _to_numpy(data):
    shape, st, off = data.shape, data.estrides, data.offset
    dtype = data.dtype
    if data.size == 0:
        return np.empty(shape, dtype)
    lo = off + sum(s * (n - 1) for n, s in zip(shape, st) if s < 0)
    hi = off + sum(s * (n - 1) for n, s in zip(shape, st) if s > 0)
    isz = _HOST[dtype].itemsize
    raw = data.storage.ctx.read(data.storage, isz * lo, isz * (hi - lo + 1))
    flat = np.frombuffer(raw, dtype=_HOST[dtype])
    view = np.lib.stride_tricks.as_strided(
        flat[off - lo:], shape, tuple(isz * s for s in st), writeable=False)
    if dtype == _BOOL:
        out = np.empty(shape, _BOOL)   # an array also for 0-d (view != 0 is a scalar)
        np.not_equal(view, 0, out=out)
        return out
    return np.array(view, dtype=dtype)


def _from_numpy(array, device):
    array = np.asarray(array)
    dtype = array.dtype
    _check_dtype(dtype, "device_put", device)
    ctx = _context()
    host = np.ascontiguousarray(array, dtype=_HOST[dtype])
    st = ctx.upload(host.reshape(-1).view(np.uint8).tobytes(), "device_put", device)
    return WGPUArray(st, array.shape, dtype, device=device)


# -- the driver ------------------------------------------------------------------------------

class Driver(_Base):
    """WebGPU through wgpu-native: float32, int32, bool and (emulated) int64 on one
    adapter."""

    name = "webgpu"
    dtypes = frozenset(_TYPES)
    implementations = impl
    view_ops = frozenset({"reshape", "permute_dims", "broadcast_to", "basic_index",
                          "diagonal"})
    inplace_ops = _OUT_OPS
    # No float64 or complex here; int32 is the native integer.
    default_dtypes = dict(_Base.default_dtypes, i=_I32, f=_F32, c=_dtypes.complex64)

    def device_count(self):
        return 1 if _context() is not None else 0

    def unavailable_reason(self):
        _context()
        return _ctx_error or "available"

    def info(self, index=0):
        ctx = _context()
        if ctx is None:
            return {"available": False, "reason": _ctx_error}
        a = ctx.adapter.info
        lim = ctx.limits
        return {"adapter": a.get("device", "?"), "backend": a.get("backend_type", "?"),
                "adapter_type": a.get("adapter_type", "?"),
                "max_storage_buffer_binding_size":
                    lim.get("max_storage_buffer_binding_size"),
                "max_buffer_size": lim.get("max_buffer_size"),
                "max_compute_workgroups_per_dimension":
                    lim.get("max_compute_workgroups_per_dimension"),
                "max_compute_invocations_per_workgroup":
                    lim.get("max_compute_invocations_per_workgroup"),
                "max_compute_workgroup_storage_size":
                    lim.get("max_compute_workgroup_storage_size")}

    def supports(self, op, dtype):
        """Whether ``op`` runs here for inputs of ``dtype`` (the coverage table in
        docs/devices.md is generated from this)."""
        dtype = np.dtype(dtype)
        if op not in self.implementations or dtype not in self.dtypes:
            return False
        k = _kind(dtype)
        for bodies in (UNARY_BODIES, BINARY_BODIES):
            if any(op in table for table in bodies.values()):
                return op in bodies[k]
        if op in _SCAN:  # bool and int32 scans accumulate in int64 (NumPy)
            return dtype in _SCAN_ACC
        if op in _RED:
            return _red_rule(op, dtype, None) is not None
        if op in ("matmul", "contract"):
            return k in ("f", "i")   # no int64 matmul (not wanted: slow emulation)
        return True

    # memory -------------------------------------------------------------------------------
    def empty(self, shape, dtype, device):
        return _new(tuple(shape), np.dtype(dtype), device, "empty")

    def full(self, shape, dtype, value, device):
        dtype = np.dtype(dtype)
        _check_dtype(dtype, "full", device)
        out = _new(tuple(shape), dtype, device, "full")
        fill = self.from_numpy(np.full((), value, dtype), device)
        _assign(out, fill)
        return out

    def from_numpy(self, array, device):
        return _from_numpy(array, device)

    def to_numpy(self, data):
        return _to_numpy(data)

    def synchronize(self, device):
        ctx = _context()
        if ctx is not None:
            ctx.sync()


# -- introspection (tests, benchmarks) ---------------------------------------------------------

def pool_info():
    """The buffer pool: hits (reused buffers), misses (new buffers), bytes held free."""
    ctx = _context()
    if ctx is None:
        return {}
    return {"hits": ctx.pool_hits, "misses": ctx.pool_misses, "free_bytes": ctx.pool_bytes,
            "limit_bytes": ctx.pool_limit}


def pipeline_info():
    """The pipeline cache: distinct pipelines held and compilations done so far."""
    ctx = _context()
    if ctx is None:
        return {}
    return {"pipelines": len(ctx.pipelines), "compiles": ctx.compiles,
            "submits": ctx.submits}


def clear_pool():
    """Return the pooled (free) GPU buffers to wgpu."""
    ctx = _context()
    if ctx is not None:
        ctx.clear_pool()


from ._wgsl_fusion import fused as _fused  # noqa: E402  (fused groups of compiled programs)

impl["fused_elementwise"] = _fused
