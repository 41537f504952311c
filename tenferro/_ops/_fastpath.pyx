# cython: language_level=3
"""The eager fast paths of the everyday small calls, compiled: elementwise ops
(``unary``/``binary``), the reductions (``reduction``/``reduced``) and basic indexing
(``getitem``/``setitem``).  Each builds the function behind one op around its general
path (a Python function of tenferro._ops), which it calls for anything it does not take.

Elementwise: a plain call -- no ``out=``, no tracer active, tensors of class Tensor on
one device, or a tensor and a weak Python scalar -- whose dtypes the device has a ready
entry for (``dev._fast[(name, *dtypes)]``, made once by ``entry(name, ufunc, device,
dtypes)``: the driver's kernel, the output dtype, the primitive's parameters and the
Python ints the kernel takes) runs the kernel and wraps its result, recording it for
autodiff when an operand takes part; everything else goes to ``general``.  Each binary
function remembers its last tensor-tensor entry (saving the dict probe, whose dtype
hashes are ~40% of it).

Reductions: a Tensor, ``axis`` None or a Python int, no ``dtype``/``keepdims``/``out``:
the driver's implementation with the entry's output dtype (``dev._fast[(prim, dtype)]``,
made by ``entry(prim, device, dtype)``), recorded as ``bind`` would.

Indexing: a CPU Tensor outside autodiff, a key of Python ints and slices of Python ints
(at most one per axis): NumPy's own view of the ndarray (the CPU driver's
``basic_index`` is that view); ``setitem`` writes a Python scalar whose conversion into
the tensor's dtype is exact (or a plain tensor, through the driver's ``assign``), after
noting the write for autodiff's version check.

On tiny tensors the Python around the kernel is the whole cost, hence compiled (issue
17; docs/performance.md, "Per-call costs")."""
cimport numpy as cnp
from cpython.slice cimport PySlice_Unpack, PySlice_AdjustIndices
from cpython.exc cimport PyErr_Occurred, PyErr_Clear
from cpython.object cimport PyObject
from libc.math cimport isinf

from .. import _primitive, _versions
from .._primitive import _interpreters
from .._tensor import Tensor

cdef extern from "Python.h":
    object PyType_GenericAlloc(type t, Py_ssize_t nitems)
    Py_ssize_t PyLong_AsSsize_t(object) noexcept   # (the error checked here: see _basic_key)
    ctypedef struct PySliceObject:   # a slice's fields, read without attribute lookups
        PyObject* start
        PyObject* stop
        PyObject* step

cnp.import_array()


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


# -- reductions ------------------------------------------------------------------------

cdef tuple _ALL = tuple([tuple(range(n)) for n in range(65)])   # axis=None's, by ndim


cdef object _reduced(prim, entry, x, axis):
    """``prim`` (a reduction) of ``x`` over ``axis`` by the fast path, or None."""
    cdef object d, dev, key, r, axes, o, fn
    cdef Py_ssize_t nd, a
    if type(x) is not Tensor or _interpreters:
        return None
    d = x._data
    dev = x._device
    key = (prim, d.dtype)
    r = dev._fast.get(key)
    if r is None:
        r = entry(prim, dev, key[1])
        dev._fast[key] = r
    if not r:
        return None
    nd = d.ndim
    if axis is None and nd < 65:
        axes = _ALL[nd]
    elif type(axis) is int and nd and -nd <= axis < nd:
        a = axis
        axes = (a + nd if a < 0 else a,)
    else:   # a tuple, a NumPy integer, 0-d leniency, an error: the general path
        return None
    if r[1] and d.size == 0:   # no identity (max, min): the general path's error
        return None
    fn = dev.driver.implementations.get(prim.name)   # (eager_apply's probe: as registered now)
    if fn is None:
        return None
    o = _wrap(fn(d, axes=axes, out_dtype=r[0]), dev)
    if x._ad is None or _primitive.recorder is None:
        return o
    return _primitive.recorder(prim, (x,), {"axes": axes, "out_dtype": r[0]}, o)


def reduction(prim, general, entry):
    """``f(x, axis=None, dtype=None, keepdims=False, out=None)``: ``general(x, axis, dtype,
    keepdims, out)`` with the fast path in front; ``entry(prim, device, dtype)`` gives
    (the output dtype, whether an empty input is refused) or False; the driver's
    implementation is looked up on each call, as ``bind`` does."""
    def f(x, axis=None, dtype=None, keepdims=False, out=None):
        cdef object r
        if dtype is None and out is None and keepdims is False:
            r = _reduced(prim, entry, x, axis)
            if r is not None:
                return r
        return general(x, axis, dtype, keepdims, out)
    return f


def reduced(prim, entry, x, axis):
    """``prim`` of ``x`` over ``axis`` (None or an int) by the fast path, or None (for the
    reductions written from others, as ``mean``)."""
    return _reduced(prim, entry, x, axis)


# -- basic indexing ----------------------------------------------------------------------

cdef tuple _ELLIPSIS = (Ellipsis,)   # ending a key: an all-int key gives a 0-d view


cdef inline bint _plain(PyObject* o):
    return o == <PyObject*>None or type(<object>o) is int


