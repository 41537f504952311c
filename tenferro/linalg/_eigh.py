"""Hermitian eigendecomposition: ``eigh`` and ``eigvalsh`` (scipy.linalg's names,
signature and defaults: ``lower=True``, eigenvalues ascending, eigenvectors as columns).

The generalized problem (``b`` positive definite, ``type`` 1, 2, 3) is a composition of
differentiable ops, LAPACK ?hegvd's reduction: b = L L^H (``cholesky``), the standard
problem of L^-1 A L^-H or L^H A L (``solve_triangular``), then v = L^-H y or L y; its
derivatives, to any order, are those of the pieces.  Subsets slice (or gather) the full
decomposition, so their derivatives are the full one's, restricted.

Like ``cholesky``, both read one triangle (scipy's ``lower``) and the imaginary part of
the diagonal is ignored; their derivatives are those of that function (triangle-only
gradients; see docs/linalg.md).

Degenerate spectra: the eigenvector derivative divides by eigenvalue gaps.  tenferro
replaces 1/x by the Lorentzian-broadened x / (x^2 + eps^2) (tenferro-rs; Liao et al.
2019), ``broadening=eps`` per call, 1e-12 by default: gradients stay finite where
PyTorch and JAX give inf/NaN, and for gauge-invariant losses (functions of the
eigenspaces, not of a basis inside a degenerate one) they equal the limit of distinct
eigenvalues.  A loss that depends on the arbitrary phase of complex eigenvectors is
detected and raises, as PyTorch does (a traced program raises when it runs: a runtime
``check``).
"""
from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Literal, overload

import numpy as np

from .. import _ops
from ..devices.cpu import threads as _threads
from .._errors import LinAlgError
from .._kernels import _lapack
from .._kernels._alloc import empty as _empty
from ..autograd._check import check, is_abstract
from ..autograd.extend import Primitive, def_impl, def_jvp_rule, def_vjp_rule
from ._util import (mH, on_cuda, prepared, prepared_pair, raise_for_info, re_diag,
                    sym_from_triangle, triangle_adjoint)
from ._triangular import cholesky, solve_triangular

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .._tensor import ArrayLike, Tensor

_REAL = {np.dtype(np.complex64): np.dtype(np.float32),
         np.dtype(np.complex128): np.dtype(np.float64)}


def _eigh_aval(a, *, lower, broadening):
    shape, dt = a
    return (shape[:-1], _REAL.get(np.dtype(dt), dt)), (shape, dt)


eigh_p = Primitive(
    "linalg.eigh", _eigh_aval, multiple_results=True,
    doc="(w, v): eigenvalues ascending and eigenvectors (columns) of each Hermitian "
        "matrix [..., n, n], read from its lower/upper triangle (params lower, "
        "broadening: the derivatives' gap regularisation).")
eigvalsh_p = Primitive(
    "linalg.eigvalsh", lambda a, *, lower, broadening: _eigh_aval(
        a, lower=lower, broadening=broadening)[0],
    doc="Eigenvalues (ascending) of each Hermitian matrix [..., n, n] (params as eigh).")


def _heevd(a, lower, vectors):
    w = _empty(a.shape[:-1], _REAL.get(a.dtype, a.dtype))
    v = _empty(a.shape, a.dtype) if vectors else None
    raise_for_info("eigh", _lapack.heevd(a, w, v, lower, _threads.current),
                   "did not converge")
    return w, v


def_impl(eigh_p, "cpu", lambda a, *, lower, broadening: _heevd(a, lower, True))
def_impl(eigvalsh_p, "cpu", lambda a, *, lower, broadening: _heevd(a, lower, False)[0])
def_impl(eigh_p, "cuda", on_cuda("eigh", "eigh", "did not converge"))
def_impl(eigvalsh_p, "cuda", on_cuda("eigvalsh", "eigh", "did not converge"))


_STANDARD = ("ev", "evd", "evr", "evx")
_GENERALIZED = ("gv", "gvd", "gvx")


@overload
def eigh(a: ArrayLike, b: ArrayLike | None = ..., *, lower: bool = ...,
         eigvals_only: Literal[False] = ..., overwrite_a: bool = ..., overwrite_b: bool = ...,
         type: int = ..., check_finite: bool = ...,
         subset_by_index: Sequence[int] | None = ...,
         subset_by_value: Sequence[float] | None = ..., driver: str | None = ...,
         broadening: float = ...) -> tuple[Tensor, Tensor]: ...
