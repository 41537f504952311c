"""The bounded LRU cache of einsum plans, keyed by (subscripts, optimize, dtype, device
driver, and each operand's shape, strides and dtype)."""
from __future__ import annotations

import collections

from ... import _caches, _dtypes
from .plan import build_plan, oe_optimize


class EinsumCacheInfo(collections.namedtuple("EinsumCacheInfo", "hits misses size maxsize")):
    """Statistics of the einsum plan cache."""


_cache = collections.OrderedDict()
_stats = {"hits": 0, "misses": 0, "maxsize": 256}
# Bumped by every change to the cache or its order; ``_last`` is the last two-operand
# hit: (epoch, (spec, driver, each operand's (shape, strides, dtype)), plan).  While the epoch is
# unchanged that plan is still cached and the most recent, so a repeat of the call
# skips the key's hashing, the probe and the reordering (each ~200 ns on a 3x3 einsum).
_epoch = 0
_last = None


def einsum_cache_info() -> EinsumCacheInfo:
    """Statistics of the einsum plan cache (as ``functools.lru_cache``'s ``cache_info``).

    Every :func:`tenferro.einsum` call (and :func:`tensordot`, :func:`inner`,
    :func:`kron`, which run on it) looks its plan up under its subscripts, optimize
    strategy, dtype, device driver and each operand's shape, strides and dtype; a
    miss parses the subscripts and runs opt_einsum's path finder.  Calls with an
    optimizer object (which may be stateful) are never cached.  ``tf.show_config()``
    lists this cache among the others.

    Returns
    -------
    EinsumCacheInfo
        A named tuple ``(hits, misses, size, maxsize)``: lookups that found a plan,
        lookups that built one, plans held now, and the bound (256 by default; see
        :func:`einsum_cache_resize`).

    See Also
    --------
    einsum_cache_clear, einsum_cache_resize, functools.lru_cache

    Examples
    --------
    >>> tf.einsum_cache_clear()
    >>> a = tf.ones((2, 2))
    >>> _ = tf.einsum('ij,jk->ik', a, a); _ = tf.einsum('ij,jk->ik', a, a)
    >>> info = tf.einsum_cache_info()
    >>> info.hits, info.misses, info.size
    (1, 1, 1)
    """
    return EinsumCacheInfo(_stats["hits"], _stats["misses"], len(_cache), _stats["maxsize"])


def einsum_cache_clear() -> None:
    """Empty the einsum plan cache and reset its hit and miss counters.

    Later calls plan again; results do not change (a plan only decides the order and
    layout of the work).  Useful before measuring :func:`einsum_cache_info`, or to
    free the plans of many one-off shapes.

    Returns
    -------
    None

    See Also
    --------
    einsum_cache_info, einsum_cache_resize

    Examples
    --------
    >>> tf.einsum_cache_clear()
    >>> tf.einsum_cache_info()
    EinsumCacheInfo(hits=0, misses=0, size=0, maxsize=...)
    """
    global _epoch
    _cache.clear()
    _stats["hits"] = _stats["misses"] = 0
    _epoch += 1


def einsum_cache_resize(maxsize: int) -> None:
    """Bound the einsum plan cache to ``maxsize`` plans (least recently used go first).

    Parameters
    ----------
    maxsize : int
        The most plans kept (the default bound is 256); 0 disables caching, so every
        call plans again.  Plans beyond a smaller bound are dropped at once.

    Returns
    -------
    None

    Raises
    ------
    ValueError
        If ``maxsize`` is negative.
    TypeError
        If ``maxsize`` is not an int (or a number or string ``int()`` takes).

    See Also
    --------
    einsum_cache_info, einsum_cache_clear

    Examples
    --------
    >>> old = tf.einsum_cache_info().maxsize
    >>> tf.einsum_cache_resize(16)
    >>> tf.einsum_cache_info().maxsize
    16
    >>> tf.einsum_cache_resize(old)
    """
    try:
        n = int(maxsize)
    except (TypeError, ValueError):
        raise TypeError("tenferro.einsum_cache_resize: maxsize must be an int, got %r"
                        % (maxsize,)) from None
    if n < 0:
        raise ValueError("tenferro.einsum_cache_resize: maxsize must be >= 0, got %r" % maxsize)
    global _epoch
    _stats["maxsize"] = n
    while len(_cache) > _stats["maxsize"]:
        _cache.popitem(last=False)
    _epoch += 1


def _hit(key):
    """The plan cached under ``key`` (counted as a hit, made the most recent), or None."""
    global _epoch
    plan = _cache.get(key)
    if plan is not None:
        _stats["hits"] += 1
        _epoch += 1
        try:
            _cache.move_to_end(key)
        except KeyError:  # evicted by another thread meanwhile: still a valid plan
            pass
    return plan


def cached_pair_plan(spec, x, y, driver):
    """The cached plan of ``einsum(spec, x, y)`` with the default arguments, for the
    two operands' device arrays ``x`` and ``y`` (the key :func:`cached_plan` files it
    under), or None when there is none yet."""
    global _last
    xs, ys = (x.shape, x.strides, x.dtype), (y.shape, y.strides, y.dtype)
    sig = (spec, driver, xs, ys)
    m = _last
    if m is not None and m[0] == _epoch and m[1] == sig:
        _stats["hits"] += 1
        return m[2]
    try:
        plan = _hit((spec, "auto", None, driver, xs, ys))
    except TypeError:  # an unhashable dtype
        return None
    if plan is not None:
        _last = (_epoch, sig, plan)
    return plan


def cached_plan(spec, ops, optimize, dtype, driver):
    """The cached plan for these operands (and the dtypes to compute in and return)."""
    global _epoch
    datas = [t._data for t in ops]
    key = None
    if optimize.__class__ is str or optimize is True or optimize is False or optimize is None:
        key = (spec, optimize, dtype, driver, *[(x.shape, x.strides, x.dtype) for x in datas])
    elif isinstance(optimize, (list, tuple)):  # an explicit path, as a hashable tuple
        key = (spec, oe_optimize(optimize), dtype, driver,
               *[(x.shape, x.strides, x.dtype) for x in datas])
    # (an optimizer object may be stateful: never cached)
    try:
        plan = _hit(key) if key is not None else None
    except TypeError:  # an unhashable label or dtype: no caching
        key, plan = None, None
    if plan is not None:
        return plan
    _stats["misses"] += 1
    dt = _dtypes.dtype(dtype) if dtype is not None else _dtypes.result_type(*ops)
    # bools sum exactly in int64 (cast back at the end); ints in their own dtype, wrapping
    # as NumPy's einsum does (int32 stays int32: devices without int64 matmul run it)
    work = _dtypes.int64 if dt.kind == "b" else dt
    plan = build_plan(spec, tuple(x.shape for x in datas), tuple(x.strides for x in datas),
                      oe_optimize(optimize), driver, work)
    plan.work, plan.cast = work, (None if dt == work else dt)
    if key is not None and _stats["maxsize"]:
        _epoch += 1
        _cache[key] = plan
        if len(_cache) > _stats["maxsize"]:
            _cache.popitem(last=False)
    return plan


_caches.register("einsum plans", einsum_cache_info, einsum_cache_clear)
