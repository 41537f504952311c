# cython: language_level=3
"""tenferro.nn's normalization kernels: ``layer_norm`` and ``rms_norm`` of each row of
a 2-D array, forward and backward (float32 and float64; _norm.h's row functions).

A row's mean and variance are taken in double in two passes over the row, which
stays in cache, then the normalized values are written in one more pass; the backward
recomputes the statistics the same way (so they equal the forward's) and writes dx
per row, while the weight and bias gradients are summed over the rows in blocks of
rows fixed by the shape alone (so the thread count changes no value), then the blocks
in order.

Entry points follow tenferro/_kernels/CONTRACT.md, except that, as ``_special.softmax``,
they take rows with a contiguous inner axis (any row stride) and C-contiguous outputs,
and raise ValueError for anything else: the caller lays the normalized dimensions out
as rows.  ``nthreads`` is the most threads to use (the caller applies the grain size).
"""
cimport numpy as cnp
from numpy cimport ndarray, npy_intp
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memset

include "_pool.pxi"

cnp.import_array()

cdef extern from "_norm.h" nogil:
    void tfn_forward_row_f64(const double *x, const double *w, const double *b, double *y,
                             Py_ssize_t n, int rms, double eps)
    void tfn_forward_row_f32(const float *x, const float *w, const float *b, float *y,
                             Py_ssize_t n, int rms, double eps)
    void tfn_backward_row_f64(const double *dy, const double *x, const double *w,
                              double *dx, double *pw, double *pb, Py_ssize_t n, int rms,
                              double eps)
    void tfn_backward_row_f32(const float *dy, const float *x, const float *w, float *dx,
                              double *pw, double *pb, Py_ssize_t n, int rms, double eps)

# At most this many doubles of partial weight/bias gradients per call (blocks x n).
cdef Py_ssize_t PARTIALS = 1 << 21
cdef Py_ssize_t MAX_BLOCKS = 64


# The partial sums' scratch, kept between calls up to SCRATCH_KEEP doubles (a fresh
# buffer of that size is mapped and faulted in anew on every call); claimed and given
# back while holding the GIL, so one call at a time uses it (others allocate their own).
cdef Py_ssize_t SCRATCH_KEEP = 1 << 19
cdef double *_scratch = NULL
cdef Py_ssize_t _scratch_n = 0
cdef bint _scratch_busy = False


cdef double *_claim(Py_ssize_t n, bint *own) except NULL:
    """n zeroed doubles: the kept scratch where free and large enough, else new ones
    (``own``: to be freed by the caller)."""
    global _scratch, _scratch_n, _scratch_busy
    cdef double *p
    if not _scratch_busy and n <= SCRATCH_KEEP:
        if _scratch_n < n:
            free(_scratch)
            _scratch_n = 0
            _scratch = <double *>malloc(n * sizeof(double))
            if _scratch == NULL:
                raise MemoryError()
            _scratch_n = n
        _scratch_busy = True
        own[0] = False
        memset(_scratch, 0, n * sizeof(double))
        return _scratch
    p = <double *>calloc(n, sizeof(double))
    if p == NULL:
        raise MemoryError()
    own[0] = True
    return p


cdef void _release(double *p, bint own):
    global _scratch_busy
    if own:
        free(p)
    elif p != NULL:
        _scratch_busy = False


ctypedef struct Ctx:
    int f64, rms
    double eps
    char *x
    char *dy
    char *w
    char *b
    char *y
    Py_ssize_t rows, n, xs, dys, ys
    Py_ssize_t nchunks
    double *pw
    double *pb


