"""The CUDA driver: NVIDIA GPUs through cuda-python, kernels compiled by NVRTC.

Install with ``pip install 'tenferro[cuda]'``.  The driver is being built (issue 18).
What exists:

* discovery (:mod:`.runtime`): ``cudaGetDeviceCount()`` once per process, before any
  kernel is touched; without the package, the driver or a GPU,
  ``tenferro.device("cuda")`` raises RuntimeError saying which, and
  ``tenferro.devices.available()`` leaves ``"cuda"`` out;
* the compiler (:mod:`.nvrtc`): CUDA C to CUBIN for a given ``sm_XX`` with NVRTC (no
  GPU needed), cached in memory and on disk under a key of source, options,
  architecture and NVRTC version.

Tensors, kernels and the cuBLAS/cuSOLVER registrations come next.  Until they land the
driver offers no device even where the runtime finds GPUs (the reason says so), so a
``"cuda"`` tensor is never half supported; every op reports
:class:`~tenferro.UnsupportedOperation` here (``supports`` is False throughout).
"""
from ..base import Driver as _Base
from . import nvrtc, runtime  # noqa: F401

__all__ = ["Driver"]


class Driver(_Base):
    """NVIDIA GPUs (in construction: discovery and the NVRTC compiler so far)."""

    name = "cuda"
    implementations = {}

    def device_count(self):
        return 0

    def unavailable_reason(self):
        n, reason = runtime.probe()
        if n:
            return ("the CUDA runtime sees %d GPU(s), but tenferro's CUDA driver runs no "
                    "kernels yet (its tensors and kernels are being built)" % n)
        return reason
