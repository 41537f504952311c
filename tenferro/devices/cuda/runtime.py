"""Finding NVIDIA GPUs without touching a kernel: ``cudaGetDeviceCount()`` through
cuda-python's runtime bindings, once per process.

On a machine without the CUDA driver the call returns an error code (it does not
hang, as creating a kernel object there can); that code, or the missing package, is
the reason :func:`probe` gives, so ``tenferro.device("cuda")`` can say why there is
no device instead of "unknown device type".
"""
import threading

_lock = threading.Lock()
_probed = None   # (count, reason) once probed


def probe():
    """``(count, reason)``: how many CUDA devices the runtime sees, and, when none,
    why (the package missing, or the runtime's error code)."""
    global _probed
    with _lock:
        if _probed is None:
            _probed = _probe()
        return _probed


def _probe():
    try:
        from cuda.bindings import runtime
    except ImportError as e:
        return 0, ("cuda-python is not installed (pip install 'tenferro[cuda]'): %s" % e)
    try:
        err, n = runtime.cudaGetDeviceCount()
    except Exception as e:   # a broken installation must not stop tenferro
        return 0, "cudaGetDeviceCount() failed: %s: %s" % (type(e).__name__, e)
    if err != runtime.cudaError_t.cudaSuccess:
        return 0, ("no usable CUDA driver or device: cudaGetDeviceCount() returned %s"
                   % getattr(err, "name", err))
    if not n:
        return 0, "the CUDA runtime found no device"
    return int(n), None
