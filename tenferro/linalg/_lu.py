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
from .._errors import LinAlgError
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
    """LU factorization for :func:`lu_solve` (scipy.linalg.lu_factor).

    ``(lu, piv)``: ``lu`` packs the unit lower ``L`` (below the diagonal) and ``U``;
    ``piv`` the 0-based int32 row interchanges (row i was swapped with row piv[i]), as
    scipy's.  A singular matrix is factored without error (a zero on U's diagonal).
    Batched over leading dimensions.

    Parameters
    ----------
    a : Tensor or array_like, shape (..., M, N)
        The matrices.
    overwrite_a : bool, default False
        Accepted for scipy's signature and ignored: tenferro never writes its inputs.
    check_finite : bool, default True
        Raise ValueError if an input holds infs or NaNs (scipy's check).

    Returns
    -------
    lu : Tensor, shape (..., M, N)
        L and U packed, in ``a``'s dtype.
    piv : Tensor, shape (..., min(M, N))
        The pivot indices, int32.

    Raises
    ------
    ValueError
        If ``a`` is not a stack of matrices, or (``check_finite``) holds infs or NaNs.
    TypeError
        If an input is not numeric (strings, objects).
    UnsupportedOperation
        If an input is on a device without a kernel for it (the WebGPU driver has no
        LAPACK routines; move the data with ``.to('cpu')``).

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order, as
    :func:`lu` (JAX's ``_lu_jvp_rule``, PyTorch's ``linalg_lu_backward``); ``piv`` is
    an index.

    See Also
    --------
    scipy.linalg.lu_factor, lu_solve, lu

    Examples
    --------
    >>> lu, piv = tf.linalg.lu_factor([[1.0, 2.0], [3.0, 4.0]])
    >>> lu
    tensor([[3.        , 4.        ],
            [0.33333333, 0.66666667]])
    >>> piv
    tensor([1, 1], dtype=int32)
    """
    a = as_matrix_stack("lu_factor", a, square=False)
    if check_finite:
        _check_finite("lu_factor", a)
    return lu_factor_p.bind(a)


