"""``einsum``: NumPy's grammar, opt_einsum's contraction order, cached plans.

A call is parsed once per (subscripts, shapes, dtypes, optimize) into a :class:`_Plan`
kept in a bounded LRU cache (:func:`einsum_cache_info`).  A plan is a list of steps
on tenferro primitives, so every einsum is differentiable by composition:

1. per operand: repeated labels become diagonals (strided views), size-1 axes of a
   broadcast label are dropped, labels found in this operand only (and not in the
   output) are summed;
2. pairs are contracted in opt_einsum's order (``optimize=``), each as one batched
   matrix product ``[batch, M, K] @ [batch, K, N]`` after a permutation of each side
   (views where the strides allow) -- or, with no label to contract, as a broadcast
   product (outer and Hadamard products);
3. the result is permuted to the output's order, and labels repeated in the output
   (``i->ii``, which NumPy rejects) are embedded as diagonals of zeros.
"""
import collections
import string

import numpy as np

from .. import _dtypes
from .._primitive import bind
from .._tensor import Tensor
from ._common import common_device, to_tensor

__all__ = ["einsum", "einsum_path", "einsum_cache_info", "einsum_cache_clear",
           "einsum_cache_resize"]

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


def _split_operands(args):
    """(spec, operands): ``spec`` is the subscripts string or, for the interleaved form,
    a tuple (input sublists, output sublist or None)."""
    if not args:
        raise TypeError("tenferro.einsum: expected subscripts and operands, got nothing")
    if isinstance(args[0], str):
        return args[0], list(args[1:])
    ops, subs = [], []
    rest = list(args)
    while len(rest) >= 2:
        ops.append(rest.pop(0))
        subs.append(tuple(rest.pop(0)))
    out = tuple(rest.pop(0)) if rest else None
    return (tuple(subs), out), ops


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
        for l, n in zip(labels, shape):
            m = size.get(l)
            if m is None or m == 1:
                size[l] = n
            elif n != m and n != 1:
                _fail("size mismatch for label %s: %d in operand %d but %d in an earlier "
                      "operand", _name(l), n, k, m)
    return size


# -- planning ----------------------------------------------------------------------------

class _Plan:
    """The steps of one einsum, replayable on any operands of the same signature."""

    __slots__ = ("pre", "steps", "final", "path", "report", "dtype", "work")

    def run(self, ops):
        ts = [self._prepare(t, p) for t, p in zip(ops, self.pre)]
        for con, step in zip(self.path, self.steps):  # opt_einsum's order
            args = [ts[i] for i in con]
            for k in sorted(con, reverse=True):
                del ts[k]
            ts.append(step(args))
        return self.final(ts[0])

    @staticmethod
    def _prepare(t, pre):
        for kind, arg in pre:
            if kind == "diag":
                t = bind(_diagonal_p, (t,), {"offset": 0, "axis1": arg[0], "axis2": arg[1]})
            elif kind == "reshape":
                t = _apply_reshape(t, arg)
            elif kind == "sum":
                t = _sum(t, axis=arg)
        return t


def _plan(spec, shapes, optimize):
    import opt_einsum as oe

    ins, out = _parse(spec, shapes)
    size = _sizes(ins, shapes)
    out_set = set(out)
    counts = collections.Counter(l for labels in ins for l in set(labels))
    plan = _Plan()
    plan.pre = []
    terms = []
    for labels, shape in zip(ins, shapes):
        labels, shape = list(labels), list(shape)
        pre = []
        while len(set(labels)) != len(labels):  # repeated label: its diagonal (a view)
            l = next(l for l in labels if labels.count(l) > 1)
            p = labels.index(l)
            q = labels.index(l, p + 1)
            pre.append(("diag", (p, q)))
            n = min(shape[p], shape[q])
            labels = [x for i, x in enumerate(labels) if i not in (p, q)] + [l]
            shape = [x for i, x in enumerate(shape) if i not in (p, q)] + [n]
        drop = [i for i, (l, n) in enumerate(zip(labels, shape)) if n == 1 and size[l] != 1]
        if drop:  # a size-1 axis broadcast against a longer one: independent of that label
            labels = [l for i, l in enumerate(labels) if i not in drop]
            shape = [n for i, n in enumerate(shape) if i not in drop]
            pre.append(("reshape", tuple(shape)))
        own = tuple(i for i, l in enumerate(labels) if counts[l] == 1 and l not in out_set)
        if own:
            pre.append(("sum", own))
            labels = [l for i, l in enumerate(labels) if i not in own]
        plan.pre.append(pre)
        terms.append(labels)
    # opt_einsum's contraction order over the prepared terms
    # symbols for opt_einsum: the user's letters where there are letters (so the report
    # reads like the subscripts), fresh ones for '...' dimensions and integer labels
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
    tshapes = [tuple(size[l] for l in t) for t in terms]
    if len(terms) == 1:
        path, info = [(0,)], None
    else:
        path, info = oe.contract_path(eq, *tshapes, shapes=True, optimize=optimize)
    plan.path = [tuple(p) for p in path]
    plan.report = str(info) if info is not None else "  Complete contraction:  %s\n" % eq
    plan.steps = []
    cur = list(terms)
    for con in plan.path:
        group = [cur[i] for i in con]
        for k in sorted(con, reverse=True):
            del cur[k]
        step, labels = _group_step(group, set(out).union(*[set(t) for t in cur]), size)
        plan.steps.append(step)
        cur.append(labels)
    plan.final = _final_step(cur[0], out, size)
    return plan


