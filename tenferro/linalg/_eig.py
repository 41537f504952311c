"""General (non-Hermitian) eigendecomposition: ``eig`` and ``eigvals`` (scipy.linalg's
names and defaults: ``left=False, right=True``; eigenvectors as unit-norm columns,
LAPACK's ?geev normalization; left ones with ``vl[:, i]^H a = w[i] vl[:, i]^H``), and
the generalized problem ``a v = w b v`` (``b=...``, ?ggev, vectors scaled to unit norm
as scipy does; ``vl[:, i]^H a = w[i] vl[:, i]^H b``; ``w`` is inf where b is singular).

Deviation from scipy: the outputs are always complex (complex64 for float32/complex64
input, complex128 otherwise), so that traced graphs have static dtypes; scipy returns
real eigenvectors when all eigenvalues of a real matrix are real.

Derivatives: ``P = V^-1 dA V`` gives ``dw = diag P`` and ``dV = V (F o P)`` (F_ij =
1/(w_j - w_i)) projected to keep each column at unit norm; the reverse rule is its
adjoint.  For ``b``, ``P = (B V)^-1 (dA V - dB V diag(w))`` (from differentiating
``A V = B V diag(w)``), the rest unchanged.  Left eigenvectors are the right
eigenvectors of ``(A^H, B^H)`` (eigenvalues ``conj(w)``), and get the same rules through
that identity.  Complex gaps are broadened as eigh's real ones, 1/x -> conj(x) / (|x|^2 +
eps^2) (``broadening=eps``, 1e-12 by default).  Each eigenvector's phase is arbitrary: a
loss that depends on it raises LinAlgError, as PyTorch does.  For real input the gradient is real (the real part of
the complex one, as PyTorch's handle_r_to_c) and tangents of the outputs are complex.
The rules solve with V (B V): at a defective matrix (V singular), or for a singular
b (infinite eigenvalues), they raise LinAlgError; near a defective matrix the
eigenvector derivatives are huge and gradients lose accuracy (as PyTorch's and JAX's).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import _ops
from ..devices.cpu import threads as _threads
from .._errors import LinAlgError
from .._kernels import _lapack
from .._kernels._alloc import empty as _empty
from ..autograd.extend import Primitive, def_impl, def_jvp_rule, def_vjp_rule
from ._eigh import _check_gauge, _gap_inverse
from ._lu import _solve as _lu_solve
from ._util import cast, diag, mH, prepared_pair, raise_for_info

if TYPE_CHECKING:
    from typing import Any

    from .._tensor import ArrayLike, Tensor

_COMPLEX = {np.dtype(np.float32): np.dtype(np.complex64),
            np.dtype(np.complex64): np.dtype(np.complex64),
            np.dtype(np.float64): np.dtype(np.complex128),
            np.dtype(np.complex128): np.dtype(np.complex128)}


def _eig_aval(a, *b, left, broadening):
    shape, dt = a
    c = _COMPLEX[np.dtype(dt)]
    w, v = (shape[:-1], c), (shape, c)
    return (w, v, v) if left else (w, v)


eig_p = Primitive(
    "linalg.eig", _eig_aval, multiple_results=True,
    doc="(w, vr), or (w, vl, vr) with param left: eigenvalues and right (left) "
        "eigenvectors (unit-norm columns) of each general matrix [..., n, n], all complex "
        "(param broadening: the derivatives' gap regularisation).")
eigvals_p = Primitive(
    "linalg.eigvals", lambda a, *, broadening: _eig_aval(a, left=False,
                                                         broadening=broadening)[0],
    doc="Eigenvalues (complex) of each general matrix [..., n, n] (params as eig).")
eig_gen_p = Primitive(
    "linalg.eig_gen", _eig_aval, multiple_results=True,
    doc="(w, vr) or (w, vl, vr) of each generalized problem a v = w b v, a and b "
        "[..., n, n] of one dtype (params as eig; vectors of unit norm).")
eigvals_gen_p = Primitive(
    "linalg.eigvals_gen", lambda a, b, *, broadening: _eig_aval(
        a, left=False, broadening=broadening)[0],
    doc="Eigenvalues w of each generalized problem a v = w b v (inf where b is singular).")


def _geev(op, a, b, left, right):
    c = _COMPLEX[a.dtype]
    w = _empty(a.shape[:-1], c)
    vl = _empty(a.shape, c) if left else None
    vr = _empty(a.shape, c) if right else None
    nt = _threads.current
    info = _lapack.geev(a, w, vl, vr, nt) if b is None else _lapack.ggev(a, b, w, vl, vr, nt)
    raise_for_info(op, info, "did not converge")
    return w, vl, vr


def _eig_cpu(a, *b, left, broadening):
    w, vl, vr = _geev("eig", a, b[0] if b else None, left, True)
    return (w, vl, vr) if left else (w, vr)


def _eigvals_cpu(a, *b, broadening):
    return _geev("eigvals", a, b[0] if b else None, False, False)[0]


def_impl(eig_p, "cpu", _eig_cpu)
def_impl(eigvals_p, "cpu", _eigvals_cpu)
def_impl(eig_gen_p, "cpu", _eig_cpu)
def_impl(eigvals_gen_p, "cpu", _eigvals_cpu)


def _prepare(op, a, b, finite, homogeneous_eigvals):
    if homogeneous_eigvals:
        raise NotImplementedError("tenferro.linalg.%s: homogeneous_eigvals=True is not "
                                  "supported yet" % op)
    return prepared_pair(op, a, b, finite)


def eig(a: ArrayLike, b: ArrayLike | None = None, left: bool = False, right: bool = True,
        overwrite_a: bool = False, overwrite_b: bool = False, check_finite: bool = True,
        homogeneous_eigvals: bool = False, *, broadening: float = 1e-12) -> Any:
    """Eigenvalues and eigenvectors of general square matrices (scipy.linalg.eig).

    ``w``, ``(w, vr)``, ``(w, vl)`` or ``(w, vl, vr)`` as ``left`` and ``right`` ask,
    with ``a @ vr = vr * w`` and ``vl^H a = w[:, None] * vl^H`` (with ``b``:
    ``a @ vr = b @ vr * w``, ``vl^H a = w[:, None] * vl^H b``); eigenvectors are
    unit-norm columns, eigenvalues in LAPACK's order.  The results are always complex
    (scipy gives real vectors for a real spectrum).  Batched over leading dimensions.

    Parameters
    ----------
    a : Tensor or array_like, shape (..., M, M)
        Square matrices, real or complex.
    b : Tensor or array_like, shape (..., M, M), optional
        The right-hand matrices of the generalized problem ``a v = w b v`` (batch
        dimensions broadcast against ``a``'s).
    left : bool, default False
        Also return the left eigenvectors ``vl``.
    right : bool, default True
        Return the right eigenvectors ``vr``.
    overwrite_a : bool, default False
        Accepted for scipy's signature and ignored: tenferro never writes its inputs.
    overwrite_b : bool, default False
        Accepted for scipy's signature and ignored: tenferro never writes its inputs.
    check_finite : bool, default True
        Raise ValueError if an input holds infs or NaNs (scipy's check).
    homogeneous_eigvals : bool, default False
        Must be False: scipy's ``(alpha, beta)`` pairs are not implemented.
    broadening : float, default 1e-12
        The eps of the regularisation ``conj(x) / (|x|^2 + eps^2)`` of ``1/x`` for the
        complex eigenvalue gaps in the derivatives.

    Returns
    -------
    w : Tensor, shape (..., M)
        The eigenvalues (complex; inf where ``b`` is singular).
    vl : Tensor, shape (..., M, M)
        The left eigenvectors (only with ``left``).
    vr : Tensor, shape (..., M, M)
        The right eigenvectors (only with ``right``).

    Raises
    ------
    LinAlgError
        When differentiated at a defective matrix or with a singular ``b`` (the derivative
        does not exist there).
    ValueError
        If the shapes are not square or do not fit, or (``check_finite``) an input holds
        infs or NaNs.
    NotImplementedError
        If ``homogeneous_eigvals`` is True.
    TypeError
        If an input is not numeric (strings, objects).
    UnsupportedOperation
        If an input is on a device without a kernel for it (the WebGPU driver has no
        LAPACK routines; move the data with ``.to('cpu')``).

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order: JAX's
    ``eig_jvp_rule`` and PyTorch's ``linalg_eig_jvp`` / ``linalg_eig_backward`` (``P =
    (B V)^-1 (dA V - dB V diag w)``, ``dw = diag P``), eigenvectors kept at unit norm;
    real input gets a real gradient (the real part, as PyTorch's).  Near a defective
    matrix gradients lose accuracy, as PyTorch's and JAX's do.  Left eigenvectors are
    the right ones of ``(a^H, b^H)``.

    See Also
    --------
    scipy.linalg.eig, numpy.linalg.eig, eigvals, eigh

    Examples
    --------
    >>> a = tf.asarray([[0.0, 1.0], [-2.0, -3.0]])
    >>> w, vr = tf.linalg.eig(a)
    >>> np.sort_complex(np.round(np.asarray(w), 6))
    array([-2.+0.j, -1.+0.j])
    >>> np.allclose(a @ vr, vr * w)
    True
    """
    if not left and not right:
        return eigvals(a, b, check_finite=check_finite,
                       homogeneous_eigvals=homogeneous_eigvals, broadening=broadening)
    a, b = _prepare("eig", a, b, check_finite, homogeneous_eigvals)
    p = dict(left=bool(left), broadening=float(broadening))
    out = eig_p.bind(a, **p) if b is None else eig_gen_p.bind(a, b, **p)
    if not left:
        return out
    w, vl, vr = out
    return (w, vl, vr) if right else (w, vl)


def eigvals(a: ArrayLike, b: ArrayLike | None = None, overwrite_a: bool = False,
            check_finite: bool = True, homogeneous_eigvals: bool = False, *,
            broadening: float = 1e-12) -> Tensor:
    """Eigenvalues of general square matrices (scipy.linalg.eigvals).

    Complex, in LAPACK's order; with ``b`` those of ``a v = w b v`` (inf where ``b`` is
    singular).  Batched over leading dimensions.

    Parameters
    ----------
    a, b, overwrite_a, check_finite, homogeneous_eigvals, broadening
        As for :func:`eig`.

    Returns
    -------
    Tensor, shape (..., M)
        The eigenvalues (complex64 for single-precision input, else complex128).

    Raises
    ------
    LinAlgError, ValueError, NotImplementedError, TypeError
        As for :func:`eig`.
    UnsupportedOperation
        If an input is on a device without a kernel for it (the WebGPU driver has no
        LAPACK routines; move the data with ``.to('cpu')``).

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order, as
    :func:`eig` (JAX's ``eig_jvp_rule``, PyTorch's ``linalg_eig_backward``).

    See Also
    --------
    scipy.linalg.eigvals, numpy.linalg.eigvals, eig

    Examples
    --------
    >>> w = tf.linalg.eigvals([[0.0, 1.0], [-2.0, -3.0]])
    >>> np.sort_complex(np.round(np.asarray(w), 6))
    array([-2.+0.j, -1.+0.j])
    """
    a, b = _prepare("eigvals", a, b, check_finite, homogeneous_eigvals)
    if b is None:
        return eigvals_p.bind(a, broadening=float(broadening))
    return eigvals_gen_p.bind(a, b, broadening=float(broadening))


# -- rules ---------------------------------------------------------------------------------


def _diag_embed(d):
    return _ops.expand_dims(d, -1) * _ops.eye(d.shape[-1], dtype=d.dtype, device=d.device)


def _vec_tangent(w, v, p, eps):
    # dX = V (F o P); dV = dX - V Re diag(V^H dX) keeps |v_j| = 1  (PyTorch linalg_eig_jvp)
    dx = v @ (_gap_inverse(w, eps) * p)
    return dx - v * cast(_ops.real(_ops.sum(_ops.conj(v) * dx, axis=-2, keepdims=True)),
                          v.dtype)


def _vec_cotangent(w, v, gv, eps):
    # gP = conj(F) o (V^H gV - V^H V Re diag(V^H gV))  (PyTorch linalg_eig_backward)
    vhgv = mH(v) @ gv
    vhgv = _check_gauge(vhgv, "eig", "eigenvectors")
    r = cast(_ops.real(_ops.expand_dims(diag(vhgv), -2)), v.dtype)
    return _ops.conj(_gap_inverse(w, eps)) * (vhgv - mH(v) @ (v * r))


def _row(w, like):
    return cast(_ops.expand_dims(w, -2), like.dtype)


def _solve(m, rhs):
    """m^-1 rhs, for m = V or B V (or their ^H): singular at a defective matrix or a
    singular b, where the derivative does not exist."""
    try:
        return _lu_solve(m, rhs)
    except LinAlgError as e:
        raise LinAlgError("tenferro.linalg.eig: the derivative needs the inverse of the "
                          "eigenvector matrix V (B V for b), which is singular: the matrix "
                          "is defective or b is singular (infinite eigenvalues) [%s]" % e)


def _projected(ta, tb, b, w, v):
    """P = (B V)^-1 (dA V - dB V diag(w)); B = I when b is None: V^-1 dA V."""
    rhs = None if ta is None else cast(ta, v.dtype) @ v
    if tb is not None:
        r = -(cast(tb, v.dtype) @ (v * _row(w, v)))
        rhs = r if rhs is None else rhs + r
    return _solve(v if b is None else cast(b, v.dtype) @ v, rhs)


def _jvp(tangents, primals, out, params):
    # P as above, dw = diag P, dV from P  (JAX lax/linalg.py eig_jvp_rule; PyTorch
    # linalg_eig_jvp); vl: the same for (A^H, B^H), whose right eigenvectors they are
    ta, tb = (tuple(tangents) + (None,))[:2]
    if ta is None and tb is None:
        return None
    b = primals[1] if len(primals) > 1 else None
    w, vr = out[0], out[-1]
    eps = params["broadening"]
    p = _projected(ta, tb, b, w, vr)
    dw, dvr = diag(p), _vec_tangent(w, vr, p, eps)
    if not params["left"]:
        return dw, dvr
    vl, wc = out[1], _ops.conj(w)
    pl = _projected(None if ta is None else mH(ta), None if tb is None else mH(tb),
                    None if b is None else mH(b), wc, vl)
    return dw, _vec_tangent(wc, vl, pl, eps), dvr


def _adjoint(gp, b, w, v):
    """(gA, gB) from P's cotangent: X = (B V)^-H gP, gA = X V^H, gB = -X (V diag(w))^H."""
    x = _solve(mH(v if b is None else cast(b, v.dtype) @ v), gp)
    return x @ mH(v), (None if b is None else -(x @ mH(v * _row(w, v))))


def _vjp(ct, primals, out, params, needs):
    # gP = diag(gw) + (vector part), then gA, gB  (PyTorch linalg_eig_backward); vl
    # through (A^H, B^H); real input: the real part (PyTorch handle_r_to_c)
    b = primals[1] if len(primals) > 1 else None
    w, vr = out[0], out[-1]
    gw, gvr = ct[0], ct[-1]
    gvl = ct[1] if params["left"] else None
    eps = params["broadening"]
    gp = None if gvr is None else _vec_cotangent(w, vr, gvr, eps)
    if gw is not None:
        gp = _diag_embed(gw) if gp is None else gp + _diag_embed(gw)
    grads = [None, None]
    if gp is not None:
        grads = list(_adjoint(gp, b, w, vr))
    if gvl is not None:
        vl, wc = out[1], _ops.conj(w)
        gl = _adjoint(_vec_cotangent(wc, vl, gvl, eps), None if b is None else mH(b), wc, vl)
        grads = [g if h is None else (mH(h) if g is None else g + mH(h))
                 for g, h in zip(grads, gl)]
    return tuple(None if g is None or not need else
                 (g if x.dtype.kind == "c" else _ops.real(g))
                 for g, need, x in zip(grads, needs, primals))


def _eigvals_jvp(tangents, primals, out, params):
    # dw = diag P (eigenvectors recomputed: eigvals' forward has none)
    ta, tb = (tuple(tangents) + (None,))[:2]
    if ta is None and tb is None:
        return None
    w, vr = _eig_of(primals, params)
    return diag(_projected(ta, tb, primals[1] if len(primals) > 1 else None, w, vr))


def _eigvals_vjp(ct, primals, out, params, needs):
    # gA = (B V)^-H diag(gw) V^H, gB = -(B V)^-H diag(gw) (V diag(w))^H (values only)
    p = dict(params, left=False)
    return _vjp((ct, None), primals, _eig_of(primals, params), p, needs)


def _eig_of(primals, params):
    p = dict(params, left=False)
    return eig_p.bind(*primals, **p) if len(primals) == 1 else eig_gen_p.bind(*primals, **p)


_vjp.uses_out = True
_eigvals_vjp.uses_out = False
for _p in (eig_p, eig_gen_p):
    def_jvp_rule(_p, _jvp)
    def_vjp_rule(_p, _vjp)
for _p in (eigvals_p, eigvals_gen_p):
    def_jvp_rule(_p, _eigvals_jvp)
    def_vjp_rule(_p, _eigvals_vjp)
