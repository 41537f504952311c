"""Elementwise fusion (tenferro-rs fuses elementwise chains in its GraphCompiler).

The ``fuse`` pass groups connected elementwise nodes of one output shape into single
``fused_elementwise`` nodes whose parameter ``graph`` is the group as a sub-graph (the
contract with the drivers is :mod:`tenferro._fused`).  Each driver runs a fused node
its own way: the CPU as one kernel (``devices/cpu/fused.py``), WebGPU as one generated
shader; a driver without ``fused_elementwise`` runs the sub-graph node by node.

A group is convex (no path leaves it and comes back), holds at most 128 nodes and 16
inputs plus outputs; its outputs are the members' values used outside it.
"""
import heapq

import numpy as np

from .._fused import KINDS, REDUCTIONS, fused_p
from .._ir import Graph, Node, Var
from .._tree import tree_flatten
from .trace import TensorSpec

__all__ = ["elementwise_fusion"]

MAX_OPERANDS = 16
MAX_NODES = 128


# -- the pass -----------------------------------------------------------------------------

def elementwise_fusion(graph):
    """Connected elementwise nodes of one output shape become one ``fused_elementwise``
    node (groups of two nodes or more; convex; within the kernel's operand limits)."""
    nodes = graph.nodes
    producer = {}
    for k, n in enumerate(nodes):
        for v in n.outputs:
            producer[id(v)] = k
    uses = {id(o): 1 for o in graph.outs if isinstance(o, Var)}
    for n in nodes:
        for i in n.inputs:
            uses[id(i)] = uses.get(id(i), 0) + 1
    deps = {}          # id(var) -> bitmask of the nodes it depends on (itself included)
    group = {}         # node index -> group (a list of node indices, shared)
    closed = set()     # ids of groups ended by a reduction: nothing joins them
    for k, n in enumerate(nodes):
        below = 0
        for i in n.inputs:
            if isinstance(i, Var):
                below |= deps.get(id(i), 0)
        mine = below | (1 << k)
        for v in n.outputs:
            deps[id(v)] = mine
        name = n.prim.name
        if name in REDUCTIONS:
            # a reduction ends the group of the value it reduces, if only it reads it
            i = n.inputs[0]
            g = group.get(producer.get(id(i)))
            if g is not None and id(g) not in closed and uses.get(id(i)) == 1 and \
                    0 < int(np.prod(i.shape, dtype=np.int64)) and len(g) < MAX_NODES and \
                    _drop_conflicts(nodes, n, [g], producer, deps):
                merged = sorted(g + [k])
                closed.add(id(merged))
                for j in merged:
                    group[j] = merged
            continue
        if name not in KINDS or len(n.outputs) != 1:
            continue
        shape = n.outputs[0].shape
        cands = []
        for i in n.inputs:
            p = producer.get(id(i)) if isinstance(i, Var) else None
            g = group.get(p)
            if g is not None and id(g) not in closed and \
                    nodes[p].outputs[0].shape == shape and not any(g is c for c in cands):
                cands.append(g)
        cands = _drop_conflicts(nodes, n, cands, producer, deps)
        merged = [k]
        for g in cands:
            merged.extend(g)
        merged.sort()
        if len(merged) > MAX_NODES:
            merged = [k]
        for j in merged:
            group[j] = merged
    units = {}
    for k, g in group.items():
        if len(g) > 1:
            units[id(g)] = g
    if not units:
        return graph
    readers = _readers(graph)
    groups = [c for g in units.values() for c in _split(graph, g, readers)]
    while True:
        # Each group is convex, but two can still depend on each other through members
        # no path joins inside either (B -> m in C, and o in C -> B, with no path from
        # m to o): fused, they would form a cycle.  The groups left unordered are
        # unfused, lowest first, until the rest orders.
        order, stuck = _rebuild(graph, groups, readers)
        if order is not None:
            return order
        groups = [g for i, g in enumerate(groups) if i != stuck]


def _drop_conflicts(nodes, n, cands, producer, deps):
    """The candidate groups ``n`` can join: a group is dropped when a value entering the
    merged group from outside depends on it (merging would make a cycle)."""
    while cands:
        members = set()
        for g in cands:
            members.update(g)
        entering = [i for i in n.inputs if isinstance(i, Var)
                    and producer.get(id(i)) not in members]
        for g in cands:
            for j in g:
                entering.extend(i for i in nodes[j].inputs if isinstance(i, Var)
                                and producer.get(id(i)) not in members)
        bad = None
        for g in cands:
            mask = 0
            for j in g:
                mask |= 1 << j
            if any(deps.get(id(v), 0) & mask for v in entering):
                bad = g
                break
        if bad is None:
            return cands
        cands = [g for g in cands if g is not bad]
    return cands