def lu(a: ArrayLike, permute_l: bool = False, overwrite_a: bool = False,
       check_finite: bool = True, p_indices: bool = False) -> tuple[Tensor, ...]:
    """LU decomposition with partial pivoting (scipy.linalg.lu).

    ``(p, l, u)`` with ``a = p @ l @ u`` for ``a`` of shape [..., M, N] (K = min(M, N)):
    ``p`` a permutation matrix in ``a``'s real dtype, ``l`` unit lower triangular, ``u``
    upper triangular.  A singular matrix is factored without error.  Batched over
    leading dimensions.

    Parameters
    ----------
    a : Tensor or array_like, shape (..., M, N)
        The matrices.
    permute_l : bool, default False
        Return ``(p @ l, u)``.
    overwrite_a : bool, default False
        Accepted for scipy's signature and ignored: tenferro never writes its inputs.
    check_finite : bool, default True
        Raise ValueError if an input holds infs or NaNs (scipy's check).
    p_indices : bool, default False
        Return ``p`` as int32 row indices [..., M] with ``a = l[p] @ u``.

    Returns
    -------
    p : Tensor, shape (..., M, M) or (..., M)
        The permutation (not returned with ``permute_l``).
    l : Tensor, shape (..., M, K)
        Unit lower triangular (``p @ l`` with ``permute_l``).
    u : Tensor, shape (..., K, N)
        Upper triangular.

    Raises
    ------
    ValueError
        If ``a`` is not a stack of matrices, or (``check_finite``) holds infs or NaNs.
    TypeError
        If an input is not numeric (strings, objects).
    UnsupportedOperation
        If an input is on a device without a kernel for it (the WebGPU driver has no
        LAPACK routines; move the data with ``.to('cpu')``).

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order, for square
    and rectangular ``a``: JAX's ``_lu_jvp_rule`` with L and U padded square
    (``K = L^-1 P^T dA U^-1``, ``dL = L tril(K, -1)``, ``dU = triu(K) U``) and its
    transpose (PyTorch's ``linalg_lu_backward``); ``p`` is a constant.

    See Also
    --------
    scipy.linalg.lu, lu_factor, lu_solve

    Examples
    --------
    >>> a = tf.asarray([[1.0, 2.0], [3.0, 4.0]])
    >>> p, l, u = tf.linalg.lu(a)
    >>> u
    tensor([[3.        , 4.        ],
            [0.        , 0.66666667]])
    >>> np.allclose(p @ l @ u, a)
    True
    """
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
    """Solve ``op(A) x = b`` given the LU factorization of ``A`` (scipy.linalg.lu_solve).

    ``A`` is given by :func:`lu_factor`'s ``(lu, piv)``, ``op`` by ``trans``.  Batch
    dimensions of ``lu`` and ``b`` broadcast.

    Parameters
    ----------
    lu_and_piv : tuple of (Tensor, Tensor)
        ``(lu, piv)`` as returned by :func:`lu_factor` (square ``lu``).
    b : Tensor or array_like, shape (..., M, K) or (M,)
        The right-hand sides: a stack of matrices, or a vector (only when 1-D, NumPy 2's
        rule); batch dimensions broadcast against ``lu``'s.
    trans : {0, 1, 2, 'N', 'T', 'C'}, default 0
        Solve with ``A`` (0), ``A^T`` (1) or ``A^H`` (2).
    overwrite_b : bool, default False
        Accepted for scipy's signature and ignored: tenferro never writes its inputs.
    check_finite : bool, default True
        Raise ValueError if an input holds infs or NaNs (scipy's check).

    Returns
    -------
    Tensor, shape of ``b`` (batch dimensions broadcast)
        The solution ``x``.

    Raises
    ------
    LinAlgError
        If ``U`` has a zero on its diagonal (the batch index is named).
    ValueError
        If ``trans`` is invalid, ``piv`` does not fit ``lu`` or holds indices outside
        ``[0, M)``, the shapes do not fit, or (``check_finite``) an input holds infs or
        NaNs.
    TypeError
        If ``piv`` is not integer (or float) pivots, or an input is not numeric.
    UnsupportedOperation
        If an input is on a device without a kernel for it (the WebGPU driver has no
        LAPACK routines; move the data with ``.to('cpu')``).

    Notes
    -----
    Differentiable: yes in ``lu`` and ``b``, forward and reverse, real and complex, to
    any order: in ``b`` as :func:`solve`; in ``lu``
    ``g_lu = tril(P^T gA U^H, -1) + triu(L^H P^T gA)`` from ``gA = -gB X^H`` (PyTorch's
    ``linalg_lu_solve_LU``).

    See Also
    --------
    scipy.linalg.lu_solve, lu_factor, solve

    Examples
    --------
    >>> lu_piv = tf.linalg.lu_factor([[1.0, 2.0], [3.0, 4.0]])
    >>> tf.round(tf.linalg.lu_solve(lu_piv, [5.0, 11.0]), 6)
    tensor([1., 2.])
    """
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
    try:
        x, lu, _ = solve_p.bind(a, b)
    except LinAlgError as e:   # the kernel names solve; inv's caller called inv
        prefix = "tenferro.linalg.solve:"
        if op == "solve" or not str(e).startswith(prefix):
            raise
        raise LinAlgError("tenferro.linalg.%s:%s" % (op, str(e)[len(prefix):])) from None
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
    """Solve the linear system ``a x = b`` (scipy.linalg.solve).

    ``a^T x = b`` with ``transposed``.  ``assume_a`` as scipy 1.17's: None (the default;
    scipy detects the structure, which gives the general solution's numbers),
    'gen'/'general'/'banded' (LU of the whole matrix), 'diagonal' (only the diagonal is
    read), 'tridiagonal' (only the three diagonals), 'upper triangular'/'lower
    triangular' (only that triangle), 'sym'/'her' (the ``lower`` or upper triangle,
    mirrored, then LU) and 'pos' (:func:`cholesky` then :func:`cho_solve`).  An
    ill-conditioned matrix warns with scipy's ``LinAlgWarning`` (eager CPU calls).

    Parameters
    ----------
    a : Tensor or array_like, shape (..., M, M)
        The coefficient matrices.
    b : Tensor or array_like, shape (..., M, K) or (M,)
        The right-hand sides: a stack of matrices, or a vector (only when 1-D, NumPy 2's
        rule); batch dimensions broadcast against ``a``'s.
    lower : bool, default False
        For 'sym', 'her' and 'pos': read the lower triangle (else the upper).
    overwrite_a : bool, default False
        Accepted for scipy's signature and ignored: tenferro never writes its inputs.
    overwrite_b : bool, default False
        Accepted for scipy's signature and ignored: tenferro never writes its inputs.
    check_finite : bool, default True
        Raise ValueError if an input holds infs or NaNs (scipy's check).
    assume_a : str, optional
        The structure of ``a`` (above).
    transposed : bool, default False
        Solve ``a^T x = b``.

    Returns
    -------
    Tensor, shape of ``b`` (batch dimensions broadcast)
        The solution ``x``, in the common dtype of ``a`` and ``b``.

    Raises
    ------
    LinAlgError
        If a matrix is singular (or, for 'pos', not positive definite); the first one
        is named.  Also when the derivative is taken at an exactly singular matrix.
    ValueError
        If ``assume_a`` is not a known structure, the shapes do not fit, or
        (``check_finite``) an input holds infs or NaNs.
    TypeError
        If an input is not numeric (strings, objects).
    UnsupportedOperation
        If an input is on a device without a kernel for it (the WebGPU driver has no
        LAPACK routines; move the data with ``.to('cpu')``).

    Notes
    -----
    Differentiable: yes in ``a`` (the part read) and ``b``, forward and reverse, real
    and complex, to any order: ``dX = A^-1 (dB - dA X)``, ``gB = A^-H gX``, ``gA = -gB
    X^H`` (Giles (2008), "An extended collection of matrix derivative results for
    forward and reverse mode automatic differentiation"; PyTorch's ``linalg_solve_jvp``
    and ``linalg_solve_backward``); first-order derivatives reuse the forward LU
    factors.

    See Also
    --------
    scipy.linalg.solve, numpy.linalg.solve, lu_solve, cho_solve, solve_triangular, lstsq

    Examples
    --------
    >>> x = tf.linalg.solve([[3.0, 1.0], [1.0, 2.0]], [9.0, 8.0])
    >>> tf.round(x, 6)
    tensor([2., 3.])
    """
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
    """Inverse of square matrices (scipy.linalg.inv).

    ``solve(a, I)``, with ``assume_a`` and ``lower`` as scipy 1.17's inv (for
    'diagonal', the inverse of the diagonal part).  An ill-conditioned matrix warns with
    scipy's ``LinAlgWarning``.  Batched over leading dimensions.

    Parameters
    ----------
    a : Tensor or array_like, shape (..., M, M)
        The matrices.
    overwrite_a : bool, default False
        Accepted for scipy's signature and ignored: tenferro never writes its inputs.
    check_finite : bool, default True
        Raise ValueError if an input holds infs or NaNs (scipy's check).
    assume_a : str, optional
        The structure of ``a``, as :func:`solve`'s (None: general).
    lower : bool, default False
        For the triangle-reading structures: read the lower triangle.

    Returns
    -------
    Tensor, shape (..., M, M)
        The inverses, in ``a``'s dtype.

    Raises
    ------
    LinAlgError
        If a matrix is singular (the first one is named).
    ValueError
        If ``assume_a`` is not one of scipy's, ``a`` is not square, or
        (``check_finite``) holds infs or NaNs.
    TypeError
        If an input is not numeric (strings, objects).
    UnsupportedOperation
        If an input is on a device without a kernel for it (the WebGPU driver has no
        LAPACK routines; move the data with ``.to('cpu')``).

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order: through
    :func:`solve`'s rule, i.e. ``dX = -X dA X``, ``gA = -X^H gX X^H`` (Giles (2008), "An
    extended collection of matrix derivative results for forward and reverse mode
    automatic differentiation").

    See Also
    --------
    scipy.linalg.inv, numpy.linalg.inv, solve, pinv

    Examples
    --------
    >>> tf.round(tf.linalg.inv([[4.0, 7.0], [2.0, 6.0]]), 6)
    tensor([[ 0.6, -0.7],
            [-0.2,  0.4]])
    """
    _structure("inv", assume_a, _INV_STRUCTURES)
    a = as_matrix_stack("inv", a)
    if check_finite:
        _check_finite("inv", a)
    eye = _ops.broadcast_to(_eye(a.shape[-1], a), a.shape)
    if _STRUCTURES[assume_a] == "gen":
        return _solve_checked("inv", a, eye)
    return solve(a, eye, lower=lower, check_finite=False, assume_a=assume_a)