def _perm(perm):
    """A permutation step (``None`` for the identity)."""
    perm = tuple(perm)
    return None if perm == tuple(range(len(perm))) else {"axes": perm}


def _apply_perm(t, params):
    return t if params is None else bind(_permute_dims_p, (t,), params)


def _apply_reshape(t, shape):
    return t if t._data.shape == shape else bind(_reshape_p, (t,), {"shape": shape, "copy": None})


def _apply_sum(t, axes):
    return t if not axes else _sum(t, axis=axes)


def _group_step(group, keep, size):
    """(function of the list of tensors of one contraction, the result's labels): one
    operand alone sums what nothing else needs; several are folded pairwise."""
    if len(group) == 1:
        la = group[0]
        axes = tuple(i for i, l in enumerate(la) if l not in keep)
        labels = [l for l in la if l in keep]
        return (lambda ts: _apply_sum(ts[0], axes)), labels
    steps = []
    cur = group[0]
    for k in range(1, len(group)):
        later = set().union(*[set(t) for t in group[k + 1:]])
        step, cur = _pair_step(cur, group[k], keep | later, size)
        steps.append(step)

    def run(ts):
        t = ts[0]
        for step, u in zip(steps, ts[1:]):
            t = step(t, u)
        return t
    return run, cur


def _pair_step(la, lb, keep, size):
    """(function contracting tensors with labels la and lb, the result's labels)."""
    sa, sb = set(la), set(lb)
    # labels of one side that nothing else needs: summed first
    ra = tuple(i for i, l in enumerate(la) if l not in sb and l not in keep)
    rb = tuple(i for i, l in enumerate(lb) if l not in sa and l not in keep)
    la = [l for i, l in enumerate(la) if i not in ra]
    lb = [l for i, l in enumerate(lb) if i not in rb]
    batch = [l for l in la if l in sb and l in keep]
    contract = [l for l in la if l in sb and l not in keep]
    left = [l for l in la if l not in sb]
    right = [l for l in lb if l not in sa]
    n = lambda ls: int(np.prod([size[l] for l in ls], dtype=np.int64))  # noqa: E731
    if not contract:
        # outer / Hadamard-like: a broadcast product in the order batch, left, right
        res = batch + left + right
        pa = _perm([la.index(l) for l in batch + left])
        pb = _perm([lb.index(l) for l in batch + right])
        sha = tuple(size[l] for l in batch + left) + (1,) * len(right)
        shb = tuple(size[l] for l in batch) + (1,) * len(left) + tuple(size[l] for l in right)

        def step(a, b):
            a = _apply_reshape(_apply_perm(_apply_sum(a, ra), pa), sha)
            b = _apply_reshape(_apply_perm(_apply_sum(b, rb), pb), shb)
            return _multiply(a, b)
        return step, res
    pa = _perm([la.index(l) for l in batch + left + contract])
    pb = _perm([lb.index(l) for l in batch + contract + right])
    B, M, K, N = n(batch), n(left), n(contract), n(right)
    res = batch + left + right
    shape = tuple(size[l] for l in res)

    ash, bsh = ((B, M, K), (B, K, N)) if batch else ((M, K), (K, N))

    def step(a, b):
        a = _apply_reshape(_apply_perm(_apply_sum(a, ra), pa), ash)
        b = _apply_reshape(_apply_perm(_apply_sum(b, rb), pb), bsh)
        return _apply_reshape(bind(_matmul_p, (a, b), {}), shape)
    return step, res


