"""Order statistics: ``median``, ``quantile``, ``percentile`` and their NaN-ignoring
versions, with NumPy's semantics (its thirteen ``method``s, ``axis`` tuples,
``keepdims``, result dtypes, NaN and all-NaN behaviour).

The reduced axes are moved to the front and flattened into one, which is sorted (NaNs
last); each quantile is then a gather of one or two order statistics and NumPy's
``_lerp`` between them.  The sort is a gather through ``argsort``'s
permutation and the rest are differentiable ops, so the gradient reaches exactly the
selected (or interpolated) elements.  Sorting runs where the ``argsort`` primitive
does (the CPU and WebGPU; other devices raise ``UnsupportedOperation``).  Outside
autodiff (and where the device has it) a ``partition`` around the positions to be read
replaces the sort, as NumPy's introselect: the same values there, in linear time.

The plain functions use one sample count ``n`` for every slice; the ``nan*`` ones count
the non-NaN elements of each slice, which sort first, so the same index formulas apply
per slice (NumPy's ``_nanquantile_1d`` without its loop over slices).
"""
from __future__ import annotations

import types
import warnings
from typing import TYPE_CHECKING

import numpy as np

from .. import _dtypes
from .._ir import is_abstract
from .._primitive import bind
from .._tensor import Tensor
from ._common import normalize_axes, numel, to_tensor
from ._nan_doc import document
from ._order_cpu import partition_p, plain
from .creation import _default_float, asarray, full
from .elementwise import ceil, floor, isnan, logical_and, logical_not, remainder, \
    round as _round, where
from .indexing import take_in_range
from .nanfunctions import _out, host_any as _host_any
from .reduction import sum as _sum
from .shape import permute_dims, reshape
from .sorting import sort

if TYPE_CHECKING:
    from collections.abc import Callable

    from .._tensor import ArrayLike, AxisLike, Tensor

__all__ = ["median", "quantile", "percentile", "nanmedian", "nanquantile", "nanpercentile"]


def _nan_slices(empty, r):
    """``r`` with NaN where ``empty`` (the all-NaN slices), and one RuntimeWarning per
    such slice, as NumPy's nanmedian/nanquantile give (none while tracing, where the
    values are not known); ``empty`` is a tensor or a host array."""
    if not isinstance(empty, Tensor):
        count = int(np.count_nonzero(empty))
    else:
        count = 0 if is_abstract(empty) else int(_sum(empty).to("cpu").numpy())
    for _ in range(count):
        warnings.warn("All-NaN slice encountered", RuntimeWarning, stacklevel=4)
    return where(empty, float("nan"), r)


def _float_here(dtype, like):
    """``dtype``, but float64 as the default float of ``like``'s device (float32 on a
    device without float64, as NumPy's float64 results are there)."""
    return _default_float(like._device) if dtype == _dtypes.float64 else dtype


# -- the virtual index of each method (Hyndman & Fan; NumPy's _QuantileMethods) -----------

def _hf(alpha, beta):
    """Hyndman & Fan's continuous methods: index ``n q + alpha + q (1 - alpha - beta) - 1``."""
    return lambda n, q, xp: n * q + (alpha + q * (1 - alpha - beta)) - 1


def _discrete(index, take_previous, xp):
    """The order statistic ``floor(index)`` where ``take_previous(gamma, index)``, else
    the next one (clipped at 0), as NumPy's ``_discrete_interpolation_to_boundaries``."""
    previous = xp.floor(index)
    r = xp.where(take_previous(index - previous, index, xp), previous, previous + 1)
    return xp.where(r < 0, 0, r)


# The index formulas run on tensors (``_TENSOR_OPS``) or, with a Python int sample count
# outside autodiff, on the host in NumPy (``np``): the same IEEE operations either way.
_TENSOR_OPS = types.SimpleNamespace(floor=floor, ceil=ceil, round=_round, where=where,
                                    remainder=remainder, logical_and=logical_and)

