"""LU family: ``lu``, ``lu_factor``, ``lu_solve``, ``solve``, ``inv``, ``det``,
``slogdet`` (scipy.linalg's names, signatures and defaults -- ``slogdet`` is NumPy's --;
leading batch dimensions as NumPy's, broadcast between ``a`` and ``b``; ints promoted to
float64).

Primitives: ``linalg.lu_factor`` (two results: the packed factors of a[..., m, n],
unit-lower L below the diagonal and U on and above it as scipy's, and 0-based int32
pivots [..., min(m, n)] as scipy's; rectangular as scipy's),
``linalg.lu_solve`` (solve with those factors), ``linalg.solve`` (factor and solve in one
call; its extra outputs, the LU factors, let first-order derivatives solve again without
refactoring, as PyTorch's; when the derivative is itself differentiated they solve
differentiably instead), ``linalg.det`` and ``linalg.lu_permutation`` (the row
permutation of the pivots, on the device; the derivatives gather the identity's rows
with it, so they trace).
``inv`` is ``solve(a, I)``; ``lu`` (p, l, u) is built from ``lu_factor``'s
factors with tenferro ops (p a constant), so its derivatives are ``lu_factor``'s;
``slogdet`` is a composition over ``lu_factor`` (U's diagonal
and the pivots' sign), so its derivatives are those of ``lu_factor`` and of
``log``/``abs``.  Pivots are not differentiable.

Singular matrices: ``solve``, ``inv`` and ``lu_solve`` raise LinAlgError naming the
batch index; ``det`` returns 0 and ``slogdet`` (0, -inf) as scipy/NumPy.  ``det``'s
derivative is the adjugate, exact at singular matrices too (as PyTorch and JAX); the
derivatives of ``slogdet`` and ``solve`` at an exactly singular matrix raise LinAlgError
rather than returning NaN.

``assume_a`` (scipy 1.17's structures): each reads what scipy reads -- 'sym'/'her' the
``lower`` (or upper) triangle, mirrored, then LU; 'pos' that triangle through
``cholesky`` + ``cho_solve``; 'diagonal', 'tridiagonal', 'upper/lower triangular' only
that part -- so the numbers are scipy's for any input, and the derivatives are those of
the part read.  Ill-conditioned solves ('gen', 'sym', 'her', 'tridiagonal', 'pos',
'diagonal') warn with scipy's ``LinAlgWarning`` (?gecon's / ?pocon's rcond < eps, as
scipy; triangular solves do not warn, as scipy's).
"""
from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np
from scipy.linalg import LinAlgWarning

from .. import _dtypes, _ops
from ..devices.cpu import threads as _threads
from .._kernels import _elementwise as _ew, _lapack
from .._kernels._alloc import empty as _empty
from .._ops._common import to_tensor
from .._primitive import _interpreters
from .._tensor import Tensor, _wrap
from .._ops.matmul import broadcast_batch
from .._ops.indexing import take_p
from ..autograd._check import is_abstract
from ..autograd.extend import (Primitive, def_impl, def_jvp_rule, def_vjp_rule,
                               is_differentiated)
from ._eigh import _REAL
from ._svd import svd
from ._triangular import cho_solve, cholesky, solve_triangular
from ._util import (TRANS as _TRANS, as_matrix_stack, check_finite as _check_finite, diag,
                    mH, on_cuda, op_trans, raise_for_info, rhs, sym_from_triangle, tri)

if TYPE_CHECKING:
    from .._tensor import ArrayLike, Tensor


# -- primitives ----------------------------------------------------------------------------

lu_factor_p = Primitive(
    "linalg.lu_factor",
    lambda a: (a, (a[0][:-2] + (min(a[0][-2:]),), np.dtype(np.int32))), multiple_results=True,
    doc="LU with partial pivoting of each a[..., m, n]: (lu, piv), lu [..., m, n] packing "
        "the unit lower L (strictly below the diagonal) and U; piv [..., min(m, n)] int32 "
        "0-based (row i swapped with row piv[i]); A = P L U.  Never raises (a zero pivot "
        "is kept).")
lu_solve_p = Primitive(
    "linalg.lu_solve", lambda lu, piv, b, *, trans: b,
    doc="X with op(A) X = B for A = P L U given by lu_factor's (lu, piv); op identity, "
        "transpose or conjugate transpose (trans 0, 1, 2); b [..., n, k], lu's batch.")
det_p = Primitive(
    "linalg.det", lambda a: (a[0][:-2], a[1]),
    doc="Determinant of each a[..., n, n] via LU (0 for a singular matrix).")
