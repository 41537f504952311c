"""NumPy's statistics: ``average``, ``cov``, ``corrcoef``, ``bincount``, ``histogram``.

Each is a composition of differentiable ops (means, matmul, ``scatter_add``), so
``average``, ``cov`` and ``corrcoef`` are differentiable in their data and in
``aweights``/``weights``, ``bincount`` and ``histogram`` in their weights (the counts
themselves are integers).  Output sizes that depend on the data (``bincount``'s length,
``histogram``'s automatic range) and NumPy's data-dependent errors and warnings read a
few values back to the host, as NumPy does; so these functions cannot be traced.

Weights NumPy takes as float64 are the device's default float here (float64 on the
CPU; float32 on a device without float64, such as WebGPU).

This module also gathers the other statistics modules' functions (``nanfunctions``,
``quantiles``, ``calculus``) for the one import line in ``tenferro._ops``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Literal, overload

import warnings

import numpy as np

from .. import _dtypes
from .._errors import DeviceMismatchError
from .._primitive import bind
from ._common import normalize_axes, to_tensor
from ._counts_cpu import bincount_p, histogram_counts_p
from ._order_cpu import plain
from .calculus import *  # noqa: F401,F403  (re-exported: see the module docstring)
from .calculus import __all__ as _calculus_all, count_le
from .indexing import take_in_range
from .conversion import astype
from .creation import _default_float, asarray, zeros
from .elementwise import clip, conj, divide, greater_equal, imag, less_equal, \
    logical_and, multiply, real, round as _round, sqrt, where
from .indexing import scatter_add
from .joining import concatenate
from .matmul import matmul
from .nanfunctions import *  # noqa: F401,F403
from .nanfunctions import __all__ as _nan_all, host_any
from .quantiles import *  # noqa: F401,F403
from .quantiles import __all__ as _quantiles_all, _float_here, weights_along
from .reduction import max as _max, mean, min as _min, sum as _sum
from .shape import broadcast_to, diagonal, expand_dims, reshape, squeeze

if TYPE_CHECKING:
    from .._tensor import ArrayLike, AxisLike, DTypeLike, Tensor

__all__ = ["average", "cov", "corrcoef", "bincount", "histogram"]   # type checkers read this
__all__ += _nan_all + _calculus_all + _quantiles_all   # (and tenferro/_ops/__init__.py these)


def _host(t):
    """The value of a small tensor on the host (a NumPy scalar or array; a constant, also
    for a tensor that requires grad: the range of a histogram of one)."""
    return t.detach().to("cpu").numpy()[()]


def _float_for(t):
    """The device's default float dtype for ``t``: what NumPy's float64 weights are."""
    return _default_float(t._device)


def _ones(x):
    """int64 ones of ``x``'s shape (the counts ``bincount`` and ``histogram`` add)."""
    return broadcast_to(asarray(1, dtype=_dtypes.int64, device=x._device), x.shape)


def _on(name, x, like, dtype=None):
    """``x`` as a tensor beside ``like`` (converted onto its device; a tensor on another
    device is an error naming ``name``)."""
    t = to_tensor(x, device=like._device, dtype=dtype)
    if t._device is not like._device:
        raise DeviceMismatchError(name, [like._device, t._device])
    return t


# -- average ------------------------------------------------------------------------------

@overload
def average(a: ArrayLike, axis: AxisLike = None, weights: ArrayLike | None = None,
            returned: Literal[False] = False, *, keepdims: bool = False) -> Tensor: ...
@overload
def average(a: ArrayLike, axis: AxisLike, weights: ArrayLike | None,
            returned: Literal[True], *, keepdims: bool = False) -> tuple[Tensor, Tensor]: ...
@overload
def average(a: ArrayLike, axis: AxisLike = None, weights: ArrayLike | None = None, *,
            returned: Literal[True], keepdims: bool = False) -> tuple[Tensor, Tensor]: ...