cdef tuple _basic_key(cnp.ndarray d, key, bint* whole):
    """``key`` as a tuple when it is a plain basic index of ``d`` -- Python ints in range
    and slices of Python ints or None, at most one per axis -- else None (the general
    path: its errors, NumPy integers, None, ...); ``whole``: whether it selects all of
    ``d`` (no int, every slice full)."""
    cdef tuple k = <tuple>key if type(key) is tuple else (key,)
    cdef Py_ssize_t i, n, j, start, stop, step
    cdef cnp.npy_intp* shape = cnp.PyArray_DIMS(d)
    cdef PySliceObject* sl
    whole[0] = True
    if len(k) > cnp.PyArray_NDIM(d):
        return None
    for i in range(len(k)):
        e = k[i]
        n = shape[i]
        if type(e) is int:
            j = PyLong_AsSsize_t(e)
            if j == -1 and PyErr_Occurred():   # beyond Py_ssize_t: out of range
                PyErr_Clear()
                return None
            if j < -n or j >= n:
                return None
            whole[0] = False
        elif type(e) is slice:
            sl = <PySliceObject*>e
            if not (_plain(sl.start) and _plain(sl.stop) and _plain(sl.step)):
                return None
            if sl.step != <PyObject*>None and <object>sl.step == 0:   # ValueError: general
                return None
            PySlice_Unpack(e, &start, &stop, &step)
            PySlice_AdjustIndices(n, &start, &stop, step)
            if start != 0 or stop != n or step != 1:
                whole[0] = False
        else:
            return None
    return k


cdef inline object _cpu_array(x):
    """The ndarray of a plain CPU tensor outside autodiff (no tracer active), or None."""
    if type(x) is not Tensor or x._ad is not None or _interpreters:
        return None
    d = x._data
    if type(d) is not cnp.ndarray or x._device.type != "cpu":
        return None
    return d


def getitem(general):
    """``f(x, key)`` (Tensor.__getitem__): ``general(x, key)`` with the fast path in
    front.  As the general path, a key selecting all of ``x`` gives ``x`` itself."""
    def f(x, key):
        cdef object d = _cpu_array(x)
        cdef tuple k
        cdef bint whole
        if d is not None:
            k = _basic_key(d, key, &whole)
            if k is not None:
                if whole:
                    return x
                return _wrap(d[k + _ELLIPSIS], x._device)
        return general(x, key)
    return f


# the magnitudes below which a Python int converts exactly into a float dtype
cdef object _EXACT_F64 = 2 ** 53, _EXACT_F32 = 2 ** 24
cdef double _FLT_MAX = 3.4028234663852886e38


cdef bint _exact(v, type tv, int num):
    """Whether the Python scalar ``v`` (of type ``tv``) converts into the dtype number
    ``num`` as setitem's ``np.asarray(v, dtype)`` does with no error and no warning: a
    float into a float or complex dtype (float32's only in range: no overflow warning),
    an int in range of an int dtype or exactly representable in a float one, a bool
    into bool, a complex into complex128."""
    cdef double f
    if tv is float:
        if num == cnp.NPY_DOUBLE or num == cnp.NPY_CDOUBLE:
            return True
        if num == cnp.NPY_FLOAT or num == cnp.NPY_CFLOAT:
            f = v
            return f != f or -_FLT_MAX <= f <= _FLT_MAX or isinf(f)
        return False
    if tv is int:
        if num == cnp.NPY_INT64:
            return -9223372036854775808 <= v <= 9223372036854775807
        if num == cnp.NPY_INT32:
            return -2147483648 <= v <= 2147483647
        if num == cnp.NPY_DOUBLE or num == cnp.NPY_CDOUBLE:
            return -_EXACT_F64 <= v <= _EXACT_F64
        if num == cnp.NPY_FLOAT or num == cnp.NPY_CFLOAT:
            return -_EXACT_F32 <= v <= _EXACT_F32
        return False
    if tv is bool:
        return num == cnp.NPY_BOOL
    if tv is complex:
        return num == cnp.NPY_CDOUBLE
    return False


cdef dict _vstate = _versions.__dict__   # its ``epoch``, written without a lookup
cdef dict _mutated = _versions._mutated
cdef object _epochs = _versions._epochs


cdef int _note_write(d) except -1:
    """``_versions.note_mutation(d)``, compiled for its common case: a buffer written
    before, whose entry is alive, gets the next epoch (the same state, updated as there;
    a first write goes to ``note_mutation``, which makes the entry)."""
    cdef object root = d, b, entry
    while True:   # _versions._root
        b = getattr(root, "base", None)
        if b is None:
            break
        root = b
    entry = _mutated.get(id(root))
    if entry is None or entry[0]() is not root:
        _versions.note_mutation(d)
        return 0
    e = next(_epochs)
    _vstate["epoch"] = e
    _mutated[id(root)] = (entry[0], e)
    return 0


def setitem(general):
    """``f(x, key, value)`` (Tensor.__setitem__): ``general(x, key, value)`` with the fast
    path in front, for a writable ``x`` and a Python scalar converting exactly
    (``_exact``) or a plain tensor of the same device that needs no complex-to-real
    warning.  The write is noted (``_versions``) before it is made, as the general path
    does."""
    def f(x, key, value):
        cdef object d = _cpu_array(x), tv, dev, assign
        cdef tuple k
        cdef bint whole
        if d is not None and cnp.PyArray_ISWRITEABLE(d):
            k = _basic_key(d, key, &whole)
            if k is not None:
                tv = type(value)
                if tv is Tensor:
                    dev = x._device
                    assign = dev.driver.implementations.get("assign")
                    if value._ad is None and value._device is dev and assign is not None \
                            and (value._data.dtype.kind != "c" or d.dtype.kind == "c"):
                        dst = d if whole else d[k + _ELLIPSIS]
                        _note_write(dst)
                        assign(dst, value._data)
                        return
                elif _exact(value, tv, cnp.PyArray_TYPE(d)):
                    _note_write(d)
                    d[key] = value
                    return
        general(x, key, value)
    return f
