"""The runtime's cache store (tenferro-rs's ``with_extension_caches_mut``): every cache
tenferro keeps, by name, with its limit and statistics, cleared together.

* ``extension_cache(name, maxsize=256)``: a bounded LRU mapping owned by the runtime,
  for extensions (linalg's, a user's derived data): the same object for the same
  name, visible in ``cache_stats()``, emptied by ``clear_caches()``.
* ``memoize(name, maxsize)``: ``functools.lru_cache`` (C speed) registered under
  ``name``: what tenferro's own modules use for derived values (kernel sources, masks).
* ``register(name, info, clear)`` / ``track(group, obj)``: caches kept by their
  owners (einsum's plans, each ``jit`` function's programs, the CPU buffer cache)
  report here; the owner keeps its own lookup code and invalidation rules.

A cache holds only what can be recomputed from its key: clearing one at any moment
changes no result, only the time of the next call.  At the vocabulary layer (L1), so
the drivers, the ops, the compiler and the extensions all reach it.
"""
from __future__ import annotations

import collections
import functools
import threading
import weakref
from typing import Any, Callable

__all__ = ["CacheStats", "LRUCache", "extension_cache", "memoize", "register", "track",
           "cache_stats", "clear_caches"]


class CacheStats(collections.namedtuple("CacheStats", "hits misses size maxsize unit")):
    """One cache's statistics: lookups found and not found (None where the cache does
    not count them: its lookups are on the fastest paths), current size and limit
    (``maxsize`` None: unbounded) in ``unit`` ("entries" or "bytes")."""


_lock = threading.Lock()
_store: dict[str, tuple[Callable[[], CacheStats], Callable[[], None]]] = {}
_groups: dict[str, weakref.WeakSet] = {}
_extensions: dict[str, LRUCache] = {}
_MISSING = object()


class LRUCache:
    """A bounded, thread-safe mapping that forgets its least recently used entry when
    full (``maxsize`` 0: stores nothing).  ``get`` and ``[]`` count hits and misses;
    ``in``, ``len`` and iteration do not."""

    def __init__(self, name: str, maxsize: int = 256):
        self.name = name
        self._data: collections.OrderedDict = collections.OrderedDict()
        self._lock = threading.RLock()
        self.hits = self.misses = self.evictions = 0
        self.maxsize = _check_maxsize(name, maxsize)

    def get(self, key: Any, default: Any = None) -> Any:
        with self._lock:
            v = self._data.get(key, _MISSING)
            if v is _MISSING:
                self.misses += 1
                return default
            self.hits += 1
            self._data.move_to_end(key)
            return v

    def __getitem__(self, key):
        v = self.get(key, _MISSING)
        if v is _MISSING:
            raise KeyError(key)
        return v

    def __setitem__(self, key, value):
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            self._evict()

    def __delitem__(self, key):
        with self._lock:
            del self._data[key]

    def __contains__(self, key):
        return key in self._data

    def __len__(self):
        return len(self._data)

    def __iter__(self):
        with self._lock:
            return iter(list(self._data))

    def setdefault(self, key, make: Callable[[], Any]) -> Any:
        """The value under ``key`` (a hit), else ``make()`` stored there (a miss)."""
        v = self.get(key, _MISSING)
        if v is _MISSING:
            v = make()
            self[key] = v
        return v

    def resize(self, maxsize: int) -> None:
        with self._lock:
            self.maxsize = _check_maxsize(self.name, maxsize)
            self._evict()

    def _evict(self):
        while len(self._data) > self.maxsize:
            self._data.popitem(last=False)
            self.evictions += 1

    def clear(self) -> None:
        """Forget every entry and reset the statistics."""
        with self._lock:
            self._data.clear()
            self.hits = self.misses = self.evictions = 0

    def stats(self) -> CacheStats:
        return CacheStats(self.hits, self.misses, len(self._data), self.maxsize, "entries")

    def __repr__(self):
        return "<tenferro LRUCache %r: %d/%d entries>" % (self.name, len(self), self.maxsize)


def _check_maxsize(name, maxsize):
    if not isinstance(maxsize, int) or isinstance(maxsize, bool) or maxsize < 0:
        raise ValueError("tenferro.extension_cache(%r): maxsize must be an int >= 0, got %r"
                         % (name, maxsize))
    return maxsize


