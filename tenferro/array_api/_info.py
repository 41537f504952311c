"""The Array API inspection utilities: ``__array_namespace_info__()``."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .. import _dtypes, devices as _devices
from ._data_types import KINDS

if TYPE_CHECKING:
    from typing import Any

    import numpy as np

    from .._tensor import DeviceLike
    from ..devices import Device
    from ._data_types import DTypeKind

# kind -> the names of tenferro's dtypes of that kind (isdtype's table, applied)
_KIND_DTYPES = {kind: tuple(d.name for d in _dtypes.DTYPES if d.kind in chars)
                for kind, chars in KINDS.items()}


class Info:
    """What this namespace supports: capabilities, devices and dtypes (the standard's
    inspection object, returned by :func:`__array_namespace_info__`)."""
    __module__ = "tenferro.array_api"

    def capabilities(self) -> dict[str, bool | int]:
        """The optional features: boolean indexing and data-dependent shapes (both
        supported) and the maximum number of dimensions (64)."""
        # boolean-mask indexing and nonzero/unique_* work (their shapes depend on data);
        # max dimensions: NumPy's limit on the host arrays that hold CPU data
        return {"boolean indexing": True, "data-dependent shapes": True,
                "max dimensions": 64}

    def default_device(self) -> Device:
        """The device creation functions use without ``device=``: the CPU."""
        return _devices.device("cpu")

    def devices(self) -> list[Device]:
        """The devices available in this process (:func:`tenferro.devices.available`)."""
        return [_devices.device(name) for name in _devices.available()]

    def default_dtypes(self, *, device: DeviceLike = None) -> dict[str, np.dtype[Any]]:
        """The dtypes creation functions give on ``device`` (float32 where a device has
        no float64, as on WebGPU)."""
        d = self._driver(device).default_dtypes
        return {"real floating": d["f"], "complex floating": d["c"], "integral": d["i"],
                "indexing": _dtypes.int64}

    def dtypes(self, *, device: DeviceLike = None,
               kind: DTypeKind | None = None) -> dict[str, np.dtype[Any]]:
        """The dtypes tensors on ``device`` can hold, of ``kind`` (all when None)."""
        if kind is None:
            names = ("bool",) + _KIND_DTYPES["numeric"]
        elif isinstance(kind, tuple):
            names = tuple(dict.fromkeys(n for k in kind for n in self._names(k)))
        else:
            names = self._names(kind)
        held = self._driver(device).dtypes
        return {n: _dtypes.dtype(n) for n in names if _dtypes.dtype(n) in held}

    @staticmethod
    def _driver(device: DeviceLike) -> Any:
        return _devices.device("cpu" if device is None else device).driver

    @staticmethod
    def _names(kind: Any) -> tuple[str, ...]:
        if not isinstance(kind, str):   # a dtype
            d = _dtypes.dtype(kind)
            return ("bool" if d == _dtypes.bool_ else d.name,)
        if kind not in _KIND_DTYPES:
            raise ValueError("tenferro.array_api.__array_namespace_info__().dtypes: unknown "
                             "kind %r; expected one of %s" % (kind, ", ".join(_KIND_DTYPES)))
        return _KIND_DTYPES[kind]


def __array_namespace_info__() -> Info:
    """The namespace's inspection object (the standard's ``__array_namespace_info__``).

    Libraries written against the Array API ask it which devices and dtypes tenferro
    offers: ``capabilities()``, ``default_device()``, ``devices()``,
    ``default_dtypes(device=...)`` (float32 and int32 on WebGPU, which has no float64)
    and ``dtypes(device=..., kind=...)``.

    Returns
    -------
    Info
        The inspection object (its methods take no tensors).

    Examples
    --------
    >>> info = tf.array_api.__array_namespace_info__()
    >>> info.default_device()
    device('cpu')
    >>> info.default_dtypes()["real floating"]
    dtype('float64')
    >>> sorted(info.dtypes(kind="real floating"))
    ['float32', 'float64']
    >>> info.capabilities()["data-dependent shapes"]
    True
    """
    return Info()