lu_permutation_p = Primitive(
    "linalg.lu_permutation",
    lambda piv, *, m, inverse: (piv[0][:-1] + (m,), np.dtype(np.int64)),
    differentiable=False, nondiff_reason="its output is integer row indices",
    doc="The row permutation perm [..., m] int64 of lu_factor's pivots [..., k] for "
        "a [..., m, n]: A[perm] = L U; ``inverse``: its inverse rows, A = (L U)[rows].")
solve_p = Primitive(
    "linalg.solve", lambda a, b: (b, a, (a[0][:-1], np.dtype(np.int32))),
    multiple_results=True,
    doc="(X, lu, piv): X with A X = B for a [..., n, n], b [..., n, k] (same batch) or, "
        "for one matrix a [n, n], a vector b [n]; via "
        "LU; lu and piv are the factorization (lu_factor's), kept for the derivatives, "
        "which solve with it again.  Only X is differentiable (lu and piv get no "
        "tangents): use lu_factor for differentiable factors.")


def _lu_factor_cpu(a):
    lu = _empty(a.shape, a.dtype)
    piv = _empty(a.shape[:-2] + (min(a.shape[-2:]),), np.dtype(np.int32))
    _lapack.getrf(a, lu, piv, _threads.current)  # info > 0: singular, kept as is
    return lu, piv


def _lu_solve_cpu(lu, piv, b, *, trans):
    out = _empty(b.shape, b.dtype)
    n = lu.shape[-1]
    d = np.abs(np.diagonal(lu, axis1=-2, axis2=-1))
    info = np.where((d == 0).any(axis=-1), 1, 0).astype(np.int32) if n else \
        np.zeros(lu.shape[:-2], np.int32)
    raise_for_info("lu_solve", info, "is singular")
    raise_for_info("lu_solve", _lapack.getrs(lu, piv, b, out, trans, _threads.current),
                   "is singular")
    return out


_INT32 = np.dtype(np.int32)


def _solve_cpu(a, b):
    vec = b.ndim == 1
    if vec:
        b = b[:, None]
    lu = _empty(a.shape, a.dtype)
    piv = _empty(a.shape[:-1], _INT32)
    out = _empty(b.shape, b.dtype)
    info = _lapack.gesv(a, b, lu, piv, out, _threads.current)
    if info.ndim or info.item():   # (a tiny solve: no reduction in the usual case)
        raise_for_info("solve", info, "is singular")
    return (out[:, 0] if vec else out), lu, piv


def _det_cpu(a):
    n = a.shape[-1]
    if n == 0:
        return np.ones(a.shape[:-2], a.dtype)
    lu, piv = _lu_factor_cpu(a)
    d = np.prod(np.diagonal(lu, axis1=-2, axis2=-1), axis=-1)
    return np.asarray(d * _pivot_sign(piv, np), dtype=a.dtype)


def _lu_permutation_cpu(piv, *, m, inverse):
    perm = _perm(piv, m)
    return (np.argsort(perm, axis=-1) if inverse else perm).astype(np.int64, copy=False)


def_impl(det_p, "cpu", _det_cpu)
def_impl(lu_factor_p, "cpu", _lu_factor_cpu)
def_impl(lu_solve_p, "cpu", _lu_solve_cpu)
def_impl(solve_p, "cpu", _solve_cpu)
def_impl(lu_permutation_p, "cpu", _lu_permutation_cpu)
def_impl(det_p, "cuda", on_cuda("det"))
def_impl(lu_factor_p, "cuda", on_cuda("lu_factor"))
def_impl(lu_solve_p, "cuda", on_cuda("lu_solve", "lu_solve", "is singular"))
def_impl(solve_p, "cuda", on_cuda("solve", "solve", "is singular"))
def_impl(lu_permutation_p, "cuda", on_cuda("lu_permutation"))


# -- helpers -------------------------------------------------------------------------------

def _perm(piv, m):
    """perm [..., m] with A[perm] = L U (numpy, from 0-based LAPACK pivots [..., k])."""
    piv = np.asarray(piv)
    perm = np.broadcast_to(np.arange(m), piv.shape[:-1] + (m,)).copy()
    idx = np.indices(piv.shape[:-1])
    for i in range(piv.shape[-1]):
        j = piv[..., i]
        pi = perm[..., i].copy()
        perm[(*idx, np.full(piv.shape[:-1], i))] = perm[(*idx, j)]
        perm[(*idx, j)] = pi
    return perm


def _permutation_matrix(piv, m, dtype, device, inverse=False):
    """The permutation matrix [..., m, m] (``dtype``) of the pivots: P^T with P^T A = L U,
    or P (``inverse``); the rows of the identity gathered on the device."""
    rows = lu_permutation_p.bind(piv, m=m, inverse=inverse)
    return take_p.bind(_ops.eye(m, dtype=dtype, device=device), rows, axis=0)


