"""``einsum``: NumPy's grammar, opt_einsum's contraction order, cached plans.

A call is parsed once per (subscripts, shapes, dtypes, strides, optimize, device
driver) into a :class:`_Plan` kept in a bounded LRU cache (:func:`einsum_cache_info`).
The whole einsum is one primitive, ``einsum_p``, whose rules are einsums again; its
plan runs on the driver's raw arrays:

1. per operand: repeated labels become diagonals (strided views), size-1 axes of a
   broadcast label are dropped, labels found in this operand only (and not in the
   output) are summed;
2. groups are contracted in opt_einsum's order (``optimize=``), pair by pair, each as
   the driver's grouped contraction ``[batch, M, K] x [batch, K, N]`` (on the CPU one
   Cython call: axis groups folded into BLAS strides where the layout allows, one
   blocked copy of an operand where it does not) -- or, with no label to contract, as
   a broadcast product (outer and Hadamard products);
3. the result is permuted to the output's order (a view), and labels repeated in the
   output (``i->ii``, which NumPy rejects) are embedded as diagonals of zeros.
"""
import collections
import operator
import string

import numpy as np

from .. import _dtypes
from .._primitive import Primitive, bind, _interpreters
from .._tensor import Tensor, _wrap
from ._common import common_device, normalize_axis, to_tensor
from .reduction import sum as _sum
from .shape import diagonal

__all__ = ["einsum", "einsum_path", "einsum_cache_info", "einsum_cache_clear",
           "einsum_cache_resize", "tensordot", "inner", "kron", "trace"]

_ELL = "..."


class EinsumCacheInfo(collections.namedtuple("EinsumCacheInfo", "hits misses size maxsize")):
    """Statistics of the einsum plan cache."""


_cache = collections.OrderedDict()
_stats = {"hits": 0, "misses": 0, "maxsize": 256}


def einsum_cache_info():
    """Hits, misses, current size and bound of the einsum plan cache."""
    return EinsumCacheInfo(_stats["hits"], _stats["misses"], len(_cache), _stats["maxsize"])


def einsum_cache_clear():
    """Forget every cached plan and reset the statistics."""
    _cache.clear()
    _stats["hits"] = _stats["misses"] = 0


def einsum_cache_resize(maxsize):
    """Bound the plan cache to ``maxsize`` entries (0 disables caching)."""
    if int(maxsize) < 0:
        raise ValueError("tenferro.einsum_cache_resize: maxsize must be >= 0, got %r" % maxsize)
    _stats["maxsize"] = int(maxsize)
    while len(_cache) > _stats["maxsize"]:
        _cache.popitem(last=False)


# -- parsing ------------------------------------------------------------------------------

def _fail(msg, *args):
    raise ValueError("tenferro.einsum: " + (msg % args if args else msg))


def _split_operands(args, op="einsum"):
    """(spec, operands): ``spec`` is the subscripts string or, for the interleaved form,
    a tuple (input sublists, output sublist or None).  No operand is a ValueError, as
    in NumPy."""
    if args and isinstance(args[0], str):
        spec, ops = args[0], list(args[1:])
    else:
        ops, subs = [], []
        rest = list(args)
        while len(rest) >= 2:
            ops.append(rest.pop(0))
            subs.append(tuple(rest.pop(0)))
        spec = (tuple(subs), tuple(rest.pop(0)) if rest else None)
    if not ops:
        raise ValueError("tenferro.%s: expected the subscripts and at least one operand "
                         "(or operands each followed by its sublist), got %d argument(s)"
                         % (op, len(args)))
    return spec, ops


def _term_labels(term, where):
    """Labels of one string term: ints (character codes) and one optional ``...``."""
    labels = []
    i = 0
    while i < len(term):
        c = term[i]
        if c == ".":
            if term[i:i + 3] != _ELL or _ELL in labels:
                _fail("invalid ellipsis in %s %r: '...' may appear once, as three dots",
                      where, term)
            labels.append(_ELL)
            i += 3
            continue
        if c not in string.ascii_letters:
            _fail("invalid subscript %r in %s %r: labels are ASCII letters (or use the "
                  "interleaved form with integer labels)", c, where, term)
        labels.append(ord(c))
        i += 1
    return labels


