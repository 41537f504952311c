"""Where the CUDA driver's memory lives and its kernels run: a GPU through cuda-python's
driver API (:class:`GPU`), or the host shim (:class:`Simulator`).

Both offer the same few calls -- ``alloc``/``free``, ``upload``/``download``/``copy``/
``memset``, ``function`` (a compiled, loaded kernel) and ``launch``, ``synchronize`` --
so every line above this module (arrays, kernels, the implementations of the
primitives) runs unchanged on either.  ``TENFERRO_CUDA_SIMULATOR=1`` makes device
``cuda:0`` a :class:`Simulator`: host memory, kernels compiled by the host C++ compiler
(:mod:`.shim`) and run block by block on the CPU.  It exists to test the driver where
there is no GPU (CI), and says so in ``show_config()``; it is no fast path.

A kernel's parameters are one struct of 8-byte words -- buffer addresses, then int64
metadata -- passed as an int64 array (:mod:`.kernels` renders the struct).  On a GPU
``launch`` hands its address to ``cuLaunchKernel``, which copies it at the call.

Streams: each GPU has a current stream (the legacy default stream, ``0``, unless the
user enters :class:`tenferro.devices.cuda.Stream`), as in CuPy and PyTorch; every
allocation, copy and launch is ordered on it.  Memory comes from the device's
stream-ordered pool (``cuMemAllocAsync``), kept by the pool when freed (the release
threshold is raised to the maximum), so steady-state allocations reuse memory without
a system call, as CuPy's and PyTorch's caching allocators do; a block freed is
reusable at once by later work on the same stream.
"""
import ctypes
import os
import threading

import numpy as np

from . import nvrtc, runtime, shim

SIMULATOR_ENV = "TENFERRO_CUDA_SIMULATOR"


def simulated():
    """Whether ``TENFERRO_CUDA_SIMULATOR`` asks for the host simulator."""
    return os.environ.get(SIMULATOR_ENV, "") not in ("", "0")


class CUDAError(RuntimeError):
    """A CUDA driver call failed (the message names the call and the error code)."""


# -- the current stream (per thread and device) ----------------------------------------

_local = threading.local()


def current_stream(index):
    """The handle of ``cuda:index``'s current stream on the calling thread (``0``, the
    legacy default stream, unless a :class:`tenferro.devices.cuda.Stream` is entered)."""
    return getattr(_local, "streams", {}).get(index, 0)


def set_current_stream(index, handle):
    """Make ``handle`` ``cuda:index``'s current stream on the calling thread."""
    streams = getattr(_local, "streams", None)
    if streams is None:
        streams = _local.streams = {}
    streams[index] = handle


class _Backend:
    @property
    def stream(self):
        """The stream this thread's allocations, copies and launches are ordered on."""
        return current_stream(self.index)


# -- the GPU -------------------------------------------------------------------------

def _driver_api():
    from cuda.bindings import driver
    return driver


def check(result, what):
    """The values of a cuda-python driver call's result tuple, or CUDAError."""
    err, rest = result[0], result[1:]
    if int(err) != 0:
        raise CUDAError("tenferro.devices.cuda: %s failed: %s" % (what, getattr(err, "name",
                                                                                err)))
    return rest[0] if len(rest) == 1 else rest


