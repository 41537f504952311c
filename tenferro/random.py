"""Seeded random tensors.

:class:`Generator` draws with NumPy's PCG64 bit generator (the field's standard,
reproducible across platforms) on the host and places the result on the requested
device, so the same seed gives the same numbers on every device.

``numpy.random`` (about 10 ms to import) is imported by the first generator made:
the module-level functions' generator (seed 0) is made on their first call.
"""
from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

import numpy as np

from . import _dtypes
from ._ops.creation import _default_float, _device, asarray

if TYPE_CHECKING:
    from ._tensor import ArrayLike, DeviceLike, DTypeLike, ShapeLike, Tensor

    SizeLike = ShapeLike | None    # NumPy's size=: an int, a shape, or None for one value

__all__ = ["Generator", "default_rng", "seed", "get_state", "set_state", "normal",
           "standard_normal", "uniform",
           "integers", "random"]


def _float_dtype(op: str, dtype: DTypeLike, device: DeviceLike) -> np.dtype[Any]:
    d = _dtypes.dtype(dtype) if dtype is not None else _default_float(device)
    if d.kind not in "fc":
        raise TypeError("tenferro.random.%s: expected a float or complex dtype, got %s" % (op, d))
    return d


class Generator:
    """A seeded source of random tensors (``tenferro.random.default_rng(seed)``)."""

    def __init__(self, seed: Any = None) -> None:
        """``seed``: what ``numpy.random.PCG64`` accepts (an int, a SeedSequence, None)."""
        import numpy.random

        self._rng = numpy.random.Generator(numpy.random.PCG64(seed))

    def __repr__(self) -> str:
        return "Generator(PCG64)"

    @property
    def bit_generator(self) -> Any:
        return self._rng.bit_generator

    def normal(self, loc: complex = 0.0, scale: float = 1.0, size: SizeLike = None,
               dtype: DTypeLike = None, device: DeviceLike = None) -> Tensor:
        """Normal samples.  For complex dtypes, circular complex normals with
        ``E|z - loc|^2 = scale^2`` (real and imaginary parts each of variance scale^2/2)."""
        d = _float_dtype("normal", dtype, device)
        if d.kind == "c":
            re = self._rng.standard_normal(size)
            im = self._rng.standard_normal(size)
            z = (re + 1j * im) * (np.sqrt(0.5) * scale) + loc
            return asarray(np.asarray(z, dtype=d), device=device)
        return asarray(np.asarray(self._rng.normal(loc, scale, size), dtype=d), device=device)

    def standard_normal(self, size: SizeLike = None, dtype: DTypeLike = None,
                        device: DeviceLike = None) -> Tensor:
        return self.normal(0.0, 1.0, size, dtype, device)

    def uniform(self, low: float = 0.0, high: float = 1.0, size: SizeLike = None,
                dtype: DTypeLike = None, device: DeviceLike = None) -> Tensor:
        """Uniform samples in [low, high)."""
        d = _float_dtype("uniform", dtype, device)
        if d.kind == "c":
            z = self._rng.uniform(low, high, size) + 1j * self._rng.uniform(low, high, size)
            return asarray(np.asarray(z, dtype=d), device=device)
        return asarray(np.asarray(self._rng.uniform(low, high, size), dtype=d), device=device)

    def random(self, size: SizeLike = None, dtype: DTypeLike = None,
               device: DeviceLike = None) -> Tensor:
        return self.uniform(0.0, 1.0, size, dtype, device)

    def integers(self, low: int, high: int | None = None, size: SizeLike = None,
                 dtype: DTypeLike = None, device: DeviceLike = None,
                 endpoint: bool = False) -> Tensor:
        """Random integers in [low, high) (or [0, low) with one bound), as NumPy's."""
        d = _dtypes.dtype(dtype) if dtype is not None \
            else _device(device).driver.default_dtypes["i"]
        if d.kind not in "iu":
            raise TypeError("tenferro.random.integers: expected an integer dtype, got %s" % d)
        a = self._rng.integers(low, high, size, dtype=d, endpoint=endpoint)
        return asarray(np.asarray(a), device=device)

    def permutation(self, n: int | ArrayLike, device: DeviceLike = None) -> Tensor:
        return asarray(self._rng.permutation(n), device=device)

    def choice(self, a: int | ArrayLike, size: SizeLike = None, replace: bool = True,
               device: DeviceLike = None) -> Tensor:
        return asarray(np.asarray(self._rng.choice(a, size, replace=replace)), device=device)


def default_rng(seed: Any = None) -> Generator:
    return Generator(seed)


class _Unmade:
    """Stands for the module-level generator until its first use, which makes it
    (importing numpy.random) and puts it in ``_global``: later calls find it there."""

    def __getattr__(self, name: str) -> Any:
        global _global
        with _lock:
            if isinstance(_global, _Unmade):
                _global = Generator(0)
        return getattr(_global, name)


_lock = threading.Lock()   # making or replacing the module-level generator
_global: Generator = _Unmade()   # type: ignore[assignment]  (a Generator on first use)


def seed(s: Any = None) -> None:
    """Reseed the module-level generator used by the functions below."""
    global _global
    with _lock:
        _global = Generator(s)


def normal(loc: complex = 0.0, scale: float = 1.0, size: SizeLike = None,
           dtype: DTypeLike = None, device: DeviceLike = None) -> Tensor:
    return _global.normal(loc, scale, size, dtype, device)


def standard_normal(size: SizeLike = None, dtype: DTypeLike = None,
                    device: DeviceLike = None) -> Tensor:
    return _global.standard_normal(size, dtype, device)


def uniform(low: float = 0.0, high: float = 1.0, size: SizeLike = None,
            dtype: DTypeLike = None, device: DeviceLike = None) -> Tensor:
    return _global.uniform(low, high, size, dtype, device)


def random(size: SizeLike = None, dtype: DTypeLike = None,
           device: DeviceLike = None) -> Tensor:
    return _global.random(size, dtype, device)


def integers(low: int, high: int | None = None, size: SizeLike = None,
             dtype: DTypeLike = None, device: DeviceLike = None) -> Tensor:
    return _global.integers(low, high, size, dtype, device)


def get_state() -> dict[str, Any]:
    """The state of the global generator (a dict; restore it with :func:`set_state`)."""
    return _global.bit_generator.state


def set_state(state: dict[str, Any]) -> None:
    """Restore the global generator to a state from :func:`get_state`."""
    _global.bit_generator.state = state
