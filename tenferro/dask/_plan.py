"""The plan of a sliced contraction: the labels, opt_einsum's pairwise path, and which
indices to slice.

The subscripts follow ``tenferro.einsum`` (NumPy's grammar, ellipsis, diagonals, size-1
broadcasting, repeated output labels); :func:`parse` reduces them to a *network*:
distinct labels per operand, each of one size and carried by two operands or more or
by the output.  What does not fit is done by local einsums around the distributed one:
one per operand that takes its diagonals, sums the labels no other operand nor the
output carries and drops its size-1 axes that broadcast, and one on the result that
repeats output labels.  These are cheap (one pass over an operand) and differentiable
as any tenferro.einsum.

Slicing an index fixes its value: the network splits into ``size`` independent
networks each without that index, whose results are summed (an index contracted away)
or placed side by side (an index of the output).  The path is chosen once on the whole
network and kept for every slice (as cotengra's ``SliceFinder`` does); the cost model
walks that path with the sliced indices at size 1:

* memory: the largest intermediate of one slice;
* time: the flops of one slice times the number of slices, never below the unsliced
  flops (the overhead is the work a slice repeats that does not depend on its index).

``choose_slices`` slices greedily: while the largest intermediate exceeds the target,
it slices the index whose slicing gives the smallest largest intermediate, ties broken
by the smallest total flops.

The cotangent of operand ``k`` is the network of the output cotangent and the other
operands (:func:`vjp_network`), contracted along the forward's tree re-rooted at ``k``
(:func:`vjp_path`): the subtrees without ``k`` as in the forward, then the cotangent
carried from the root down to ``k``.  Each of its intermediates is one of the
forward's (a subtree's) or the complement of one inside the index space of a forward
step, so slicing bounds a cotangent's memory as it bounds the forward's; a search
anew on the cotangent's network (opt_einsum's greedy) can be far costlier.
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import opt_einsum

from .._ops.einsum.parse import label_sizes, parse_subscripts

NAME = "tenferro.dask.einsum"


def fail(msg, *args):
    raise ValueError(NAME + ": " + (msg % args if args else msg))


@dataclass(frozen=True)
class Network:
    """Operand label tuples ``ins``, output labels ``out`` and ``size`` of every label."""
    ins: tuple
    out: tuple
    size: dict

    def cost(self, path, sliced=()):
        """(largest intermediate, flops) of one slice along ``path``."""
        size = {l: 1 if l in sliced else n for l, n in self.size.items()}
        terms = [set(t) for t in self.ins]
        largest = max([math.prod(size[l] for l in t) for t in terms] + [1])
        flops = 0
        for step in path:
            picked = [terms[i] for i in step]
            for i in sorted(step, reverse=True):
                del terms[i]
            keep = set(self.out).union(*terms)
            every = set().union(*picked)
            res = every & keep
            flops += math.prod(size[l] for l in every)
            largest = max(largest, math.prod(size[l] for l in res))
            terms.append(res)
        return largest, flops

    def n_slices(self, sliced):
        return math.prod(self.size[l] for l in sliced)


@dataclass(frozen=True)
class Parsed:
    """A call's subscripts made a :class:`Network` of distinct labels, each carried by at
    least two operands or by the output, of one size: ``pre[k]`` is None or the
    interleaved labels ``(labels, kept)`` of the local ``tenferro.einsum`` that takes
    operand ``k``'s diagonals and sums its labels carried by no other operand nor the
    output, and its size-1 axes that broadcast against other operands; ``post`` is None
    or the labels ``(net.out, out)`` of the local einsum that repeats output labels
    (diagonal embedding); ``local``: the labels summed inside one operand."""
    net: Network
    pre: tuple
    post: tuple
    local: frozenset


def parse(subscripts, shapes):
    """The :class:`Parsed` subscripts for operands of ``shapes``: NumPy's grammar and
    tenferro.einsum's rules (ellipsis, diagonals, size-1 broadcasting), its errors
    naming this function."""
    if not isinstance(subscripts, str):
        raise TypeError("%s: subscripts must be a string such as 'ij,jk->ik', got %r"
                        % (NAME, subscripts))
    try:
        ins, out = parse_subscripts(subscripts, shapes)
        size = label_sizes(ins, shapes)
    except ValueError as e:
        raise ValueError(str(e).replace("tenferro.einsum", NAME)) from None
    kept = [[l for l in dict.fromkeys(labels) if size[l] == 1 or
             shape[labels.index(l)] != 1] for labels, shape in zip(ins, shapes)]
    carriers = Counter(l for labels in kept for l in labels)
    local = {l for labels in kept for l in labels if carriers[l] == 1 and l not in out}
    kept = [tuple(l for l in labels if l not in local) for labels in kept]
    uniq = tuple(dict.fromkeys(out))
    ids = {l: i for i, l in enumerate(size)}
    pre = tuple(None if tuple(labels) == k else ([ids[l] for l in labels],
                                                 [ids[l] for l in k])
                for labels, k in zip(ins, kept))
    post = None if uniq == tuple(out) else ([ids[l] for l in uniq], [ids[l] for l in out])
    used = set(uniq).union(*kept)
    net = Network(tuple(kept), uniq, {l: n for l, n in size.items() if l in used})
    return Parsed(net, pre, post, frozenset(local))


def find_path(net, optimize):
    """opt_einsum's pairwise path of ``net`` (a tuple of index tuples)."""
    if isinstance(optimize, (list, tuple)):
        return tuple(tuple(p) for p in optimize if p != "einsum_path")
    sym = {l: opt_einsum.get_symbol(i) for i, l in enumerate(net.size)}
    eq = ",".join("".join(sym[l] for l in t) for t in net.ins) + "->" + \
        "".join(sym[l] for l in net.out)
    shapes = [tuple(net.size[l] for l in t) for t in net.ins]
    path, _ = opt_einsum.contract_path(eq, *shapes, shapes=True, optimize=optimize)
    return tuple(tuple(p) for p in path)