def _pt(piv, like):
    """P^T (a constant tensor [..., m, m], like's dtype; like [..., m, n]) with
    P^T A = L U."""
    return _permutation_matrix(piv, like.shape[-2], like.dtype, like.device)


def _pivot_sign(piv, xp):
    """(-1)^(number of row swaps) per matrix, integers: ``xp`` numpy for host pivots,
    tenferro's ops for tensors."""
    return 1 - 2 * (xp.sum(piv != xp.arange(piv.shape[-1]), axis=-1) % 2)


def _eye(n, like):
    return _ops.eye(n, dtype=like.dtype, device=like.device)


def _unpack(lu):
    """(L, U) from packed lu [..., m, n], padded to square as JAX's _lu_jvp_rule: L
    [..., m, m] with identity columns after the k-th, U [..., n, n] with identity rows
    after the k-th (k = min(m, n); no padding for square lu)."""
    m, n = lu.shape[-2:]
    L, U = _ops.tril(lu[..., :, :m], -1), _ops.triu(lu[..., :n, :])
    if m > n:
        L = _ops.concatenate([L, _ops.zeros(lu.shape[:-2] + (m, m - n), dtype=lu.dtype,
                                            device=lu.device)], axis=-1)
    if n > m:
        U = _ops.concatenate([U, _ops.broadcast_to(_eye(n, lu)[m:, :],
                                                   lu.shape[:-2] + (n - m, n))], axis=-2)
    return L + _eye(m, lu), U


def _adj_solve(solve0, solve2, ct, trans):
    """op(A)^-H ct given solvers for trans 0 and 2 (conj(A)^-1 = conj(A^-1 conj .))."""
    if trans == 0:
        return solve2(ct)
    if trans == 2:
        return solve0(ct)
    return _ops.conj(solve0(_ops.conj(ct))) if ct.dtype.kind == "c" else solve0(ct)


# -- rules ---------------------------------------------------------------------------------

def _lu_factor_jvp(tangents, primals, out, params):
    # JAX lax/linalg.py _lu_jvp_rule (L, U padded square): K = L^-1 P^T dA U^-1,
    # dL = L tril(K, -1), dU = triu(K) U, packed as lu is
    t, = tangents
    if t is None:
        return (None, None)
    lu, piv = out
    L, U = _unpack(lu)
    w = solve_triangular(L, _pt(piv, lu) @ t, lower=True, unit_diagonal=True,
                         check_finite=False)
    k = mH(solve_triangular(U, mH(w), trans=2, lower=False, check_finite=False))  # w U^-1
    return (L @ _ops.tril(k, -1) + _ops.triu(k) @ U, None)


def _lu_factor_vjp(ct, primals, out, params, needs):
    # the adjoint of _lu_factor_jvp's map (PyTorch linalg_lu_backward's square case,
    # L and U padded): gA = P L^-H [tril(L^H gL, -1) + triu(gU U^H)] U^-H
    g = ct[0]
    if g is None:
        return (None,)
    lu, piv = out
    L, U = _unpack(lu)
    m = _ops.tril(mH(L) @ _ops.tril(g, -1), -1) + _ops.triu(_ops.triu(g) @ mH(U))
    x = solve_triangular(L, m, trans=2, lower=True, unit_diagonal=True, check_finite=False)
    x = mH(solve_triangular(U, mH(x), trans=0, lower=False, check_finite=False))
    return (mH(_pt(piv, lu)) @ x,)


def _lu_solve_jvp(tangents, primals, out, params):
    # d(op(A)^-1 B) = op(A)^-1 (dB - op(dA) X), dA = P (dL U + L dU) from d(lu)
    tl_, _, tb = tangents
    lu, piv, b = primals
    trans = params["trans"]
    rhs = tb
    if tl_ is not None:
        L, U = _unpack(lu)
        da = mH(_pt(piv, lu)) @ (_ops.tril(tl_, -1) @ U + L @ _ops.triu(tl_))
        r = -(op_trans(da, trans) @ out)
        rhs = r if rhs is None else rhs + r
    if rhs is None:
        return None
    return lu_solve_p.bind(lu, piv, rhs, trans=trans)


def _lu_solve_vjp(ct, primals, out, params, needs):
    # gB = op(A)^-H gX; g op(A) = -gB X^H; then the adjoint of lu -> A = P L U:
    # g_lu = tril(P^T gA U^H, -1) + triu(L^H P^T gA)   (PyTorch linalg_lu_solve_LU)
    lu, piv, b = primals
    trans = params["trans"]
    gb = _adj_solve(lambda v: lu_solve_p.bind(lu, piv, v, trans=0),
                    lambda v: lu_solve_p.bind(lu, piv, v, trans=2), ct, trans)
    glu = None
    if needs[0]:
        m = -(gb @ mH(out))
        ga = op_trans(m, trans)
        L, U = _unpack(lu)
        pga = _pt(piv, lu) @ ga
        glu = _ops.tril(pga @ mH(U), -1) + _ops.triu(mH(L) @ pga)
    return (glu, None, gb if needs[2] else None)