def _sublist_labels(sub, where):
    labels = []
    for s in sub:
        if s is Ellipsis:
            if _ELL in labels:
                _fail("%s %r has more than one Ellipsis", where, sub)
            labels.append(_ELL)
        elif isinstance(s, (int, np.integer)) and not isinstance(s, bool) and s >= 0:
            labels.append(int(s))
        else:
            _fail("invalid label %r in %s %r: interleaved labels are non-negative integers "
                  "or Ellipsis", s, where, sub)
    return labels


def _parse(spec, shapes):
    """(input label lists, output label list) with every ``...`` expanded."""
    if isinstance(spec, str):
        s = spec.replace(" ", "")
        if s.count("->") > 1:
            _fail("subscripts %r contain more than one '->'", spec)
        lhs, arrow, rhs = s.partition("->")
        if "-" in lhs or ">" in lhs or "-" in rhs or ">" in rhs:
            _fail("invalid '->' in subscripts %r", spec)
        terms = lhs.split(",")
        if len(terms) != len(shapes):
            _fail("subscripts %r have %d input term(s) but %d operand(s) were given",
                  spec, len(terms), len(shapes))
        ins = [_term_labels(t, "input term") for t in terms]
        out = _term_labels(rhs, "output") if arrow else None
        shown = terms
    else:
        subs, out_sub = spec
        ins = [_sublist_labels(t, "input sublist") for t in subs]
        out = _sublist_labels(out_sub, "output sublist") if out_sub is not None else None
        shown = [str(list(t)) for t in subs]
    # expand the ellipses (right-aligned, broadcast across operands)
    ell_dims = []
    for k, (labels, shape, t) in enumerate(zip(ins, shapes, shown)):
        named = len(labels) - (_ELL in labels)
        if _ELL in labels:
            if named > len(shape):
                _fail("term %r of operand %d has %d labels but the operand has only %d "
                      "dimension(s) (shape %s)", t, k, named, len(shape), shape)
            ell_dims.append(len(shape) - named)
        elif named != len(shape):
            _fail("term %r of operand %d has %d label(s) but the operand has %d "
                  "dimension(s) (shape %s)", t, k, named, len(shape), shape)
        else:
            ell_dims.append(0)
    n_ell = max(ell_dims, default=0)
    ell_labels = [(_ELL, p) for p in range(n_ell)]
    expanded = []
    for labels, nd in zip(ins, ell_dims):
        if _ELL in labels:
            i = labels.index(_ELL)
            labels = labels[:i] + ell_labels[n_ell - nd:] + labels[i + 1:]
        expanded.append(labels)
    if out is None:  # implicit output: '...' first, then labels seen once, sorted
        counts = collections.Counter(l for labels in expanded for l in labels
                                     if not isinstance(l, tuple))
        out = ell_labels + sorted(l for l, c in counts.items() if c == 1)
    else:
        if _ELL in out:
            i = out.index(_ELL)
            out = out[:i] + ell_labels + out[i + 1:]
        elif any(ell_dims):
            _fail("the operands have dimensions covered by '...' but the output %r has no "
                  "'...' to broadcast them to", spec if isinstance(spec, str) else out)
        seen = {l for labels in expanded for l in labels}
        for l in out:
            if l not in seen:
                _fail("output label %s does not appear in any input term", _name(l))
    return expanded, list(out)


def _name(label):
    if isinstance(label, tuple):
        return "'...'(dimension %d)" % label[1]
    return repr(chr(label)) if 65 <= label <= 122 and chr(label).isalpha() else str(label)


def _sizes(ins, shapes):
    """Size per label (size-1 axes broadcast against others, as NumPy)."""
    size = {}
    for k, (labels, shape) in enumerate(zip(ins, shapes)):
        own = {}
        for l, n in zip(labels, shape):
            if own.setdefault(l, n) != n:  # a diagonal: no broadcasting (NumPy)
                _fail("dimensions in operand %d for collapsing label %s don't match "
                      "(%d != %d)", k, _name(l), own[l], n)
            m = size.get(l)
            if m is None or m == 1:
                size[l] = n
            elif n != m and n != 1:
                _fail("size mismatch for label %s: %d in operand %d but %d in an earlier "
                      "operand", _name(l), n, k, m)
    return size


