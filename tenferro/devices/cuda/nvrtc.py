"""CUDA C to CUBIN with NVRTC, cached in memory and on disk.

Kernels are compiled for the device's own architecture (``sm_XX``) to CUBIN: PTX
from an NVRTC newer than the driver fails to load, CUBIN does not.  NVRTC needs no
GPU, so every kernel can be compiled (and tested to compile) on any machine.

The cache key is the SHA-256 of the source, the options, the architecture and the
NVRTC version (CuPy's ``_compile_with_cache_cuda`` is the model): a change to any of
them compiles anew.  The disk cache lives in ``$TENFERRO_CUDA_CACHE`` or, by default,
``$XDG_CACHE_HOME/tenferro/cuda`` (``~/.cache/tenferro/cuda``); entries are written to
a temporary file and renamed, so concurrent processes never read half a file.
``TENFERRO_CUDA_CACHE=""`` keeps the cache in memory only.
"""
import functools
import hashlib
import os
import re
import tempfile
import threading

_lock = threading.Lock()
_memory = {}
_stats = {"compiled": 0, "memory_hits": 0, "disk_hits": 0}
_ARCH = re.compile(r"sm_[0-9]{2,3}[a-z]?\Z")


def _nvrtc():
    try:
        from cuda.bindings import nvrtc
    except ImportError as e:
        raise RuntimeError("tenferro.devices.cuda: NVRTC is not available (pip install "
                           "'tenferro[cuda]', which installs cuda-python and "
                           "nvidia-cuda-nvrtc): %s" % e) from None
    return nvrtc


@functools.lru_cache(maxsize=None)
def version():
    """NVRTC's version as ``(major, minor)`` (asked once: part of every cache key)."""
    nvrtc = _nvrtc()
    err, major, minor = nvrtc.nvrtcVersion()
    _check(nvrtc, err, "nvrtcVersion")
    return int(major), int(minor)


def cache_dir():
    """The disk cache's directory, or None when it is switched off."""
    d = os.environ.get("TENFERRO_CUDA_CACHE")
    if d is not None:
        return d or None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"),
                                                             ".cache")
    return os.path.join(base, "tenferro", "cuda")


def cache_info():
    """Counts since the process started: kernels compiled, memory and disk hits."""
    with _lock:
        return dict(_stats, in_memory=len(_memory))


def compile_cubin(source, name, arch, options=()):
    """The CUBIN (bytes) of CUDA C ``source`` for ``arch`` (``"sm_90"``), from the
    cache when this source, options, architecture and NVRTC version were compiled
    before.  ``name`` names the program in NVRTC's messages.  RuntimeError with NVRTC's
    log when the source does not compile."""
    if not isinstance(arch, str) or not _ARCH.match(arch):
        raise ValueError("tenferro.devices.cuda.compile_cubin: arch must look like "
                         "'sm_90', got %r" % (arch,))
    opts = ("--gpu-architecture=" + arch, "-std=c++17") + tuple(options)
    key = hashlib.sha256(repr((source, opts, version())).encode()).hexdigest()
    with _lock:
        hit = _memory.get(key)
        if hit is not None:
            _stats["memory_hits"] += 1
            return hit
    d = cache_dir()
    path = os.path.join(d, key + ".cubin") if d else None
    cubin = _read(path) if path else None
    if cubin is not None:
        counter = "disk_hits"
    else:
        cubin = _compile(source, name, opts)
        counter = "compiled"
        if path:
            _write(path, cubin)
    with _lock:
        _stats[counter] += 1
        _memory[key] = cubin
    return cubin


def _compile(source, name, opts):
    nvrtc = _nvrtc()
    err, prog = nvrtc.nvrtcCreateProgram(source.encode(), name.encode(), 0, [], [])
    _check(nvrtc, err, "nvrtcCreateProgram")
    try:
        enc = [o.encode() for o in opts]
        err, = nvrtc.nvrtcCompileProgram(prog, len(enc), enc)
        if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            raise RuntimeError("tenferro.devices.cuda: NVRTC could not compile %s (%s):\n%s"
                               % (name, " ".join(opts), _log(nvrtc, prog)))
        err, size = nvrtc.nvrtcGetCUBINSize(prog)
        _check(nvrtc, err, "nvrtcGetCUBINSize")
        buf = b" " * size
        err, = nvrtc.nvrtcGetCUBIN(prog, buf)
        _check(nvrtc, err, "nvrtcGetCUBIN")
        return buf
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


def _log(nvrtc, prog):
    err, size = nvrtc.nvrtcGetProgramLogSize(prog)
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS or size <= 1:
        return "(no log)"
    buf = b" " * size
    nvrtc.nvrtcGetProgramLog(prog, buf)
    return buf.rstrip(b"\0 ").decode(errors="replace")


def _check(nvrtc, err, what):
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        raise RuntimeError("tenferro.devices.cuda: %s failed: %s"
                           % (what, getattr(err, "name", err)))


def _read(path):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    return data if data.startswith(b"\x7fELF") else None   # a CUBIN is an ELF file


def _write(path, data):
    """Write atomically; a cache that cannot be written is only a slower cache."""
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError:
        pass