# name -> (virtual index from (n, q, xp), gamma fix (None: the index is an integer))
_METHODS = {
    "inverted_cdf": (lambda n, q, xp: _discrete(n * q - 1, lambda g, _, xp: g == 0, xp), None),
    "averaged_inverted_cdf": (lambda n, q, xp: n * q - 1,
                              lambda g, _, xp: xp.where(g == 0, 0.5, 1.0)),
    "closest_observation": (
        lambda n, q, xp: _discrete(
            n * q - 1 - 0.5,
            lambda g, i, xp: xp.logical_and(g == 0, xp.remainder(xp.floor(i), 2) == 1), xp),
        None),
    "interpolated_inverted_cdf": (_hf(0, 1), lambda g, _, xp: g),
    "hazen": (_hf(0.5, 0.5), lambda g, _, xp: g),
    "weibull": (_hf(0, 0), lambda g, _, xp: g),
    "linear": (lambda n, q, xp: (n - 1) * q, lambda g, _, xp: g),
    "median_unbiased": (_hf(1 / 3.0, 1 / 3.0), lambda g, _, xp: g),
    "normal_unbiased": (_hf(3 / 8.0, 3 / 8.0), lambda g, _, xp: g),
    "lower": (lambda n, q, xp: xp.floor((n - 1) * q), None),
    "higher": (lambda n, q, xp: xp.ceil((n - 1) * q), None),
    "midpoint": (lambda n, q, xp: 0.5 * (xp.floor((n - 1) * q) + xp.ceil((n - 1) * q)),
                 lambda g, i, xp: xp.where(xp.remainder(i, 1) == 0, 0.0, 0.5)),
    "nearest": (lambda n, q, xp: xp.round((n - 1) * q), None),
}


# -- shared steps -------------------------------------------------------------------------

def _front(name, a, axis):
    """(``a`` with its reduced axes flattened into a leading one, the normalised axes)."""
    a = to_tensor(a)
    axes = normalize_axes(name, axis, a.ndim)
    keep = [i for i in range(a.ndim) if i not in axes]
    if list(axes) + keep != list(range(a.ndim)):
        a = permute_dims(a, tuple(axes) + tuple(keep))
    return reshape(a, (numel(a.shape[:len(axes)]),) + a.shape[len(axes):]), axes


def _keepdims(r, lead, shape, axes, keepdims):
    """``r`` (leading dims ``lead``, then the kept axes) with NumPy's ``keepdims``."""
    if not keepdims:
        return r
    return reshape(r, lead + tuple(1 if i in axes else n for i, n in enumerate(shape)))


def _q_host(name, q, percent):
    """(``q`` as a host array in [0, 1], whether it is a weak Python scalar)."""
    weak = type(q) in (int, float)
    if hasattr(q, "detach"):
        q = q.detach().to("cpu").numpy()
    q = np.true_divide(q, 100) if percent else np.asanyarray(q)
    if q.ndim > 2:
        raise ValueError("tenferro.%s: q must be a scalar or 1d" % name)
    if q.size and not (q.min() >= 0 and q.max() <= 1):
        raise ValueError("tenferro.%s: %s must be in the range [0, %d]"
                         % (name, "Percentiles" if percent else "Quantiles",
                            100 if percent else 1))
    return q, weak


