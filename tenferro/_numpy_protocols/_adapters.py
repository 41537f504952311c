"""Twins written by hand: NumPy functions whose tenferro counterpart is spelled
differently (``np.linalg.cholesky`` gives the lower factor, ``tenferro.linalg.cholesky``
scipy's upper one by default; ``np.where`` with one argument is ``nonzero``), or that
read only metadata (``np.shape``).  Each has the NumPy function's signature, so that
:class:`~tenferro._numpy_protocols._calls.Call` maps its arguments by name, and each
computes with tenferro's differentiable ops.
"""
import builtins
import collections

import numpy as np

from .. import _ops
from .._ops import stacking as _stacking
from ._calls import Unsupported

_NV = np._NoValue

# NumPy's result tuples (numpy.linalg's ``EighResult`` & co.), with the same fields
EighResult = collections.namedtuple("EighResult", "eigenvalues eigenvectors")
QRResult = collections.namedtuple("QRResult", "Q R")
SVDResult = collections.namedtuple("SVDResult", "U S Vh")
SlogdetResult = collections.namedtuple("SlogdetResult", "sign logabsdet")


def _linalg():
    from .. import linalg   # imported on first use: `import tenferro` stays light

    return linalg


def _xla():
    """The Array API's linalg (numpy.linalg's functions of the standard are its)."""
    from ..array_api import linalg

    return linalg


# -- numpy ----------------------------------------------------------------------------
def clip(a, a_min=_NV, a_max=_NV, out=None, *, min=_NV, max=_NV, **kwargs):
    if kwargs:
        raise Unsupported("takes no ufunc keywords (%s)" % ", ".join(sorted(kwargs)))
    if a_min is not _NV and min is not _NV or a_max is not _NV and max is not _NV:
        raise ValueError("numpy.clip: pass either a_min/a_max or min/max, not both")
    lo = a_min if a_min is not _NV else (None if min is _NV else min)
    hi = a_max if a_max is not _NV else (None if max is _NV else max)
    r = _ops.clip(a, lo, hi)
    return r if out is None else _ops.store_out("numpy.clip", r, out)


def where(condition, x=None, y=None, /):
    if x is None and y is None:
        return _ops.nonzero(condition)
    if x is None or y is None:
        raise ValueError("numpy.where: either both or neither of x and y should be given")
    return _ops.where(condition, x, y)


def shape(a):
    return a.shape


def ndim(a):
    return a.ndim


def size(a, axis=None):
    return a.size if axis is None else a.shape[axis]


def _atleast(n, arys):
    """NumPy's atleast_<n>d: hstack's/vstack's/dstack's own reshape of each array."""
    out = [_stacking._atleast(_ops.asarray(a), n) for a in arys]
    return out[0] if len(out) == 1 else tuple(out)


def atleast_1d(*arys):
    return _atleast(1, arys)


def atleast_2d(*arys):
    return _atleast(2, arys)


def atleast_3d(*arys):
    return _atleast(3, arys)


def iscomplexobj(x):
    return x.dtype.kind == "c"


def isrealobj(x):
    return x.dtype.kind != "c"


# -- numpy.linalg ----------------------------------------------------------------------
def cholesky(a, /, *, upper=False):
    return _xla().cholesky(_ops.asarray(a), upper=upper)


def _lower(UPLO):
    if UPLO not in ("L", "U"):
        raise ValueError("numpy.linalg.eigh: UPLO must be 'L' or 'U', got %r" % (UPLO,))
    return UPLO == "L"


def eigh(a, UPLO="L"):
    return EighResult(*_linalg().eigh(a, lower=_lower(UPLO)))


def eigvalsh(a, UPLO="L"):
    return _linalg().eigvalsh(a, lower=_lower(UPLO))


def qr(a, mode="reduced"):
    modes = {"reduced": "economic", "complete": "full", "r": "economic"}
    if mode not in modes:
        raise Unsupported("takes no mode=%r" % (mode,))
    q, r = _linalg().qr(a, mode=modes[mode])
    return r if mode == "r" else QRResult(q, r)


def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    # hermitian=True only lets NumPy use eigh: the singular values are the same
    if not compute_uv:
        return _linalg().svdvals(a)
    return SVDResult(*_linalg().svd(a, full_matrices=full_matrices))


def slogdet(a):
    return SlogdetResult(*_linalg().slogdet(a))


def pinv(a, rcond=None, hermitian=False, *, rtol=_NV):
    # hermitian=True only lets NumPy use eigh: the pseudo-inverse is the same
    if rcond is None:   # NumPy's defaults: 1e-15, or with rtol=None tenferro's own
        rcond = 1e-15 if rtol is _NV else rtol
    elif rtol is not _NV:
        raise ValueError("numpy.linalg.pinv: rtol and rcond can't be both set")
    if not isinstance(rcond, (int, float, type(None))):
        raise Unsupported("takes no array rcond")
    return _linalg().pinv(a, rtol=rcond)


def lstsq(a, b, rcond=None):
    a = _ops.asarray(a)
    if rcond is None:   # NumPy's default cut-off (scipy's is eps alone)
        rcond = np.finfo(a.dtype).eps * builtins.max(a.shape[-2:])
    x, res, rank, s = _linalg().lstsq(a, b, cond=rcond)
    if res.ndim == 0:   # NumPy's residuals for a vector b: shape (1,)
        res = _ops.reshape(res, (1,))
    return x, res, _ops.asarray(rank, dtype=np.int32), s


def cond(x, p=None):
    x = _ops.asarray(x)
    if p is None or p == 2 or p == -2:
        s = _linalg().svdvals(x)
        return s[..., -1] / s[..., 0] if p == -2 else s[..., 0] / s[..., -1]
    norm = _linalg().norm
    return norm(x, p, axis=(-2, -1)) * norm(_linalg().inv(x), p, axis=(-2, -1))


def multi_dot(arrays):
    if len(arrays) < 2:
        raise ValueError("numpy.linalg.multi_dot: expected at least two arrays, got %d"
                         % len(arrays))
    r = arrays[0]
    for b in arrays[1:]:
        r = _ops.matmul(r, b)
    return r


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    return _xla().matrix_norm(_ops.asarray(x), keepdims=keepdims, ord=ord)


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    return _xla().vector_norm(_ops.asarray(x), axis=axis, keepdims=keepdims, ord=ord)


def diagonal(x, /, *, offset=0):
    return _xla().diagonal(_ops.asarray(x), offset=offset)


def trace(x, /, *, offset=0, dtype=None):
    return _xla().trace(_ops.asarray(x), offset=offset, dtype=dtype)


def outer(x1, x2, /):
    x1, x2 = _ops.asarray(x1), _ops.asarray(x2)
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError("numpy.linalg.outer: x1 and x2 must be 1-dimensional, got shapes "
                         "%s and %s" % (x1.shape, x2.shape))
    return _ops.outer(x1, x2)
