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

The compiler passes are in :mod:`._passes`, the executor and ``jit`` in
:mod:`._program`.
"""

import contextlib
import operator

import numpy as np

from .._dtypes import dtype as _as_dtype
from .._errors import DeviceMismatchError, TenferroError
from .._primitive import bind
from .._tensor import Tensor
from ._functional import Trace, Tracer
from ._tree import tree_flatten, tree_unflatten

__all__ = ["TensorSpec", "Graph", "ConcretizationError", "trace"]


class ConcretizationError(TenferroError, TypeError):
    """A traced value was needed on the host (data-dependent control flow, a
    data-dependent shape, an explicit read)."""


class TensorSpec:
    """A symbolic input of :func:`trace`: a shape and a dtype (and, optionally, the
    device the program will run on; CPU by default)."""
    __slots__ = ("shape", "dtype", "device")

    def __init__(self, shape, dtype="float64", device=None):
        try:
            self.shape = tuple(operator.index(d) for d in shape)
        except TypeError:
            raise TypeError("tenferro.TensorSpec: shape must be a tuple of ints, got %r"
                            % (shape,)) from None
        if any(d < 0 for d in self.shape):
            raise ValueError("tenferro.TensorSpec: dimensions must be non-negative, got shape "
                             "%s" % (self.shape,))
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
    :class:`ConcretizationError` (the tracers' ``_host`` raises)."""
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
    """Raise the error for a host read (``what``) of a value being traced into a graph
    or differentiated by a functional transform."""
    if getattr(t._data, "abstract", False):   # traced into a graph: no value yet
        raise ConcretizationError(
            "tenferro.trace: %s needs the value of a traced tensor (shape %s, dtype %s), "
            "which is only known when the program runs; data-dependent Python control flow "
            "and host reads cannot be traced (compute with tensor ops, e.g. tenferro.where, "
            "or run eagerly)" % (what, t.shape, t.dtype))
    raise ConcretizationError(
        "tenferro.%s: %s reads the value of a tensor being differentiated (shape %s, dtype "
        "%s) on the host, which would cut its derivative (a silent zero gradient); compute "
        "with tenferro ops instead (they accept lists of tensors and NumPy-style calls), or "
        "read tenferro.stop_gradient(x) (or x.detach()) if the value is meant to be a "
        "constant" % (_TRANSFORMS.get(t._trace.kind, t._trace.kind), what, t.shape,
                      t.dtype))


_TRANSFORMS = {"vjp": "grad/vjp (a reverse-mode transform)",
               "jvp": "jvp (a forward-mode transform)"}


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

    def __repr__(self):
        return "GraphTracer(shape=%s, dtype=%s)" % (self.shape, self.dtype)


class GraphTrace(Trace):
    """Records the primitives bound on its tracers.  A nested trace made with
    ``capture=True`` (a checkpointed function's) turns the values of the traces around
    it that the function closes over into extra inputs (closure conversion):
    ``captured`` lists them with their variables, in order of first use."""
    __slots__ = ("nodes", "device", "captured", "_captured_ids")

    def __init__(self, device, capture=False):
        Trace.__init__(self, "graph")
        self.nodes = []
        self.device = device
        self.captured = [] if capture else None
        self._captured_ids = {}

    def new(self, shape, dtype):
        return GraphTracer(self, Var(shape, dtype), self.device)

    def var_of(self, a, what):
        """The graph value of ``a``: its variable, a constant, or a captured input."""
        if a._trace is self:
            return a.var
        if a._trace is None:
            return a
        if self.captured is None or not a._trace.active:
            raise TenferroError("tenferro.trace: %s got a value of another trace" % what)
        var = self._captured_ids.get(id(a))
        if var is None:
            var = self._captured_ids[id(a)] = Var(a.shape, a.dtype)
            self.captured.append((a, var))
        return var

    def process(self, prim, args, params):
        if prim.abstract_eval is None:
            raise ConcretizationError(
                "tenferro.trace: %s has a data-dependent output shape and cannot be "
                "traced (run it eagerly)" % prim.name)
        if prim.name == "device_put" and params["device"] is not self.device:
            raise TenferroError("tenferro.trace: a transfer between devices inside a "
                                "traced program is not supported yet (a program runs on "
                                "its inputs' device); move the inputs before calling it")
        inputs = [self.var_of(a, prim.name) for a in args]
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
    def device(self):
        """The device the graph was traced for (its inputs'; the CPU without inputs)."""
        if self.in_specs:
            return self.in_specs[0].device
        from ..devices import device
        return device("cpu")

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
    def grad(self, argnums=0, ctx=None):
        """The graph of ``grad`` of this (scalar-valued) graph.  ``ctx``: an
        :class:`~tenferro.autograd.AdContext` whose rules override the registry's
        (default: the contexts in force, if any)."""
        from ._functional import grad
        with _rules(ctx, "grad"):
            return _trace(grad(self, argnums), *self.in_specs)

    def vjp(self, ctx=None):
        """The graph ``(*inputs, cotangents) -> input cotangents``; the cotangents come in
        the outputs' structure (one per output, flattened as the graph's last inputs);
        ``ctx`` as in :meth:`grad`."""
        with _rules(ctx, "vjp"):
            return _vjp_graph(self, (True,) * len(self.outs), (True,) * len(self.in_vars))

    def jvp(self, ctx=None):
        """The graph ``(*inputs, *tangents) -> (outputs, output tangents)`` (``ctx`` as
        in :meth:`grad`)."""
        from ._functional import jvp
        k = len(self.in_specs)
        with _rules(ctx, "jvp"):
            return _trace(lambda *a: jvp(self, tuple(a[:k]), tuple(a[k:])),
                          *self.in_specs, *self.in_specs)

    # -- printout ------------------------------------------------------------------
    def __str__(self):
        return "\n".join(self._lines({}, ""))

    def _lines(self, names, ind):
        """The printout's lines; a graph parameter (a checkpoint's) is printed nested
        and indented, its variables named on from the enclosing graph's."""
        def name(v):
            if not isinstance(v, Var):
                return "const%s" % (v.shape,)
            if id(v) not in names:
                names[id(v)] = _var_name(len(names))
            return names[id(v)]

        def typed(v):
            return "%s:%s%s" % (name(v), _short(v.dtype), list(v.shape))

        head = " ".join(typed(v) for v in self.in_vars)
        lines = ["%s{ lambda %s ." % (ind, head)]
        for n in self.nodes:
            params = [kv for kv in sorted(n.params.items()) if kv[0] != "plan"]
            lhs = "%s    %s = %s" % (ind, " ".join(typed(v) for v in n.outputs), n.prim.name)
            args = " ".join(name(v) for v in n.inputs)
            if not any(isinstance(v, Graph) for _, v in params):
                ps = ", ".join("%s=%s" % kv for kv in params)
                lines.append("%s%s %s" % (lhs, "[%s]" % ps if ps else "", args))
                continue
            lines.append(lhs + "[")
            for k, v in params:
                if isinstance(v, Graph):
                    sub = v._lines(names, ind + "      ")
                    lines += ["%s      %s=%s" % (ind, k, sub[0].lstrip())] + sub[1:]
                else:
                    lines.append("%s      %s=%s" % (ind, k, v))
            lines.append("%s    ] %s" % (ind, args))
        lines.append("%s  in (%s) }" % (ind, ", ".join(name(o) for o in self.outs)))
        return lines

    __repr__ = __str__


