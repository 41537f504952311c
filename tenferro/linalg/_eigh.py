"""Hermitian eigendecomposition: ``eigh`` and ``eigvalsh`` (scipy.linalg's names and
defaults: ``lower=True``, eigenvalues ascending, eigenvectors as columns).

Like ``cholesky``, both read one triangle (scipy's ``lower``) and the imaginary part of
the diagonal is ignored; their derivatives are those of that function (triangle-only
gradients; see docs/linalg.md).

Degenerate spectra: the eigenvector derivative divides by eigenvalue gaps.  tenferro
replaces 1/x by the Lorentzian-broadened x / (x^2 + eps^2) (tenferro-rs; Liao et al.
2019), ``broadening=eps`` per call, 1e-12 by default: gradients stay finite where
PyTorch and JAX give inf/NaN, and for gauge-invariant losses (functions of the
eigenspaces, not of a basis inside a degenerate one) they equal the limit of distinct
eigenvalues.  A loss that depends on the arbitrary phase of complex eigenvectors is
detected and raises, as PyTorch does.
"""
import numpy as np

from .. import _ops, _threads
from .._errors import LinAlgError
from .._kernels import _lapack
from .._kernels._alloc import empty as _empty
from ..autograd.extend import Primitive, def_impl, def_jvp_rule, def_vjp_rule
from ._util import (as_matrix_stack, check_finite, mH, raise_for_info,
                    sym_from_triangle, triangle_adjoint)

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


def eigh(a, b=None, *, lower=True, eigvals_only=False, overwrite_a=False,
         overwrite_b=False, check_finite=True, broadening=1e-12):
    """scipy.linalg.eigh for standard problems: ``(w, v)`` with ``a @ v = v * w``,
    eigenvalues ascending; ``eigvals_only=True`` gives ``w``.  Batched over leading
    dims.  ``broadening``: eps of the derivatives' Lorentzian gap regularisation."""
    if b is not None:
        raise NotImplementedError("tenferro.linalg.eigh: the generalized problem (b=...) "
                                  "is not supported yet")
    if eigvals_only:
        return eigvalsh(a, lower=lower, check_finite=check_finite, broadening=broadening)
    a = _prepare("eigh", a, check_finite)
    return eigh_p.bind(a, lower=bool(lower), broadening=float(broadening))


def eigvalsh(a, b=None, *, lower=True, overwrite_a=False, overwrite_b=False,
             check_finite=True, broadening=1e-12):
    """scipy.linalg.eigvalsh: the eigenvalues, ascending (real, for real and complex
    Hermitian input).  Batched over leading dims."""
    if b is not None:
        raise NotImplementedError("tenferro.linalg.eigvalsh: the generalized problem "
                                  "(b=...) is not supported yet")
    a = _prepare("eigvalsh", a, check_finite)
    return eigvalsh_p.bind(a, lower=bool(lower), broadening=float(broadening))


def _prepare(op, a, finite):
    a = as_matrix_stack(op, a)
    if finite:
        check_finite(op, a)
    return a


# -- rules ---------------------------------------------------------------------------------

def _gap_inverse(w, eps):
    """F[..., i, j] = 1 / (w_j - w_i), broadened to x / (x^2 + eps^2); 0 on the diagonal.

    The diagonal is masked, not left at x = 0: there the broadened function's slope is
    1/eps^2, and its (exactly cancelling) contributions to second derivatives would
    swamp them in rounding."""
    eye = _ops.eye(w.shape[-1], dtype=w.dtype, device=w.device)
    x = _ops.expand_dims(w, -2) - _ops.expand_dims(w, -1) + eye
    return (1 - eye) * x / (x * x + eps * eps)


def _projected(t, v, lower):
    """(P = V^H dA V, dw = Re diag P) for the tangent ``t`` of the read triangle."""
    p = mH(v) @ sym_from_triangle(t, lower) @ v
    d = _ops.diagonal(p, 0, -2, -1)
    return p, (_ops.real(d) if d.dtype.kind == "c" else d)


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
            _check_gauge(vhgv)
        inner = (0.5 * (vhgv - mH(vhgv))) * _gap_inverse(w, params["broadening"]).astype(
            vhgv.dtype)
    if gw is not None:
        d = _ops.expand_dims(gw, -1) * _ops.eye(w.shape[-1], dtype=gw.dtype, device=w.device)
        d = d.astype(v.dtype)
        inner = d if inner is None else inner + d
    if inner is None:
        return (None,)
    return (triangle_adjoint(v @ inner @ mH(v), params["lower"]),)


def _check_gauge(vhgv, op="eigh", what="eigenvectors"):
    """A loss of complex eigen/singular vectors must not depend on their phases:
    Im diag(V^H gV) is then zero (PyTorch's check)."""
    d = np.asarray(_ops.to_numpy(_ops.diagonal(vhgv, 0, -2, -1)))  # n values, on the host
    if not np.all(np.isfinite(d)):
        return
    scale = max(1.0, float(np.max(np.abs(d), initial=0.0)))
    if float(np.max(np.abs(d.imag), initial=0.0)) > 1e-6 * scale:  # rounding: ~1e-16 * scale
        raise LinAlgError(
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