def _adjugate(a, det):
    """adj(A) (A adj(A) = det(A) I), written with tenferro ops, given ``det`` = det(A):
    det(A) A^-1 when no determinant is zero, else (some matrix singular) the transposed
    cofactors (-1)^(i+j) det(minor_ij) -- n^2 determinants of size n-1, exact at
    singular A.  Traced (which matrices are singular is known at run time only): both
    det(A) A^-1 (of I where A is singular) and, for singular A, the SVD form, selected
    per matrix."""
    n = a.shape[-1]
    if n == 1:
        return _ops.ones_like(a)
    eye = _ops.broadcast_to(_eye(n, a), a.shape)
    if is_abstract(det):
        singular = _ops.expand_dims(det == 0, (-2, -1))
        return _ops.where(singular, _svd_adjugate(a), det[..., None, None] *
                          _solve(_ops.where(singular, eye, a), eye))
    if not (np.asarray(_ops.to_numpy(det)) == 0).any():
        return det[..., None, None] * _solve(a, eye)
    keep = _ops.asarray(np.array([[r for r in range(n) if r != i] for i in range(n)]))
    m = _ops.take(_ops.take(a, keep, axis=-2), keep, axis=-1)  # [..., i, n-1, j, n-1]
    k = m.ndim
    m = _ops.permute_dims(m, tuple(range(k - 4)) + (k - 4, k - 2, k - 3, k - 1))
    sgn = np.where(np.add.outer(np.arange(n), np.arange(n)) % 2, -1.0, 1.0)
    cof = det_p.bind(m) * _ops.asarray(sgn.astype(a.dtype))
    return _ops.matrix_transpose(cof)


def _svd_adjugate(a):
    """adj(A) = det(U) det(V^H) V diag(prod_{j != i} s_j) U^H for A = U diag(s) V^H
    (adj(XY) = adj(Y) adj(X), adj(U) = det(U) U^H for unitary U): no division, so
    exact at singular A too."""
    u, s, vh = svd(a, full_matrices=False, check_finite=False)
    n = s.shape[-1]
    others = _ops.prod(_ops.where(_ops.asarray(np.eye(n, dtype=bool), device=a.device),
                                  _ops.ones_like(s)[..., None, :], s[..., None, :]), axis=-1)
    c = (det_p.bind(u) * det_p.bind(vh))[..., None, None]
    return c * (mH(vh) * others.astype(a.dtype)[..., None, :]) @ mH(u)


def _det_jvp(tangents, primals, out, params):
    # d det = tr(adj(A) dA)   (Jacobi's formula; = det tr(A^-1 dA) for invertible A)
    t, = tangents
    if t is None:
        return None
    adj = _adjugate(primals[0], out)
    return _ops.sum(_ops.matrix_transpose(adj) * t, axis=(-2, -1))


def _det_vjp(ct, primals, out, params, needs):
    # gA = g adj(A)^H (= g conj(det) A^-H for invertible A; PyTorch linalg_det_backward
    # and JAX's cofactor solve give the adjugate at singular A too)
    return (ct[..., None, None] * mH(_adjugate(primals[0], out)),)


_det_vjp.uses_out = True
def_jvp_rule(det_p, _det_jvp)
def_vjp_rule(det_p, _det_vjp)


def _solve(a, b):
    """A^-1 B (differentiable in both)."""
    return solve_p.bind(a, b)[0]


def _solve_again(a, out, rhs, trans):
    """op(A)^-1 rhs for the A solve_p factored into ``out``: with its saved LU when
    nothing differentiates through A (the factorization is a constant then), else a
    differentiable solve (as PyTorch's linalg_solve_backward under GradMode)."""
    if is_differentiated(a):
        return _solve(mH(a) if trans == 2 else a, rhs)
    if rhs.ndim == 1:
        return _ops.reshape(lu_solve_p.bind(out[1], out[2], _ops.reshape(rhs, (-1, 1)),
                                            trans=trans), (-1,))
    return lu_solve_p.bind(out[1], out[2], rhs, trans=trans)


