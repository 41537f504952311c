"""``Tensor.__array_function__``: NumPy's functions on tensors, through tenferro.

The table maps each NumPy function to the tenferro function that implements it (its
*twin*), by module and name, looked up in tenferro's namespace at every call: a function
listed here that tenferro does not have yet dispatches as soon as it appears, and a
monkeypatched one is seen.  Only listed names dispatch -- a tenferro function that
merely shares a NumPy name (with other semantics) is never called by accident;
tests/test_numpy_protocols.py checks every listed name against NumPy on sample inputs
and fails on a shared name nobody has classified.  A NumPy function without a twin, or a
call its twin cannot answer (an argument it lacks), goes to the explicit NumPy fallback
(:mod:`._host`).
"""
import importlib
import sys

import numpy as np

from .._tensor import Tensor
from ._calls import Call, Unsupported
from ._host import call_numpy

# NumPy functions whose tenferro function of the same name has NumPy's semantics, with
# NumPy's parameter names (the leading array parameters may be named otherwise).
SAME = """
all amax amin angle any argmax argmin argwhere astype broadcast_arrays broadcast_to
can_cast concatenate copy count_nonzero cumprod cumsum diag diagonal dot einsum empty_like
expand_dims flatnonzero flip full_like imag inner kron matrix_transpose max mean min
moveaxis nonzero ones_like outer pad prod ravel real reshape result_type round squeeze
stack std sum swapaxes take take_along_axis tensordot transpose tril triu var vdot
zeros_like
append argsort array_split average bincount column_stack corrcoef cov cross delete diff
digitize dsplit dstack ediff1d fliplr flipud gradient histogram hsplit hstack insert
interp median meshgrid nan_to_num nanargmax nanargmin nancumprod nancumsum nanmax nanmean
nanmedian nanmin nanpercentile nanprod nanquantile nanstd nansum nanvar percentile polyval
quantile repeat roll rot90 searchsorted sort split tile trapezoid unique unique_all
unique_counts unique_inverse unique_values vsplit vstack
isclose allclose array_equal array_equiv
""".split()
# (the second group: the everyday functions of issue 19, dispatched once they exist)

# numpy.linalg functions whose tenferro.linalg function has NumPy's semantics
SAME_LINALG = "det inv matrix_power norm solve svdvals".split()

# numpy.fft functions, dispatched to tenferro.fft's of the same name (NumPy 2's dtypes are
# scipy.fft's: float32 stays single, integers become float64; ``out=`` falls back)
SAME_FFT = ("fft ifft fft2 ifft2 fftn ifftn rfft irfft rfft2 irfft2 rfftn irfftn hfft ihfft "
            "fftshift ifftshift").split()

# NumPy function -> (tenferro module, name) for the other twins
_ADAPTERS = "tenferro._numpy_protocols._adapters"
OTHER = {
    ("numpy", "around"): ("tenferro", "round"),
    ("numpy", "trace"): ("tenferro._ops", "trace"),   # (tenferro.trace also takes f)
    ("numpy.linalg", "matmul"): ("tenferro", "matmul"),
    ("numpy.linalg", "matrix_transpose"): ("tenferro", "matrix_transpose"),
    ("numpy.linalg", "tensordot"): ("tenferro", "tensordot"),
    ("numpy.linalg", "cross"): ("tenferro", "cross"),
    ("numpy", "sinc"): ("tenferro.special", "sinc"),
    ("numpy", "i0"): ("tenferro.special", "i0"),
}
for _name in "clip where shape ndim size iscomplexobj isrealobj atleast_1d atleast_2d " \
             "atleast_3d".split():
    OTHER["numpy", _name] = (_ADAPTERS, _name)
for _name in ("cholesky eigh eigvalsh qr svd slogdet pinv lstsq cond multi_dot matrix_norm "
              "vector_norm diagonal trace outer").split():
    OTHER["numpy.linalg", _name] = (_ADAPTERS, _name)

