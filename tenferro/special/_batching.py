"""Batching rules (``tenferro.vmap``) of the special functions' primitives, registered
through the public :func:`tenferro.autograd.extend.batch_elementwise`.

Every ``special.*`` primitive is elementwise over NumPy-broadcast operands (its shape
rule is :func:`._base._aval`, parameters such as polygamma's order unchanged), so each
gets the elementwise rule: batched operands aligned, bound once on the batch.
"""
from ..autograd.extend import batch_elementwise, registry
from ._base import _aval

for _prim in [p for n, p in registry.items() if n.startswith("special.")]:
    if _prim.abstract_eval is _aval:
        batch_elementwise(_prim)
