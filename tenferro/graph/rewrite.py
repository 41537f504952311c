"""Rewriting a graph node by node, and the table of rewrite rules.

* :func:`rewrite_graph` is the one helper every pass is written with: a new graph with
  each node passed through a function that keeps it, replaces it (by a node, a traced
  sub-graph -- :class:`Splice` -- or values) or drops it.
* The rule table maps a primitive's name to its rewrite rules, as tinygrad's
  ``PatternMatcher`` maps patterns to replacements: :func:`apply_rules` (the
  ``simplify`` pass) runs, for each node, the rules of its primitive, one after the
  other, until one returns a replacement.  :func:`register_rewrite` adds a rule (an
  extension adds a pattern without writing a pass); the built-in ones are in
  :mod:`.simplify`.

A rule is ``rule(node, inputs, ctx) -> replacement or None``: ``inputs`` are the node's
inputs after the rewrites before it, ``ctx`` a :class:`RewriteContext`
(``ctx.producer(value)``: the rewritten node computing a value; ``ctx.device``); the
replacement is anything :func:`rewrite_graph`'s function may return.  A rule returns a
replacement only when it changes something, and only one whose outputs equal the
node's (shape, dtype and values; the built-in rules keep them bit for bit, see
:mod:`.simplify`).
"""
from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, Callable

from .._ir import Node, Var

if TYPE_CHECKING:
    from .._ir import Graph
    from .._primitive import Primitive

#: a rewrite rule: ``rule(node, inputs, ctx) -> replacement or None``
Rule = Callable[[Node, list, "RewriteContext"], Any]

__all__ = ["Splice", "rewrite_graph", "RewriteContext", "register_rewrite",
           "unregister_rewrite", "rewrite_rules", "apply_rules"]


class Splice:
    """What a rewrite puts in place of a node: the nodes of a traced graph.

    Returned by the function given to :func:`rewrite_graph` (or by a rewrite rule):
    the nodes of ``graph`` with its inputs bound to ``args``; its outputs replace the
    node's (same shapes and dtypes).

    Parameters
    ----------
    graph : Graph
        The replacement, e.g. from :func:`~tenferro.make_graph`.
    args : sequence of Var or Tensor
        The values its inputs are bound to (usually the node's inputs).

    See Also
    --------
    rewrite_graph

    Examples
    --------
    >>> cube = tf.make_graph(lambda v: v * v * v, tf.TensorSpec((3,)))
    >>> g = tf.make_graph(lambda x: x ** 3.0, tf.TensorSpec((3,)))
    >>> h = tf.graph.rewrite_graph(
    ...     g, lambda node, inputs: tf.graph.Splice(cube, inputs[:1])
    ...     if node.prim.name == "power" else None)
    >>> print(h)
    { lambda a:f64[3] .
        b:f64[3] = multiply[out_dtype=float64] a a
        c:f64[3] = multiply[out_dtype=float64] b a
      in (c) }
    """
    __slots__ = ("graph", "args")

    def __init__(self, graph, args):
        self.graph, self.args = graph, args


def rewrite_graph(graph: Graph, fn: Callable[[Node, list[Any]], Any]) -> Graph:
    """A new graph with every node passed through ``fn``: the helper passes are written with.

    ``fn(node, inputs)`` gets each node in order with its inputs already substituted
    (by the rewrites before it) and returns None to keep the node (with those inputs),
    a new :class:`~tenferro.graph.Node` to put in its place, a :class:`Splice` (whose
    nodes are passed through ``fn`` in turn), or the values (Vars or constant Tensors)
    that replace its outputs (an empty list drops a node without outputs used).  The
    input graph is not modified.

    Parameters
    ----------
    graph : Graph
        The graph.
    fn : callable
        ``fn(node, inputs) -> None | Node | Splice | list``.

    Returns
    -------
    Graph
        The rewritten graph (same inputs, device and output structure).

    See Also
    --------
    Splice, register_pass, register_rewrite

    Examples
    --------
    >>> g = tf.make_graph(lambda x: tf.exp(tf.sin(x)), tf.TensorSpec((2,)))
    >>> h = tf.graph.rewrite_graph(   # drop the sin: exp(x)
    ...     g, lambda node, inputs: inputs[:1] if node.prim.name == "sin" else None)
    >>> print(h)
    { lambda a:f64[2] .
        b:f64[2] = exp[out_dtype=float64] a
      in (b) }
    """
    subst = {}

    def sub(v):
        return subst.get(id(v), v) if isinstance(v, Var) else v

    nodes = []

    def visit(node):
        inputs = [sub(i) for i in node.inputs]
        repl = fn(node, inputs)
        if repl is None:
            nodes.append(Node(node.prim, node.params, inputs, node.outputs))
        elif isinstance(repl, Node):
            nodes.append(repl)
        elif isinstance(repl, Splice):
            subst.update((id(v), a) for v, a in zip(repl.graph.in_vars, repl.args))
            for n in repl.graph.nodes:
                visit(n)
            for v, r in zip(node.outputs, repl.graph.outs):
                subst[id(v)] = sub(r)
        else:
            for v, r in zip(node.outputs, repl):
                subst[id(v)] = r

    for node in graph.nodes:
        visit(node)
    return graph.with_nodes(nodes, [sub(o) for o in graph.outs])


# -- the rule table -----------------------------------------------------------------------

_RULES = {}   # primitive name -> tuple of rules, in the order they are tried
_lock = threading.Lock()

# A replacement node goes through its primitive's rules again (rules compose); a rule
# set that keeps returning new nodes is a bug, reported after this many rounds.
MAX_ROUNDS = 64


def _prim_name(prim):
    return prim if isinstance(prim, str) else prim.name