def average(a: ArrayLike, axis: AxisLike = None, weights: ArrayLike | None = None,
            returned: bool = False, *, keepdims: bool = False
            ) -> Tensor | tuple[Tensor, Tensor]:
    """Weighted mean :math:`\\sum_i a_i w_i / \\sum_i w_i` over ``axis`` (numpy.average).

    Without weights it is :func:`mean`.  Integer and bool data are averaged in float64
    (the device's default float: float32 where it has no float64); the result dtype is
    NumPy's promotion of ``a``'s and the weights'.

    Parameters
    ----------
    a : Tensor or array_like
        The data.
    axis : int, tuple of ints or None, default None
        The axes to average over; None averages all elements.
    weights : Tensor, array_like or None, default None
        One weight per element: of ``a``'s shape or, with ``axis`` given, 1-D of
        ``a``'s length along ``axis``.  None weighs all elements equally.
    returned : bool, default False
        Also return the sum of the weights (the element count without weights).
    keepdims : bool, default False
        Keep the averaged axes as axes of size one.

    Returns
    -------
    Tensor or tuple of Tensor
        The averages; with ``returned``, ``(average, sum_of_weights)``, the second
        broadcast to the first's shape.

    Raises
    ------
    ZeroDivisionError
        If the weights of a slice sum to zero.
    ValueError
        If ``weights`` has neither ``a``'s shape nor its length along ``axis``, or an
        axis is repeated.
    AxisError
        If an axis is out of bounds.
    DeviceMismatchError
        If ``weights`` is a tensor on another device (a ValueError).

    Warns
    -----
    RuntimeWarning
        "Mean of empty slice" for empty input without weights (the result is NaN).

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order, in ``a``
    and in ``weights`` (composed of differentiable ops: a sum of products divided by a
    sum).

    See Also
    --------
    numpy.average, mean, nanmean

    Examples
    --------
    >>> tf.average(tf.asarray([1.0, 2.0, 3.0, 4.0]), weights=[3, 1, 0, 0])
    tensor(1.25)
    >>> tf.average(tf.asarray([[1, 2], [3, 4]]), axis=1, weights=[1, 3], returned=True)
    (tensor([1.75, 3.75]), tensor([4., 4.]))
    """
    a = to_tensor(a)
    axes = normalize_axes("average", axis, a.ndim)
    if weights is None:
        if a.size == 0 or any(a.shape[ax] == 0 for ax in axes):
            warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=2)
        avg = mean(a, axis=axes, keepdims=keepdims)
        n = a.size / avg.size if avg.size else float("nan")
        scl = asarray(np.asarray(n, dtype=avg.dtype), device=a._device)
    else:
        w = _on("average", weights, a)
        rt = _dtypes.result_type(a.dtype, w.dtype)
        if a.dtype.kind in "biu":
            rt = _dtypes.result_type(rt, _float_for(a))
        if a.shape != w.shape:
            w = weights_along("average", a, w, axis, axes)
        scl = _sum(w, axis=axes, dtype=rt, keepdims=keepdims)
        if host_any(scl == 0):
            raise ZeroDivisionError("tenferro.average: weights sum to zero, can't be "
                                    "normalized")
        avg = _sum(multiply(astype(a, rt), astype(w, rt)), axis=axes, keepdims=keepdims) / scl
    if not returned:
        return avg
    if scl.shape != avg.shape:
        scl = broadcast_to(scl, avg.shape).copy()
    return avg, scl


# -- covariance and correlation -----------------------------------------------------------

def _rows(name, v, dtype, rowvar):
    """``v`` as a 2-D tensor of ``dtype`` with one variable per row (NumPy's cov)."""
    if v.ndim > 2:
        raise ValueError("tenferro.%s: input has more than 2 dimensions (shape %s)"
                         % (name, v.shape))
    return reshape(astype(v, dtype), (1,) * (2 - v.ndim) + v.shape)


def _sample_weights(name, kind, w, n, like):
    w = _on(name, w, like, dtype=_float_for(like))
    if w.ndim > 1:
        raise RuntimeError("tenferro.%s: cannot handle multidimensional %s" % (name, kind))
    if w.shape[0] != n:
        raise RuntimeError("tenferro.%s: incompatible numbers of samples (%d) and %s (%d)"
                           % (name, n, kind, w.shape[0]))
    if kind == "fweights" and host_any(w != _round(w)):
        raise TypeError("tenferro.%s: fweights must be integer" % name)
    if host_any(w < 0):
        raise ValueError("tenferro.%s: %s cannot be negative" % (name, kind))
    return w


