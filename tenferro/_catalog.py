"""The op catalog: what each elementwise op and reduction *is*, for every layer.

One row per op.  The public ops (:mod:`tenferro._ops`) generate their functions,
primitives and NumPy ufunc dispatch from these tables; drivers read them to know which
kernels to provide; the compiler reads them to know what it may fuse.  Nothing here
computes: the catalog is vocabulary, below the drivers in the layer order
(docs/design.md).
"""
import collections

import numpy as np


class OpSpec(collections.namedtuple("OpSpec", "type_rule differentiable")):
    """An elementwise op's declaration.

    ``type_rule`` is the NumPy ufunc whose type resolution the op follows (result
    dtypes match NumPy 2 exactly, weak Python scalars included); it is *not* the
    implementation (``sigmoid`` resolves types as ``np.exp`` does).  ``differentiable``
    says whether the op has derivative rules; the others are piecewise constant or have
    integer/boolean results (:data:`NONDIFF_REASON`).
    """
    __slots__ = ()


NONDIFF_REASON = "its derivative is zero almost everywhere / it has integer or boolean output"

_D, _N = True, False

UNARY = {name: OpSpec(rule, diff) for name, rule, diff in [
    ("negative", np.negative, _D), ("positive", np.positive, _D),
    ("abs", np.absolute, _D), ("sign", np.sign, _N),
    ("exp", np.exp, _D), ("expm1", np.expm1, _D), ("exp2", np.exp2, _D),
    ("log", np.log, _D), ("log1p", np.log1p, _D), ("log2", np.log2, _D),
    ("log10", np.log10, _D), ("sqrt", np.sqrt, _D), ("rsqrt", np.sqrt, _D),
    ("square", np.square, _D), ("reciprocal", np.reciprocal, _D),
    ("sin", np.sin, _D), ("cos", np.cos, _D), ("tan", np.tan, _D),
    ("arcsin", np.arcsin, _D), ("arccos", np.arccos, _D), ("arctan", np.arctan, _D),
    ("sinh", np.sinh, _D), ("cosh", np.cosh, _D), ("tanh", np.tanh, _D),
    ("arcsinh", np.arcsinh, _D), ("arccosh", np.arccosh, _D),
    ("arctanh", np.arctanh, _D), ("sigmoid", np.exp, _D), ("erf", np.sqrt, _D),
    ("floor", np.floor, _N), ("ceil", np.ceil, _N), ("trunc", np.trunc, _N),
    ("round", np.rint, _N), ("conj", np.conjugate, _D),
    ("isnan", np.isnan, _N), ("isinf", np.isinf, _N), ("isfinite", np.isfinite, _N),
    ("logical_not", np.logical_not, _N), ("bitwise_invert", np.invert, _N),
]}
#: Ops NumPy has only for real inputs although their type rule would accept complex.
REAL_ONLY = frozenset({"erf"})
#: Unary ops from a complex to a real dtype (not in UNARY: their dtype rule is their own).
COMPLEX_PARTS = ("real", "imag", "angle")

BINARY = {name: OpSpec(rule, diff) for name, rule, diff in [
    ("add", np.add, _D), ("subtract", np.subtract, _D), ("multiply", np.multiply, _D),
    ("divide", np.true_divide, _D), ("floor_divide", np.floor_divide, _N),
    ("remainder", np.remainder, _D), ("power", np.power, _D),
    ("maximum", np.maximum, _D), ("minimum", np.minimum, _D),
    ("fmax", np.fmax, _D), ("fmin", np.fmin, _D), ("arctan2", np.arctan2, _D),
    ("hypot", np.hypot, _D), ("copysign", np.copysign, _D),
    ("logaddexp", np.logaddexp, _D),
    ("equal", np.equal, _N), ("not_equal", np.not_equal, _N), ("less", np.less, _N),
    ("less_equal", np.less_equal, _N), ("greater", np.greater, _N),
    ("greater_equal", np.greater_equal, _N),
    ("logical_and", np.logical_and, _N), ("logical_or", np.logical_or, _N),
    ("logical_xor", np.logical_xor, _N),
    ("bitwise_and", np.bitwise_and, _N), ("bitwise_or", np.bitwise_or, _N),
    ("bitwise_xor", np.bitwise_xor, _N), ("left_shift", np.left_shift, _N),
    ("right_shift", np.right_shift, _N),
]}

#: Reductions over axes (primitive params ``axes``, ``out_dtype``), with the binary
#: elementwise op that combines two partial results (a chunked or tree reduction).
REDUCTIONS = {"sum": "add", "prod": "multiply", "max": "maximum", "min": "minimum",
              "any": "logical_or", "all": "logical_and"}
#: Reductions to an index along one axis (param ``axis``; int64 results).
ARG_REDUCTIONS = ("argmax", "argmin")
#: Inclusive scans along one axis (params ``axis``, ``out_dtype``).
SCANS = ("cumsum", "cumprod")


def broadcast_shapes(op, *shapes):
    """NumPy broadcasting of shapes, with an error naming ``op`` and the shapes."""
    n = max((len(s) for s in shapes), default=0)
    out = [1] * n
    for s in shapes:
        for i, d in enumerate(s, n - len(s)):
            o = out[i]
            if d != o:
                if o == 1:
                    out[i] = d
                elif d != 1:
                    raise ValueError(
                        "tenferro.%s: shapes %s do not broadcast: dimension %d has sizes %d and %d"
                        % (op, " and ".join(str(tuple(x)) for x in shapes), i - n, o, d))
    return tuple(out)