def register_rewrite(prim: Primitive | str, rule: Rule) -> Rule:
    """Add a rewrite rule for a primitive, applied by the ``simplify`` pass.

    As tinygrad's ``PatternMatcher`` maps patterns to replacements.
    ``rule(node, inputs, ctx)`` returns None, or a replacement as
    :func:`rewrite_graph`'s function does, whose outputs equal the node's (shape, dtype
    and values); ``ctx`` is a :class:`RewriteContext`.  The rule goes after those
    already there; every program compiled with ``simplify`` from then on applies it.

    Parameters
    ----------
    prim : Primitive or str
        The primitive or its name (``"multiply"``, ``"linalg.solve"``).
    rule : callable
        The rule.

    Returns
    -------
    callable
        ``rule``.

    Raises
    ------
    ValueError
        If ``rule`` is already a rule of ``prim``.
    TypeError
        If ``rule`` is not callable.

    See Also
    --------
    unregister_rewrite, rewrite_rules, register_pass

    Examples
    --------
    >>> def double_negation(node, inputs, ctx):      # -(-x) -> x
    ...     src = ctx.producer(inputs[0])
    ...     if src is not None and src.prim.name == "negative":
    ...         return [src.inputs[0]]
    >>> _ = tf.graph.register_rewrite("negative", double_negation)
    >>> g = tf.make_graph(lambda x: tf.exp(-(-x)), tf.TensorSpec((2,)))
    >>> [n.prim.name for n in tf.compile(g, passes=("simplify", "dce")).graph.nodes]
    ['exp']
    >>> tf.graph.unregister_rewrite("negative", double_negation)
    """
    name = _prim_name(prim)
    if not callable(rule):
        raise TypeError("register_rewrite: the rule must be callable, got %r" % (rule,))
    with _lock:
        rules = _RULES.get(name, ())
        if rule in rules:
            raise ValueError("register_rewrite: %r is already a rule of %r" % (rule, name))
        _RULES[name] = rules + (rule,)
    return rule


def unregister_rewrite(prim: Primitive | str, rule: Rule) -> None:
    """Remove a rule added by :func:`register_rewrite`.

    Parameters
    ----------
    prim : Primitive or str
        The primitive or its name.
    rule : callable
        The rule.

    Returns
    -------
    None

    Raises
    ------
    ValueError
        If ``rule`` is not one of ``prim``'s rules.

    Examples
    --------
    >>> rule = lambda node, inputs, ctx: None
    >>> _ = tf.graph.register_rewrite("sin", rule)
    >>> tf.graph.unregister_rewrite("sin", rule)
    >>> tf.graph.rewrite_rules("sin")
    ()
    """
    name = _prim_name(prim)
    with _lock:
        rules = _RULES.get(name, ())
        if rule not in rules:
            raise ValueError("unregister_rewrite: %r is not a rule of %r (its rules: %s)"
                             % (rule, name, list(rules)))
        rest = tuple(r for r in rules if r is not rule)
        if rest:
            _RULES[name] = rest
        else:
            del _RULES[name]


def rewrite_rules(prim: Primitive | str | None = None
                  ) -> tuple[Rule, ...] | dict[str, tuple[Rule, ...]]:
    """The rewrite rules of a primitive, or of all of them.

    Parameters
    ----------
    prim : Primitive or str, optional
        The primitive or its name.

    Returns
    -------
    tuple or dict
        ``prim``'s rules in the order they are tried; with no argument, a dict of every
        primitive name that has rules to its rules (the built-in ones included).

    Examples
    --------
    >>> "multiply" in tf.graph.rewrite_rules()
    True
    >>> tf.graph.rewrite_rules("sin")
    ()
    """
    if prim is None:
        return dict(_RULES)
    return _RULES.get(_prim_name(prim), ())


class RewriteContext:
    """What a rewrite rule sees besides its node: the nodes producing values, and the device.

    Made by the ``simplify`` pass, one per graph.

    Parameters
    ----------
    device : Device
        The graph's device (``ctx.device``).

    See Also
    --------
    register_rewrite

    Examples
    --------
    >>> g = tf.make_graph(tf.sin, tf.TensorSpec((2,)))
    >>> ctx = tf.graph.RewriteContext(g.device)
    >>> ctx.device, ctx.producer(g.inputs[0])      # a graph input: no producer
    (device('cpu'), None)
    """
    __slots__ = ("device", "_producers")

    def __init__(self, device):
        self.device, self._producers = device, {}

    def producer(self, value):
        """The node (as rewritten so far) that computes ``value``, or None for a graph
        input or a constant."""
        return self._producers.get(id(value)) if isinstance(value, Var) else None


def apply_rules(graph):
    """The ``simplify`` pass: every node through the rules of its primitive (the first
    that returns a replacement wins; a replacement node goes through its own
    primitive's rules again).  The rules are :mod:`.simplify`'s and those registered
    with :func:`register_rewrite`."""
    ctx = RewriteContext(graph.device)
    producers, table = ctx._producers, _RULES

    def fn(node, inputs):
        for _ in range(MAX_ROUNDS):
            for rule in table.get(node.prim.name, ()):
                repl = rule(node, inputs, ctx)
                if repl is not None:
                    break
            else:
                break   # no rule applies: keep the node
            if not isinstance(repl, Node):
                return repl
            node, inputs = repl, repl.inputs
        else:
            raise RuntimeError("simplify: the rules of %r keep rewriting a node (last: %r)"
                               % (node.prim.name, rule))
        node = Node(node.prim, node.params, inputs, node.outputs)
        for v in node.outputs:
            producers[id(v)] = node
        return node
    return rewrite_graph(graph, fn)
