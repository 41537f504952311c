"""Einsum plans: the parsed subscripts, opt_einsum's contraction order and the steps
built for one device driver, replayable on any operands of the same signature.

A plan runs on the driver's raw arrays (no Tensor, no bind per step): the whole einsum
is one primitive, ``einsum_p``, whose derivative rules are einsums again
(tenferro/autograd/_rules/einsum.py).  opt_einsum is imported when the first plan is
built, not with tenferro."""
import collections

import numpy as np

from .parse import label_sizes, parse_subscripts
from .steps import final_step, group_step, identity, ops_of, prepare_step, sum_in, take


class Plan:
    """The steps of one einsum, replayable on any operands of the same signature.

    ``run(xs)`` maps the operands' device arrays to the result's device array;
    ``pair(x, y)``, where not None, is the same for a plan of two operands."""

    __slots__ = ("run", "pair", "path", "report", "work", "cast", "shape", "params",
                 "stepwise", "__weakref__")

    def __repr__(self):
        return "<einsum plan %s>" % self.report.splitlines()[0].strip()


def _compile_run(pre, path, steps, final):
    """``run(xs)`` for the planned steps; the one-step plans (most calls) unrolled."""
    if len(path) == 1 and path[0] == tuple(range(len(pre))) and len(pre) <= 2:
        step, = steps
        if len(pre) == 2 and pre == [None, None] and final is None:
            return lambda xs: step(xs[0], xs[1])
        pre = [f or identity for f in pre]
        final = final or identity
        if len(pre) == 1:
            p0, = pre
            return lambda xs: final(step(p0(xs[0])))
        p0, p1 = pre
        return lambda xs: final(step(p0(xs[0]), p1(xs[1])))
    pre = [f or identity for f in pre]
    final = final or identity

    def run(xs):
        xs = [f(x) for f, x in zip(pre, xs)]
        for con, step in zip(path, steps):  # opt_einsum's order
            xs.append(step(*take(xs, con)))
        return final(xs[0])
    return run


def build_plan(spec, shapes, strides, optimize, driver, dt):
    """The :class:`Plan` of einsum ``spec`` (subscripts or interleaved sublists, as
    :func:`~.parse.split_operands` returns it) for operands of these shapes and
    strides, computing in dtype ``dt`` on ``driver``; ``optimize`` as
    :func:`oe_optimize` returns it.  ``plan.work`` and ``plan.cast`` are the caller's
    to set."""
    import opt_einsum as oe

    ins, out = parse_subscripts(spec, shapes)
    size = label_sizes(ins, shapes)
    out_set = set(out)
    counts = collections.Counter(l for labels in ins for l in set(labels))
    fns = (*ops_of(driver, ("diagonal", "reshape")), sum_in(driver, dt))
    pre, terms, layouts = [], [], []
    for labels, shape, st in zip(ins, shapes, strides):
        f, labels, layout = prepare_step(labels, shape, st, size, counts, out_set, fns, dt)
        pre.append(f)
        terms.append(labels)
        layouts.append(layout)
    eq = _oe_equation(spec, terms, out)
    tshapes = [tuple(size[l] for l in t) for t in terms]
    kw = {}
    if isinstance(optimize, _Limited):
        kw["memory_limit"] = optimize.memory_limit
        optimize = optimize.algorithm
    elif isinstance(optimize, tuple):
        _check_path(optimize, len(terms))
    if len(terms) == 1:
        path, info = [(0,)], None
    else:
        if isinstance(optimize, str) and 0 in size.values():
            optimize = "greedy"  # every order costs nothing ("dp" fails on a zero cost)
        try:
            path, info = oe.contract_path(eq, *tshapes, shapes=True, optimize=optimize, **kw)
        except KeyError as e:   # an unknown optimizer name: NumPy's class, our message
            raise KeyError("tenferro.einsum: unknown optimize=%r (%s)" % (optimize, e.args[0])) \
                from None
    plan = Plan()
    plan.path = [tuple(p) for p in path]
    plan.report = str(info) if info is not None else "  Complete contraction:  %s\n" % eq
    # labels renumbered 0, 1, ...: the primitive's parameters and the interleaved
    # einsums of the rules and of the stepwise form
    number = {}
    for l in [l for t in ins for l in t] + out:
        number.setdefault(l, len(number))
    ren = lambda labels: [number[l] for l in labels]  # noqa: E731
    steps, stepwise = [], []
    cur = list(zip(terms, layouts))
    for con in plan.path:
        group = take(cur, con)
        keep = out_set.union(*[set(t) for t, _ in cur])
        step, res = group_step(group, keep, size, driver, dt)
        steps.append(step)
        stepwise.append((con, [ren(t) for t, _ in group], ren(res[0])))
        cur.append(res)
    last = final_step(cur[0][0], out, size, driver)
    plan.run = _compile_run(pre, plan.path, steps, last)
    # two operands contracted in one step with nothing before or after: that step
    plan.pair = steps[0] if pre == [None, None] and last is None and len(steps) == 1 \
        else None
    plan.shape = tuple(size[l] for l in out)
    plan.params = {"ins": tuple(tuple(ren(t)) for t in ins), "out": tuple(ren(out)),
                   "plan": plan}
    # the same computation as einsums of one step each (what ``einsum`` runs when the
    # call is differentiated); None when the plan has one step already
    plan.stepwise = None
    if len(plan.path) > 1:
        final = None if cur[0][0] == out else (ren(cur[0][0]), ren(out))
        if final is not None and len(set(out)) == len(out):  # a permutation: the last
            con, group, _ = stepwise[-1]                     # step writes the output
            stepwise[-1], final = (con, group, ren(out)), None
        plan.stepwise = ([None if t == i else (ren(i), ren(t)) for i, t in zip(ins, terms)],
                         stepwise, final)
    return plan


