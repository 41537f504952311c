"""QR decomposition: ``qr`` (scipy.linalg.qr's signature and defaults).  ``mode='full'``
gives ``(Q, R)`` with Q [..., m, m] and R [..., m, n]; ``'economic'`` Q [..., m, k] and
R [..., k, n] (k = min(m, n)); ``'r'`` the 1-tuple ``(R,)``, R [..., m, n], as scipy.
Q and R are LAPACK's (?geqrf, ?orgqr/?ungqr), as scipy's: R's diagonal is real, of
either sign.  ``mode='raw'`` and ``pivoting=True`` are not implemented.

Derivatives (forward and reverse, of any order) are those of the thin factorization,
for A of full column rank k (R's leading k x k block invertible; otherwise the
triangular solves raise LinAlgError):

* m >= n: JAX's ``qr_jvp_rule`` and PyTorch's ``linalg_qr_backward``;
* m < n: A = [X | Y] with X m x m, X = Q U, and V = Q^H Y (PyTorch's wide branch).

With ``mode='full'`` and m > n the last m - n columns of Q are an arbitrary basis of a
complement (as svd's with ``full_matrices=True``): their tangents are zero and their
cotangent is ignored.  ``mode='r'`` recomputes Q in its rules.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .. import _ops
from ..devices.cpu import threads as _threads
from .._errors import LinAlgError
from .._kernels import _lapack
from .._kernels._alloc import empty as _empty
from ..autograd.extend import Primitive, def_impl, def_jvp_rule, def_vjp_rule
from ._triangular import solve_triangular
from ._util import as_matrix_stack, check_finite as _check_finite, mH, on_cuda, \
    raise_for_info, real_diag

if TYPE_CHECKING:
    from .._tensor import ArrayLike, Tensor

_MODES = ("full", "economic", "r")


def _shapes(shape, mode):
    """(Q's shape or None, R's shape) for a of ``shape``."""
    m, n = shape[-2:]
    rows = min(m, n) if mode == "economic" else m
    return (None if mode == "r" else shape[:-2] + (m, rows)), shape[:-2] + (rows, n)


def _qr_aval(a, *, mode):
    shape, dt = a
    qs, rs = _shapes(shape, mode)
    return ((rs, dt),) if qs is None else ((qs, dt), (rs, dt))


qr_p = Primitive(
    "linalg.qr", _qr_aval, multiple_results=True,
    doc="QR of each matrix [..., m, n] (param mode): (q, r), q [..., m, m] and r "
        "[..., m, n] for 'full', q [..., m, k] and r [..., k, n] for 'economic'.")
# R only (scipy's mode 'r'): one result, so a primitive of its own
qr_r_p = Primitive(
    "linalg.qr_r", lambda a: _qr_aval(a, mode="r")[0],
    doc="R [..., m, n] of the QR of each matrix [..., m, n] (Q not formed).")


def _qr_cpu(a, *, mode):
    qs, rs = _shapes(a.shape, mode)
    q = None if qs is None else _empty(qs, a.dtype)
    r = _empty(rs, a.dtype)
    # ?geqrf/?orgqr have no numerical failure (info < 0 would be a kernel bug)
    raise_for_info("qr", _lapack.geqrf(a, q, r, mode != "economic", _threads.current),
                   "failed")
    return (r,) if q is None else (q, r)


def_impl(qr_p, "cpu", _qr_cpu)
def_impl(qr_r_p, "cpu", lambda a: _qr_cpu(a, mode="r")[0])
def_impl(qr_p, "cuda", on_cuda("qr", "qr", "failed"))
def_impl(qr_r_p, "cuda", on_cuda("qr_r", "qr", "failed"))


def qr(a: ArrayLike, overwrite_a: bool = False, lwork: int | None = None, mode: str = "full",
       pivoting: bool = False, check_finite: bool = True) -> tuple[Tensor, ...]:
    """QR decomposition (scipy.linalg.qr).

    ``(Q, R)`` with ``a = Q @ R``, ``Q`` with orthonormal columns and ``R`` upper
    triangular (Householder, LAPACK's ?geqrf and ?orgqr/?ungqr), or ``(R,)`` for
    ``mode='r'``.  Batched over leading dimensions; for ``a`` [..., M, N] and
    K = min(M, N), ``mode='full'`` gives Q [..., M, M] and R [..., M, N],
    ``mode='economic'`` Q [..., M, K] and R [..., K, N].

    Parameters
    ----------
    a : Tensor or array_like, shape (..., M, N)
        The matrices.
    overwrite_a : bool, default False
        Accepted for scipy's signature and ignored: tenferro never writes its inputs.
    lwork : int, optional
        Accepted and ignored (the workspace is queried).
    mode : {'full', 'economic', 'r'}, default 'full'
        Which factors, of which shapes (above).
    pivoting : bool, default False
        Must be False: column pivoting is not implemented.
    check_finite : bool, default True
        Raise ValueError if an input holds infs or NaNs (scipy's check).

    Returns
    -------
    Q : Tensor
        The orthonormal factor (not returned for ``mode='r'``).
    R : Tensor
        The upper-triangular factor.

    Raises
    ------
    LinAlgError
        When differentiated at a rank-deficient matrix (an exact zero on R's diagonal).
    ValueError
        If ``mode`` is unknown, ``a`` is not a stack of matrices, or (``check_finite``)
        holds infs or NaNs.
    NotImplementedError
        If ``pivoting`` is True or ``mode`` is 'raw'.
    TypeError
        If an input is not numeric (strings, objects).
    UnsupportedOperation
        If an input is on a device without a kernel for it (the WebGPU driver has no
        LAPACK routines; move the data with ``.to('cpu')``).

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order, for full
    rank: JAX's ``qr_jvp_rule`` and PyTorch's ``linalg_qr_backward`` (M >= N), and
    PyTorch's wide branch for M < N (``A = [X | Y]``, ``X = Q U``).  With
    ``mode='full'`` and M > N, Q's extra columns are an arbitrary basis of a complement:
    zero tangents, their cotangent ignored.

    See Also
    --------
    scipy.linalg.qr, numpy.linalg.qr, svd

    Examples
    --------
    >>> a = tf.asarray([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    >>> q, r = tf.linalg.qr(a, mode="economic")
    >>> q.shape, r.shape
    ((3, 2), (2, 2))
    >>> np.allclose(q @ r, a)
    True
    """
    if pivoting:
        raise NotImplementedError("tenferro.linalg.qr: pivoting=True (QR with column "
                                  "pivoting, ?geqp3) is not implemented")
    if mode == "raw":
        raise NotImplementedError("tenferro.linalg.qr: mode='raw' (LAPACK's Householder "
                                  "reflectors and tau) is not implemented; use 'full', "
                                  "'economic' or 'r'")
    if mode not in _MODES:
        raise ValueError("tenferro.linalg.qr: mode must be one of 'full', 'r', 'economic', "
                         "'raw', got %r" % (mode,))
    a = as_matrix_stack("qr", a, square=False)
    if check_finite:
        _check_finite("qr", a)
    if mode == "r":
        return (qr_r_p.bind(a),)
    return tuple(qr_p.bind(a, mode=mode))


# -- rules ---------------------------------------------------------------------------------

def _empty_factors(a):
    """Zero thin (q, r) tangents for an empty a (k = 0 or an empty batch)."""
    m, n = a.shape[-2:]
    k = min(m, n)
    z = lambda *s: _ops.zeros(a.shape[:-2] + s, dtype=a.dtype, device=a.device)  # noqa
    return z(m, k), z(k, n)


def _thin(a, out, mode):
    """The thin factors (q [..., m, k], r [..., k, n]) of a (recomputed for mode 'r')."""
    if mode == "r":
        return qr_p.bind(a, mode="economic")
    k = min(a.shape[-2:])
    q, r = out
    return q[..., :, :k], r[..., :k, :]


def _pad(dq, dr, a, mode):
    """The thin tangents (or cotangents) padded to the mode's shapes with zeros (the
    complement columns of a full Q, the zero rows of a full R) -> the output tuple."""
    m, n = a.shape[-2:]
    if mode != "economic" and m > n:
        b = a.shape[:-2]
        dr = _ops.concatenate([dr, _ops.zeros(b + (m - n, n), dtype=dr.dtype,
                                              device=dr.device)], axis=-2)
        if dq is not None:
            dq = _ops.concatenate([dq, _ops.zeros(b + (m, m - n), dtype=dq.dtype,
                                                  device=dq.device)], axis=-1)
    return (dr,) if mode == "r" else (dq, dr)


def _right_solve(b, r, trans):
    """b r^-1 (trans 0) or b r^-H (trans 2) for upper-triangular r."""
    try:
        x = solve_triangular(r, mH(b), trans=2 - trans, lower=False, check_finite=False)
    except LinAlgError as e:
        raise LinAlgError("tenferro.linalg.qr: no derivative for a rank-deficient matrix "
                          "(R has a zero on its diagonal; %s)" % e) from None
    return mH(x)


def _tall_jvp(t, q, r):
    # JAX lax/linalg.py qr_jvp_rule (m >= n): C = Q^H dA R^-1, Omega = the skew part
    x = _right_solve(t, r, 0)
    c = mH(q) @ x
    low = _ops.tril(c, -1)
    om = low - mH(low)
    if c.dtype.kind == "c":   # i Im diag(C): R's diagonal stays real
        om = om + c * _ops.eye(c.shape[-1], dtype=c.dtype, device=c.device) - real_diag(c)
    return q @ (om - c) + x, (c - om) @ r


def _qr_jvp(tangents, primals, out, params):
    t, = tangents
    if t is None:
        return None
    a, = primals
    mode = params["mode"]
    if min(a.shape) == 0:
        return _pad(*_empty_factors(a), a, mode)
    q, r = _thin(a, out, mode)
    m, n = a.shape[-2:]
    if m >= n:
        dq, dr = _tall_jvp(t, q, r)
    else:  # A = [X | Y]: (dQ, dU) from X = Q U; V = Q^H Y, dV = dQ^H Y + Q^H dY
        dq, du = _tall_jvp(t[..., :, :m], q, r[..., :, :m])
        dv = mH(dq) @ a[..., :, m:] + mH(q) @ t[..., :, m:]
        dr = _ops.concatenate([du, dv], axis=-1)
    return _pad(dq, dr, a, mode)


def _tall_vjp(gq, gr, q, r):
    # PyTorch FunctionsManual.cpp linalg_qr_backward (m >= n):
    # gA = [gQ + Q syminvadj(triu(gR R^H - Q^H gQ))] R^-H, syminvadj(X) = X + X^H - Re diag X
    mm = None if gr is None else gr @ mH(r)
    if gq is not None:
        mm = -(mH(q) @ gq) if mm is None else mm - mH(q) @ gq
    u = _ops.triu(mm)
    b = q @ (u + mH(u) - real_diag(u))
    if gq is not None:
        b = b + gq
    return _right_solve(b, r, 2)


def _qr_vjp(ct, primals, out, params, needs):
    a, = primals
    mode = params["mode"]
    gq, gr = (None, ct[0]) if mode == "r" else ct
    if gq is None and gr is None:
        return (None,)
    if min(a.shape) == 0:
        return (_ops.zeros_like(a),)
    q, r = _thin(a, out, mode)
    m, n = a.shape[-2:]
    k = min(m, n)
    if gq is not None:
        gq = gq[..., :, :k]   # the complement columns of a full Q: ignored
    if gr is not None:
        gr = gr[..., :k, :]   # the zero rows of a full R
    if m >= n:
        return (_tall_vjp(gq, gr, q, r),)
    # PyTorch's wide branch: A = [X | Y], X = Q U, V = Q^H Y: gY = Q gV, gQ += Y gV^H
    gx_q, gy = gq, None
    if gr is not None:
        gv = gr[..., :, m:]
        gy = q @ gv
        extra = a[..., :, m:] @ mH(gv)
        gx_q = extra if gx_q is None else gx_q + extra
    gx = _tall_vjp(gx_q, None if gr is None else gr[..., :, :m], q, r[..., :, :m])
    if gy is None:
        gy = _ops.zeros_like(a[..., :, m:])
    return (_ops.concatenate([gx, gy], axis=-1),)


def _qr_r_jvp(tangents, primals, out, params):
    # as qr's (Q recomputed)
    t = _qr_jvp(tangents, primals, None, {"mode": "r"})
    return None if t is None else t[0]


def _qr_r_vjp(ct, primals, out, params, needs):
    # as qr's (Q recomputed)
    return _qr_vjp((ct,), primals, None, {"mode": "r"}, needs)


_qr_vjp.uses_out = True
_qr_r_vjp.uses_out = False
def_jvp_rule(qr_p, _qr_jvp)
def_vjp_rule(qr_p, _qr_vjp)
def_jvp_rule(qr_r_p, _qr_r_jvp)
def_vjp_rule(qr_r_p, _qr_r_vjp)
