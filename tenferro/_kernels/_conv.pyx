# cython: language_level=3
"""Direct convolution kernels (the CPU implementation of ``nn.conv`` where a BLAS
product per group would have a single row: depthwise and other convolutions with few
channels per group, and their gradients).

``conv2d`` computes the 2-d grouped cross-correlation of x (N, C, H, W) with w
(O, C / groups, KH, KW) into out (N, O, OH, OW) with window strides, kernel dilation,
input dilation (the transposed convolution of an input's gradient) and low padding;
the high padding is implied by the output size (x reads as zero outside its extent and
between its dilated elements, so nothing is padded or dilated in memory).  The loops are _conv.h's (C,
``omp simd``): one item per output row, split in chunks on the shared pool (_pool.h)
from ``GRAIN`` multiply-adds up.  float32, float64, complex64, complex128.

``pool_argmax`` is max pooling's window argmax (``nn.max_pool_argmax``), PyTorch's tie
and NaN rules, in the same row-by-row, tap-by-tap order (_conv_pool.h).

Entry points follow tenferro/_kernels/CONTRACT.md: inputs already have one dtype,
``out`` is preallocated with it, any strides (multiples of the itemsize); ``nthreads``
is the most threads to use.
"""
cimport numpy as cnp
from numpy cimport ndarray, npy_intp

include "_pool.pxi"

cnp.import_array()

cdef extern from "_conv.h" nogil:
    ctypedef Py_ssize_t tfc_i
    ctypedef struct tfc_geo:
        const char *x
        const char *w
        char *o
        tfc_i N, C, H, W, O, CG, OG, KH, KW, OH, OW
        tfc_i xs[4]
        tfc_i ws[4]
        tfc_i os[4]
        tfc_i sh, sw, dh, dw, ph, pw, lh, lw
        int dots
    void tfc_setup(tfc_geo *g, tfc_i *buf)
    ctypedef int (*tfc_items_fn)(const void *geo, tfc_i start, tfc_i end)
    tfc_items_fn tfc_items_fns[4]

cdef extern from "_conv_pool.h" nogil:
    ctypedef struct tfp_geo:
        const char *x
        char *o
        tfc_i B, H, W, OH, OW, KH, KW, sh, sw, ph, pw, dh, dw
        tfc_i xs[3]
        tfc_i os[3]
    void tfp_setup(tfp_geo *g, tfc_i *buf)
    tfc_items_fn tfp_items_fns[2]

from libc.stdlib cimport malloc, free

# From this many multiply-adds a call runs on more than one thread, each thread taking
# at least a quarter of it.
cdef npy_intp GRAIN = 1 << 16


def set_grain(n=None):
    """Set the multiply-add count from which a call uses more than one thread; returns
    the old value as a dict of the same keyword."""
    global GRAIN
    old = dict(n=GRAIN)
    if n is not None:
        GRAIN = max(<npy_intp>n, 1)
    return old


ctypedef struct Ctx:
    const void *g
    tfc_items_fn fn
    Py_ssize_t items, nchunks