def _readers(graph):
    """id(var) -> the indices of the nodes reading it, with -1 for a graph output (one
    pass over the graph, so that a group's boundary costs its own size, not the graph's)."""
    readers = {}
    for o in graph.outs:
        if isinstance(o, Var):
            readers.setdefault(id(o), []).append(-1)
    for k, n in enumerate(graph.nodes):
        for i in n.inputs:
            if isinstance(i, Var):
                readers.setdefault(id(i), []).append(k)
    return readers


def _boundary(graph, members, readers):
    """(external inputs, outputs) of a group of node indices."""
    nodes = graph.nodes
    inside = {id(v) for j in members for v in nodes[j].outputs}
    ins, seen = [], set()
    for j in members:
        for i in nodes[j].inputs:
            key = id(i)
            if key not in inside and key not in seen:
                seen.add(key)
                ins.append(i)
    mset = set(members)
    outs = [nodes[j].outputs[0] for j in members
            if any(r not in mset for r in readers.get(id(nodes[j].outputs[0]), ()))]
    return ins, outs


def _split(graph, members, readers):
    """The group, cut into consecutive runs (convex, as the group is) that each fit the
    kernel's operand limit; runs of one node stay unfused."""
    ins, outs = _boundary(graph, members, readers)
    if len(ins) + len(outs) <= MAX_OPERANDS:
        return [members]
    if len(members) < 4:
        return []
    h = len(members) // 2
    runs = _split(graph, members[:h], readers) + _split(graph, members[h:], readers)
    nodes = graph.nodes
    for r in runs:   # a reduction stays with the run computing what it reduces
        last = nodes[r[-1]]
        if last.prim.name in REDUCTIONS and not any(
                last.inputs[0] is nodes[j].outputs[0] for j in r[:-1]):
            r.pop()
    return [r for r in runs if len(r) > 1]


def _rebuild(graph, groups, readers):
    """(The graph with each group replaced by a fused node, in a topological order,
    None), or (None, the index of a group left unordered) where the fused nodes would
    form a cycle."""
    nodes = graph.nodes
    unit_of = {}
    fused = []
    for g in groups:
        ins, outs = _boundary(graph, g, readers)
        sub_in = [Var(i.shape, i.dtype) for i in ins]
        ren = {id(i): v for i, v in zip(ins, sub_in)}
        sub_nodes = [Node(nodes[j].prim, nodes[j].params,
                          [ren.get(id(i), i) for i in nodes[j].inputs], nodes[j].outputs)
                     for j in g]
        sub = Graph([TensorSpec(v.shape, v.dtype, graph.device) for v in sub_in], sub_in,
                    sub_nodes, outs, tree_flatten(tuple(outs))[1], "fused", graph.device)
        fused.append(Node(fused_p, {"graph": sub}, list(ins), list(outs)))
        for j in g:
            unit_of[j] = len(fused) - 1
    # units: ("f", i) for fused node i, ("n", k) for an untouched node k
    unit_nodes, key, members = {}, {}, {}
    for k, n in enumerate(nodes):
        u = ("f", unit_of[k]) if k in unit_of else ("n", k)
        unit_nodes[u] = fused[u[1]] if u[0] == "f" else n
        key[u] = max(key.get(u, k), k)
        members.setdefault(u, []).append(k)
    prod_unit = {}
    for u, n in unit_nodes.items():
        for v in n.outputs:
            prod_unit[id(v)] = u
    preds = {u: {prod_unit[id(i)] for i in n.inputs if isinstance(i, Var) and id(i) in prod_unit}
             for u, n in unit_nodes.items()}
    succs = {u: [] for u in unit_nodes}
    for u, ps in preds.items():
        for p in ps:
            succs[p].append(u)
    indeg = {u: len(ps) for u, ps in preds.items()}
    ready = [(key[u], u) for u, d in indeg.items() if d == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        _, u = heapq.heappop(ready)
        order.append(unit_nodes[u])
        for s in succs[u]:
            indeg[s] -= 1
            if indeg[s] == 0:
                heapq.heappush(ready, (key[s], s))
    if len(order) == len(unit_nodes):
        return graph.with_nodes(order), None
    return None, min(i for kind, i in (u for u, d in indeg.items() if d > 0) if kind == "f")
