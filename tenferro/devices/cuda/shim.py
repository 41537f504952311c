"""The host shim: the driver's CUDA C kernels compiled by the host C++ compiler and run
on the CPU, block by block, so their indexing, dtype and tree logic is tested on a
machine without a GPU (CI), against NumPy, through the very Python code that launches
them on a GPU.

A kernel here is what :mod:`.kernels` renders: ``extern "C" __global__ void NAME(const
NAME_params p)``, one struct parameter of 8-byte words (buffer addresses, then int64
metadata).  :data:`HEADER` defines what CUDA C has and C++ lacks (``__global__``,
``blockIdx``/``threadIdx``, ``__syncthreads()``, ``__shared__``, atomics, the float
intrinsics the kernels use); :func:`compile_host` adds, per kernel, an ``extern "C"``
launcher taking the grid, the block, the parameter words and the dynamic shared memory
size, as ``cuLaunchKernel`` does.

Blocks run one after another.  A kernel that synchronises its block (``barrier=True``:
reductions, scans) runs each of its threads on a thread of its own, with
``__syncthreads()`` a barrier across them; other kernels run their threads in a loop.
``__shared__`` variables are function-level statics, which is right because one block
runs at a time.  Compiled libraries are cached on disk beside NVRTC's (``host/`` under
:func:`.nvrtc.cache_dir`) under a key of the source, the flags and the compiler's
version.
"""
import ctypes
import functools
import hashlib
import os
import shutil
import subprocess
import tempfile
import threading

from . import nvrtc

CXX = os.environ.get("TENFERRO_CUDA_HOST_CXX") or "g++"
FLAGS = ("-std=c++17", "-O1", "-shared", "-fPIC", "-pthread", "-fno-strict-aliasing",
         "-w")

HEADER = r"""
// ---- tenferro host shim: CUDA C on the CPU --------------------------------------
#include <cmath>
#include <cstdint>
#include <cstring>
#include <cstdlib>
#include <pthread.h>
#include <vector>
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __restrict__ __restrict
#define __shared__ static
#define TF_HOST_SHIM 1
struct tf_dim3 { unsigned x, y, z; };
static thread_local tf_dim3 threadIdx, blockIdx;
static tf_dim3 blockDim, gridDim;
static pthread_barrier_t tf_barrier;
static char* tf_dynamic_smem = nullptr;
static inline void __syncthreads() { pthread_barrier_wait(&tf_barrier); }
#define TF_DYNAMIC_SHARED(type, name) type* name = (type*)tf_dynamic_smem
template <class T> static inline T atomicAdd(T* p, T v) {
    T old, want;
    __atomic_load(p, &old, __ATOMIC_SEQ_CST);
    do { want = old + v; }
    while (!__atomic_compare_exchange(p, &old, &want, false, __ATOMIC_SEQ_CST,
                                      __ATOMIC_SEQ_CST));
    return old;
}
template <class T> static inline T atomicMax(T* p, T v) {
    T old;
    __atomic_load(p, &old, __ATOMIC_SEQ_CST);
    while (old < v && !__atomic_compare_exchange(p, &old, &v, false, __ATOMIC_SEQ_CST,
                                                 __ATOMIC_SEQ_CST)) {}
    return old;
}
template <class T> static inline T atomicOr(T* p, T v) { return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); }
template <class T> static inline T atomicCAS(T* p, T cmp, T v) {
    __atomic_compare_exchange_n(p, &cmp, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    return cmp;
}
static inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
struct tf_thread_arg { void (*fn)(const void*); const void* params; tf_dim3 t, b; };
static void* tf_thread_main(void* a) {
    tf_thread_arg* t = (tf_thread_arg*)a;
    threadIdx = t->t; blockIdx = t->b;
    t->fn(t->params);
    return nullptr;
}
static void tf_run(void (*fn)(const void*), int barrier, unsigned gx, unsigned gy,
                   unsigned gz, unsigned bx, unsigned by, unsigned bz, const void* params,
                   size_t shmem) {
    gridDim = {gx, gy, gz}; blockDim = {bx, by, bz};
    std::vector<char> smem(shmem + 16);
    tf_dynamic_smem = smem.data();
    unsigned nt = bx * by * bz;
    std::vector<pthread_t> th(barrier ? nt : 0);
    std::vector<tf_thread_arg> args(barrier ? nt : 0);
    if (barrier) pthread_barrier_init(&tf_barrier, nullptr, nt);
    for (unsigned z = 0; z < gz; ++z) for (unsigned y = 0; y < gy; ++y)
    for (unsigned x = 0; x < gx; ++x) {
        tf_dim3 b = {x, y, z};
        unsigned k = 0;
        for (unsigned tz = 0; tz < bz; ++tz) for (unsigned ty = 0; ty < by; ++ty)
        for (unsigned tx = 0; tx < bx; ++tx, ++k) {
            tf_dim3 t = {tx, ty, tz};
            if (barrier) {
                args[k] = {fn, params, t, b};
                pthread_create(&th[k], nullptr, tf_thread_main, &args[k]);
            } else {
                threadIdx = t; blockIdx = b;
                fn(params);
            }
        }
        if (barrier) for (unsigned j = 0; j < nt; ++j) pthread_join(th[j], nullptr);
    }
    if (barrier) pthread_barrier_destroy(&tf_barrier);
}
// ---- end of the host shim ---------------------------------------------------------
"""

