"""tenferro.linalg's ``vector_norm`` primitive on CUDA: (sum |x|^p)^(1/p) over axes, from
the driver's own elementwise kernels and reductions (no library has it for any axes).

As the CPU's, the sum runs on |x| scaled by the power of two at or below the largest
magnitude (exact: the same bits as the plain sum wherever that one neither overflows
nor underflows), so that the norm of values near the largest or smallest floats is
right; p = 1 needs no scaling.  Infinities give inf and NaN NaN, as NumPy's.
"""
from ... import _dtypes
from .._layout import broadcast_view, c_strides
from .array import zeros
from .elementwise import op_expr, run_elementwise

_REAL = {_dtypes.complex64: _dtypes.float32, _dtypes.complex128: _dtypes.float64}
# the power of two at or below v0 when it is positive and finite, else 1
_SCALE = "((v0 > 0 && v0 - v0 == 0) ? ldexp((%(t)s)1, ilogb(v0)) : (%(t)s)1)"


def expressions(rdt, p):
    """The C expressions of the steps for real dtype ``rdt`` and order ``p``: the scale
    (of the largest magnitude v0), a term (|x| v0 over the scale v1), the root (of the
    sum v0, times the scale v1)."""
    ct = "float" if rdt == _dtypes.float32 else "double"
    return {"norm_scale": _SCALE % {"t": ct},
            "norm_terms": ("(v0 / v1) * (v0 / v1)" if p == 2 else
                           "tf_power(v0 / v1, (%s)%r)" % (ct, float(p))),
            "norm_root": ("tf_sqrt(v0) * v1" if p == 2 else
                          "tf_power(v0, (%s)%r) * v1" % (ct, 1.0 / p))}


def all_kernels():
    """The contiguous variants of the steps' kernels (for ``compile_all``; others differ
    only in their indexing)."""
    from .kernels import elementwise_kernel
    return [elementwise_kernel("k_" + name, expr, (rdt,) * (1 if name == "norm_scale" else 2),
                               rdt, -1)
            for rdt in (_dtypes.float32, _dtypes.float64) for p in (2, 3)
            for name, expr in expressions(rdt, p).items()]


def vector_norm(x, *, p, axes):
    """||x||_p over ``axes`` (kept as size-1 axes), of x's real dtype."""
    from .reduce import reduce_op       # (a sibling module, loaded with the driver)
    rdt = _REAL.get(x.dtype, x.dtype)
    keep = tuple(1 if i in axes else n for i, n in enumerate(x.shape))
    if any(x.shape[i] == 0 for i in axes):
        return zeros(keep, rdt, x.device, "vector_norm")

    def kept(r):   # a reduction's result with the reduced axes back as size 1
        return r.view(keep, c_strides(keep), r.offset)

    mag = run_elementwise("abs", op_expr("abs", 1), [x], rdt)
    if p == 1:
        return kept(reduce_op("sum", mag, tuple(axes), rdt))
    ex = expressions(rdt, p)
    scale = run_elementwise("norm_scale", ex["norm_scale"],
                            [kept(reduce_op("max", mag, tuple(axes), rdt))], rdt)
    terms = run_elementwise("norm_terms", ex["norm_terms"],
                            [mag, broadcast_view(scale, x.shape)], rdt)
    total = kept(reduce_op("sum", terms, tuple(axes), rdt))
    return run_elementwise("norm_root", ex["norm_root"], [total, scale], rdt)
