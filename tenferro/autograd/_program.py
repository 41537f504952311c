"""Compiled programs (tenferro-rs's GraphExecutor) and ``jit``."""
import collections

from .. import _primitive
from .._errors import DeviceMismatchError, TenferroError
from .._tensor import Tensor, _wrap
from ._fusion import fused_p, run_unfused
from ._graph import Graph, Var, _as_spec, _bind_inputs, _trace
from ._passes import PASSES, _PASS_FNS
from ._tree import tree_flatten, tree_unflatten

__all__ = ["Program", "compile", "jit"]


class Program:
    """A compiled graph: run it with ``program(*inputs)`` as many times as needed."""

    def __init__(self, graph, passes=PASSES):
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
        for node, fn, keys, consts in steps:
            ins = [data[k] if k is not None else c for k, c in zip(keys, consts)]
            if fn is None:   # a device-independent primitive: Tensors in and out
                out = node.prim.impl(*[_wrap(x, dev) for x in ins], **node.params)
                out = tuple(o._data for o in out) if node.prim.multiple_results else out._data
            else:
                out = fn(*ins, **node.params)
            if node.prim.multiple_results:
                for v, o in zip(node.outputs, out):
                    data[id(v)] = o
            else:
                data[id(node.outputs[0])] = out
        outs = [_wrap(data[id(o)], dev) if isinstance(o, Var) else o for o in graph.outs]
        return tree_unflatten(graph.out_tree, outs)

    def _plan(self, dev):
        """Per node: (node, driver function or None, input keys (None for a constant),
        the constants' device arrays) for ``dev``."""
        steps = []
        for n in self.graph.nodes:
            for i in n.inputs:
                if not isinstance(i, Var) and i._device is not dev:
                    raise DeviceMismatchError("Program (a constant of %s)" % n.prim.name,
                                              [i._device, dev])
            fn = None if n.prim.impl is not None else dev.driver.implementations.get(n.prim.name)
            if fn is None and n.prim is fused_p:
                fn = run_unfused(dev)   # a driver without fused kernels: node by node
            steps.append((n, fn, [id(i) if isinstance(i, Var) else None for i in n.inputs],
                          [None if isinstance(i, Var) else i._data for i in n.inputs]))
        return steps

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


def compile(graph, passes=PASSES):
    """A :class:`Program` from ``graph`` after the compiler ``passes``."""
    if not isinstance(graph, Graph):
        raise TypeError("tenferro.compile: expected a Graph (from tenferro.trace), got %s"
                        % type(graph).__name__)
    return Program(graph, passes)


class jit:
    """``jit(f)``: trace on the first call for each input signature (shapes, dtypes,
    device, pytree structure), compile, cache the program (LRU, ``maxsize``) and run
    it.  ``cache_info()`` gives (hits, misses, size, maxsize)."""

    def __init__(self, f, maxsize=64, passes=PASSES):
        self.f = f
        self.maxsize = maxsize
        self.passes = passes
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
                                  *[_as_spec(x) for x in flat]), self.passes)
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