@overload
def eigh(a: ArrayLike, b: ArrayLike | None = ..., *, lower: bool = ...,
         eigvals_only: Literal[True], overwrite_a: bool = ..., overwrite_b: bool = ...,
         type: int = ..., check_finite: bool = ...,
         subset_by_index: Sequence[int] | None = ...,
         subset_by_value: Sequence[float] | None = ..., driver: str | None = ...,
         broadening: float = ...) -> Tensor: ...


def eigh(a: ArrayLike, b: ArrayLike | None = None, *, lower: bool = True,
         eigvals_only: bool = False, overwrite_a: bool = False, overwrite_b: bool = False,
         type: int = 1, check_finite: bool = True,
         subset_by_index: Sequence[int] | None = None,
         subset_by_value: Sequence[float] | None = None, driver: str | None = None,
         broadening: float = 1e-12) -> Tensor | tuple[Tensor, Tensor]:
    """Eigenvalues and eigenvectors of Hermitian matrices (scipy.linalg.eigh).

    ``(w, v)`` with ``a @ v = v * w`` and the eigenvalues ``w`` ascending.  With ``b``,
    the generalized problem of ``type`` 1 (``a @ v = b @ v * w``), 2
    (``a @ b @ v = v * w``) or 3 (``b @ a @ v = v * w``), ``v`` normalized as LAPACK's
    ?hegvd (``v^H b v = I`` for types 1 and 2, ``v^H b^-1 v = I`` for 3).  Batched over
    leading dimensions; ``w`` is real (float32 for float32 and complex64 input).

    Parameters
    ----------
    a : Tensor or array_like, shape (..., M, M)
        Hermitian (real symmetric) matrices; only the triangle named by ``lower`` is read.
    b : Tensor or array_like, shape (..., M, M), optional
        Hermitian positive-definite matrices of the generalized problem (batch dimensions
        broadcast against ``a``'s); only the ``lower`` (or upper) triangle is read.
    lower : bool, default True
        Read the lower triangles (else the upper ones).
    eigvals_only : bool, default False
        Return only ``w``.
    overwrite_a : bool, default False
        Accepted for scipy's signature and ignored: tenferro never writes its inputs.
    overwrite_b : bool, default False
        Accepted for scipy's signature and ignored: tenferro never writes its inputs.
    type : {1, 2, 3}, default 1
        The generalized problem: ``a v = w b v`` (1), ``a b v = w v`` (2) or
        ``b a v = w v`` (3).
    check_finite : bool, default True
        Raise ValueError if an input holds infs or NaNs (scipy's check).
    subset_by_index : sequence of two int, optional
        ``[lo, hi]``: keep the eigenpairs lo..hi (inclusive, ascending order).
    subset_by_value : sequence of two float, optional
        ``[vl, vh]``: keep the eigenpairs with ``vl < w <= vh`` (every matrix of a batch
        must keep as many).
    driver : str, optional
        Validated as scipy's ('ev', 'evd', 'evr', 'evx', 'gv', 'gvd', 'gvx'); every
        driver runs the same algorithm (?heevd, or a Jacobi sweep for tiny matrices).
    broadening : float, default 1e-12
        The eps of the Lorentzian regularisation ``x / (x^2 + eps^2)`` of ``1/x`` for
        eigenvalue gaps in the derivatives (keeps them finite at degeneracies).

    Returns
    -------
    w : Tensor, shape (..., K)
        The eigenvalues, ascending (K = M, or the subset's size).
    v : Tensor, shape (..., M, K)
        The eigenvectors as columns (not returned with ``eigvals_only``).

    Raises
    ------
    LinAlgError
        If ``b`` is not positive definite, or the eigensolver does not converge (infs
        or NaNs with ``check_finite=False``).
    ValueError
        If the shapes are not square or do not fit, ``type`` is not 1, 2 or 3, the
        subsets are invalid or both given, ``driver`` is unknown or does not fit the
        problem, or (``check_finite``) an input holds infs or NaNs.
    TypeError
        If a subset is not two numbers, or an input is not numeric.
    UnsupportedOperation
        If an input is on a device without a kernel for it (the WebGPU driver has no
        LAPACK routines; move the data with ``.to('cpu')``).

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order:
    JVP JAX's ``eigh_jvp_rule`` (``dw = Re diag(V^H dA V)``, ``dV = V (F o V^H dA V)``),
    VJP PyTorch's ``linalg_eig_backward`` (Hermitian case), with the gap factors
    ``F = 1/(w_j - w_i)`` broadened as tenferro-rs and BackwardsLinalg.jl (Lorentzian,
    Liao et al. 2019), so gradients stay finite at repeated eigenvalues where PyTorch's
    are NaN.  The generalized problem is LAPACK ?hegvd's reduction written with
    differentiable ops (Cholesky of ``b``).  Gradients are triangle-only.

    See Also
    --------
    scipy.linalg.eigh, numpy.linalg.eigh, eigvalsh, eig

    Examples
    --------
    >>> a = tf.asarray([[2.0, 1.0], [1.0, 2.0]])
    >>> w, v = tf.linalg.eigh(a)
    >>> tf.round(w, 6)
    tensor([1., 3.])
    >>> np.allclose(a @ v, v * w)
    True
    """
    return _eigh("eigh", a, b, lower, not eigvals_only, type, check_finite,
                 subset_by_index, subset_by_value, driver, broadening)


