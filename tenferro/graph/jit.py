"""``jit``: trace a function on the first call for each signature, compile it into a
:class:`~tenferro.graph.Program` and cache the program.

The signature decides which calls may share a program, so it must tell apart every
pair of calls that could give different results: non-tensor arguments are keyed by type
and exact value (``0.0`` and ``-0.0`` apart), objects hashed by identity are refused
unless declared static, and the AdContext in force is part of it.
"""
from __future__ import annotations

import collections
import inspect
import itertools
import struct
import threading
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import _caches, _primitive
from .._tensor import Tensor
from .._tree import tree_flatten, tree_unflatten
from .program import compile
from .trace import as_spec, make_graph

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

__all__ = ["jit"]


def _static_key(x):
    """The cache key of a static value: its type and value, floats and complex numbers
    by their bits (``0.0`` and ``-0.0``, NaN payloads apart; a NaN equals itself), the
    items of tuples, lists and dicts likewise; TypeError when ``x`` is not hashable."""
    t = type(x)
    if t is float:
        return t, struct.pack("<d", x)
    if t is complex:
        return t, struct.pack("<dd", x.real, x.imag)
    if t is slice:   # (not hashable before Python 3.12)
        return t, tuple([_static_key(v) for v in (x.start, x.stop, x.step)])
    if isinstance(x, (tuple, list)):
        return t, tuple([_static_key(v) for v in x])
    if t is dict:
        return t, tuple(sorted(((k, _static_key(v)) for k, v in x.items()), key=repr))
    hash(x)
    return t, x


# Leaves jit keys by value without being told: immutable, compared by value.
_VALUE_TYPES = (bool, int, float, complex, str, bytes, type(None), type(Ellipsis), slice,
                np.dtype)


def _is_array(x):
    """Whether pytree leaf ``x`` is a traced input of a jitted function (a Tensor, a
    NumPy array or a NumPy scalar, which is strongly typed as in NumPy 2)."""
    return isinstance(x, (Tensor, np.ndarray, np.generic))