def _order_statistics(flat, n, q, weak, method, name, nan_check):
    """(``flat`` ordered along axis 0, the quantiles ``q`` of its slices, shape
    ``q.shape + flat.shape[1:]``), ``n`` samples per slice (an int, or a tensor of the
    slices' shape); ``nan_check``: the ordered tensor's last row is the sort's too."""
    try:
        index_of, fix = _METHODS[method]
    except KeyError:
        raise ValueError("tenferro.%s: %r is not a valid method; use one of %s"
                         % (name, method, ", ".join(_METHODS))) from None
    rest = flat.shape[1:]
    per_slice = isinstance(n, Tensor)
    host = not per_slice and plain(flat, partition_p)
    xp = np if host else _TENSOR_OPS
    qt = q.reshape((-1,) + (1,) * len(rest))
    if not host:
        qt = asarray(qt, device=flat._device)
    vi = index_of(n.astype(qt.dtype) if per_slice else n, qt, xp)
    last = (n - 1).astype(vi.dtype) if per_slice else n - 1
    if fix is None or (method == "linear" and vi.dtype.kind in "biu"):
        s = _ordered(flat, [vi], nan_check)
        r = _gather(s, vi, rest)
    else:
        prev = xp.floor(vi)
        above, below = vi >= last, vi < 0
        gamma = fix(vi - xp.where(above, -1, xp.where(below, 0, prev)), vi, xp)
        gamma = gamma.astype(vi.dtype)
        nxt = xp.where(above, last, xp.where(below, 0, prev + 1))
        prev = xp.where(above, last, xp.where(below, 0, prev))
        dt = _dtypes.result_type(flat.dtype, 0.5 if weak else gamma.dtype)
        s = _ordered(flat, [prev, nxt], nan_check)
        lo, hi = _gather(s, prev, rest), _gather(s, nxt, rest)
        if _float_here(dt, s) != dt:   # no float64 here: interpolate in the default float
            dt = _float_here(dt, s)
            lo, hi = lo.astype(dt), hi.astype(dt)
        r = _lerp(lo, hi, gamma, dt)
    return s, reshape(r, q.shape + rest)


# Above this many order statistics to pick, a full sort is no dearer than introselect.
_MAX_KTH = 64


def _ordered(flat, positions, last):
    """``flat`` sorted along axis 0, or, outside autodiff where the device has
    ``partition``, only partitioned so that the sorted positions ``positions`` (tensors
    or arrays of indices, as ``_gather`` reads them) and, with ``last``, the last one
    hold the sort's values: introselect instead of a sort, as NumPy's median and
    quantile."""
    m = flat.shape[0]
    tensors = [p for p in positions if isinstance(p, Tensor)]
    if not plain(flat, partition_p) or any(p._ad is not None or p._trace is not None
                                           for p in tensors):
        return sort(flat, axis=0)
    kth = {m - 1} if last else set()
    for p in positions:
        p = (p.numpy() if isinstance(p, Tensor) else np.asarray(p)).ravel()
        kth.update((np.unique(p) if p.size > _MAX_KTH else p).tolist())
    if len(kth) > _MAX_KTH:
        return sort(flat, axis=0)
    # (negative: an all-NaN slice, read at 0)
    kth = sorted({min(max(int(k), 0), m - 1) for k in kth})
    return bind(partition_p, (flat,), {"kth": tuple(kth), "axis": 0})


def _gather(s, index, rest):
    """The order statistics of the ordered ``s`` at ``index`` (a tensor or a host array,
    shaped to broadcast against ``s.shape[1:]``); a negative index (an all-NaN slice of a
    nan* function: n = 0) reads position 0."""
    from .shape import broadcast_to

    shape = index.shape[:1] + rest
    if isinstance(index, Tensor):
        idx = index.astype(_dtypes.int64)
        idx = where(idx < 0, 0, idx)
        if idx.shape != shape:
            idx = broadcast_to(idx, shape)
    else:
        idx = np.broadcast_to(np.maximum(index.astype(np.int64), 0), shape)
        idx = asarray(np.ascontiguousarray(idx), device=s._device)
    return take_in_range(s, idx)


def _lerp(a, b, t, dt):
    """NumPy's ``_lerp``: ``a + (b - a) t``, from ``b``'s side where ``t >= 0.5``, in
    ``dt`` (``b - a`` in their dtype, ``t`` and ``1 - t`` rounded to ``dt`` from their own,
    as NumPy's); ``t`` is a tensor, or a host array (its arithmetic done there)."""
    d = b - a
    return where(t >= 0.5, b - d * (1 - t).astype(dt), a + d * t.astype(dt))


