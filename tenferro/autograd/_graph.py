"""Traced graphs (tenferro-rs's TracedTensor / GraphCompiler / GraphExecutor): trace a
function into a :class:`Graph` of primitives over symbolic inputs, transform it (grad,
vjp, jvp: the eager rules, applied by retracing the functional transforms over the
graph), and compile it into a :class:`Program` that runs on the inputs' device.

Tracing runs the function once on :class:`GraphTracer` values: tensors that have a
shape and a dtype but no data (their ``_data`` is an :class:`AbstractArray`).  Every
primitive bound on one is recorded as a :class:`Node` through its ``abstract_eval``;
tensors built inside the function (``eye``, Python scalars) become constants.  Python
control flow is unrolled; reading a traced value on the host (``bool``, ``float``,
``.numpy()``, a data-dependent shape) raises :class:`ConcretizationError` naming the
operation.

Status (issue 6, started): trace, the printout, grad/vjp/jvp as graph transforms,
compile with constant folding, algebraic simplification, common-subexpression and
dead-code elimination, and jit with a program cache.  The other passes, fused
elementwise kernels and ``checkpoint`` inside graphs are to come (docs/traced.md).
"""
import collections

import numpy as np

from .._dtypes import dtype as _as_dtype
from .. import _primitive
from .._errors import DeviceMismatchError, TenferroError
from .._primitive import bind
from .._tensor import Tensor, _wrap
from ._functional import Trace, Tracer
from ._tree import tree_flatten, tree_unflatten

__all__ = ["TensorSpec", "Graph", "Program", "ConcretizationError", "trace", "compile",
           "jit"]


class ConcretizationError(TenferroError, TypeError):
    """A traced value was needed on the host (data-dependent control flow, a
    data-dependent shape, an explicit read)."""


class TensorSpec:
    """A symbolic input of :func:`trace`: a shape and a dtype (and, optionally, the
    device the program will run on; CPU by default)."""
    __slots__ = ("shape", "dtype", "device")

    def __init__(self, shape, dtype="float64", device=None):
        self.shape = tuple(int(d) for d in shape)
        self.dtype = _as_dtype(dtype)
        from ..devices import device as _device
        self.device = _device(device if device is not None else "cpu")

    def __repr__(self):
        return "TensorSpec(%s, %s)" % (self.shape, self.dtype)

    def __eq__(self, other):
        return (isinstance(other, TensorSpec) and (self.shape, self.dtype, self.device)
                == (other.shape, other.dtype, other.device))

    def __hash__(self):
        return hash((self.shape, self.dtype, self.device))


class AbstractArray:
    """Shape and dtype without data: a graph tracer's ``_data`` (and so that of any
    tracer wrapping one).  Metadata reads work; value reads raise
    :class:`ConcretizationError` (``Tensor.numpy`` and ``to_numpy`` check ``abstract``)."""
    __slots__ = ("shape", "dtype")
    abstract = True

    def __init__(self, shape, dtype):
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: int(np.prod(self.shape, dtype=np.int64)))
    itemsize = property(lambda self: self.dtype.itemsize)
    nbytes = property(lambda self: self.size * self.dtype.itemsize)

    @property
    def strides(self):   # C order, as a freshly computed output would be
        s, acc = [], self.dtype.itemsize
        for d in reversed(self.shape):
            s.append(acc)
            acc *= max(d, 1)
        return tuple(reversed(s))


def concretization_error(what, t):
    raise ConcretizationError(
        "tenferro.trace: %s needs the value of a traced tensor (shape %s, dtype %s), which "
        "is only known when the program runs; data-dependent Python control flow and host "
        "reads cannot be traced (compute with tensor ops, e.g. tenferro.where, or run "
        "eagerly)" % (what, t.shape, t.dtype))


class Var:
    """A value of a graph: an input or a node's output."""
    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype):
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)

    @property
    def aval(self):
        return self.shape, self.dtype


class Node:
    """One primitive application: ``outputs = prim(*inputs, **params)``; an input is a
    :class:`Var` or a constant Tensor."""
    __slots__ = ("prim", "params", "inputs", "outputs")

    def __init__(self, prim, params, inputs, outputs):
        self.prim, self.params, self.inputs, self.outputs = prim, params, inputs, outputs


class GraphTracer(Tracer):
    """A value being traced into a graph: a Tensor with a shape and a dtype only."""
    __slots__ = ("var",)

    def __init__(self, trace, var, device):
        self._trace = trace
        self.primal = None
        self.var = var
        self._data = AbstractArray(var.shape, var.dtype)
        self._device = device
        self._ad = None

    def _concrete(self, what):
        concretization_error(what, self)

    def numpy(self):
        self._concrete("numpy()")

    def __array__(self, dtype=None, copy=None):
        self._concrete("conversion to a NumPy array")

    def _scalar(self, what):
        self._concrete(what)

    def item(self):
        self._concrete("item()")

    def tolist(self):
        self._concrete("tolist()")

    def __repr__(self):
        return "GraphTracer(shape=%s, dtype=%s)" % (self.shape, self.dtype)


