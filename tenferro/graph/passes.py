"""Compiler passes over traced graphs (tenferro-rs's GraphCompiler), and their registry.

A pass is a function ``Graph -> Graph`` that returns a new graph (its input is never
modified; :func:`~.rewrite.rewrite_graph` is the helper to write one with).  The
registry maps names to passes in run order: the built-in ones (``fold``, ``simplify``,
``transpose``, ``plans``, ``cse``, ``dce``, ``fuse``) and those an extension adds with
:func:`register_pass`.  ``PASSES`` is the tuple of the default passes' names, in order:
what ``tenferro.compile(graph)`` and ``tenferro.jit(f)`` run; ``compile(graph,
passes=...)`` runs the named ones instead (any registered pass, in the order given), so
each can be switched off by name for debugging.  A pattern (one primitive's rewrite) is
not a pass: :func:`~.rewrite.register_rewrite` adds it to ``simplify``.
"""
from __future__ import annotations

import collections
import threading
from typing import Callable, Iterable

import numpy as np

from .._ir import AbstractArray, Graph, Node, Var, is_abstract
from .._ops import to_numpy
from .._ops.einsum import build_plan, einsum_p
from .._primitive import bind
from .fusion import elementwise_fusion
from .rewrite import Splice, rewrite_graph
from .simplify import stored_elements, algebraic_simplification

#: a compiler pass: a function of a graph returning a new graph
Pass = Callable[[Graph], Graph]

__all__ = ["register_pass", "unregister_pass", "registered_passes", "lookup_passes",
           "PASSES"]


def _key(x):
    """A node input's identity for CSE: a variable's, a small constant's value (two
    ``2.0`` literals are the same constant), a large constant's object."""
    if isinstance(x, Var):
        return ("v", id(x))
    if x.size <= 16 and not is_abstract(x):
        a = np.asarray(to_numpy(x))
        return ("c", a.dtype.str, a.shape, a.tobytes(), x.device)
    return ("c", id(x))


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
    return rewrite_graph(graph, fn)


# A folded constant is kept only if it holds at most this many more elements in memory
# than the node's inputs (a scalar seed broadcast to a large shape stays a stride-0 view
# and is kept; a large array computed from such views is left to run at run time).
FOLD_EXPANSION_LIMIT = 4096


def constant_folding(graph):
    """Nodes whose inputs are all constants, computed once at compile time -- except
    where the result would hold over ``FOLD_EXPANSION_LIMIT`` more elements than its
    inputs (the program would carry it and run no faster)."""
    def fn(node, inputs):
        if any(isinstance(i, Var) for i in inputs):
            return None
        out = bind(node.prim, tuple(inputs), node.params)
        outs = out if node.prim.multiple_results else (out,)
        if sum(stored_elements(o) for o in outs) - sum(stored_elements(i) for i in inputs) > \
                FOLD_EXPANSION_LIMIT:
            return None
        return outs
    return rewrite_graph(graph, fn)


def _canonical(ins, out):
    """Einsum labels renumbered 0, 1, ... in order of appearance (as a plan's params)."""
    number = {}
    for l in [l for t in ins for l in t] + list(out):
        number.setdefault(l, len(number))
    return (tuple(tuple(number[l] for l in t) for t in ins),
            tuple(number[l] for l in out))


def _einsum_params(plans, ins, out, inputs, node, dev):
    """The einsum parameters (labels and plan) for labels ``ins`` of ``inputs`` ->
    ``out``, in place of einsum ``node``: one plan per signature (labels, shapes,
    dtype) in ``plans``; a new one is built with the contraction order of ``node``'s
    (relabelling an operand or the output changes no contraction's cost) for the
    strides of freshly computed values (any strides run correctly)."""
    ins, out = _canonical(ins, out)
    shapes = tuple(tuple(x.shape) for x in inputs)
    dtype = inputs[0].dtype
    key = (ins, out, shapes, dtype)
    plan = plans.get(key)
    if plan is None:
        plan = node.params["plan"]
        if key != (plan.params["ins"], plan.params["out"],
                   tuple(tuple(x.shape) for x in node.inputs), node.inputs[0].dtype):
            plan = build_plan((ins, out), shapes,
                              [AbstractArray(s, dtype).strides for s in shapes],
                              tuple(plan.path), dev.driver, dtype)
            plan.work, plan.cast = dtype, None
        plans[key] = plan
    return plan.params


# elementwise primitives of one operand that commute with a transpose
_SINK = frozenset(("conj", "negative", "real", "imag", "convert"))