def det(a: ArrayLike, overwrite_a: bool = False, check_finite: bool = True) -> Tensor:
    """Determinant of square matrices (scipy.linalg.det).

    Computed from the LU factorization; 0 for a singular matrix.  Batched over leading
    dimensions.

    Parameters
    ----------
    a : Tensor or array_like, shape (..., M, M)
        The matrices.
    overwrite_a : bool, default False
        Accepted for scipy's signature and ignored: tenferro never writes its inputs.
    check_finite : bool, default True
        Raise ValueError if an input holds infs or NaNs (scipy's check).

    Returns
    -------
    Tensor, shape (...)
        The determinants, in ``a``'s dtype.

    Raises
    ------
    ValueError
        If ``a`` is not a stack of square matrices [..., M, M], or (``check_finite``)
        holds infs or NaNs.
    TypeError
        If an input is not numeric (strings, objects).
    UnsupportedOperation
        If an input is on a device without a kernel for it (the WebGPU driver has no
        LAPACK routines; move the data with ``.to('cpu')``).

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order: ``d det =
    det tr(A^-1 dA)`` (Giles (2008), "An extended collection of matrix derivative
    results for forward and reverse mode automatic differentiation"), as the adjugate
    ``gA = g adj(A)^H`` (PyTorch's ``linalg_det_backward``, JAX's cofactor solve), so it
    is exact at singular matrices too (built from cofactors where the computed
    determinant is exactly 0).  A matrix singular only up to rounding (a determinant
    of order 1e-16) takes the ``det A^-1`` branch: first derivatives stay accurate,
    second and higher ones lose digits.

    See Also
    --------
    scipy.linalg.det, numpy.linalg.det, slogdet

    Examples
    --------
    >>> tf.round(tf.linalg.det([[1.0, 2.0], [3.0, 4.0]]), 6)
    tensor(-2.)
    """
    a = as_matrix_stack("det", a)
    if check_finite:
        _check_finite("det", a)
    return det_p.bind(a)