def _final_step(labels, out, size):
    """Permute to the output's order; embed labels repeated in the output as diagonals.

    Planned once: a list of (primitive, params) applied in turn."""
    ops = []

    def embed(want):
        # the steps that turn the result (unique ``labels``) into labels ``want``
        for q, l in enumerate(want):
            p0 = want.index(l)
            if p0 != q:
                break
        else:
            ops.append((_permute_dims_p, _perm([labels.index(x) for x in want])))
            return
        inner = want[:q] + want[q + 1:]  # position q is the diagonal partner of p0
        embed(inner)
        # diagonal(result, 0, p0, q) = the other axes in order, then the diagonal
        ops.append((_permute_dims_p, _perm([i for i in range(len(inner)) if i != p0] + [p0])))
        ops.append((_diagonal_transpose_p, {"offset": 0, "axis1": p0, "axis2": q,
                                            "shape": tuple(size[x] for x in want)}))

    embed(list(out))
    ops = [(prim, params) for prim, params in ops if params is not None]

    def final(t):
        for prim, params in ops:
            t = bind(prim, (t,), params)
        return t
    return final


# -- entry points --------------------------------------------------------------------------

def _oe_optimize(optimize):
    """What opt_einsum's ``contract_path`` takes for tenferro's ``optimize``: a string,
    a tuple path (both hashable: part of the plan cache key) or a PathOptimizer."""
    if optimize is True:
        return "auto"
    if optimize is False or optimize is None:
        return "greedy"  # one pair at a time, in opt_einsum's cheapest-first order
    if isinstance(optimize, (list, tuple)):
        return tuple(tuple(p) for p in optimize if p != "einsum_path")
    return optimize


def _get_plan(spec, ops, optimize, dtype):
    """The cached plan for these operands (and the dtypes to compute in and return)."""
    opt = _oe_optimize(optimize)
    shapes = tuple(t._data.shape for t in ops)
    key = None
    if isinstance(opt, (str, tuple)):  # an optimizer object may be stateful: never cached
        key = (spec, shapes, tuple(t._data.dtype for t in ops), opt, dtype)
    try:
        plan = _cache.get(key) if key is not None else None
    except TypeError:  # an unhashable label: no caching
        key, plan = None, None
    if plan is not None:
        _stats["hits"] += 1
        _cache.move_to_end(key)
        return plan
    _stats["misses"] += 1
    plan = _plan(spec, shapes, opt)
    dt = _dtypes.dtype(dtype) if dtype is not None else _dtypes.result_type(*ops)
    plan.dtype = dt
    plan.work = _dtypes.int64 if dt.kind in "bi" else dt  # exact integer sums, cast at the end
    if key is not None and _stats["maxsize"]:
        _cache[key] = plan
        if len(_cache) > _stats["maxsize"]:
            _cache.popitem(last=False)
    return plan


def einsum(*args, optimize="auto", out=None, dtype=None):
    """Einstein summation with NumPy's grammar (``tenferro.einsum('ij,jk->ik', a, b)``
    or the interleaved ``einsum(a, [0, 1], b, [1, 2], [0, 2])``), plus diagonal
    embedding (``'i->ii'``).  ``optimize``: False, "auto", "greedy", "optimal", "dp",
    an explicit path, or an opt_einsum PathOptimizer."""
    spec, ops = _split_operands(args)
    ops = [t if isinstance(t, Tensor) else to_tensor(t) for t in ops]
    if not ops:
        raise ValueError("tenferro.einsum: at least one operand is needed")
    common_device("einsum", ops)
    plan = _get_plan(spec, ops, optimize, dtype)
    work = plan.work
    ops = [t if t._data.dtype == work else t.astype(work) for t in ops]
    r = plan.run(ops)
    dt = plan.dtype
    if dt == _dtypes.bool_:
        r = r != 0
    elif r._data.dtype != dt:
        r = r.astype(dt)
    if out is not None:
        from .conversion import store_out

        return store_out("einsum", r, out)
    return r


def einsum_path(*args, optimize="greedy"):
    """``(path, report)`` as ``numpy.einsum_path``: the pairwise contraction order
    (``['einsum_path', (i, j), ...]``) and a readable description of it."""
    spec, ops = _split_operands(args)
    shapes = tuple(tuple(np.shape(t)) if not isinstance(t, Tensor) else t.shape for t in ops)
    plan = _plan(spec, shapes, _oe_optimize(optimize))
    return ["einsum_path"] + list(plan.path), plan.report


from .shape import diagonal_p as _diagonal_p, diagonal_transpose_p as _diagonal_transpose_p  # noqa
from .shape import reshape_p as _reshape_p, permute_dims_p as _permute_dims_p  # noqa: E402
from .reduction import sum as _sum  # noqa: E402
from .elementwise import multiply as _multiply  # noqa: E402
from .matmul import matmul_p as _matmul_p  # noqa: E402
