"""``norm``: scipy.linalg.norm / numpy.linalg.norm (same ``ord``/``axis``/``keepdims``
semantics and error messages), real output for complex input, ints promoted to float64.

Vector p-norms with finite p > 0 (and so the 2-norm and the Frobenius norm) are one
primitive, ``linalg.vector_norm``, whose rules give the subgradient 0 at a zero vector
(as PyTorch) instead of the NaN of ``sqrt``'s derivative at 0.  The others are
compositions: inf/-inf/0 and negative p of ``abs``, ``max``/``min``, ``sum``; the matrix
1/inf norms of column/row sums; 2, -2 and 'nuc' of ``svdvals``.

The 2-norm of a whole plain CPU tensor (no ``ord``/``axis``/``keepdims``, outside
autodiff and tracing) skips the primitive: the same CPU computation (``_vnorm``, while
it is the registered implementation) on its array (issue 17: a 3-element norm within
scipy.linalg.norm's time).
"""
from __future__ import annotations

import math
import operator
from typing import TYPE_CHECKING

import numpy as np

from .. import _ops, _primitive
from .._kernels import _elementwise as _ew, _reduce as _red
from .._ops._common import to_tensor
from .._tensor import Tensor, _wrap
from ..devices.cpu import threads as _threads
from ..autograd.extend import Primitive, def_impl, def_jvp_rule, def_vjp_rule
from ._eigh import _REAL
from ._svd import svdvals
from ._util import check_finite as _check_finite, on_cuda

if TYPE_CHECKING:
    from .._tensor import ArrayLike


def _vnorm_aval(x, *, p, axes):
    shape, dt = x
    return (tuple(1 if i in axes else d for i, d in enumerate(shape)),
            _REAL.get(np.dtype(dt), np.dtype(dt)))


vector_norm_p = Primitive(
    "linalg.vector_norm", _vnorm_aval,
    doc="(sum |x|^p)^(1/p) over ``axes`` (kept, as size 1), finite p > 0; real result.")


def _vnorm_cpu(x, *, p, axes):
    return _vnorm(x, p, axes).reshape(tuple(1 if i in axes else d
                                            for i, d in enumerate(x.shape)))


def _vnorm(x, p, axes):
    """||x||_p over ``axes`` (dropped) of ndarray ``x``: a new array, never a scalar."""
    if p == 1:   # a sum of magnitudes: no scaling needed
        return _sum(np.abs(x), axes)
    # the plain sum when it neither overflowed nor fell where squares underflow (the
    # usual case: one extra check); otherwise scaled as LAPACK's nrm2 and scipy
    s = _sum(_powered(x, None if p == 2 else np.abs(x), p), axes)
    lo, hi = _SAFE[s.dtype]
    if s.size == 1:
        v = s.item()
        if lo <= v <= hi:
            if p != 2:
                return _root(s, p)
            # math.sqrt is correctly rounded as NumPy's sqrt (float32's too: the double
            # square root of a float32, rounded to float32, is the correctly rounded
            # one), without a ufunc call's cost
            s[...] = math.sqrt(v)
            return s
    elif ((s >= lo) & (s <= hi)).all():
        return _root(s, p)
    ax = np.abs(x)
    # scaled by the power of two at or below max |x| (exact: in range, the same bits
    # as the plain sum; at or below, since the power above float32's largest values,
    # 2**128, is not a float32)
    big = np.max(ax, axis=axes, keepdims=True, initial=0)
    scale = np.where((big > 0) & np.isfinite(big), np.ldexp(1.0, np.frexp(big)[1] - 1), 1.0
                     ).astype(ax.dtype)
    s = _root(_sum(_powered(x / scale, ax / scale, p), axes), p)
    return np.multiply(s, scale.reshape(s.shape), out=s)


def _sum(a, axes):
    """The sum of ndarray ``a`` over ``axes`` by tenferro's kernel (pairwise)."""
    out = np.empty(() if len(axes) == a.ndim else
                   tuple(d for i, d in enumerate(a.shape) if i not in axes), a.dtype)
    _red.reduce("sum", a, axes, out, _threads.current)
    return out


def _root(s, p):
    """``s ** (1 / p)`` in place (``s`` is a new array)."""
    return np.sqrt(s, out=s) if p == 2 else np.power(s, 1.0 / p, out=s)


def _powered(x, ax, p):
    """|x|^p elementwise (|x|^2 as re^2 + im^2 for complex x)."""
    if p == 2:
        return (x.conj() * x).real if x.dtype.kind == "c" else x * x
    return ax ** p


# a sum of |x|^p in [tiny / eps, max] is exact enough unscaled: no term overflowed,
# none that matters underflowed (NaN is outside, and takes the scaled path)
_SAFE = {np.dtype(t): (np.finfo(t).tiny / np.finfo(t).eps, np.finfo(t).max)
         for t in (np.float32, np.float64)}