def cov(m: ArrayLike, y: ArrayLike | None = None, rowvar: bool = True, bias: bool = False,
        ddof: int | None = None, fweights: ArrayLike | None = None,
        aweights: ArrayLike | None = None, *, dtype: DTypeLike = None) -> Tensor:
    """Covariance matrix of the variables in the rows of ``m`` and ``y`` (numpy.cov).

    Each row of ``m`` (each column, with ``rowvar=False``) is one variable, each column
    one observation: entry :math:`(i, j)` is
    :math:`\\sum_k w_k (x_{ik} - \\bar x_i) \\overline{(x_{jk} - \\bar x_j)} / f`, where
    :math:`f` is ``n - ddof`` without weights (NumPy's weighted normalisation with
    them).  The result is float64 (complex128 for complex data) unless ``dtype`` says
    otherwise, as NumPy; a single variable gives a 0-d tensor.

    Parameters
    ----------
    m : Tensor or array_like, shape (N, K) or (K,)
        The variables (rows) and their observations (columns).
    y : Tensor, array_like or None, default None
        More variables, in ``m``'s layout, appended to ``m``'s.
    rowvar : bool, default True
        Whether the variables are the rows (True) or the columns (False).
    bias : bool, default False
        Normalise by ``n`` instead of ``n - 1`` (ignored when ``ddof`` is given).
    ddof : int or None, default None
        Delta degrees of freedom: normalise by ``n - ddof``; None: ``1 - bias``.
    fweights : Tensor, array_like or None, default None
        Integer frequency weights, one per observation.
    aweights : Tensor, array_like or None, default None
        Non-negative analytic (reliability) weights, one per observation.
    dtype : dtype or None, default None
        The result dtype; None: float64 or the promotion of the inputs with it.

    Returns
    -------
    Tensor, shape (N, N)
        The covariance matrix (0-d for a single variable).

    Raises
    ------
    ValueError
        If ``m`` or ``y`` has more than two dimensions, ``ddof`` is not an integer, or a
        weight is negative.
    TypeError
        If ``fweights`` is not integer.
    RuntimeError
        If a weight tensor is not 1-D or its length is not the number of observations
        (NumPy's exception types).

    Warns
    -----
    RuntimeWarning
        "Degrees of freedom <= 0 for slice" (the result is then inf or NaN).

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order, in ``m``,
    ``y`` and ``aweights`` (composed of differentiable ops; ``fweights`` are integers).

    See Also
    --------
    numpy.cov, corrcoef, var

    Examples
    --------
    >>> tf.cov(tf.asarray([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]]))
    tensor([[ 1., -1.],
            [-1.,  1.]])
    >>> tf.cov(tf.asarray([1.0, 2.0, 4.0]), bias=True)
    tensor(1.55555556)
    """
    if ddof is not None and ddof != int(ddof):
        raise ValueError("tenferro.cov: ddof must be integer, got %r" % (ddof,))
    m = to_tensor(m)
    if y is not None:
        y = _on("cov", y, m)
    if dtype is None:
        dtype = _dtypes.result_type(*([m.dtype] + ([y.dtype] if y is not None else [])
                                      + [_float_for(m)]))
    else:
        dtype = _dtypes.dtype(dtype)
    X = _rows("cov", m, dtype, rowvar)
    if not rowvar and m.ndim != 1:
        X = X.T
    if X.shape[0] == 0:
        return zeros((0, 0), dtype=_float_for(m), device=m._device)
    if y is not None:
        Y = _rows("cov", y, dtype, rowvar)
        if not rowvar and Y.shape[0] != 1:
            Y = Y.T
        X = concatenate((X, Y), axis=0)
    if ddof is None:
        ddof = 1 if bias == 0 else 0
    n = X.shape[1]
    w = aw = None
    if fweights is not None:
        w = _sample_weights("cov", "fweights", fweights, n, m)
    if aweights is not None:
        aw = _sample_weights("cov", "aweights", aweights, n, m)
        w = aw if w is None else w * aw
    avg, w_sum = average(X, axis=1, weights=w, returned=True)
    if w is None:
        fact = n - ddof
        bad = fact <= 0
    else:
        w_sum = w_sum[0]
        if ddof == 0:
            fact = w_sum
        elif aw is None:
            fact = w_sum - ddof
        else:
            fact = w_sum - ddof * _sum(w * aw) / w_sum
        bad = host_any(fact.detach() <= 0)
    if bad:
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=2)
        fact = 0.0
    X = X - expand_dims(avg, 1).astype(X.dtype)
    X_T = (X if w is None else X * w).T
    c = matmul(X, conj(X_T))
    if isinstance(fact, (int, float)):
        scale = 1.0 / fact if fact else float("inf")
    else:
        scale = astype(divide(1, fact), _dtypes.real_dtype(c.dtype))
    return squeeze(multiply(c, scale))