# -- planning ----------------------------------------------------------------------------
#
# A plan is built once per signature for one device driver and runs on the driver's raw
# arrays (no Tensor, no bind per step): the whole einsum is one primitive, ``einsum_p``,
# whose derivative rules are einsums again (tenferro/autograd/_rules/einsum.py).
#
# While planning, each intermediate carries its *layout*: its labels from the largest
# stride to the smallest.  Inside a group of labels (M, K or N of a pairwise product)
# the order follows the layout, so that the group folds into one matrix dimension
# without a copy whenever the strides allow it (the kernel checks, and copies otherwise).

class _Plan:
    """The steps of one einsum, replayable on any operands of the same signature.

    ``run(xs)`` maps the operands' device arrays to the result's device array."""

    __slots__ = ("run", "path", "report", "work", "cast", "shape", "params",
                 "stepwise", "__weakref__")

    def __repr__(self):
        return "<einsum plan %s>" % self.report.splitlines()[0].strip()


def _compile_run(pre, path, steps, final):
    """``run(xs)`` for the planned steps; the one-step plans (most calls) unrolled."""
    if len(path) == 1 and path[0] == tuple(range(len(pre))) and len(pre) <= 2:
        step, = steps
        if len(pre) == 2 and pre == [None, None] and final is None:
            return lambda xs: step(xs[0], xs[1])
        pre = [f or _identity for f in pre]
        final = final or _identity
        if len(pre) == 1:
            p0, = pre
            return lambda xs: final(step(p0(xs[0])))
        p0, p1 = pre
        return lambda xs: final(step(p0(xs[0]), p1(xs[1])))
    pre = [f or _identity for f in pre]
    final = final or _identity

    def run(xs):
        xs = [f(x) for f, x in zip(pre, xs)]
        for con, step in zip(path, steps):  # opt_einsum's order
            xs.append(step(*_take(xs, con)))
        return final(xs[0])
    return run


def _identity(x):
    return x


def _take(xs, con):
    """Remove the operands ``con`` of one path step from ``xs``; return them."""
    args = [xs[i] for i in con]
    for k in sorted(con, reverse=True):
        del xs[k]
    return args


def _layout(labels, strides):
    """Labels from the outermost (largest stride) to the innermost axis."""
    return [l for _, _, l in sorted(zip([-abs(s) for s in strides], range(len(labels)),
                                        labels))]


def _ordered(labels, layout):
    return sorted(labels, key=layout.index)


def _ops_of(driver, names):
    """The driver's implementations of ``names`` (UnsupportedOperation for a missing
    one, at planning time: before anything runs)."""
    return [driver.lookup(n, driver.name) for n in names]


def _sum_in(driver, dt):
    """``f(x, axes=)``: the driver's sum of ``x`` over ``axes`` in ``dt``.  An int32 sum
    accumulates in int64 (the kernels' loop, NumPy's sum) and wraps back to int32: the
    value NumPy's int32 einsum returns."""
    total, = _ops_of(driver, ("sum",))
    if dt.kind != "i" or dt == _dtypes.int64:
        return lambda x, axes: total(x, axes=axes, out_dtype=dt)
    convert, = _ops_of(driver, ("convert",))
    return lambda x, axes: convert(total(x, axes=axes, out_dtype=_dtypes.int64), dtype=dt)


