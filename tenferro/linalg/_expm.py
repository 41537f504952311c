"""Matrix exponential and powers: ``expm``, ``expm_frechet`` (scipy.linalg's names,
signatures and defaults) and ``matrix_power`` (numpy.linalg's), batched over leading
dims, real and complex (ints promoted to float64).

``expm`` is scaling and squaring with Pade approximants, Al-Mohy & Higham 2009 ("A new
scaling and squaring algorithm for the matrix exponential", Algorithm 3.1, as scipy),
written with tenferro ops (matmul, ``solve``).  The degree m and the scaling s are
chosen per matrix on the host from exact 1-norms of the powers A^4, A^6, A^8, A^10
(scipy estimates some of them); a batch is then evaluated with the largest degree any
of its matrices needs (a higher degree is never less accurate) and each matrix is
scaled by its own 2^-s and squared s times.  As scipy: a batch of diagonal matrices
is exponentiated entrywise, exactly; for a batch of upper triangular matrices the
diagonal and superdiagonal are set exactly before and after each squaring (Code Fragment
2.1); lower triangular ones go through the transpose.

Primitives: ``linalg.expm`` and ``linalg.expm_frechet`` (two results, ``expm(A)`` and
the Frechet derivative ``L(A, E)``).  Both are the blocks of the exponential of
``X = [[A, E], [0, A]]``: ``expm(X) = [[expm(A), L(A, E)], [0, expm(A)]]`` (Najfeld &
Havel 1995; scipy's 'blockEnlarge'), with E scaled by a power of 2 to A's norm so that
it does not change the degree or the scaling.  The rules use that identity again, so
derivatives of any order are Frechet derivatives of larger blocks.

``matrix_power`` is repeated squaring with ``@`` (and ``inv`` for n < 0), so its
derivatives are those of matmul and inv.
"""
from __future__ import annotations

import operator
from typing import TYPE_CHECKING

import numpy as np

from .. import _ops
from .._ops.matmul import broadcast_batch
from ..autograd._check import is_abstract
from ..autograd._engine import detach
from ..autograd.extend import Primitive, def_jvp_rule, def_vjp_rule
from ._lu import _solve, inv
from ._util import as_matrix_stack, check_finite as _check_finite, common_dtype, mH

if TYPE_CHECKING:
    from typing import Any

    from .._tensor import ArrayLike, Tensor

# Al-Mohy & Higham 2009, Table 3.1 (theta_m) and the reciprocals |c_{2m+1}| of (2.2)
_THETA = {3: 1.495585217958292e-2, 5: 2.539398330063230e-1, 7: 9.504178996162932e-1,
          9: 2.097847961257068e0, 13: 4.25}
_ELL_C = {3: 100800., 5: 10059033600., 7: 4487938430976000., 9: 5914384781877411840000.,
          13: 113250775606021113483283660800000000.}
# Pade coefficients b_0..b_m (Higham 2005)
_B = {3: (120., 60., 12., 1.),
      5: (30240., 15120., 3360., 420., 30., 1.),
      7: (17297280., 8648640., 1995840., 277200., 25200., 1512., 56., 1.),
      9: (17643225600., 8821612800., 2075673600., 302702400., 30270240., 2162160., 110880.,
          3960., 90., 1.),
      13: (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
           129060195264000., 10559470521600., 670442572800., 33522128640., 1323241920.,
           40840800., 960960., 16380., 182., 1.)}


def _onenorm(x):
    """The 1-norm (largest column sum) of each matrix, on the host."""
    return np.abs(np.asarray(_ops.to_numpy(x))).sum(-2).max(-1)


def _ell(a, m):
    """Al-Mohy & Higham 2009 (3.6)/scipy's _ell: extra squarings for each host matrix
    ``a`` [..., n, n] so that the degree-m truncation error stays below 2^-53."""
    b = np.abs(a)
    r = np.ones(a.shape[:-2] + (1, a.shape[-1]))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for _ in range(2 * m + 1):   # || |A|^(2m+1) ||_1 = max of 1^T |A|^(2m+1)
            r = r @ b
        p = r.max(-1)[..., 0]
        v = np.ceil(np.log2(p / (b.sum(-2).max(-1) * _ELL_C[m]) / 2.0 ** -53) / (2 * m))
    return np.where((p == 0) | np.isnan(v), 0, np.maximum(v, 0))