def corrcoef(x: ArrayLike, y: ArrayLike | None = None, rowvar: bool = True, *,
             dtype: DTypeLike = None) -> Tensor:
    """Pearson correlation coefficients of the variables in the rows of ``x`` and ``y``
    (numpy.corrcoef).

    :math:`R_{ij} = C_{ij} / \\sqrt{C_{ii} C_{jj}}` with :math:`C` from :func:`cov`,
    clipped to :math:`[-1, 1]` (the real and imaginary parts), as NumPy.

    Parameters
    ----------
    x : Tensor or array_like, shape (N, K) or (K,)
        The variables (rows) and their observations (columns).
    y : Tensor, array_like or None, default None
        More variables, in ``x``'s layout.
    rowvar : bool, default True
        Whether the variables are the rows (True) or the columns (False).
    dtype : dtype or None, default None
        The result dtype; None: float64 or the promotion of the inputs with it.

    Returns
    -------
    Tensor, shape (N, N)
        The correlation matrix (0-d for a single variable: 1, or NaN if it is constant).

    Raises
    ------
    ValueError
        If ``x`` or ``y`` has more than two dimensions.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order (composed
    of differentiable ops; zero where the clip is active).

    See Also
    --------
    numpy.corrcoef, cov

    Examples
    --------
    >>> tf.corrcoef(tf.asarray([[1.0, 2.0, 3.0], [2.0, 4.0, 7.0]]))
    tensor([[1.        , 0.99339927],
            [0.99339927, 1.        ]])
    """
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim == 0:
        return c / c
    d = sqrt(real(diagonal(c)))
    c = c / expand_dims(d, 1)
    c = c / expand_dims(d, 0)
    if c.dtype.kind == "c":
        return (clip(real(c), -1, 1) + multiply(clip(imag(c), -1, 1), 1j)).astype(c.dtype)
    return clip(c, -1, 1)


# -- counting: bincount, histogram --------------------------------------------------------

def bincount(x: ArrayLike, weights: ArrayLike | None = None, minlength: int = 0) -> Tensor:
    """Number of occurrences of each value in a non-negative integer tensor
    (numpy.bincount).

    Entry ``i`` counts the elements equal to ``i`` (with ``weights``: sums their
    weights).  The length is ``max(max(x) + 1, minlength)``, so it depends on the data:
    ``max(x)`` is read back to the host, and the function cannot be traced with an
    abstract ``x``.

    Parameters
    ----------
    x : Tensor or array_like, shape (N,)
        Non-negative integers (bool is taken as 0 and 1).
    weights : Tensor, array_like or None, default None
        One real weight per element of ``x``.
    minlength : int, default 0
        The least length of the result.

    Returns
    -------
    Tensor, shape (max(max(x) + 1, minlength),)
        int64 counts, or float64 sums of the weights (the device's default float).

    Raises
    ------
    ValueError
        If ``x`` is not 1-D or has negative values, ``minlength`` is negative, or
        ``weights`` does not have ``x``'s shape.
    TypeError
        If ``x`` is not integer or bool, or ``weights`` is complex.

    Notes
    -----
    Differentiable: in ``weights`` yes, forward and reverse, to any order (a
    ``scatter_add`` of the weights); no in ``x`` (integer input, integer counts).

    See Also
    --------
    numpy.bincount, histogram, unique_counts

    Examples
    --------
    >>> tf.bincount(tf.asarray([0, 1, 1, 3]))
    tensor([1, 2, 0, 1])
    >>> tf.bincount(tf.asarray([0, 1, 1]), weights=[0.5, 1.0, 2.0], minlength=4)
    tensor([0.5, 3. , 0. , 0. ])
    """
    x = to_tensor(x)
    if x.ndim != 1:
        raise ValueError("tenferro.bincount: x must be 1-dimensional, got shape %s" % (x.shape,))
    if x.dtype.kind not in "biu":
        raise TypeError("tenferro.bincount: cannot cast x of dtype %s to int64 according to "
                        "the rule 'safe'" % x.dtype)
    minlength = int(minlength.__index__() if hasattr(minlength, "__index__") else minlength)
    if minlength < 0:
        raise ValueError("tenferro.bincount: 'minlength' must not be negative, got %d"
                         % minlength)
    if x.dtype != _dtypes.int64:
        x = astype(x, _dtypes.int64)
    if weights is None and plain(x, bincount_p):
        return bind(bincount_p, (x,), {"minlength": minlength})
    if x.size and int(_host(_min(x))) < 0:
        raise ValueError("tenferro.bincount: x must have no negative elements")
    n = max(int(_host(_max(x))) + 1 if x.size else 0, minlength)
    if weights is None:
        values = _ones(x)
    else:
        values = _on("bincount", weights, x)
        if values.dtype.kind == "c":
            raise TypeError("tenferro.bincount: cannot cast complex weights to %s"
                            % _float_for(x))
        values = astype(values, _float_for(x))
        if values.shape != x.shape:
            raise ValueError("tenferro.bincount: weights of shape %s do not match x of "
                             "shape %s" % (values.shape, x.shape))
    return scatter_add((n,), x, values, 0)


