"""Singular value decomposition: ``svd`` and ``svdvals`` (scipy.linalg's names and
defaults: ``full_matrices=True``, ``compute_uv=True``, ``(U, s, Vh)`` with s descending).

Derivatives are those of the thin decomposition: with ``full_matrices=True`` the extra
columns of U (rows of Vh) are an arbitrary basis of a complement and get no gradient
(their tangents are zero).  Gaps s_j^2 - s_i^2 and 1/s are Lorentzian-broadened as in
eigh (``broadening=eps``, 1e-12 by default), so repeated or zero singular values give
finite gradients.  A loss that depends on the arbitrary phases of complex singular
vectors raises LinAlgError, as PyTorch does.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Literal, overload

import numpy as np

from .. import _ops
from ..devices.cpu import threads as _threads
from .._kernels import _lapack
from .._kernels._alloc import empty as _empty
from ..autograd.extend import Primitive, def_impl, def_jvp_rule, def_vjp_rule
from ._eigh import _REAL, _broadened_inverse, _check_gauge, _gap_inverse
from ._util import cast, mH, on_cuda, prepared, raise_for_info, re_diag

if TYPE_CHECKING:
    from .._tensor import ArrayLike, Tensor


def _svd_aval(a, *, full_matrices, broadening, driver):
    shape, dt = a
    m, n = shape[-2:]
    k = min(m, n)
    b = shape[:-2]
    return ((b + (m, m if full_matrices else k), dt), (b + (k,), _REAL.get(np.dtype(dt), dt)),
            (b + (n if full_matrices else k, n), dt))


svd_p = Primitive(
    "linalg.svd", _svd_aval, multiple_results=True,
    doc="(u, s, vh) of each matrix [..., m, n], s descending (params full_matrices, "
        "broadening: the derivatives' gap regularisation, driver: 'gesdd' or 'gesvd').")
svdvals_p = Primitive(
    "linalg.svdvals", lambda a, *, broadening, driver: _svd_aval(
        a, full_matrices=False, broadening=broadening, driver=driver)[1],
    doc="Singular values (descending) of each matrix [..., m, n].")


def _svd_kernel(a, full_matrices, vectors, driver="gesdd"):
    m, n = a.shape[-2:]
    k = min(m, n)
    b = a.shape[:-2]
    s = _empty(b + (k,), _REAL.get(a.dtype, a.dtype))
    u = _empty(b + (m, m if full_matrices else k), a.dtype) if vectors else None
    vh = _empty(b + (n if full_matrices else k, n), a.dtype) if vectors else None
    kernel = _lapack.gesvd if driver == "gesvd" else _lapack.gesdd
    raise_for_info("svd", kernel(a, s, u, vh, full_matrices, _threads.current),
                   "did not converge")
    return u, s, vh


def_impl(svd_p, "cpu", lambda a, *, full_matrices, broadening, driver: _svd_kernel(
    a, full_matrices, True, driver))
def_impl(svdvals_p, "cpu", lambda a, *, broadening, driver: _svd_kernel(
    a, False, False, driver)[1])
def_impl(svd_p, "cuda", on_cuda("svd", "svd", "did not converge"))
def_impl(svdvals_p, "cuda", on_cuda("svdvals", "svd", "did not converge"))


@overload
def svd(a: ArrayLike, full_matrices: bool = ..., compute_uv: Literal[True] = ...,
        overwrite_a: bool = ..., check_finite: bool = ..., lapack_driver: str = ...,
        broadening: float = ...) -> tuple[Tensor, Tensor, Tensor]: ...
@overload
def svd(a: ArrayLike, full_matrices: bool = ..., *, compute_uv: Literal[False],
        overwrite_a: bool = ..., check_finite: bool = ..., lapack_driver: str = ...,
        broadening: float = ...) -> Tensor: ...


def svd(a: ArrayLike, full_matrices: bool = True, compute_uv: bool = True,
        overwrite_a: bool = False, check_finite: bool = True, lapack_driver: str = "gesdd",
        broadening: float = 1e-12) -> Tensor | tuple[Tensor, Tensor, Tensor]:
    """Singular value decomposition (scipy.linalg.svd).

    ``(U, s, Vh)`` with ``a = U[..., :K] * s @ Vh[..., :K, :]`` and the singular values
    ``s`` descending (K = min(M, N)); ``compute_uv=False`` gives ``s`` alone.  Batched
    over leading dimensions; ``s`` is real.

    Parameters
    ----------
    a : Tensor or array_like, shape (..., M, N)
        The matrices.
    full_matrices : bool, default True
        U [..., M, M] and Vh [..., N, N]; else U [..., M, K] and Vh [..., K, N].
    compute_uv : bool, default True
        Return ``(U, s, Vh)``; else only ``s``.
    overwrite_a : bool, default False
        Accepted for scipy's signature and ignored: tenferro never writes its inputs.
    check_finite : bool, default True
        Raise ValueError if an input holds infs or NaNs (scipy's check).
    lapack_driver : {'gesdd', 'gesvd'}, default 'gesdd'
        Divide and conquer (?gesdd) or QR iteration (?gesvd: slower, sometimes more
        accurate for tiny singular values), as scipy.
    broadening : float, default 1e-12
        The eps of the Lorentzian regularisation ``x / (x^2 + eps^2)`` of ``1/x`` for
        singular-value gaps and small singular values in the derivatives (keeps them
        finite at repeated or zero singular values).

    Returns
    -------
    U : Tensor, shape (..., M, M) or (..., M, K)
        Left singular vectors as columns (only with ``compute_uv``).
    s : Tensor, shape (..., K)
        The singular values, descending, real.
    Vh : Tensor, shape (..., N, N) or (..., K, N)
        Right singular vectors as rows (only with ``compute_uv``).

    Raises
    ------
    LinAlgError
        If the SVD does not converge (infs or NaNs with ``check_finite=False``).
    ValueError
        If ``lapack_driver`` is unknown, ``a`` is not a stack of matrices, U or Vh would
        exceed LAPACK's 32-bit indexing, or (``check_finite``) ``a`` holds infs or NaNs.
    TypeError
        If ``lapack_driver`` is not a string, or ``a`` is not numeric.
    UnsupportedOperation
        If an input is on a device without a kernel for it (the WebGPU driver has no
        LAPACK routines; move the data with ``.to('cpu')``).

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order: JAX's
    ``svd_jvp_rule`` and PyTorch's ``svd_backward`` (thin SVD; the formulas of Townsend
    (2016), "Differentiating the singular value decomposition"), with the gaps
    ``s_j^2 - s_i^2`` and ``1/s`` broadened as tenferro-rs and BackwardsLinalg.jl
    (Lorentzian, Liao et al. 2019), so repeated and zero singular values give finite
    gradients, exact for functions of the singular values, where PyTorch's and JAX's
    are NaN.  With ``full_matrices=True`` the extra columns of U
    (rows of Vh) are an arbitrary basis of a complement and get no gradient.

    See Also
    --------
    scipy.linalg.svd, numpy.linalg.svd, svdvals, pinv

    Examples
    --------
    >>> import scipy.linalg
    >>> a = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    >>> u, s, vh = tf.linalg.svd(a, full_matrices=False)
    >>> np.allclose(s, scipy.linalg.svdvals(a)), np.allclose((u * s) @ vh, a)
    (True, True)
    """
    if not isinstance(lapack_driver, str):   # scipy's TypeError
        raise TypeError("tenferro.linalg.svd: lapack_driver must be a string ('gesdd' or "
                        "'gesvd'), got %r" % (lapack_driver,))
    if lapack_driver not in ("gesdd", "gesvd"):
        raise ValueError("tenferro.linalg.svd: lapack_driver must be 'gesdd' or 'gesvd', "
                         "got %r" % (lapack_driver,))
    a = prepared("svd", a, check_finite, square=False)
    if compute_uv:   # scipy's check: LAPACK indexes U and V^H with 32-bit ints
        m, n = a.shape[-2:]
        size = max(m, n) ** 2 if full_matrices else max(m, n) * min(m, n)
        if size > np.iinfo(np.int32).max:
            raise ValueError("tenferro.linalg.svd: a %s of shape %s would incur integer "
                             "overflow in LAPACK (%d elements in U or V^H; at most 2**31 - "
                             "1)" % ("full_matrices SVD" if full_matrices else "SVD",
                                     a.shape, size))
    if not compute_uv:
        return svdvals_p.bind(a, broadening=float(broadening), driver=lapack_driver)
    return svd_p.bind(a, full_matrices=bool(full_matrices), broadening=float(broadening),
                      driver=lapack_driver)


def svdvals(a: ArrayLike, overwrite_a: bool = False, check_finite: bool = True,
            broadening: float = 1e-12) -> Tensor:
    """Singular values (scipy.linalg.svdvals).

    The ``s`` of :func:`svd`, descending and real.  Batched over leading dimensions.

    Parameters
    ----------
    a : Tensor or array_like, shape (..., M, N)
        The matrices.
    overwrite_a : bool, default False
        Accepted for scipy's signature and ignored: tenferro never writes its inputs.
    check_finite : bool, default True
        Raise ValueError if an input holds infs or NaNs (scipy's check).
    broadening : float, default 1e-12
        The eps of the Lorentzian regularisation ``x / (x^2 + eps^2)`` of ``1/x`` for
        singular-value gaps and small singular values in the derivatives (keeps them
        finite at repeated or zero singular values).

    Returns
    -------
    Tensor, shape (..., min(M, N))
        The singular values, descending.

    Raises
    ------
    LinAlgError
        If the SVD does not converge (infs or NaNs with ``check_finite=False``).
    ValueError
        If ``a`` is not a stack of matrices, or (``check_finite``) holds infs or NaNs.
    TypeError
        If an input is not numeric (strings, objects).
    UnsupportedOperation
        If an input is on a device without a kernel for it (the WebGPU driver has no
        LAPACK routines; move the data with ``.to('cpu')``).

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order: the
    gradient is ``U diag(gs) V^H`` (PyTorch's ``svd_backward``, singular values only),
    the singular vectors recomputed for it; finite at repeated and zero singular values.

    See Also
    --------
    scipy.linalg.svdvals, svd, norm

    Examples
    --------
    >>> tf.linalg.svdvals([[3.0, 0.0], [0.0, -4.0]])
    tensor([4., 3.])
    """
    a = prepared("svdvals", a, check_finite, square=False)
    return svdvals_p.bind(a, broadening=float(broadening), driver="gesdd")


# -- rules ---------------------------------------------------------------------------------

def _thin(u, vh):
    k = min(u.shape[-2], vh.shape[-1])
    return u[..., :, :k], vh[..., :k, :]


def _projected(t, u, v):
    """(dS = U^H dA V, ds = Re diag dS) for the thin factors."""
    ds_mat = mH(u) @ t @ v
    return ds_mat, re_diag(ds_mat)


def _svd_jvp(tangents, primals, out, params):
    # JAX lax/linalg.py svd_jvp_rule (thin), gaps and 1/s broadened as tenferro-rs
    t, = tangents
    if t is None:
        return None
    (a,), (u_out, s, vh_out) = primals, out
    eps = params["broadening"]
    u, vh = _thin(u_out, vh_out)
    v = mH(vh)
    m, n = a.shape[-2:]
    ds_mat, ds = _projected(t, u, v)
    f = cast(_gap_inverse(s * s, eps), ds_mat.dtype)                  # 1 / (s_j^2 - s_i^2)
    s_row = cast(_ops.expand_dims(s, -2), ds_mat.dtype)               # s_j
    s_col = cast(_ops.expand_dims(s, -1), ds_mat.dtype)               # s_i
    dss, sds = ds_mat * s_row, s_col * ds_mat
    sinv = cast(_ops.expand_dims(_broadened_inverse(s, eps), -2), ds_mat.dtype)
    k = s.shape[-1]
    eye = _ops.eye(k, dtype=ds_mat.dtype, device=a.device)
    du = u @ (f * (dss + mH(dss)) + 0.5 * (ds_mat - mH(ds_mat)) * sinv * eye)
    dv = v @ (f * (sds + mH(sds)))
    if m > n:
        dav = t @ v
        du = du + (dav - u @ (mH(u) @ dav)) * sinv
    if n > m:
        dahu = mH(t) @ u
        dv = dv + (dahu - v @ (mH(v) @ dahu)) * sinv
    dvh = mH(dv)
    if params["full_matrices"]:  # the complement's basis is fixed: zero tangents
        du = _ops.concatenate([du, _ops.zeros_like(u_out[..., :, k:])], axis=-1)
        dvh = _ops.concatenate([dvh, _ops.zeros_like(vh_out[..., k:, :])], axis=-2)
    return du, ds, dvh


def _svd_vjp(ct, primals, out, params, needs):
    # PyTorch FunctionsManual.cpp svd_backward (thin), gaps and 1/s broadened
    (a,), (u_out, s, vh_out) = primals, out
    gu, gs, gvh = ct
    eps = params["broadening"]
    u, vh = _thin(u_out, vh_out)
    k = s.shape[-1]
    if gu is not None:
        gu = gu[..., :, :k]
    if gvh is not None:
        gvh = gvh[..., :k, :]
    m, n = a.shape[-2:]
    eye = _ops.eye(k, dtype=u.dtype, device=a.device)
    if gu is None and gvh is None:
        if gs is None:
            return (None,)
        return ((u * cast(_ops.expand_dims(gs, -2), u.dtype)) @ vh,)
    v = mH(vh)
    gv = None if gvh is None else mH(gvh)
    f = cast(_gap_inverse(s * s, eps), u.dtype)
    s_row = cast(_ops.expand_dims(s, -2), u.dtype)
    s_col = cast(_ops.expand_dims(s, -1), u.dtype)
    inner = None
    if gu is not None:
        uhgu = mH(u) @ gu
        if uhgu.dtype.kind == "c":
            uhgu = _check_gauge(uhgu, "svd", "singular vectors",
                                uhgu + mH(v) @ gv if gv is not None else None)
        j = uhgu - mH(uhgu)
        inner = f * j * s_row
        # the phase term: i Im diag(U^H gU) / s
        inner = inner + 0.5 * j * eye * cast(_ops.expand_dims(_broadened_inverse(s, eps), -2),
                                             u.dtype)
    if gv is not None:
        vhgv = mH(v) @ gv
        kk = f * (s_col * (vhgv - mH(vhgv)))
        inner = kk if inner is None else inner + kk
    if gs is not None:
        inner = inner + cast(_ops.expand_dims(gs, -1), u.dtype) * eye
    sinv = cast(_ops.expand_dims(_broadened_inverse(s, eps), -2), u.dtype)
    if m > n and gu is not None:
        g = u @ inner
        gus = gu * sinv
        g = (g + gus - u @ (mH(u) @ gus)) @ vh
    elif m < n and gv is not None:
        g = inner @ vh
        gvs = gv * sinv
        g = u @ (g + mH(gvs) - (mH(gvs) @ v) @ vh)
    else:
        g = u @ inner @ vh
    return (g,)


def _svdvals_jvp(tangents, primals, out, params):
    # ds = Re diag(U^H dA V) (singular vectors recomputed: svdvals' forward has none)
    t, = tangents
    if t is None:
        return None
    a, = primals
    u, _, vh = svd_p.bind(a, full_matrices=False, **params)
    return _projected(t, u, mH(vh))[1]


def _svdvals_vjp(ct, primals, out, params, needs):
    # gA = U diag(gs) V^H
    a, = primals
    p = dict(params, full_matrices=False)
    return _svd_vjp((None, ct, None), primals, svd_p.bind(a, **p), p, needs)


_svd_vjp.uses_out = True
_svdvals_vjp.uses_out = False
def_jvp_rule(svd_p, _svd_jvp)
def_vjp_rule(svd_p, _svd_vjp)
def_jvp_rule(svdvals_p, _svdvals_jvp)
def_vjp_rule(svdvals_p, _svdvals_vjp)
