"""Shared by the linalg ops: input checks, dtype promotion as scipy, LAPACK ``info``
turned into clear errors, and small matrix helpers written with tenferro ops (so that
rules using them differentiate again)."""

import numpy as np

from .. import _caches, _dtypes, _ops
from .._errors import LinAlgError
from .._kernels import _elementwise as _ew
from .._ops._common import to_tensor
from .._ops.matmul import broadcast_batch

# scipy's trans argument: 0/"N" (A), 1/"T" (A^T), 2/"C" (A^H)
TRANS = {0: 0, 1: 1, 2: 2, "N": 0, "T": 1, "C": 2}
_INEXACT = {_dtypes.float32, _dtypes.float64, _dtypes.complex64, _dtypes.complex128}


def as_matrix_stack(op, a, square=True):
    """``a`` as a float/complex Tensor of shape [..., m, n] (ints and bools promoted to
    float64, as scipy does), with a clear error otherwise."""
    a = to_tensor(a)
    if a.ndim < 2:
        raise ValueError("tenferro.linalg.%s: expected a matrix or a stack of matrices "
                         "[..., M, N], got shape %s" % (op, a.shape))
    if square and a.shape[-1] != a.shape[-2]:
        raise ValueError("tenferro.linalg.%s: expected square matrices [..., N, N], got "
                         "shape %s" % (op, a.shape))
    if a.dtype not in _INEXACT:
        a = a.astype(_dtypes.float64)
    return a


def common_dtype(*ts):
    dt = ts[0].dtype
    if dt in _INEXACT and all(t.dtype == dt for t in ts):
        return list(ts)
    dt = _dtypes.result_type(*ts)
    if dt not in _INEXACT:
        dt = _dtypes.float64
    return [t if t.dtype == dt else t.astype(dt) for t in ts]


def raise_for_info(op, info, what):
    """LinAlgError naming the first failing matrix (``what``: "is not positive definite",
    ...) when any LAPACK ``info`` is positive."""
    info = np.asarray(info)
    if info.size == 1:            # one matrix: no reduction (~1 us on a tiny call)
        if info.item() <= 0:
            return
    elif info.size == 0 or info.max() <= 0:
        return
    bad = np.flatnonzero(info > 0)
    if bad.size:
        if np.ndim(info) == 0:
            raise LinAlgError("tenferro.linalg.%s: the matrix %s" % (op, what))
        idx = np.unravel_index(bad[0], np.shape(info))
        raise LinAlgError("tenferro.linalg.%s: matrix %s of the batch %s%s" % (
            op, idx[0] if len(idx) == 1 else tuple(int(i) for i in idx), what,
            "" if bad.size == 1 else " (and %d more)" % (bad.size - 1)))


def prepared(op, a, finite, square=True):
    """``as_matrix_stack`` then, if ``finite``, scipy's check_finite."""
    a = as_matrix_stack(op, a, square=square)
    if finite:
        check_finite(op, a)
    return a


def prepared_pair(op, a, b, finite):
    """(a, b) for the problems of a pair of square matrices (eig's and eigh's ``b``):
    checked, b None or of a's dtype and (broadcast) batch."""
    a = as_matrix_stack(op, a)
    if b is not None:
        b = as_matrix_stack(op, b)
        if b.shape[-1] != a.shape[-1]:
            raise ValueError("tenferro.linalg.%s: a of shape %s and b of shape %s do not "
                             "fit: both must be [..., N, N] with the same N"
                             % (op, a.shape, b.shape))
        a, b = broadcast_batch(op, *common_dtype(a, b))
    if finite:
        check_finite(op, *([a] if b is None else [a, b]))
    return a, b


def op_trans(x, trans):
    """op(x) for scipy's trans code: x, x^T or x^H (0, 1, 2)."""
    return x if trans == 0 else (_ops.matrix_transpose(x) if trans == 1 else mH(x))


def diag(x):
    """The diagonals [..., k] of a stack of matrices."""
    return _ops.diagonal(x, 0, -2, -1)


def re_diag(x):
    """The real parts of the diagonals [..., k] of a stack of matrices."""
    return _ops.real(diag(x))


def cast(x, dtype):
    return x if x.dtype == dtype else x.astype(dtype)


def mH(x):
    """Conjugate transpose of the last two axes."""
    x = _ops.matrix_transpose(x)
    return _ops.conj(x) if x.dtype.kind == "c" else x