class jit:
    """Compile ``f`` on its first call per signature, cache the program, run it (``jax.jit``).

    On a call with a new signature ``f`` is traced (:func:`make_graph`), compiled
    (:func:`compile`) and the program cached (LRU, ``maxsize``); later calls with the
    same signature run the cached program.  A jitted function is differentiable and
    composes with ``grad``, ``vmap`` and the other transforms.

    The signature is the pytree structure of the positional and keyword arguments; for
    each tensor, NumPy array or NumPy scalar leaf (the traced inputs) its shape, dtype
    and device; every leaf of an immutable value type (Python numbers, strings, None,
    slices, dtypes) by type and value (``1``, ``1.0`` and ``True`` apart, ``0.0`` and
    ``-0.0`` apart): such a leaf is static, as are the arguments named by
    ``static_argnums``/``static_argnames``; and the AdContext in force.  Values ``f``
    closes over are read when it is traced, as in JAX; a closed-over tensor written in
    place afterwards makes the call raise.  ``jit(static_argnums=...)`` without ``f``
    is a decorator.

    Parameters
    ----------
    f : callable, optional
        A function of tensors (and static values) returning a pytree of tensors;
        without it, ``jit(...)`` returns a decorator.
    maxsize : int, default 64
        The number of programs kept (least recently used dropped first).
    passes : sequence of str, optional
        The compiler passes, as for :func:`compile`.
    reuse : bool, default True
        As for :func:`compile`.
    static_argnums : int or sequence of int, default ()
        Positional arguments that are static: hashed into the key, not traced.
    static_argnames : str or sequence of str, default ()
        Keyword arguments that are static.

    Raises
    ------
    TypeError
        If ``f`` is not callable; when called, for a leaf that is neither a tensor nor
        a value type in an argument not declared static.
    ValueError
        When called, if a static argument is not hashable.

    See Also
    --------
    compile, make_graph, vmap

    Examples
    --------
    >>> f = tf.jit(lambda x, s=1.0: (tf.sin(x) * s).sum())
    >>> f(tf.zeros(3)), f(tf.ones(3) * 0.0, 2.0), f(tf.zeros(3))
    (tensor(0.), tensor(0.), tensor(0.))
    >>> f.cache_info()
    CacheInfo(hits=1, misses=2, size=2, maxsize=64)
    >>> print(f.trace(tf.zeros(3), 2.0))
    { lambda a:f64[3] .
        b:f64[3] = sin[out_dtype=float64] a
        c:f64[3] = multiply[out_dtype=float64] b const(2.0)
        d:f64[] = sum[axes=(0,), out_dtype=float64] c
      in (d) }
    >>> g = tf.jit(tf.grad(lambda w: (w ** 2).sum()))
    >>> g(tf.asarray([1.0, 2.0]))
    tensor([2., 4.])
    """

    def __new__(cls, f=None, maxsize=64, passes=None, reuse=True, static_argnums=(),
                static_argnames=()):
        if f is None:   # jit(static_argnums=...) as a decorator
            return lambda g: cls(g, maxsize, passes, reuse, static_argnums, static_argnames)
        return object.__new__(cls)

    def __init__(self, f: Callable[..., Any], maxsize: int = 64, passes: Any = None,
                 reuse: bool = True, static_argnums: int | Sequence[int] = (),
                 static_argnames: str | Sequence[str] = ()) -> None:
        if not callable(f):
            raise TypeError("tenferro.jit: expected a function, got %s" % type(f).__name__)
        self.f = f
        self.maxsize = maxsize
        self.passes = passes
        self.reuse = reuse
        nums = (static_argnums,) if isinstance(static_argnums, int) else static_argnums
        names = (static_argnames,) if isinstance(static_argnames, str) else static_argnames
        nums, names = set(map(int, nums)), set(names)
        try:   # as JAX: a static parameter is static by position and by name
            params = [p for p in inspect.signature(f).parameters.values()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        except (TypeError, ValueError):
            params = []
        for i, p in enumerate(params):
            if p.name in names:
                nums.add(i)
            elif (i in nums or i - len(params) in nums) and p.kind != p.POSITIONAL_ONLY:
                names.add(p.name)
        self.static_argnums, self.static_argnames = tuple(sorted(nums)), tuple(sorted(names))
        self._cache = collections.OrderedDict()
        self._lock = threading.Lock()
        self._fast = None           # (input avals, device, generated run, program)
        self.hits = self.misses = 0
        _caches.track("jit programs", self)   # cache_stats()/clear_caches() see it
        self.__name__ = getattr(f, "__name__", "jit")
        self.__doc__ = getattr(f, "__doc__", None)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        fast = self._fast
        if fast is not None and not kwargs and not _primitive._interpreters and \
                _primitive.state.context is None and len(args) == len(fast[0]):
            # the last call's program, for Tensors outside autograd of its signature
            avals, dev, run, prog = fast
            datas = [x._data for x in args
                     if x.__class__ is Tensor and x._device is dev and x._ad is None]
            if len(datas) == len(avals) and \
                    tuple([(d.shape, d.dtype) for d in datas]) == avals and \
                    not (prog._grad_consts and prog._consts_need_grad()):
                self.hits += 1
                prog.runs += 1
                out = run(*datas)
                return out[0] if prog._single else tree_unflatten(prog.graph.out_tree, out)
        if _primitive.state.interpreters and not kwargs and not self.static_argnums:
            out = _transformed_call(self, args)
            if out is not NotImplemented:
                return out
        prog, flat, plain = self._lookup(args, kwargs)
        out = prog._call_flat(flat)
        self._fast = None
        if plain and args and _primitive.state.context is None:
            dev = args[0]._device
            run = prog._runners.get(dev)
            if run is not None:
                self._fast = (prog._in_avals, dev, run, prog)
        return out

    def _signature(self, args, kwargs):
        """(cache key, the function of the traced inputs, the traced inputs) of a call."""
        static, tracers, leaves_of = [], [], []
        nargs = len(args)
        for where, a in itertools.chain(enumerate(args), sorted(kwargs.items())):
            if where in self.static_argnames or (isinstance(where, int) and (
                    where in self.static_argnums or where - nargs in self.static_argnums)):
                if _is_array(a):
                    raise ValueError("tenferro.jit: static argument %s is a %s; static "
                                     "arguments are hashed into the cache key, tensors "
                                     "and arrays must be traced arguments"
                                     % (_arg_name(where), type(a).__name__))
                try:   # as JAX: the argument itself must be hashable (a list is not)
                    hash(a)
                    static.append((where, _static_key(a)))
                except TypeError as e:
                    raise ValueError("tenferro.jit: static argument %s of type %s is not "
                                     "hashable (%s); static arguments are hashed into the "
                                     "cache key" % (_arg_name(where), type(a).__name__, e)) \
                        from None
                leaves_of.append((where, None, a))
                continue
            flat, tree = tree_flatten(a)
            keys = []
            for x in flat:
                if _is_array(x):
                    spec = x if isinstance(x, Tensor) else as_spec(x)
                    keys.append((spec.shape, spec.dtype, spec.device))
                    tracers.append(x)
                    continue
                if not isinstance(x, _VALUE_TYPES):
                    # an object is hashed by identity: mutated between calls, it would
                    # hit a program traced with its old state (a silent wrong result)
                    raise TypeError(
                        "tenferro.jit: argument %s holds a value of type %s, which jit "
                        "neither traces (tensors, NumPy arrays) nor keys by value (Python "
                        "numbers, strings, None); pass it as a static argument (static_"
                        "argnums/static_argnames; then its hash and equality are the key), "
                        "as a tensor, or close over it" % (_arg_name(where), type(x).__name__))
                keys.append(_static_key(x))
            static.append((where, tree, tuple(keys)))
            leaves_of.append((where, tree, flat))
        key = tuple(static)
        if _primitive.state.context is not None:
            key = (key, _primitive.state.context.key)   # the AD rules traced

        def fn(*xs):
            it = iter(xs)
            pos, kw = [], {}
            for where, tree, flat in leaves_of:
                v = flat if tree is None else tree_unflatten(
                    tree, [next(it) if _is_array(x) else x for x in flat])
                if isinstance(where, int):
                    pos.append(v)
                else:
                    kw[where] = v
            return self.f(*pos, **kw)
        fn.__name__ = self.__name__
        return key, fn, tracers

    def _lookup(self, args, kwargs):
        """(the cached or new Program for a call, its traced inputs, whether the call
        is plain: Tensors only, nothing static, so nothing to flatten)."""
        plain = not kwargs and not self.static_argnums and \
            all(a.__class__ is Tensor for a in args)
        if plain:
            key = tuple([(x._data.shape, x._data.dtype, x._device) for x in args])
            if _primitive.state.context is not None:
                key = (key, _primitive.state.context.key)   # the AD rules traced
            prog = self._cached(key)
            if prog is None:
                prog = self._compile(key, *self._signature(args, kwargs)[1:])
            return prog, args, True
        key, fn, flat = self._signature(args, kwargs)
        prog = self._cached(key)
        if prog is None:
            prog = self._compile(key, fn, flat)
        return prog, flat, False

    def _cached(self, key):
        """The cached program of ``key`` (None: a miss); the cache is shared by threads."""
        with self._lock:
            prog = self._cache.get(key)
            if prog is not None:
                self.hits += 1
                self._cache.move_to_end(key)
            return prog

    def _compile(self, key, fn, flat):
        prog = compile(make_graph(fn, *[as_spec(x) for x in flat]), self.passes, self.reuse)
        with self._lock:
            self.misses += 1
            self._cache[key] = prog
            if len(self._cache) > self.maxsize:
                self._cache.popitem(last=False)
        return prog

    def trace(self, *args, **kwargs):
        """The :class:`Graph` the function traces to for these arguments (before the
        compiler passes; nothing is cached or run)."""
        _, fn, flat = self._signature(args, kwargs)
        return make_graph(fn, *[as_spec(x) for x in flat])

    def lower(self, *args, **kwargs):
        """The compiled :class:`Program` a call with these arguments runs (compiled and
        cached now if needed; nothing is run).  It takes the traced inputs only: the
        tensor and array leaves of the arguments, in order (keyword arguments sorted by
        name)."""
        return self._lookup(args, kwargs)[0]

    def cache_info(self):
        """``(hits, misses, size, maxsize)`` of the program cache, a named tuple."""
        return collections.namedtuple("CacheInfo", "hits misses size maxsize")(
            self.hits, self.misses, len(self._cache), self.maxsize)

    def cache_clear(self):
        """Drop every cached program (the next call traces again) and zero the counts."""
        with self._lock:
            self._cache.clear()
        self._fast = None
        self.hits = self.misses = 0


_caches.track("jit programs")   # listed in cache_stats() before the first jit


def _transformed_call(jitted, args):
    """A call of ``jitted`` inside a transform whose trace takes jitted calls whole (it
    has ``process_jit``: vmap, whose ``vmap(jit(f))`` compiles ``jit(vmap(f))``), when
    that trace is the innermost among the arguments; NotImplemented otherwise (the
    program's nodes then go through ``bind`` one by one)."""
    top = None
    for a in args:
        t = getattr(a, "_trace", None)
        if t is not None and (top is None or t.level > top.level):
            top = t
    if top is None or not hasattr(top, "process_jit"):
        return NotImplemented
    return top.process_jit(jitted, args)


def _arg_name(where):
    return "%d" % where if isinstance(where, int) else repr(where)