def _degree_and_scaling(host, a2, a4, a6):
    """(m, s, powers) for the matrices ``host`` (their values on the host) with powers
    ``a2``, ``a4``, ``a6`` (tensors): the batch's Pade degree, the per-matrix scalings s
    (host ints) and the powers {2: A^2, ...} computed on the way (Al-Mohy & Higham 2009,
    Algorithm 3.1, with exact norms)."""
    pw = {2: a2, 4: a4, 6: a6}
    d = {4: _onenorm(a4) ** 0.25, 6: _onenorm(a6) ** (1 / 6)}
    m = np.full(host.shape[:-2], 13)
    todo = np.ones(host.shape[:-2], bool)

    def try_degree(deg, eta):
        ok = todo & (eta < _THETA[deg])
        if ok.any():
            ok &= _ell(host, deg) == 0
        m[ok] = deg
        todo[ok] = False

    eta1 = np.maximum(d[4], d[6])
    try_degree(3, eta1)
    try_degree(5, eta1)
    s = np.zeros(host.shape[:-2], int)
    if todo.any():
        pw[8] = a4 @ a4
        d[8] = _onenorm(pw[8]) ** 0.125
        eta3 = np.maximum(d[6], d[8])
        try_degree(7, eta3)
        try_degree(9, eta3)
    if todo.any():
        d[10] = _onenorm(a4 @ a6) ** 0.1
        eta5 = np.minimum(eta3, np.maximum(d[8], d[10]))
        with np.errstate(divide="ignore", invalid="ignore"):
            s13 = np.where(eta5 == 0, 0, np.maximum(np.ceil(np.log2(eta5 / _THETA[13])), 0))
            s13 = s13 + _ell(host * np.exp2(-s13)[..., None, None], 13)
        s = np.where(todo & np.isfinite(s13), s13, 0).astype(int)  # NaN input: NaN out
    return int(m.max()), s, pw


def _expm(a):
    """expm of each matrix of the (plain, finite) tensor ``a`` [..., n, n]."""
    n = a.shape[-1]
    if 0 in a.shape:
        return _ops.zeros_like(a)
    host = np.asarray(_ops.to_numpy(a))
    if not np.any(host[..., ~np.eye(n, dtype=bool)]):  # diagonal (and 1x1): exactly, entrywise
        return _ops.expand_dims(_ops.exp(_ops.diagonal(a, 0, -2, -1)), -2) * \
            _ops.eye(n, dtype=a.dtype, device=a.device)
    if not np.any(np.triu(host, 1)):   # lower triangular: expm(L) = expm(L^T)^T
        return _ops.matrix_transpose(_expm(_ops.matrix_transpose(a)))
    upper = not np.any(np.tril(host, -1))
    a2 = a @ a
    a4 = a2 @ a2
    m, s, pw = _degree_and_scaling(host, a2, a4, a2 @ a4)
    eye = _ops.eye(n, dtype=a.dtype, device=a.device)
    b = _B[m]
    if m < 13:
        pw[0] = eye
        u = a @ sum(b[k] * pw[k - 1] for k in range(1, m + 1, 2))
        v = sum(b[k] * pw[k] for k in range(0, m + 1, 2))
    else:
        f = _ops.asarray(np.exp2(-s)[..., None, None].astype(a.dtype), device=a.device)
        x1, x2, x4, x6 = a * f, pw[2] * f ** 2, pw[4] * f ** 4, pw[6] * f ** 6
        u = x1 @ (x6 @ (b[13] * x6 + b[11] * x4 + b[9] * x2) + b[7] * x6 + b[5] * x4 +
                  b[3] * x2 + b[1] * eye)
        v = x6 @ (b[12] * x6 + b[10] * x4 + b[8] * x2) + b[6] * x6 + b[4] * x4 + \
            b[2] * x2 + b[0] * eye
    x = _solve(v - u, v + u)
    for i in range(-1, int(s.max())):   # each matrix squared s times
        if i >= 0:
            sq = x @ x
            x = sq if (s > i).all() else _ops.where(
                _ops.asarray((s > i)[..., None, None], device=a.device), sq, x)
        if upper:
            x = _fix_triangular(x, host, np.maximum(s - i - 1, 0))
    return x


