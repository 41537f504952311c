"""The kernel modules that call BLAS and LAPACK, imported on first use.

``tenferro._kernels._matmul`` (matmul, einsum's contractions) and ``_lapack`` (the
CPU's linalg) call SciPy's BLAS and LAPACK through ``scipy.linalg.cython_blas`` and
``cython_lapack``, and importing those runs ``scipy.linalg``'s ``__init__`` (about
140 ms, more than the rest of ``import tenferro``).  So ``import tenferro`` leaves
them out: the first matmul, contraction or ``tenferro.linalg`` import calls ``load()``,
which loads SciPy's BLAS (``blas.load_library``: with tenferro's short OpenBLAS spin),
imports the two modules and sets them up as the CPU driver did at import: the BLAS's
own thread setters, the grain sizes in force and the BLAS thread count a
``set_num_threads`` made before (``threads``).

A hot path holds a ``Lazy`` in place of the module: its first attribute read loads the
kernels and puts the module itself in the holder's globals, so later calls cost what
they did when the module was imported eagerly.  A module that imports ``_lapack`` or
``_matmul`` itself calls ``load()`` first (``tenferro.linalg`` does).
"""
import importlib
import threading

from . import blas

_lock = threading.Lock()
modules = None   # {"_matmul": module, "_lapack": module} once load() ran


def load():
    """Import ``_matmul`` and ``_lapack`` once, set up; ``{name: module}``."""
    global modules
    if modules is None:
        with _lock:
            if modules is None:
                from . import threads

                blas.load_library()
                mods = {name: importlib.import_module("tenferro._kernels." + name)
                        for name in ("_matmul", "_lapack")}
                fns = blas._thread_fn_addresses()
                for kernels in mods.values():
                    kernels.set_blas_thread_functions(*fns)
                blas._kernel_threads = mods["_matmul"]   # its BLAS gate: every module's
                threads.blas_kernels_loaded(mods)
                modules = mods
    return modules


class Lazy:
    """Stands for kernel module ``name`` as ``globals_[as_name]`` until first used."""

    __slots__ = ("_name", "_globals", "_as")

    def __init__(self, name, globals_, as_name):
        self._name, self._globals, self._as = name, globals_, as_name

    def __getattr__(self, attr):
        module = load()[self._name]
        self._globals[self._as] = module   # the one-time swap: later calls see the module
        return getattr(module, attr)
