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


def _check_size(op: str, size: SizeLike) -> None:
    """NumPy's check of ``size=``, with the function named in the message."""
    shape = () if size is None else (size,) if isinstance(size, (int, np.integer)) else size
    if any(int(n) < 0 for n in shape):
        raise ValueError("tenferro.random.%s: negative dimensions are not allowed, got size %r"
                         % (op, size))


class Generator:
    """A seeded source of random tensors (numpy.random.Generator's methods).

    Draws with NumPy's PCG64 bit generator on the host and places the result on the
    requested device, so a seed gives the same numbers on every device and platform.
    Made by :func:`default_rng`; its methods are those of the module-level functions
    (:func:`normal`, :func:`uniform`, ...) plus ``permutation`` and ``choice``.

    Parameters
    ----------
    seed : int, sequence of int, numpy.random.SeedSequence or None, optional
        What ``numpy.random.PCG64`` accepts; None draws fresh entropy from the OS.

    Raises
    ------
    TypeError
        If ``seed`` is not an int, a sequence of ints, a SeedSequence or None.
    ValueError
        If ``seed`` is negative.

    Notes
    -----
    Differentiable: no: samples are constants (no tensor input).  For a
    reparameterised sample write ``loc + scale * rng.standard_normal(shape)`` with
    tensor ``loc`` and ``scale``: its gradient in them is exact.

    See Also
    --------
    numpy.random.Generator, default_rng

    Examples
    --------
    >>> rng = tf.random.Generator(0)
    >>> rng.integers(0, 10, size=5)
    tensor([8, 6, 5, 2, 3])
    """

    def __init__(self, seed: Any = None) -> None:
        import numpy.random

        self._rng = numpy.random.Generator(numpy.random.PCG64(seed))

    def __repr__(self) -> str:
        return "Generator(PCG64)"

    @property
    def bit_generator(self) -> Any:
        """The underlying ``numpy.random.PCG64`` (its ``state`` can be saved and set)."""
        return self._rng.bit_generator

    def normal(self, loc: complex = 0.0, scale: float = 1.0, size: SizeLike = None,
               dtype: DTypeLike = None, device: DeviceLike = None) -> Tensor:
        d = _float_dtype("normal", dtype, device)
        _check_size("normal", size)
        if np.any(np.asarray(scale) < 0):   # (scale may be an array, as NumPy's)
            raise ValueError("tenferro.random.normal: scale must be >= 0, got %r" % (scale,))
        if isinstance(loc, complex) and d.kind != "c":
            raise TypeError("tenferro.random.normal: a complex loc needs a complex dtype, got %s"
                            % d)
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
        d = _float_dtype("uniform", dtype, device)
        _check_size("uniform", size)
        if np.any(np.asarray(high) < np.asarray(low)):   # (arrays, as NumPy's)
            raise ValueError("tenferro.random.uniform: high must be >= low, got low=%r, high=%r"
                             % (low, high))
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
        d = _dtypes.dtype(dtype) if dtype is not None \
            else _device(device).driver.default_dtypes["i"]
        if d.kind not in "iu":
            raise TypeError("tenferro.random.integers: expected an integer dtype, got %s" % d)
        _check_size("integers", size)
        a = self._rng.integers(low, high, size, dtype=d, endpoint=endpoint)
        return asarray(np.asarray(a), device=device)

    def permutation(self, n: int | ArrayLike, device: DeviceLike = None) -> Tensor:
        """A random permutation of ``range(n)``, or of an array's first axis (NumPy's)."""
        return asarray(self._rng.permutation(n), device=device)

    def choice(self, a: int | ArrayLike, size: SizeLike = None, replace: bool = True,
               device: DeviceLike = None) -> Tensor:
        """A random sample from ``range(a)`` or from an array's elements (NumPy's)."""
        return asarray(np.asarray(self._rng.choice(a, size, replace=replace)), device=device)


