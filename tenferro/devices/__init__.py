"""Device drivers.

A device is named ``"<type>"`` or ``"<type>:<index>"`` (``"cpu"``, ``"cuda:0"``,
``"webgpu"``).  The driver for ``<type>`` is found, in this order, as

1. a module ``tenferro.devices.<type>`` defining ``Driver`` (tenferro's own drivers:
   one package each, owning all of its device code), or
2. an entry point ``<type>`` in the group ``tenferro.devices`` (third-party drivers),

so adding a device touches no existing file.  See :class:`~tenferro.devices.base.Driver`
for the interface a driver implements.
"""
from __future__ import annotations

import importlib
import pkgutil
import threading

from .. import _caches
from .base import Device, Driver, DeviceArray  # noqa: F401

_drivers = {}
_devices = {}
_lock = threading.RLock()
_BUILTIN_SKIP = {"base"}


def _load_driver(kind):
    mod = None
    if kind.isidentifier() and kind not in _BUILTIN_SKIP:
        try:
            mod = importlib.import_module("tenferro.devices." + kind)
        except ModuleNotFoundError as e:
            if e.name != "tenferro.devices." + kind:
                raise
    if mod is not None:
        return mod.Driver()
    for ep in _entry_points():
        if ep.name == kind:
            return ep.load()()
    return None


def _entry_points():
    """Third-party drivers' entry points (importlib.metadata, about 10 ms to import, is
    imported here, on the first look-up of a type tenferro does not ship)."""
    import importlib.metadata

    return importlib.metadata.entry_points(group="tenferro.devices")


def get_driver(kind: str) -> Driver:
    """The driver object for a device type, loaded on first use.

    Found as the module ``tenferro.devices.<kind>`` (tenferro's own drivers) or an
    entry point ``<kind>`` in the group ``tenferro.devices`` (third-party drivers).
    One driver serves every device of its type.

    Parameters
    ----------
    kind : str
        The device type: ``"cpu"``, ``"cuda"``, ``"webgpu"`` or a third-party one.

    Returns
    -------
    Driver
        The driver.

    Raises
    ------
    ValueError
        If no driver of that type exists (the message lists the known types).

    See Also
    --------
    device, known_device_types

    Examples
    --------
    >>> drv = tf.devices.get_driver("cpu")
    >>> drv.name, drv.supports("add", np.dtype("float64"))
    ('cpu', True)
    """
    with _lock:
        drv = _drivers.get(kind)
        if drv is None:
            drv = _load_driver(kind)
            if drv is None:
                raise ValueError("tenferro.device: unknown device type %r; known: %s"
                                 % (kind, ", ".join(known_device_types())))
            _drivers[kind] = drv
        return drv


def known_device_types() -> list[str]:
    """The device types tenferro has a driver for (not all need be present on this machine).

    tenferro's own (``cpu``, ``cuda``, ``webgpu``) and the third-party drivers
    installed as entry points.  :func:`available` lists the devices actually usable.

    Returns
    -------
    list of str
        The type names, sorted.

    See Also
    --------
    available, get_driver

    Examples
    --------
    >>> "cpu" in tf.devices.known_device_types()
    True
    """
    names = {m.name for m in pkgutil.iter_modules(__path__)
             if not m.name.startswith("_") and m.name not in _BUILTIN_SKIP}
    try:
        names.update(ep.name for ep in _entry_points())
    except Exception:  # broken metadata must not stop tenferro
        pass
    return sorted(names)


def device(spec: str | Device = "cpu") -> Device:
    """The :class:`Device` named by ``spec`` (``torch.device``).

    A name is ``"<type>"`` or ``"<type>:<index>"``: ``"cpu"``, ``"cuda:1"``,
    ``"webgpu"``.  Devices are unique objects (``device("cpu") is device("cpu")``);
    tensors are created on one with ``device=`` and moved with ``Tensor.to``.

    Parameters
    ----------
    spec : str or Device, default "cpu"
        The name (a Device is returned as is).

    Returns
    -------
    Device
        The device.

    Raises
    ------
    ValueError
        If the type is unknown or the index malformed.
    RuntimeError
        If the driver is known but this machine has no such device (the message says
        why, e.g. a missing runtime).
    TypeError
        If ``spec`` is neither a string nor a Device.

    See Also
    --------
    available, Device

    Examples
    --------
    >>> tf.device("cpu")
    device('cpu')
    >>> tf.ones(2, device="cpu").device is tf.device("cpu")
    True
    """
    if isinstance(spec, Device):
        return spec
    try:
        return _devices[spec]
    except (KeyError, TypeError):
        pass
    if not isinstance(spec, str):
        raise TypeError("tenferro.device: expected a device name like 'cpu' or 'cuda:0', "
                        "got %r" % (spec,))
    kind, _, idx = spec.partition(":")
    if idx and not idx.isdigit():
        raise ValueError("tenferro.device: bad device index in %r; expected e.g. 'cuda:0'"
                         % spec)
    index = int(idx) if idx else 0
    drv = get_driver(kind)
    count = drv.device_count()
    if index >= count:
        why = drv.unavailable_reason() if count == 0 else "it has %d device(s)" % count
        raise RuntimeError("tenferro.device: %r is not available on this machine: %s"
                           % (spec, why))
    with _lock:
        dev = _devices.get(spec)
        if dev is None:
            dev = Device(drv, kind, index)
            _devices[spec] = dev
            _devices[str(dev)] = dev
    return dev


def available() -> list[str]:
    """The names of the devices usable on this machine.

    Every device of every known type whose driver loads and finds it, e.g. ``['cpu',
    'cuda:0', 'webgpu:0']``.  Looking may load the device runtimes (and print their
    start-up messages).

    Returns
    -------
    list of str
        Device names, for :func:`device`.

    See Also
    --------
    device, known_device_types

    Examples
    --------
    >>> "cpu" in tf.devices.available()
    True
    """
    out = []
    for kind in known_device_types():
        try:
            drv = get_driver(kind)
            n = drv.device_count()
        except Exception:
            continue
        out.extend(str(Device(drv, kind, i)) for i in range(n))
    return out


def _fast_entries():
    """The eager fast paths' per-device entries (``Device._fast``: the kernel and
    output dtype of an op on given dtypes), for ``tenferro.cache_stats()``."""
    n = sum(len(d._fast) for d in set(_devices.values()))
    return _caches.CacheStats(None, None, n, None, "entries")


def _clear_fast():
    for d in set(_devices.values()):
        d._fast.clear()


_caches.register("fast-path entries", _fast_entries, _clear_fast)

__all__ = ["Device", "Driver", "DeviceArray", "device", "available", "get_driver",
           "known_device_types"]
