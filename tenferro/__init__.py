"""tenferro: dense tensors for scientific Python.

NumPy-like tensors whose CPU kernels are typed Cython with OpenMP, whose GPU work
goes through pluggable device drivers, and whose autodiff reaches through einsum and
linear algebra.  The Python rendering of the Rust library tenferro-rs.
"""
__version__ = "0.1.0"

import importlib as _importlib
import inspect as _inspect
import os as _os
import sys as _sys
import typing as _typing

# NumPy loads its own OpenBLAS copy when it is imported.  Loaded before tenferro (the
# usual order in a script), it read its spin time before tenferro could shorten it:
# its threads then spin ~0.1 s after each NumPy BLAS call, and a BLAS-bound tenferro
# call right after one runs up to 2.5x slower.  show_config() says which case holds.
_numpy_blas_first = "numpy" in _sys.modules and "OPENBLAS_THREAD_TIMEOUT" not in _os.environ

# tenferro's kernel threads and scipy's OpenBLAS keep separate thread pools.  Threads
# of one pool spin-waiting after a call steal the cores the other pool needs next: on
# 2 cores tanh(A @ B) took 3x longer and a 512^2 MLP step 1.5x.  Short spins fix it:
# the kernels' own pool (_kernels/_pool.h) spins 20-200 us; OPENBLAS_THREAD_TIMEOUT
# shortens OpenBLAS's, and GOMP_SPINCOUNT libgomp's (OpenMP regions run only when the
# pool is switched off for comparisons).  The runtimes read these variables once,
# when they load: libgomp and NumPy's OpenBLAS during the imports below, SciPy's
# OpenBLAS (tenferro's BLAS) with the first matmul or linalg call, for which the CPU
# driver sets OPENBLAS_THREAD_TIMEOUT again (devices/cpu/blas.py's load_env).  The
# user's own settings win, and ours are removed again afterwards so that other libraries
# loaded later (PyTorch's libgomp, say) keep their defaults.  See docs/performance.md.
_RUNTIME_ENV = {"GOMP_SPINCOUNT": "1000", "OPENBLAS_THREAD_TIMEOUT": "4"}
_runtime_env_set = [k for k in _RUNTIME_ENV if k not in _os.environ and not (
    k == "GOMP_SPINCOUNT" and "OMP_WAIT_POLICY" in _os.environ)]
for _k in _runtime_env_set:
    _os.environ[_k] = _RUNTIME_ENV[_k]

from ._dtypes import (bool_, int32, int64, float32, float64, complex64, complex128,  # noqa
                      dtype, result_type, can_cast, finfo, iinfo)
from ._dtypes import bool_ as bool  # noqa: F401  (tenferro.bool, like torch.bool)
from ._errors import (TenferroError, UnsupportedOperation, DeviceMismatchError,  # noqa
                      LinAlgError)
from ._tensor import Tensor  # noqa: F401
from ._ops import *  # noqa: F401,F403
from ._ops import AxisError  # noqa: F401
from . import _ops
from .devices import device, Device  # noqa: F401
from .devices.cpu import blas as _cpu_blas, threads as _threads
from .devices.cpu.threads import get_num_threads, set_num_threads, num_threads  # noqa: F401
from . import devices, random  # noqa: F401
from ._config import show_config  # noqa: F401
from ._profile import profile, Profile  # noqa: F401
from ._caches import extension_cache, cache_stats, clear_caches  # noqa: F401
from .autograd import clear_grads  # noqa: F401
from . import autograd  # noqa: F401
from .autograd import (no_grad, enable_grad, set_grad_enabled, is_grad_enabled,  # noqa: F401
                       value_and_grad, vjp, jvp, linearize, hvp, jacrev, jacfwd, hessian,
                       stop_gradient, checkpoint, checkpoint_sequential, is_checkpointing,
                       set_backward_workers, get_backward_workers, backward_workers)
from .autograd import functional_grad as grad, AdContext  # noqa: F401
from .batching import vmap, _rules_calls  # noqa: F401  (_rules_calls: after autograd)
from ._errors import ConcretizationError  # noqa: F401
from . import graph  # noqa: F401
from .graph import TensorSpec, Graph, Program, compile, jit, make_graph  # noqa: F401
from ._io import save, load  # noqa: F401
from ._lazy import lazy, realize  # noqa: F401

# Submodules imported on first use (PEP 562's module __getattr__): ``tf.linalg`` works
# after a bare ``import tenferro``, which does not pay for importing it.  A new lazy
# submodule is one line in this dict, and its import in the block below, which only
# type checkers read (tests/test_packaging.py checks that the two agree).
_LAZY_SUBMODULES = {
    "linalg": "tenferro.linalg",
    "special": "tenferro.special",
    "fft": "tenferro.fft",
    "nn": "tenferro.nn",
}
if _typing.TYPE_CHECKING:
    from . import linalg as linalg  # noqa: F401
    from . import special as special  # noqa: F401
    from . import fft as fft  # noqa: F401
    from . import nn as nn  # noqa: F401
from . import array_api  # noqa: F401,E402  (attaches Tensor.__array_namespace__)
from . import _numpy_protocols  # noqa: F401  (Tensor.__array_function__, __array_ufunc__)
from . import _dask_hook  # noqa: F401,E402  (Dask's lazy registration; imports no Dask)