_SAMPLER = """{summary}

{extended}  {which}

Parameters
----------
{params}
dtype : dtype, optional
    {dtype}
device : Device or str, optional
    Where the result is placed (default: the default device); the numbers are the
    same on every device.

Returns
-------
Tensor
    Of shape ``size`` (a 0-d tensor for None).

Raises
------
{raises}

Notes
-----
Differentiable: no: samples are constants (no tensor input).{reparam}

See Also
--------
numpy.random.Generator.{name}

Examples
--------
{example}
"""
_SIZE = "size : int or tuple of int, optional\n    The output shape (None: one value)."
_FLOAT = ("The result's float or complex dtype (default: the device's default float).",
          "TypeError\n    If ``dtype`` is not a float or complex dtype.")
_NEG_SIZE = "\nValueError\n    If ``size`` has a negative entry."
_REPARAM = ("  For a reparameterised sample write ``loc + scale * standard_normal(shape)`` "
            "with tensor ``loc`` and ``scale``: its gradient in them is exact.")
_SAMPLERS = {
    "normal": dict(
        summary="Samples of the normal (Gaussian) distribution.",
        extended="For a complex dtype, circular complex normals with ``E|z - loc|^2 = "
                 "scale^2`` (real and imaginary parts each of variance ``scale^2 / 2``).",
        params="loc : float or complex, default 0.0\n    The mean (complex only with a complex "
               "``dtype``).\nscale : float, default "
               "1.0\n    The standard deviation, >= 0.\n" + _SIZE,
        dtype=_FLOAT[0],
        raises=_FLOAT[1][:-1] + ", or ``loc`` is complex and ``dtype`` is not.\n"
               "ValueError\n    If ``scale`` is negative or ``size`` has a negative entry.",
        reparam=_REPARAM, call="normal(size=3)",
        output="tensor([ 0.1257, -0.1321,  0.6404])"),
    "standard_normal": dict(
        summary="Samples of the standard normal distribution (mean 0, variance 1).",
        extended="``normal(0.0, 1.0, size, dtype, device)``; complex dtypes give circular "
                 "complex normals with ``E|z|^2 = 1``.",
        params=_SIZE, dtype=_FLOAT[0], raises=_FLOAT[1] + _NEG_SIZE, reparam=_REPARAM,
        call="standard_normal(size=3)", output="tensor([ 0.1257, -0.1321,  0.6404])"),
    "uniform": dict(
        summary="Samples of the uniform distribution on ``[low, high)``.",
        extended="For a complex dtype the real and imaginary parts are each uniform.",
        params="low : float, default 0.0\n    The lower bound (included).\nhigh : float, "
               "default 1.0\n    The upper bound (excluded).\n" + _SIZE,
        dtype=_FLOAT[0],
        raises=_FLOAT[1] + "\nValueError\n    If ``high < low`` or ``size`` has a negative entry.",
        reparam="  For a reparameterised sample write ``low + (high - low) * random(shape)``.",
        call="uniform(-1.0, 1.0, size=3)", output="tensor([ 0.2739, -0.4604, -0.9181])"),
    "random": dict(
        summary="Samples of the uniform distribution on ``[0, 1)``.",
        extended="``uniform(0.0, 1.0, size, dtype, device)``.", params=_SIZE,
        dtype=_FLOAT[0], raises=_FLOAT[1] + _NEG_SIZE, reparam="", call="random(3)",
        output="tensor([0.637 , 0.2698, 0.041 ])"),
    "integers": dict(
        summary="Random integers from ``[low, high)``, or ``[0, low)`` with one bound.",
        extended="NumPy's ``Generator.integers``.",
        params="low : int\n    The lowest value (the exclusive upper bound if ``high`` is "
               "None).\nhigh : int, optional\n    The exclusive upper bound.\n" + _SIZE,
        dtype="The result's integer dtype (default: the device's default integer).",
        raises="TypeError\n    If ``dtype`` is not an integer dtype.\nValueError\n    If "
               "``low >= high`` or ``size`` has a negative entry.",
        reparam="", call="integers(0, 10, size=5)", output="tensor([8, 6, 5, 2, 3])"),
}