def eigvalsh(a: ArrayLike, b: ArrayLike | None = None, *, lower: bool = True,
             overwrite_a: bool = False, overwrite_b: bool = False, type: int = 1,
             check_finite: bool = True, subset_by_index: Sequence[int] | None = None,
             subset_by_value: Sequence[float] | None = None, driver: str | None = None,
             broadening: float = 1e-12) -> Tensor:
    """Eigenvalues of Hermitian matrices (scipy.linalg.eigvalsh).

    The ``w`` of :func:`eigh`, ascending and real (for real and complex Hermitian input);
    the arguments are :func:`eigh`'s.  Batched over leading dimensions.

    Parameters
    ----------
    a, b, lower, overwrite_a, overwrite_b, type
        As for :func:`eigh`.
    check_finite, subset_by_index, subset_by_value, driver, broadening
        As for :func:`eigh`.

    Returns
    -------
    Tensor, shape (..., K)
        The eigenvalues, ascending (K = M, or the subset's size).

    Raises
    ------
    LinAlgError, ValueError, TypeError
        As for :func:`eigh`.
    UnsupportedOperation
        If an input is on a device without a kernel for it (the WebGPU driver has no
        LAPACK routines; move the data with ``.to('cpu')``).

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order: the
    gradient is ``V diag(gw) V^H`` (PyTorch's ``linalg_eig_backward``, eigenvalues only),
    the eigenvectors recomputed for it; finite at repeated eigenvalues.

    See Also
    --------
    scipy.linalg.eigvalsh, numpy.linalg.eigvalsh, eigh

    Examples
    --------
    >>> tf.round(tf.linalg.eigvalsh([[2.0, 1.0], [1.0, 2.0]]), 6)
    tensor([1., 3.])
    """
    return _eigh("eigvalsh", a, b, lower, False, type, check_finite, subset_by_index,
                 subset_by_value, driver, broadening)


def _eigh(op, a, b, lower, vectors, type, finite, by_index, by_value, driver, eps):
    _check_driver(op, driver, b is not None, by_index is not None or by_value is not None)
    if b is None:
        a = prepared(op, a, finite)
    else:
        if type not in (1, 2, 3):
            raise ValueError("tenferro.linalg.%s: type must be 1, 2 or 3, got %r"
                             % (op, type))
        a, b = prepared_pair(op, a, b, finite)
    n = a.shape[-1]
    if by_index is not None and by_value is not None:
        raise ValueError("tenferro.linalg.%s: subset_by_index and subset_by_value cannot "
                         "both be given" % op)
    if by_index is not None:
        lo, hi = _index_bounds(op, by_index, n)
    elif by_value is not None:
        vl, vh = _value_bounds(op, by_value)
    p = dict(lower=bool(lower), broadening=float(eps))
    if b is not None:
        a, tail = _reduce_generalized(op, a, b, bool(lower), type)
        p["lower"] = True
    if not vectors:
        w, v = eigvalsh_p.bind(a, **p), None
    else:
        w, v = eigh_p.bind(a, **p)
        if b is not None:
            v = tail(v)
    if by_index is not None:
        w, v = w[..., lo:hi + 1], None if v is None else v[..., lo:hi + 1]
    elif by_value is not None:
        w, v = _select_by_value(op, w, v, vl, vh)
    return w if v is None else (w, v)