def _rules(ctx, op):
    """The rule set a graph transform applies: ``ctx`` alone, or (None) those in force."""
    from ._context import AdContext
    if ctx is None:
        return contextlib.nullcontext()
    if not isinstance(ctx, AdContext):
        raise TypeError("tenferro.Graph.%s: ctx must be an AdContext or None, got %s"
                        % (op, type(ctx).__name__))
    return ctx.explicitly()


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


def _vjp_graph(graph, given, wanted):
    """The graph ``(*inputs, *the cotangents of the outputs where given) -> the
    cotangents of the wanted inputs`` (missing cotangents are zeros).  It recomputes
    ``graph``'s forward pass from the inputs."""
    from .._ops import zeros_like
    from ._functional import _split, vjp
    n = len(graph.in_vars)
    idx = [i for i in range(n) if wanted[i]]

    def f(*args):
        primals, cts = args[:n], iter(args[n:])
        g, dyn = _split(graph, primals, idx)
        out, fn = vjp(g, *dyn)
        flat, tree = tree_flatten(out)
        return fn(tree_unflatten(tree, [next(cts) if g else zeros_like(o)
                                        for g, o in zip(given, flat)]))
    cts = [TensorSpec(o.shape, o.dtype, graph.device) for o, g in zip(graph.outs, given) if g]
    return _trace(f, *graph.in_specs, *cts)


def _jvp_graph(graph, given):
    """The graph ``(*inputs, *the tangents of the inputs where given) -> the output
    tangents`` (a flat tuple; it recomputes ``graph``'s forward pass)."""
    from ._functional import _split, jvp
    n = len(graph.in_vars)
    idx = [i for i in range(n) if given[i]]

    def f(*args):
        primals, tangents = args[:n], args[n:]
        out = jvp(*_split(graph, primals, idx), tuple(tangents))[1]
        return tuple(tree_flatten(out)[0])
    return _trace(f, *graph.in_specs, *[graph.in_specs[i] for i in idx])


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
    return _trace_graph(f, args)[0]


def _trace_graph(f, args, device=None, capture=False):
    """(the Graph of ``f`` on symbolic inputs like ``args``, the captured outer values).

    With ``capture`` (a trace nested in another), the values of the outer traces that
    ``f`` closes over become the graph's last inputs and are returned, to be passed
    where the graph is applied; without, they are an error."""
    specs = [_as_spec(a) for a in args]
    devices = {s.device for s in specs}
    if len(devices) > 1:
        raise DeviceMismatchError("tenferro.trace", sorted(str(d) for d in devices))
    dev = specs[0].device if specs else device
    if dev is None:
        from ..devices import device as _device
        dev = _device("cpu")
    with GraphTrace(dev, capture) as tr:
        tracers = [tr.new(s.shape, s.dtype) for s in specs]
        out = f(*tracers)
        flat, out_tree = tree_flatten(out)
        outs = []
        for o in flat:
            if not isinstance(o, Tensor):
                from .._ops import asarray
                o = asarray(o, device=dev)
            if o._trace is not None and o._trace is not tr and not capture:
                raise TenferroError("tenferro.trace: the function returned a value of "
                                    "another trace")
            outs.append(tr.var_of(o, "the output"))   # a Var or a constant output
    captured = tr.captured or []
    graph = Graph(specs + [_as_spec(v) for v, _ in captured],
                  [t.var for t in tracers] + [var for _, var in captured], tr.nodes, outs,
                  out_tree, getattr(f, "__name__", "f"))
    return graph, [v for v, _ in captured]