def transpose_folding(graph):
    """Transposes folded into the contractions that read or produce them (tenferro-rs
    folds them into the labels of its contractions): an einsum operand that is a
    ``permute_dims`` of ``x`` (or a chain of them) becomes ``x`` with its labels
    permuted, and an einsum whose only use is a ``permute_dims`` computes the
    permuted output directly (its output labels permuted).  A transpose under a
    conj, negative, real, imag or convert that feeds an einsum (AD's conjugated
    operands) is moved after it first, so that it folds too.  Each rewritten einsum
    gets a plan for its new labels (same contraction order); the transposes left
    without a use are removed by ``dce``.

    ``matmul`` is left alone: its CPU kernel folds a transposed operand (a strided
    view) into BLAS's trans flags at no cost."""
    dev = graph.device
    uses = collections.Counter(id(i) for n in graph.nodes for i in n.inputs
                               if isinstance(i, Var))
    uses.update(id(o) for o in graph.outs if isinstance(o, Var))
    consumer = {id(i): n for n in graph.nodes for i in n.inputs if isinstance(i, Var)}
    producers, dropped, plans = {}, set(), {}
    feeds = {id(i) for n in graph.nodes if n.prim is einsum_p for i in n.inputs}
    for n in reversed(graph.nodes):   # the values that reach an einsum through _SINK ops
        if n.prim.name in _SINK and id(n.outputs[0]) in feeds:
            feeds.add(id(n.inputs[0]))

    def folded_out(node):
        """(output labels, output var) of einsum ``node`` after the chain of transposes
        that alone use its output; the transposes are dropped."""
        out, v = node.params["out"], node.outputs[0]
        while uses[id(v)] == 1 and id(v) in consumer:
            p = consumer[id(v)]
            if p.prim.name != "permute_dims":
                break
            out = tuple(out[a] for a in p.params["axes"])
            v = p.outputs[0]
            dropped.add(id(p))
        return out, v

    def fn(node, inputs):
        if id(node) in dropped:
            return ()    # its output is computed by the einsum it followed
        src = producers.get(id(inputs[0])) if inputs else None
        if (node.prim.name in _SINK and id(node.outputs[0]) in feeds and src is not None
                and src.prim.name == "permute_dims"):   # f(x.T) as f(x).T
            x, o = src.inputs[0], node.outputs[0]
            w = Var(x.shape, o.dtype)
            return Splice(Graph((), (), [Node(node.prim, node.params, [x], [w]),
                                          Node(src.prim, src.params, [w], [o])], [o], None),
                           [])
        if node.prim is einsum_p:
            args, ins = [], []
            for x, labels in zip(inputs, node.params["ins"]):
                src = producers.get(id(x))
                while src is not None and src.prim.name == "permute_dims":
                    relabelled = [None] * len(labels)
                    for l, a in zip(labels, src.params["axes"]):
                        relabelled[a] = l
                    labels, x = tuple(relabelled), src.inputs[0]
                    src = producers.get(id(x))
                args.append(x)
                ins.append(labels)
            out, v = folded_out(node)
            node = Node(einsum_p, _einsum_params(plans, ins, out, args, node, dev), args, [v])
        else:
            node = Node(node.prim, node.params, inputs, node.outputs)
        for v in node.outputs:
            producers[id(v)] = node
        return node
    return rewrite_graph(graph, fn)


def share_einsum_plans(graph):
    """One plan object for all the einsum nodes of one signature (labels, shapes,
    dtype), whatever subscripts or path options they were traced with; ``cse`` then
    also merges such nodes when they have the same operands."""
    dev, plans = graph.device, {}

    def fn(node, inputs):
        if node.prim is not einsum_p:
            return None
        p = _einsum_params(plans, node.params["ins"], node.params["out"], inputs, node, dev)
        return Node(einsum_p, p, inputs, node.outputs)
    return rewrite_graph(graph, fn)


def dead_code_elimination(graph):
    """The graph without the nodes whose outputs reach no output."""
    live = {id(o) for o in graph.outs if isinstance(o, Var)}
    keep = []
    for node in reversed(graph.nodes):
        if any(id(v) in live for v in node.outputs):
            keep.append(node)
            live.update(id(i) for i in node.inputs if isinstance(i, Var))
    return graph.with_nodes(keep[::-1])


# -- the registry -------------------------------------------------------------------------

_BUILTIN = (("fold", constant_folding), ("simplify", algebraic_simplification),
            ("transpose", transpose_folding), ("plans", share_einsum_plans),
            ("cse", common_subexpression_elimination), ("dce", dead_code_elimination),
            ("fuse", elementwise_fusion))
# The registry, replaced (never modified) by each registration: name -> function in
# run order, the names registered with default=False (run only where named), and the
# names of the default passes (PASSES, rebound with it: read it as ``passes.PASSES``, a
# copy taken by ``from .passes import PASSES`` does not follow registrations).
_registry = (dict(_BUILTIN), frozenset(), tuple(name for name, _ in _BUILTIN))
PASSES = _registry[2]
_lock = threading.Lock()


def _install(passes, optional):
    global _registry, PASSES
    _registry = (passes, optional, tuple(p for p in passes if p not in optional))
    PASSES = _registry[2]


