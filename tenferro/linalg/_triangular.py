"""Cholesky and triangular solves: ``cholesky``, ``cho_factor``, ``cho_solve``,
``solve_triangular`` (scipy.linalg's names, signatures and defaults; leading batch
dimensions as NumPy's).

Both primitives read one triangle of their matrix, as LAPACK does, and their
derivatives are those of that function: a perturbation of the unread triangle changes
nothing, so its gradient is zero there (triangle-only gradients, consistent with
finite differences in every direction).  For a Hermitian input built from parameters
(the usual case: a kernel matrix) this gives the same parameter gradients as the
Hermitian-gradient convention of PyTorch and JAX.  Cholesky also ignores the imaginary
part of the diagonal (LAPACK's ?potrf reads the real part only).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .. import _ops
from ..devices.cpu import threads as _threads
from .._kernels import _lapack
from .._kernels._alloc import empty as _empty
from .._ops.matmul import broadcast_batch
from ..autograd.extend import Primitive, def_impl, def_jvp_rule, def_vjp_rule
from ._util import (TRANS as _TRANS, as_matrix_stack, check_finite as _check_finite, mH,
                    half_triangle, on_cuda, op_trans, raise_for_info, real_diag, rhs,
                    sym_from_triangle as _sym_from_triangle, tri as _tri,
                    triangle_adjoint as _triangle_adjoint)

if TYPE_CHECKING:
    from .._tensor import ArrayLike, Tensor



# -- primitives ----------------------------------------------------------------------------

cholesky_p = Primitive(
    "linalg.cholesky", lambda a, *, lower: a,
    doc="Cholesky factor of each Hermitian positive-definite matrix [..., n, n], read "
        "from its lower (lower=True) or upper triangle; the factor is L (A = L L^H) or "
        "U (A = U^H U), the other triangle zero.")
triangular_solve_p = Primitive(
    "linalg.triangular_solve", lambda a, b, *, lower, trans, unit_diagonal: b,
    doc="X with op(T) X = B, T the lower/upper triangle of a [..., n, n] (unit diagonal "
        "if unit_diagonal), op = identity, transpose or conjugate transpose (trans 0, "
        "1, 2); b [..., n, k] with a's batch shape.")


def _cholesky_cpu(a, *, lower):
    out = _empty(a.shape, a.dtype)
    raise_for_info("cholesky", _lapack.potrf(a, out, lower, _threads.current),
                   "is not positive definite")
    return out


def _triangular_solve_cpu(a, b, *, lower, trans, unit_diagonal):
    out = _empty(b.shape, b.dtype)
    raise_for_info("solve_triangular",
                   _lapack.trtrs(a, b, out, lower, trans, unit_diagonal, _threads.current),
                   "is singular (a zero on its diagonal)")
    return out


def_impl(cholesky_p, "cpu", _cholesky_cpu)
def_impl(triangular_solve_p, "cpu", _triangular_solve_cpu)
def_impl(cholesky_p, "cuda", on_cuda("cholesky", "cholesky", "is not positive definite"))
def_impl(triangular_solve_p, "cuda", on_cuda("triangular_solve", "solve_triangular",
                                             "is singular (a zero on its diagonal)"))


# -- public functions ----------------------------------------------------------------------

def cholesky(a: ArrayLike, lower: bool = False, overwrite_a: bool = False,
             check_finite: bool = True) -> Tensor:
    """Cholesky factor of Hermitian positive-definite matrices (scipy.linalg.cholesky).

    The upper factor ``U`` with ``a = U^H U`` by default, the lower ``L`` with
    ``a = L L^H`` for ``lower=True``; the other triangle of the result is zero.  Only
    the triangle of ``a`` named by ``lower`` is read (as LAPACK's ?potrf), and the
    imaginary part of its diagonal is ignored.  Batched over leading dimensions;
    float32 and complex64 stay single, ints and bools become float64.

    Parameters
    ----------
    a : Tensor or array_like, shape (..., M, M)
        Hermitian positive-definite matrices.
    lower : bool, default False
        Return (and read) the lower factor instead of the upper one.
    overwrite_a : bool, default False
        Accepted for scipy's signature and ignored: tenferro never writes its inputs.
    check_finite : bool, default True
        Raise ValueError if an input holds infs or NaNs (scipy's check).

    Returns
    -------
    Tensor, shape (..., M, M)
        The triangular factor, in ``a``'s dtype.

    Raises
    ------
    LinAlgError
        If a matrix is not positive definite (the message names the first one of the
        batch).
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
    Differentiable: yes, forward and reverse, real and complex, to any order (the rules
    are written with differentiable ops).  JVP from Murray (2016), "Differentiation of
    the Cholesky decomposition", eq. (7); VJP PyTorch's ``cholesky_backward`` (Murray
    2016).  The gradient is triangle-only: zero on the unread triangle (PyTorch and JAX
    return a Hermitian gradient instead; both give the same gradients of parameters
    that build ``a`` Hermitian).

    See Also
    --------
    scipy.linalg.cholesky, numpy.linalg.cholesky, cho_factor, cho_solve

    Examples
    --------
    >>> a = tf.asarray([[4.0, 2.0], [2.0, 3.0]])
    >>> tf.linalg.cholesky(a, lower=True)
    tensor([[2.        , 0.        ],
            [1.        , 1.41421356]])
    """
    a = as_matrix_stack("cholesky", a)
    if check_finite:
        _check_finite("cholesky", a)
    return cholesky_p.bind(a, lower=bool(lower))


def cho_factor(a: ArrayLike, lower: bool = False, overwrite_a: bool = False,
               check_finite: bool = True) -> tuple[Tensor, bool]:
    """Cholesky factorization for :func:`cho_solve` (scipy.linalg.cholesky's pair form).

    ``(c, lower)`` with ``c`` the factor of :func:`cholesky`; the unused triangle of
    ``c`` is zero, where scipy leaves it unspecified.  Batched over leading dimensions.

    Parameters
    ----------
    a : Tensor or array_like, shape (..., M, M)
        Hermitian positive-definite matrices; only the triangle named by ``lower`` is
        read.
    lower : bool, default False
        Factor as ``L L^H`` (lower) instead of ``U^H U``.
    overwrite_a : bool, default False
        Accepted for scipy's signature and ignored: tenferro never writes its inputs.
    check_finite : bool, default True
        Raise ValueError if an input holds infs or NaNs (scipy's check).

    Returns
    -------
    c : Tensor, shape (..., M, M)
        The triangular factor.
    lower : bool
        ``lower``, for :func:`cho_solve`.

    Raises
    ------
    LinAlgError
        If a matrix is not positive definite (the first one is named).
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
    Differentiable: yes, as :func:`cholesky` (Murray 2016; PyTorch's
    ``cholesky_backward``), forward and reverse, real and complex, to any order.

    See Also
    --------
    scipy.linalg.cho_factor, cholesky, cho_solve

    Examples
    --------
    >>> c, lower = tf.linalg.cho_factor([[4.0, 2.0], [2.0, 3.0]])
    >>> c, lower
    (tensor([[2.        , 1.        ],
            [0.        , 1.41421356]]), False)
    """
    return cholesky(a, lower=lower, check_finite=check_finite), bool(lower)


def cho_solve(c_and_lower: tuple[ArrayLike, bool], b: ArrayLike, overwrite_b: bool = False,
              check_finite: bool = True) -> Tensor:
    """Solve ``A x = b`` given the Cholesky factorization of ``A`` (scipy.linalg.cho_solve).

    Two triangular solves with the factor from :func:`cho_factor`.  ``b`` is a stack
    of matrices [..., M, K], or a vector [M] (a vector only when 1-D, NumPy 2's rule);
    batch dimensions broadcast.

    Parameters
    ----------
    c_and_lower : tuple of (Tensor, bool)
        ``(c, lower)`` as returned by :func:`cho_factor`.
    b : Tensor or array_like, shape (..., M, K) or (M,)
        The right-hand sides.
    overwrite_b : bool, default False
        Accepted for scipy's signature and ignored: tenferro never writes its inputs.
    check_finite : bool, default True
        Raise ValueError if an input holds infs or NaNs (scipy's check).

    Returns
    -------
    Tensor, shape of ``b`` (batch dimensions broadcast)
        The solution ``x``, in the common dtype of ``c`` and ``b``.

    Raises
    ------
    LinAlgError
        If ``c`` has a zero on its diagonal.
    ValueError
        If the shapes of ``c`` and ``b`` do not fit, or (``check_finite``) an input holds
        infs or NaNs.
    TypeError
        If an input is not numeric (strings, objects).
    UnsupportedOperation
        If an input is on a device without a kernel for it (the WebGPU driver has no
        LAPACK routines; move the data with ``.to('cpu')``).

    Notes
    -----
    Differentiable: yes in ``c`` and ``b``, forward and reverse, real and complex, to any
    order: two :func:`solve_triangular` calls, whose rule is
    ``dX = op(T)^-1 (dB - op(dT) X)`` (JAX's ``triangular_solve`` rule; PyTorch's
    ``linalg_solve_triangular_backward``).

    See Also
    --------
    scipy.linalg.cho_solve, cho_factor, solve

    Examples
    --------
    >>> a = np.array([[4.0, 2.0], [2.0, 3.0]])
    >>> x = tf.linalg.cho_solve(tf.linalg.cho_factor(a), [2.0, 1.0])
    >>> np.allclose(a @ np.asarray(x), [2.0, 1.0])
    True
    """
    c, lower = c_and_lower
    c, b, vec = rhs("cho_solve", as_matrix_stack("cho_solve", c), b)   # b [..., n, k]
    y = solve_triangular(c, b, trans=0 if lower else 2, lower=lower,
                         check_finite=check_finite)
    x = solve_triangular(c, y, trans=2 if lower else 0, lower=lower, check_finite=False)
    return _ops.reshape(x, x.shape[:-1]) if vec else x


def solve_triangular(a: ArrayLike, b: ArrayLike, trans: int | str = 0, lower: bool = False,
                     unit_diagonal: bool = False, overwrite_b: bool = False,
                     check_finite: bool = True) -> Tensor:
    """Solve ``op(a) x = b`` for triangular ``a`` (scipy.linalg.solve_triangular).

    ``op`` is given by ``trans``; only the ``lower`` (or upper) triangle of ``a`` is
    read.  ``b`` is a stack of matrices [..., M, K], or a vector [M] (a vector only when
    1-D, NumPy 2's rule); batch dimensions broadcast.

    Parameters
    ----------
    a : Tensor or array_like, shape (..., M, M)
        Triangular matrices.
    b : Tensor or array_like, shape (..., M, K) or (M,)
        The right-hand sides.
    trans : {0, 1, 2, 'N', 'T', 'C'}, default 0
        Solve with ``a`` (0, 'N'), ``a^T`` (1, 'T') or ``a^H`` (2, 'C').
    lower : bool, default False
        Use the lower triangle of ``a`` instead of the upper one.
    unit_diagonal : bool, default False
        Take the diagonal of ``a`` as ones (it is not read).
    overwrite_b : bool, default False
        Accepted for scipy's signature and ignored: tenferro never writes its inputs.
    check_finite : bool, default True
        Raise ValueError if an input holds infs or NaNs (scipy's check).

    Returns
    -------
    Tensor, shape of ``b`` (batch dimensions broadcast)
        The solution ``x``, in the common dtype of ``a`` and ``b``.

    Raises
    ------
    LinAlgError
        If ``a`` has a zero on its diagonal (the first singular matrix is named).
    ValueError
        If ``trans`` is not one of the six values, the shapes do not fit, or
        (``check_finite``) an input holds infs or NaNs.
    TypeError
        If an input is not numeric (strings, objects).
    UnsupportedOperation
        If an input is on a device without a kernel for it (the WebGPU driver has no
        LAPACK routines; move the data with ``.to('cpu')``).

    Notes
    -----
    Differentiable: yes in ``a`` (its read triangle only) and ``b``, forward and reverse,
    real and complex, to any order: ``dX = op(T)^-1 (dB - op(dT) X)`` (JAX's
    ``triangular_solve`` rule); VJP PyTorch's ``linalg_solve_triangular_backward``.

    See Also
    --------
    scipy.linalg.solve_triangular, solve, cho_solve

    Examples
    --------
    >>> L = tf.asarray([[2.0, 0.0], [1.0, 1.0]])
    >>> tf.linalg.solve_triangular(L, [4.0, 3.0], lower=True)
    tensor([2., 1.])
    """
    if trans not in _TRANS:
        raise ValueError("tenferro.linalg.solve_triangular: trans must be 0, 1, 2, 'N', "
                         "'T' or 'C', got %r" % (trans,))
    a, b, vec = rhs("solve_triangular", as_matrix_stack("solve_triangular", a), b)
    if check_finite:
        _check_finite("solve_triangular", a, b)
    a, b = broadcast_batch("solve_triangular", a, b)
    x = triangular_solve_p.bind(a, b, lower=bool(lower), trans=_TRANS[trans],
                                unit_diagonal=bool(unit_diagonal))
    return _ops.reshape(x, x.shape[:-1]) if vec else x


# -- rules ---------------------------------------------------------------------------------

def _cholesky_jvp(tangents, primals, out, params):
    # Murray 2016, "Differentiation of the Cholesky decomposition", eq. (7):
    # dL = L Phi(L^-1 dA L^-H), Phi = lower triangle with half the diagonal
    t, = tangents
    if t is None:
        return None
    lower = params["lower"]
    L = out if lower else mH(out)
    da = _sym_from_triangle(t, lower)
    w = solve_triangular(L, da, lower=True, check_finite=False)
    x = mH(solve_triangular(L, mH(w), lower=True, check_finite=False))
    dl = L @ (_ops.tril(x, -1) + 0.5 * real_diag(x))
    return dl if lower else mH(dl)


def _cholesky_vjp(ct, primals, out, params, needs):
    # PyTorch FunctionsManual.cpp cholesky_backward (Murray 2016): P = tril(L^H gL)
    # with half its diagonal, G = L^-H P L^-1; then the adjoint of reading one triangle
    lower = params["lower"]
    L, gl = (out, ct) if lower else (mH(out), mH(ct))
    p = half_triangle(mH(L) @ gl, True)
    z = solve_triangular(L, p, trans=2, lower=True, check_finite=False)
    g = mH(solve_triangular(L, mH(z), trans=2, lower=True, check_finite=False))
    return (_triangle_adjoint(g, lower),)


_cholesky_vjp.uses_out = True


def _effective(a, lower, unit):
    t = _tri(a, lower, -1 if unit else 0)
    return t + _ops.eye(a.shape[-1], dtype=a.dtype, device=a.device) if unit else t


def _triangular_solve_jvp(tangents, primals, out, params):
    # d(op(T)^-1 B) = op(T)^-1 (dB - op(dT) X)   (JAX lax/linalg.py triangular_solve)
    ta, tb = tangents
    a, b = primals
    lower, trans, unit = params["lower"], params["trans"], params["unit_diagonal"]
    rhs = None if tb is None else tb
    if ta is not None:
        dt = _tri(ta, lower, -1 if unit else 0)
        r = -(op_trans(dt, trans) @ out)
        rhs = r if rhs is None else rhs + r
    if rhs is None:
        return None
    return triangular_solve_p.bind(a, rhs, **params)


def _triangular_solve_vjp(ct, primals, out, params, needs):
    # gB = op(T)^-H gX; gT = triangle of the adjoint of op applied to -gB X^H
    # (PyTorch FunctionsManual.cpp linalg_solve_triangular_backward)
    a, b = primals
    lower, trans, unit = params["lower"], params["trans"], params["unit_diagonal"]
    if trans == 1:  # op(T)^-H = conj(T)^-1 = conj(T^-1 conj(.))
        gb = _ops.conj(triangular_solve_p.bind(a, _ops.conj(ct), lower=lower, trans=0,
                                               unit_diagonal=unit))
    else:
        gb = triangular_solve_p.bind(a, ct, lower=lower, trans=2 - trans,
                                     unit_diagonal=unit)
    ga = None
    if needs[0]:
        m = -(gb @ mH(out))
        m = m if trans == 0 else (_ops.matrix_transpose(m) if trans == 1 else mH(m))
        ga = _tri(m, lower, -1 if unit else 0)
    return (ga, gb if needs[1] else None)


_triangular_solve_vjp.uses_out = True
def_jvp_rule(cholesky_p, _cholesky_jvp)
def_vjp_rule(cholesky_p, _cholesky_vjp)
def_jvp_rule(triangular_solve_p, _triangular_solve_jvp)
def_vjp_rule(triangular_solve_p, _triangular_solve_vjp)