def _check_driver(op, driver, generalized, subset):
    """scipy's checks of ``driver``."""
    if driver is None:
        return
    if driver not in _STANDARD + _GENERALIZED:
        raise ValueError("tenferro.linalg.%s: unknown driver %r; expected None or one of "
                         "%s" % (op, driver, ", ".join(_STANDARD + _GENERALIZED)))
    if not generalized and driver in _GENERALIZED:
        raise ValueError("tenferro.linalg.%s: driver %r is for generalized problems: it "
                         "requires b" % (op, driver))
    if generalized and driver in _STANDARD:
        raise ValueError("tenferro.linalg.%s: driver %r is for standard problems: it does "
                         "not accept b (use one of %s)" % (op, driver, ", ".join(_GENERALIZED)))
    if subset and driver in ("ev", "evd", "gv", "gvd"):
        raise ValueError("tenferro.linalg.%s: driver %r cannot compute subsets of "
                         "eigenvalues (use evr/evx or gvx)" % (op, driver))


def _index_bounds(op, by_index, n):
    try:
        lo, hi = (operator.index(i) for i in by_index)
    except (TypeError, ValueError):
        raise TypeError("tenferro.linalg.%s: subset_by_index must be two integers [lo, hi], "
                        "got %r" % (op, by_index)) from None
    if not 0 <= lo <= hi < n:
        raise ValueError("tenferro.linalg.%s: subset_by_index=[%d, %d] is not valid: "
                         "expected 0 <= lo <= hi <= %d for matrices of size %d"
                         % (op, lo, hi, n - 1, n))
    return lo, hi


def _value_bounds(op, by_value):
    try:
        vl, vh = (float(x) for x in by_value)
    except (TypeError, ValueError):
        raise TypeError("tenferro.linalg.%s: subset_by_value must be two numbers [vl, vh], "
                        "got %r" % (op, by_value)) from None
    if not -np.inf <= vl < vh <= np.inf:
        raise ValueError("tenferro.linalg.%s: subset_by_value=[%r, %r] is not valid: "
                         "expected vl < vh" % (op, vl, vh))
    return vl, vh


def _select_by_value(op, w, v, vl, vh):
    """The pairs with vl < w <= vh, chosen on the host from the ascending ``w``; slices
    (or gathers, when the kept ranges start at different indices) keep the derivatives."""
    wn = np.asarray(_ops.to_numpy(w))
    start = np.sum(wn <= vl, axis=-1)
    count = np.sum(wn <= vh, axis=-1) - start
    k = int(count.flat[0]) if count.size else 0
    if np.any(count != k):
        raise ValueError("tenferro.linalg.%s: subset_by_value=[%r, %r] selects different "
                         "numbers of eigenvalues in the matrices of the batch (from %d to "
                         "%d); a batch result needs the same count in each"
                         % (op, vl, vh, count.min(), count.max()))
    s = int(start.flat[0]) if start.size else 0
    if np.all(start == s):
        return w[..., s:s + k], None if v is None else v[..., s:s + k]
    idx = np.expand_dims(start, -1) + np.arange(k)
    w = _ops.take_along_axis(w, idx, -1)
    if v is not None:
        v = _ops.take_along_axis(v, np.expand_dims(idx, -2), -1)
    return w, v


def _reduce_generalized(op, a, b, lower, type):
    """(C, tail): the standard problem C y = w y of the same eigenvalues, and the map
    from its eigenvectors y to the generalized ones (LAPACK ?hegst/?hegvd's reduction,
    written with differentiable ops): b = L L^H, C = L^-1 A L^-H (type 1) or L^H A L
    (types 2, 3), v = L^-H y (types 1, 2) or L y (type 3)."""
    try:
        c = cholesky(b, lower=lower, check_finite=False)
    except LinAlgError as e:
        raise LinAlgError("tenferro.linalg.%s: b must be positive definite, but its "
                          "Cholesky factorization failed: %s"
                          % (op, str(e).replace("tenferro.linalg.cholesky: ", ""))) from None
    L = c if lower else mH(c)
    a = sym_from_triangle(a, lower)
    if type == 1:
        x = solve_triangular(L, a, lower=True, check_finite=False)  # L^-1 A
        a = solve_triangular(L, mH(x), lower=True, check_finite=False)  # L^-1 A L^-H
    else:
        a = mH(L) @ a @ L
    if type == 3:
        return a, lambda y: L @ y
    return a, lambda y: solve_triangular(L, y, trans=2, lower=True, check_finite=False)


# -- rules ---------------------------------------------------------------------------------

def _broadened_inverse(x, eps):
    """1/x broadened to x / (x^2 + eps^2) (real x): finite, 0 at x = 0."""
    return x / (x * x + eps * eps)