def _fix_triangular(x, host, k):
    """Al-Mohy & Higham 2009, Code Fragment 2.1 (scipy's _fragment_2_1): for upper
    triangular A, the diagonal and superdiagonal of x ~ expm(2^-k A) set to their exact
    values, exp(2^-k a_ii) and Higham 2008 (10.42)."""
    n = host.shape[-1]
    sc = np.exp2(-k)[..., None]
    d = sc * np.diagonal(host, 0, -2, -1)
    lam1, lam2 = d[..., :-1], d[..., 1:]
    half = 0.5 * (lam1 - lam2)
    with np.errstate(invalid="ignore", divide="ignore"):
        sinch = np.where(half == 0, 1, np.sinh(half) / np.where(half == 0, 1, half))
    fixed = np.zeros(host.shape, host.dtype)
    i = np.arange(n)
    fixed[..., i, i] = np.exp(d)
    fixed[..., i[:-1], i[1:]] = sc * np.diagonal(host, 1, -2, -1) * \
        np.exp(0.5 * (lam1 + lam2)) * sinch
    mask = np.eye(n, dtype=bool) | np.eye(n, k=1, dtype=bool)
    return _ops.where(_ops.asarray(mask, device=x.device),
                      _ops.asarray(fixed, device=x.device), x)


def _block(a, e):
    """[[a, e], [0, a]]."""
    return _ops.concatenate([_ops.concatenate([a, e], axis=-1),
                             _ops.concatenate([_ops.zeros_like(a), a], axis=-1)], axis=-2)


def _expm_frechet(a, e):
    """(expm(a), L(a, e)) from the block [[a, c e], [0, a]], c a power of 2 with
    ||c e||_1 ~ ||a||_1 (L is linear in e: the norm of e changes nothing else)."""
    n = a.shape[-1]
    na, ne = _onenorm(a), _onenorm(e)
    with np.errstate(divide="ignore", invalid="ignore"):
        c = np.where((na > 0) & (ne > 0),
                     np.exp2(np.clip(np.round(np.log2(na / ne)), -100, 100)), 1.0)
    c = _ops.asarray(c[..., None, None].astype(a.dtype), device=a.device)
    r = _expm(_block(a, e * c))
    return r[..., :n, :n], r[..., :n, n:] / c


expm_p = Primitive(
    "linalg.expm", lambda a: a,
    doc="The matrix exponential of each a[..., n, n] (scaling and squaring, Pade).")
expm_frechet_p = Primitive(
    "linalg.expm_frechet", lambda a, e: (a, a), multiple_results=True,
    doc="(expm(A), L(A, E)), L the Frechet derivative of expm at A in direction E, "
        "for a, e [..., n, n] (same batch).")
# device-independent implementations (tenferro ops on the inputs' device)
expm_p.impl = lambda a: _expm(detach(a))
expm_frechet_p.impl = lambda a, e: _expm_frechet(detach(a), detach(e))


# -- rules ---------------------------------------------------------------------------------

def _expm_jvp(tangents, primals, out, params):
    # d expm(A) = L(A, dA)   (Al-Mohy & Higham 2009; Najfeld & Havel 1995 block form)
    t, = tangents
    return None if t is None else expm_frechet_p.bind(primals[0], t)[1]


def _expm_vjp(ct, primals, out, params, needs):
    # gA = L(A^H, g)   (the adjoint of L(A, .); PyTorch's differential_analytic_matrix_function)
    return (expm_frechet_p.bind(mH(primals[0]), ct)[1],)


def _frechet_jvp(tangents, primals, out, params):
    # (expm A, L(A, E)) is the top block row of expm(X), X = [[A, E], [0, A]], so its
    # tangent is the top block row of L(X, dX), dX = [[dA, dE], [0, dA]] (Najfeld & Havel)
    (ta, te), (a, e) = tangents, primals
    if ta is None and te is None:
        return (None, None)
    ta = _ops.zeros_like(a) if ta is None else ta
    te = _ops.zeros_like(e) if te is None else te
    n = a.shape[-1]
    lx = expm_frechet_p.bind(_block(a, e), _block(ta, te))[1]
    return lx[..., :n, :n], lx[..., :n, n:]


