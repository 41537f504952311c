"""Compiled programs (tenferro-rs's GraphExecutor) and ``jit``."""
import collections
import itertools

import numpy as np

from .. import _primitive
from .._errors import DeviceMismatchError, TenferroError
from .._tensor import Tensor, _wrap
from ._fusion import fused_p, run_unfused
from ._graph import Graph, Var, _as_spec, _bind_inputs, _trace
from ._passes import PASSES, _PASS_FNS
from ._tree import tree_flatten, tree_unflatten

__all__ = ["Program", "MemoryPlan", "compile", "jit"]


class Program:
    """A compiled graph: run it with ``program(*inputs)`` as many times as needed.

    With ``reuse`` (the default) a run drops each intermediate value after its last use,
    so that its buffer returns to the allocator, and writes an elementwise result into
    an input that dies at that step when it has the result's shape and dtype (in place,
    where the device's driver allows it: ``Driver.inplace_ops``); ``reuse=False`` keeps
    every intermediate to the end of the run.  :meth:`memory_plan` reports the figures."""

    def __init__(self, graph, passes=PASSES, reuse=True):
        unknown = [p for p in passes if p not in _PASS_FNS]
        if unknown:
            raise ValueError("tenferro.compile: unknown passes %s; available: %s"
                             % (unknown, list(_PASS_FNS)))
        self._ad_graph = None   # the graph before fusion: what a differentiated call runs
        for p in passes:
            if p == "fuse":
                self._ad_graph = graph
            graph = _PASS_FNS[p](graph)
        self.graph = graph
        if self._ad_graph is None:
            self._ad_graph = graph
        self.passes = tuple(passes)
        self.reuse = bool(reuse)
        self.runs = 0
        self._steps = {}   # device -> the executor's plan (see _plan)

    def unsupported(self, device):
        """The primitives of this program the device's driver cannot run."""
        impls = device.driver.implementations
        return sorted({n.prim.name for n in _all_nodes(self._ad_graph)
                       if n.prim.impl is None and n.prim.name not in impls})

    def __call__(self, *args):
        flat, _ = tree_flatten(args)
        if flat and isinstance(flat[0], Tensor) and flat[0]._device not in self._steps:
            missing = self.unsupported(flat[0].device)
            if missing:
                raise TenferroError("tenferro.Program: device %s cannot run %s; nothing "
                                    "was run" % (flat[0].device, ", ".join(missing)))
        self.runs += 1
        if _primitive._interpreters or (_primitive._tape is not None and any(
                isinstance(x, Tensor) and x.requires_grad for x in flat)):
            return self._ad_graph(*args)   # differentiated: every node through bind
        return self._execute(args)

    def _execute(self, args):
        """The executor: the nodes' driver functions on the device arrays, no Tensor or
        dispatch per node (GraphExecutor)."""
        graph = self.graph
        env = _bind_inputs("Program", graph, args)
        dev = next(iter(env.values()))._device if env else None
        for x in env.values():
            if x._device is not dev:
                raise DeviceMismatchError("Program", [y._device for y in env.values()])
        data = {k: x._data for k, x in env.items()}
        steps = self._steps.get(dev)
        if steps is None:
            steps = self._steps[dev] = self._plan(dev)
        for node, fn, keys, consts, donate, free in steps:
            ins = [data[k] if k is not None else c for k, c in zip(keys, consts)]
            if fn is None:   # a device-independent primitive: Tensors in and out
                out = node.prim.impl(*[_wrap(x, dev) for x in ins], **node.params)
                out = tuple(o._data for o in out) if node.prim.multiple_results else out._data
            elif donate is None:
                out = fn(*ins, **node.params)
            else:            # in place: into an input that dies here
                out = fn(*ins, out=ins[donate], **node.params)
            if node.prim.multiple_results:
                for v, o in zip(node.outputs, out):
                    data[id(v)] = o
            else:
                data[id(node.outputs[0])] = out
            for k in free:   # last uses: the buffers go back to the allocator
                del data[k]
        outs = [_wrap(data[id(o)], dev) if isinstance(o, Var) else o for o in graph.outs]
        return tree_unflatten(graph.out_tree, outs)

    def _plan(self, dev):
        """Per node: (node, driver function or None, input keys (None for a constant),
        the constants' device arrays, the input to write the output into (an index, or
        None), the keys of the values whose last use it is) for ``dev``."""
        live = _liveness(self.graph, dev.driver, self.reuse)
        steps = []
        for n, donate, free in zip(self.graph.nodes, live.donate, live.free):
            for i in n.inputs:
                if not isinstance(i, Var) and i._device is not dev:
                    raise DeviceMismatchError("Program (a constant of %s)" % n.prim.name,
                                              [i._device, dev])
            fn = None if n.prim.impl is not None else dev.driver.implementations.get(n.prim.name)
            if fn is None and n.prim is fused_p:
                fn = run_unfused(dev)   # a driver without fused kernels: node by node
            steps.append((n, fn, [id(i) if isinstance(i, Var) else None for i in n.inputs],
                          [None if isinstance(i, Var) else i._data for i in n.inputs],
                          donate, tuple(free)))
        return steps

    def memory_plan(self, device=None):
        """The buffers of one run on ``device`` (by default the device the graph was
        traced for) as a :class:`MemoryPlan`: live bytes per step, the peak, in-place
        steps, and the peak without reuse."""
        from ..devices import device as _device
        if device is None:
            device = self.graph.in_specs[0].device if self.graph.in_specs else "cpu"
        live = _liveness(self.graph, _device(device).driver, self.reuse)
        peak_step = max(range(len(live.bytes)), key=live.bytes.__getitem__, default=None)
        return MemoryPlan(
            tuple(n.prim.name for n in self.graph.nodes), tuple(live.bytes),
            tuple(s for s, d in enumerate(live.donate) if d is not None),
            live.bytes[peak_step] if peak_step is not None else live.input_bytes,
            peak_step, live.input_bytes, live.output_bytes, live.no_reuse_peak)

    def __repr__(self):
        return "Program(%d nodes, passes=%s)\n%s" % (len(self.graph.nodes), self.passes,
                                                    self.graph)