def _gap_inverse(w, eps):
    """F[..., i, j] = 1 / (w_j - w_i), broadened to x / (x^2 + eps^2) for real w and
    conj(x) / (|x|^2 + eps^2) for complex w (eig); 0 on the diagonal.

    The diagonal is masked, not left at x = 0: there the broadened function's slope is
    1/eps^2, and its (exactly cancelling) contributions to second derivatives would
    swamp them in rounding."""
    eye = _ops.eye(w.shape[-1], dtype=w.dtype, device=w.device)
    x = _ops.expand_dims(w, -2) - _ops.expand_dims(w, -1) + eye
    if x.dtype.kind != "c":
        return (1 - eye) * _broadened_inverse(x, eps)
    return (1 - eye) * _ops.conj(x) / (_ops.real(x * _ops.conj(x)) + eps * eps).astype(x.dtype)


def _projected(t, v, lower):
    """(P = V^H dA V, dw = Re diag P) for the tangent ``t`` of the read triangle."""
    p = mH(v) @ sym_from_triangle(t, lower) @ v
    return p, re_diag(p)


def _eigh_jvp(tangents, primals, out, params):
    # dw = Re diag(V^H dA V), dV = V (F o V^H dA V)  (JAX lax/linalg.py eigh_jvp_rule;
    # F broadened as tenferro-rs)
    t, = tangents
    if t is None:
        return None
    w, v = out
    p, dw = _projected(t, v, params["lower"])
    dv = v @ (_gap_inverse(w, params["broadening"]).astype(p.dtype) * p)
    return dw, dv


def _eigh_vjp(ct, primals, out, params, needs):
    # gA = V (diag(gw) + F o skew(V^H gV)) V^H  (PyTorch FunctionsManual.cpp
    # linalg_eig_backward, hermitian case), then the adjoint of reading one triangle
    w, v = out
    gw, gv = ct
    inner = None
    if gv is not None:
        vhgv = mH(v) @ gv
        if vhgv.dtype.kind == "c":
            vhgv = _check_gauge(vhgv)
        inner = (0.5 * (vhgv - mH(vhgv))) * _gap_inverse(w, params["broadening"]).astype(
            vhgv.dtype)
    if gw is not None:
        d = _ops.expand_dims(gw, -1) * _ops.eye(w.shape[-1], dtype=gw.dtype, device=w.device)
        d = d.astype(v.dtype)
        inner = d if inner is None else inner + d
    if inner is None:
        return (None,)
    return (triangle_adjoint(v @ inner @ mH(v), params["lower"]),)


def _check_gauge(vhgv, op="eigh", what="eigenvectors", phases=None):
    """``vhgv`` (V^H gV), checked: a loss of complex eigen/singular vectors must not
    depend on their phases, so Im diag(``phases``, by default ``vhgv``) is zero
    (PyTorch's check).  Eagerly on the host (n values); traced, a runtime check (use
    the returned value)."""
    d = _ops.diagonal(vhgv if phases is None else phases, 0, -2, -1)
    if d.shape[-1] == 0:
        return vhgv
    xp = _ops if is_abstract(d) else np
    if xp is np:
        d = np.asarray(_ops.to_numpy(d))
    scale = xp.maximum(xp.max(xp.abs(d)), 1.0)   # rounding: ~1e-16 * scale; NaN: no check
    ok = ~xp.all(xp.isfinite(d)) | (xp.max(xp.abs(xp.imag(d))) <= 1e-6 * scale)
    return check(vhgv, ok, LinAlgError,
                 "tenferro.linalg.%s: the loss depends on the phases of the complex %s, "
                 "which are arbitrary (each is defined up to a factor e^{i phi}); its "
                 "gradient is ill-defined. Use a phase-invariant quantity such as |v|^2, "
                 "v v^H or the values" % (op, what))


def _eigvalsh_jvp(tangents, primals, out, params):
    # dw = Re diag(V^H dA V) (eigenvectors recomputed: eigvalsh's forward has none)
    t, = tangents
    if t is None:
        return None
    a, = primals
    return _projected(t, eigh_p.bind(a, **params)[1], params["lower"])[1]


def _eigvalsh_vjp(ct, primals, out, params, needs):
    # gA = V diag(gw) V^H  (PyTorch FunctionsManual.cpp, eigenvalues only)
    a, = primals
    return _eigh_vjp((ct, None), primals, eigh_p.bind(a, **params), params, needs)


_eigh_vjp.uses_out = True
_eigvalsh_vjp.uses_out = False
def_jvp_rule(eigh_p, _eigh_jvp)
def_vjp_rule(eigh_p, _eigh_vjp)
def_jvp_rule(eigvalsh_p, _eigvalsh_jvp)
def_vjp_rule(eigvalsh_p, _eigvalsh_vjp)
