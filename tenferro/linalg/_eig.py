"""General (non-Hermitian) eigendecomposition: ``eig`` and ``eigvals`` (scipy.linalg's
names and defaults: ``left=False, right=True``; eigenvectors as unit-norm columns,
LAPACK's ?geev normalization; left ones with ``vl[:, i]^H a = w[i] vl[:, i]^H``).

Deviation from scipy: the outputs are always complex (complex64 for float32/complex64
input, complex128 otherwise), so that traced graphs have static dtypes; scipy returns
real eigenvectors when all eigenvalues of a real matrix are real.

Derivatives: ``P = V^-1 dA V`` gives ``dw = diag P`` and ``dV = V (F o P)`` (F_ij =
1/(w_j - w_i)) projected to keep each column at unit norm; the reverse rule is its
adjoint.  Left eigenvectors are the right eigenvectors of ``A^H`` (eigenvalues
``conj(w)``), and get the same rules through that identity.  Complex gaps are broadened
as eigh's real ones, 1/x -> conj(x) / (|x|^2 + eps^2) (``broadening=eps``, 1e-12 by
default).  Each eigenvector's phase is arbitrary: a loss that depends on it raises
LinAlgError, as PyTorch does.  For real input the gradient is real (the real part of
the complex one, as PyTorch's handle_r_to_c) and tangents of the outputs are complex.
The rules solve with V: at a defective matrix (V singular) they raise LinAlgError.
"""
import numpy as np

from .. import _ops, _threads
from .._kernels import _lapack
from .._kernels._alloc import empty as _empty
from ..autograd.extend import Primitive, def_impl, def_jvp_rule, def_vjp_rule
from ._eigh import _check_gauge
from ._lu import solve_p
from ._util import as_matrix_stack, check_finite, mH, raise_for_info

_COMPLEX = {np.dtype(np.float32): np.dtype(np.complex64),
            np.dtype(np.complex64): np.dtype(np.complex64),
            np.dtype(np.float64): np.dtype(np.complex128),
            np.dtype(np.complex128): np.dtype(np.complex128)}


def _eig_aval(a, *, left, broadening):
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


def _geev(op, a, left, right):
    c = _COMPLEX[a.dtype]
    w = _empty(a.shape[:-1], c)
    vl = _empty(a.shape, c) if left else None
    vr = _empty(a.shape, c) if right else None
    raise_for_info(op, _lapack.geev(a, w, vl, vr, _threads.current), "did not converge")
    return w, vl, vr


def _eig_cpu(a, *, left, broadening):
    w, vl, vr = _geev("eig", a, left, True)
    return (w, vl, vr) if left else (w, vr)


def_impl(eig_p, "cpu", _eig_cpu)
def_impl(eigvals_p, "cpu", lambda a, *, broadening: _geev("eigvals", a, False, False)[0])


def _unsupported(op, b, homogeneous_eigvals):
    if b is not None:
        raise NotImplementedError("tenferro.linalg.%s: the generalized problem (b=...) is "
                                  "not supported yet" % op)
    if homogeneous_eigvals:
        raise NotImplementedError("tenferro.linalg.%s: homogeneous_eigvals=True is not "
                                  "supported yet" % op)


def _prepare(op, a, finite):
    a = as_matrix_stack(op, a)
    if finite:
        check_finite(op, a)
    return a


def eig(a, b=None, left=False, right=True, overwrite_a=False, overwrite_b=False,
        check_finite=True, homogeneous_eigvals=False, *, broadening=1e-12):
    """scipy.linalg.eig for standard problems: ``w``, ``(w, vr)``, ``(w, vl)`` or
    ``(w, vl, vr)`` per ``left``/``right``, with ``a @ vr = vr * w`` and
    ``vl^H a = w[:, None] * vl^H``; eigenvectors are unit-norm columns.  Always complex
    (scipy gives real vectors for a real spectrum).  Batched over leading dims.
    ``broadening``: eps of the derivatives' Lorentzian gap regularisation."""
    _unsupported("eig", b, homogeneous_eigvals)
    if not left and not right:
        return eigvals(a, check_finite=check_finite, broadening=broadening)
    a = _prepare("eig", a, check_finite)
    out = eig_p.bind(a, left=bool(left), broadening=float(broadening))
    if not left:
        return out
    w, vl, vr = out
    return (w, vl, vr) if right else (w, vl)


def eigvals(a, b=None, overwrite_a=False, check_finite=True, homogeneous_eigvals=False, *,
            broadening=1e-12):
    """scipy.linalg.eigvals: the eigenvalues (complex), in LAPACK's order.  Batched."""
    _unsupported("eigvals", b, homogeneous_eigvals)
    a = _prepare("eigvals", a, check_finite)
    return eigvals_p.bind(a, broadening=float(broadening))


