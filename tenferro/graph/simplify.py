"""Algebraic simplification: the built-in rewrite rules of the ``simplify`` pass.

What AD generates and the result does not need, one rule per identity, each registered
in the rule table (:mod:`.rewrite`) under the primitive it matches:

* ``x * 1``, ``1 * x``, ``x + (-0.0)``, ``(-0.0) + x``, ``x - 0``, ``x / 1``;
* a transpose of a transpose, a reshape of a reshape (composed; dropped when the
  identity);
* broadcast-then-reduce, ``sum(broadcast_to(x, shape), axes)``;
* the sum of a constant whose elements are all equal;
* the conjugate of a real (or integer) value.

The output of a rewritten node keeps its shape and dtype, and its values bit for bit
(signed zeros, NaN and integer wrap-around included; tests/test_trust_jit.py and
tests/test_traced_passes.py check them) -- but for the sum of an all-equal constant,
``v * n``, which is the reduction's value to rounding.
"""
import numpy as np

from .. import _ops
from .._ir import Node, Var
from .rewrite import Splice, apply_rules, register_rewrite
from .trace import TensorSpec, make_graph

__all__ = ["algebraic_simplification"]


def stored_elements(t):
    """Elements a constant holds in memory (a broadcast dimension holds one)."""
    data = t._data
    strides = getattr(data, "strides", None)
    if strides is None or len(strides) != len(data.shape):
        return t.size
    return int(np.prod([d for d, s in zip(data.shape, strides) if s != 0], dtype=np.int64))


def _constant_value(x):
    """The single value every element of constant ``x`` holds, or None (checked for
    constants of at most 4096 stored elements: a broadcast scalar of any size)."""
    if isinstance(x, Var) or x.size == 0 or stored_elements(x) > 4096:
        return None
    a = np.asarray(_ops.to_numpy(x))
    # a broadcast constant (zero strides, as AD's ``ones`` cotangents) holds its values once
    a = a[tuple(0 if s == 0 and n else slice(None) for s, n in zip(a.strides, a.shape))]
    v = a.flat[0]
    return v if np.all(a == v) else None


def _is_unit(v, node):
    """Whether constant value ``v`` leaves the other operand of elementwise ``node``
    (multiply, divide, add, subtract) unchanged, bit for bit: 1 for a real product or
    quotient (a complex one turns ``-0-0j`` into ``0-0j``); for floating-point results
    -0.0 for a sum (``-0.0 + 0.0`` is ``+0.0``) and +0.0 for a difference (every
    component of a complex zero so)."""
    name = node.prim.name
    if v is None or v != (1 if name in ("multiply", "divide") else 0):
        return False
    kind = node.outputs[0].dtype.kind
    if name in ("multiply", "divide"):   # a complex product mixes the parts' zeros
        return kind != "c"
    if kind not in "fc":
        return True
    signs = np.signbit([np.real(v), np.imag(v)] if np.iscomplexobj(v) else [v])
    return bool(signs.all()) if name == "add" else not signs.any()


def _same(x, node):
    """Whether value ``x`` already has the node's (only) output's shape and dtype."""
    o = node.outputs[0]
    return len(node.outputs) == 1 and tuple(x.shape) == o.shape and x.dtype == o.dtype


# -- the rules ----------------------------------------------------------------------------

def unit_operand(node, inputs, ctx):
    """``x * 1``, ``1 * x``, ``x / 1``, ``x + (-0.0)``, ``(-0.0) + x``, ``x - 0`` -> ``x``
    (the constant may be a broadcast scalar of any shape): exact only where
    :func:`_is_unit` says so (``x + 0.0`` stays, as it turns -0.0 into +0.0, and so does
    a complex product), and only when ``x`` already has the output's shape and dtype
    (else the op broadcasts or promotes it)."""
    name = node.prim.name
    if len(inputs) != 2:
        return None
    for keep, other in ((0, 1), (1, 0)):
        if keep == 1 and name in ("subtract", "divide"):
            continue   # 0 - x and 1 / x are not x
        if _is_unit(_constant_value(inputs[other]), node) and _same(inputs[keep], node):
            return (inputs[keep],)
    return None


