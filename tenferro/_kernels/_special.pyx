# cython: language_level=3
"""tenferro.special's own CPU kernels: scipy.special's functions whose direct formula is
as accurate as scipy's and cheaper to run tenferro's way.

Unary: log_expit, logit, entr, sinc (numpy's normalized sinc), erfc (expit is
tenferro.sigmoid, already one SIMD pass);
binary: xlogy, xlog1py, rel_entr, kl_div; and ``softmax`` (softmax and log_softmax of
each row of a 2-D array); float32 and float64 (float32 computed in float32 as scipy's
float loops do).  The
element functions are _special_math.h's (scipy's formulas and edge values), written
once and instantiated per dtype by _special.h inside the elementwise kernels' loop
macros (_elementwise_loops.h: dimension coalescing, contiguous / broadcast / strided
runs under ``omp simd`` with libmvec's SIMD exp, log, log1p, sin and erfc).

Entry points follow tenferro/_kernels/CONTRACT.md: inputs already have the loop's
dtype and one shape (the caller broadcasts), ``out`` is preallocated with that dtype,
any strides; ``nthreads`` is the most threads to use, and a call stays on one thread
below the transcendental grain size (``set_grain``; the CPU driver's
``devices/cpu/threads.py`` sets it), above it the range is split in chunks on the
shared pool (_pool.h).
"""
cimport numpy as cnp
from numpy cimport ndarray, npy_intp

include "_pool.pxi"

cnp.import_array()

cdef extern from "_special.h" nogil:
    ctypedef void (*tf_loop_fn)(char **args, const npy_intp *st, npy_intp n, int *err)
    ctypedef struct tf_iter:
        int ndim
        npy_intp size
    npy_intp tf_iter_init(tf_iter *it, int nop, char **data, int ndim,
                          const npy_intp *shape, npy_intp **strides)
    int tf_iter_range(const tf_iter *it, tf_loop_fn fn, npy_intp start, npy_intp end)
    npy_intp tf_chunk_start(npy_intp size, int c, int nchunks)
    tf_loop_fn tfs_unary_fns[]
    tf_loop_fn tfs_binary_fns[]
    const char *tfs_unary_names[]
    const char *tfs_binary_names[]
    ctypedef void (*tfs_row_fn)(const void *x, void *o, npy_intp n, int log_mode)
    tfs_row_fn tfs_softmax_rows[]


cdef list _names(const char **table):
    cdef list out = []
    cdef int i = 0
    while table[i] != NULL:
        out.append(table[i].decode())
        i += 1
    return out


UNARY_OPS = _names(tfs_unary_names)
BINARY_OPS = _names(tfs_binary_names)
cdef dict _UIDX = {name: i for i, name in enumerate(UNARY_OPS)}
cdef dict _BIDX = {name: i for i, name in enumerate(BINARY_OPS)}

# From this many elements a call runs on more than one thread, each thread taking at
# least a quarter of it (the elementwise kernels' transcendental rule).
cdef npy_intp GRAIN = 4096


def set_grain(transcendental=None):
    """Set the element count from which a call uses more than one thread; returns the
    old value as a dict of the same keyword."""
    global GRAIN
    old = dict(transcendental=GRAIN)
    if transcendental is not None:
        GRAIN = max(<npy_intp>transcendental, 1)
    return old


ctypedef struct Ctx:
    tf_iter it
    tf_loop_fn fn
    Py_ssize_t nchunks


cdef int _chunk(void *vc, Py_ssize_t c) noexcept nogil:
    cdef Ctx *r = <Ctx *>vc
    return tf_iter_range(&r.it, r.fn, tf_chunk_start(r.it.size, <int>c, <int>r.nchunks),
                         tf_chunk_start(r.it.size, <int>c + 1, <int>r.nchunks))