class GraphTrace(Trace):
    __slots__ = ("nodes", "device")

    def __init__(self, device):
        Trace.__init__(self, "graph")
        self.nodes = []
        self.device = device

    def new(self, shape, dtype):
        return GraphTracer(self, Var(shape, dtype), self.device)

    def process(self, prim, args, params):
        if prim.abstract_eval is None:
            raise ConcretizationError(
                "tenferro.trace: %s has a data-dependent output shape and cannot be "
                "traced (run it eagerly)" % prim.name)
        if prim.name == "device_put" and params["device"] is not self.device:
            raise TenferroError("tenferro.trace: a transfer between devices inside a "
                                "traced program is not supported yet (a program runs on "
                                "its inputs' device); move the inputs before calling it")
        inputs = [a.var if a._trace is self else a for a in args]
        for a in args:
            if a._trace is not self and a._trace is not None:
                raise TenferroError("tenferro.trace: %s got a value of another trace"
                                    % prim.name)
        avals = prim.abstract_eval(*[(a.shape, a.dtype) for a in args], **params)
        outs = avals if prim.multiple_results else (avals,)
        tracers = [self.new(s, d) for s, d in outs]
        self.nodes.append(Node(prim, dict(params), inputs, [t.var for t in tracers]))
        return tuple(tracers) if prim.multiple_results else tracers[0]


def _as_spec(x):
    if isinstance(x, TensorSpec):
        return x
    if isinstance(x, Tensor):
        return TensorSpec(x.shape, x.dtype, x.device)
    a = np.asarray(x)
    return TensorSpec(a.shape, a.dtype)


class Graph:
    """A traced program: input variables, nodes in execution order, outputs (variables
    or constants, in the pytree structure of the function's result)."""

    def __init__(self, in_specs, in_vars, nodes, outs, out_tree, name="f"):
        self.in_specs = tuple(in_specs)
        self.in_vars = tuple(in_vars)
        self.nodes = list(nodes)
        self.outs = tuple(outs)
        self.out_tree = out_tree
        self.name = name

    @property
    def inputs(self):
        """The input variables (shape and dtype of each)."""
        return self.in_vars

    @property
    def outputs(self):
        """The output variables (or constant Tensors)."""
        return self.outs

    def __call__(self, *args):
        """Evaluate the graph on tensors (each node bound as an eager op, so this also
        works under autodiff and inside other traces)."""
        env = _bind_inputs("Graph", self, args)
        for node in self.nodes:
            _run_node(node, env)
        return tree_unflatten(self.out_tree, [_read(env, o) for o in self.outs])

    # -- transforms ----------------------------------------------------------------
    def grad(self, argnums=0):
        """The graph of ``grad`` of this (scalar-valued) graph."""
        from ._functional import grad
        return _trace(grad(self, argnums), *self.in_specs)

    def vjp(self):
        """The graph ``(*inputs, cotangent) -> input cotangents``."""
        from ._functional import vjp

        def f(*args):
            *primals, ct = args
            return vjp(self, *primals)[1](tree_unflatten(self.out_tree, [ct]))
        if len(self.outs) != 1:
            raise TenferroError("tenferro.Graph.vjp: graphs with one output only, got %d"
                                % len(self.outs))
        o = self.outs[0]
        return _trace(f, *self.in_specs, TensorSpec(o.shape, o.dtype, self.in_specs[0].device))

    def jvp(self):
        """The graph ``(*inputs, *tangents) -> (outputs, output tangents)``."""
        from ._functional import jvp
        k = len(self.in_specs)
        return _trace(lambda *a: jvp(self, tuple(a[:k]), tuple(a[k:])),
                      *self.in_specs, *self.in_specs)

    # -- printout ------------------------------------------------------------------
    def __str__(self):
        names = {}

        def name(v):
            if not isinstance(v, Var):
                return "const%s" % (v.shape,)
            if id(v) not in names:
                names[id(v)] = _var_name(len(names))
            return names[id(v)]

        def typed(v):
            return "%s:%s%s" % (name(v), _short(v.dtype), list(v.shape))

        head = " ".join(typed(v) for v in self.in_vars)
        lines = ["{ lambda %s ." % head]
        for n in self.nodes:
            ps = ", ".join("%s=%s" % kv for kv in sorted(n.params.items()) if kv[0] != "plan")
            lines.append("    %s = %s%s %s" % (
                " ".join(typed(v) for v in n.outputs), n.prim.name,
                "[%s]" % ps if ps else "", " ".join(name(v) for v in n.inputs)))
        lines.append("  in (%s) }" % ", ".join(name(o) for o in self.outs))
        return "\n".join(lines)

    __repr__ = __str__


