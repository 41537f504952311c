"""The versions ``tenferro.show_config()`` lists for the CUDA driver: the driver and
runtime, NVRTC, cuda-python, nvmath-python and the cuBLAS/cuSOLVER libraries it loads.

A library's own answer (``cublasGetProperty``, ``cusolverGetProperty``, which need the
CUDA driver) is preferred; without it, the version of the wheel that installs it.
Nothing here raises: what cannot be found reads ``"not found: <why>"``.
"""
import functools
from importlib import metadata

# library -> (the nvmath binding module, the wheels that ship it)
_LIBRARIES = {"cublas": ("cublas", ("nvidia-cublas", "nvidia-cublas-cu12")),
              "cusolver": ("cusolver", ("nvidia-cusolver", "nvidia-cusolver-cu12"))}


def cuda_version(v):
    """CUDA's integer version (12040) as text ("12.4")."""
    return "%d.%d" % (v // 1000, v % 1000 // 10)


def _wheel(names):
    for n in names:
        try:
            return "%s (wheel %s)" % (metadata.version(n), n)
        except metadata.PackageNotFoundError:
            continue
    return None


def _library(binding, wheels):
    try:
        import importlib
        mod = importlib.import_module("nvmath.bindings." + binding)
        return "%d.%d.%d" % tuple(mod.get_property(k) for k in range(3))
    except Exception as e:   # no driver, no nvmath-python, no library
        return _wheel(wheels) or "not found: %s" % (str(e).splitlines() or [type(e).__name__])[0]


def _runtime():
    try:
        from cuda.bindings import runtime
        err, v = runtime.cudaRuntimeGetVersion()
        return cuda_version(v) if int(err) == 0 else "not found: %s" % getattr(err, "name", err)
    except Exception as e:
        return "not found: %s" % e


@functools.lru_cache(maxsize=None)
def versions():
    """The CUDA software's versions, as a dict (asked once per process)."""
    from . import nvrtc
    try:
        nv = "%d.%d" % nvrtc.version()
    except RuntimeError as e:
        nv = "not found: %s" % e
    out = {"cuda_runtime": _runtime(), "nvrtc_version": nv,
           "cuda_python": _wheel(("cuda-python", "cuda-bindings")) or "not found",
           "nvmath_python": _wheel(("nvmath-python",)) or "not found"}
    for name, (binding, wheels) in _LIBRARIES.items():
        out[name] = _library(binding, wheels)
    return out
