"""Write the API reference's pages (docs/api/*.rst) from each module's ``__all__``.

Run by docs/conf.py before every build, so the reference lists every public name
there is (tests/test_docstrings.py checks that each has a numpydoc docstring).  The
top-level names are grouped by the module that defines them.
"""
import importlib
import inspect
import os
import types

import numpy as np

# (module, page title, intro) for each page; the top-level namespace comes first
PAGES = [
    ("tenferro", "tenferro", "The tensor, its operations (NumPy's names and semantics), "
     "and the entry points of autodiff, tracing and devices."),
    ("tenferro.linalg", "tenferro.linalg", "scipy.linalg's API, batched and differentiable "
     "(:doc:`../linalg`)."),
    ("tenferro.special", "tenferro.special", "scipy.special's functions (:doc:`../special`)."),
    ("tenferro.fft", "tenferro.fft", "scipy.fft's API, differentiable (:doc:`../fft`)."),
    ("tenferro.nn", "tenferro.nn", "Convolutions, pooling, activations and normalisations "
     "(:doc:`../nn`)."),
    ("tenferro.random", "tenferro.random", "Random generators (NumPy's ``Generator`` API)."),
    ("tenferro.autograd", "tenferro.autograd", "Eager and functional automatic "
     "differentiation (:doc:`../autodiff`)."),
    ("tenferro.autograd.extend", "tenferro.autograd.extend", "New primitives with their "
     "own rules and kernels: the API tenferro.linalg itself is built on."),
    ("tenferro.graph", "tenferro.graph", "Traced graphs, their passes and the compiler "
     "(:doc:`../traced`)."),
    ("tenferro.devices", "tenferro.devices", "Devices and their drivers (:doc:`../devices`)."),
    ("tenferro.dask", "tenferro.dask", "Contractions and maps on a Dask cluster "
     "(:doc:`../distributed`)."),
    ("tenferro.array_api", "tenferro.array_api", "The Array API standard's namespace "
     "(:doc:`../array_api`).  Names that are tenferro's own functions link there."),
]

# top-level groups, by the defining module's name (first match wins)
GROUPS = [
    ("tenferro._tensor", "The tensor"),
    ("tenferro._ops.creation", "Creating tensors"),
    ("tenferro._ops.conversion", "Conversion, copies and devices"),
    ("tenferro._ops.elementwise", "Elementwise functions"),
    ("tenferro._ops.comparison", "Comparing arrays"),
    ("tenferro._ops.reduction", "Reductions and scans"),
    ("tenferro._ops.nanfunctions", "NaN-aware reductions"),
    ("tenferro._ops.quantiles", "Quantiles"),
    ("tenferro._ops.statistics", "Statistics"),
    ("tenferro._ops.shape", "Shapes and views"),
    ("tenferro._ops.structural", "Rearranging"),
    ("tenferro._ops.stacking", "Stacking and splitting"),
    ("tenferro._ops.joining", "Joining and padding"),
    ("tenferro._ops.indexing", "Indexing"),
    ("tenferro._ops.sorting", "Sorting, searching and sets"),
    ("tenferro._ops.matmul", "Products"),
    ("tenferro._ops.einsum", "Einsum and contractions"),
    ("tenferro._ops.calculus", "Calculus and polynomials"),
    ("tenferro._dtypes", "Data types"),
    ("tenferro.autograd", "Automatic differentiation"),
    ("tenferro.batching", "Vectorising"),
    ("tenferro.graph", "Tracing and compilation"),
    ("tenferro._ir", "Tracing and compilation"),
    ("tenferro._lazy", "Tracing and compilation"),
    ("tenferro.devices", "Devices and threads"),
    ("tenferro._errors", "Exceptions"),
    ("tenferro._ops._common", "Exceptions"),
    ("tenferro", "Configuration, profiling, caches and files"),
]


def _kind(obj):
    if isinstance(obj, types.ModuleType):
        return None
    if isinstance(obj, np.dtype) or (inspect.isclass(obj) and issubclass(obj, np.generic)):
        return "dtype"
    if inspect.isclass(obj) or callable(obj):
        return "object"
    return "constant"


def _group(modname, obj):
    if modname != "tenferro":
        return ""
    defined = getattr(obj, "__module__", None) or "tenferro"
    for prefix, title in GROUPS:
        if defined == prefix or defined.startswith(prefix + "."):
            return title
    return GROUPS[-1][1]


def _autosummary(names):
    lines = [".. autosummary::", "   :toctree: generated/", "   :nosignatures:", ""]
    lines += ["   %s" % n for n in names]
    return lines + [""]


def page(modname, title, intro, documented):
    """The page of ``modname``; ``documented`` maps id(obj) to the name it has a page
    under (an object exported by several modules gets one page, under its first name)."""
    mod = importlib.import_module(modname)
    groups, constants, aliases = {}, [], []
    for name in mod.__all__:
        obj = getattr(mod, name)
        kind = _kind(obj)
        if kind == "object":
            if id(obj) in documented:
                aliases.append((name, documented[id(obj)]))
                continue
            documented[id(obj)] = "%s.%s" % (modname, name)
            groups.setdefault(_group(modname, obj), []).append(name)
        elif kind is not None:
            constants.append(name)
    lines = [".. currentmodule:: %s" % modname, "", title, "=" * len(title), "", intro, ""]
    order = [t for _, t in GROUPS] if modname == "tenferro" else [""]
    for group in dict.fromkeys(order):
        if group not in groups:
            continue
        if group:
            lines += [group, "-" * len(group), ""]
        lines += _autosummary(groups.pop(group))
    assert not groups, groups
    if aliases:
        lines += ["Also here", "-" * 9, "",
                  "These names are the same objects as the ones linked, documented there.", "",
                  ".. list-table::", "   :header-rows: 1", "",
                  "   * - name", "     - the same object as"]
        for name, target in aliases:
            lines += ["   * - ``%s.%s``" % (modname, name), "     - :py:obj:`%s`" % target]
        lines.append("")
    if constants:
        lines += ["Constants and data types", "-" * 24, "",
                  ".. list-table::", "   :header-rows: 1", "",
                  "   * - name", "     - value"]
        for name in constants:
            lines += ["   * - ``%s.%s``" % (modname, name),
                      "     - ``%s``" % (_value(getattr(mod, name)),)]
        lines.append("")
    return "\n".join(lines)


def _value(obj):
    if isinstance(obj, np.dtype):
        return "numpy.dtype('%s')" % obj
    if inspect.isclass(obj):
        return "numpy.%s" % obj.__name__
    return repr(obj)


def write(folder):
    os.makedirs(folder, exist_ok=True)
    index = ["API reference", "=" * 13, "",
             "Every public name, from its docstring.  Examples assume "
             "``import numpy as np`` and ``import tenferro as tf``.", "",
             ".. toctree::", "   :maxdepth: 1", ""]
    documented = {}
    for modname, title, intro in PAGES:
        text = page(modname, title, intro, documented)
        path = os.path.join(folder, modname + ".rst")
        old = open(path).read() if os.path.exists(path) else None
        if old != text:   # unchanged pages keep their time stamp: no rebuild
            with open(path, "w") as f:
                f.write(text)
        index.append("   %s" % modname)
    path = os.path.join(folder, "index.rst")
    with open(path, "w") as f:
        f.write("\n".join(index) + "\n")
