"""The steps of an einsum plan as functions of the driver's raw arrays.

Each builder runs once, when a plan is made: it looks the driver's implementations up
(an UnsupportedOperation then, before anything runs) and returns a closure that only
calls them.  While planning, each intermediate carries its *layout*: its labels from the
largest stride to the smallest.  Inside a group of labels (M, K or N of a pairwise
product) the order follows the layout, so that the group folds into one matrix dimension
without a copy whenever the strides allow it (the kernel checks, and copies otherwise)."""
import numpy as np

from ... import _dtypes


def identity(x):
    return x


def take(xs, con):
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


def ops_of(driver, names):
    """The driver's implementations of ``names`` (UnsupportedOperation for a missing
    one, at planning time: before anything runs)."""
    return [driver.lookup(n, driver.name) for n in names]


def sum_in(driver, dt):
    """``f(x, axes=)``: the driver's sum of ``x`` over ``axes`` in ``dt``.  An int32 sum
    accumulates in int64 (the kernels' loop, NumPy's sum) and wraps back to int32: the
    value NumPy's int32 einsum returns."""
    total, = ops_of(driver, ("sum",))
    if dt.kind != "i" or dt == _dtypes.int64:
        return lambda x, axes: total(x, axes=axes, out_dtype=dt)
    convert, = ops_of(driver, ("convert",))
    return lambda x, axes: convert(total(x, axes=axes, out_dtype=_dtypes.int64), dtype=dt)


def prepare_step(labels, shape, strides, size, counts, out_set, fns, dt):
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


def _perm(perm):
    """Axes for ``permute_dims`` (``None`` for the identity)."""
    perm = tuple(perm)
    return None if perm == tuple(range(len(perm))) else perm


def group_step(group, keep, size, driver, dt):
    """(function of the device arrays of one contraction, (result labels, layout)): one
    operand alone sums what nothing else needs; several are folded pairwise."""
    if len(group) == 1:
        (la, lay), = group
        axes = tuple(i for i, l in enumerate(la) if l not in keep)
        labels = [l for l in la if l in keep]
        if not axes:
            return identity, (labels, lay)
        total = sum_in(driver, dt)
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
    permute, = ops_of(driver, ("permute_dims",))
    total = sum_in(driver, dt)
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
        reshape, multiply = ops_of(driver, ("reshape", "multiply"))

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
    fa, fb = fa or identity, fb or identity
    return (lambda x, y: product(fa(x), fb(y))), (res, res)


def _contraction(driver, groups, dims, shape):
    """``f(a, b)`` for ``a`` in [batch, M, K] and ``b`` in [batch, K, N] axis groups
    (``groups`` their numbers of axes, ``dims`` the groups' sizes (B, M, K, N)): the
    driver's grouped ``contract`` when it has one, else a reshape to (batched) matrices
    around its ``matmul``."""
    nb, nm, nk, nn = groups
    contract = driver.implementations.get("contract")
    if contract is not None:
        # ``contract.prepared``: the driver's form with the groups and the result's
        # shape fixed once (no keywords or shape arithmetic per call)
        prepared = getattr(contract, "prepared", None)
        if prepared is not None:
            return prepared(nb, nm, nk, nn, shape)
        return lambda x, y: contract(x, y, nb=nb, nm=nm, nk=nk, nn=nn)
    reshape, matmul = ops_of(driver, ("reshape", "matmul"))
    B, M, K, N = dims
    sha, shb = ((B, M, K), (B, K, N)) if nb else ((M, K), (K, N))

    def run(x, y):
        z = matmul(reshape(x, shape=sha, copy=None), reshape(y, shape=shb, copy=None))
        return reshape(z, shape=shape, copy=None)
    return run


def final_step(labels, out, size, driver):
    """Permute to the output's order; embed labels repeated in the output as diagonals.
    Planned once: a function of the last intermediate's device array (None: nothing
    to do)."""
    permute, embed_diag = ops_of(driver, ("permute_dims", "diagonal_transpose"))
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
