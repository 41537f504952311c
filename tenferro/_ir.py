"""The intermediate representation: what a traced program is made of.

:class:`Var` (a value: shape and dtype), :class:`Node` (one primitive application),
:class:`Graph` (inputs, nodes in execution order, outputs) and :class:`AbstractArray`
(the data of a tensor being traced: metadata without values).  This is vocabulary
shared by every layer: drivers read graphs (fused groups, :mod:`tenferro._fused`), the
compiler (:mod:`tenferro.graph`) builds and rewrites them, autodiff transforms them.
Nothing here runs an op.  A graph prints jaxpr-like (variables named ``a``, ``b``, ...,
constants of up to six elements by value); a variable's repr is its type
(``Var(f64[3])``), a node's its primitive, parameters and operands.
"""
from __future__ import annotations

import numpy as np

from ._errors import ConcretizationError  # noqa: F401  (part of the IR's vocabulary)

__all__ = ["AbstractArray", "is_abstract", "ConcretizationError", "Var", "Node", "Graph"]


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


def is_abstract(t: object) -> bool:
    """Whether tensor ``t`` is being traced into a graph (shape and dtype, no data yet).

    Rules and kernels that read values on the host (a check, a data-dependent shortcut)
    ask this first: an abstract tensor's values are known only when the program runs.

    Parameters
    ----------
    t : Tensor
        Any tensor.

    Returns
    -------
    bool
        True inside :func:`tenferro.make_graph` (or ``jit``) for a traced value.

    Examples
    --------
    >>> from tenferro.autograd.extend import is_abstract
    >>> is_abstract(tf.ones(2))
    False
    >>> seen = []
    >>> _ = tf.make_graph(lambda v: seen.append(is_abstract(v)) or v, tf.TensorSpec((2,)))
    >>> seen
    [True]
    """
    return getattr(t._data, "abstract", False)


class Var:
    """A value of a graph: an input or a node's output.

    A variable is its shape and dtype; it has no name of its own (a graph's printout
    names its variables ``a``, ``b``, ... in order of appearance) and no data.

    Parameters
    ----------
    shape : tuple of int
        The value's shape.
    dtype : numpy.dtype or str
        The value's dtype.

    See Also
    --------
    Graph, Node, TensorSpec

    Examples
    --------
    >>> g = tf.make_graph(tf.sin, tf.TensorSpec((3,)))
    >>> g.inputs
    (Var(f64[3]),)
    >>> g.inputs[0].shape, g.inputs[0].dtype
    ((3,), dtype('float64'))
    """
    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype):
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)

    @property
    def aval(self):
        """``(shape, dtype)``: the abstract value."""
        return self.shape, self.dtype

    def __repr__(self):
        return "Var(%s)" % _type_text(self)


class Node:
    """One primitive application of a graph: ``outputs = prim(*inputs, **params)``.

    Parameters
    ----------
    prim : Primitive
        The primitive applied (:class:`tenferro.autograd.extend.Primitive`).
    params : dict
        Its static parameters (axes, dtypes, a checkpoint's sub-graph, ...).
    inputs : list of Var or Tensor
        Its operands: a variable of the graph, or a constant tensor.
    outputs : list of Var
        The variables it defines (one unless the primitive has several results).

    See Also
    --------
    Graph, Var

    Examples
    --------
    >>> g = tf.make_graph(lambda x: tf.sin(x) * 2.0, tf.TensorSpec((3,)))
    >>> g.nodes[1]
    Node(multiply[out_dtype=float64], inputs=[Var(f64[3]), const(2.0)], outputs=[Var(f64[3])])
    >>> g.nodes[1].prim.name
    'multiply'
    """
    __slots__ = ("prim", "params", "inputs", "outputs")

    def __init__(self, prim, params, inputs, outputs):
        self.prim, self.params, self.inputs, self.outputs = prim, params, inputs, outputs

    def __repr__(self):
        def operand(v):
            return repr(v) if isinstance(v, Var) else _const_text(v)
        return "Node(%s, inputs=[%s], outputs=[%s])" % (
            _head(self, _graph_summary),
            ", ".join(operand(v) for v in self.inputs),
            ", ".join(operand(v) for v in self.outputs))


