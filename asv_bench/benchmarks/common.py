"""Shared helpers for the tenferro benchmarks.

* Seeded, cached inputs: every benchmark asks for its arrays through
  :func:`get_array`, which builds them once per process from a fixed seed, so all
  libraries see the same bits and setup cost is not paid per parameter.
* One thread policy: :func:`set_threads` puts tenferro (its OpenMP kernels and its
  BLAS) and PyTorch on the same number of threads (``N_THREADS``, 2 by default,
  override with ``TENFERRO_BENCH_THREADS``).  NumPy's elementwise ufuncs and
  reductions are single-threaded; its BLAS uses what OpenBLAS/MKL decide, which we
  cap with threadpoolctl when it is installed.
* :func:`torch_or_none` returns the ``torch`` module, or None when it is not
  installed; benchmarks then raise ``NotImplementedError`` in setup, which asv
  records as "skipped" (n/a).
* Devices (``DEVICE_LIBS``): ``tenferro-webgpu`` (tenferro's WebGPU device; on Linux
  through Vulkan unless ``WGPU_BACKEND_TYPE`` says otherwise) and ``torch-cuda``; they skip
  the same way without the device.  :func:`sync` waits for a device's queued work so
  the timed body includes it; :func:`to_numpy` brings any lib's result to the host.
"""
import functools
import os
import sys

import numpy as np

try:
    import tenferro  # noqa: F401
except ImportError:
    # With environment_type "existing" asv benchmarks the interpreter as it is; an
    # in-place build (`python setup.py build_ext --inplace`) lives in the repository
    # root, two levels above this file, which is not on sys.path when asv runs.
    sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
    import tenferro  # noqa: F401

N_THREADS = int(os.environ.get("TENFERRO_BENCH_THREADS", "2"))
SEED = 20240601

LIBS = ["tenferro", "numpy", "torch"]
# "tenferro-cpu" is "tenferro" (its default device) under the name used beside devices
DEVICE_LIBS = ["tenferro-webgpu", "tenferro-cpu", "numpy", "torch", "torch-cuda"]


@functools.lru_cache(maxsize=None)
def torch_or_none():
    """The torch module, or None when PyTorch is not installed."""
    try:
        import torch
    except ImportError:
        return None
    return torch


def _torch(lib):
    """torch for 'torch' / 'torch-cuda'; NotImplementedError when absent."""
    torch = torch_or_none()
    if torch is None:
        raise NotImplementedError("PyTorch is not installed")
    if lib == "torch-cuda" and not torch.cuda.is_available():
        raise NotImplementedError("torch.cuda.is_available() is False")
    return torch


def webgpu_device():
    """tenferro's WebGPU device; NotImplementedError naming why when there is none."""
    dev, why = _webgpu()
    if dev is None:
        raise NotImplementedError("no WebGPU device: %s" % why)
    return dev


@functools.lru_cache(maxsize=None)
def _webgpu():
    # looked up once: devices.available() scans the installed entry points each call,
    # and sync() asks for the device inside timed bodies
    if sys.platform.startswith("linux"):  # lavapipe is found through Vulkan only
        os.environ.setdefault("WGPU_BACKEND_TYPE", "Vulkan")  # before wgpu's import
    import tenferro as tf

    names = [d for d in tf.devices.available() if d.partition(":")[0] == "webgpu"]
    if not names:
        return None, tf.devices.get_driver("webgpu").unavailable_reason()
    return tf.device(names[0]), None


def set_threads(n=N_THREADS):
    """Give tenferro, PyTorch and (when possible) NumPy's BLAS ``n`` threads."""
    import tenferro as tf

    tf.set_num_threads(n)
    torch = torch_or_none()
    if torch is not None:
        torch.set_num_threads(n)
    _limit_numpy_blas(n)


@functools.lru_cache(maxsize=None)
def _limit_numpy_blas(n):
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return None
    # Keep the limiter alive for the process lifetime.
    return threadpool_limits(limits=n, user_api="blas")


