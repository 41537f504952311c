"""Realization: the pending graph of some lazy tensors becomes one compiled program.

:func:`realize_entries` takes entries to compute and schedules, per device:

* the outputs: the entries asked for, every live pending entry whose value the same
  operations compute (computed once, now, rather than again later), and the values of
  that subgraph other pending entries still read (the "frontier"; kept, so that what
  they share is not computed twice);
* a lazy view (reshape, transpose, basic indexing, ...) is not a program output: its
  source is, and the view is then taken eagerly of the realized buffer, so that views
  share memory with what they view, as eagerly made ones do;
* the cache key of the graph's structure (each operation's primitive, parameters and
  sources; the inputs' shapes and dtypes; small CPU constants by value; the device;
  the compiler passes and rewrite rules in force), so that running the same script
  again compiles nothing; the program comes from :func:`tenferro.compile` (the
  default passes: folding, simplification, CSE, DCE, fusion; buffer reuse);
* after the run: each entry's buffer is written (once), and every live entry's graph
  is rewritten to read the realized values (``apply_map_to_tensors``).
"""
from __future__ import annotations

import collections
import threading

import numpy as np

from .. import _primitive, _versions
from .._ir import Graph, Node, Var
from .._tensor import Tensor, _wrap
from .._tree import tree_flatten
from ..graph import compile as _compile, passes as _passes, rewrite as _rewrite
from ..graph.jit import _static_key
from ..graph.trace import TensorSpec
from ._registry import LazyValue, apply_map_to_tensors, live_tensors

__all__ = ["realize_entries", "reads", "cache_info", "cache_clear", "last_program",
           "MAXSIZE"]

#: the number of compiled programs kept (least recently used first out)
MAXSIZE = 128
# CPU constants up to this many elements are part of the key by value (and constants
# of the program: the compiler folds and simplifies with them); others are inputs
CONST_LIMIT = 16

_lock = threading.RLock()   # one realization at a time (buffers are written once)
_cache = collections.OrderedDict()
_stats = {"hits": 0, "misses": 0, "uncached": 0}
_last = [None]


class _Realized(Tensor):
    """A realized value as a graph source: always a program input, never a constant
    keyed by value (it changes from one realization to the next)."""
    __slots__ = ()


def realize_entries(entries):
    """Compute the pending ``entries`` (and what is scheduled with them)."""
    with _lock:
        todo = [e for e in entries if e.buffer is None]
        if not todo:
            return
        st = _primitive.state
        saved, st.lazy = st.lazy, None   # eager here: folding, views, device-free prims
        try:
            devices = {}
            for e in todo:
                devices.setdefault(e.device, []).append(e)
            for dev, group in devices.items():
                _realize(dev, group)
        finally:
            st.lazy = saved


def _realize(dev, targets):
    live = [e for e in live_tensors(pending_only=True) if e.device is dev]
    owners = collections.defaultdict(list)
    for e in live:
        owners[id(e.value)].append(e)
    roots = []
    for e in targets:
        if isinstance(e.value, LazyValue):
            roots.append(e.value)
        else:   # substituted by a concrete tensor (apply_map_to_tensors)
            e.set_buffer(e.value._data)
    if not roots:
        return
    order, inside = _schedule(roots)
    wanted = {id(v): v for v in roots}
    for e in live:
        v = e.value
        if isinstance(v, LazyValue) and id(v.op) in inside:
            wanted.setdefault(id(v), v)
    for v in _frontier([e.value for e in live if isinstance(e.value, LazyValue)
                        and id(e.value.op) not in inside], inside):
        wanted.setdefault(id(v), v)
    views = dev.driver.view_ops
    outs = {}
    for v in wanted.values():
        while isinstance(v, LazyValue) and v.op.prim.name in views and len(v.op.srcs) == 1:
            v = v.op.srcs[0]     # a view: taken of its realized source afterwards
        if isinstance(v, LazyValue):
            outs.setdefault(id(v), v)
    same = len(outs) == len(roots) and all(id(v) in outs for v in roots)
    outs = list(outs.values())
    results = dict(zip([id(v) for v in outs], _run(dev, outs, order if same else None))) \
        if outs else {}

    def get(v):
        if not isinstance(v, LazyValue):
            return v
        t = results.get(id(v))
        if t is None:   # a view of a realized value, taken eagerly
            op = v.op
            t = _primitive.bind(op.prim, (get(op.srcs[0]),), op.params)
            t.__class__ = _Realized
            results[id(v)] = t
        return t

    becomes = {}
    for v in wanted.values():
        t = get(v)
        for e in owners.get(id(v), ()):
            if e.buffer is None:
                e.set_buffer(t._data)
                e.value = t
    rest = [e for e in live if e.buffer is None]
    if rest:   # pending graphs that may read what was computed now read its buffer
        for v in list(wanted.values()) + outs:
            becomes[v] = results[id(v)]
        apply_map_to_tensors(becomes, rest)


def _schedule(roots):
    """(the operations computing ``roots``, in topological order; their ids)."""
    order, seen = [], set()
    stack = [(v.op, False) for v in reversed(roots)]
    while stack:
        op, expanded = stack.pop()
        if expanded:
            order.append(op)
            continue
        if id(op) in seen:
            continue
        seen.add(id(op))
        stack.append((op, True))
        for s in reversed(op.srcs):
            if type(s) is LazyValue and id(s.op) not in seen:
                stack.append((s.op, False))
    return order, seen


def _sources(values, stop=frozenset()):
    """Every source the operations computing ``values`` read, walking down the graph
    but not into the operations whose ids are in ``stop``."""
    seen = set()
    stack = [v.op for v in values]
    while stack:
        op = stack.pop()
        if id(op) in seen:
            continue
        seen.add(id(op))
        for s in op.srcs:
            if isinstance(s, LazyValue) and id(s.op) not in stop:
                stack.append(s.op)
            yield s