def _prepare_step(labels, shape, strides, size, counts, out_set, fns, dt):
    """(function of the operand's device array or None, its labels, its layout): repeated
    labels become diagonals (views), size-1 axes of broadcast labels are dropped, labels
    found in this operand only (and not in the output) are summed."""
    diagonal, reshape, total = fns
    labels, shape, strides = list(labels), list(shape), list(strides)
    ops = []
    while len(set(labels)) != len(labels):  # repeated label: its diagonal (a view)
        l = next(l for l in labels if labels.count(l) > 1)
        p = labels.index(l)
        q = labels.index(l, p + 1)
        ops.append((diagonal, {"offset": 0, "axis1": p, "axis2": q}))
        n, s = min(shape[p], shape[q]), strides[p] + strides[q]
        keep = [i for i in range(len(labels)) if i not in (p, q)]
        labels = [labels[i] for i in keep] + [l]
        shape = [shape[i] for i in keep] + [n]
        strides = [strides[i] for i in keep] + [s]
    drop = [i for i, (l, n) in enumerate(zip(labels, shape)) if n == 1 and size[l] != 1]
    if drop:  # a size-1 axis broadcast against a longer one: independent of that label
        keep = [i for i in range(len(labels)) if i not in drop]
        labels = [labels[i] for i in keep]
        shape = [shape[i] for i in keep]
        strides = [strides[i] for i in keep]
        ops.append((reshape, {"shape": tuple(shape), "copy": None}))
    layout = _layout(labels, strides)
    own = tuple(i for i, l in enumerate(labels) if counts[l] == 1 and l not in out_set)
    if own:
        ops.append((total, {"axes": own}))
        labels = [l for i, l in enumerate(labels) if i not in own]
        layout = list(labels)  # the reduction's result is C-contiguous
    return _chain(ops), labels, layout


def _chain(ops):
    """One function applying ``(fn, params)`` pairs in turn (None for no op)."""
    if not ops:
        return None
    if len(ops) == 1:
        (f, kw), = ops
        return lambda x: f(x, **kw)

    def run(x):
        for f, kw in ops:
            x = f(x, **kw)
        return x
    return run


def _plan(spec, shapes, strides, optimize, driver, dt):
    import opt_einsum as oe

    ins, out = _parse(spec, shapes)
    size = _sizes(ins, shapes)
    out_set = set(out)
    counts = collections.Counter(l for labels in ins for l in set(labels))
    fns = (*_ops_of(driver, ("diagonal", "reshape")), _sum_in(driver, dt))
    pre, terms, layouts = [], [], []
    for labels, shape, st in zip(ins, shapes, strides):
        f, labels, layout = _prepare_step(labels, shape, st, size, counts, out_set, fns, dt)
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
    plan = _Plan()
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
        group = _take(cur, con)
        keep = out_set.union(*[set(t) for t, _ in cur])
        step, res = _group_step(group, keep, size, driver, dt)
        steps.append(step)
        stepwise.append((con, [ren(t) for t, _ in group], ren(res[0])))
        cur.append(res)
    plan.run = _compile_run(pre, plan.path, steps, _final_step(cur[0][0], out, size, driver))
    plan.shape = tuple(size[l] for l in out)
    plan.params = {"ins": tuple(tuple(ren(t)) for t in ins), "out": tuple(ren(out)),
                   "plan": plan}
    # the same computation as einsums of one step each (see _run_stepwise); None when
    # the plan has one step already
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


def _run_stepwise(plan, ts):
    """The plan's contraction as one einsum per step, on Tensors.

    Used when the call is differentiated: each step is then one node of the tape or
    trace whose rules contract just its own operands, so a backward pass follows the
    forward path and reuses its intermediates (about twice the forward's cost), where
    the rule of the whole einsum would contract the whole network once per operand."""
    pre, steps, final = plan.stepwise
    ts = [t if p is None else einsum(t, p[0], p[1]) for t, p in zip(ts, pre)]
    for con, ins, res in steps:
        args = []
        for t, labels in zip(_take(ts, con), ins):
            args += [t, labels]
        ts.append(einsum(*args, res))
    t, = ts
    return t if final is None else einsum(t, final[0], final[1])


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


def _perm(perm):
    """Axes for ``permute_dims`` (``None`` for the identity)."""
    perm = tuple(perm)
    return None if perm == tuple(range(len(perm))) else perm


