"""The intermediate representation: what a traced program is made of.

:class:`Var` (a value: shape and dtype), :class:`Node` (one primitive application),
:class:`Graph` (inputs, nodes in execution order, outputs) and :class:`AbstractArray`
(the data of a tensor being traced: metadata without values).  This is vocabulary
shared by every layer: drivers read graphs (fused groups, :mod:`tenferro._fused`), the
compiler (:mod:`tenferro.graph`) builds and rewrites them, autodiff transforms them.
Nothing here runs an op.
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
    """Whether tensor ``t`` is being traced into a graph (it has a shape and a dtype but
    no data yet)."""
    return getattr(t._data, "abstract", False)


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


class Graph:
    """A traced program: input variables, nodes in execution order, outputs (variables
    or constants, in the pytree structure of the function's result).

    This is the data and its printout; calling a graph (:mod:`tenferro.graph`) and its
    ``grad``/``vjp``/``jvp`` (:mod:`tenferro.autograd`) are attached by the layers that
    own them."""

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
