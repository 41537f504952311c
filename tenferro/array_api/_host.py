"""The namespace's way to a function tenferro does not have yet: NumPy, on host data.

``pick(name)`` is tenferro's own op when ``tenferro._ops`` has it (``nextafter`` is
still missing), otherwise a function that copies the tensors to host, calls NumPy's
function of that name and returns tensors on the input's device.  That detour is explicit and
documented (docs/array_api.md): it has no derivative, so it refuses tensors that require
grad rather than silently cutting a gradient.
"""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import numpy as np

from .. import _ops
from .._tensor import Tensor

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from .._tensor import DeviceLike


def _to_host(name: str, a: Any) -> Any:
    if isinstance(a, Tensor):
        if a.requires_grad:
            raise TypeError("tenferro.array_api.%s: computed through NumPy on host data "
                            "(tenferro has no %s yet), which would cut the gradient of a "
                            "tensor that requires grad" % (name, name))
        return _ops.to_device(a, "cpu").numpy()
    if isinstance(a, (list, tuple)):
        return type(a)(_to_host(name, v) for v in a)
    return a


def _device_of(args: Any) -> DeviceLike:
    for a in args:
        if isinstance(a, Tensor):
            return a.device
        if isinstance(a, (list, tuple)):
            d = _device_of(a)
            if d is not None:
                return d
    return None


def _from_host(out: Any, device: DeviceLike) -> Tensor:
    return _ops.asarray(np.asarray(out), device=device)


def via_numpy(name: str) -> Callable[..., Tensor]:
    """``name`` computed by NumPy's function of that name on host copies."""
    fn = getattr(np, name)

    @functools.wraps(fn)
    def host(*args: Any, **kwargs: Any) -> Tensor:
        dev = _device_of(args)
        out = fn(*_to_host(name, args), **{k: _to_host(name, v) for k, v in kwargs.items()})
        return _from_host(out, dev)

    host.__name__ = host.__qualname__ = name
    host.__doc__ = ("tenferro.array_api.%s: NumPy's %s on host copies (tenferro has no "
                    "native %s yet; not differentiable)." % (name, fn.__name__, name))
    return host


def pick(name: str) -> Callable[..., Tensor]:
    """tenferro's op ``name`` when it exists, otherwise NumPy's through the host."""
    return getattr(_ops, name, None) or via_numpy(name)