def slogdet(a: ArrayLike) -> tuple[Tensor, Tensor]:
    """Sign and logarithm of the absolute determinant (numpy.linalg.slogdet).

    ``(sign, logabsdet)`` with ``det = sign * exp(logabsdet)``, without over- or
    underflow; ``sign`` is complex with ``|sign| = 1`` for complex input, and a singular
    matrix gives ``(0, -inf)``.  Batched over leading dimensions.

    Parameters
    ----------
    a : Tensor or array_like, shape (..., M, M)
        The matrices.

    Returns
    -------
    sign : Tensor, shape (...)
        In ``a``'s dtype.
    logabsdet : Tensor, shape (...)
        Real.

    Raises
    ------
    LinAlgError
        When differentiated at an exactly singular matrix (rather than return NaN).
    ValueError
        If ``a`` is not a stack of square matrices.
    TypeError
        If an input is not numeric (strings, objects).
    UnsupportedOperation
        If an input is on a device without a kernel for it (the WebGPU driver has no
        LAPACK routines; move the data with ``.to('cpu')``).

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order: through
    the LU factorization's rule (JAX's ``_lu_jvp_rule``), which gives ``d logabsdet = Re
    tr(A^-1 dA)`` and ``d sign = i Im tr(A^-1 dA) sign`` (Giles (2008), "An extended
    collection of matrix derivative results for forward and reverse mode automatic
    differentiation").

    See Also
    --------
    numpy.linalg.slogdet, det

    Examples
    --------
    >>> sign, logabsdet = tf.linalg.slogdet([[1.0, 2.0], [3.0, 4.0]])
    >>> sign, logabsdet
    (tensor(-1.), tensor(0.69314718))
    """
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
