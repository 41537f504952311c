"""``einsum_p``: the whole einsum as one primitive (its rules, einsums again, are in
tenferro/autograd/_rules/einsum.py); its parameters carry the cached plan."""
from ..._primitive import Primitive
from ..._tensor import _wrap


def _einsum_aval(*avals, ins, out, plan):
    return plan.shape, avals[0][1]


einsum_p = Primitive("einsum", _einsum_aval,
                     doc="Einstein summation of operands of one dtype (params: ins, out -- "
                         "the labels renumbered 0, 1, ... per operand and of the output -- "
                         "and plan, the cached execution plan for these shapes).")


def _einsum_impl(*xs, ins, out, plan):
    return _wrap(plan.run([x._data for x in xs]), xs[0]._device)  # as einsum's plain path


einsum_p.impl = _einsum_impl