cdef int _forward_chunk(void *vc, Py_ssize_t c) noexcept nogil:
    cdef Ctx *r = <Ctx *>vc
    cdef Py_ssize_t i
    for i in range(r.rows * c // r.nchunks, r.rows * (c + 1) // r.nchunks):
        if r.f64:
            tfn_forward_row_f64(<double *>(r.x + i * r.xs), <double *>r.w, <double *>r.b,
                                <double *>(r.y + i * r.ys), r.n, r.rms, r.eps)
        else:
            tfn_forward_row_f32(<float *>(r.x + i * r.xs), <float *>r.w, <float *>r.b,
                                <float *>(r.y + i * r.ys), r.n, r.rms, r.eps)
    return 0


cdef int _backward_chunk(void *vc, Py_ssize_t c) noexcept nogil:
    # chunk c is block c: its partial sums are rows c of pw and pb
    cdef Ctx *r = <Ctx *>vc
    cdef Py_ssize_t i
    cdef double *pw = NULL if r.pw == NULL else r.pw + c * r.n
    cdef double *pb = NULL if r.pb == NULL else r.pb + c * r.n
    cdef char *dx
    for i in range(r.rows * c // r.nchunks, r.rows * (c + 1) // r.nchunks):
        dx = NULL if r.y == NULL else r.y + i * r.ys
        if r.f64:
            tfn_backward_row_f64(<double *>(r.dy + i * r.dys), <double *>(r.x + i * r.xs),
                                 <double *>r.w, <double *>dx, pw, pb, r.n, r.rms, r.eps)
        else:
            tfn_backward_row_f32(<float *>(r.dy + i * r.dys), <float *>(r.x + i * r.xs),
                                 <float *>r.w, <float *>dx, pw, pb, r.n, r.rms, r.eps)
    return 0


cdef int _mode(str mode) except -1:
    if mode == "layer_norm":
        return 0
    if mode == "rms_norm":
        return 1
    raise ValueError("tenferro kernel _norm: unknown mode %r" % (mode,))


cdef int _f64(str op, ndarray x) except -1:
    cdef int t = cnp.PyArray_TYPE(x)
    if t == cnp.NPY_DOUBLE:
        return 1
    if t == cnp.NPY_FLOAT:
        return 0
    raise TypeError("tenferro kernel _norm.%s: no loop for %s" % (op, x.dtype))


cdef char *_rows(str op, str what, ndarray a, ndarray x, bint out) except? NULL:
    """a's data, checked: x's dtype, a 2-D array of x's shape with contiguous rows (C
    order if ``out``)."""
    if cnp.PyArray_TYPE(a) != cnp.PyArray_TYPE(x) or cnp.PyArray_NDIM(a) != 2 \
            or a.shape[0] != x.shape[0] or a.shape[1] != x.shape[1] \
            or (a.shape[0] > 0 and a.shape[1] > 1 and a.strides[1] != a.itemsize) \
            or (out and not (cnp.PyArray_IS_C_CONTIGUOUS(a) and cnp.PyArray_ISWRITEABLE(a))):
        raise ValueError("tenferro kernel _norm.%s: %s must be %s 2-D %s array of shape %s "
                         "with contiguous rows" % (op, what, "a writeable C-contiguous"
                                                   if out else "a", x.dtype, (<object>x).shape))
    return cnp.PyArray_BYTES(a)


cdef char *_vector(str op, str what, object a, ndarray x, bint out) except? NULL:
    """a's data (NULL for None), checked: a contiguous 1-D array of x's row length."""
    if a is None:
        return NULL
    cdef ndarray v = a
    if cnp.PyArray_TYPE(v) != cnp.PyArray_TYPE(x) or cnp.PyArray_NDIM(v) != 1 \
            or v.shape[0] != x.shape[1] or not cnp.PyArray_IS_C_CONTIGUOUS(v) \
            or (out and not cnp.PyArray_ISWRITEABLE(v)):
        raise ValueError("tenferro kernel _norm.%s: %s must be a contiguous %s array of "
                         "shape (%d,)" % (op, what, x.dtype, x.shape[1]))
    return cnp.PyArray_BYTES(v)


cdef int _init(Ctx *r, str op, str mode, ndarray x, object w, object bias, double eps) \
        except -1:
    """What forward and backward share: the mode, the dtype, x and w (checked); ``bias``
    (the bias or its gradient) must be None for rms_norm."""
    r.rms = _mode(mode)
    r.f64 = _f64(op, x)
    if r.rms and bias is not None:
        raise ValueError("tenferro kernel _norm.%s: rms_norm has no bias" % op)
    r.x = _rows(op, "x", x, x, False)
    r.w = _vector(op, "w", w, x, False)
    r.rows, r.n, r.xs = x.shape[0], x.shape[1], x.strides[0]
    r.eps = eps
    return 0


def forward(str mode, ndarray x, object w, object b, ndarray out, double eps, int nthreads):
    """out[i] = mode(x[i]) for each row of the 2-D ``x`` (mode "layer_norm": ``(x - mean)
    * rstd * w + b``; "rms_norm": ``x * rstd * w``, ``b`` must be None); ``w``, ``b``:
    1-D of the row length, or None."""
    cdef Ctx r
    _init(&r, "forward", mode, x, w, b, eps)
    r.y = _rows("forward", "out", out, x, True)
    r.b = _vector("forward", "b", b, x, False)
    r.ys = out.strides[0]
    if r.rows == 0 or r.n == 0:
        return
    r.nchunks = pool_chunks(r.rows, nthreads, TF_POOL_CHUNKS_PER_THREAD)
    with nogil:
        if nthreads <= 1 or r.nchunks <= 1:
            r.nchunks = 1
            _forward_chunk(&r, 0)
        else:
            tf_parallel_for(r.nchunks, nthreads, _forward_chunk, &r)


def backward(str mode, ndarray dy, ndarray x, object w, object dx, object dw, object db,
             double eps, int nthreads):
    """The gradients of ``sum(dy * mode(x, w, b))`` (see :func:`forward`): ``dx`` (2-D, as
    x), ``dw`` and ``db`` (1-D of the row length: the sums over the rows), each written
    where given (None: not wanted; ``db`` is None for rms_norm)."""
    cdef Ctx r
    _init(&r, "backward", mode, x, w, db, eps)
    r.dy = _rows("backward", "dy", dy, x, False)
    r.dys = dy.strides[0]
    r.y = NULL if dx is None else _rows("backward", "dx", dx, x, True)
    r.ys = 0 if dx is None else (<ndarray>dx).strides[0]
    cdef char *dwp = _vector("backward", "dw", dw, x, True)
    cdef char *dbp = _vector("backward", "db", db, x, True)
    cdef Py_ssize_t blocks, j, k, n = r.n
    cdef double sw, sb
    if n == 0:
        return
    if r.rows == 0:
        if dwp != NULL:
            memset(dwp, 0, n * x.itemsize)
        if dbp != NULL:
            memset(dbp, 0, n * x.itemsize)
        return
    # the blocks of rows whose weight/bias gradients are summed apart: fixed by the shape
    blocks = min(r.rows, MAX_BLOCKS, max(PARTIALS // (2 * n), 1))
    r.pw = r.pb = NULL
    cdef double *partials = NULL
    cdef bint own = False
    if dwp != NULL or dbp != NULL:
        r.nchunks = blocks
        partials = _claim(2 * blocks * n, &own)
        if dwp != NULL:
            r.pw = partials
        if dbp != NULL:
            r.pb = partials + blocks * n
    else:
        r.nchunks = pool_chunks(r.rows, nthreads, TF_POOL_CHUNKS_PER_THREAD)
    with nogil:
        if nthreads <= 1 or r.nchunks <= 1:
            for k in range(r.nchunks):
                _backward_chunk(&r, k)
        else:
            tf_parallel_for(r.nchunks, nthreads, _backward_chunk, &r)
        for j in range(n):
            sw = 0.0
            sb = 0.0
            for k in range(blocks if (r.pw != NULL or r.pb != NULL) else 0):
                if r.pw != NULL:
                    sw = sw + r.pw[k * n + j]
                if r.pb != NULL:
                    sb = sb + r.pb[k * n + j]
            if dwp != NULL:
                if r.f64:
                    (<double *>dwp)[j] = sw
                else:
                    (<float *>dwp)[j] = <float>sw
            if dbp != NULL:
                if r.f64:
                    (<double *>dbp)[j] = sb
                else:
                    (<float *>dbp)[j] = <float>sb
    _release(partials, own)