def _frontier(values, inside):
    """The values computed by operations in ``inside`` that the graphs of ``values``
    (outside it) read."""
    return list({id(s): s for s in _sources(values, inside)
                 if isinstance(s, LazyValue) and id(s.op) in inside}.values())


def reads(values, data):
    """Whether the graphs of ``values`` read memory the device array ``data`` spans:
    host arrays by their address ranges (two arrays over one buffer need not share a
    base object: two ``from_dlpack`` or ``frombuffer`` calls), others by their root."""
    return any(not isinstance(s, LazyValue) and _overlaps(s._data, data)
               for s in _sources(values))


def _overlaps(a, b):
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return np.may_share_memory(a, b)
    return _versions._root(a) is _versions._root(b)


# -- the program: key, graph, cache, run ---------------------------------------------------

def _const_key(t, dev):
    """The key of source ``t`` as a constant (by value), or None for an input."""
    a = t._data
    if type(t) is _Realized or dev.type != "cpu" or a.size > CONST_LIMIT:
        return None
    return ("c", a.dtype, a.shape, a.tobytes())   # (tobytes: C order, of any strides)


def _params_key(params):
    """The key of a node's parameters: dtypes, ints, strings and None as they are,
    anything else by :func:`~tenferro.graph.jit._static_key` (floats by their bits,
    bools apart from ints); in the order given (another order only misses)."""
    return tuple([(k, v if type(v) in _PLAIN or isinstance(v, np.dtype)
                   else _static_key(v)) for k, v in params.items()])


_PLAIN = (int, str, type(None))


def _key(dev, order, outs):
    """(the cache key of the graph of ``order`` with outputs ``outs``, or None when a
    parameter is not hashable; the inputs, in order; their positions by id)."""
    index, inputs, where, parts = {}, [], {}, []
    cacheable = True
    for k, op in enumerate(order):
        index[id(op)] = k
        refs = []
        for s in op.srcs:
            if type(s) is LazyValue:
                refs.append((index[id(s.op)], s.index))
                continue
            c = _const_key(s, dev)
            if c is None:
                j = where.get(id(s))
                if j is None:
                    j = where[id(s)] = len(inputs)
                    inputs.append(s)
                c = ("i", j, s.shape, s.dtype)
            refs.append(c)
        try:
            params = _params_key(op.params)
        except TypeError:
            cacheable = False
            params = None
        parts.append((op.prim, params, tuple(refs)))
    if not cacheable:
        return None, inputs, where
    key = (dev, _passes.lookup_passes(), tuple(_rewrite._RULES.items()), tuple(parts),
           tuple((index[id(v.op)], v.index) for v in outs))
    return key, inputs, where


def _graph(dev, order, outs, inputs, where):
    in_vars = [Var(t.shape, t.dtype) for t in inputs]
    env = {}
    nodes = []
    for op in order:
        ins = []
        for s in op.srcs:
            if isinstance(s, LazyValue):
                ins.append(env[(id(s.op), s.index)])
            elif id(s) in where:
                ins.append(in_vars[where[id(s)]])
            else:   # a small constant, copied: the program owns it
                ins.append(_wrap(np.array(s._data, copy=True), dev))
        vs = [Var(shape, dtype) for shape, dtype in op.avals]
        for i, v in enumerate(vs):
            env[(id(op), i)] = v
        nodes.append(Node(op.prim, dict(op.params), ins, vs))
    out_vars = [env[(id(v.op), v.index)] for v in outs]
    return Graph([TensorSpec(t.shape, t.dtype, dev) for t in inputs], in_vars, nodes,
                 out_vars, tree_flatten(out_vars)[1], "lazy", dev)


def _program(dev, order, outs):
    """(the compiled program for these operations and outputs, its inputs)."""
    key, inputs, where = _key(dev, order, outs)
    if key is not None:
        prog = _cache.get(key)
        if prog is not None:
            _stats["hits"] += 1
            _cache.move_to_end(key)
            return prog, inputs
    prog = _compile(_graph(dev, order, outs, inputs, where))
    if key is None:
        _stats["uncached"] += 1
    else:
        _stats["misses"] += 1
        _cache[key] = prog
        if len(_cache) > MAXSIZE:
            _cache.popitem(last=False)
    return prog, inputs


def _run(dev, outs, order=None):
    """The realized tensors of the values ``outs`` (one program run; ``order``: the
    operations computing them, when known)."""
    if order is None:
        order, _ = _schedule(outs)
    try:
        prog, inputs = _program(dev, order, outs)
        _last[0] = prog
        run = prog._runners.get(dev)   # the inputs are checked by the key already
        res = prog._execute(inputs) if run is None else run(*[t._data for t in inputs])
    except Exception as e:
        names = sorted({op.prim.name for op in order})
        e.add_note("tenferro.lazy: raised while computing %d pending operations (%s)"
                   % (len(order), ", ".join(names[:12]) + (", ..." if len(names) > 12
                                                           else "")))
        raise
    for t in res:
        t.__class__ = _Realized
    return res


def cache_info():
    """(hits, misses, uncached, size, maxsize) of the compiled-program cache."""
    return collections.namedtuple("LazyCacheInfo", "hits misses uncached size maxsize")(
        _stats["hits"], _stats["misses"], _stats["uncached"], len(_cache), MAXSIZE)


def cache_clear():
    """Empty the compiled-program cache (and zero its counters)."""
    with _lock:
        _cache.clear()
        _stats.update(hits=0, misses=0, uncached=0)


def last_program():
    """The program of the last realization (None before any): to inspect what the
    compiler made of a script (``.graph``, fused groups, ``memory_plan()``)."""
    return _last[0]