def _var_name(i):
    s = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        s = chr(97 + r) + s
    return s


def _short(dt):
    return {"float64": "f64", "float32": "f32", "complex128": "c128", "complex64": "c64",
            "int64": "i64", "int32": "i32", "bool": "bool"}.get(dt.name, dt.name)


def _bind_inputs(op, graph, args):
    flat, _ = tree_flatten(args)
    if len(flat) != len(graph.in_vars):
        raise TypeError("tenferro.%s: the graph takes %d inputs, got %d"
                        % (op, len(graph.in_vars), len(flat)))
    env = {}
    for v, x, spec in zip(graph.in_vars, flat, graph.in_specs):
        if not isinstance(x, Tensor):
            from .._ops import asarray
            x = asarray(x, device=spec.device)
        if x.shape != v.shape or x.dtype != v.dtype:
            raise TypeError("tenferro.%s: input of shape %s and dtype %s where the graph "
                            "expects shape %s and dtype %s"
                            % (op, x.shape, x.dtype, v.shape, v.dtype))
        env[id(v)] = x
    return env


def _read(env, v):
    return env[id(v)] if isinstance(v, Var) else v


def _run_node(node, env):
    out = bind(node.prim, tuple(_read(env, i) for i in node.inputs), node.params)
    outs = out if node.prim.multiple_results else (out,)
    for v, o in zip(node.outputs, outs):
        env[id(v)] = o


def trace(f, *args, **kwargs):
    """``trace(f, *specs)``: the :class:`Graph` of the function ``f`` applied to symbolic
    inputs: each argument is a :class:`TensorSpec` or an example tensor/array (only its
    shape and dtype are used).  Python control flow runs at trace time; data-dependent
    control flow raises :class:`ConcretizationError` naming the operation.

    ``trace(a, offset=0, axis1=0, axis2=1, dtype=None)`` on an array instead is
    numpy.trace (the sum along a diagonal), which tenferro also provides under this
    name: a callable first argument selects graph tracing."""
    if not callable(f) or isinstance(f, Tensor):
        from .._ops import trace as matrix_trace
        return matrix_trace(f, *args, **kwargs)
    if kwargs:
        raise TypeError("tenferro.trace(f, *specs): unexpected keyword arguments %s"
                        % sorted(kwargs))
    return _trace(f, *args)


def _trace(f, *args):
    specs = [_as_spec(a) for a in args]
    devices = {s.device for s in specs}
    if len(devices) > 1:
        raise TenferroError("tenferro.trace: the inputs are on different devices: %s"
                            % sorted(str(d) for d in devices))
    dev = specs[0].device if specs else None
    if dev is None:
        from ..devices import device as _device
        dev = _device("cpu")
    with GraphTrace(dev) as tr:
        tracers = [tr.new(s.shape, s.dtype) for s in specs]
        out = f(*tracers)
        flat, out_tree = tree_flatten(out)
    outs = []
    for o in flat:
        if not isinstance(o, Tensor):
            from .._ops import asarray
            o = asarray(o, device=dev)
        if o._trace is tr:
            outs.append(o.var)
        elif o._trace is None:
            outs.append(o)           # a constant output
        else:
            raise TenferroError("tenferro.trace: the function returned a value of "
                                "another trace")
    return Graph(specs, [t.var for t in tracers], tr.nodes, outs, out_tree,
                 getattr(f, "__name__", "f"))


# -- compile ---------------------------------------------------------------------------

PASSES = ("fold", "simplify", "cse", "dce")


def _rewrite(graph, fn):
    """A new graph with every node passed through ``fn(node, inputs)``, its inputs
    already substituted: ``fn`` returns None to keep the node (with those inputs), a
    new :class:`Node` to put in its place, or the values (Vars or constant Tensors)
    that replace its outputs.  The input graph is not modified."""
    subst = {}

    def sub(v):
        return subst.get(id(v), v) if isinstance(v, Var) else v

    nodes = []
    for node in graph.nodes:
        inputs = [sub(i) for i in node.inputs]
        repl = fn(node, inputs)
        if repl is None:
            nodes.append(Node(node.prim, node.params, inputs, node.outputs))
        elif isinstance(repl, Node):
            nodes.append(repl)
        else:
            for v, r in zip(node.outputs, repl):
                subst[id(v)] = r
    return Graph(graph.in_specs, graph.in_vars, nodes, [sub(o) for o in graph.outs],
                 graph.out_tree, graph.name)


def _key(x):
    return ("v", id(x)) if isinstance(x, Var) else ("c", id(x))