def _all_nodes(graph):
    """The graph's nodes and those of the graphs its nodes apply (checkpoint's)."""
    for n in graph.nodes:
        yield n
        for v in n.params.values():
            if isinstance(v, Graph):
                yield from _all_nodes(v)


class MemoryPlan(collections.namedtuple(
        "MemoryPlan", "ops live_bytes inplace_steps peak_bytes peak_step input_bytes "
                      "output_bytes no_reuse_peak_bytes")):
    """The buffers of one run of a :class:`Program` (``Program.memory_plan``), from
    the shapes and dtypes of its values (constants are not counted).

    * ``ops``: the primitive of each step;
    * ``live_bytes``: per step, the bytes of the buffers alive while it runs (its
      inputs and its output included): the program inputs, and every buffer made
      since that a later step, an output or a live view still uses;
    * ``inplace_steps``: the steps that write their result into an input's buffer
      (``inplace``: how many);
    * ``peak_bytes``, ``peak_step``: the largest ``live_bytes`` and its first step
      (``input_bytes`` and None for a program without steps);
    * ``input_bytes``: the program inputs' bytes;
    * ``output_bytes``: the bytes of the buffers the outputs keep alive, inputs'
      excepted (a view keeps the whole buffer it views);
    * ``no_reuse_peak_bytes``: the peak when every intermediate is kept to the end of
      the run and none is written in place (``reuse=False``).

    A view (``Driver.view_ops``) shares its input's buffer; a device-independent
    primitive (e.g. einsum) may return views of its inputs, so its result is counted
    as a new buffer that also keeps its inputs' buffers alive."""
    __slots__ = ()

    @property
    def inplace(self):
        return len(self.inplace_steps)

    def __str__(self):
        lines = ["MemoryPlan: peak %s at step %s (%s without reuse), inputs %s, "
                 "outputs %s, %d in place" % (
                     _fmt_bytes(self.peak_bytes), self.peak_step,
                     _fmt_bytes(self.no_reuse_peak_bytes), _fmt_bytes(self.input_bytes),
                     _fmt_bytes(self.output_bytes), self.inplace)]
        inplace = set(self.inplace_steps)
        for s, (op, n) in enumerate(zip(self.ops, self.live_bytes)):
            lines.append("  %4d %-24s %12s%s" % (s, op, _fmt_bytes(n),
                                                 "  in place" if s in inplace else ""))
        return "\n".join(lines)

    __repr__ = __str__


def _fmt_bytes(n):
    for unit in ("B", "KiB", "MiB"):
        if n < 1024:
            return ("%d %s" if unit == "B" else "%.1f %s") % (n, unit)
        n /= 1024
    return "%.1f GiB" % n


_Liveness = collections.namedtuple(
    "_Liveness", "free donate bytes input_bytes output_bytes no_reuse_peak")