cdef int _chunk(void *vc, Py_ssize_t c) noexcept nogil:
    cdef Ctx *r = <Ctx *>vc
    return r.fn(r.g, r.items * c // r.nchunks, r.items * (c + 1) // r.nchunks)


cdef int _run(const void *g, tfc_items_fn fn, Py_ssize_t items, npy_intp work,
             int nthreads) noexcept:
    """Run fn's items of geometry g: on one thread below GRAIN multiply-adds
    (comparisons), else in pool chunks, each thread taking at least GRAIN / 4."""
    cdef Ctx r
    cdef npy_intp nth = nthreads
    r.g, r.fn, r.items = g, fn, items
    if work < GRAIN or nth <= 1 or items < 2:
        nth = 1
    elif work // nth < GRAIN // 4:
        nth = max(work // max(GRAIN // 4, 1), 1)
    r.nchunks = pool_chunks(items, <int>nth, TF_POOL_CHUNKS_PER_THREAD)
    with nogil:
        if nth <= 1 or r.nchunks <= 1:
            r.nchunks = 1
            return _chunk(&r, 0)
        return tf_parallel_for(r.nchunks, <int>nth, _chunk, &r)


cdef int _dtype(ndarray a) except -1:
    cdef int t = cnp.PyArray_TYPE(a)
    if t == cnp.NPY_FLOAT:
        return 0
    if t == cnp.NPY_DOUBLE:
        return 1
    if t == cnp.NPY_CFLOAT:
        return 2
    if t == cnp.NPY_CDOUBLE:
        return 3
    raise TypeError("tenferro kernel _conv.conv2d: no loop for %s" % (a.dtype,))


cdef int _strides(ndarray a, tfc_i *out, str name) except -1:
    """a's strides in scalars (a complex element is two)."""
    cdef npy_intp scalar = cnp.PyArray_ITEMSIZE(a) // (2 if cnp.PyArray_TYPE(a) in (
        cnp.NPY_CFLOAT, cnp.NPY_CDOUBLE) else 1)
    cdef int d
    for d in range(4):
        if cnp.PyArray_STRIDES(a)[d] % cnp.PyArray_ITEMSIZE(a):
            raise ValueError("tenferro kernel _conv.conv2d: %s's strides are not multiples "
                             "of its itemsize" % name)
        out[d] = cnp.PyArray_STRIDES(a)[d] // scalar
    return 0