def_impl(vector_norm_p, "cpu", _vnorm_cpu)
def_impl(vector_norm_p, "cuda", on_cuda("vector_norm"))
# the fast path of norm: its dtypes, and the axes of a whole tensor by ndim
_FAST = frozenset(_SAFE) | {np.dtype(np.complex64), np.dtype(np.complex128)}
_ALL = [tuple(range(n)) for n in range(65)]


def _vnorm_parts(x, out, p):
    """(w, zero): d||x||_p = Re sum(conj(w) dx) with w = sgn(x) (|x| / ||x||)^(p-1)
    (x / ||x|| for p = 2: ratios, so no overflow or underflow at scaled magnitudes),
    and the mask of zero norms, where the derivative is taken as 0 (w = 0 there)."""
    zero = out == 0
    safe = _ops.where(zero, _ops.ones_like(out), out)
    if p == 2:
        return x / safe.astype(x.dtype), zero
    ax = _ops.abs(x)
    nz = ax != 0
    safe_ax = _ops.where(nz, ax, _ops.ones_like(ax))
    sgn = x / safe_ax.astype(x.dtype) if x.dtype.kind == "c" else _ops.sign(x)
    if p == 1:
        return sgn, zero
    r = _ops.where(nz, (safe_ax / safe) ** (p - 1), _ops.zeros_like(ax))
    return sgn * r.astype(x.dtype), zero


def _vnorm_jvp(tangents, primals, out, params):
    # PyTorch FunctionsManual.cpp norm_jvp: Re sum(conj(w) dx) / ||x||^(p-1), 0 at x = 0
    t, = tangents
    if t is None:
        return None
    (x,), p = primals, params["p"]
    w, zero = _vnorm_parts(x, out, p)
    num = _ops.real(_ops.conj(w) * t) if x.dtype.kind == "c" else w * t
    num = _ops.sum(num, axis=params["axes"], keepdims=True)
    return _ops.where(zero, _ops.zeros_like(out), num)


def _vnorm_vjp(ct, primals, out, params, needs):
    # PyTorch FunctionsManual.cpp norm_backward: g w / ||x||^(p-1), 0 at x = 0
    (x,), p = primals, params["p"]
    w, zero = _vnorm_parts(x, out, p)
    scale = _ops.where(zero, _ops.zeros_like(out), ct)
    return (w * scale.astype(x.dtype),)


_vnorm_vjp.uses_out = True
def_jvp_rule(vector_norm_p, _vnorm_jvp)
def_vjp_rule(vector_norm_p, _vnorm_vjp)


def _pnorm(x, p, axes):
    return vector_norm_p.bind(x, p=float(p), axes=tuple(sorted(axes)))


def _vector_norm(x, ord, ax):
    if ord is None or (ord not in (np.inf, -np.inf) and ord > 0):
        return _pnorm(x, 2 if ord is None else ord, (ax,))
    a = _ops.abs(x)
    if ord == np.inf:
        if x.shape[ax] == 0:   # NumPy: the max over nothing is 0
            return _ops.sum(a, axis=ax, keepdims=True)
        return _ops.max(a, axis=ax, keepdims=True)
    if ord == -np.inf:
        return _ops.min(a, axis=ax, keepdims=True)
    if ord == 0:   # the number of nonzeros (piecewise constant: zero derivative)
        return _ops.sum((x != 0).astype(a.dtype), axis=ax, keepdims=True)
    return _ops.sum(a ** ord, axis=ax, keepdims=True) ** (1.0 / ord)   # p < 0


def _matrix_norm(x, ord, r, c):
    if ord in (None, "fro", "f"):
        return _pnorm(x, 2, (r, c))
    if ord in (1, np.inf, 2) and x.size == 0:   # NumPy: the max over nothing is 0
        return _ops.sum(_ops.abs(x), axis=(r, c), keepdims=True)
    if ord in (2, -2, "nuc"):
        s = svdvals(_ops.moveaxis(x, (r, c), (-2, -1)), check_finite=False)
        s = {2: _ops.max, -2: _ops.min, "nuc": _ops.sum}[ord](s, axis=-1)
        for i in sorted((r, c)):
            s = _ops.expand_dims(s, i)
        return s
    a = _ops.abs(x)
    if ord in (1, -1):   # max/min column sum
        red, rest = r, c
    else:   # inf, -inf: max/min row sum
        red, rest = c, r
    sums = _ops.sum(a, axis=red, keepdims=True)
    return (_ops.max if ord in (1, np.inf) else _ops.min)(sums, axis=rest, keepdims=True)