def _liveness(graph, driver, reuse):
    """The buffers of one run of ``graph`` on a device of ``driver``: per step, the
    keys of the values whose last use it is (``free``; program inputs and outputs
    never), the input to write the output into (``donate``: an index into the node's
    inputs, or None), and the bytes alive while it runs (``bytes``).

    A buffer is the memory of a program input or of a node's new output.  A value
    keeps alive its own buffer or, a view, the buffers of the inputs it views.  A
    buffer dies after the last use of the last value keeping it alive; the inputs'
    and the outputs' never die (no buffer does without ``reuse``).  With ``reuse``, a
    step of ``driver.inplace_ops`` writes into an input that owns its buffer, has the
    output's shape and dtype, is no other input of the step, and whose buffer dies at
    this step (so no live view sees the write)."""
    nodes = graph.nodes
    end = len(nodes)
    last = {}   # id(Var) -> the step of its last use; end: a program input or output
    for s, n in enumerate(nodes):
        for v in n.outputs + [i for i in n.inputs if isinstance(i, Var)]:
            last[id(v)] = s
    for v in graph.in_vars + tuple(o for o in graph.outs if isinstance(o, Var)):
        last[id(v)] = end
    size, born, dies = [], [], []   # per buffer
    bufs, owner = {}, set()          # id(Var) -> its buffers; ids of sole owners

    def nbytes(v):
        return int(np.prod(v.shape, dtype=np.int64)) * v.dtype.itemsize

    def keep(v, bs):
        bufs[id(v)] = bs
        for b in bs:
            dies[b] = max(dies[b], last[id(v)] if reuse else end)

    def new(v, s):
        size.append(nbytes(v))
        born.append(s)
        dies.append(s)
        return (len(size) - 1,)

    for v in graph.in_vars:
        keep(v, new(v, 0))
    input_bytes = no_reuse = sum(size)
    free, donate = [[] for _ in nodes], []
    inplace = driver.inplace_ops if reuse else ()
    for s, n in enumerate(nodes):
        vs = [i for i in n.inputs if isinstance(i, Var)]
        viewed = tuple(sorted({b for v in vs for b in bufs[id(v)]}))
        view = n.prim.impl is None and n.prim.name in driver.view_ops
        d = None
        if n.prim.name in inplace and n.prim.impl is None and not n.prim.multiple_results:
            o = n.outputs[0]
            for j, v in enumerate(n.inputs):
                if (isinstance(v, Var) and id(v) in owner and v.shape == o.shape
                        and v.dtype == o.dtype and dies[bufs[id(v)][0]] == s
                        and not any(u is not v and bufs[id(v)][0] in bufs[id(u)]
                                    for u in vs)):
                    d = j
                    break
        donate.append(d)
        for v in n.outputs:
            if not view:
                no_reuse += nbytes(v)
            if d is not None:
                keep(v, bufs[id(n.inputs[d])])
                owner.add(id(v))
            elif view:
                keep(v, viewed)
            elif n.prim.impl is not None:      # may return (views of) its inputs
                keep(v, new(v, s) + viewed)
            else:
                keep(v, new(v, s))
                if not n.prim.multiple_results:   # results may share one buffer
                    owner.add(id(v))
            if reuse and last[id(v)] < end:
                free[last[id(v)]].append(id(v))
    delta = [0] * (end + 1)
    for nb, first, final in zip(size, born, dies):
        delta[first] += nb
        delta[min(final, end - 1) + 1] -= nb
    live = list(itertools.accumulate(delta[:end]))
    out = {b for o in graph.outs if isinstance(o, Var) for b in bufs[id(o)]}
    output_bytes = sum(size[b] for b in out if b >= len(graph.in_vars))
    return _Liveness(free, donate, live, input_bytes, output_bytes, no_reuse)


def compile(graph, passes=PASSES, reuse=True):
    """A :class:`Program` from ``graph`` after the compiler ``passes`` (``reuse``: see
    :class:`Program`)."""
    if not isinstance(graph, Graph):
        raise TypeError("tenferro.compile: expected a Graph (from tenferro.trace), got %s"
                        % type(graph).__name__)
    return Program(graph, passes, reuse)


class jit:
    """``jit(f)``: trace on the first call for each input signature (shapes, dtypes,
    device, pytree structure), compile, cache the program (LRU, ``maxsize``) and run
    it.  ``cache_info()`` gives (hits, misses, size, maxsize).  ``passes`` and
    ``reuse``: as for :func:`compile`."""

    def __init__(self, f, maxsize=64, passes=PASSES, reuse=True):
        self.f = f
        self.maxsize = maxsize
        self.passes = passes
        self.reuse = reuse
        self._cache = collections.OrderedDict()
        self.hits = self.misses = 0
        self.__name__ = getattr(f, "__name__", "jit")
        self.__doc__ = getattr(f, "__doc__", None)

    def __call__(self, *args):
        flat, tree = tree_flatten(args)
        key = (tree, tuple((x.shape, x.dtype, x._device) if isinstance(x, Tensor) else
                           _as_spec(x) for x in flat),
               _primitive._context and _primitive._context.key)   # the AD rules traced
        prog = self._cache.get(key)
        if prog is None:
            self.misses += 1
            prog = compile(_trace(lambda *xs: self.f(*tree_unflatten(tree, list(xs))),
                                  *[_as_spec(x) for x in flat]), self.passes,
                           self.reuse)
            self._cache[key] = prog
            if len(self._cache) > self.maxsize:
                self._cache.popitem(last=False)
        else:
            self.hits += 1
            self._cache.move_to_end(key)
        return prog(*flat)

    def cache_info(self):
        return collections.namedtuple("CacheInfo", "hits misses size maxsize")(
            self.hits, self.misses, len(self._cache), self.maxsize)

    def cache_clear(self):
        self._cache.clear()
        self.hits = self.misses = 0