def conj_of_real(node, inputs, ctx):
    """``conj(x) -> x`` for a real or integer ``x``, where conjugation is the identity
    (AD's rules conjugate whatever dtype they get)."""
    if inputs[0].dtype.kind != "c" and _same(inputs[0], node):
        return (inputs[0],)
    return None


def reshape_of_reshape(node, inputs, ctx):
    """``reshape(reshape(x, s1), s2) -> reshape(x, s2)``, or ``x`` when ``s2`` is its
    shape: a reshape keeps the elements' (C) order, so only the last shape counts (not
    for a copying reshape, whose copy is the point)."""
    if node.params["copy"]:
        return None
    src = ctx.producer(inputs[0])
    if src is None or src.prim.name != "reshape" or src.params["copy"]:
        return None
    if src.inputs[0].shape == node.outputs[0].shape:
        return (src.inputs[0],)
    return Node(node.prim, node.params, [src.inputs[0]], node.outputs)


def transpose_of_transpose(node, inputs, ctx):
    """``permute_dims(permute_dims(x, p), q) -> permute_dims(x, p[q])``, or ``x`` when
    that is the identity permutation: moving axes moves no values."""
    src = ctx.producer(inputs[0])
    if src is None or src.prim.name != "permute_dims":
        return None
    axes = tuple(src.params["axes"][a] for a in node.params["axes"])
    if axes == tuple(range(len(axes))):
        return (src.inputs[0],)
    return Node(node.prim, dict(node.params, axes=axes), [src.inputs[0]], node.outputs)


def sum_of_constant(node, inputs, ctx):
    """The sum of a constant whose elements all equal ``v`` (AD's broadcast ``ones``):
    the constant ``v * n`` (``n`` the number of elements summed), the sum to rounding
    (exact for the small integers AD's seeds hold)."""
    v = _constant_value(inputs[0])
    if v is None:
        return None
    o = node.outputs[0]
    n = int(np.prod([inputs[0].shape[a] for a in node.params["axes"]], dtype=np.int64))
    return (_ops.full(o.shape, np.asarray(v).astype(o.dtype) * n, dtype=o.dtype,
                      device=ctx.device),)


def sum_of_broadcast(node, inputs, ctx):
    """``sum(broadcast_to(x, shape), axes)``: ``x`` summed over its own reduced axes
    only, times the number of broadcast copies summed, then reshaped/broadcast to the
    output (no reduction at all when only broadcast axes are summed).  Not when an axis
    has size 0 (the copies' sum is 0 where ``x * 0`` may be nan)."""
    src = ctx.producer(inputs[0])
    if src is None or src.prim.name != "broadcast_to":
        return None
    x, shape = src.inputs[0], src.params["shape"]
    if 0 in shape:
        return None
    axes, out_dtype = node.params["axes"], node.params["out_dtype"]
    lead = len(shape) - len(x.shape)
    own = tuple(i - lead for i in axes if i >= lead and x.shape[i - lead] == shape[i])
    copies = int(np.prod([shape[i] for i in axes if i < lead or x.shape[i - lead] != shape[i]],
                         dtype=np.int64))
    kept = tuple(1 if i < lead else x.shape[i - lead] for i in range(len(shape))
                 if i not in axes)

    def replacement(x):
        r = _ops.sum(x, axis=own, dtype=out_dtype) if own else x
        r = r.astype(out_dtype) if r.dtype != out_dtype else r
        r = r * copies if copies != 1 else r
        return _ops.broadcast_to(_ops.reshape(r, kept), node.outputs[0].shape)
    return Splice(make_graph(replacement, TensorSpec(x.shape, x.dtype, ctx.device)), [x])


for _name in ("multiply", "add", "subtract", "divide"):
    register_rewrite(_name, unit_operand)
register_rewrite("conj", conj_of_real)
register_rewrite("reshape", reshape_of_reshape)
register_rewrite("permute_dims", transpose_of_transpose)
register_rewrite("sum", sum_of_constant)
register_rewrite("sum", sum_of_broadcast)


def algebraic_simplification(graph):
    """The ``simplify`` pass: every node through the rules of its primitive, these
    built-in ones and those registered with
    :func:`~tenferro.graph.register_rewrite` (:func:`.rewrite.apply_rules`)."""
    return apply_rules(graph)
