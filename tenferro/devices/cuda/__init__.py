"""The CUDA driver: NVIDIA GPUs through cuda-python, kernels compiled by NVRTC.

Install with ``pip install 'tenferro[cuda]'``.  Devices are ``cuda:0``, ``cuda:1``,
...; without the package, the driver or a GPU, ``tenferro.device("cuda")`` raises
RuntimeError saying which, and ``tenferro.devices.available()`` leaves ``"cuda"`` out.

Every dtype (bool, int32, int64, float32, float64, complex64, complex128) is stored as
NumPy stores it.  Kernels are CUDA C rendered per (op, dtypes, dimensions) from the op
catalog (:mod:`.kernels`, :mod:`.cmath`), compiled by NVRTC to CUBIN for the device's
``sm_XX`` and cached in memory and on disk (:mod:`.nvrtc`).
:func:`compile_all` compiles every kernel the driver can generate, without a GPU.

``TENFERRO_CUDA_SIMULATOR=1`` makes ``cuda:0`` the host simulator (:mod:`.backend`):
the same kernels compiled by the host C++ compiler and run on the CPU, so the driver is
tested end to end on machines without a GPU.

The package, bottom to top (a module imports only modules before it in this list):
``runtime`` (discovery), ``nvrtc`` (CUDA C -> CUBIN), ``shim`` (CUDA C -> host code),
``backend`` (GPU or simulator: memory, launches, the current stream), ``stream``
(:class:`Stream`, :func:`synchronize`), ``versions`` (for ``show_config()``), ``cmath`` (NumPy's
semantics in CUDA C), ``array`` (:class:`CUDAArray`, transfers), ``kernels``
(rendering, launching), ``reduce``, ``scan``, ``elementwise``, ``index_kernels``, ``index``
(views, gathers, scatter-adds, nonzero, put), ``libs`` (cuBLAS and cuSOLVER),
``simlibs`` (their host twin), ``matmul``, ``matrices`` (column-major stacks for
cuSOLVER), ``norm`` (vector norms), ``linalg`` (tenferro.linalg's primitives,
registered from there), ``fused``, ``prebuild`` (:func:`compile_all`), ``dlpack``
(zero-copy exchange with CuPy and PyTorch: ``CUDAArray.__dlpack__``,
:func:`from_dlpack`), and this module: the :class:`Driver`
and its ``implementations``.
"""
import numpy as np

from ..base import Driver as _Base
from . import backend, index, reduce, runtime, scan
from .array import DTYPES, CUDAArray, from_numpy, new, to_numpy
from .elementwise import OUT_OPS, full
from .elementwise import implementations as _elementwise
from .fused import implementations as _fused
from .matmul import implementations as _matmul
from .prebuild import compile_all
from .stream import Stream, current_stream, synchronize
from .versions import cuda_version, versions
from . import dlpack
from .dlpack import from_dlpack

__all__ = ["CUDAArray", "Driver", "Stream", "compile_all", "current_stream", "from_dlpack",
           "synchronize"]

impl = dict(_elementwise)
for _table in (reduce.implementations, scan.implementations, index.implementations,
               _matmul, _fused):
    impl.update(_table)


class Driver(_Base):
    """NVIDIA GPUs (or the host simulator, ``TENFERRO_CUDA_SIMULATOR=1``)."""

    name = "cuda"
    dtypes = DTYPES
    implementations = impl
    view_ops = frozenset({"reshape", "permute_dims", "broadcast_to", "basic_index",
                          "diagonal"})
    inplace_ops = OUT_OPS

    def device_count(self):
        return backend.device_count()

    def unavailable_reason(self):
        n, reason = runtime.probe()
        return "available" if n or backend.simulated() else reason

    def info(self, index=0):
        n = backend.device_count()
        if index >= n:
            return {"available": False, "reason": self.unavailable_reason()}
        d = dict(backend.get(index).info())
        if "driver_version" in d:
            d["driver_version"] = cuda_version(d["driver_version"])
        d.update(versions())
        return d

    def supports(self, op, dtype):
        """Whether ``op`` runs here for inputs of ``dtype`` (docs/devices.md's coverage
        table is generated from this)."""
        dtype = np.dtype(dtype)
        if op not in self.implementations or dtype not in self.dtypes:
            return False
        from .cmath import BINARY_SUPPORT, UNARY_SUPPORT
        for table in (UNARY_SUPPORT, BINARY_SUPPORT):
            if op in table:
                return dtype in table[op]
        return True

    # memory -------------------------------------------------------------------------------
    def empty(self, shape, dtype, device):
        return new(tuple(shape), np.dtype(dtype), device)

    def full(self, shape, dtype, value, device):
        return full(shape, np.dtype(dtype), value, device)

    from_numpy = staticmethod(from_numpy)   # (array, device) -> CUDAArray
    to_numpy = staticmethod(to_numpy)       # CUDAArray -> ndarray (waits for it)

    def synchronize(self, device):
        backend.get(device.index).synchronize()

    def from_dlpack(self, obj, device):
        """A CUDA array sharing the memory of DLPack producer ``obj`` (on ``device``)."""
        return dlpack.import_array(obj, device)