def _document_samplers() -> None:
    """The samplers' docstrings, from ``_SAMPLER`` and one row each: the Generator
    methods show seeded values, the module functions the shape and dtype."""
    for name, row in _SAMPLERS.items():
        method = getattr(Generator, name)
        method.__doc__ = _SAMPLER.format(
            name=name, which="A method of :class:`Generator`.", **row,
            example=">>> rng = tf.random.default_rng(0)\n>>> %s\n%s" % (
                ("rng.%s" if name == "integers" else "tf.round(rng.%s, 4)") % row["call"],
                row["output"]))
        globals()[name].__doc__ = _SAMPLER.format(
            name=name, which="Drawn from the module-level generator (seed 0 at first use; "
                             "see :func:`seed`).", **row,
            example=">>> x = tf.random.%s\n>>> x.shape\n(%s,)" % (
                row["call"], row["output"].count(",") + 1))


def default_rng(seed: Any = None) -> Generator:
    """A new :class:`Generator` (numpy.random.default_rng).

    Parameters
    ----------
    seed : int, sequence of int, numpy.random.SeedSequence or None, optional
        The seed (None: fresh entropy from the OS).

    Returns
    -------
    Generator
        A generator with its own PCG64 stream.

    Raises
    ------
    TypeError
        If ``seed`` is not an int, a sequence of ints, a SeedSequence or None.
    ValueError
        If ``seed`` is negative.

    Notes
    -----
    Differentiable: no (it makes a generator; its samples are constants).

    See Also
    --------
    numpy.random.default_rng, Generator

    Examples
    --------
    >>> rng = tf.random.default_rng(0)
    >>> tf.round(rng.random(3), 4)
    tensor([0.637 , 0.2698, 0.041 ])
    """
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
    """Reseed the module-level generator that the module's functions draw from.

    The module-level generator starts with seed 0 at its first use; ``seed(s)``
    replaces it with ``Generator(s)`` (thread-safe).

    Parameters
    ----------
    s : int, sequence of int, numpy.random.SeedSequence or None, optional
        The seed (None: fresh entropy from the OS).

    Returns
    -------
    None

    Raises
    ------
    TypeError
        If ``s`` is not an int, a sequence of ints, a SeedSequence or None.
    ValueError
        If ``s`` is negative.

    Notes
    -----
    Differentiable: no (it sets state).

    See Also
    --------
    numpy.random.seed, get_state, set_state, default_rng

    Examples
    --------
    >>> state = tf.random.get_state()
    >>> tf.random.seed(42); a = tf.random.random(3)
    >>> tf.random.seed(42); b = tf.random.random(3)
    >>> np.array_equal(a, b)
    True
    >>> tf.random.set_state(state)
    """
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
    """The state of the module-level generator, to restore with :func:`set_state`.

    Returns
    -------
    dict
        The PCG64 bit generator's state (``bit_generator.state``: plain Python values,
        picklable).

    See Also
    --------
    set_state, seed, numpy.random.PCG64

    Examples
    --------
    >>> state = tf.random.get_state()
    >>> a = tf.random.random(3)
    >>> tf.random.set_state(state)
    >>> np.array_equal(a, tf.random.random(3))
    True
    """
    return _global.bit_generator.state


def set_state(state: dict[str, Any]) -> None:
    """Restore the module-level generator to a state from :func:`get_state`.

    Parameters
    ----------
    state : dict
        A PCG64 state, as :func:`get_state` returns it.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        If ``state`` is not a dict.
    ValueError
        If ``state`` is not a PCG64 state.

    Notes
    -----
    Differentiable: no (it sets state).

    See Also
    --------
    get_state, seed

    Examples
    --------
    >>> state = tf.random.get_state()
    >>> a = tf.random.normal(size=2)
    >>> tf.random.set_state(state)
    >>> np.array_equal(a, tf.random.normal(size=2))
    True
    """
    _global.bit_generator.state = state


_document_samplers()