def _solve_jvp(tangents, primals, out, params):
    # dX = A^-1 (dB - dA X)   (linalg-ad.md; PyTorch linalg_solve_jvp)
    ta, tb = tangents
    a, b = primals
    rhs = tb
    if ta is not None:
        r = -(ta @ out[0])
        rhs = r if rhs is None else rhs + r
    if rhs is None:
        return (None, None, None)
    return (_solve_again(a, out, rhs, 0), None, None)


def _solve_vjp(ct, primals, out, params, needs):
    # gB = A^-H gX, gA = -gB X^H   (linalg-ad.md; PyTorch linalg_solve_backward)
    a, b = primals
    if ct[0] is None:
        return (None, None)
    gb = _solve_again(a, out, ct[0], 2)
    ga = None
    if needs[0]:
        x = out[0]
        if x.ndim == 1:  # a vector b: the outer product
            ga = -(_ops.expand_dims(gb, -1) * _ops.expand_dims(_ops.conj(x), 0))
        else:
            ga = -(gb @ mH(x))
    return (ga, gb if needs[1] else None)


_lu_factor_vjp.uses_out = True
_lu_solve_vjp.uses_out = True
_solve_vjp.uses_out = True
def_jvp_rule(lu_factor_p, _lu_factor_jvp)
def_vjp_rule(lu_factor_p, _lu_factor_vjp)
def_jvp_rule(lu_solve_p, _lu_solve_jvp)
def_vjp_rule(lu_solve_p, _lu_solve_vjp)
def_jvp_rule(solve_p, _solve_jvp)
def_vjp_rule(solve_p, _solve_vjp)


# -- public functions ----------------------------------------------------------------------

def lu_factor(a: ArrayLike, overwrite_a: bool = False,
              check_finite: bool = True) -> tuple[Tensor, Tensor]:
    """scipy.linalg.lu_factor: ``(lu, piv)`` of a[..., m, n], lu [..., m, n] packing the
    unit-lower L (below the diagonal) and U, piv [..., min(m, n)] the 0-based int32 row
    interchanges (row i with row piv[i]).  Batched over leading dims; a singular matrix
    is factored without error (a zero on U's diagonal).  Differentiable w.r.t. ``a``
    (through lu; piv is an index)."""
    a = as_matrix_stack("lu_factor", a, square=False)
    if check_finite:
        _check_finite("lu_factor", a)
    return lu_factor_p.bind(a)


def lu(a: ArrayLike, permute_l: bool = False, overwrite_a: bool = False,
       check_finite: bool = True, p_indices: bool = False) -> tuple[Tensor, ...]:
    """scipy.linalg.lu: ``(p, l, u)`` with ``a = p @ l @ u`` for a[..., m, n] (k =
    min(m, n)): p [..., m, m] a permutation matrix of a's real dtype, l [..., m, k] unit
    lower triangular, u [..., k, n] upper triangular.  ``p_indices=True``: p is the int32
    row indices [..., m] with ``a = l[p] @ u``; ``permute_l=True``: ``(p @ l, u)``.
    Differentiable in l and u (through ``lu_factor``; p is a constant)."""
    a = as_matrix_stack("lu", a, square=False)
    if check_finite:
        _check_finite("lu", a)
    packed, piv = lu_factor_p.bind(a)
    m, n = a.shape[-2:]
    k = min(m, n)
    L, U = _unpack(packed)
    l, u = L[..., :, :k], U[..., :k, :]
    if p_indices and not permute_l:   # a = l[rows] @ u
        return lu_permutation_p.bind(piv, m=m, inverse=True).astype(_dtypes.int32), l, u
    p = _permutation_matrix(piv, m, _REAL.get(a.dtype, a.dtype), a.device, inverse=True)
    if permute_l:
        return p.astype(a.dtype) @ l, u
    return p, l, u