if not _threads.have_openmp():
    import warnings as _w

    _w.warn("tenferro was built without OpenMP: CPU kernels run on one thread "
            "(see tenferro.show_config())", RuntimeWarning, stacklevel=2)



def trace(a: _typing.Any, *args: _typing.Any, **kwargs: _typing.Any) -> _typing.Any:
    """The sum along a diagonal of an array (``numpy.trace``).

    For a 2-d ``a``, ``sum(a[i, i + offset])``; for more dimensions the diagonals of
    the ``(axis1, axis2)`` planes are summed, giving an array of the other axes (a
    strided diagonal view and one reduction, as einsum's ``'ii->'``).

    Parameters
    ----------
    a : Tensor or array_like
        At least 2-d.
    offset : int, default 0
        The diagonal: above the main one for positive values, below for negative.
    axis1 : int, default 0
        The first axis of the planes.
    axis2 : int, default 1
        The second axis of the planes.
    dtype : dtype, optional
        The accumulator's and result's dtype (NumPy's default: ``a``'s, integers and
        bool widened to int64).

    Returns
    -------
    Tensor
        The sums: 0-d for a 2-d ``a``, else of ``a``'s shape without the two axes.

    Raises
    ------
    ValueError
        If ``a`` has fewer than 2 dimensions, or ``axis1`` and ``axis2`` name the same
        axis.
    AxisError
        If an axis is out of range.

    See Also
    --------
    numpy.trace, diagonal, einsum

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order (a
    diagonal view and a sum, both linear).

    A callable first argument, ``trace(f, *specs)``, still traces ``f`` into a graph
    (the meaning this name had before it was given back to NumPy's): deprecated, with
    a ``DeprecationWarning``; use :func:`tenferro.make_graph`.

    Examples
    --------
    >>> a = tf.asarray([[1.0, 2.0], [3.0, 4.0]])
    >>> tf.trace(a), tf.trace(a, offset=1)
    (tensor(5.), tensor(2.))
    >>> tf.grad(tf.trace)(a)
    tensor([[1., 0.],
            [0., 1.]])
    """
    if callable(a) and not isinstance(a, Tensor):
        import warnings

        warnings.warn("tenferro.trace(f, *specs) is deprecated: tenferro.trace is numpy.trace; "
                      "use tenferro.make_graph(f, *specs) to trace a function into a graph",
                      DeprecationWarning, stacklevel=2)
        if kwargs:
            raise TypeError("tenferro.make_graph(f, *specs): unexpected keyword arguments %s"
                            % sorted(kwargs))
        return make_graph(a, *args)
    return _ops.trace(a, *args, **kwargs)


trace.__signature__ = _inspect.signature(_ops.trace)   # numpy.trace's parameters


if not _typing.TYPE_CHECKING:   # hidden from type checkers: they flag misspelt names
    def __getattr__(name):
        """Import a lazy submodule (``_LAZY_SUBMODULES``) on its first access."""
        module = _LAZY_SUBMODULES.get(name)
        if module is None:
            raise AttributeError("module 'tenferro' has no attribute %r" % name)
        return _importlib.import_module(module)   # which sets tenferro.<name> as well


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY_SUBMODULES))


newaxis = None
pi = 3.141592653589793
e = 2.718281828459045
inf = float("inf")
nan = float("nan")

# SciPy's OpenBLAS loads later, with the first product: the CPU driver sets this then
_cpu_blas.load_env["OPENBLAS_THREAD_TIMEOUT"] = _RUNTIME_ENV["OPENBLAS_THREAD_TIMEOUT"]
for _k in _runtime_env_set:
    _os.environ.pop(_k, None)
runtime_env = {k: _RUNTIME_ENV[k] for k in _runtime_env_set}  # what tenferro set at load

# Every public name: help(tenferro) lists the functions in __all__ (pydoc shows only
# functions defined in the module itself otherwise), type checkers take the names it
# lists as exported (mypy --strict: no implicit re-exports), and ``from tenferro
# import *`` takes the lazy submodules too.  A literal list of what this file imports
# or defines, then the lazy submodules and the ops (tests/test_packaging.py checks
# that nothing is missing).
__all__ = [
    "bool", "bool_", "int32", "int64", "float32", "float64", "complex64", "complex128",
    "dtype", "result_type", "can_cast", "finfo", "iinfo",
    "TenferroError", "UnsupportedOperation", "DeviceMismatchError", "LinAlgError",
    "ConcretizationError", "AxisError",
    "Tensor", "device", "Device", "get_num_threads", "set_num_threads", "num_threads",
    "show_config", "runtime_env", "profile", "Profile",
    "extension_cache", "cache_stats", "clear_caches", "clear_grads",
    "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "grad",
    "value_and_grad", "vjp", "jvp", "linearize", "hvp", "jacrev", "jacfwd", "hessian",
    "stop_gradient", "checkpoint", "checkpoint_sequential", "is_checkpointing",
    "set_backward_workers", "get_backward_workers", "backward_workers", "AdContext", "vmap",
    "TensorSpec", "Graph", "Program", "compile", "jit", "make_graph", "lazy", "realize",
    "save", "load", "trace", "newaxis", "pi", "e", "inf", "nan",
    "autograd", "batching", "devices", "graph", "random", "array_api",
]
__all__ += [_n for _n in list(_LAZY_SUBMODULES) + _ops.__all__ if _n not in __all__]
