"""The WebGPU driver: ``wgpu`` (wgpu-native) compute shaders on any WebGPU adapter.

Install with ``pip install tenferro[webgpu]``.  Without ``wgpu``, or without an
adapter, the driver reports 0 devices and says why (``tenferro.devices.available()``
then omits ``"webgpu"``).  ``WGPU_BACKEND_TYPE=Vulkan`` selects the Vulkan backend
(e.g. Mesa's lavapipe on a machine without a GPU).

dtypes: float32, int32, bool (stored as u32, one 4-byte word an element) and int64
(two u32 words an element, low word first: NumPy's bytes, so transfers are byte
copies; the arithmetic is emulated exactly, wrapping mod 2^64 as NumPy does, see
``wgsl_math.PRELUDE64``).  int64 ops that would need 64-bit division, shifts or a
64-bit matmul raise.  WebGPU has no standard float64, so float64 and complex raise
:class:`~tenferro.UnsupportedOperation` naming the device, the op and the dtype.

Device arrays are :class:`WGPUArray`: a pooled GPU buffer plus an element offset and
element strides.  ``WGPUArray.strides`` reports the strides in bytes *of the logical
dtype* (element strides times ``dtype.itemsize``, so 1 byte per element for bool
although the device stores 4; int64 is 8 bytes on both sides), i.e. exactly what
NumPy would report for the same layout; contiguity checks in the core therefore work
unchanged.

Kernels are WGSL templates (:mod:`.wgsl`) rendered per (op, dtypes) and compiled
once per device.  Dispatches are recorded into one command encoder and submitted in
batches; the queue is synchronised only where the host reads (integer
``power`` reads its exponent's minimum: NumPy raises for negative integer exponents;
``nonzero``, hence ``x[mask]``, reads the mask: its output's shape depends on the data).
Integer-array indexing gathers with one thread per output element and scatter-adds
with atomics; the core bounds-checks and normalises the indices before binding.

The package, bottom to top (a module imports only modules before it in this list):
``wgsl_math``, ``wgsl``, ``wgsl_matmul`` (WGSL text); ``quiet`` (discovery without
wgpu's and Vulkan's noise); ``context`` (adapter, buffer
pool, pipeline cache, batched encoder); ``array`` (:class:`WGPUArray`, dtype layout,
transfers); ``render`` (kernel pieces, the elementwise kernel); ``reduce``
(reductions, scans, argmax/argmin); ``elementwise`` (op bodies, casts, fills);
``index`` (views, indexing); ``sort`` (argsort, searchsorted); ``matmul``; ``fused``
(the fused groups of compiled programs); and this module: the :class:`Driver` and its
``implementations``.
"""
import numpy as np

from ... import _dtypes
from ..base import Driver as _Base
from . import elementwise, fused, index, matmul, reduce, sort
from .array import F32, I32, TYPES, WGPUArray, from_numpy, kind, new, to_numpy
from .context import get_context, unavailable_reason
from .elementwise import BINARY_BODIES, OUT_OPS, UNARY_BODIES, full

__all__ = ["Driver", "WGPUArray", "clear_pool", "impl", "pipeline_info", "pool_info"]

# op -> the driver function (the primitive's implementation on this device)
impl = {}
for _module in (elementwise, index, reduce, matmul, sort):
    impl.update(_module.implementations)
impl["fused_elementwise"] = fused.fused_elementwise


class Driver(_Base):
    """WebGPU through wgpu-native: float32, int32, bool and (emulated) int64 on one
    adapter."""

    name = "webgpu"
    dtypes = frozenset(TYPES)
    implementations = impl
    view_ops = frozenset({"reshape", "permute_dims", "broadcast_to", "basic_index",
                          "diagonal"})
    inplace_ops = OUT_OPS
    # No float64 or complex here; int32 is the native integer.
    default_dtypes = dict(_Base.default_dtypes, i=I32, f=F32, c=_dtypes.complex64)

    def device_count(self):
        return 1 if get_context() is not None else 0

    def unavailable_reason(self):
        get_context()
        return unavailable_reason() or "available"

    def info(self, index=0):
        ctx = get_context()
        if ctx is None:
            return {"available": False, "reason": unavailable_reason()}
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
        k = kind(dtype)
        for bodies in (UNARY_BODIES, BINARY_BODIES):
            if any(op in table for table in bodies.values()):
                return op in bodies[k]
        if op in reduce.implementations:
            return reduce.supports(op, dtype)
        if op in ("matmul", "contract"):
            return k in ("f", "i")   # no int64 matmul (not wanted: slow emulation)
        return True

    # memory -------------------------------------------------------------------------------
    def empty(self, shape, dtype, device):
        return new(tuple(shape), np.dtype(dtype), device, "empty")

    def full(self, shape, dtype, value, device):
        return full(shape, np.dtype(dtype), value, device)

    def from_numpy(self, array, device):
        return from_numpy(array, device)

    def to_numpy(self, data):
        return to_numpy(data)

    def synchronize(self, device):
        ctx = get_context()
        if ctx is not None:
            ctx.sync()


# -- introspection (tests, benchmarks) ---------------------------------------------------------

def pool_info():
    """The buffer pool: hits (reused buffers), misses (new buffers), bytes held free."""
    ctx = get_context()
    if ctx is None:
        return {}
    return {"hits": ctx.pool_hits, "misses": ctx.pool_misses, "free_bytes": ctx.pool_bytes,
            "limit_bytes": ctx.pool_limit}


def pipeline_info():
    """The pipeline cache: distinct pipelines held and compilations done so far."""
    ctx = get_context()
    if ctx is None:
        return {}
    return {"pipelines": len(ctx.pipelines), "compiles": ctx.compiles,
            "submits": ctx.submits}


def clear_pool():
    """Return the pooled (free) GPU buffers to wgpu."""
    ctx = get_context()
    if ctx is not None:
        ctx.clear_pool()