# -- quantile / percentile ----------------------------------------------------------------

def _quantile(name, a, q, axis, method, keepdims, weights, percent, nan):
    a = to_tensor(a)
    if a.dtype.kind == "c":
        raise TypeError("tenferro.%s: a must be an array of real numbers, got %s"
                        % (name, a.dtype))
    qh, weak = _q_host(name, q, percent)
    qh = qh.astype(_float_here(qh.dtype, a), copy=False)
    flat, axes = _front(name, a, axis)
    w = None if weights is None else _sample_weights(name, a, weights, axis, axes, method)
    nan = nan and a.dtype.kind == "f"
    if nan:
        if a.size == 0:    # NumPy answers with nanmean: no q dimensions
            warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=3)
            r = full(flat.shape[1:], float("nan"), dtype=a.dtype, device=a._device)
            return _keepdims(r, (), a.shape, axes, keepdims)
        n = _sum(logical_not(isnan(flat)), axis=0)
    elif flat.shape[0] == 0:
        raise IndexError("tenferro.%s: cannot take a quantile of an empty slice (the reduced "
                         "axes have size 0)" % name)
    else:
        n = flat.shape[0]
    if w is None:
        s, r = _order_statistics(flat, n, qh, weak, method, name,
                                 a.dtype.kind == "f" and not nan)
    else:
        s, r = _weighted(name, flat, w, n, qh, nan)
    if nan:
        r = _nan_slices(n == 0, r)
    elif a.dtype.kind == "f":          # a NaN anywhere in a slice: NaN (sorted last)
        r = where(isnan(s[-1]), s[-1], r)
    return _keepdims(r, qh.shape, a.shape, axes, keepdims)


def weights_along(name, a, w, axis, axes):
    """Weights given along ``axis`` only (``average``'s and the quantiles'), shaped to
    broadcast against ``a``, as NumPy's ``_weights_are_valid``."""
    from ._common import normalize_axis

    if axis is None:
        raise TypeError("tenferro.%s: axis must be specified when shapes of a and weights "
                        "differ" % name)
    given = [normalize_axis(name, ax, a.ndim)
             for ax in (axis if isinstance(axis, (tuple, list)) else (axis,))]
    if w.shape != tuple(a.shape[ax] for ax in given):
        raise ValueError("tenferro.%s: shape of weights %s must be consistent with shape of "
                         "a %s along axis %r" % (name, w.shape, a.shape, axis))
    w = permute_dims(w, tuple(int(i) for i in np.argsort(given)))
    return reshape(w, tuple(n if i in axes else 1 for i, n in enumerate(a.shape)))


def _sample_weights(name, a, weights, axis, axes, method):
    """The quantiles' ``weights`` checked and laid out as ``_front`` lays out ``a``."""
    from .shape import broadcast_to

    if method != "inverted_cdf":
        raise ValueError("tenferro.%s: only method 'inverted_cdf' supports weights, got %r"
                         % (name, method))
    w = to_tensor(weights, device=a._device)
    if w.shape != a.shape:
        w = weights_along(name, a, w, axis, axes)
    if _host_any(w < 0):
        raise ValueError("tenferro.%s: weights must be non-negative" % name)
    return _front(name, broadcast_to(w, a.shape), axis)[0]


