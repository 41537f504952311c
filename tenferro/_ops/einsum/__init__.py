"""``einsum``: NumPy's grammar, opt_einsum's contraction order, cached plans.

A call is parsed once per (subscripts, shapes, dtypes, strides, optimize, device
driver) into a :class:`Plan` kept in a bounded LRU cache (:func:`einsum_cache_info`).
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

The package, bottom to top (each module imports only those before it):

- ``parse``: the subscripts grammar to label lists, and the size of every label;
- ``steps``: the steps of a plan as closures over the driver's implementations;
- ``plan``: :class:`Plan` and :func:`build_plan` (opt_einsum's order, the steps, the
  one-einsum-per-step form a differentiated call runs);
- ``primitive``: ``einsum_p``;
- ``cache``: the plan cache and its statistics;
- ``api``: ``einsum``, ``einsum_path``, ``trace``;
- ``products``: ``tensordot``, ``inner``, ``kron`` (one einsum each).
"""
from .api import einsum, einsum_path, trace
from .cache import (EinsumCacheInfo, einsum_cache_info, einsum_cache_clear,  # noqa: F401
                    einsum_cache_resize)
from .plan import Plan, build_plan  # noqa: F401  (the compiler's passes re-plan einsums)
from .primitive import einsum_p  # noqa: F401
from .products import tensordot, inner, kron

__all__ = ["einsum", "einsum_path", "einsum_cache_info", "einsum_cache_clear",
           "einsum_cache_resize", "tensordot", "inner", "kron", "trace"]
