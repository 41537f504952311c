"""Batching rules (``tenferro.vmap``) of the FFT primitives, registered through the
public :func:`tenferro.autograd.extend.def_batch_rule` like a third party's.

Every transform applies over its ``axes`` and is batched over the others, so the vmapped
batch is one more leading axis: the input is given the batch (a view where it is shared)
and the primitive bound once with each of its (non-negative) ``axes`` shifted by one;
the lengths (``lastsize``) do not change.
"""
from ..autograd.extend import bind, def_batch_rule
from ..batching import materialize
from ._prims import c2c_p, c2r_p, r2c_p, r2r_p


def _leading_axis(prim):
    def rule(args, batched, params, size):
        (x,), (b,) = args, batched
        return bind(prim, (materialize(x, b, size),),
                    dict(params, axes=tuple(a + 1 for a in params["axes"])))
    return def_batch_rule(prim, rule)


for _p in (c2c_p, r2c_p, c2r_p, r2r_p):
    _leading_axis(_p)