def register_pass(name: str, fn: Pass, *, before: str | None = None, after: str | None = None,
                  default: bool = True, replace: bool = False) -> Pass:
    """Register a compiler pass: a function ``Graph -> Graph`` returning a new graph.

    The built-in passes are ``fold``, ``simplify``, ``transpose``, ``plans``, ``cse``,
    ``dce`` and ``fuse`` (docs/traced.md); a pass is written with
    :func:`rewrite_graph` and must not modify its input.  With ``default`` the pass
    joins ``PASSES``: every program compiled from then on with the default passes
    (``tenferro.compile(graph)``, ``tenferro.jit(f)``) runs it; with ``default=False``
    only a ``compile(graph, passes=(..., name))`` that names it does.

    Parameters
    ----------
    name : str
        The pass's name.
    fn : callable
        The pass.
    before : str, optional
        Run just before the pass of this name (a pass that rewrites elementwise nodes
        wants ``before="fuse"``, as fusion hides them in groups).
    after : str, optional
        Run just after the pass of this name.  Neither: last, after ``fuse``.
    default : bool, default True
        Join the default passes.
    replace : bool, default False
        Replace a pass of the same name (in its place, unless ``before`` or ``after``
        says otherwise).

    Returns
    -------
    callable
        ``fn``.

    Raises
    ------
    ValueError
        If ``name`` is registered and not ``replace``, both ``before`` and ``after``
        are given, or the pass they name is unknown.
    TypeError
        If ``name`` is not a string or ``fn`` is not callable.

    See Also
    --------
    unregister_pass, registered_passes, rewrite_graph, register_rewrite

    Examples
    --------
    >>> def count_nodes(graph):
    ...     print("nodes:", len(graph.nodes))
    ...     return graph
    >>> _ = tf.graph.register_pass("count", count_nodes, default=False)
    >>> g = tf.make_graph(lambda x: tf.sin(x) * 1.0, tf.TensorSpec((2,)))
    >>> p = tf.compile(g, passes=("count", "simplify", "count"))
    nodes: 2
    nodes: 1
    >>> tf.graph.unregister_pass("count")
    """
    if not isinstance(name, str) or not callable(fn):
        raise TypeError("register_pass(name, fn): a string and a function, got %r, %r"
                        % (name, fn))
    if before is not None and after is not None:
        raise ValueError("register_pass: give before= or after=, not both")
    anchor = before if after is None else after
    with _lock:
        passes, optional, _ = _registry
        if name in passes and not replace:
            raise ValueError("register_pass: a pass %r is already registered (replace=True "
                             "replaces it); registered: %s" % (name, list(passes)))
        order = list(passes)
        if anchor is not None:
            if name in order:
                order.remove(name)
            if anchor not in order:
                raise ValueError("register_pass: no pass %r to put %r %s; registered: %s"
                                 % (anchor, name, "before" if after is None else "after",
                                    order))
            order.insert(order.index(anchor) + (after is not None), name)
        elif name not in order:
            order.append(name)
        fns = {**passes, name: fn}
        _install({p: fns[p] for p in order},
                 optional - {name} if default else optional | {name})
    return fn


def unregister_pass(name: str) -> None:
    """Remove a pass added by :func:`register_pass`.

    Built-in passes cannot be removed: switch them off with ``compile(graph,
    passes=...)``.

    Parameters
    ----------
    name : str
        The pass's name.

    Returns
    -------
    None

    Raises
    ------
    ValueError
        If no such pass is registered, or it is built in.

    Examples
    --------
    >>> _ = tf.graph.register_pass("noop", lambda graph: graph, default=False)
    >>> tf.graph.unregister_pass("noop")
    >>> "noop" in tf.graph.registered_passes()
    False
    """
    builtin = dict(_BUILTIN)
    with _lock:
        passes, optional, _ = _registry
        if name not in passes or name in builtin:
            raise ValueError("unregister_pass: %r is not a registered pass%s; those that "
                             "can be removed: %s"
                             % (name, " (it is built in)" if name in builtin else "",
                                [p for p in passes if p not in builtin]))
        _install({p: f for p, f in passes.items() if p != name}, optional - {name})


def registered_passes() -> tuple[str, ...]:
    """The names of every registered pass, in run order.

    ``PASSES`` (the default ones) and those registered with ``default=False``.

    Returns
    -------
    tuple of str
        The names.

    Examples
    --------
    >>> tf.graph.registered_passes()
    ('fold', 'simplify', 'transpose', 'plans', 'cse', 'dce', 'fuse')
    """
    return tuple(_registry[0])


def lookup_passes(names: Iterable[str] | None = None) -> tuple[tuple[str, Pass], ...]:
    """The passes ``compile`` runs for ``names``, as ``(name, function)`` pairs in that order.

    Parameters
    ----------
    names : iterable of str, optional
        Pass names; None: the default passes, ``PASSES``.

    Returns
    -------
    tuple of (str, callable)
        The passes.

    Raises
    ------
    ValueError
        Naming the unknown passes.

    Examples
    --------
    >>> [name for name, fn in tf.graph.lookup_passes(["dce", "cse"])]
    ['dce', 'cse']
    """
    table, _, defaults = _registry
    names = defaults if names is None else tuple(names)
    unknown = [p for p in names if p not in table]
    if unknown:
        raise ValueError("tenferro.compile: unknown passes %s; available: %s"
                         % (unknown, list(table)))
    return tuple((p, table[p]) for p in names)