def _group_step(group, keep, size, driver, dt):
    """(function of the device arrays of one contraction, (result labels, layout)): one
    operand alone sums what nothing else needs; several are folded pairwise."""
    if len(group) == 1:
        (la, lay), = group
        axes = tuple(i for i, l in enumerate(la) if l not in keep)
        labels = [l for l in la if l in keep]
        if not axes:
            return _identity, (labels, lay)
        total = _sum_in(driver, dt)
        return (lambda x: total(x, axes=axes)), (labels, labels)
    steps = []
    cur = group[0]
    for k in range(1, len(group)):
        later = set().union(*[set(t) for t, _ in group[k + 1:]])
        step, cur = _pair_step(cur, group[k], keep | later, size, driver, dt)
        steps.append(step)
    if len(steps) == 1:
        return steps[0], cur

    def run(x, *ys):
        for step, y in zip(steps, ys):
            x = step(x, y)
        return x
    return run, cur


def _pair_step(a, b, keep, size, driver, dt):
    """(function contracting the device arrays of terms ``a`` and ``b``, (result labels,
    layout)); a term is (labels, layout)."""
    (la, lay_a), (lb, lay_b) = a, b
    sa, sb = set(la), set(lb)
    # labels of one side that nothing else needs: summed first
    ra = tuple(i for i, l in enumerate(la) if l not in sb and l not in keep)
    rb = tuple(i for i, l in enumerate(lb) if l not in sa and l not in keep)
    if ra:
        la = lay_a = [l for i, l in enumerate(la) if i not in ra]
    if rb:
        lb = lay_b = [l for i, l in enumerate(lb) if i not in rb]
    n = lambda ls: int(np.prod([size[l] for l in ls], dtype=np.int64))  # noqa: E731
    # group orders follow the layouts: M and batch a's, N b's, K the larger operand's
    batch = _ordered([l for l in la if l in sb and l in keep], lay_a)
    contract = _ordered([l for l in la if l in sb and l not in keep],
                        lay_a if n(la) >= n(lb) else lay_b)
    left = _ordered([l for l in la if l not in sb], lay_a)
    right = _ordered([l for l in lb if l not in sa], lay_b)
    res = batch + left + right
    permute, = _ops_of(driver, ("permute_dims",))
    total = _sum_in(driver, dt)
    if contract:
        pa = _perm([la.index(l) for l in batch + left + contract])
        pb = _perm([lb.index(l) for l in batch + contract + right])
        product = _contraction(driver, tuple(map(len, (batch, left, contract, right))),
                               tuple(map(n, (batch, left, contract, right))),
                               tuple(size[l] for l in res))
    else:  # outer / Hadamard-like: a broadcast product in the order batch, left, right
        pa = _perm([la.index(l) for l in batch + left])
        pb = _perm([lb.index(l) for l in batch + right])
        sha = tuple(size[l] for l in batch + left) + (1,) * len(right)
        shb = tuple(size[l] for l in batch) + (1,) * len(left) + tuple(size[l] for l in right)
        reshape, multiply = _ops_of(driver, ("reshape", "multiply"))

        def product(x, y):
            x = reshape(x, shape=sha, copy=None)
            y = reshape(y, shape=shb, copy=None)
            return multiply(x, y, out_dtype=dt)

    fa = _chain(([(total, {"axes": ra})] if ra else []) +
                ([(permute, {"axes": pa})] if pa else []))
    fb = _chain(([(total, {"axes": rb})] if rb else []) +
                ([(permute, {"axes": pb})] if pb else []))
    if fa is None and fb is None:
        return product, (res, res)
    fa, fb = fa or _identity, fb or _identity
    return (lambda x, y: product(fa(x), fb(y))), (res, res)


def _contraction(driver, groups, dims, shape):
    """``f(a, b)`` for ``a`` in [batch, M, K] and ``b`` in [batch, K, N] axis groups
    (``groups`` their numbers of axes, ``dims`` the groups' sizes (B, M, K, N)): the
    driver's grouped ``contract`` when it has one, else a reshape to (batched) matrices
    around its ``matmul``."""
    nb, nm, nk, nn = groups
    contract = driver.implementations.get("contract")
    if contract is not None:
        return lambda x, y: contract(x, y, nb=nb, nm=nm, nk=nk, nn=nn)
    reshape, matmul = _ops_of(driver, ("reshape", "matmul"))
    B, M, K, N = dims
    sha, shb = ((B, M, K), (B, K, N)) if nb else ((M, K), (K, N))

    def run(x, y):
        z = matmul(reshape(x, shape=sha, copy=None), reshape(y, shape=shb, copy=None))
        return reshape(z, shape=shape, copy=None)
    return run


