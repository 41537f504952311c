"""tenferro's own CPU kernels for the special functions whose direct formula is as
accurate as scipy's and cheaper to run tenferro's way (tenferro/_kernels/_special.pyx:
log_expit, logit, entr, sinc, erfc, xlogy, xlog1py, rel_entr, kl_div, and
softmax / log_softmax over any axes; float32 and float64, SIMD, on tenferro's threads).

Two ways in:

* :func:`eager` -- the eager fast path of a composed function (as tenferro._ops'
  ``_fastpath`` is for the elementwise ops): a plain call (no transform active, no
  operand taking part in eager autodiff, real operands on the CPU) runs the kernel in
  one pass; every other call -- under ``grad``/``jit``/``vmap``, on the tape, on another
  device, complex -- is the function's composition of tenferro's ops, whose
  derivatives and device coverage are unchanged;
* :func:`cpu_kernel` -- the CPU implementation of a kernel primitive (``erfc``) that
  runs the kernel for real input and another implementation (scipy's) for the rest.
"""
import numpy as np

from .._kernels import _special as _k
from .. import _primitive
from .._primitive import _interpreters
from .._tensor import _wrap
from ..devices.cpu import threads as _threads
from ..devices.cpu.ops import out_like

_REAL = frozenset("fd")   # float32, float64: the kernels' dtypes


def _unary(op):
    def run(x):
        out = out_like(x, x.dtype)
        _k.unary(op, x, out, _threads.current)
        return out
    return run


def _binary(op):
    def run(a, b):
        if a.shape != b.shape:
            shape = np.broadcast_shapes(a.shape, b.shape)
            a, b = np.broadcast_to(a, shape), np.broadcast_to(b, shape)
        out = out_like(a, a.dtype)
        _k.binary(op, a, b, out, _threads.current)
        return out
    return run


def _rows(mode):
    """``mode`` (softmax, log_softmax) of ``x`` over ``axes`` (a tuple of its axes): the
    other axes first, the reduced ones last and flattened into rows (a view where x
    already is so, else one copy), then the row kernel, then the axes put back."""
    def run(x, axes):
        if x.size == 0:
            return np.empty(x.shape, x.dtype)
        if axes == (x.ndim - 1,) and x.flags.c_contiguous:   # the everyday case
            out = np.empty(x.shape, x.dtype)
            n = x.shape[-1]
            _k.softmax(mode, x.reshape(-1, n), out.reshape(-1, n), _threads.current)
            return out
        keep = [i for i in range(x.ndim) if i not in axes]
        xt = np.transpose(x, keep + list(axes))
        n = int(np.prod([x.shape[i] for i in axes], dtype=np.int64))
        rows = xt.reshape(-1, n)
        if n > 1 and rows.strides[1] != rows.itemsize:
            rows = np.ascontiguousarray(rows)
        out = np.empty(rows.shape, x.dtype)
        _k.softmax(mode, rows, out, _threads.current)
        return np.transpose(out.reshape(xt.shape), np.argsort(keep + list(axes)))
    return run


# op -> ndarrays (float32 or float64, one dtype), params -> a new ndarray
KERNELS = dict([(op, _unary(op)) for op in _k.UNARY_OPS]
               + [(op, _binary(op)) for op in _k.BINARY_OPS]
               + [(op, _rows(op)) for op in ("softmax", "log_softmax")])


_ON = [True]   # the kernels' switch, for comparisons (use_kernels)


def use_kernels(on):
    """Whether plain eager calls run the kernels (True, the default) or the compositions,
    and erfc scipy's ufunc (for comparisons: asv_bench/compare_special.py --composed);
    returns the old setting."""
    old = _ON[0]
    _ON[0] = bool(on)
    return old


def eager(op, composition, *tensors, **params):
    """``op``'s kernel on ``tensors`` (of one dtype, as ``operands`` gives them) and
    ``params`` for a plain eager call on the CPU, else ``composition(*tensors)``."""
    if _ON[0] and not (_interpreters and (_primitive.state.interpreters
                                          or _primitive.state.lazy is not None)):
        for t in tensors:
            if t._ad is not None or t._trace is not None or t._device.type != "cpu" \
                    or t._data.dtype.char not in _REAL:
                break
        else:
            datas = [t._data for t in tensors]
            if _interpreters:   # another thread's transform, or a profile: same kernel
                out = _primitive.driver_call("special." + op, tensors[0]._device,
                                             KERNELS[op], datas, params)
            else:
                out = KERNELS[op](*datas, **params)
            return _wrap(out, tensors[0]._device)
    return composition(*tensors)


def cpu_kernel(op, other):
    """A CPU implementation: ``op``'s kernel for float32/float64 ndarrays, ``other``
    (same signature) for any other dtype."""
    fast = KERNELS[op]

    def run(*arrays):
        return (fast if _ON[0] and arrays[0].dtype.char in _REAL else other)(*arrays)
    run.__name__ = "tenferro_" + op
    return run