def norm(a: ArrayLike, ord: float | str | None = None,
         axis: int | tuple[int, int] | None = None, keepdims: bool = False,
         check_finite: bool = True) -> Tensor:
    """Matrix or vector norm (scipy.linalg.norm, the same as numpy.linalg.norm).

    A vector norm over an int ``axis`` (or of a 1-D ``a``), a matrix norm over a 2-tuple
    ``axis`` (or of a 2-D ``a``), or, with ``ord`` and ``axis`` None, the 2-norm of the
    flattened array.  The result is real.

    Parameters
    ----------
    a : Tensor or array_like
        The input, real or complex (ints and bools become float64).
    ord : {None, 'fro', 'nuc', inf, -inf, int, float}, optional
        The order, as NumPy's: for vectors any p (``sum |x|^p ^ (1/p)``, 0 counts the
        nonzeros, inf the maximum); for matrices 'fro', 'nuc', 1, -1, 2, -2, inf, -inf.
    axis : int or tuple of two int, optional
        The vector axis or the matrix axes.
    keepdims : bool, default False
        Keep the reduced axes with length 1.
    check_finite : bool, default True
        Raise ValueError if an input holds infs or NaNs (scipy's check).

    Returns
    -------
    Tensor
        The norms, in ``a``'s real dtype.

    Raises
    ------
    ValueError
        If ``ord`` is invalid for the norm asked, an axis is out of bounds or repeated,
        the dimensions do not fit, or (``check_finite``) ``a`` holds infs or NaNs.
    TypeError
        If ``axis`` is not None, an int or a tuple of ints, or ``a`` is not numeric.
    LinAlgError
        If ``ord`` is 2, -2 or 'nuc' and the SVD does not converge.
    UnsupportedOperation
        If an input is on a device without a kernel for it (the WebGPU driver has no
        LAPACK routines; move the data with ``.to('cpu')``).

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order: the
    p-norms with finite p > 0 (so 2 and Frobenius) have PyTorch's ``norm_jvp`` and
    ``norm_backward`` (the gradient at a zero input is 0, not NaN); 2, -2 and 'nuc' go
    through :func:`svdvals`; inf, -inf, 0, 1 and -1 are compositions of ``abs``,
    ``max``/``min`` and ``sum`` (ties split the gradient).

    See Also
    --------
    scipy.linalg.norm, numpy.linalg.norm, svdvals

    Examples
    --------
    >>> tf.linalg.norm([3.0, 4.0])
    tensor(5.)
    >>> tf.linalg.norm([[1.0, -2.0], [3.0, 4.0]], ord=1)
    tensor(6.)
    """
    if ord is None and axis is None and keepdims is False and type(a) is Tensor \
            and a._ad is None and not _primitive._interpreters:
        d, dev = a._data, a._device
        if dev.type == "cpu" and d.dtype in _FAST and d.ndim and \
                dev.driver.implementations.get(vector_norm_p.name) is _vnorm_cpu:
            if check_finite and not _ew.all_finite(d):
                _check_finite("norm", a)   # its error (or NumPy's check of a strided view)
            return _wrap(_vnorm(d, 2.0, _ALL[d.ndim]), dev)
    x, given = to_tensor(a), axis
    if x.dtype.kind not in "fc":
        x = x.astype(np.dtype("float64"))
    if check_finite:
        _check_finite("norm", x)
    nd = x.ndim
    if axis is None:
        if ord is None:
            axes = tuple(range(nd))
            r = _pnorm(x, 2, axes) if nd else _ops.abs(x)
            return r if keepdims or not nd else _ops.reshape(r, ())
        if nd not in (1, 2):
            raise ValueError("tenferro.linalg.norm: improper number of dimensions to norm: "
                             "ord=%r needs a 1-D or 2-D array or an axis, got shape %s"
                             % (ord, x.shape))
        axis = tuple(range(nd))
    elif not isinstance(axis, tuple):
        axis = (axis,)
    try:
        axes = tuple(operator.index(i) for i in axis)
    except TypeError:
        raise TypeError("tenferro.linalg.norm: axis must be None, an int or a tuple of "
                        "ints, got %r" % (given,)) from None
    for i in axes:
        if not -nd <= i < nd:
            raise ValueError("tenferro.linalg.norm: axis %d is out of bounds for an array "
                             "of shape %s" % (i, x.shape))
    axes = tuple(i % nd for i in axes)
    if len(axes) == 1:
        if isinstance(ord, str):
            raise ValueError("tenferro.linalg.norm: invalid norm order %r for vectors "
                             "(shape %s, axis %s)" % (ord, x.shape, axis))
        out = _vector_norm(x, ord, axes[0])
    elif len(axes) == 2:
        if axes[0] == axes[1]:
            raise ValueError("tenferro.linalg.norm: duplicate axes given: %s" % (axis,))
        if ord not in (None, "fro", "f", "nuc", 2, -2, 1, -1, np.inf, -np.inf):
            raise ValueError("tenferro.linalg.norm: invalid norm order %r for matrices "
                             "(shape %s, axis %s); expected None, 'fro', 'nuc', 1, -1, 2, "
                             "-2, inf or -inf" % (ord, x.shape, axis))
        out = _matrix_norm(x, ord, *axes)
    else:
        raise ValueError("tenferro.linalg.norm: improper number of dimensions to norm: "
                         "axis %s of an array of shape %s" % (axis, x.shape))
    if keepdims:
        return out
    return _ops.reshape(out, tuple(d for i, d in enumerate(x.shape) if i not in axes))