def _final_step(labels, out, size, driver):
    """Permute to the output's order; embed labels repeated in the output as diagonals.
    Planned once: a function of the last intermediate's device array (None: nothing
    to do)."""
    permute, embed_diag = _ops_of(driver, ("permute_dims", "diagonal_transpose"))
    ops = []

    def embed(want):
        # the steps that turn the result (unique ``labels``) into labels ``want``
        for q, l in enumerate(want):
            p0 = want.index(l)
            if p0 != q:
                break
        else:
            ops.append((permute, _perm([labels.index(x) for x in want])))
            return
        inner = want[:q] + want[q + 1:]  # position q is the diagonal partner of p0
        embed(inner)
        # diagonal(result, 0, p0, q) = the other axes in order, then the diagonal
        ops.append((permute, _perm([i for i in range(len(inner)) if i != p0] + [p0])))
        ops.append((embed_diag, {"offset": 0, "axis1": p0, "axis2": q,
                                 "shape": tuple(size[x] for x in want)}))

    embed(list(out))
    return _chain([(f, kw if f is not permute else {"axes": kw})
                   for f, kw in ops if kw is not None])


# -- the primitive and the entry points ---------------------------------------------------

def _einsum_aval(*avals, ins, out, plan):
    return plan.shape, avals[0][1]


einsum_p = Primitive("einsum", _einsum_aval,
                     doc="Einstein summation of operands of one dtype (params: ins, out -- "
                         "the labels renumbered 0, 1, ... per operand and of the output -- "
                         "and plan, the cached execution plan for these shapes).")


def _einsum_impl(*xs, ins, out, plan):
    return _wrap(plan.run([x._data for x in xs]), xs[0]._device)  # as einsum's plain path


einsum_p.impl = _einsum_impl


class _Limited(collections.namedtuple("_Limited", "algorithm memory_limit")):
    """NumPy's ``optimize=(algorithm, memory_limit)``: the largest intermediate (in
    elements) the path may create."""


def _oe_optimize(optimize):
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
            return _Limited(_oe_optimize(algorithm), int(limit))
        return tuple(tuple(p) for p in optimize if p != "einsum_path")
    return optimize


def _get_plan(spec, ops, optimize, dtype, driver):
    """The cached plan for these operands (and the dtypes to compute in and return)."""
    datas = [t._data for t in ops]
    key = None
    if optimize.__class__ is str or optimize is True or optimize is False or optimize is None:
        key = (spec, optimize, dtype, driver, *[(x.shape, x.strides, x.dtype) for x in datas])
    elif isinstance(optimize, (list, tuple)):  # an explicit path, as a hashable tuple
        key = (spec, _oe_optimize(optimize), dtype, driver,
               *[(x.shape, x.strides, x.dtype) for x in datas])
    # (an optimizer object may be stateful: never cached)
    try:
        plan = _cache.get(key) if key is not None else None
    except TypeError:  # an unhashable label or dtype: no caching
        key, plan = None, None
    if plan is not None:
        _stats["hits"] += 1
        try:
            _cache.move_to_end(key)
        except KeyError:  # evicted by another thread meanwhile: still a valid plan
            pass
        return plan
    _stats["misses"] += 1
    dt = _dtypes.dtype(dtype) if dtype is not None else _dtypes.result_type(*ops)
    # bools sum exactly in int64 (cast back at the end); ints in their own dtype, wrapping
    # as NumPy's einsum does (int32 stays int32: devices without int64 matmul run it)
    work = _dtypes.int64 if dt.kind == "b" else dt
    plan = _plan(spec, tuple(x.shape for x in datas), tuple(x.strides for x in datas),
                 _oe_optimize(optimize), driver, work)
    plan.work, plan.cast = work, (None if dt == work else dt)
    if key is not None and _stats["maxsize"]:
        _cache[key] = plan
        if len(_cache) > _stats["maxsize"]:
            _cache.popitem(last=False)
    return plan


