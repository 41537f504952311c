"""Tracing (tenferro-rs's TracedTensor): a function becomes a :class:`~tenferro._ir.Graph`
of primitives over symbolic inputs.

Tracing runs the function once on :class:`GraphTracer` values: tensors that have a
shape and a dtype but no data (their ``_data`` is an :class:`AbstractArray`).  Every
primitive bound on one is recorded as a :class:`Node` through its ``abstract_eval``;
tensors built inside the function (``eye``, Python scalars) become constants.  Python
control flow is unrolled; reading a traced value on the host (``bool``, ``float``,
``.numpy()``, a data-dependent shape) raises :class:`ConcretizationError` naming the
operation.

The compiler passes are in :mod:`.passes`, the executor in :mod:`.program`, ``jit`` in
:mod:`.jit`; the graph's ``grad``/``vjp``/``jvp`` are attached by :mod:`tenferro.autograd`.
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING

import numpy as np

from .._dtypes import dtype as _as_dtype
from .._errors import DeviceMismatchError, TenferroError
from .._ir import AbstractArray, ConcretizationError, Graph, Node, Var
from .._ops import asarray
from .._primitive import Trace, Tracer, bind
from .._tensor import Tensor
from .._tree import tree_flatten, tree_unflatten
from ..devices import device as _device

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = ["TensorSpec", "make_graph", "trace_graph", "as_spec"]


class TensorSpec:
    """A symbolic input of :func:`make_graph`: a shape and a dtype (``jax.ShapeDtypeStruct``).

    Optionally the device the program will run on (the CPU by default).  Specs compare
    equal when shape, dtype and device do.

    Parameters
    ----------
    shape : tuple of int
        The input's shape.
    dtype : dtype or str, default "float64"
        The input's dtype.
    device : Device or str, optional
        The device (default ``"cpu"``).

    Raises
    ------
    TypeError
        If ``shape`` is not a sequence of ints, or ``dtype`` is not a dtype tenferro has.
    ValueError
        If a dimension is negative.

    See Also
    --------
    make_graph

    Examples
    --------
    >>> spec = tf.TensorSpec((2, 3), "float32")
    >>> spec
    TensorSpec((2, 3), float32)
    >>> tf.make_graph(lambda x: x.sum(), spec).outputs
    (Var(f32[]),)
    """
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
        self.device = _device(device if device is not None else "cpu")

    def __repr__(self):
        dev = "" if self.device.type == "cpu" else ", device=%r" % str(self.device)
        return "TensorSpec(%s, %s%s)" % (self.shape, self.dtype, dev)

    def __eq__(self, other):
        return (isinstance(other, TensorSpec) and (self.shape, self.dtype, self.device)
                == (other.shape, other.dtype, other.device))

    def __hash__(self):
        return hash((self.shape, self.dtype, self.device))


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
            raise TenferroError("tenferro.make_graph: %s got a value of another trace" % what)
        var = self._captured_ids.get(id(a))
        if var is None:
            var = self._captured_ids[id(a)] = Var(a.shape, a.dtype)
            self.captured.append((a, var))
        return var

    def process(self, prim, args, params):
        if prim.abstract_eval is None:
            raise ConcretizationError(
                "tenferro.make_graph: %s has a data-dependent output shape and cannot be "
                "traced (run it eagerly)" % prim.name)
        if prim.name == "device_put" and params["device"] is not self.device:
            raise TenferroError("tenferro.make_graph: a transfer between devices inside a "
                                "traced program is not supported yet (a program runs on "
                                "its inputs' device); move the inputs before calling it")
        inputs = [self.var_of(a, prim.name) for a in args]
        avals = prim.abstract_eval(*[(a.shape, a.dtype) for a in args], **params)
        outs = avals if prim.multiple_results else (avals,)
        tracers = [self.new(s, d) for s, d in outs]
        self.nodes.append(Node(prim, dict(params), inputs, [t.var for t in tracers]))
        return tuple(tracers) if prim.multiple_results else tracers[0]


def as_spec(x):
    """``x`` (a TensorSpec, tensor or array-like) as a TensorSpec."""
    if isinstance(x, TensorSpec):
        return x
    if isinstance(x, Tensor):
        return TensorSpec(x.shape, x.dtype, x.device)
    try:
        a = np.asarray(x)
    except ValueError:   # ragged nesting
        a = None
    if a is None or a.dtype == object:
        raise TypeError("tenferro.make_graph: an input must be a TensorSpec, a tensor or "
                        "numeric array data, got %s; pass one per positional argument "
                        "(for nested arguments, tenferro.jit(f).trace(*args) traces a "
                        "pytree)" % type(x).__name__)
    return TensorSpec(a.shape, a.dtype)


def bind_inputs(op, graph, args):
    flat, _ = tree_flatten(args)
    if len(flat) != len(graph.in_vars):
        raise TypeError("tenferro.%s: the graph takes %d inputs, got %d"
                        % (op, len(graph.in_vars), len(flat)))
    env = {}
    for v, x, spec in zip(graph.in_vars, flat, graph.in_specs):
        if not isinstance(x, Tensor):
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


def make_graph(f: Callable[..., Any], *specs: Any) -> Graph:
    """The :class:`~tenferro.Graph` of ``f`` applied to symbolic inputs (``jax.make_jaxpr``).

    ``f`` runs once on tracers that have a shape and a dtype but no data; every
    primitive it binds is recorded.  Python control flow runs at trace time (loops are
    unrolled); tensors created inside ``f`` and tensors it closes over become
    constants.  Reading a traced value on the host (``bool(x > 0)``, ``float(x)``)
    raises :class:`~tenferro.ConcretizationError` naming the operation.

    Parameters
    ----------
    f : callable
        A function of tensors returning a tensor or a pytree of them.
    *specs : TensorSpec or Tensor or array_like
        One per positional argument of ``f``: a spec, or an example tensor or array
        (only its shape, dtype and device are used).

    Returns
    -------
    Graph
        The traced program; ``print`` it, transform it (``grad``, ``vjp``, ``jvp``),
        :func:`compile` it.

    Raises
    ------
    ConcretizationError
        If ``f`` reads a traced value on the host, or binds a primitive with a
        data-dependent output shape (``nonzero``).
    DeviceMismatchError
        If the specs are on different devices.
    TenferroError
        If ``f`` moves a value to another device.

    See Also
    --------
    TensorSpec, compile, jit

    Notes
    -----
    Differentiable: yes: ``graph.grad()``, ``graph.vjp()`` and ``graph.jvp()`` are graph
    transforms with the eager rules, composable to any order.

    Examples
    --------
    >>> g = tf.make_graph(lambda x, y: (x @ y).sum(), tf.TensorSpec((2, 3)),
    ...                   tf.TensorSpec((3, 4)))
    >>> print(g)
    { lambda a:f64[2, 3] b:f64[3, 4] .
        c:f64[2, 4] = matmul a b
        d:f64[] = sum[axes=(0, 1), out_dtype=float64] c
      in (d) }
    >>> g(tf.ones((2, 3)), tf.ones((3, 4)))
    tensor(24.)
    """
    return trace_graph(f, specs)[0]


def trace_graph(f, args, device=None, capture=False):
    """(the Graph of ``f`` on symbolic inputs like ``args``, the captured outer values).

    With ``capture`` (a trace nested in another), the values of the outer traces that
    ``f`` closes over become the graph's last inputs and are returned, to be passed
    where the graph is applied; without, they are an error."""
    specs = [as_spec(a) for a in args]
    devices = {s.device for s in specs}
    if len(devices) > 1:
        raise DeviceMismatchError("tenferro.make_graph", sorted(str(d) for d in devices))
    dev = specs[0].device if specs else device
    if dev is None:
        dev = _device("cpu")
    with GraphTrace(dev, capture) as tr:
        tracers = [tr.new(s.shape, s.dtype) for s in specs]
        out = f(*tracers)
        flat, out_tree = tree_flatten(out)
        outs = []
        for o in flat:
            if not isinstance(o, Tensor):
                o = asarray(o, device=dev)
            if o._trace is not None and o._trace is not tr and not capture:
                raise TenferroError("tenferro.make_graph: the function returned a value of "
                                    "another trace")
            outs.append(tr.var_of(o, "the output"))   # a Var or a constant output
    captured = tr.captured or []
    graph = Graph(specs + [as_spec(v) for v, _ in captured],
                  [t.var for t in tracers] + [var for _, var in captured], tr.nodes, outs,
                  out_tree, getattr(f, "__name__", "f"), dev)
    return graph, [v for v, _ in captured]


def _call(self, *args):
    """Evaluate the graph on tensors (each node bound as an eager op, so this also works
    under autodiff and inside other traces)."""
    env = bind_inputs("Graph", self, args)
    for node in self.nodes:
        _run_node(node, env)
    return tree_unflatten(self.out_tree, [_read(env, o) for o in self.outs])


Graph.__call__ = _call
