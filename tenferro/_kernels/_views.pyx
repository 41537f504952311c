# cython: language_level=3
"""Zero-copy view construction for the CPU driver (broadcasting without NumPy's
Python-level overhead: ~0.1 us instead of ~2 us for ``np.broadcast_to``)."""
cimport numpy as cnp
from cpython.ref cimport Py_INCREF
from cpython.object cimport PyTypeObject

cnp.import_array()

cdef extern from "numpy/arrayobject.h":
    object PyArray_NewFromDescr(PyTypeObject* subtype, cnp.dtype descr, int nd,
                                cnp.npy_intp* dims, cnp.npy_intp* strides,
                                void* data, int flags, object obj)

DEF MAXDIMS = 64


def broadcast_shape(tuple a, tuple b):
    """NumPy broadcast of two shapes; None when they do not broadcast."""
    cdef Py_ssize_t na = len(a), nb = len(b), n = na if na > nb else nb, i
    cdef Py_ssize_t da, db
    out = [0] * n
    for i in range(n):
        da = a[na - n + i] if i >= n - na else 1
        db = b[nb - n + i] if i >= n - nb else 1
        if da == db or db == 1:
            out[i] = da
        elif da == 1:
            out[i] = db
        else:
            return None
    return tuple(out)


def broadcast_to(cnp.ndarray a, tuple shape):
    """A read-only zero-stride view of ``a`` with ``shape``; None if it does not broadcast."""
    cdef int nd = len(shape), ad = cnp.PyArray_NDIM(a), i, j
    cdef cnp.npy_intp dims[MAXDIMS]
    cdef cnp.npy_intp strides[MAXDIMS]
    cdef cnp.npy_intp *ash = cnp.PyArray_DIMS(a)
    cdef cnp.npy_intp *ast = cnp.PyArray_STRIDES(a)
    if nd < ad or nd > MAXDIMS:
        return None
    for i in range(nd):
        dims[i] = shape[i]
        j = i - (nd - ad)
        if j < 0:
            strides[i] = 0
        elif ash[j] == dims[i]:
            strides[i] = ast[j]
        elif ash[j] == 1:
            strides[i] = 0
        else:
            return None
    cdef cnp.dtype descr = a.dtype
    Py_INCREF(descr)
    r = PyArray_NewFromDescr(<PyTypeObject*>cnp.ndarray, descr, nd, dims, strides,
                                 cnp.PyArray_DATA(a), 0, None)
    Py_INCREF(a)
    cnp.PyArray_SetBaseObject(r, a)
    return r