def extension_cache(name: str, maxsize: int = 256) -> LRUCache:
    """The runtime's LRU cache called ``name``, for extensions.

    As tenferro-rs's ``with_extension_caches_mut``.

    A bounded, thread-safe mapping that forgets its least recently used entry when
    full: the same object for the same name, listed by :func:`cache_stats` and emptied
    by :func:`clear_caches`.  Keep in it only what can be recomputed from its key
    (plans, derived matrices): clearing it at any moment must change no result.
    ``cache.setdefault(key, make)`` returns the value under ``key``, else stores
    ``make()`` there.

    Parameters
    ----------
    name : str
        The cache's name (e.g. ``"mylib.plans"``).
    maxsize : int, default 256
        The number of entries kept; made with it on first use, a later call with
        another ``maxsize`` resizes it.

    Returns
    -------
    LRUCache
        The cache (``get``, ``setdefault``, ``[]``, ``in``, ``len``, ``clear``,
        ``stats``).

    Raises
    ------
    TypeError
        If ``name`` is not a non-empty string.
    ValueError
        If ``maxsize`` is not an int >= 0, or ``name`` is one of tenferro's own caches.

    See Also
    --------
    cache_stats, clear_caches

    Examples
    --------
    >>> cache = tf.extension_cache("mylib.squares", maxsize=2)
    >>> cache.setdefault(3, lambda: 3 ** 2), cache.setdefault(3, lambda: 0)
    (9, 9)
    >>> cache.stats()
    CacheStats(hits=1, misses=1, size=1, maxsize=2, unit='entries')
    >>> cache.clear()
    """
    if not isinstance(name, str) or not name:
        raise TypeError("tenferro.extension_cache: name must be a non-empty str, got %r"
                        % (name,))
    with _lock:
        cache = _extensions.get(name)
        if cache is None:
            if name in _store:
                raise ValueError("tenferro.extension_cache: %r is a cache of tenferro's "
                                 "own, not an extension cache" % name)
            cache = _extensions[name] = LRUCache(name, maxsize)
            _store[name] = (cache.stats, cache.clear)
            return cache
    if maxsize != cache.maxsize:
        cache.resize(maxsize)
    return cache


def register(name: str, info: Callable[[], Any], clear: Callable[[], None],
             unit: str = "entries") -> None:
    """Report a cache kept elsewhere: ``info()`` gives its hits, misses, size and
    maxsize (attributes, as ``functools.lru_cache``'s ``cache_info()``, or dict keys),
    ``clear()`` empties it."""
    def stats():
        i = info()
        if isinstance(i, CacheStats):
            return i
        get = i.get if isinstance(i, dict) else lambda k: getattr(i, k)
        return CacheStats(get("hits"), get("misses"), get("currsize") if hasattr(
            i, "currsize") else get("size"), get("maxsize"), unit)
    with _lock:
        _store[name] = (stats, clear)


def memoize(name: str, maxsize: int | None = 128) -> Callable[[Callable], Callable]:
    """``functools.lru_cache(maxsize)`` registered in the store as ``name``."""
    def decorate(fn):
        cached = functools.lru_cache(maxsize=maxsize)(fn)
        register(name, cached.cache_info, cached.cache_clear)
        return cached
    return decorate


def track(group: str, obj: Any = None) -> None:
    """Add ``obj`` (with ``cache_info()`` and ``cache_clear()``, held weakly) to the
    caches reported together as ``group`` (e.g. every ``jit`` function's programs:
    their statistics summed, ``maxsize`` the sum of theirs).  Without ``obj``: the
    group is listed, empty until objects join."""
    with _lock:
        members = _groups.get(group)
        if members is None:
            members = _groups[group] = weakref.WeakSet()

            def stats():
                infos = [o.cache_info() for o in list(members)]
                return CacheStats(sum(i.hits for i in infos), sum(i.misses for i in infos),
                                  sum(i.size for i in infos),
                                  sum(i.maxsize for i in infos), "entries")

            def clear():
                for o in list(members):
                    o.cache_clear()

            _store[group] = (stats, clear)
        if obj is not None:
            members.add(obj)


def cache_stats() -> dict[str, CacheStats]:
    """The statistics of every cache tenferro keeps, by name.

    tenferro's own (einsum plans, jit programs, the CPU buffer cache, drivers' kernel
    caches) and the extensions' (:func:`extension_cache`), of the drivers and
    extensions loaded so far.  ``show_config()`` prints them too.

    Returns
    -------
    dict of str to CacheStats
        Named tuples ``(hits, misses, size, maxsize, unit)``; ``hits`` and ``misses``
        are None where a cache does not count them, ``maxsize`` None where unbounded,
        ``unit`` ``"entries"`` or ``"bytes"``.

    See Also
    --------
    clear_caches, extension_cache

    Examples
    --------
    >>> stats = tf.cache_stats()
    >>> "einsum plans" in stats and "jit programs" in stats
    True
    >>> stats["einsum plans"]._fields
    ('hits', 'misses', 'size', 'maxsize', 'unit')
    """
    with _lock:
        items = sorted(_store.items())
    return {name: stats() for name, (stats, _) in items}


def clear_caches() -> None:
    """Empty every cache tenferro keeps: compiled programs, plans, buffers, kernels.

    The next calls recompute what they need; results are the same.  Frees memory (the
    CPU buffer cache) and forces retracing of ``jit`` functions.

    Returns
    -------
    None

    See Also
    --------
    cache_stats

    Examples
    --------
    >>> f = tf.jit(lambda x: x + 1)
    >>> _ = f(tf.ones(2))
    >>> tf.clear_caches()
    >>> f.cache_info().size
    0
    """
    with _lock:
        clears = [c for _, c in _store.values()]
    for c in clears:
        c()