_LAUNCHER = r"""
extern "C" void tf_launch_%(name)s(unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                   unsigned by, unsigned bz, const void* params,
                                   size_t shmem) {
    tf_run([](const void* p) { %(name)s(*(const %(name)s_params*)p); }, %(barrier)d,
           gx, gy, gz, bx, by, bz, params, shmem);
}
"""

_lock = threading.Lock()
_libs = {}
_preludes = []   # registered common starts of kernel sources (register_prelude)
_pch = {}        # prelude key -> path of its precompiled header


@functools.lru_cache(maxsize=None)
def compiler_version():
    """The host compiler's first ``--version`` line (part of the cache key); RuntimeError
    when there is none."""
    if shutil.which(CXX) is None:
        raise RuntimeError("tenferro.devices.cuda (host shim): no C++ compiler %r found "
                           "(set TENFERRO_CUDA_HOST_CXX)" % CXX)
    out = subprocess.run([CXX, "--version"], capture_output=True, text=True)
    return out.stdout.splitlines()[0] if out.stdout else CXX


def host_source(source, kernels):
    """``source`` (CUDA C) as a host C++ translation unit with one launcher per
    ``(name, barrier)`` in ``kernels``."""
    return "".join([HEADER, source] + [_LAUNCHER % {"name": n, "barrier": int(b)}
                                       for n, b in kernels])


def register_prelude(prelude):
    """Declare ``prelude`` a common start of kernel sources: :func:`compile_host`
    compiles it (with :data:`HEADER`) once into a precompiled header and includes that
    in place of the text, which saves most of each kernel's compile time."""
    with _lock:
        if prelude not in _preludes:
            _preludes.append(prelude)


def compile_host(source, kernels):
    """A ``ctypes.CDLL`` of ``source`` compiled for the host, with launchers
    ``tf_launch_<name>`` for ``kernels`` (pairs ``(name, barrier)``).  Cached in memory
    and on disk; RuntimeError with the compiler's messages when it fails."""
    text = host_source(source, kernels)
    key = hashlib.sha256(repr((text, FLAGS, compiler_version())).encode()).hexdigest()
    with _lock:
        lib = _libs.get(key)
    if lib is not None:
        return lib
    d = nvrtc.cache_dir()
    cached = os.path.join(d, "host", key + ".so") if d else None
    if cached is None or not os.path.exists(cached):
        prelude = next((p for p in _preludes if source.startswith(p)), None)
        if prelude is not None:
            text = '#include "%s"\n%s' % (_precompiled(prelude),
                                           host_source(source[len(prelude):], kernels)[
                                               len(HEADER):])
        path = _compile(text, cached)
    else:
        path = cached
    lib = ctypes.CDLL(path)
    for name, _ in kernels:
        fn = getattr(lib, "tf_launch_" + name)
        fn.restype = None
        fn.argtypes = [ctypes.c_uint] * 6 + [ctypes.c_void_p, ctypes.c_size_t]
    with _lock:
        _libs.setdefault(key, lib)
    return lib


def _precompiled(prelude):
    """The path of a header holding :data:`HEADER` and ``prelude``, precompiled beside
    it (``.gch``, which g++ uses in its place) in a private directory per process."""
    key = hashlib.sha256(repr((prelude, FLAGS, compiler_version())).encode()).hexdigest()
    with _lock:
        path = _pch.get(key)
        if path is None:
            d = tempfile.mkdtemp(prefix="tenferro-pch-")
            path = os.path.join(d, "tf_prelude.h")
            with open(path, "w") as f:
                f.write(HEADER + prelude)
            flags = [f for f in FLAGS if f != "-shared"]
            res = subprocess.run([CXX, *flags, "-x", "c++-header", path, "-o", path + ".gch"],
                                 capture_output=True, text=True)
            if res.returncode:
                raise RuntimeError("tenferro.devices.cuda (host shim): %s could not compile "
                                   "the kernels' prelude:\n%s" % (CXX, res.stderr[-6000:]))
            _pch[key] = path
        return path


def _compile(text, cached):
    tmpdir = tempfile.mkdtemp(prefix="tenferro-shim-")
    src = os.path.join(tmpdir, "kernel.cpp")
    out = os.path.join(tmpdir, "kernel.so")
    with open(src, "w") as f:
        f.write(text)
    res = subprocess.run([CXX, *FLAGS, src, "-o", out], capture_output=True, text=True)
    if res.returncode:
        raise RuntimeError("tenferro.devices.cuda (host shim): %s could not compile a "
                           "kernel:\n%s" % (CXX, res.stderr[-6000:]))
    if cached is None:
        return out
    try:
        os.makedirs(os.path.dirname(cached), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(cached), suffix=".tmp")
        os.close(fd)
        shutil.copyfile(out, tmp)
        os.replace(tmp, cached)
        return cached
    except OSError:
        return out
