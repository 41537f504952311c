"""Every public name has a numpydoc docstring whose example runs (docs/contributing.md).

The API reference (docs/api/) is generated from these docstrings; this test is what
keeps it complete.  numpydoc's own validator checks the sections against each
signature; the examples run as doctests with ``np`` and ``tf`` bound.
"""
import doctest
import importlib
import inspect
import types

import numpy as np
import pytest

import tenferro as tf

validate = pytest.importorskip("numpydoc.validate", reason="numpydoc (tenferro[docs])")

# The modules the API reference documents, and whether their functions compute numbers
# (then their docstrings also say what they raise and whether they are differentiable).
PUBLIC_MODULES = {
    "tenferro": True,
    "tenferro.linalg": True,
    "tenferro.special": True,
    "tenferro.fft": True,
    "tenferro.nn": True,
    "tenferro.random": True,
    "tenferro.autograd": False,
    "tenferro.autograd.extend": False,
    "tenferro.graph": False,
    "tenferro.devices": False,
    "tenferro.dask": False,
    "tenferro.array_api": False,
}

# numpydoc's checks that every public callable must pass (numpydoc.validate.ERROR_MSGS)
REQUIRED = {
    "GL08": "no docstring",
    "PR01": "a parameter is not documented",
    "PR02": "a documented parameter is not in the signature",
    "EX01": "no Examples section",
}
REQUIRED_FUNCTION = {"RT01": "no Returns section"}


def _public(modname):
    mod = importlib.import_module(modname)
    names = getattr(mod, "__all__", None)
    assert names is not None, "%s has no __all__: the API reference lists __all__" % modname
    out = []
    for name in names:
        obj = getattr(mod, name)
        if isinstance(obj, types.ModuleType):
            continue   # documented as a module of its own
        if not (inspect.isclass(obj) or callable(obj)):
            continue   # constants: described on their API page
        if isinstance(obj, np.dtype) or (inspect.isclass(obj) and issubclass(obj, np.generic)):
            continue   # the dtypes are NumPy's
        out.append((modname, name, obj))
    return out


PUBLIC = [entry for m in PUBLIC_MODULES for entry in _public(m)]
IDS = ["%s.%s" % (m, n) for m, n, _ in PUBLIC]


def _doc(obj):
    return inspect.getdoc(obj) or ""


@pytest.mark.parametrize("modname,name,obj", PUBLIC, ids=IDS)
def test_numpydoc_sections(modname, name, obj):
    if inspect.isclass(obj) and issubclass(obj, BaseException):
        assert _doc(obj), "%s.%s has no docstring" % (modname, name)
        return
    result = validate.validate("%s.%s" % (modname, name))
    required = dict(REQUIRED)
    if not inspect.isclass(obj):
        required.update(REQUIRED_FUNCTION)
    bad = ["%s (%s): %s" % (code, required[code], msg) for code, msg in result["errors"]
           if code in required]
    assert not bad, "%s.%s:\n  %s" % (modname, name, "\n  ".join(bad))


# In the numerical modules, the functions that are not computations on tensors (state,
# caches): nothing to differentiate, often nothing to raise
NOT_NUMERIC = {"tenferro.random.get_state", "tenferro.random.set_state",
               "tenferro.random.seed"}


def _numeric(modname, name, obj):
    if not PUBLIC_MODULES[modname] or inspect.isclass(obj):
        return False
    if "%s.%s" % (modname, name) in NOT_NUMERIC:
        return False
    if modname == "tenferro":   # the operations; not the entry points of other modules
        defined = getattr(obj, "__module__", "") or ""
        return defined.startswith("tenferro._ops") and not defined.endswith(".cache")
    return True


NUMERIC = [(m, n, o) for m, n, o in PUBLIC if _numeric(m, n, o)]


@pytest.mark.parametrize("modname,name,obj", NUMERIC,
                         ids=["%s.%s" % (m, n) for m, n, _ in NUMERIC])
def test_numeric_functions_say_raises_and_differentiable(modname, name, obj):
    doc = _doc(obj)
    assert "\nRaises\n------" in doc, "%s.%s: no Raises section" % (modname, name)
    assert "Differentiable:" in doc, "%s.%s: no 'Differentiable:' line" % (modname, name)


@pytest.mark.parametrize("modname,name,obj", PUBLIC, ids=IDS)
def test_examples_run(modname, name, obj):
    finder = doctest.DocTestFinder(recurse=False)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    tests = finder.find(obj, "%s.%s" % (modname, name), globs={"np": np, "tf": tf})
    examples = [t for t in tests if t.examples]
    if inspect.isclass(obj) and issubclass(obj, BaseException) and not examples:
        return
    assert examples, "%s.%s: no doctest example" % (modname, name)
    with np.printoptions(legacy=False):
        for t in examples:
            runner.run(t)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, "%s.%s: %d of %d examples failed (output above)" % (
        modname, name, result.failed, result.attempted)


@pytest.mark.parametrize("attr", sorted(n for n in dir(tf.Tensor) if not n.startswith("_")))
def test_tensor_members_have_docstrings(attr):
    member = inspect.getattr_static(tf.Tensor, attr)
    assert _doc(getattr(member, "__func__", member)), "Tensor.%s has no docstring" % attr