def _outer_edges(a, range):
    if range is not None:
        first, last = range
        if first > last:
            raise ValueError("tenferro.histogram: max must be larger than min in range "
                             "parameter, got %r" % (tuple(range),))
        if not (np.isfinite(first) and np.isfinite(last)):
            raise ValueError("tenferro.histogram: supplied range of [%s, %s] is not finite"
                             % (first, last))
    elif a.size == 0:
        first, last = 0, 1
    else:
        first, last = _host(_min(a)), _host(_max(a))
        if not (np.isfinite(first) and np.isfinite(last)):
            raise ValueError("tenferro.histogram: autodetected range of [%s, %s] is not "
                             "finite" % (first, last))
    if first == last:
        first, last = first - 0.5, last + 0.5
    return first, last


def _bin_edges(a, bins, range):
    """(bin edges as a host array, whether NumPy computed them: equal-width bins)."""
    if isinstance(bins, str):
        raise NotImplementedError("tenferro.histogram: bins=%r (an estimator name) is not "
                                  "supported; give a number of bins or the edges" % bins)
    if np.ndim(bins) == 0:
        try:
            nb = int(bins.__index__())
        except AttributeError:
            raise TypeError("tenferro.histogram: `bins` must be an integer or an array, got "
                            "%r" % (bins,)) from None
        if nb < 1:
            raise ValueError("tenferro.histogram: `bins` must be positive, when an integer")
        first, last = _outer_edges(a, range)
        bin_type = np.result_type(first, last, np.empty(0, a.dtype))
        if np.issubdtype(bin_type, np.integer):
            bin_type = np.result_type(bin_type, float)
        edges = np.linspace(first, last, nb + 1, endpoint=True, dtype=bin_type)
        if np.any(edges[:-1] >= edges[1:]):
            raise ValueError("tenferro.histogram: too many bins for data range; cannot create "
                             "%d finite-sized bins" % nb)
        return edges, (first, last)
    edges = bins.detach().to("cpu").numpy() if hasattr(bins, "detach") else np.asarray(bins)
    if edges.ndim != 1:
        raise ValueError("tenferro.histogram: `bins` must be 1d, when an array")
    if np.any(edges[:-1] > edges[1:]):
        raise ValueError("tenferro.histogram: `bins` must increase monotonically, when an "
                         "array")
    return edges, None


def _equal_width_positions(v, edges, first, last, nb):
    """The bins of ``v`` among ``nb`` equal-width ``edges`` from ``first`` to ``last``,
    NumPy's way: ``(v - first) / (last - first) * nb`` truncated, then corrected by one
    against the edges (two gathers, where a search would take ``log2(nb)``)."""
    from .elementwise import clip, greater_equal as ge, less, not_equal

    if np.issubdtype(np.asarray(first).dtype, np.integer):
        denom = int(last) - int(first)              # (NumPy's unsigned subtraction)
    else:
        denom = np.subtract(last, first).item()     # rounded in first's and last's dtype
    f = (v - np.asarray(first).item()) / denom * nb
    idx = clip(astype(f, _dtypes.int64), 0, nb - 1)  # (the values kept are in [0, nb])
    idx = where(less(v, take_in_range(edges, idx)), idx - 1, idx)
    idx = clip(idx, 0, nb - 1)
    up = logical_and(ge(v, take_in_range(edges, idx + 1)), not_equal(idx, nb - 1))
    return where(up, idx + 1, idx)


