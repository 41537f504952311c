"""The plan of a sliced contraction: the labels, opt_einsum's pairwise path, and which
indices to slice.

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
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import opt_einsum

from .._ops.einsum.parse import _name, parse_subscripts

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


def parse(subscripts, shapes):
    """The :class:`Network` of ``subscripts`` for operands of ``shapes`` (diagonals and
    size-1 broadcasting refused: each label has one size)."""
    if not isinstance(subscripts, str):
        raise TypeError("%s: subscripts must be a string such as 'ij,jk->ik', got %r"
                        % (NAME, subscripts))
    try:
        ins, out = parse_subscripts(subscripts, shapes)
    except ValueError as e:
        raise ValueError(str(e).replace("tenferro.einsum", NAME)) from None
    size = {}
    for k, (labels, shape) in enumerate(zip(ins, shapes)):
        if len(set(labels)) != len(labels):
            fail("operand %d repeats a label in %r (a diagonal): take it with "
                 "tenferro.diagonal first", k, subscripts)
        for l, n in zip(labels, shape):
            if size.setdefault(l, n) != n:
                fail("label %s has size %d in operand %d but %d in an earlier operand "
                     "(shapes %s)", _name(l), n, k, size[l], list(shapes))
    if len(set(out)) != len(out):
        fail("the output of %r repeats a label", subscripts)
    return Network(tuple(map(tuple, ins)), tuple(out), size)


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


def label_of(net, name):
    """The label of the user's index ``name`` (a letter, or an int label)."""
    l = ord(name) if isinstance(name, str) and len(name) == 1 else name
    if l not in net.size:
        fail("cannot slice index %r: it is not one of the subscripts' labels", name)
    return l


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
    """(network, path, sliced labels) of a call."""
    net = parse(subscripts, shapes)
    path = find_path(net, optimize)
    if slices is not None:
        if isinstance(slices, str):
            slices = list(slices)
        sliced = tuple(dict.fromkeys(label_of(net, s) for s in slices))
    elif target_size is not None:
        if int(target_size) < 1:
            fail("target_size must be a positive number of elements, got %r", target_size)
        sliced = choose_slices(net, path, int(target_size))
    else:
        sliced = ()
    return net, path, sliced
