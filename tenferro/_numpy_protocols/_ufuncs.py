"""``Tensor.__array_ufunc__``: NumPy's and SciPy's ufuncs on tensors.

A ufunc tenferro has (NumPy's by name, ``tenferro._ops.NUMPY_UFUNCS``; scipy.special's
from ``tenferro.special`` once it has them) is computed by tenferro, differentiable:
called, and for the reductions and scans that have tenferro ops (``np.add.reduce`` is
``sum``, ``np.multiply.accumulate`` ``cumprod``) and ``outer``.  ``out=`` tensors are
filled from the result.  Anything else -- another ufunc (``np.fmod``,
``scipy.special.gamma``), another method (``at``, ``reduceat``), a keyword tenferro's op
lacks (``where=``, ``dtype=``), an ndarray ``out=`` -- goes to the explicit NumPy fallback
(:mod:`._host`), which returns CPU tensors and refuses tensors that require grad or live
on another device.
"""
import importlib
import sys

import numpy as np

from .. import _ops
from .._tensor import Tensor
from ._calls import Unsupported
from ._host import call_numpy

# scipy.special ufuncs (by ufunc name) with twins, looked up in tenferro.special first
SPECIAL = {n: n for n in (
    "gammaln erf erfc erfinv erfcx expit logit log_expit xlogy xlog1py i0 i0e i1 i1e entr "
    "rel_entr kl_div betaln gammainc gammaincc").split()}
SPECIAL["psi"] = "digamma"
# ... and, while tenferro.special lacks them, at the top level
SPECIAL_TOP = {"erf": "erf", "expit": "sigmoid"}

# ufunc.reduce / .accumulate with a tenferro op: ufunc name -> (op, takes dtype=)
REDUCE = {"add": ("sum", True), "multiply": ("prod", True), "maximum": ("max", False),
          "minimum": ("min", False), "logical_and": ("all", False),
          "logical_or": ("any", False)}
ACCUMULATE = {"add": ("cumsum", True), "multiply": ("cumprod", True)}

# ufunc keywords at their defaults (the only values tenferro's ops answer)
_DEFAULTS = {"where": True, "casting": "same_kind", "order": "K", "dtype": None,
             "subok": True, "signature": None}
_special = []   # [tenferro.special or None], once looked up


def _special_module():
    if not _special:
        try:
            _special.append(importlib.import_module("tenferro.special"))
        except ImportError:
            _special.append(None)
    return _special[0]


def ufunc_twin(ufunc):
    """tenferro's function for ``ufunc`` (NumPy's or scipy.special's), or None."""
    name = ufunc.__name__
    if getattr(np, name, None) is ufunc:
        return _ops.NUMPY_UFUNCS.get(name)
    sp = sys.modules.get("scipy.special")
    if name not in SPECIAL or sp is None or getattr(sp, name, None) is not ufunc:
        return None
    mod = _special_module()
    fn = getattr(mod, SPECIAL[name], None) if mod is not None else None
    if fn is None and name in SPECIAL_TOP:
        fn = getattr(_ops, SPECIAL_TOP[name])
    return fn


def _label(ufunc, method):
    sp = sys.modules.get("scipy.special")
    mod = "numpy" if getattr(np, ufunc.__name__, None) is ufunc else (
        "scipy.special" if sp is not None and getattr(sp, ufunc.__name__, None) is ufunc
        else "ufunc")
    return "%s.%s%s" % (mod, ufunc.__name__, "" if method == "__call__" else "." + method)


def _is_default(key, value):
    d = _DEFAULTS.get(key, _DEFAULTS)
    return d is not _DEFAULTS and (value is d or type(value) is type(d) and value == d)


def _outer(fn, a, b):
    a, b = _ops.asarray(a), _ops.asarray(b)
    return fn(_ops.reshape(a, a.shape + (1,) * b.ndim), b)


def _cast_inputs(ufunc, inputs, dtype):
    """The inputs cast to the loop dtype ``dtype`` under NumPy's default rule
    (``casting="same_kind"``; Python scalars are weak), on the tensors' device; a
    TypeError as NumPy's UFuncTypeError where the rule forbids the cast."""
    dt = np.dtype(dtype)
    dev = next((x.device for x in inputs if isinstance(x, Tensor)), None)
    out = []
    for i, x in enumerate(inputs):
        if isinstance(x, (Tensor, np.ndarray, np.generic)) and \
                not np.can_cast(x.dtype, dt, casting="same_kind"):
            raise TypeError("Cannot cast ufunc %r input %d from %r to %r with casting rule "
                            "'same_kind'" % (ufunc.__name__, i, x.dtype, dt))
        out.append(_ops.astype(x if isinstance(x, Tensor) else _ops.asarray(x, device=dev),
                               dt))
    return out


def _compute(fn, ufunc, method, inputs, kwargs):
    """``ufunc.method(*inputs, **kwargs)`` with tenferro's ops (Unsupported if not)."""
    kw = {k: v for k, v in kwargs.items() if not _is_default(k, v)}
    if method == "__call__":
        dtype = kw.pop("dtype", None)   # the loop's dtype: the inputs cast to it (Dask's sums)
        if kw:
            raise Unsupported("takes no %s" % sorted(kw))
        if dtype is not None:
            inputs = _cast_inputs(ufunc, inputs, dtype)
        return fn(*inputs)
    if method == "outer" and not kw:
        return _outer(fn, *inputs)
    table = {"reduce": REDUCE, "accumulate": ACCUMULATE}.get(method, {})
    if ufunc.__name__ not in table:
        raise Unsupported("has no %s.%s" % (ufunc.__name__, method))
    op, takes_dtype = table[ufunc.__name__]
    axis = kw.pop("axis", 0)
    extra = {"dtype": kw.pop("dtype")} if takes_dtype and "dtype" in kw else {}
    if method == "reduce" and "keepdims" in kw:
        extra["keepdims"] = kw.pop("keepdims")
    if kw:
        raise Unsupported("takes no %s" % sorted(kw))
    return getattr(_ops, op)(inputs[0], axis=axis, **extra)


def _foreign(values):
    """Whether an operand is another library's array (then NumPy asks it instead)."""
    for x in values:
        t = type(x)
        if t is not Tensor and hasattr(t, "__array_ufunc__") and not issubclass(
                t, (Tensor, np.ndarray, np.generic)):
            return True
    return False


_twins = {}   # ufunc -> ufunc_twin(ufunc)


def array_ufunc(self, ufunc, method, *inputs, **kwargs):
    """NumPy's ``__array_ufunc__`` protocol (NEP 13): see the module docstring."""
    fn = _twins.get(ufunc, _twins)
    if fn is _twins:
        fn = _twins[ufunc] = ufunc_twin(ufunc)
    out = kwargs.get("out")
    if _foreign(inputs) or out is not None and _foreign(out):
        return NotImplemented
    if fn is not None and method == "__call__" and not kwargs:
        return fn(*inputs)
    what = _label(ufunc, method)
    reason = "tenferro has no implementation of it"
    if fn is not None:
        try:
            if out is not None and not (len(out) == 1 and isinstance(out[0], Tensor)):
                raise Unsupported("writes no out= other than one tensor")
            r = _compute(fn, ufunc, method, inputs,
                         {k: v for k, v in kwargs.items() if k != "out"})
            return r if out is None else _ops.store_out(what, r, out[0])
        except Unsupported as e:
            reason = "tenferro's implementation of it %s" % e
    return call_numpy(getattr(ufunc, method), what, reason, inputs, kwargs)