# tenferro functions that share a NumPy name but are not its twin, with the reason
# (the test fails on a shared name in neither list)
NOT_TWINS = {
    "arange": "creation: NumPy dispatches it on like= only",
    "asarray": "creation: NumPy dispatches it on like= only",
    "ascontiguousarray": "creation: NumPy dispatches it on like= only",
    "empty": "creation", "eye": "creation", "full": "creation", "identity": "creation",
    "ones": "creation", "zeros": "creation", "from_dlpack": "creation",
    "linspace": "creation: tenferro's takes no retstep/axis; NumPy's result is used",
    "einsum_path": "tenferro's path report differs from NumPy's",
    "show_config": "not an array function",
    "save": "np.save writes one array through NumPy (tenferro.save also takes a dict of "
            "tensors and writes .npz); the file is the same",
}
NOT_TWINS_LINALG = {
    "eig": "NumPy's eigenvalues are real when their imaginary parts are all zero (a dtype "
           "that depends on the values); tenferro's, as scipy's, are always complex",
    "eigvals": "as eig",
}


def _table(groups, other):
    table = {}
    for mod, names, target in groups:
        for name in names:
            table[mod, name] = (target, name)
    table.update(other)
    out = {}
    for (mod, name), (tmod, tname) in table.items():
        fn = getattr(importlib.import_module(mod), name, None)
        if fn is not None:   # (a name this NumPy version lacks)
            out[fn] = (tmod, tname, "%s.%s" % (mod, name))
    return out


# NumPy function -> (tenferro module, name, NumPy's qualified name).  numpy.fft's rows
# join at the first numpy.fft function called on a tensor (or the first read of TWINS):
# importing numpy.fft would cost ``import tenferro`` 0.5 ms, and a numpy.fft function
# can only reach __array_function__ once numpy.fft is imported.
_TWINS = _table((("numpy", SAME, "tenferro"),
                 ("numpy.linalg", SAME_LINALG, "tenferro.linalg")), OTHER)
_fft_rows = []


def _with_fft():
    """The twins table, numpy.fft's rows included (imported on the first call)."""
    if not _fft_rows:
        _fft_rows.append(_table((("numpy.fft", SAME_FFT, "tenferro.fft"),), {}))
        _TWINS.update(_fft_rows[0])
    return _TWINS


def __getattr__(name):   # ``TWINS``: the complete table
    if name == "TWINS":
        return _with_fft()
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


_calls = {}   # NumPy function -> its Call (rebuilt when the twin changes)


def twin(func):
    """The :class:`Call` to ``func``'s tenferro twin, or None when there is none."""
    entry = _TWINS.get(func)
    if entry is None:
        if getattr(func, "__module__", None) != "numpy.fft":
            return None
        entry = _with_fft().get(func)
        if entry is None:
            return None
    mod = sys.modules.get(entry[0])
    if mod is None:
        try:
            mod = importlib.import_module(entry[0])
        except ImportError:   # (tenferro.special, before it exists)
            return None
    fn = getattr(mod, entry[1], None)
    if fn is None:
        return None
    call = _calls.get(func)
    if call is None or call.fn is not fn:
        call = _calls[func] = Call(func, fn, entry[2])
    return call


def array_function(self, func, types, args, kwargs):
    """NumPy's ``__array_function__`` protocol (NEP 18): see the module docstring."""
    for t in types:
        if not issubclass(t, (Tensor, np.ndarray)):
            return NotImplemented
    call = twin(func)
    if call is not None:
        try:
            return call(args, kwargs)
        except Unsupported as e:
            reason = "tenferro's implementation of it %s" % e
    else:
        reason = "tenferro has no implementation of it"
    what = _TWINS[func][2] if func in _TWINS else "%s.%s" % (func.__module__, func.__name__)
    return call_numpy(func, what, reason, args, kwargs)