def _frechet_vjp(ct, primals, out, params, needs):
    # gX = L(X^H, G), G = [[g_expm, g_L], [0, 0]]; gA = gX_11 + gX_22, gE = gX_12
    (a, e), (ga, gl) = primals, ct
    ga = _ops.zeros_like(a) if ga is None else ga
    gl = _ops.zeros_like(e) if gl is None else gl
    n = a.shape[-1]
    z = _ops.zeros_like(a)
    g = _ops.concatenate([_ops.concatenate([ga, gl], axis=-1),
                          _ops.concatenate([z, z], axis=-1)], axis=-2)
    gx = expm_frechet_p.bind(mH(_block(a, e)), g)[1]
    return (gx[..., :n, :n] + gx[..., n:, n:] if needs[0] else None,
            gx[..., :n, n:] if needs[1] else None)


_expm_vjp.uses_out = False
_frechet_vjp.uses_out = False
def_jvp_rule(expm_p, _expm_jvp)
def_vjp_rule(expm_p, _expm_vjp)
def_jvp_rule(expm_frechet_p, _frechet_jvp)
def_vjp_rule(expm_frechet_p, _frechet_vjp)


# -- public functions ----------------------------------------------------------------------

def expm(A: ArrayLike) -> Tensor:
    """Matrix exponential (scipy.linalg.expm).

    Pade approximation with scaling and squaring (Al-Mohy & Higham 2009), written with
    tenferro's ops: ``expm(A) = sum_k A^k / k!``.  Batched over leading dimensions.
    Infs and NaNs raise (scipy returns NaNs).

    Parameters
    ----------
    A : Tensor or array_like, shape (..., M, M)
        The matrices.

    Returns
    -------
    Tensor, shape (..., M, M)
        The exponentials, in ``A``'s dtype.

    Raises
    ------
    ValueError
        If ``A`` is not a stack of square matrices, or holds infs or NaNs.
    TypeError
        If an input is not numeric (strings, objects).
    UnsupportedOperation
        If an input is on a device without a kernel for it (the WebGPU driver has no
        LAPACK routines; move the data with ``.to('cpu')``).

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order: the JVP is
    the Frechet derivative ``L(A, dA)`` and the VJP ``L(A^H, g)`` (Al-Mohy & Higham
    (2009), "Computing the Frechet derivative of the matrix exponential"; the block form
    of Najfeld & Havel (1995); PyTorch's ``differential_analytic_matrix_function``).

    See Also
    --------
    scipy.linalg.expm, expm_frechet

    Examples
    --------
    >>> tf.linalg.expm([[0.0, 1.0], [0.0, 0.0]])
    tensor([[1., 1.],
            [0., 1.]])
    """
    a = as_matrix_stack("expm", A)
    if not is_abstract(a) and not bool(_ops.all(_ops.isfinite(a))):  # traced: no data yet
        raise ValueError("tenferro.linalg.expm: array must not contain infs or NaNs")
    return expm_p.bind(a)


