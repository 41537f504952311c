"""Stacks of matrices for cuSOLVER and cuBLAS (the CUDA driver's linalg): column-major
copies and views, the addresses of each matrix of a batch, ``info`` read back, and the
small kernels around the factorizations (a triangle zeroed, pivots shifted between
cuSOLVER's 1-based and tenferro's 0-based).

A column-major stack [batch..., m, n] is a new C-contiguous [batch..., n, m] array seen
through the view that swaps its last two axes (:func:`fortran_view`): every matrix
column-major with leading dimension m, the matrices consecutive in the batch's C order,
which is the layout cuSOLVER's batched routines take.
"""
import functools
import itertools
import math

import numpy as np

from ... import _dtypes
from .array import from_numpy, new, to_numpy
from .elementwise import contiguous_copy, op_expr, run_elementwise
from .kernels import LOOP, kernel, launch
from . import libs

I32 = _dtypes.int32


def fortran_view(buf, rows, cols):
    """``buf`` (a new C-contiguous [batch..., cols, rows] array) as [batch..., rows,
    cols]: each matrix column-major with leading dimension ``rows``."""
    batch = buf.shape[:-2]
    return buf.view(batch + (rows, cols), buf.estrides[:-2] + (1, max(rows, 1)), 0)


def fortran_new(batch, rows, cols, dtype, device, op):
    """A new uninitialised stack of column-major matrices [batch..., rows, cols]."""
    return fortran_view(new(batch + (cols, rows), dtype, device, op), rows, cols)


def transposed(x):
    """The view of ``x`` [..., m, n] as [..., n, m]."""
    return x.view(x.shape[:-2] + x.shape[:-3:-1], x.estrides[:-2] + x.estrides[:-3:-1],
                  x.offset)


def fortran(x):
    """A column-major copy of the matrices ``x`` [..., m, n] (leading dimension m,
    consecutive in the batch's C order)."""
    return fortran_view(contiguous_copy(transposed(x)), *x.shape[-2:])


def matrices(x):
    """The device addresses of the matrices of ``x`` [batch..., m, n], in the batch's C
    order."""
    isz = x.dtype.itemsize
    bs = x.estrides[:-2]
    return [x.ptr + isz * sum(i * s for i, s in zip(idx, bs))
            for idx in itertools.product(*map(range, x.shape[:-2]))]


def pointer_array(addrs, device):
    """A device array of the addresses ``addrs`` (the ``void*[]`` of the batched
    routines).  Keep it in a variable until the call is queued: freed earlier, its
    memory could be reused before the routine reads it (stream order)."""
    return from_numpy(np.array(addrs, np.int64), device)


def rows(x):
    """The addresses of the rows of ``x`` [batch..., k] (C-contiguous)."""
    k = x.shape[-1] if x.ndim else 1
    return [x.ptr + i * k * x.dtype.itemsize for i in range(math.prod(x.shape[:-1]))]


def infos(info):
    """The host copy of the int32 ``info`` array cuSOLVER wrote; RuntimeError when it
    reports a wrong argument (info < 0)."""
    h = to_numpy(info)
    if h.size:
        libs.check_arguments("cuSOLVER", h.min())
    return h


def lib_of(x):
    return libs.get(x.storage.backend)


def conj(x):
    """A C-contiguous copy of ``x``, conjugated when complex."""
    if x.dtype.kind != "c":
        return contiguous_copy(x)
    return run_elementwise("conj", op_expr("conj", 1), [x], x.dtype)


def shift(ipiv, by):
    """Pivots ``ipiv`` + ``by`` (cuSOLVER's are 1-based, tenferro's 0-based), a new
    C-contiguous int32 array."""
    return run_elementwise("pivots", "(v0 + (%d))" % by, [ipiv], I32)


@functools.lru_cache(maxsize=None)
def triangle_kernel(itemsize):
    """Zero the strictly upper (m[3] = 1) or strictly lower (0) part of C-contiguous
    [batch, rows (m[1]), cols (m[2])] matrices of ``itemsize``-byte elements (all-zero
    bytes are zero in every dtype)."""
    word = {4: "unsigned int", 8: "unsigned long long", 16: "tf_zero16"}[itemsize]
    body = ("    typedef %s W;\n" % word + LOOP
            + "        const long long c = i % p.m[2], r = (i / p.m[2]) % p.m[1];\n"
              "        if (p.m[3] ? c > r : c < r) ((W*)p.p[0])[i] = W();\n    }\n")
    return kernel("k_triangle_%d" % itemsize, body, 1, 4,
                  prelude="struct tf_zero16 { unsigned long long a, b; };\n")


def zero_triangle(x, upper):
    """Zero the strictly upper (``upper``) or lower triangle of C-contiguous ``x``, in
    place."""
    if x.size:
        launch(x.storage.backend, triangle_kernel(x.dtype.itemsize), x.size, [x.ptr],
               [x.size, x.shape[-2], x.shape[-1], int(upper)])


def entries(info):
    """The addresses of the entries of the C-contiguous int32 array ``info``."""
    return [info.ptr + 4 * i for i in range(info.size)]


def diagonal_info(a):
    """Per matrix of ``a`` [..., n, n]: 1 + the index of the first zero on its diagonal,
    or 0 (LAPACK's ?trtrs info), read on the host."""
    n = a.shape[-1]
    d = to_numpy(a.view(a.shape[:-1], a.estrides[:-2] + (a.estrides[-2] + a.estrides[-1],),
                        a.offset))
    zero = d == 0
    return np.where(zero.any(axis=-1), zero.argmax(axis=-1) + 1, 0).astype(np.int32) \
        if n else np.zeros(a.shape[:-2], np.int32)