def conv2d(ndarray x, ndarray w, ndarray out, strides, dilation, padding, lhs_dilation,
           int nthreads):
    """out[n, o, oy, ox] = sum over c < C/groups, kh, kw of w[o, c, kh, kw]
    * xd[n, (o // (O/groups)) * C/groups + c, oy*sh + kh*dh - ph, ox*sw + kw*dw - pw]
    where xd is x with ``lhs_dilation`` (lh, lw) - 1 zeros between its rows and columns,
    zero outside its extent; ``strides`` (sh, sw) and ``dilation`` (dh, dw) >= 1, low
    ``padding`` (ph, pw) any ints (negative: cropped), sw = 1 where lw > 1; the groups
    C / w.shape[1].  Rows are computed alone, so the thread split changes no value."""
    cdef int t = _dtype(x)
    if cnp.PyArray_TYPE(w) != cnp.PyArray_TYPE(x) or cnp.PyArray_TYPE(out) != cnp.PyArray_TYPE(x):
        raise TypeError("tenferro kernel _conv.conv2d: x, w and out must share a dtype, "
                        "got %s, %s, %s" % (x.dtype, w.dtype, out.dtype))
    if x.ndim != 4 or w.ndim != 4 or out.ndim != 4:
        raise ValueError("tenferro kernel _conv.conv2d: x, w and out must be 4-d")
    cdef tfc_geo geo
    cdef tfc_geo *g = &geo
    g.N, g.C, g.H, g.W = x.shape[0], x.shape[1], x.shape[2], x.shape[3]
    g.O, g.CG, g.KH, g.KW = w.shape[0], w.shape[1], w.shape[2], w.shape[3]
    g.OH, g.OW = out.shape[2], out.shape[3]
    g.sh, g.sw = strides
    g.dh, g.dw = dilation
    g.ph, g.pw = padding
    g.lh, g.lw = lhs_dilation
    if (out.shape[0] != g.N or out.shape[1] != g.O or g.CG < 1 or g.C % g.CG
            or g.O % (g.C // g.CG) or min(g.sh, g.sw, g.dh, g.dw, g.lh, g.lw) < 1
            or (g.lw > 1 and g.sw != 1)):
        raise ValueError("tenferro kernel _conv.conv2d: shapes x %s, w %s, out %s or "
                         "strides %s, dilation %s, padding %s, lhs_dilation %s do not fit"
                         % ((<object>x).shape, (<object>w).shape, (<object>out).shape, strides,
                            dilation, padding, lhs_dilation))
    if not cnp.PyArray_ISWRITEABLE(out):
        raise ValueError("tenferro kernel _conv.conv2d: out is read-only")
    g.OG = g.O // (g.C // g.CG)
    _strides(x, g.xs, "x")
    _strides(w, g.ws, "w")
    _strides(out, g.os, "out")
    g.x, g.w, g.o = cnp.PyArray_BYTES(x), cnp.PyArray_BYTES(w), cnp.PyArray_BYTES(out)
    # few output columns from a wide kernel: dot products along the kernel rows
    g.dots = g.OW < g.KW and g.lw == 1
    cdef Py_ssize_t items = g.N * g.O * (1 if g.dots else g.OH)   # planes (dots), rows
    if items == 0 or g.OW == 0:
        return
    cdef tfc_i *ranges = <tfc_i *>malloc(sizeof(tfc_i) * 4 * (g.KW + 1))
    if ranges == NULL:
        raise MemoryError()
    tfc_setup(g, ranges)
    cdef int err = _run(g, tfc_items_fns[t], items,
                        g.N * g.O * g.OH * g.OW * g.CG * g.KH * g.KW, nthreads)
    free(ranges)
    if err:
        raise MemoryError("tenferro kernel _conv.conv2d: no memory for a scratch row")


def pool_argmax(ndarray x, ndarray out, kernel, strides, padding, dilation, int nthreads):
    """out[b, oy, ox] = the flat index iy * W + ix of the maximum of x[b] (B, H, W) over
    the window rows oy*sh - ph + kh*dh, columns ox*sw - pw + kw*dw (kh < KH, kw < KW)
    inside the input, PyTorch's: the first maximum in row-major window order, else the
    window's last NaN; a window of -inf gives its first input element, a window of
    padding only 0.  x float32 or float64, out int64 (B, OH, OW); ``kernel``,
    ``strides``, ``dilation`` >= 1, ``padding`` >= 0."""
    cdef int t = cnp.PyArray_TYPE(x)
    if t != cnp.NPY_FLOAT and t != cnp.NPY_DOUBLE:
        raise TypeError("tenferro kernel _conv.pool_argmax: no loop for %s" % (x.dtype,))
    if cnp.PyArray_TYPE(out) != cnp.NPY_INT64 or x.ndim != 3 or out.ndim != 3:
        raise ValueError("tenferro kernel _conv.pool_argmax: needs 3-d x and an int64 "
                         "3-d out")
    cdef tfp_geo geo
    cdef tfp_geo *g = &geo
    cdef int d
    g.B, g.H, g.W = x.shape[0], x.shape[1], x.shape[2]
    g.OH, g.OW = out.shape[1], out.shape[2]
    g.KH, g.KW = kernel
    g.sh, g.sw = strides
    g.ph, g.pw = padding
    g.dh, g.dw = dilation
    if (out.shape[0] != g.B or min(g.KH, g.KW, g.sh, g.sw, g.dh, g.dw) < 1
            or min(g.ph, g.pw) < 0):
        raise ValueError("tenferro kernel _conv.pool_argmax: shapes x %s, out %s or "
                         "kernel %s, strides %s, padding %s, dilation %s do not fit"
                         % ((<object>x).shape, (<object>out).shape, kernel, strides,
                            padding, dilation))
    if not cnp.PyArray_ISWRITEABLE(out):
        raise ValueError("tenferro kernel _conv.pool_argmax: out is read-only")
    for d in range(3):
        if (cnp.PyArray_STRIDES(x)[d] % cnp.PyArray_ITEMSIZE(x)
                or cnp.PyArray_STRIDES(out)[d] % 8):
            raise ValueError("tenferro kernel _conv.pool_argmax: strides are not "
                             "multiples of the itemsize")
        g.xs[d] = cnp.PyArray_STRIDES(x)[d] // cnp.PyArray_ITEMSIZE(x)
        g.os[d] = cnp.PyArray_STRIDES(out)[d] // 8
    g.x, g.o = cnp.PyArray_BYTES(x), cnp.PyArray_BYTES(out)
    if g.B * g.OH == 0 or g.OW == 0:
        return
    cdef tfc_i *buf = <tfc_i *>malloc(sizeof(tfc_i) * (2 * g.KW + g.OW + 1))
    if buf == NULL:
        raise MemoryError()
    tfp_setup(g, buf)
    cdef int err = _run(g, tfp_items_fns[t == cnp.NPY_DOUBLE], g.B * g.OH,
                        g.B * g.OH * g.OW * g.KH * g.KW, nthreads)
    free(buf)
    if err:
        raise MemoryError("tenferro kernel _conv.pool_argmax: no memory for a scratch row")