class Graph:
    """A traced program (JAX's jaxpr): input variables, nodes in execution order, outputs.

    Made by :func:`tenferro.make_graph` (or ``jit(f).trace``), not by hand.  The
    outputs are variables or constants, in the pytree structure of the function's
    result.  ``print(graph)`` shows it in a jaxpr-like form: variables are named ``a``,
    ``b``, ... with their dtype and shape, constants of up to six elements by value.
    A graph is a value: graph transforms return new graphs (``graph.grad()``,
    ``graph.vjp()``, ``graph.jvp()``, attached by :mod:`tenferro.autograd`), and
    :func:`tenferro.compile` turns one into a :class:`~tenferro.Program`.  Calling a
    graph runs its nodes eagerly.

    Parameters
    ----------
    in_specs : sequence of TensorSpec
        The inputs' shapes, dtypes and device.
    in_vars : sequence of Var
        The input variables.
    nodes : sequence of Node
        The primitive applications, in execution order.
    outs : sequence of Var or Tensor
        The flat outputs (variables or constants).
    out_tree : TreeDef
        The outputs' pytree structure.
    name : str, default "f"
        The traced function's name.
    device : Device, optional
        The device it was traced for; default the first input's (the CPU without
        inputs).

    See Also
    --------
    make_graph, compile, Node, Var

    Examples
    --------
    >>> g = tf.make_graph(lambda x: tf.sin(x) * 2.0, tf.TensorSpec((3,)))
    >>> print(g)
    { lambda a:f64[3] .
        b:f64[3] = sin[out_dtype=float64] a
        c:f64[3] = multiply[out_dtype=float64] b const(2.0)
      in (c) }
    >>> g(tf.zeros(3))
    tensor([0., 0., 0.])
    >>> len(g.nodes), g.inputs
    (2, (Var(f64[3]),))
    """

    def __init__(self, in_specs, in_vars, nodes, outs, out_tree, name="f", device=None):
        self.in_specs = tuple(in_specs)
        self.in_vars = tuple(in_vars)
        self.nodes = list(nodes)
        self.outs = tuple(outs)
        self.out_tree = out_tree
        self.name = name
        # the device the graph was traced for (its inputs'); set by the tracer
        self._device = device if device is not None or not self.in_specs \
            else self.in_specs[0].device
        # artifacts the layers above derive from this graph and keep as long as it lives
        # (autodiff's graphs of a checkpointed segment, its compiled program), keyed by
        # their owner; per-device kernels are kept by their drivers instead
        self.derived = {}

    def with_nodes(self, nodes, outs=None):
        """The same graph (inputs, structure, device) over new nodes (and outputs):
        what a compiler pass returns."""
        return Graph(self.in_specs, self.in_vars, nodes, self.outs if outs is None else outs,
                     self.out_tree, self.name, self._device)

    @property
    def inputs(self):
        """The input variables (shape and dtype of each)."""
        return self.in_vars

    @property
    def device(self):
        """The device the graph was traced for (its inputs'; the CPU without inputs)."""
        return self._device

    @property
    def outputs(self):
        """The output variables (or constant Tensors)."""
        return self.outs

    # -- printout ------------------------------------------------------------------
    def __str__(self):
        return "\n".join(self._lines({}, ""))

    def _lines(self, names, ind):
        """The printout's lines; a graph parameter (a checkpoint's) is printed nested
        and indented, its variables named on from the enclosing graph's."""
        def name(v):
            if not isinstance(v, Var):
                return _const_text(v)
            if id(v) not in names:
                names[id(v)] = _var_name(len(names))
            return names[id(v)]

        def typed(v):
            return "%s:%s" % (name(v), _type_text(v))

        head = " ".join(typed(v) for v in self.in_vars)
        lines = ["%s{ lambda %s ." % (ind, head)]
        for n in self.nodes:
            params = _params(n)
            lhs = "%s    %s = " % (ind, " ".join(typed(v) for v in n.outputs))
            args = " ".join(name(v) for v in n.inputs)
            if not any(isinstance(v, Graph) for _, v in params):
                lines.append("%s%s %s" % (lhs, _head(n), args))
                continue
            lines.append(lhs + n.prim.name + "[")
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


def _var_name(i):
    s = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        s = chr(97 + r) + s
    return s


def _params(node):
    """The parameters a printout shows, sorted by name (a fused group's ``plan`` is the
    drivers' business)."""
    return [kv for kv in sorted(node.params.items()) if kv[0] != "plan"]


def _head(node, show=str):
    """``prim[name=value, ...]`` (``show`` formats the values)."""
    ps = ", ".join("%s=%s" % (k, show(v) if isinstance(v, Graph) else v)
                   for k, v in _params(node))
    return node.prim.name + ("[%s]" % ps if ps else "")


def _graph_summary(g):
    """A graph parameter in a node's repr: ``Graph(3 nodes)``."""
    n = len(g.nodes)
    return "Graph(%d node%s)" % (n, "" if n == 1 else "s")


def _type_text(v):
    """``f64[2, 3]``: a variable's (or constant's) dtype and shape."""
    return "%s%s" % (_short(v.dtype), list(v.shape))


# constants of at most this many elements are printed by value
_CONST_SHOWN = 6


def _const_text(c):
    """A constant operand in a printout: by value when small (``const(2.0)``,
    ``const([1. 2.])``, copied from any device by its driver), else by type
    (``const(f64[100])``)."""
    try:
        small = c.size <= _CONST_SHOWN
        if small:
            a = c._device.driver.to_numpy(c._data)
    except Exception:   # a value without host data (a tracer's): show its type
        small = False
    if not small:
        return "const(%s)" % _type_text(c)
    return "const(%s)" % " ".join(str(a).split())


def _short(dt):
    return {"float64": "f64", "float32": "f32", "complex128": "c128", "complex64": "c64",
            "int64": "i64", "int32": "i32", "bool": "bool"}.get(dt.name, dt.name)