cdef int _run(tf_loop_fn fn, int nop, char **data, int ndim, npy_intp *shape,
              npy_intp **strides, int nthreads) noexcept nogil:
    cdef Ctx r
    cdef npy_intp size = tf_iter_init(&r.it, nop, data, ndim, shape, strides)
    cdef npy_intp nth = nthreads
    if size == 0:
        return 0
    r.fn = fn
    if size < GRAIN or nth <= 1:
        r.nchunks = 1
        return _chunk(&r, 0)
    if size // nth < GRAIN // 4:
        nth = max(size // max(GRAIN // 4, 1), 1)
    r.nchunks = pool_chunks(size, <int>nth, TF_POOL_CHUNKS_PER_THREAD)
    return tf_parallel_for(r.nchunks, <int>nth, _chunk, &r)


cdef int _dtype(str name, str op, ndarray x) except -1:
    cdef int t = cnp.PyArray_TYPE(x)
    if t == cnp.NPY_FLOAT:
        return 0
    if t == cnp.NPY_DOUBLE:
        return 1
    raise TypeError("tenferro kernel _special.%s: no loop for %s" % (op, x.dtype))


cdef int _check(ndarray x, ndarray out, int t) except -1:
    if cnp.PyArray_TYPE(out) != cnp.PyArray_TYPE(x):
        raise TypeError("tenferro kernel _special: wrong output dtype %s" % (out.dtype,))
    cdef int d, nd = cnp.PyArray_NDIM(out)
    if cnp.PyArray_NDIM(x) != nd:
        raise ValueError("tenferro kernel _special: shape mismatch")
    for d in range(nd):
        if cnp.PyArray_DIMS(x)[d] != cnp.PyArray_DIMS(out)[d]:
            raise ValueError("tenferro kernel _special: shape mismatch")
    if not cnp.PyArray_ISWRITEABLE(out):
        raise ValueError("tenferro kernel _special: out is read-only")
    return 0


def unary(str op, ndarray x, ndarray out, int nthreads):
    """out[...] = op(x) elementwise (op in UNARY_OPS; float32 or float64)."""
    cdef object k = _UIDX.get(op)
    if k is None:
        raise ValueError("tenferro kernel _special: unknown unary op %r" % (op,))
    cdef int t = _dtype("unary", op, x)
    _check(x, out, t)
    cdef char *data[2]
    cdef npy_intp *strides[2]
    data[0], data[1] = cnp.PyArray_BYTES(x), cnp.PyArray_BYTES(out)
    strides[0], strides[1] = cnp.PyArray_STRIDES(x), cnp.PyArray_STRIDES(out)
    cdef tf_loop_fn fn = tfs_unary_fns[<int>k * 2 + t]
    with nogil:
        _run(fn, 2, data, cnp.PyArray_NDIM(out), cnp.PyArray_DIMS(out), strides, nthreads)


def binary(str op, ndarray a, ndarray b, ndarray out, int nthreads):
    """out[...] = op(a, b) elementwise (op in BINARY_OPS; a, b, out one dtype, one
    shape)."""
    cdef object k = _BIDX.get(op)
    if k is None:
        raise ValueError("tenferro kernel _special: unknown binary op %r" % (op,))
    cdef int t = _dtype("binary", op, a)
    _check(a, out, t)
    _check(b, out, t)
    cdef char *data[3]
    cdef npy_intp *strides[3]
    data[0], data[1], data[2] = (cnp.PyArray_BYTES(a), cnp.PyArray_BYTES(b),
                                 cnp.PyArray_BYTES(out))
    strides[0], strides[1], strides[2] = (cnp.PyArray_STRIDES(a), cnp.PyArray_STRIDES(b),
                                          cnp.PyArray_STRIDES(out))
    cdef tf_loop_fn fn = tfs_binary_fns[<int>k * 2 + t]
    with nogil:
        _run(fn, 3, data, cnp.PyArray_NDIM(out), cnp.PyArray_DIMS(out), strides, nthreads)


ctypedef struct RowCtx:
    tfs_row_fn fn
    char *x
    char *o
    npy_intp rows, n, xs, os
    int log_mode
    Py_ssize_t nchunks


cdef int _rows_chunk(void *vc, Py_ssize_t c) noexcept nogil:
    cdef RowCtx *r = <RowCtx *>vc
    cdef npy_intp i
    for i in range(r.rows * c // r.nchunks, r.rows * (c + 1) // r.nchunks):
        r.fn(r.x + i * r.xs, r.o + i * r.os, r.n, r.log_mode)
    return 0


def softmax(str mode, ndarray x, ndarray out, int nthreads):
    """out[i, :] = mode(x[i, :]) for each row of the 2-D ``x`` (mode "softmax" or
    "log_softmax"; rows contiguous: the inner stride is the itemsize); ``out`` C
    order, x's shape and dtype.  Rows are computed alone, so the thread split changes
    no value."""
    cdef int t = _dtype("softmax", mode, x)
    if mode not in ("softmax", "log_softmax"):
        raise ValueError("tenferro kernel _special: unknown softmax mode %r" % (mode,))
    _check(x, out, t)
    if cnp.PyArray_NDIM(x) != 2 or (x.shape[1] > 1 and x.strides[1] != x.itemsize) \
            or not cnp.PyArray_IS_C_CONTIGUOUS(out):
        raise ValueError("tenferro kernel _special.softmax: needs 2-D x with contiguous "
                         "rows and a C-contiguous out")
    cdef RowCtx r
    r.fn = tfs_softmax_rows[t]
    r.x, r.o = cnp.PyArray_BYTES(x), cnp.PyArray_BYTES(out)
    r.rows, r.n = x.shape[0], x.shape[1]
    r.xs, r.os = x.strides[0], out.strides[0]
    r.log_mode = mode == "log_softmax"
    cdef npy_intp nth = nthreads
    if r.rows * r.n < GRAIN or nth <= 1 or r.rows < 2:
        nth = 1
    elif r.rows * r.n // nth < GRAIN // 4:
        nth = max(r.rows * r.n // max(GRAIN // 4, 1), 1)
    r.nchunks = pool_chunks(r.rows, <int>nth, TF_POOL_CHUNKS_PER_THREAD)
    with nogil:
        if nth <= 1 or r.nchunks <= 1:
            r.nchunks = 1
            _rows_chunk(&r, 0)
        else:
            tf_parallel_for(r.nchunks, <int>nth, _rows_chunk, &r)