def real_diag(x):
    """The matrix of the real parts of ``x``'s diagonal (zeros elsewhere)."""
    n = x.shape[-1]
    d = _ops.real(x) if x.dtype.kind == "c" else x
    return (d * _ops.eye(n, dtype=d.dtype, device=x.device)).astype(x.dtype)


def check_finite(op, *ts):
    """scipy's check_finite: ValueError for infs or NaNs.  On the CPU one NumPy pass
    over the host data (the same check as scipy's, without two dispatched ops).  Values
    being traced into a graph have no data yet: the check does not apply to them (as
    in JAX, which has no check_finite; LAPACK's info checks still raise at run time)."""
    for t in ts:
        if getattr(t._data, "abstract", False):
            continue
        if t.device.type == "cpu":
            h = _ops.to_numpy(t)
            ok = _ew.all_finite(h)
            if ok is None:   # a strided view or an integer dtype
                ok = np.isfinite(h).all()
        else:
            ok = bool(_ops.all(_ops.isfinite(t)))
        if not ok:
            raise ValueError("tenferro.linalg.%s: array must not contain infs or NaNs "
                             "(pass check_finite=False to skip this check)" % op)


def tri(x, lower, k=0):
    """The lower (k-th and below) or upper (-k-th and above) triangle."""
    return _ops.tril(x, k) if lower else _ops.triu(x, -k)


@_caches.memoize("linalg.half_triangle", maxsize=64)
def _half_triangle(n, dtype, lower, device):
    m = np.tril(np.ones((n, n)), -1) + 0.5 * np.eye(n)
    return _ops.asarray((m if lower else m.T).astype(dtype), device=device)


def half_triangle(x, lower):
    """``x`` times the constant mask of its lower (upper) triangle with 1/2 on the
    diagonal: one multiplication for Murray's Phi and for the triangle maps below."""
    return x * _half_triangle(x.shape[-1], x.dtype, lower, x.device)


def sym_from_triangle(d, lower):
    """The Hermitian matrix a triangle-reading op sees for input ``d``: the read
    triangle mirrored, the diagonal's real part (s + s^H, s = half_triangle(d))."""
    s = half_triangle(d, lower)
    return s + mH(s)


def triangle_adjoint(g, lower):
    """The adjoint of :func:`sym_from_triangle`: a gradient on the read triangle (its
    diagonal Re g_ii = (g + g^H)_ii / 2)."""
    return half_triangle(g + mH(g), lower)


def rhs(op, a, b, keep_vector=False):
    """(a, b as [..., n, k], vec) with a common dtype: ``b`` is a vector only when it is
    1-D (NumPy 2's rule for solve), and must have as many rows as ``a`` has columns.
    ``keep_vector``: a vector ``b`` stays 1-D."""
    b = to_tensor(b)
    a, b = common_dtype(a, b)
    vec = b.ndim == 1
    if vec and keep_vector:
        if b.shape[0] != a.shape[-1]:
            raise ValueError("tenferro.linalg.%s: a of shape %s and b of shape %s do not "
                             "fit: b needs %d rows" % (op, a.shape, b.shape, a.shape[-1]))
        return a, b, vec
    if vec:
        b = _ops.reshape(b, (b.shape[0], 1))
    if b.ndim < 2 or b.shape[-2] != a.shape[-1]:
        raise ValueError("tenferro.linalg.%s: a of shape %s and b of shape %s do not fit: "
                         "b needs %d rows" % (op, a.shape, (b.shape[0],) if vec else b.shape,
                                              a.shape[-1]))
    return a, b, vec


def on_cuda(name, op=None, what=None):
    """The CUDA implementation of a linalg primitive, for ``def_impl(prim, "cuda", ...)``:
    ``tenferro.devices.cuda.linalg.<name>``, imported at the first call (importing
    tenferro.linalg loads nothing of CUDA).  With ``op`` that function returns
    ``(outputs, info)``, and a positive ``info`` raises the CPU's LinAlgError
    (``raise_for_info(op, info, what)``)."""
    def run(*arrays, **params):
        from ..devices.cuda import linalg
        if op is None:
            return getattr(linalg, name)(*arrays, **params)
        out, info = getattr(linalg, name)(*arrays, **params)
        raise_for_info(op, info, what)
        return out
    return run