def common_subexpression_elimination(graph):
    """One node for each (primitive, parameters, inputs) computed more than once (every
    primitive is pure)."""
    seen = {}

    def fn(node, inputs):
        try:
            key = (node.prim.name, tuple(sorted(node.params.items())),
                   tuple(_key(i) for i in inputs))
            hash(key)
        except TypeError:   # unhashable parameters: keep the node
            return None
        if key in seen:
            return seen[key]
        seen[key] = node.outputs
        return None
    return _rewrite(graph, fn)


def constant_folding(graph):
    """Nodes whose inputs are all constants, computed once at compile time."""
    def fn(node, inputs):
        if any(isinstance(i, Var) for i in inputs):
            return None
        out = bind(node.prim, tuple(inputs), node.params)
        return out if node.prim.multiple_results else (out,)
    return _rewrite(graph, fn)


def _constant_value(x):
    """The single value every element of constant ``x`` holds, or None."""
    if isinstance(x, Var):
        return None
    from .._ops import to_numpy
    a = np.asarray(to_numpy(x))
    if a.size == 0 or a.size > 4096:
        return None
    v = a.flat[0]
    return v if np.all(a == v) else None


def _same(x, node):
    """Whether value ``x`` already has the node's (only) output's shape and dtype."""
    o = node.outputs[0]
    return len(node.outputs) == 1 and tuple(x.shape) == o.shape and x.dtype == o.dtype


def algebraic_simplification(graph):
    """What AD generates and the result does not need: x * 1, 1 * x, x + 0, 0 + x,
    x - 0, x / 1, and a transpose of a transpose (composed; dropped when the identity).
    Only when the kept operand already has the output's shape and dtype."""
    def fn(node, inputs):
        name = node.prim.name
        if name in ("multiply", "add", "subtract", "divide") and len(inputs) == 2:
            unit = 1 if name in ("multiply", "divide") else 0
            for keep, other in ((0, 1), (1, 0)):
                if keep == 1 and name in ("subtract", "divide"):
                    continue
                if _constant_value(inputs[other]) == unit and _same(inputs[keep], node):
                    return (inputs[keep],)
        if name == "permute_dims":
            src = producers.get(id(inputs[0]))
            if src is not None and src.prim.name == "permute_dims":
                axes = tuple(src.params["axes"][a] for a in node.params["axes"])
                if axes == tuple(range(len(axes))):
                    return (src.inputs[0],)
                node = Node(node.prim, dict(node.params, axes=axes), [src.inputs[0]],
                            node.outputs)
                producers[id(node.outputs[0])] = node
                return node
        for v in node.outputs:
            producers[id(v)] = Node(node.prim, node.params, inputs, node.outputs)
        return None
    producers = {}
    return _rewrite(graph, fn)


def dead_code_elimination(graph):
    """The graph without the nodes whose outputs reach no output."""
    live = {id(o) for o in graph.outs if isinstance(o, Var)}
    keep = []
    for node in reversed(graph.nodes):
        if any(id(v) in live for v in node.outputs):
            keep.append(node)
            live.update(id(i) for i in node.inputs if isinstance(i, Var))
    return Graph(graph.in_specs, graph.in_vars, keep[::-1], graph.outs, graph.out_tree,
                 graph.name)


_PASS_FNS = {"fold": constant_folding, "simplify": algebraic_simplification,
             "cse": common_subexpression_elimination, "dce": dead_code_elimination}


class Program:
    """A compiled graph: run it with ``program(*inputs)`` as many times as needed."""

    def __init__(self, graph, passes=PASSES):
        unknown = [p for p in passes if p not in _PASS_FNS]
        if unknown:
            raise ValueError("tenferro.compile: unknown passes %s; available: %s"
                             % (unknown, list(_PASS_FNS)))
        for p in passes:
            graph = _PASS_FNS[p](graph)
        self.graph = graph
        self.passes = tuple(passes)
        self.runs = 0
        self._steps = {}   # device -> the executor's plan (see _plan)

    def unsupported(self, device):
        """The primitives of this program the device's driver cannot run."""
        impls = device.driver.implementations
        return sorted({n.prim.name for n in self.graph.nodes
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
            return self.graph(*args)   # differentiated: every node through bind
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
            fn = None if n.prim.impl is not None else dev.driver.implementations[n.prim.name]
            steps.append((n, fn, [id(i) if isinstance(i, Var) else None for i in n.inputs],
                          [None if isinstance(i, Var) else i._data for i in n.inputs]))
        return steps

    def __repr__(self):
        return "Program(%d nodes, passes=%s)\n%s" % (len(self.graph.nodes), self.passes,
                                                    self.graph)


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
                           _as_spec(x) for x in flat))
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