def labels_of(parsed, names):
    """The labels of the user's indices ``names`` (letters, or int labels) to slice,
    those summed inside one operand left out (there is nothing of them to slice)."""
    labels = []
    for name in names:
        l = ord(name) if isinstance(name, str) and len(name) == 1 else name
        if l not in parsed.net.size and l not in parsed.local:
            fail("cannot slice index %r: it is not one of the subscripts' labels", name)
        if l in parsed.net.size and l not in labels:
            labels.append(l)
    return tuple(labels)


def choose_slices(net, path, target_size):
    """Labels to slice so that the largest intermediate holds at most ``target_size``
    elements (greedy, see the module docstring)."""
    sliced = []
    largest, _ = net.cost(path)
    while largest > target_size:
        options = [l for l, n in net.size.items() if n > 1 and l not in sliced]
        if not options:
            fail("no slicing brings the largest intermediate to target_size=%d elements",
                 target_size)
        best = min(options, key=lambda l: (net.cost(path, sliced + [l])[0],
                                           net.cost(path, sliced + [l])[1]
                                           * net.n_slices(sliced + [l])))
        sliced.append(best)
        largest, _ = net.cost(path, sliced)
    return tuple(sliced)


def plan(subscripts, shapes, slices, optimize, target_size):
    """(:class:`Parsed`, path, sliced labels) of a call.  Labels of size 0 are not
    sliced (nothing to split: the contraction is empty or zero)."""
    parsed = parse(subscripts, shapes)
    net = parsed.net
    found = ()
    if hasattr(optimize, "search"):   # a cotengra optimizer: its tree, and its slicing
        path, found = cotengra_plan(net, optimize)
    else:
        path = find_path(net, optimize)
    if slices is not None:
        sliced = labels_of(parsed, list(slices) if isinstance(slices, str) else slices)
    elif target_size is not None:
        if int(target_size) < 1:
            fail("target_size must be a positive number of elements, got %r", target_size)
        sliced = choose_slices(net, path, int(target_size))
    else:
        sliced = found
    return parsed, path, tuple(l for l in sliced if net.size[l] != 0)


def cotengra_plan(net, optimizer):
    """(pairwise path, sliced labels) of ``net`` from a cotengra optimizer
    (``HyperOptimizer``, with ``slicing_opts`` to slice): the contraction tree its
    search finds, and the indices that tree slices (cotengra's ``SliceFinder``)."""
    sym = {l: opt_einsum.get_symbol(i) for i, l in enumerate(net.size)}
    back = {v: l for l, v in sym.items()}
    tree = optimizer.search([tuple(sym[l] for l in t) for t in net.ins],
                            tuple(sym[l] for l in net.out),
                            {sym[l]: n for l, n in net.size.items()})
    return (tuple(tuple(p) for p in tree.get_path()),
            tuple(back[i] for i in tree.sliced_inds))


def vjp_network(net, k):
    """The network of operand ``k``'s cotangent: the output cotangent (labels
    ``net.out``) and the other operands in order, to operand ``k``'s labels (each
    carried by another operand or the output, :func:`parse`)."""
    return Network((net.out,) + net.ins[:k] + net.ins[k + 1:], net.ins[k], net.size)


def rerooted_path(n_ops, path, k):
    """The pairwise path of :func:`vjp_network` ``k`` that follows the forward's
    ``path`` (see the module docstring); None where ``path`` is not pairwise."""
    from opt_einsum.paths import ssa_to_linear

    if n_ops < 2 or any(len(step) != 2 for step in path):
        return None
    ids, children = list(range(n_ops)), {}
    for step in path:                 # the forward's tree, nodes numbered in SSA form
        picked = [ids[i] for i in step]
        for i in sorted(step, reverse=True):
            del ids[i]
        children[n_ops + len(children)] = picked
        ids.append(n_ops + len(children) - 1)

    def holds_k(node):
        return node == k or node in children and any(map(holds_k, children[node]))
    ssa = []

    def pair(x, y):
        ssa.append((x, y))
        return n_ops + len(ssa) - 1

    def emit(node):   # a subtree without k; operand j is input j + 1 (j < k) or j
        if node < n_ops:
            return node + 1 if node < k else node
        return pair(*map(emit, children[node]))
    node, env = ids[0], 0             # the cotangent, input 0, at the root
    while node != k:
        inner, sibling = sorted(children[node], key=lambda c: not holds_k(c))
        env, node = pair(env, emit(sibling)), inner
    return tuple(map(tuple, ssa_to_linear(ssa)))


def vjp_path(net, path, k):
    """The path of operand ``k``'s cotangent: :func:`rerooted_path`, or opt_einsum's
    greedy search where the forward's path is not pairwise."""
    p = rerooted_path(len(net.ins), path, k)
    return find_path(vjp_network(net, k), "greedy") if p is None else p
