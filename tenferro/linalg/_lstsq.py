"""Least squares and the pseudo-inverse: ``lstsq`` and ``pinv`` (scipy.linalg's names,
signatures and defaults; leading batch dimensions as NumPy's, broadcast between ``a``
and ``b``; ints promoted to float64).

Primitives: ``linalg.lstsq`` (the ?gelsd kernel: the minimum-norm least-squares
solution x, the singular values s and the effective rank of each matrix) and
``linalg.pinv`` (from the thin SVD; singular values <= atol + rtol * s_max are zero).
Their derivatives hold the rank constant (Golub & Pereyra 1973): they are those of the
function on the manifold of matrices of that rank, which is what finite differences
give there; a perturbation that changes the rank has no derivative (the pseudo-inverse
jumps).  Each application of the pseudo-inverse in lstsq's rules is itself a lstsq
solve, so they differentiate again.  s gets svdvals' rule; rank is an integer constant.

Deviations from scipy: ``lapack_driver`` 'gelss' and 'gelsy' are accepted and computed
with gelsd (the same minimum-norm solution; with 'gelsy' the rank is decided by the
singular values, as gelsd, rather than by gelsy's incremental condition estimate, and
s is returned instead of None).  Batched input gives ``rank`` as an int32 array of the
batch shape, and ``residues`` [..., k] only when m > n and every matrix of the batch has
rank n (else an empty array, as scipy for one matrix).  Traced (``tenferro.make_graph``),
the rank is only known when the program runs, so for m > n the residues [..., k] are
computed assuming full rank, and the program raises LinAlgError if a matrix whose
residues it uses has a lower rank; ``rank`` is then an int32 tensor.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import _ops
from ..devices.cpu import threads as _threads
from .._errors import LinAlgError
from .._kernels import _lapack
from .._kernels._alloc import empty as _empty
from .._ops._common import to_tensor
from .._ops.matmul import broadcast_batch
from ..autograd._check import check, is_abstract
from ..autograd.extend import Primitive, def_impl, def_jvp_rule, def_vjp_rule
from ._eigh import _REAL
from ._svd import _svd_kernel, _svdvals_jvp, _svdvals_vjp
from ._util import as_matrix_stack, check_finite as _check_finite, common_dtype, mH, \
    raise_for_info

if TYPE_CHECKING:
    from typing import Any

    from .._tensor import ArrayLike, Tensor

_INT32 = np.dtype(np.int32)
_SVD_PARAMS = {"broadening": 1e-12, "driver": "gesdd"}  # svdvals' defaults, for s's rules


def _real(dt):
    return _REAL.get(np.dtype(dt), np.dtype(dt))


def _lstsq_aval(a, b, *, cond):
    (sa, dt), (sb, _) = a, b
    m, n = sa[-2:]
    batch = sa[:-2]
    return ((batch + (n, sb[-1]), dt), (batch + (min(m, n),), _real(dt)), (batch, _INT32))


lstsq_p = Primitive(
    "linalg.lstsq", _lstsq_aval, multiple_results=True,
    doc="(x, s, rank) for a [..., m, n], b [..., m, k] (same batch): x [..., n, k] the "
        "minimum-norm least-squares solution, s [..., min(m, n)] the singular values, "
        "rank [...] int32 (singular values <= cond * s_max count as zero).")
pinv_p = Primitive(
    "linalg.pinv", lambda a, *, atol, rtol: ((a[0][:-2] + a[0][-2:][::-1], a[1]),
                                             (a[0][:-2], _INT32)), multiple_results=True,
    doc="(pinv, rank) of each a[..., m, n]: the pseudo-inverse [..., n, m] with singular "
        "values <= atol + rtol * s_max treated as zero, and that rank [...] int32.")


def _gelsd(a, b, *, cond):
    m, n = a.shape[-2:]
    x = _empty(b.shape[:-2] + (n, b.shape[-1]), a.dtype)
    s = _empty(a.shape[:-2] + (min(m, n),), _real(a.dtype))
    rank = _empty(a.shape[:-2], _INT32)
    raise_for_info("lstsq", _lapack.gelsd(a, b, x, s, rank, cond, _threads.current),
                   "did not converge (SVD in least squares)")
    return x, s, rank


def _pinv_cpu(a, *, atol, rtol):
    u, s, vh = _svd_kernel(a, False, True)
    keep = s > atol + rtol * np.max(s, axis=-1, initial=0.0, keepdims=True)
    sinv = np.where(keep, 1 / np.where(keep, s, 1), 0).astype(s.dtype)
    p = (_h(vh) * sinv[..., None, :]) @ _h(u)                  # V diag(1/s) U^H
    return p.astype(a.dtype, copy=False), keep.sum(axis=-1).astype(_INT32)


def _h(x):
    return np.conj(np.swapaxes(x, -1, -2))


def_impl(lstsq_p, "cpu", _gelsd)
def_impl(pinv_p, "cpu", _pinv_cpu)


# -- rules ---------------------------------------------------------------------------------

def _pinv_solve(a, cond, *rhs):
    """A+ r for each r of ``rhs`` (one lstsq solve for all: columns concatenated)."""
    ks = [r.shape[-1] for r in rhs]
    x = lstsq_p.bind(a, rhs[0] if len(rhs) == 1 else _ops.concatenate(list(rhs), axis=-1),
                     cond=cond)[0]
    starts = np.cumsum([0] + ks)
    return [x[..., :, i:j] for i, j in zip(starts[:-1], starts[1:])]


def _lstsq_jvp(tangents, primals, out, params):
    # Golub & Pereyra 1973: dx = A+(db - dA x) + A+ A+^H dA^H r + (I - A+ A) dA^H A+^H x
    ta, tb = tangents
    (a, b), (x, s, _) = primals, out
    cond = params["cond"]
    if ta is None:
        return _pinv_solve(a, cond, tb)[0], None, None
    tah = mH(ta)
    w, y = _pinv_solve(mH(a), cond, x, tah @ (b - a @ x))  # A+^H x, A+^H dA^H r
    z = tah @ w
    rhs = y - ta @ x - a @ z                                 # dx = z + A+ (db + rhs)
    dx = z + _pinv_solve(a, cond, rhs if tb is None else tb + rhs)[0]
    return dx, _svdvals_jvp((ta,), (a,), s, _SVD_PARAMS), None


def _lstsq_vjp(ct, primals, out, params, needs):
    # the JVP's adjoint: gb = A+^H gx, gA = -gb x^H + r (A+ gb)^H + A+^H x (gx - A+ A gx)^H
    (a, b), (x, _, _) = primals, out
    gx, gs, _ = ct
    cond = params["cond"]
    ga = gb = None
    if gx is not None:
        if needs[0]:
            gb, w = _pinv_solve(mH(a), cond, gx, x)
            p, q = _pinv_solve(a, cond, gb, a @ gx)
            ga = -(gb @ mH(x)) + (b - a @ x) @ mH(p) + w @ mH(gx - q)
        else:
            gb, = _pinv_solve(mH(a), cond, gx)
    if gs is not None and needs[0]:
        g = _svdvals_vjp(gs, (a,), None, _SVD_PARAMS, (True,))[0]
        ga = g if ga is None else ga + g
    return ga, gb if needs[1] else None


def _pinv_jvp(tangents, primals, out, params):
    # Golub & Pereyra 1973: dP = -P dA P + P P^H dA^H (I - A P) + (I - P A) dA^H P^H P
    t, = tangents
    if t is None:
        return None, None
    (a,), (p, _) = primals, out
    th, ph = mH(t), mH(p)
    dp = -(p @ t @ p) + (p @ ph) @ (th - (th @ a) @ p) + (th - p @ (a @ th)) @ (ph @ p)
    return dp, None


def _pinv_vjp(ct, primals, out, params, needs):
    # the JVP's adjoint: gA = -P^H g P^H + (I - A P) g^H P P^H + P^H P g^H (I - P A)
    (a,), (p, _) = primals, out
    g = ct[0]
    if g is None:
        return (None,)
    gh, ph = mH(g), mH(p)
    return (-(ph @ g @ ph) + (gh - a @ (p @ gh)) @ (p @ ph) + (ph @ p) @ (gh - (gh @ p) @ a),)


_lstsq_vjp.uses_out = True
_pinv_vjp.uses_out = True
def_jvp_rule(lstsq_p, _lstsq_jvp)
def_vjp_rule(lstsq_p, _lstsq_vjp)
def_jvp_rule(pinv_p, _pinv_jvp)
def_vjp_rule(pinv_p, _pinv_vjp)


# -- public functions ----------------------------------------------------------------------

def _rank(rank):
    """An int for one matrix, an int32 array for a batch (as the primitive's); a traced
    rank stays a tensor."""
    if is_abstract(rank):
        return rank
    r = rank.numpy()
    return int(r) if r.ndim == 0 else r


def _eps(dt):
    return float(np.finfo(_real(dt)).eps)


def lstsq(a: ArrayLike, b: ArrayLike, cond: float | None = None, overwrite_a: bool = False,
          overwrite_b: bool = False, check_finite: bool = True,
          lapack_driver: str | None = None) -> tuple[Tensor, Tensor, int, Tensor]:
    """Least-squares solution of ``a x = b`` (scipy.linalg.lstsq).

    ``x`` is the minimum-norm solution of ``min ||b - a x||_2`` (LAPACK's ?gelsd);
    singular values ``<= cond * s_max`` count as zero.  Batch dimensions of ``a`` and
    ``b`` broadcast.

    Parameters
    ----------
    a : Tensor or array_like, shape (..., M, N)
        The coefficient matrices.
    b : Tensor or array_like, shape (..., M, K) or (M,)
        The right-hand sides.
    cond : float, optional
        The relative cutoff for small singular values (default: the dtype's eps).
    overwrite_a : bool, default False
        Accepted for scipy's signature and ignored: tenferro never writes its inputs.
    overwrite_b : bool, default False
        Accepted for scipy's signature and ignored: tenferro never writes its inputs.
    check_finite : bool, default True
        Raise ValueError if an input holds infs or NaNs (scipy's check).
    lapack_driver : {None, 'gelsd', 'gelss', 'gelsy'}, optional
        Validated as scipy's; every driver runs ?gelsd.

    Returns
    -------
    x : Tensor, shape (..., N, K) or (..., N)
        The solution.
    residues : Tensor
        The squared 2-norms of the columns of ``b - a x`` when M > N and the rank is N
        (for every matrix of a batch), else an empty array.
    rank : int or Tensor
        The effective rank (an int32 tensor for a batch).
    s : Tensor, shape (..., min(M, N))
        The singular values of ``a``.

    Raises
    ------
    LinAlgError
        If the SVD does not converge (infs or NaNs with ``check_finite=False``).
    ValueError
        If ``lapack_driver`` is unknown, ``b`` does not have M rows, or
        (``check_finite``) an input holds infs or NaNs.
    TypeError
        If an input is not numeric (strings, objects).
    UnsupportedOperation
        If an input is on a device without a kernel for it (the WebGPU driver has no
        LAPACK routines; move the data with ``.to('cpu')``).

    Notes
    -----
    Differentiable: yes in ``a`` and ``b`` (``x``, ``residues`` and ``s``), forward and
    reverse, real and complex, to any order, for constant rank: the derivative along
    matrices of the same rank (Golub & Pereyra (1973), "The differentiation of
    pseudo-inverses and nonlinear least squares problems whose variables separate");
    every pseudo-inverse in the rules is itself a lstsq solve.  ``rank`` is an integer.

    See Also
    --------
    scipy.linalg.lstsq, numpy.linalg.lstsq, pinv, solve

    Examples
    --------
    >>> a = [[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]]
    >>> x, residues, rank, s = tf.linalg.lstsq(a, [1.0, 3.0, 5.0])
    >>> tf.round(x, 6), rank
    (tensor([1., 2.]), 2)
    """
    if lapack_driver not in (None, "gelsd", "gelss", "gelsy"):
        raise ValueError("tenferro.linalg.lstsq: lapack_driver must be None, 'gelsd', "
                         "'gelss' or 'gelsy', got %r" % (lapack_driver,))
    a = as_matrix_stack("lstsq", a, square=False)
    b0 = to_tensor(b)
    m, n = a.shape[-2:]
    if b0.ndim == 0 or b0.shape[-1 if b0.ndim == 1 else -2] != m:
        raise ValueError("tenferro.linalg.lstsq: a of shape %s and b of shape %s do not "
                         "fit: b needs %d rows (b is [M], or [..., M, K])"
                         % (a.shape, b0.shape, m))
    a, b = common_dtype(a, b0)
    vec = b.ndim == 1
    if vec:
        b = _ops.reshape(b, (m, 1))
    if check_finite:
        _check_finite("lstsq", a, b)
    a, b = broadcast_batch("lstsq", a, b)
    x, s, rank = lstsq_p.bind(a, b, cond=_eps(a.dtype) if cond is None else float(cond))
    traced = is_abstract(rank)
    if n == 0 or (m > n and (traced or bool((rank.numpy() == n).all()))):
        r = b - a @ x
        if traced and n:   # the residues' shape depends on the rank: full rank assumed
            r = check(r, rank == n, LinAlgError,
                      "tenferro.linalg.lstsq: the residues of a traced lstsq assume full "
                      "column rank (%d), but a matrix of the batch has a lower rank (eagerly "
                      "the residues are then empty); do not use them for rank-deficient "
                      "matrices in a traced program" % n)
        res = _ops.sum(_ops.real(r * _ops.conj(r)) if r.dtype.kind == "c" else r * r,
                       axis=-2)
        if vec:
            res = _ops.reshape(res, res.shape[:-1])
    else:
        res = _ops.zeros((0,), dtype=x.dtype)
    if vec:
        x = _ops.reshape(x, x.shape[:-1])
    return x, res, _rank(rank), s


def pinv(a: ArrayLike, *, atol: float | None = None, rtol: float | None = None,
         return_rank: bool = False, check_finite: bool = True) -> Any:
    """Moore-Penrose pseudo-inverse (scipy.linalg.pinv).

    From the SVD of ``a``, singular values ``<= atol + rtol * s_max`` treated as zero.
    Batched over leading dimensions.

    Parameters
    ----------
    a : Tensor or array_like, shape (..., M, N)
        The matrices.
    atol : float, optional
        The absolute cutoff (default 0).
    rtol : float, optional
        The relative cutoff (default ``max(M, N) * eps`` of the dtype).
    return_rank : bool, default False
        Also return the effective rank.
    check_finite : bool, default True
        Raise ValueError if an input holds infs or NaNs (scipy's check).

    Returns
    -------
    B : Tensor, shape (..., N, M)
        The pseudo-inverses, in ``a``'s dtype.
    rank : int or Tensor
        The effective rank (int32 tensor for a batch); only with ``return_rank``.

    Raises
    ------
    LinAlgError
        If the SVD does not converge (infs or NaNs with ``check_finite=False``).
    ValueError
        If ``atol`` or ``rtol`` is negative, ``a`` is not a stack of matrices, or
        (``check_finite``) holds infs or NaNs.
    TypeError
        If an input is not numeric (strings, objects).
    UnsupportedOperation
        If an input is on a device without a kernel for it (the WebGPU driver has no
        LAPACK routines; move the data with ``.to('cpu')``).

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order, for
    constant rank: ``dP = -P dA P + P P^H dA^H (I - A P) + (I - P A) dA^H P^H P``
    (Golub & Pereyra (1973), "The differentiation of pseudo-inverses and nonlinear
    least squares problems whose variables separate").

    See Also
    --------
    scipy.linalg.pinv, numpy.linalg.pinv, lstsq

    Examples
    --------
    >>> import scipy.linalg
    >>> a = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    >>> np.allclose(tf.linalg.pinv(a), scipy.linalg.pinv(a))
    True
    """
    a = as_matrix_stack("pinv", a, square=False)
    if check_finite:
        _check_finite("pinv", a)
    atol = 0.0 if atol is None else float(atol)
    rtol = max(a.shape[-2:]) * _eps(a.dtype) if rtol is None else float(rtol)
    if not (atol >= 0 and rtol >= 0):
        raise ValueError("tenferro.linalg.pinv: atol and rtol must be >= 0, got atol=%r, "
                         "rtol=%r" % (atol, rtol))
    p, rank = pinv_p.bind(a, atol=atol, rtol=rtol)
    return (p, _rank(rank)) if return_rank else p