@functools.lru_cache(maxsize=None)
def get_array(shape, dtype="float64", kind="normal", seed=SEED):
    """A cached, seeded NumPy array (C-contiguous); do not modify it in place."""
    rng = np.random.default_rng(seed)
    shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    dt = np.dtype(dtype)
    if kind == "normal":
        a = rng.standard_normal(shape)
    elif kind == "uniform":  # (0.5, 1.5): safe for log, division, etc.
        a = rng.uniform(0.5, 1.5, shape)
    elif kind == "int":
        a = rng.integers(-100, 100, shape)
    else:
        raise ValueError(kind)
    a = np.ascontiguousarray(a.astype(dt, copy=False))
    a.setflags(write=False)
    return a


def convert(a, lib):
    """Wrap the NumPy array ``a`` for ``lib`` (one of ``LIBS`` or ``DEVICE_LIBS``)."""
    if lib == "numpy":
        return a
    if lib in ("tenferro", "tenferro-cpu"):
        import tenferro as tf

        return tf.asarray(np.array(a))  # writable private copy, zero-copy wrap
    if lib == "tenferro-webgpu":
        import tenferro as tf

        return tf.asarray(a, device=webgpu_device())
    if lib in ("torch", "torch-cuda"):
        t = _torch(lib).from_numpy(np.array(a))
        return t.cuda() if lib == "torch-cuda" else t
    raise ValueError(lib)


def module(lib):
    """The NumPy-like namespace of ``lib`` (raises NotImplementedError if absent)."""
    if lib == "numpy":
        return np
    if lib in ("tenferro", "tenferro-cpu", "tenferro-webgpu"):
        import tenferro as tf

        if lib == "tenferro-webgpu":
            webgpu_device()
        return tf
    if lib in ("torch", "torch-cuda"):
        return _torch(lib)
    raise ValueError(lib)


def axis_kw(lib, axis):
    """The reduction-axis keyword of ``lib`` (torch spells it ``dim``)."""
    if axis is None:
        return {}
    return {"dim": axis} if lib.startswith("torch") else {"axis": axis}


def to_numpy(r, lib):
    """``lib``'s result ``r`` as a NumPy array on the host (for checks)."""
    if lib.startswith("torch"):
        return r.cpu().numpy()
    if lib.startswith("tenferro"):
        return r.to("cpu").numpy()
    return np.asarray(r)


def empty_like(x, lib):
    """A preallocated output for ``out=``."""
    if lib == "numpy":
        return np.empty_like(x)
    return module(lib).empty_like(x)


def sync(r, lib):
    """Wait until the device work behind ``r`` is finished; returns ``r``.

    tenferro and PyTorch on the CPU are eager and synchronous.  The WebGPU driver
    queues its dispatches (the device's ``synchronize`` submits them and waits) and
    CUDA runs asynchronously (``torch.cuda.synchronize``); so the timed body
    includes the device work.
    """
    if lib == "tenferro-webgpu":
        webgpu_device().synchronize()
    elif lib == "torch-cuda":
        _torch(lib).cuda.synchronize()
    return r


def backward_runner(t, loss):
    """A zero-argument callable timing one reverse pass: clear ``t.grad``, backpropagate
    ``loss()`` (tenferro or PyTorch alike), return the gradient; ``run.loss`` and
    ``run.tensor`` keep what it differentiates (for checks against other libraries)."""
    def run():
        t.grad = None
        loss().backward()
        return t.grad
    run.loss = loss
    run.tensor = t
    return run


class FactoryBench:
    """Base of the asv classes whose cases come from a ``make(lib, case)`` factory
    returning a zero-argument callable (subclasses set ``params``, ``make`` as a
    staticmethod, and a ``time_*`` method calling ``self.fn()``)."""

    param_names = ["lib", "case"]
    timeout = 300
    make = None

    def setup(self, lib, case):
        set_threads()
        self.lib = lib
        self.fn = type(self).make(lib, case)
        self.fn()  # warm-up (plan caches, workspace queries, allocator, thread team)