def _weighted(name, flat, w, n, q, nan):
    """(sorted samples, weighted ``inverted_cdf`` quantiles): the first sample whose
    share of the cumulative weight reaches ``q``, as NumPy's weighted branch (its
    per-slice ``searchsorted`` as a count of ``cdf < q``)."""
    from .elementwise import less, minimum
    from .reduction import cumsum
    from .sorting import argsort

    perm = argsort(flat, axis=0)
    s, ws = take_in_range(flat, perm), take_in_range(w, perm)
    if nan:        # (NaNs sort last: weightless, they end no slice's cdf early)
        ws = where(isnan(s), 0, ws)
    cdf = cumsum(ws, axis=0, dtype=_default_float(flat._device))
    cdf = cdf / cdf[-1]
    bad = isnan(cdf[-1])
    if _host_any(logical_and(bad, n > 0) if nan else bad):
        raise ValueError("tenferro.%s: weights included NaN, inf or were all zero" % name)
    if q.dtype.kind == "f":
        cdf = cdf.astype(q.dtype)
    cdf = where(cdf == 0, -1, cdf)            # leading zero weights never match q = 0
    rest = flat.shape[1:]
    qt = asarray(q.reshape((-1, 1) + (1,) * len(rest)), device=flat._device)
    idx = _sum(less(reshape(cdf, (1,) + cdf.shape), qt), axis=1)
    idx = minimum(idx, n - 1)
    return s, reshape(_gather(s, idx, rest), q.shape + rest)


def _public(name: str, percent: bool, nan: bool) -> Callable[..., Tensor]:
    """The public function ``name`` (NumPy's signature) around ``_quantile``."""
    def fn(a, q, axis=None, out=None, overwrite_input=False, method="linear",
           keepdims=False, *, weights=None):
        r = _quantile(name, a, q, axis, method, keepdims, weights, percent, nan)
        return _out(name, r, out)
    fn.__name__ = fn.__qualname__ = name
    return document(fn)


# (docstrings: one template with the reductions', _reduction_doc)
quantile = _public("quantile", False, False)
percentile = _public("percentile", True, False)
nanquantile = _public("nanquantile", False, True)
nanpercentile = _public("nanpercentile", True, True)


# -- median -------------------------------------------------------------------------------

def _median(name, a, axis, keepdims, nan):
    a = to_tensor(a)
    flat, axes = _front(name, a, axis)
    if a.dtype.kind in "biu":
        flat = flat.astype(_default_float(a._device))
    rest = flat.shape[1:]
    if flat.shape[0] == 0:   # NumPy: the mean of an empty slice
        warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=3)
        r = full(rest, float("nan"), dtype=flat.dtype, device=a._device)
        return _keepdims(r, (), a.shape, axes, keepdims)
    if nan and a.dtype.kind in "fc":
        n = _sum(logical_not(isnan(flat)), axis=0, keepdims=True)
        if plain(flat, partition_p):
            n = n.numpy()      # (the counts steer the partition: read on the host once)
            lo, hi = (n - 1) // 2, n // 2
        else:
            nf = n.astype(_default_float(a._device))   # (exact: float32 up to 2^24 on WebGPU)
            lo, hi = floor((nf - 1) / 2), floor(nf / 2)
        s = _ordered(flat, [lo, hi], False)
        a_lo, a_hi = _gather(s, lo, rest), _gather(s, hi, rest)
        r = where(lo == hi, a_lo, (a_lo + a_hi) / 2)[0]
        r = _nan_slices(n[0] == 0, r)
    else:
        m = flat.shape[0]
        s = _ordered(flat, [np.array([m // 2 - (m % 2 == 0), m // 2])], a.dtype.kind in "fc")
        r = s[m // 2] if m % 2 else (s[m // 2 - 1] + s[m // 2]) / 2
        if a.dtype.kind in "fc":
            r = where(isnan(s[-1]), s[-1], r)
    return _keepdims(r, (), a.shape, axes, keepdims)


def median(a: ArrayLike, axis: AxisLike = None, out: Tensor | None = None,
           overwrite_input: bool = False, keepdims: bool = False) -> Tensor:
    return _out("median", _median("median", a, axis, keepdims, False), out)


def nanmedian(a: ArrayLike, axis: AxisLike = None, out: Tensor | None = None,
              overwrite_input: bool = False, keepdims: bool = False) -> Tensor:
    return _out("nanmedian", _median("nanmedian", a, axis, keepdims, True), out)


document(median)
document(nanmedian)