def _check_path(path, n):
    """An explicit contraction path must contract ``n`` operands to one, each step naming
    distinct operands that exist at that step (NumPy: RuntimeError for a path that
    leaves operands over, IndexError for an index out of range)."""
    for k, step in enumerate(path):
        if not step or len(set(step)) != len(step) or any(
                isinstance(i, bool) or not isinstance(i, (int, np.integer)) for i in step):
            raise ValueError("tenferro.einsum: step %d %r of the explicit path must name one "
                             "or more distinct operand positions" % (k, step))
        bad = [i for i in step if not 0 <= i < n]   # (NumPy takes negative positions and
        # contracts the wrong operands)
        if bad:
            raise IndexError("tenferro.einsum: step %d %r of the explicit path names operand "
                             "%d but only %d operand(s) are left at that step"
                             % (k, step, bad[0], n))
        n -= len(step) - 1
    if n != 1:
        raise RuntimeError("tenferro.einsum: invalid explicit path %r: %d more operands have "
                           "to be contracted" % (list(path), n - 1))


def _oe_equation(spec, terms, out):
    """opt_einsum's equation for the prepared terms: the user's letters where there are
    letters (so the report reads like the subscripts), fresh symbols for '...'
    dimensions and integer labels."""
    import opt_einsum as oe

    symbol = {}
    if isinstance(spec, str):
        symbol = {l: chr(l) for t in terms for l in t if not isinstance(l, tuple)}
        symbol.update({l: chr(l) for l in out if not isinstance(l, tuple)})
    taken = set(symbol.values())
    k = 0
    for l in [l for t in terms for l in t] + out:
        if l not in symbol:
            while oe.get_symbol(k) in taken:
                k += 1
            symbol[l] = oe.get_symbol(k)
            taken.add(symbol[l])
    eq = ",".join("".join(symbol[l] for l in t) for t in terms) + "->" + \
        "".join(symbol[l] for l in dict.fromkeys(out))
    return eq


class _Limited(collections.namedtuple("_Limited", "algorithm memory_limit")):
    """NumPy's ``optimize=(algorithm, memory_limit)``: the largest intermediate (in
    elements) the path may create."""


def oe_optimize(optimize):
    """What opt_einsum's ``contract_path`` takes for tenferro's ``optimize``: a string,
    a tuple path or a :class:`_Limited` (all hashable: part of the plan cache key) or a
    PathOptimizer."""
    if optimize is True:
        return "auto"
    if optimize is False or optimize is None:
        return "greedy"  # one pair at a time, in opt_einsum's cheapest-first order
    if isinstance(optimize, (list, tuple)):
        if len(optimize) == 2 and isinstance(optimize[0], str) and \
                optimize[0] != "einsum_path" and not isinstance(optimize[1], (tuple, list)):
            algorithm, limit = optimize
            if isinstance(limit, bool) or not isinstance(limit, (int, float, np.number)):
                raise TypeError("tenferro.einsum: optimize=(algorithm, memory_limit) needs a "
                                "number of elements as memory_limit, got %r" % (limit,))
            return _Limited(oe_optimize(algorithm), int(limit))
        return tuple(tuple(p) for p in optimize if p != "einsum_path")
    return optimize