def histogram(a: ArrayLike, bins: Any = 10, range: tuple[float, float] | None = None,
              density: bool | None = None,
              weights: ArrayLike | None = None) -> tuple[Tensor, Tensor]:
    """Histogram of the flattened ``a``: counts per bin and the bin edges
    (numpy.histogram).

    ``bins`` equal-width bins over ``range`` (default: ``a``'s minimum and maximum, read
    back to the host), or the given increasing edges.  Bins are half-open,
    ``[edge_i, edge_{i+1})``, but the last, which is closed; values outside the range
    (and NaN) are not counted.  Unlike NumPy, the string estimators (``bins="auto"``,
    ...) are not supported.

    Parameters
    ----------
    a : Tensor or array_like
        The data (flattened); real.
    bins : int or sequence of scalars, default 10
        The number of equal-width bins, or the bin edges (increasing).
    range : tuple of two floats or None, default None
        The lower and upper edge for equal-width bins; None: ``(a.min(), a.max())``.
    density : bool or None, default None
        Return the probability density (count / total / bin width, integrating to 1)
        instead of the counts.
    weights : Tensor, array_like or None, default None
        One weight per element of ``a``, summed per bin instead of counting.

    Returns
    -------
    hist : Tensor, shape (nbins,)
        int64 counts, the sums of ``weights`` in their dtype, or the density (float64).
    bin_edges : Tensor, shape (nbins + 1,)
        The edges (float64 for equal-width bins, the given edges' dtype otherwise).

    Raises
    ------
    TypeError
        If ``a`` is complex or ``bins`` is neither an int nor a sequence.
    ValueError
        If ``bins`` is not positive or not increasing, ``range`` is empty or not finite,
        or ``weights`` does not have ``a``'s shape.
    NotImplementedError
        If ``bins`` is a string (an estimator name).

    Notes
    -----
    Differentiable: in ``weights`` yes, forward and reverse, to any order (a
    ``scatter_add`` of the weights into the bins); no in ``a`` (the counts are piecewise
    constant in the data).

    See Also
    --------
    numpy.histogram, bincount, digitize

    Examples
    --------
    >>> hist, edges = tf.histogram(tf.asarray([1.0, 2.0, 2.5, 4.0]), bins=3)
    >>> hist
    tensor([1, 2, 1])
    >>> edges
    tensor([1., 2., 3., 4.])
    """
    a = reshape(to_tensor(a), (-1,))
    if a.dtype.kind == "c":
        raise TypeError("tenferro.histogram: complex input is not supported (no ordering)")
    if weights is not None:
        weights = _on("histogram", weights, a)
        weights = reshape(weights, (-1,))
        if weights.shape != a.shape:
            raise ValueError("tenferro.histogram: weights should have the same shape as a")
    host_edges, uniform = _bin_edges(a, bins, range)
    nb = host_edges.shape[0] - 1
    if weights is None and uniform is not None and a.dtype.kind in "iuf" \
            and plain(a, histogram_counts_p):
        n = bind(histogram_counts_p, (a,), {"bins": nb, "range": uniform})
        return _histogram_result(n, host_edges, a, density)
    # compared in NumPy's dtype: the edges' for equal-width bins, else the promoted one
    cmp = _float_here(np.result_type(host_edges.dtype, a.dtype) if uniform is None
                else host_edges.dtype, a)
    edges = asarray(host_edges.astype(cmp, copy=False), device=a._device)
    v = astype(a, cmp)
    lo, hi = (host_edges[0], host_edges[-1]) if uniform is None else uniform
    if nb:   # (values outside [lo, hi], NaN included, go to an extra bin, then dropped)
        keep = logical_and(greater_equal(v, np.asarray(lo).item()),
                           less_equal(v, np.asarray(hi).item()))
        pos = count_le(edges[1:-1], v) if uniform is None else \
            _equal_width_positions(v, edges, lo, hi, nb)     # (the last bin closed)
        idx = where(keep, pos, nb)
    else:
        idx = zeros(a.shape, dtype=_dtypes.int32, device=a._device)
    n = scatter_add((nb + 1,), idx, _ones(a) if weights is None else weights, 0)[:nb]
    return _histogram_result(n, host_edges, a, density)


def _histogram_result(n, host_edges, a, density):
    """(counts ``n``, or the density from them, and the edges on ``a``'s device)."""
    out_edges = asarray(host_edges.astype(_float_here(host_edges.dtype, a)), device=a._device)
    if density:
        db = astype(asarray(np.diff(host_edges), device=a._device), _float_for(a))
        n = astype(n, _dtypes.result_type(n.dtype, _float_for(a)))
        return n / db / _sum(n), out_edges
    return n, out_edges
