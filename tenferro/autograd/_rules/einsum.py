"""Rules of ``einsum``: the JVP is a sum of einsums, the VJP of each operand an einsum.

Both are written with ``tenferro.einsum`` itself (in the interleaved form, over the
primitive's renumbered labels), so they differentiate again and their plans are cached
like any einsum's.  Edge cases of the VJP, each handled explicitly (tenferro-rs had
bugs with the first two, its #557 and #564):

* a label repeated in the operand (a diagonal, ``'ii->i'``): the cotangent is embedded
  back on the diagonal (``'i->ii'``); when no other operand and not the output carries
  that label, a vector of ones carries its size (``'ii->'`` gives ``ct * I``);
* a label summed away inside this operand only (``'ij->i'``): the cotangent is
  broadcast along it;
* a size-1 axis broadcast against a longer one: the cotangent is summed over it.
"""
from ... import _ops
from ..._ops.einsum import einsum_p
from ..extend import def_jvp_rule, def_vjp_rule
from ._util import conj


def _contract(pairs, out):
    """``einsum`` of (tensor, labels) pairs to labels ``out`` (interleaved form)."""
    args = []
    for t, labels in pairs:
        args += [t, list(labels)]
    return _ops.einsum(*args, list(out))


def _einsum_jvp(tangents, primals, out, params):
    # the product rule: one einsum per operand with a tangent (JAX lax.py dot_general)
    ins, labels_out = params["ins"], params["out"]
    acc = None
    for k, t in enumerate(tangents):
        if t is None:
            continue
        if t.dtype != primals[k].dtype:
            t = _ops.astype(t, primals[k].dtype)
        pairs = [(t if j == k else x, ins[j]) for j, x in enumerate(primals)]
        r = _contract(pairs, labels_out)
        acc = r if acc is None else acc + r
    return acc


def _einsum_vjp(ct, primals, out, params, needs):
    # grad_k = einsum(ct, conj(other operands) -> labels of operand k): the adjoint of
    # a multilinear map under <a, b> = Re sum(conj(a) b) (PyTorch FunctionsManual.cpp
    # einsum backward; Giles 2008, "Extended collection of matrix derivative results")
    ins, labels_out = params["ins"], params["out"]
    size = {}
    for labels, x in zip(ins, primals):
        for l, n in zip(labels, x.shape):
            if n != 1 or l not in size:
                size[l] = n
    res = []
    for k, need in enumerate(needs):
        if not need:
            res.append(None)
            continue
        x, lk = primals[k], ins[k]
        pairs = [(ct, labels_out)] + [(conj(y), ins[j]) for j, y in enumerate(primals)
                                      if j != k]
        avail = set().union(*[set(labels) for _, labels in pairs])
        target, kept = [], []
        for p, (l, n) in enumerate(zip(lk, x.shape)):
            if n == 1 and size[l] != 1:
                continue  # broadcast axis: summed by the einsum, kept as size 1 below
            if l not in avail:
                if lk.count(l) == 1:
                    continue  # summed in this operand only: broadcast back below
                pairs.append((_ops.ones(size[l], dtype=x.dtype, device=x.device), (l,)))
                avail.add(l)
            target.append(l)
            kept.append(p)
        g = _contract(pairs, target)
        if len(kept) != x.ndim:
            g = _ops.reshape(g, tuple(g.shape[kept.index(p)] if p in kept else 1
                                      for p in range(x.ndim)))
        if g.shape != x.shape:  # also a label only carried by size-1 axes elsewhere
            g = _ops.broadcast_to(g, x.shape)
        res.append(g)
    return tuple(res)


_einsum_vjp.uses_out = False
def_jvp_rule(einsum_p, _einsum_jvp)
def_vjp_rule(einsum_p, _einsum_vjp)