class GPU(_Backend):
    """One NVIDIA GPU through the driver API (its primary context)."""

    simulated = False

    def __init__(self, index):
        cu = self.cu = _driver_api()
        check(cu.cuInit(0), "cuInit")
        self.index = index
        self.dev = check(cu.cuDeviceGet(index), "cuDeviceGet(%d)" % index)
        self.ctx = check(cu.cuDevicePrimaryCtxRetain(self.dev), "cuDevicePrimaryCtxRetain")
        self.make_current()
        attr = cu.CUdevice_attribute
        major = check(cu.cuDeviceGetAttribute(
            attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, self.dev), "cuDeviceGetAttribute")
        minor = check(cu.cuDeviceGetAttribute(
            attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, self.dev), "cuDeviceGetAttribute")
        self.arch = "sm_%d%d" % (major, minor)
        self.sm_count = check(cu.cuDeviceGetAttribute(
            attr.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, self.dev), "cuDeviceGetAttribute")
        pool = check(cu.cuDeviceGetDefaultMemPool(self.dev), "cuDeviceGetDefaultMemPool")
        keep = cu.cuuint64_t(0xFFFFFFFFFFFFFFFF)
        check(cu.cuMemPoolSetAttribute(
            pool, cu.CUmemPool_attribute.CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, keep),
            "cuMemPoolSetAttribute")
        self.pool = pool
        self._functions = {}
        self._lock = threading.Lock()

    def make_current(self):
        check(self.cu.cuCtxSetCurrent(self.ctx), "cuCtxSetCurrent")
        _local.ctx = self.ctx

    @property
    def stream(self):
        """The current stream (as :class:`_Backend`), with this GPU's context made the
        calling thread's first: a context is current per thread, and every memory call
        and launch reads this."""
        self._bind()
        return current_stream(self.index)

    def _bind(self):
        if getattr(_local, "ctx", None) is not self.ctx:
            self.make_current()

    def info(self):
        cu = self.cu
        name = check(cu.cuDeviceGetName(256, self.dev), "cuDeviceGetName")
        total = check(cu.cuDeviceTotalMem(self.dev), "cuDeviceTotalMem")
        return {"name": name.split(b"\0")[0].decode(), "arch": self.arch,
                "multiprocessors": self.sm_count, "memory_bytes": int(total),
                "driver_version": check(cu.cuDriverGetVersion(), "cuDriverGetVersion")}

    # memory (stream-ordered on the current stream) ------------------------------------
    def alloc(self, nbytes, stream):
        return int(check(self.cu.cuMemAllocAsync(max(nbytes, 1), stream),
                         "cuMemAllocAsync(%d bytes)" % nbytes))

    def free(self, ptr, stream):
        self._bind()   # (the garbage collector may free on any thread)
        self.cu.cuMemFreeAsync(ptr, stream)

    def upload(self, ptr, host):
        check(self.cu.cuMemcpyHtoDAsync(ptr, host.ctypes.data, host.nbytes, self.stream),
              "cuMemcpyHtoDAsync")

    def download(self, host, ptr):
        check(self.cu.cuMemcpyDtoHAsync(host.ctypes.data, ptr, host.nbytes, self.stream),
              "cuMemcpyDtoHAsync")
        self.synchronize()

    def copy(self, dst, src, nbytes):
        check(self.cu.cuMemcpyDtoDAsync(dst, src, nbytes, self.stream), "cuMemcpyDtoDAsync")

    def memset(self, ptr, nbytes):
        check(self.cu.cuMemsetD8Async(ptr, 0, nbytes, self.stream), "cuMemsetD8Async")

    def synchronize(self):
        check(self.cu.cuStreamSynchronize(self.stream), "cuStreamSynchronize")

    # kernels -----------------------------------------------------------------------------
    def function(self, kernel):
        """The loaded CUfunction of ``kernel`` (a :class:`.kernels.Kernel`), compiled by
        NVRTC for this GPU's architecture (from the caches when it was before)."""
        fn = self._functions.get(kernel.source)
        if fn is None:
            cubin = nvrtc.compile_cubin(kernel.source, kernel.name + ".cu", self.arch)
            with self._lock:
                image = np.frombuffer(cubin, np.uint8)    # held across the call
                module = check(self.cu.cuModuleLoadData(image.ctypes.data),
                               "cuModuleLoadData")
                fn = check(self.cu.cuModuleGetFunction(module, kernel.name.encode()),
                           "cuModuleGetFunction")
                self._functions[kernel.source] = fn
        return fn

    def launch(self, kernel, grid, block, words, shmem=0):
        stream = self.stream   # (first: the module loads into this GPU's context)
        fn = self.function(kernel)
        argv = np.array([words.ctypes.data], dtype=np.uint64)   # void*[1] -> the struct
        check(self.cu.cuLaunchKernel(fn, grid, 1, 1, block, 1, 1, shmem, stream,
                                     argv.ctypes.data, 0), "cuLaunchKernel(%s)" % kernel.name)


# -- the host simulator ------------------------------------------------------------------

class Simulator(_Backend):
    """The driver's kernels on the CPU through the host shim, memory in host RAM."""

    simulated = True
    arch = "host"
    sm_count = 2

    def __init__(self, index=0):
        self.index = index
        self._buffers = {}
        self._functions = {}
        self._lock = threading.Lock()

    def make_current(self):
        pass

    def info(self):
        return {"name": "host simulator (TENFERRO_CUDA_SIMULATOR=1: the driver's kernels "
                        "compiled by %s and run on the CPU; for tests, not speed)" % shim.CXX,
                "arch": self.arch, "host_compiler": shim.compiler_version()}

    def alloc(self, nbytes, stream=0):
        buf = np.empty(max(nbytes, 1) + 64, np.uint8)
        ptr = (buf.ctypes.data + 63) & ~63   # aligned as cudaMalloc's (256 there)
        with self._lock:
            self._buffers[ptr] = buf
        return ptr

    def free(self, ptr, stream):
        with self._lock:
            self._buffers.pop(ptr, None)

    def upload(self, ptr, host):
        ctypes.memmove(ptr, host.ctypes.data, host.nbytes)

    def download(self, host, ptr):
        ctypes.memmove(host.ctypes.data, ptr, host.nbytes)

    def copy(self, dst, src, nbytes):
        ctypes.memmove(dst, src, nbytes)

    def memset(self, ptr, nbytes):
        ctypes.memset(ptr, 0, nbytes)

    def synchronize(self):
        pass

    def function(self, kernel):
        fn = self._functions.get(kernel.source)
        if fn is None:
            lib = shim.compile_host(kernel.source, [(kernel.name, kernel.barrier)])
            fn = self._functions[kernel.source] = getattr(lib, "tf_launch_" + kernel.name)
        return fn

    def launch(self, kernel, grid, block, words, shmem=0):
        self.function(kernel)(grid, 1, 1, block, 1, 1, words.ctypes.data, shmem)


_backends = {}
_lock = threading.Lock()


def device_count():
    """How many devices ``cuda:N`` there are: 1 in the simulator, else the runtime's."""
    return 1 if simulated() else runtime.probe()[0]


def get(index):
    """The backend of ``cuda:index`` (opened on first use)."""
    b = _backends.get(index)
    if b is None:
        with _lock:
            b = _backends.get(index)
            if b is None:
                b = _backends[index] = Simulator(index) if simulated() else GPU(index)
    return b