_CASTING = ("no", "equiv", "safe", "same_kind", "unsafe")


def einsum(*args, optimize="auto", out=None, dtype=None, casting="safe", order="K"):
    """Einstein summation with NumPy's grammar (``tenferro.einsum('ij,jk->ik', a, b)``
    or the interleaved ``einsum(a, [0, 1], b, [1, 2], [0, 2])``), plus diagonal
    embedding (``'i->ii'``).  ``optimize``: False, "auto", "greedy", "optimal", "dp",
    an explicit path, ``(algorithm, memory_limit)`` as NumPy, an opt_einsum
    PathOptimizer or a cotengra optimizer.  ``dtype``, ``casting`` (default "safe")
    and ``order`` ("K": the layout the contraction produces; "C" or "F": a copy in
    that order where needed; "A": as "K") mean what they mean in NumPy."""
    spec, ops = _split_operands(args)
    if casting != "safe" and casting not in _CASTING:
        raise ValueError("tenferro.einsum: casting must be one of %s, got %r"
                         % (", ".join(map(repr, _CASTING)), casting))
    if order != "K" and order not in ("C", "F", "A"):
        raise ValueError("tenferro.einsum: order must be one of 'C', 'F', 'A' or 'K', got %r"
                         % (order,))
    plain = not _interpreters  # no trace, no tape: the plan runs directly
    for i, t in enumerate(ops):
        if t.__class__ is not Tensor:
            ops[i] = t = to_tensor(t)
        if t._ad is not None:
            plain = False
    dev = common_device("einsum", ops)
    plan = _get_plan(spec, ops, optimize, dtype, dev.driver)
    work = plan.work
    if dtype is not None or casting in ("no", "equiv"):
        dt = plan.cast if plan.cast is not None else work
        for i, t in enumerate(ops):
            if not np.can_cast(t.dtype, dt, casting):
                raise TypeError("tenferro.einsum: operand %d of dtype %s cannot be cast to %s "
                                "under the %r casting rule (pass casting='unsafe' to allow "
                                "it)" % (i, t.dtype, dt, casting))
    for i, t in enumerate(ops):
        if t._data.dtype != work:
            ops[i] = t.astype(work)
    if plain:
        r = _wrap(plan.run([t._data for t in ops]), dev)
    elif plan.stepwise is not None:
        r = _run_stepwise(plan, ops)
    else:
        r = bind(einsum_p, ops, plan.params)
    if plan.cast is not None:
        r = r != 0 if plan.cast == _dtypes.bool_ else r.astype(plan.cast)
    if out is not None:
        from .conversion import store_out

        if isinstance(out, Tensor) and out.dtype != r.dtype:
            if not np.can_cast(r.dtype, out.dtype, casting):
                raise TypeError("tenferro.einsum: cannot cast the result from %s to out's "
                                "dtype %s under the %r casting rule" % (r.dtype, out.dtype,
                                                                         casting))
            r = r.astype(out.dtype)
        return store_out("einsum", r, out)
    return r if order == "K" or order == "A" else _in_order(r, order)


def _in_order(r, order):
    """``r`` laid out as NumPy's ``order=`` asks ("K"/"A": as it is)."""
    from .conversion import ascontiguousarray
    from .shape import permute_dims

    if order == "C":
        return ascontiguousarray(r)
    if order == "F" and r.ndim > 1:
        rev = tuple(range(r.ndim))[::-1]
        t = permute_dims(r, rev)
        return r if t is ascontiguousarray(t) else permute_dims(ascontiguousarray(t), rev)
    return r


def einsum_path(*args, optimize="greedy"):
    """``(path, report)`` as ``numpy.einsum_path``: the pairwise contraction order
    (``['einsum_path', (i, j), ...]``) and a readable description of it."""
    spec, ops = _split_operands(args, "einsum_path")
    ops = [t if isinstance(t, Tensor) else to_tensor(t) for t in ops]
    dev = common_device("einsum_path", ops)
    plan = _plan(spec, tuple(t.shape for t in ops), tuple(t._data.strides for t in ops),
                 _oe_optimize(optimize), dev.driver, _dtypes.result_type(*ops))
    return ["einsum_path"] + list(plan.path), plan.report