def expm_frechet(A: ArrayLike, E: ArrayLike, method: str | None = None,
                 compute_expm: bool = True, check_finite: bool = True) -> Any:
    """Frechet derivative of the matrix exponential (scipy.linalg.expm_frechet).

    ``(expm(A), L(A, E))``, or ``L(A, E)`` without ``compute_expm``, where ``L(A, E)``
    is the derivative of ``expm`` at ``A`` in the direction ``E``; computed from the
    block identity ``expm([[A, E], [0, A]]) = [[expm(A), L(A, E)], [0, expm(A)]]``
    (Najfeld & Havel 1995).  Batch dimensions of ``A`` and ``E`` broadcast.

    Parameters
    ----------
    A : Tensor or array_like, shape (..., M, M)
        Where the derivative is taken.
    E : Tensor or array_like, shape (..., M, M)
        The direction.
    method : {None, 'SPS', 'blockEnlarge'}, optional
        Accepted as scipy's; both use the block form.
    compute_expm : bool, default True
        Also return ``expm(A)``.
    check_finite : bool, default True
        Raise ValueError if an input holds infs or NaNs (scipy's check).

    Returns
    -------
    expm_A : Tensor, shape (..., M, M)
        ``expm(A)`` (only with ``compute_expm``).
    expm_frechet_AE : Tensor, shape (..., M, M)
        ``L(A, E)``.

    Raises
    ------
    ValueError
        If ``method`` is unknown, ``A`` and ``E`` are not square matrices of one shape,
        or (``check_finite``) an input holds infs or NaNs.
    TypeError
        If an input is not numeric (strings, objects).
    UnsupportedOperation
        If an input is on a device without a kernel for it (the WebGPU driver has no
        LAPACK routines; move the data with ``.to('cpu')``).

    Notes
    -----
    Differentiable: yes in ``A`` and ``E``, forward and reverse, real and complex, to any
    order: the block form runs on :func:`expm`'s primitive, so its derivatives are
    Frechet derivatives of a larger block (Al-Mohy & Higham 2009; each order doubles the
    block size).

    See Also
    --------
    scipy.linalg.expm_frechet, expm

    Examples
    --------
    >>> import scipy.linalg
    >>> A = np.array([[1.0, 2.0], [3.0, 4.0]])
    >>> E = np.array([[0.0, 1.0], [0.0, 0.0]])
    >>> expA, L = tf.linalg.expm_frechet(A, E)
    >>> np.allclose(L, scipy.linalg.expm_frechet(A, E)[1])
    True
    """
    if method not in (None, "SPS", "blockEnlarge"):
        raise ValueError("tenferro.linalg.expm_frechet: method must be None, 'SPS' or "
                         "'blockEnlarge', got %r" % (method,))
    a = as_matrix_stack("expm_frechet", A)
    e = as_matrix_stack("expm_frechet", E)
    if a.shape[-2:] != e.shape[-2:]:
        raise ValueError("tenferro.linalg.expm_frechet: expected A and E to be the same "
                         "shape, got %s and %s" % (a.shape, e.shape))
    a, e = common_dtype(a, e)
    if check_finite:
        _check_finite("expm_frechet", a, e)
    ea, l = expm_frechet_p.bind(*broadcast_batch("expm_frechet", a, e))
    return (ea, l) if compute_expm else l


def matrix_power(a: ArrayLike, n: int) -> Tensor:
    """Integer power of square matrices (numpy.linalg.matrix_power).

    ``a^n`` by repeated squaring: the identity for ``n = 0``, powers of ``inv(a)`` for
    ``n < 0``.  Batched over leading dimensions.  Ints and bools are promoted to
    float64 (NumPy keeps integer matrices for ``n >= 0``).

    Parameters
    ----------
    a : Tensor or array_like, shape (..., M, M)
        The matrices.
    n : int
        The exponent.

    Returns
    -------
    Tensor, shape (..., M, M)
        ``a`` to the power ``n``.

    Raises
    ------
    TypeError
        If ``n`` is not an integer, or ``a`` is not numeric.
    ValueError
        If ``a`` is not a stack of square matrices.
    LinAlgError
        If ``n < 0`` and a matrix is singular.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order: a
    composition of ``@`` and (for ``n < 0``) :func:`inv`, whose rules it uses.

    See Also
    --------
    numpy.linalg.matrix_power, expm, inv

    Examples
    --------
    >>> a = [[1.0, 1.0], [0.0, 1.0]]
    >>> tf.linalg.matrix_power(a, 3)
    tensor([[1., 3.],
            [0., 1.]])
    >>> tf.linalg.matrix_power(a, -1)
    tensor([[ 1., -1.],
            [ 0.,  1.]])
    """
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError("tenferro.linalg.matrix_power: the exponent must be an integer, "
                        "got %r of type %s" % (n, type(n).__name__)) from None
    a = as_matrix_stack("matrix_power", a)
    if n == 0:
        return _ops.broadcast_to(_ops.eye(a.shape[-1], dtype=a.dtype, device=a.device),
                                 a.shape)
    if n < 0:
        a, n = inv(a, check_finite=False), -n
    result = None
    while True:   # binary powering: a^n = prod of a^(2^k) over the bits of n
        if n & 1:
            result = a if result is None else result @ a
        n >>= 1
        if not n:
            return _ops.positive(result) if result is a else result   # a copy, as NumPy
        a = a @ a