def lu_solve(lu_and_piv: tuple[ArrayLike, ArrayLike], b: ArrayLike, trans: int = 0,
             overwrite_b: bool = False, check_finite: bool = True) -> Tensor:
    """scipy.linalg.lu_solve: x with op(A) x = b, A given by ``lu_factor``'s
    ``(lu, piv)``, op by ``trans`` (0/'N', 1/'T', 2/'C').  LinAlgError (naming the batch
    index) when U has a zero on its diagonal."""
    if trans not in _TRANS:
        raise ValueError("tenferro.linalg.lu_solve: trans must be 0, 1, 2, 'N', 'T' or "
                         "'C', got %r" % (trans,))
    lu, piv = lu_and_piv
    lu = as_matrix_stack("lu_solve", lu)
    piv = to_tensor(piv)
    if piv.shape != lu.shape[:-1]:
        raise ValueError("tenferro.linalg.lu_solve: piv of shape %s does not fit lu of "
                         "shape %s" % (piv.shape, lu.shape))
    if piv.dtype.kind not in "iuf":   # scipy casts float pivots
        raise TypeError("tenferro.linalg.lu_solve: piv must be integer pivots (lu_factor's), "
                        "got dtype %s" % (piv.dtype,))
    n = lu.shape[-1]
    if not is_abstract(piv) and piv.size:   # LAPACK would read and write out of bounds
        host = np.asarray(_ops.to_numpy(piv))
        if host.min() < 0 or host.max() >= n:
            raise ValueError("tenferro.linalg.lu_solve: piv must hold 0-based row indices in "
                             "[0, %d) (scipy's convention) for lu of shape %s, got values in "
                             "[%d, %d]" % (n, lu.shape, host.min(), host.max()))
    if piv.dtype != _dtypes.int32:
        piv = piv.astype(_dtypes.int32)
    lu, b, vec = rhs("lu_solve", lu, b)
    if check_finite:
        _check_finite("lu_solve", lu, b)
    batch = _ops.broadcast_shapes("lu_solve", lu.shape[:-2], b.shape[:-2])
    if lu.shape[:-2] != batch:
        lu = _ops.broadcast_to(lu, batch + lu.shape[-2:])
        piv = _ops.broadcast_to(piv, batch + piv.shape[-1:])
    if b.shape[:-2] != batch:
        b = _ops.broadcast_to(b, batch + b.shape[-2:])
    x = lu_solve_p.bind(lu, piv, b, trans=_TRANS[trans])
    return _ops.reshape(x, x.shape[:-1]) if vec else x


# scipy 1.17's structures (scipy.linalg.solve's table); the value is what is read
_STRUCTURES = {
    None: "gen", "gen": "gen", "general": "gen", "banded": "gen",
    "diagonal": "diagonal", "tridiagonal": "tridiagonal",
    "upper triangular": "upper", "lower triangular": "lower",
    "sym": "sym", "symmetric": "sym", "her": "her", "hermitian": "her",
    "pos": "pos", "positive definite": "pos"}
# scipy.linalg.inv's (no 'tridiagonal', 'banded' or long names of sym/her/pos)
_INV_STRUCTURES = (None, "gen", "general", "diagonal", "upper triangular",
                   "lower triangular", "pos", "sym", "her")


def _structure(op, assume_a, allowed):
    if not (assume_a is None or isinstance(assume_a, str)) or assume_a not in allowed:
        raise ValueError("tenferro.linalg.%s: %r is not a recognized matrix structure; "
                         "expected one of %s" % (op, assume_a,
                                                 ", ".join(map(repr, allowed))))
    return _STRUCTURES[assume_a]


def _symmetric(a, lower, conj):
    """The symmetric (``conj``: Hermitian, diagonal real) matrix whose ``lower`` (else
    upper) triangle is a's: what LAPACK's ?sysv / ?hesv read."""
    if conj:
        return sym_from_triangle(a, lower)
    t = tri(a, lower, -1)
    return tri(a, lower) + _ops.matrix_transpose(t)


def _warn_ill_conditioned(op, a, factor, cholesky=-1, stacklevel=4):
    """scipy's LinAlgWarning when a matrix's 1-norm rcond is below eps: ?gecon on LU
    factors, ?pocon on a Cholesky factor (``cholesky`` 0 upper, 1 lower), or, for
    ``factor`` None, the diagonal ``a``'s min |d| / max |d|.  CPU and eager only: a
    traced graph has no values to warn about."""
    if (a.device.type != "cpu" or a.size == 0 or is_abstract(a)
            or (factor is not None and is_abstract(factor))):
        return
    _warn_rcond(op, _ops.to_numpy(a), None if factor is None else _ops.to_numpy(factor),
                cholesky, stacklevel + 1)


def _warn_rcond(op, an, fn, cholesky, stacklevel):
    """:func:`_warn_ill_conditioned` on host arrays: ``an`` the matrices, ``fn`` their
    factors (or None)."""
    rdt = _REAL.get(an.dtype, an.dtype)
    if fn is None:
        d = np.abs(np.diagonal(an, axis1=-2, axis2=-1))
        rcond = np.asarray(d.min(axis=-1) / d.max(axis=-1), rdt)
    else:
        rcond = np.empty(an.shape[:-2], rdt)
        _lapack.gecon(fn, an, rcond, _threads.current, cholesky)
    eps = _EPS[rdt]
    if (float(rcond) >= eps) if rcond.ndim == 0 else (rcond.min() >= eps):
        return   # the usual case: nothing to warn about
    ill = np.flatnonzero(~(rcond >= eps))   # NaN too, as scipy
    warnings.warn("tenferro.linalg.%s: an ill-conditioned matrix detected: %s; the "
                  "result may not be accurate" % (op, ", ".join(
                      "slice %d has rcond = %.6g" % (i, rcond.flat[i]) for i in ill[:5])),
                  LinAlgWarning, stacklevel=stacklevel)   # the caller of solve/inv