# -- contractions on the einsum engine -------------------------------------------------------

def _tensors(op, a, b):
    a = to_tensor(a)
    b = to_tensor(b, device=a.device)
    common_device(op, [a, b])
    return a, b


def tensordot(a, b, axes=2):
    """NumPy's ``tensordot``: ``axes`` an int N (the last N axes of ``a`` with the first N
    of ``b``) or a pair of axis sequences; one pairwise step of the einsum engine."""
    a, b = _tensors("tensordot", a, b)
    try:
        n = operator.index(axes)
    except TypeError:
        try:
            xa, xb = axes
        except (TypeError, ValueError):
            raise TypeError("tenferro.tensordot: axes must be an int or a pair of axis "
                            "sequences, got %r" % (axes,)) from None
        xa = [xa] if np.ndim(xa) == 0 else list(xa)
        xb = [xb] if np.ndim(xb) == 0 else list(xb)
    else:
        if n < 0 or n > min(a.ndim, b.ndim):
            raise ValueError("tenferro.tensordot: axes=%d is out of range for operands of "
                             "%d and %d dimensions" % (n, a.ndim, b.ndim))
        xa, xb = list(range(a.ndim - n, a.ndim)), list(range(n))
    if len(xa) != len(xb):
        raise ValueError("tenferro.tensordot: axes of a %s and of b %s differ in number"
                         % (xa, xb))
    xa = [normalize_axis("tensordot", i, a.ndim) for i in xa]
    xb = [normalize_axis("tensordot", i, b.ndim) for i in xb]
    if len(set(xa)) != len(xa) or len(set(xb)) != len(xb):
        raise ValueError("tenferro.tensordot: repeated axis in axes %r" % (axes,))
    for i, j in zip(xa, xb):
        if a.shape[i] != b.shape[j]:
            raise ValueError("tenferro.tensordot: shape mismatch for sum: axis %d of a "
                             "(shape %s) has %d elements, axis %d of b (shape %s) has %d"
                             % (i, a.shape, a.shape[i], j, b.shape, b.shape[j]))
    la = list(range(a.ndim))
    lb = list(range(a.ndim, a.ndim + b.ndim))
    for i, j in zip(xa, xb):
        lb[j] = la[i]
    out = [l for i, l in enumerate(la) if i not in xa] + \
        [l for j, l in enumerate(lb) if j not in xb]
    return einsum(a, la, b, lb, out)


def inner(a, b):
    """NumPy's ``inner``: the sum over the last axes (scalars multiply)."""
    a, b = _tensors("inner", a, b)
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    if a.shape[-1] != b.shape[-1]:
        raise ValueError("tenferro.inner: the last dimensions differ: shapes %s and %s "
                         "(%d != %d)" % (a.shape, b.shape, a.shape[-1], b.shape[-1]))
    return tensordot(a, b, ([-1], [-1]))


def kron(a, b):
    """NumPy's ``kron``: the Kronecker product (block ``i`` of the result is
    ``a[i] * b``), the operands padded to the same number of dimensions."""
    a, b = _tensors("kron", a, b)
    nd = max(a.ndim, b.ndim)
    a = a.reshape((1,) * (nd - a.ndim) + a.shape)
    b = b.reshape((1,) * (nd - b.ndim) + b.shape)
    interleaved = [l for i in range(nd) for l in (i, nd + i)]
    r = einsum(a, list(range(nd)), b, list(range(nd, 2 * nd)), interleaved)
    return r.reshape(tuple(m * n for m, n in zip(a.shape, b.shape)))


def trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    """NumPy's ``trace``: sums of the diagonals of the (axis1, axis2) planes (a strided
    diagonal view and one reduction, as einsum's ``'ii->'``)."""
    a = to_tensor(a)
    return _sum(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype)