# -- rules ---------------------------------------------------------------------------------

def _cast(x, dt):
    return x if x.dtype == dt else x.astype(dt)


def _diag(x):
    return _ops.diagonal(x, 0, -2, -1)


def _diag_embed(d):
    return _ops.expand_dims(d, -1) * _ops.eye(d.shape[-1], dtype=d.dtype, device=d.device)


def _gap_inverse(w, eps):
    """F[..., i, j] = 1 / (w_j - w_i) for complex w, broadened to conj(x) / (|x|^2 +
    eps^2) as eigh's real gaps; 0 on the (masked) diagonal."""
    eye = _ops.eye(w.shape[-1], dtype=w.dtype, device=w.device)
    x = _ops.expand_dims(w, -2) - _ops.expand_dims(w, -1) + eye
    return (1 - eye) * _ops.conj(x) / _cast(_ops.real(x * _ops.conj(x)) + eps * eps, w.dtype)


def _vec_tangent(w, v, p, eps):
    # dX = V (F o P); dV = dX - V Re diag(V^H dX) keeps |v_j| = 1  (PyTorch linalg_eig_jvp)
    dx = v @ (_gap_inverse(w, eps) * p)
    return dx - v * _cast(_ops.real(_ops.sum(_ops.conj(v) * dx, axis=-2, keepdims=True)),
                          v.dtype)


def _vec_cotangent(w, v, gv, eps):
    # gP = conj(F) o (V^H gV - V^H V Re diag(V^H gV))  (PyTorch linalg_eig_backward)
    vhgv = mH(v) @ gv
    _check_gauge(vhgv, "eig", "eigenvectors")
    r = _cast(_ops.real(_ops.expand_dims(_diag(vhgv), -2)), v.dtype)
    return _ops.conj(_gap_inverse(w, eps)) * (vhgv - mH(v) @ (v * r))


def _eig_jvp(tangents, primals, out, params):
    # P = V^-1 dA V, dw = diag P, dV from P  (JAX lax/linalg.py eig_jvp_rule; PyTorch
    # linalg_eig_jvp); vl: the same for A^H, whose eigenvectors they are
    t, = tangents
    if t is None:
        return None
    w, vr = out[0], out[-1]
    eps = params["broadening"]
    t = _cast(t, w.dtype)
    p = solve_p.bind(vr, t @ vr)
    dw, dvr = _diag(p), _vec_tangent(w, vr, p, eps)
    if not params["left"]:
        return dw, dvr
    vl = out[1]
    return dw, _vec_tangent(_ops.conj(w), vl, solve_p.bind(vl, mH(t) @ vl), eps), dvr


def _eig_vjp(ct, primals, out, params, needs):
    # gA = V^-H gP V^H, gP = diag(gw) + (vector part)  (PyTorch linalg_eig_backward); vl
    # through A^H; real input: the real part (PyTorch handle_r_to_c)
    a, = primals
    w, vr = out[0], out[-1]
    gw, gvr = ct[0], ct[-1]
    gvl = ct[1] if params["left"] else None
    eps = params["broadening"]
    gp = None if gvr is None else _vec_cotangent(w, vr, gvr, eps)
    if gw is not None:
        gp = _diag_embed(gw) if gp is None else gp + _diag_embed(gw)
    ga = None if gp is None else solve_p.bind(mH(vr), gp @ mH(vr))
    if gvl is not None:
        vl = out[1]
        gpl = _vec_cotangent(_ops.conj(w), vl, gvl, eps)
        gal = mH(solve_p.bind(mH(vl), gpl @ mH(vl)))
        ga = gal if ga is None else ga + gal
    if ga is None:
        return (None,)
    return (ga if a.dtype.kind == "c" else _ops.real(ga),)


def _eigvals_jvp(tangents, primals, out, params):
    # dw = diag(V^-1 dA V) (eigenvectors recomputed: eigvals' forward has none)
    t, = tangents
    if t is None:
        return None
    a, = primals
    w, vr = eig_p.bind(a, left=False, **params)
    return _diag(solve_p.bind(vr, _cast(t, w.dtype) @ vr))


def _eigvals_vjp(ct, primals, out, params, needs):
    # gA = V^-H diag(gw) V^H  (PyTorch linalg_eig_backward, eigenvalues only)
    a, = primals
    p = dict(params, left=False)
    return _eig_vjp((ct, None), primals, eig_p.bind(a, **p), p, needs)


_eig_vjp.uses_out = True
_eigvals_vjp.uses_out = False
def_jvp_rule(eig_p, _eig_jvp)
def_vjp_rule(eig_p, _eig_vjp)
def_jvp_rule(eigvals_p, _eigvals_jvp)
def_vjp_rule(eigvals_p, _eigvals_vjp)