_EPS = {np.dtype(np.float32): np.finfo(np.float32).eps,
        np.dtype(np.float64): np.finfo(np.float64).eps}


def _solve_checked(op, a, b):
    """solve_p's X for a general a (LinAlgError if singular, LinAlgWarning if
    ill-conditioned, as scipy)."""
    x, lu, _ = solve_p.bind(a, b)
    _warn_ill_conditioned(op, a, lu)
    return x


_PLAIN = frozenset(_EPS) | frozenset(_REAL)   # the dtypes solve computes in


def _solve_plain(a, b, check_finite):
    """``solve(a, b)`` for one general CPU matrix and a right-hand side of its dtype,
    neither taking part in autodiff: the steps of the general path below, straight on
    the host arrays (its conversions, broadcasting and primitive dispatch are no-ops
    here; a tiny solve is all per-call cost).  None where the general path is needed."""
    an, bn = a._data, b._data
    dev = a._device
    if (a._ad is not None or b._ad is not None or dev.type != "cpu" or an.ndim != 2
            or an.dtype not in _PLAIN or bn.dtype != an.dtype or b._device is not dev):
        return None
    n = an.shape[0]
    if n == 0 or an.shape[1] != n or not 1 <= bn.ndim <= 2 or bn.shape[0] != n:
        return None
    if check_finite and not (_ew.all_finite(an) and _ew.all_finite(bn)):
        _check_finite("solve", a, b)   # raises (or passes: a layout all_finite skips)
    x, lu, _ = _solve_cpu(an, bn)
    if n > 2 or not _surely_well_conditioned(an):
        _warn_rcond("solve", an, lu, -1, 4)
    return _wrap(x, dev)


def _surely_well_conditioned(an):
    """Whether the 1x1 or 2x2 matrix ``an`` certainly gets ?gecon's rcond >= eps, so
    that the estimate (1.1 of a 2x2 solve's 4 us) need not run.  ?gecon's rcond is
    1 / (||A||_1 * est) with est (?lacn2's) a norm of A^-1 applied to vectors of 1-norm
    1: est <= ||A^-1||_1, so rcond >= the true 1 / (||A||_1 ||A^-1||_1), which a 2x2
    gives in closed form, |det| / (||A||_1 ||adj A||_1).  True when that is at least
    1e4 eps (a margin far beyond rounding) with the norms inside [1e-30, 1e30] (no
    scaling in ?latrs); False (run ?gecon) otherwise, NaNs and infs included."""
    if an.shape[0] == 1:
        return 1e-15 < abs(an.item()) < 1e15
    (a, b), (c, d) = an.tolist()
    det = abs(a * d - b * c)
    a, b, c, d = abs(a), abs(b), abs(c), abs(d)
    n1, m1 = a + c, b + d     # ||A||_1 and ||adj A||_1 (its columns (d, c), (b, a))
    n2, m2 = d + c, b + a
    num = (n1 if n1 > m1 else m1) * (n2 if n2 > m2 else m2)
    return 1e-30 < num < 1e30 and det >= _SURE[an.dtype] * num


_SURE = {dt: 1e4 * _EPS[_REAL.get(dt, dt)] for dt in _PLAIN}


