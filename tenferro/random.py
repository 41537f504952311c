"""Seeded random tensors.

:class:`Generator` draws with NumPy's PCG64 bit generator (the field's standard,
reproducible across platforms) on the host and places the result on the requested
device, so the same seed gives the same numbers on every device.
"""
import numpy as np

from . import _dtypes
from ._ops.creation import _default_float, _device, asarray

__all__ = ["Generator", "default_rng", "seed", "get_state", "set_state", "normal",
           "standard_normal", "uniform",
           "integers", "random"]


def _float_dtype(op, dtype, device):
    d = _dtypes.dtype(dtype) if dtype is not None else _default_float(device)
    if d.kind not in "fc":
        raise TypeError("tenferro.random.%s: expected a float or complex dtype, got %s" % (op, d))
    return d


class Generator:
    """A seeded source of random tensors (``tenferro.random.default_rng(seed)``)."""

    def __init__(self, seed=None):
        self._rng = np.random.Generator(np.random.PCG64(seed))

    def __repr__(self):
        return "Generator(PCG64)"

    @property
    def bit_generator(self):
        return self._rng.bit_generator

    def normal(self, loc=0.0, scale=1.0, size=None, dtype=None, device=None):
        """Normal samples.  For complex dtypes, circular complex normals with
        ``E|z - loc|^2 = scale^2`` (real and imaginary parts each of variance scale^2/2)."""
        d = _float_dtype("normal", dtype, device)
        if d.kind == "c":
            re = self._rng.standard_normal(size)
            im = self._rng.standard_normal(size)
            z = (re + 1j * im) * (np.sqrt(0.5) * scale) + loc
            return asarray(np.asarray(z, dtype=d), device=device)
        return asarray(np.asarray(self._rng.normal(loc, scale, size), dtype=d), device=device)

    def standard_normal(self, size=None, dtype=None, device=None):
        return self.normal(0.0, 1.0, size, dtype, device)

    def uniform(self, low=0.0, high=1.0, size=None, dtype=None, device=None):
        """Uniform samples in [low, high)."""
        d = _float_dtype("uniform", dtype, device)
        if d.kind == "c":
            z = self._rng.uniform(low, high, size) + 1j * self._rng.uniform(low, high, size)
            return asarray(np.asarray(z, dtype=d), device=device)
        return asarray(np.asarray(self._rng.uniform(low, high, size), dtype=d), device=device)

    def random(self, size=None, dtype=None, device=None):
        return self.uniform(0.0, 1.0, size, dtype, device)

    def integers(self, low, high=None, size=None, dtype=None, device=None, endpoint=False):
        """Random integers in [low, high) (or [0, low) with one bound), as NumPy's."""
        d = _dtypes.dtype(dtype) if dtype is not None \
            else _device(device).driver.default_dtypes["i"]
        if d.kind not in "iu":
            raise TypeError("tenferro.random.integers: expected an integer dtype, got %s" % d)
        a = self._rng.integers(low, high, size, dtype=d, endpoint=endpoint)
        return asarray(np.asarray(a), device=device)

    def permutation(self, n, device=None):
        return asarray(self._rng.permutation(n), device=device)

    def choice(self, a, size=None, replace=True, device=None):
        return asarray(np.asarray(self._rng.choice(a, size, replace=replace)), device=device)


def default_rng(seed=None):
    return Generator(seed)


_global = Generator(0)


def seed(s=None):
    """Reseed the module-level generator used by the functions below."""
    global _global
    _global = Generator(s)


def normal(loc=0.0, scale=1.0, size=None, dtype=None, device=None):
    return _global.normal(loc, scale, size, dtype, device)


def standard_normal(size=None, dtype=None, device=None):
    return _global.standard_normal(size, dtype, device)


def uniform(low=0.0, high=1.0, size=None, dtype=None, device=None):
    return _global.uniform(low, high, size, dtype, device)


def random(size=None, dtype=None, device=None):
    return _global.random(size, dtype, device)


def integers(low, high=None, size=None, dtype=None, device=None):
    return _global.integers(low, high, size, dtype, device)


def get_state():
    """The state of the global generator (a dict; restore it with :func:`set_state`)."""
    return _global.bit_generator.state


def set_state(state):
    """Restore the global generator to a state from :func:`get_state`."""
    _global.bit_generator.state = state
