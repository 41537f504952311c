# cython: language_level=3
"""The eager fast path of the elementwise ops, compiled: ``unary``/``binary`` build the
function behind one op around its general path (tenferro._ops.elementwise: Tensor's
operators are these functions, ``tenferro.<op>`` a Python function calling one).

A plain call -- no ``out=``, no tracer active, tensors of class Tensor on one device,
or a tensor and a weak Python scalar -- whose dtypes the device has a ready entry for
(``dev._fast[(name, *dtypes)]``, made once by ``entry(name, ufunc, device, dtypes)``:
the driver's kernel, the output dtype, the primitive's parameters and the Python ints
the kernel takes) runs the kernel and wraps its result, recording it for autodiff when
an operand takes part; everything else goes to ``general``.  Each binary function
remembers its last tensor-tensor entry (saving the dict probe, whose dtype hashes are
~40% of it).  On tiny tensors the Python around the kernel is the whole cost, hence
compiled (issue 17: a 3-element add within 2x NumPy's; docs/performance.md)."""
from .. import _primitive
from .._primitive import _interpreters
from .._tensor import Tensor

cdef extern from "Python.h":
    object PyType_GenericAlloc(type t, Py_ssize_t nitems)


cdef inline object _wrap(data, dev):
    """_tensor._wrap (``object.__new__(Tensor)``: Tensor's own allocator, which is the
    generic one), inlined."""
    cdef object t = PyType_GenericAlloc(<type>Tensor, 0)
    t._data = data
    t._device = dev
    t._ad = None
    return t


def unary(str name, ufunc, prim, general, entry):
    """``f(x, out=None)``: ``general(x, out)`` with the fast path in front."""
    def f(x, out=None):
        cdef object d, dev, key, r, o
        if out is None and type(x) is Tensor and not _interpreters:
            d = x._data
            dev = x._device
            key = (name, d.dtype)
            r = dev._fast.get(key)
            if r is None:
                r = entry(name, ufunc, dev, (d.dtype,))
                dev._fast[key] = r
            if r:
                o = _wrap(r[0](d), dev)
                if x._ad is None or _primitive.recorder is None:
                    return o
                return _primitive.recorder(prim, (x,), r[2], o)  # record for autodiff
        return general(x, out)
    return f


def binary(str name, ufunc, prim, general, entry, scalars, scalar_on):
    """``f(x1, x2, out=None)``: ``general(x1, x2, out)`` with the fast path in front;
    a weak scalar ``x2`` is the 0-d device array ``scalars.get((type, value, dtype,
    device))``, else ``scalar_on(value, dtype, device)``."""
    cdef tuple last = (None, None, None, False)   # the last (dtype, dtype, device, entry)

    def f(x1, x2, out=None):
        nonlocal last
        cdef object t2, dev, d1, d2, dt1, dt2, key, r, o, s2
        if out is None and type(x1) is Tensor and not _interpreters:
            t2 = type(x2)
            if t2 is Tensor:
                dev = x1._device
                if x2._device is dev:
                    d1 = x1._data
                    d2 = x2._data
                    dt1 = d1.dtype
                    dt2 = d2.dtype
                    if last[0] is dt1 and last[1] is dt2 and last[2] is dev:
                        r = last[3]   # (one tuple: read whole, under the GIL)
                    else:
                        key = (name, dt1, dt2)
                        r = dev._fast.get(key)
                        if r is None:
                            r = entry(name, ufunc, dev, key[1:])
                            dev._fast[key] = r
                        last = (dt1, dt2, dev, r)
                    if r:
                        o = _wrap(r[0](d1, d2), dev)
                        if x1._ad is None and x2._ad is None or _primitive.recorder is None:
                            return o
                        return _primitive.recorder(prim, (x1, x2), r[2], o)
            elif t2 is float or t2 is int or t2 is complex:
                d1 = x1._data
                dev = x1._device
                key = (name, d1.dtype, t2)
                r = dev._fast.get(key)
                if r is None:
                    r = entry(name, ufunc, dev, key[1:])
                    dev._fast[key] = r
                if r and (t2 is not int or r[3][0] <= x2 <= r[3][1]):
                    s2 = scalars.get((t2, x2, d1.dtype, dev))
                    if s2 is None:
                        s2 = scalar_on(x2, d1.dtype, dev)
                    o = _wrap(r[0](d1, s2), dev)
                    if x1._ad is None or _primitive.recorder is None:
                        return o
                    return _primitive.recorder(prim, (x1, _wrap(s2, dev)), r[2], o)
        return general(x1, x2, out)
    return f