def solve(a: ArrayLike, b: ArrayLike, lower: bool = False, overwrite_a: bool = False,
          overwrite_b: bool = False, check_finite: bool = True, assume_a: str | None = None,
          transposed: bool = False) -> Tensor:
    """scipy.linalg.solve: x with a x = b (``a^T x = b`` if ``transposed``).
    ``assume_a`` as scipy 1.17's: None (the default: scipy detects the structure, which
    gives the general solution's numbers), 'gen'/'general'/'banded' (LU of the whole
    matrix), 'diagonal' (only the diagonal is read), 'tridiagonal' (only the three
    diagonals), 'upper triangular'/'lower triangular' (only that triangle),
    'sym'/'her' (only the ``lower``/upper triangle, mirrored (conjugated for 'her'),
    then LU) and 'pos' (``cholesky`` + ``cho_solve`` of that triangle).  ``b`` is
    [..., n, k] or a vector [n] (a vector only when 1-D); batch dims broadcast.
    LinAlgError names the first singular (or, for 'pos', non positive definite) matrix;
    an ill-conditioned one warns with scipy's ``LinAlgWarning``.  ``overwrite_a`` and
    ``overwrite_b`` are accepted and ignored (the inputs are never modified)."""
    if (a.__class__ is Tensor and b.__class__ is Tensor and not transposed
            and (assume_a is None or assume_a == "gen") and not _interpreters):
        x = _solve_plain(a, b, check_finite)
        if x is not None:
            return x
    kind = _structure("solve", assume_a, tuple(_STRUCTURES))
    a = as_matrix_stack("solve", a)
    keep = a.ndim == 2 and kind in ("gen", "tridiagonal", "sym", "her")
    a, b, vec = rhs("solve", a, b, keep_vector=keep)
    if check_finite:
        _check_finite("solve", a, b)
    if transposed and kind in ("gen", "tridiagonal"):
        a = _ops.matrix_transpose(a)
    if kind == "tridiagonal":
        a = _ops.triu(_ops.tril(a, 1), -1)
    elif kind in ("sym", "her"):
        a = _symmetric(a, lower, kind == "her")
    if b.ndim == 1:  # one matrix, one vector: solve_p takes it as is
        return _solve_checked("solve", a, b)
    a, b = broadcast_batch("solve", a, b)
    if kind == "pos":
        c = cholesky(a, lower=lower, check_finite=False)
        _warn_ill_conditioned("solve", _symmetric(a, lower, True), c, int(lower), 3)
        x = cho_solve((c, lower), b, check_finite=False)
    elif kind in ("upper", "lower"):
        x = solve_triangular(a, b, trans=1 if transposed else 0, lower=kind == "lower",
                             check_finite=False)
    elif kind == "diagonal":
        d = diag(a)
        raise_for_info("solve", np.asarray(_ops.to_numpy(_ops.any(d == 0, axis=-1)))
                       if not is_abstract(d) else 0, "is singular")
        _warn_ill_conditioned("solve", a, None, stacklevel=3)
        x = b / _ops.expand_dims(d, -1)
    else:
        x = _solve_checked("solve", a, b)
    return _ops.reshape(x, x.shape[:-1]) if vec else x


def inv(a: ArrayLike, overwrite_a: bool = False, check_finite: bool = True, *,
        assume_a: str | None = None, lower: bool = False) -> Tensor:
    """scipy.linalg.inv: the inverse of each matrix (``solve(a, I, assume_a=...,
    lower=...)``: ``assume_a`` and ``lower`` as scipy 1.17's inv); LinAlgError names the
    first singular matrix, an ill-conditioned one warns (LinAlgWarning)."""
    _structure("inv", assume_a, _INV_STRUCTURES)
    a = as_matrix_stack("inv", a)
    if check_finite:
        _check_finite("inv", a)
    eye = _ops.broadcast_to(_eye(a.shape[-1], a), a.shape)
    if _STRUCTURES[assume_a] == "gen":
        return _solve_checked("inv", a, eye)
    return solve(a, eye, lower=lower, check_finite=False, assume_a=assume_a)


def det(a: ArrayLike, overwrite_a: bool = False, check_finite: bool = True) -> Tensor:
    """scipy.linalg.det: the determinant of each matrix (0 for a singular one), via LU."""
    a = as_matrix_stack("det", a)
    if check_finite:
        _check_finite("det", a)
    return det_p.bind(a)


def slogdet(a: ArrayLike) -> tuple[Tensor, Tensor]:
    """numpy.linalg.slogdet: ``(sign, logabsdet)``, sign complex (|sign| = 1) for complex
    input; (0, -inf) for a singular matrix."""
    a = as_matrix_stack("slogdet", a)
    rdt = _ops.real(a).dtype if a.dtype.kind == "c" else a.dtype
    if a.shape[-1] == 0:
        return _ops.ones(a.shape[:-2], dtype=a.dtype), _ops.zeros(a.shape[:-2], dtype=rdt)
    lu, piv = lu_factor_p.bind(a)
    d = diag(lu)
    ad = _ops.abs(d)
    zero = ad == 0
    if is_abstract(piv):
        psign = _pivot_sign(piv, _ops).astype(a.dtype)
    else:   # eagerly on the host: k values, no dispatched ops
        psign = _ops.asarray(_pivot_sign(piv.numpy(), np).astype(a.dtype), device=a.device)
    if a.dtype.kind == "c":
        unit = _ops.where(zero, _ops.zeros_like(d), d / _ops.where(zero, _ops.ones_like(ad),
                                                                   ad).astype(d.dtype))
    else:   # NumPy's: -1 for d < 0, else 1 (also for inf and NaN pivots), 0 if singular
        one = _ops.ones_like(d)
        unit = _ops.where(zero, _ops.zeros_like(d), _ops.where(d < 0, -one, one))
    sign = psign * _ops.prod(unit, axis=-1)
    logabs = _ops.sum(_ops.log(ad), axis=-1)
    return sign, logabs
